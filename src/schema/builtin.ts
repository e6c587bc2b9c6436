import type { ErrorObject } from 'ajv';
import { BUILTIN_KINDS, BUILTIN_SHAPES } from './generated/builtin-shapes.js';
import { BUILTIN_VALIDATORS } from './generated/builtin-validators.js';
import { renderAjvErrors } from './errors.js';
import { findUnknownFields } from './shape.js';
import type { SchemaIssue } from './types.js';

/** The shape of kubernetes-models' standalone ajv validators. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

const OBJECT_META = 'meta:apis/meta/v1/ObjectMeta';

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
  /** Validates an embedded ObjectMeta (pod template metadata, volumeClaimTemplates[].metadata, …). */
  nestedMeta: (value: unknown, path: string) => SchemaIssue[],
): SchemaIssue[] {
  const entry = BUILTIN_KINDS[`${apiVersion}/${kind}`];
  if (!entry) return [];
  const validate = BUILTIN_VALIDATORS[entry.schemaId]!;
  const issues: SchemaIssue[] = [];
  if (!validate(obj)) {
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
      if (name !== OBJECT_META) return false;
      issues.push(...nestedMeta(value, path));
      return true;
    },
  );
  return issues;
}
