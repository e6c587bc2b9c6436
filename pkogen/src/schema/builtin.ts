import { BUILTIN_KINDS, BUILTIN_SHAPES } from './generated/builtin-shapes.js';
import { renderAjvErrors } from './errors.js';
import { findUnknownFields } from './shape.js';
import type { CompiledValidator, SchemaIssue } from './types.js';
import { builtinValidator, loadBuiltinValidators } from './validator-loader.js';

export type { CompiledValidator };

/** Shape names of apimachinery types the registry checks with its own stricter schemas. */
export const OBJECT_META_SHAPE = 'meta:apis/meta/v1/ObjectMeta';
export const LABEL_SELECTOR_SHAPE = 'meta:apis/meta/v1/LabelSelector';

export function isBuiltinKind(apiVersion: string, kind: string): boolean {
  return Object.prototype.hasOwnProperty.call(BUILTIN_KINDS, `${apiVersion}/${kind}`);
}

/**
 * Loads the validators validateBuiltin needs for these objects' kinds (all kinds without
 * objects). The bundled CLI loads a kind's code only then; validate must come after.
 */
export async function prepareBuiltinKinds(objects?: readonly unknown[]): Promise<void> {
  if (objects === undefined) return loadBuiltinValidators();
  const ids = new Set<string>();
  for (const o of objects) {
    if (o === null || typeof o !== 'object') continue;
    const { apiVersion, kind } = o as Record<string, unknown>;
    if (typeof apiVersion === 'string' && typeof kind === 'string' && isBuiltinKind(apiVersion, kind)) ids.add(BUILTIN_KINDS[`${apiVersion}/${kind}`].schemaId);
  }
  return loadBuiltinValidators([...ids].sort());
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
  const validate = builtinValidator(entry.schemaId);
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
