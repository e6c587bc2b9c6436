import type { SchemaIssue } from './types.js';
import { childPath as joinPath } from '../core/field-path.js';
import { unknownFieldMessage } from './paths.js';

/**
 * The field tree of a built-in kind, used only to find unknown fields (kubernetes-models'
 * compiled validators check types, enums and required fields but accept any extra field).
 * 0 = open (primitive or free-form JSON), string = named shape, {o} = closed object,
 * {a} = array items, {m} = map values, {u} = union of object shapes.
 */
export type Shape =
  | 0
  | string
  | { o: Record<string, Shape> }
  | { a: Shape }
  | { m: Shape }
  | { u: Shape[] };

/** Reports every field of `value` not in `shape`, depth first, in document order. */
export function findUnknownFields(
  value: unknown,
  shape: Shape,
  defs: Readonly<Record<string, Shape>>,
  path: string,
  out: SchemaIssue[],
  skip?: (path: string) => boolean,
  /** Called for a named shape; returning true means the hook checked the value itself. */
  onNamed?: (name: string, value: unknown, path: string) => boolean,
): void {
  if (typeof shape === 'string' && onNamed?.(shape, value, path)) return;
  let s = shape;
  while (typeof s === 'string') s = defs[s] ?? 0;
  if (s === 0 || value === null || typeof value !== 'object') return;
  if ('a' in s) {
    if (Array.isArray(value)) value.forEach((v, i) => findUnknownFields(v, s.a, defs, `${path}[${i}]`, out, skip, onNamed));
    return;
  }
  if (Array.isArray(value)) return; // type mismatch: the type validator reports it
  if ('m' in s) {
    for (const [k, v] of Object.entries(value)) findUnknownFields(v, s.m, defs, joinPath(path, k), out, skip, onNamed);
    return;
  }
  if ('u' in s) {
    // Pick the first object member (unions of object shapes are rare: only used for open JSON).
    const first = s.u.find((m) => m !== 0);
    if (first !== undefined) findUnknownFields(value, first, defs, path, out, skip, onNamed);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    const p = joinPath(path, k);
    if (skip?.(p)) continue;
    const child = s.o[k];
    if (child === undefined) {
      out.push({ path: p, message: unknownFieldMessage(k, Object.keys(s.o)), keyword: 'additionalProperties' });
    } else findUnknownFields(v, child, defs, p, out, skip, onNamed);
  }
}
