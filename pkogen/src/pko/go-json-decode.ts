/**
 * Decoding the way sigs.k8s.io/yaml → encoding/json decodes into Go structs: unknown keys are
 * ignored, keys match case-insensitively when no exact match exists, `null` leaves the zero
 * value, and a JSON type that does not fit the Go field is an error. We also record every
 * ignored key, so that a misspelt one can be reported as a warning.
 */
import { childPath } from '../core/field-path.js';

export type FieldSpec =
  | { t: 'string' }
  | { t: 'bool' }
  | { t: 'int' }
  | { t: 'any' }
  | { t: 'map'; of: FieldSpec; goType: string }
  | { t: 'list'; of: FieldSpec; goType: string }
  | { t: 'struct'; goName: string; fields: Record<string, FieldSpec>; ignoreUnknown?: boolean };

export const S: FieldSpec = { t: 'string' };
export const B: FieldSpec = { t: 'bool' };
export const I: FieldSpec = { t: 'int' };
export const ANY: FieldSpec = { t: 'any' };
export const strMap: FieldSpec = { t: 'map', of: S, goType: 'map[string]string' };

export class GoJsonDecodeError extends Error {}

export interface DecodeResult<T> {
  value: T;
  /** Dotted paths (YAML keys as written) of keys that Go would silently ignore. */
  unknownKeys: string[];
  /** Keys that only matched case-insensitively: written path → canonical name. */
  caseMismatches: { path: string; canonical: string }[];
}

function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'number') return 'number';
  return 'string';
}

function goTypeOf(spec: FieldSpec): string {
  switch (spec.t) {
    case 'string': return 'string';
    case 'bool': return 'bool';
    case 'int': return 'int';
    case 'any': return 'interface {}';
    case 'map': return spec.goType;
    case 'list': return spec.goType;
    case 'struct': return spec.goName;
  }
}

/** Go's strings.EqualFold is Unicode simple folding; lower-casing both sides is close enough for ASCII keys. */
function fold(s: string): string {
  return s.toLowerCase();
}

export function goJsonDecode<T>(value: unknown, spec: FieldSpec): DecodeResult<T> {
  const unknownKeys: string[] = [];
  const caseMismatches: { path: string; canonical: string }[] = [];

  const fail = (v: unknown, struct: string, jsonPath: string, s: FieldSpec): never => {
    const field = jsonPath ? ` field ${struct}.${jsonPath}` : '';
    const where = field ? `Go struct${field}` : 'Go value';
    throw new GoJsonDecodeError(`json: cannot unmarshal ${jsonTypeName(v)} into ${where} of type ${goTypeOf(s)}`);
  };

  const walk = (v: unknown, s: FieldSpec, yamlPath: string, jsonPath: string, struct: string): unknown => {
    if (v === null || v === undefined) return undefined;
    switch (s.t) {
      case 'any':
        return v;
      case 'string':
        return typeof v === 'string' ? v : fail(v, struct, jsonPath, s);
      case 'bool':
        return typeof v === 'boolean' ? v : fail(v, struct, jsonPath, s);
      case 'int':
        return typeof v === 'number' && Number.isInteger(v) ? v : fail(v, struct, jsonPath, s);
      case 'list': {
        if (!Array.isArray(v)) return fail(v, struct, jsonPath, s);
        return v.map((x, i) => walk(x, s.of, `${yamlPath}[${i}]`, jsonPath, struct) ?? zero(s.of));
      }
      case 'map': {
        if (typeof v !== 'object' || Array.isArray(v)) return fail(v, struct, jsonPath, s);
        const out: Record<string, unknown> = {};
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          out[k] = walk(x, s.of, join(yamlPath, k), jsonPath, struct) ?? zero(s.of);
        }
        return out;
      }
      case 'struct': {
        if (typeof v !== 'object' || Array.isArray(v)) return fail(v, struct, jsonPath, s);
        const out: Record<string, unknown> = {};
        const names = Object.keys(s.fields);
        for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
          let name = names.find((n) => n === k);
          if (name === undefined) {
            name = names.find((n) => fold(n) === fold(k));
            if (name !== undefined) caseMismatches.push({ path: join(yamlPath, k), canonical: name });
          }
          if (name === undefined) {
            if (!s.ignoreUnknown) unknownKeys.push(join(yamlPath, k));
            continue;
          }
          const r = walk(x, s.fields[name], join(yamlPath, k), jsonPath ? `${jsonPath}.${name}` : name, s.goName);
          if (r !== undefined) out[name] = r;
          else if (x === null && s.fields[name].t === 'struct') out[name] = undefined;
        }
        return out;
      }
    }
  };
  const value2 = walk(value, spec, '', '', spec.t === 'struct' ? spec.goName : '');
  return { value: (value2 ?? {}) as T, unknownKeys, caseMismatches };
}

function zero(s: FieldSpec): unknown {
  switch (s.t) {
    case 'string': return '';
    case 'bool': return false;
    case 'int': return 0;
    case 'struct': return {};
    default: return null;
  }
}

function join(base: string, key: string): string {
  return childPath(base, key);
}
