/**
 * How the registry's ajv is set up, in one place for the runtime Ajv (registry.ts, through
 * ajv-loader.ts) and for the validators compiled at build time (precompile.ts, run by
 * hack/bundle.mjs), so both compile the registry's schemas (objectmeta.ts) with the same options
 * and formats.
 */
import { Ajv, type Options } from 'ajv';
import { addKubernetesFormats } from './formats.js';
import { addCelKeyword, addListMapKeyword } from './kube-keywords.js';

// verbose: errors carry their parent schema, for did-you-mean on unknown fields.
export const AJV_OPTIONS: Options = { allErrors: true, strict: false, allowUnionTypes: true, logger: false, verbose: true };

/**
 * A new Ajv with the options and formats every registry uses (no schemas); with `keywords`, also
 * the Kubernetes keywords CRD schemas need (kube-keywords.ts): list-map keys, and CEL rules
 * evaluated, or accepted and ignored when `cel` is false.
 */
export function newAjv(extra: Options = {}, keywords?: { cel: boolean }): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...extra });
  addKubernetesFormats(ajv);
  if (keywords) {
    addListMapKeyword(ajv);
    if (keywords.cel) addCelKeyword(ajv);
    else ajv.addKeyword({ keyword: 'x-kubernetes-validations' });
  }
  return ajv;
}
