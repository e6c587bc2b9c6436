/**
 * The seam to the CRD registry (src/schema/, schema branch): strict validation of every nested
 * object of a rollout against its CRD. Until that registry is merged, no CRD validator is wired
 * and the linter relies on its own field table (fields.ts) for the unknown-field mistakes.
 */
import type { SchemaValidator } from './lint.js';

export function rolloutSchemaValidator(): SchemaValidator | undefined {
  return undefined;
}
