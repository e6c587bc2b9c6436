/**
 * Admission of a package config against `spec.config.openAPIV3Schema`, like PKO's
 * AdmitPackageConfiguration: prune unknown fields → apply defaults → validate, with
 * Kubernetes-style field errors (`spec.config.image: Required value`). Validation alone
 * (`validateConfig`, config-schema.ts's validator) is what manifest validation applies to test-case
 * configs (no prune/default).
 */
import { jsonRoundTrip } from '../core/json.js';
import { validateConfigValue } from './config-schema.js';
import type { FieldError } from './field-errors.js';
import type { JSONSchemaProps } from './types.js';
import { isObj } from '../core/guards.js';

export type { FieldError } from './field-errors.js';
/** k8s utilerrors aggregate of field errors: one as is, several as `[a, b]`. */
export { aggregateText as formatFieldErrors, fieldErrorText as formatFieldError } from './field-errors.js';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };


function clone<T>(v: T): T {
  return jsonRoundTrip(v);
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

/**
 * Validates `value` against the schema without pruning or defaulting; `path` is the field path
 * of `value`. One implementation shared with manifest validation (config-schema.ts).
 */
export function validateConfig(value: unknown, schema: JSONSchemaProps | undefined, path = 'spec.config'): FieldError[] {
  return schema ? validateConfigValue(schema, value, path, { hideValues: true }) : [];
}

export interface AdmissionResult {
  config: Record<string, unknown>;
  errors: FieldError[];
}

/**
 * Admissions remembered per schema object, keyed by the config's JSON text and field path: a
 * rollout renders thousands of namespaces with the same few configs. The schema object must not
 * change while it is in use (manifests are parsed once and not edited). Bounded per schema.
 */
const admitted = new WeakMap<object, Map<string, AdmissionResult>>();
const MAX_ADMISSIONS = 64;

/** Prune → default → validate. Without a schema every key is dropped (PKO's behaviour). */
export function admitConfig(config: unknown, schema: JSONSchemaProps | undefined, path = 'spec.config'): AdmissionResult {
  if (!schema) return { config: {}, errors: [] };
  let memo = admitted.get(schema);
  if (!memo) admitted.set(schema, (memo = new Map()));
  let key: string | undefined;
  try {
    // admission reads an object config through its JSON round trip, and drops anything else
    key = `${path}\u0000${isObj(config) ? JSON.stringify(config) : '-'}`;
  } catch {
    key = undefined; // not JSON (a cycle, a bigint): admit it without remembering
  }
  const hit = key !== undefined ? memo.get(key) : undefined;
  // copies: callers own what they get (the config feeds the render context, errors are listed)
  if (hit) return { config: clone(hit.config), errors: hit.errors.map((e) => ({ ...e })) };
  const r = admitUncached(config, schema, path);
  if (key !== undefined) {
    if (memo.size >= MAX_ADMISSIONS) memo.clear();
    memo.set(key, { config: clone(r.config), errors: r.errors.map((e) => ({ ...e })) });
  }
  return r;
}

function admitUncached(config: unknown, schema: JSONSchemaProps, path: string): AdmissionResult {
  let v: Json = isObj(config) ? clone(config as Record<string, Json>) : {};
  v = pruneConfig(v, schema);
  v = defaultConfig(v, schema);
  const errors = validateConfig(v, schema, path);
  return { config: v as Record<string, unknown>, errors };
}
