import type { ErrorObject } from 'ajv';
import { BUILTIN_KINDS, BUILTIN_SHAPES } from './generated/builtin-shapes.js';
import { BUILTIN_VALIDATORS } from './generated/builtin-validators.js';
import { renderAjvErrors } from './errors.js';
import { findUnknownFields } from './shape.js';
import type { SchemaIssue } from './types.js';

/** The shape of kubernetes-models' standalone ajv validators. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/** Shape names of apimachinery types the registry checks with its own stricter schemas. */
export const OBJECT_META_SHAPE = 'meta:apis/meta/v1/ObjectMeta';
export const LABEL_SELECTOR_SHAPE = 'meta:apis/meta/v1/LabelSelector';

export function isBuiltinKind(apiVersion: string, kind: string): boolean {
  return Object.prototype.hasOwnProperty.call(BUILTIN_KINDS, `${apiVersion}/${kind}`);
}

/**
 * Validates a built-in kind: kubernetes-models' compiled validator checks types, required fields,
 * enums and formats; the shape walk adds strictness (unknown fields), which those validators lack.
 * metadata is left to the caller's ObjectMeta schema (stricter than kubernetes-models').
 */
export function validateBuiltin(
  obj: Record<string, unknown>,
  apiVersion: string,
  kind: string,
  /** Checks a named type the registry validates itself (embedded ObjectMeta, LabelSelector); undefined = not handled. */
  named: (name: string, value: unknown, path: string) => SchemaIssue[] | undefined,
): SchemaIssue[] {
  const entry = BUILTIN_KINDS[`${apiVersion}/${kind}`];
  if (!entry) return [];
  // Absent for API versions Kubernetes removed: the caller reports those, field names are still checked.
  const validate = BUILTIN_VALIDATORS[entry.schemaId];
  const issues: SchemaIssue[] = [];
  if (validate && !validate(obj)) {
    const errs = (validate.errors ?? []).filter((e) => !e.instancePath.startsWith('/metadata'));
    issues.push(...renderAjvErrors(errs, obj));
  }
  findUnknownFields(
    obj,
    entry.shape,
    BUILTIN_SHAPES,
    '',
    issues,
    (p) => p === 'metadata',
    (name, value, path) => {
      const found = named(name, value, path);
      if (found === undefined) return false;
      issues.push(...found);
      return true;
    },
  );
  return issues;
}
