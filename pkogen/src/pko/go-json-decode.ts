/**
 * Decoding the way sigs.k8s.io/yaml → encoding/json decodes into Go structs: unknown keys are
 * ignored, keys match case-insensitively when no exact match exists, `null` leaves the zero
 * value, and a JSON type that does not fit the Go field is an error. We also record every
 * ignored key, so that a misspelt one can be reported as a warning.
 */
import { childPath } from '../core/field-path.js';

export type FieldSpec =
  | { t: 'string'; goType?: string }
  | { t: 'bool' }
  | { t: 'int'; goType?: string }
  | { t: 'float'; goType?: string }
  | { t: 'any' }
  /** apiextensions' JSON: any value, kept as it is (its UnmarshalJSON takes anything). */
  | { t: 'json' }
  | { t: 'map'; of: FieldSpec; goType: string }
  | { t: 'list'; of: FieldSpec; goType: string }
  /** `goName` is what Go's error names as the struct holding a field; `goType` the type it prints (default goName). */
  | { t: 'struct'; goName: string; goType?: string; fields: Record<string, FieldSpec>; ignoreUnknown?: boolean }
  /** A recursive type (JSONSchemaProps holds JSONSchemaProps). */
  | { t: 'lazy'; get: () => FieldSpec }
  /**
   * apiextensions' custom UnmarshalJSON types: JSONSchemaPropsOrBool (a schema, true or false;
   * anything else is "boolean or JSON schema expected"), JSONSchemaPropsOrArray (a schema or a list
   * of them) and JSONSchemaPropsOrStringArray (a schema or a list of strings); the last two ignore
   * any other value. A nested decode error keeps the outer field path.
   */
  | { t: 'orBool'; schema: FieldSpec }
  | { t: 'orArray'; schema: FieldSpec; goType: string }
  | { t: 'orStringArray'; schema: FieldSpec };

export const S: FieldSpec = { t: 'string' };
export const B: FieldSpec = { t: 'bool' };
export const I: FieldSpec = { t: 'int' };
export const ANY: FieldSpec = { t: 'any' };
export const strMap: FieldSpec = { t: 'map', of: S, goType: 'map[string]string' };

export class GoJsonDecodeError extends Error {
  /** The YAML field path of the value Go could not decode (for locating it). */
  yamlPath = '';
}

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
    case 'string': return spec.goType ?? 'string';
    case 'bool': return 'bool';
    case 'int': return spec.goType ?? 'int';
    case 'float': return spec.goType ?? 'float64';
    case 'any': return 'interface {}';
    case 'json': return 'v1.JSON';
    case 'map': return spec.goType;
    case 'list': return spec.goType;
    case 'struct': return spec.goType ?? spec.goName;
    case 'lazy': return goTypeOf(spec.get());
    case 'orBool': return 'v1.JSONSchemaPropsOrBool';
    case 'orArray': return spec.goType;
    case 'orStringArray': return 'v1.JSONSchemaPropsOrStringArray';
  }
}

/** Go names a number it could not store by its text (`number 1.5`); other values by their JSON type. */
function valueText(v: unknown, s: FieldSpec): string {
  return typeof v === 'number' && (s.t === 'int' || s.t === 'float') ? `number ${String(v)}` : jsonTypeName(v);
}

/** Go's strings.EqualFold is Unicode simple folding; lower-casing both sides is close enough for ASCII keys. */
function fold(s: string): string {
  return s.toLowerCase();
}

export function goJsonDecode<T>(value: unknown, spec: FieldSpec): DecodeResult<T> {
  const unknownKeys: string[] = [];
  const caseMismatches: { path: string; canonical: string }[] = [];

  let at = '';
  const fail = (v: unknown, struct: string, jsonPath: string, s: FieldSpec): never => {
    const field = jsonPath ? ` field ${struct}.${jsonPath}` : '';
    const where = field ? `Go struct${field}` : 'Go value';
    const e = new GoJsonDecodeError(`json: cannot unmarshal ${valueText(v, s)} into ${where} of type ${goTypeOf(s)}`);
    e.yamlPath = at;
    throw e;
  };

  const walk = (v: unknown, s: FieldSpec, yamlPath: string, jsonPath: string, struct: string): unknown => {
    if (v === null || v === undefined) return undefined;
    at = yamlPath;
    switch (s.t) {
      case 'any':
      case 'json':
        return v;
      case 'lazy':
        return walk(v, s.get(), yamlPath, jsonPath, struct);
      case 'string':
        return typeof v === 'string' ? v : fail(v, struct, jsonPath, s);
      case 'bool':
        return typeof v === 'boolean' ? v : fail(v, struct, jsonPath, s);
      case 'int':
        return typeof v === 'number' && Number.isInteger(v) ? v : fail(v, struct, jsonPath, s);
      case 'float':
        return typeof v === 'number' ? v : fail(v, struct, jsonPath, s);
      case 'orBool': {
        if (typeof v === 'boolean') return v;
        if (typeof v === 'object' && !Array.isArray(v)) return walk(v, s.schema, yamlPath, jsonPath, struct);
        const e = new GoJsonDecodeError('boolean or JSON schema expected');
        e.yamlPath = yamlPath;
        throw e;
      }
      case 'orArray':
      case 'orStringArray': {
        if (Array.isArray(v)) {
          const of = s.t === 'orArray' ? s.schema : S;
          return v.map((x, i) => walk(x, of, `${yamlPath}[${i}]`, jsonPath, struct) ?? zero(of));
        }
        if (typeof v === 'object') return walk(v, s.schema, yamlPath, jsonPath, struct);
        // Neither an object nor a list: the UnmarshalJSON leaves the value empty, no error.
        return undefined;
      }
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
          at = yamlPath;
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
