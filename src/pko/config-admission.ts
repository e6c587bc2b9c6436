/**
 * Admission of a package config against `spec.config.openAPIV3Schema`, like PKO's
 * AdmitPackageConfiguration: prune unknown fields → apply defaults → validate, with
 * Kubernetes-style field errors (`spec.config.image: Required value`). Validation alone
 * (`validateConfig`) is what manifest validation applies to test-case configs (no prune/default).
 */
import type { JSONSchemaProps } from './types.js';

export interface FieldError {
  /** Full field path, e.g. `spec.config.image` or `spec.config.items[0].name`. */
  field: string;
  /** `Required value`, `Invalid value: …`, `Unsupported value: …`, … */
  message: string;
}

export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

/** k8s utilerrors aggregate: one error as is, several as `[a, b]`. */
export function formatFieldErrors(errs: FieldError[]): string {
  if (errs.length === 1) return formatFieldError(errs[0]);
  return `[${errs.map(formatFieldError).join(', ')}]`;
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const isObj = (v: unknown): v is Record<string, Json> => v !== null && typeof v === 'object' && !Array.isArray(v);

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

/** Removes fields the schema does not declare (structural pruning). */
export function pruneConfig(value: Json, schema: JSONSchemaProps | undefined): Json {
  if (!schema) return value;
  if (Array.isArray(value)) return schema.items ? value.map((x) => pruneConfig(x, schema.items)) : value;
  if (!isObj(value)) return value;
  if (schema['x-kubernetes-preserve-unknown-fields'] === true && !schema.properties && !schema.additionalProperties) return value;
  if (schema['x-kubernetes-embedded-resource']) return value;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(value)) {
    const prop = schema.properties?.[k];
    if (prop) out[k] = pruneConfig(value[k], prop);
    else if (schema.additionalProperties && typeof schema.additionalProperties === 'object') out[k] = pruneConfig(value[k], schema.additionalProperties);
    else if (schema.additionalProperties === true || schema['x-kubernetes-preserve-unknown-fields'] === true) out[k] = value[k];
  }
  return out;
}

/** Applies `default`s of missing (or null, when not nullable) properties, recursively. */
export function defaultConfig(value: Json, schema: JSONSchemaProps | undefined): Json {
  if (!schema) return value;
  if (Array.isArray(value)) return schema.items ? value.map((x) => defaultConfig(x, schema.items)) : value;
  if (!isObj(value)) return value;
  const out: Record<string, Json> = { ...value };
  for (const [k, prop] of Object.entries(schema.properties ?? {})) {
    if ((!(k in out) || (out[k] === null && !prop.nullable)) && prop.default !== undefined) out[k] = clone(prop.default as Json);
    if (k in out) out[k] = defaultConfig(out[k], prop);
  }
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    for (const k of Object.keys(out)) if (!schema.properties?.[k]) out[k] = defaultConfig(out[k], schema.additionalProperties);
  }
  return out;
}

function quoteVal(v: Json): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === null) return '"null"';
  if (Array.isArray(v)) return '"array"';
  if (typeof v === 'object') return '"object"';
  return String(v);
}

function jsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'object') return 'object';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Validates `value` against the schema; `path` is the field path of `value`. */
export function validateConfig(value: Json, schema: JSONSchemaProps | undefined, path = 'spec.config'): FieldError[] {
  const errs: FieldError[] = [];
  if (schema) walk(value, schema, path, errs);
  return errs;
}

function walk(v: Json, s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  if (v === null) {
    if (s.nullable) return;
    if (s.type) errs.push({ field: path, message: `Invalid value: "null": ${path} in body must be of type ${s.type}: "null"` });
    return;
  }
  const t = jsonType(v);
  if (s['x-kubernetes-int-or-string']) {
    if (t !== 'integer' && t !== 'string') errs.push({ field: path, message: `Invalid value: ${quoteVal(v)}: ${path} in body must be of type integer,string: "${t}"` });
  } else if (s.type) {
    const ok = s.type === t || (s.type === 'number' && t === 'integer');
    if (!ok) {
      errs.push({ field: path, message: `Invalid value: "${t}": ${path} in body must be of type ${s.type}: "${t}"` });
      return;
    }
  }
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
    errs.push({ field: path, message: `Unsupported value: ${quoteVal(v)}: supported values: ${s.enum.map((e) => quoteVal(e as Json)).join(', ')}` });
  }
  if (typeof v === 'string') {
    const len = [...v].length;
    if (s.maxLength !== undefined && len > s.maxLength) errs.push({ field: path, message: `Too long: may not be more than ${s.maxLength} bytes` });
    if (s.minLength !== undefined && len < s.minLength) errs.push({ field: path, message: `Invalid value: ${quoteVal(v)}: ${path} in body should be at least ${s.minLength} chars long` });
    if (s.pattern !== undefined) {
      let re: RegExp | null = null;
      try {
        re = new RegExp(s.pattern, 'u');
      } catch {
        re = null;
      }
      if (re && !re.test(v)) errs.push({ field: path, message: `Invalid value: ${quoteVal(v)}: ${path} in body should match '${s.pattern}'` });
    }
  }
  if (typeof v === 'number') {
    if (s.minimum !== undefined && (s.exclusiveMinimum ? v <= s.minimum : v < s.minimum)) {
      errs.push({ field: path, message: `Invalid value: ${v}: ${path} in body should be greater than ${s.exclusiveMinimum ? '' : 'or equal to '}${s.minimum}` });
    }
    if (s.maximum !== undefined && (s.exclusiveMaximum ? v >= s.maximum : v > s.maximum)) {
      errs.push({ field: path, message: `Invalid value: ${v}: ${path} in body should be less than ${s.exclusiveMaximum ? '' : 'or equal to '}${s.maximum}` });
    }
  }
  if (Array.isArray(v)) {
    if (s.maxItems !== undefined && v.length > s.maxItems) errs.push({ field: path, message: `Too many: ${v.length}: must have at most ${s.maxItems} items` });
    if (s.minItems !== undefined && v.length < s.minItems) errs.push({ field: path, message: `Invalid value: ${v.length}: ${path} in body should have at least ${s.minItems} items` });
    if (s.items) v.forEach((x, i) => walk(x, s.items!, `${path}[${i}]`, errs));
    return;
  }
  if (isObj(v)) {
    for (const r of s.required ?? []) if (!(r in v)) errs.push({ field: `${path}.${r}`, message: 'Required value' });
    for (const k of Object.keys(v).sort()) {
      const prop = s.properties?.[k];
      if (prop) walk(v[k], prop, `${path}.${k}`, errs);
      else if (s.additionalProperties && typeof s.additionalProperties === 'object') walk(v[k], s.additionalProperties, `${path}.${k}`, errs);
    }
  }
}

export interface AdmissionResult {
  config: Record<string, unknown>;
  errors: FieldError[];
}

/** Prune → default → validate. Without a schema every key is dropped (PKO's behaviour). */
export function admitConfig(config: unknown, schema: JSONSchemaProps | undefined, path = 'spec.config'): AdmissionResult {
  if (!schema) return { config: {}, errors: [] };
  let v: Json = isObj(config) ? clone(config as Record<string, Json>) : {};
  v = pruneConfig(v, schema);
  v = defaultConfig(v, schema);
  const errors = validateConfig(v, schema, path);
  return { config: v as Record<string, unknown>, errors };
}
