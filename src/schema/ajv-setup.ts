/**
 * How the registry's ajv is set up, in one place for the runtime Ajv (registry.ts) and for the
 * validators compiled at build time (precompile.ts, run by hack/bundle.mjs), so both compile
 * the same schemas with the same options and formats.
 */
import { Ajv, type Options } from 'ajv';
import { addKubernetesFormats } from './formats.js';
import { labelSelectorSchema, objectMetaSchema } from './objectmeta.js';

// verbose: errors carry their parent schema, for did-you-mean on unknown fields.
export const AJV_OPTIONS: Options = { allErrors: true, strict: false, allowUnionTypes: true, logger: false, verbose: true };

/** The schemas every registry has, each with its $id. */
export function ownSchemas(): Record<string, unknown>[] {
  return [...(['subdomain', 'label', 'path-segment', 'any'] as const).map((rule) => objectMetaSchema(rule)), labelSelectorSchema()];
}

/** A new Ajv with the options and formats every registry uses (no schemas, no extra keywords). */
export function newAjv(extra: Options = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...extra });
  addKubernetesFormats(ajv);
  return ajv;
}
