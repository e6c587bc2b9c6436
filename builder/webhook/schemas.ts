/**
 * The CRD schemas' validators for the webhook and the controller (validate.ts), by kind. Here, in
 * source and in a plain tsc build, they are compiled with ajv on first use. `make build` and the
 * image build replace this module in dist/builder/webhook with ajv standalone code generated from
 * the same CRD objects (hack/precompile-webhook.mjs, precompile.ts webhookSchemaSources), so the
 * webhook process neither loads ajv's compiler nor compiles at run time.
 * test/builder/webhook-precompiled.test.ts checks both give the same verdicts and errors.
 */
import type { ErrorObject } from 'ajv';
import { crdFromObject, crdVersionToJsonSchema, newAjv, objectMetaSchema } from 'pkogen/schema';
import { BUILD_KIND, CONFIG_KIND, VERSION } from '../api/types.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../api/crds.js';

export interface SchemaValidator {
  (data: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** Where the validators come from: 'compiled' here, 'precompiled' in the generated replacement. */
export const SCHEMA_SOURCE: 'compiled' | 'precompiled' = 'compiled';

let validators: Map<string, SchemaValidator> | undefined;

/** The validator of one served kind's CRD schema (metadata reduced to its name by the caller). */
export function schemaValidator(kind: typeof CONFIG_KIND | typeof BUILD_KIND): SchemaValidator {
  if (!validators) {
    const ajv = newAjv({}, { cel: true });
    ajv.addSchema(objectMetaSchema('any'));
    validators = new Map();
    for (const obj of [nodePoolOSConfigCRD(), nodePoolOSBuildCRD()]) {
      const crd = crdFromObject(obj, 'builder/api/crds.ts')!;
      const v = crd.versions.find((x) => x.name === VERSION)!;
      const { schema } = crdVersionToJsonSchema(crd, VERSION, v.schema, `webhook:${crd.kind}`, 'any');
      validators.set(crd.kind, ajv.compile(schema) as SchemaValidator);
    }
  }
  return validators.get(kind)!;
}
