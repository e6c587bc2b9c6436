/**
 * `spec.config.openAPIV3Schema` checked the way PKO checks it: as a CRD structural schema
 * (apiextensions validation, PKO's copy in packagemanifestvalidation), with the same field paths
 * and messages. Also a plain value validator for test-case configs (no pruning, no defaulting),
 * with kube-openapi's message texts.
 */
import { FieldError, forbidden, invalid, notSupported, required } from './field-errors.js';
import { isObj } from '../core/guards.js';

type Schema = Record<string, unknown>;

const OPENAPI_V3_TYPES = ['array', 'boolean', 'integer', 'number', 'object', 'string'];
const META_FIELDS = new Set(['metadata', 'kind', 'apiVersion']);


function key(base: string, k: string): string {
  return `${base}[${k}]`;
}

interface SsvOpts {
  allowDefaults: boolean;
  disallowDefaultsReason: string;
  insideResourceMeta: boolean;
}

/** Every rule of §2.2 that applies without a running API server; `fld` is e.g. `spec.config`. */
export function validateConfigSchema(schema: unknown, fld = 'spec.config'): FieldError[] {
  if (schema === undefined || schema === null) return [];
  const errs: FieldError[] = [];
  const root = `${fld}.openAPIV3Schema`;
  if (!isObj(schema)) return [invalid(root, schema, 'must be an object')];
  if (schema.nullable === true) errs.push(forbidden(`${fld}.openAPIV3Schema.nullable`, 'nullable cannot be true at the root'));
  const openapiErrs = validateOpenAPISchema(schema, root, { allowDefaults: true, disallowDefaultsReason: '', insideResourceMeta: false }, true);
  errs.push(...validateStructural(schema, root, true), ...openapiErrs);
  if (errs.length === 0) errs.push(...validateDefaults(schema, root));
  return errs;
}

function validateOpenAPISchema(s: unknown, fld: string, ssv: SsvOpts, isRoot: boolean): FieldError[] {
  if (!isObj(s)) return [];
  const errs: FieldError[] = [];
  // specStandardValidatorV3.validate
  if (typeof s.type === 'string' && s.type !== '' && !OPENAPI_V3_TYPES.includes(s.type) && s.type !== 'null') {
    errs.push(notSupported(`${fld}.type`, s.type, OPENAPI_V3_TYPES));
  }
  if (s.default !== undefined && !ssv.allowDefaults) {
    errs.push(forbidden(`${fld}.default`, `must not be set${ssv.disallowDefaultsReason ? ' ' + ssv.disallowDefaultsReason : ''}`));
  }
  if (typeof s.id === 'string' && s.id !== '') errs.push(forbidden(`${fld}.id`, 'id is not supported'));
  if (s.additionalItems !== undefined) errs.push(forbidden(`${fld}.additionalItems`, 'additionalItems is not supported'));
  if (isObj(s.patternProperties) && Object.keys(s.patternProperties).length > 0) errs.push(forbidden(`${fld}.patternProperties`, 'patternProperties is not supported'));
  if (isObj(s.definitions) && Object.keys(s.definitions).length > 0) errs.push(forbidden(`${fld}.definitions`, 'definitions is not supported'));
  if (s.dependencies !== undefined && s.dependencies !== null) errs.push(forbidden(`${fld}.dependencies`, 'dependencies is not supported'));
  if (s.$ref !== undefined) errs.push(forbidden(`${fld}.$ref`, '$ref is not supported'));
  if (s.type === 'null') errs.push(forbidden(`${fld}.type`, 'type cannot be set to null, use nullable as an alternative'));
  if (Array.isArray(s.items)) errs.push(forbidden(`${fld}.items`, 'items must be a schema object and not an array'));
  if (ssv.insideResourceMeta && s['x-kubernetes-embedded-resource'] === true) {
    errs.push(forbidden(`${fld}.x-kubernetes-embedded-resource`, 'must not be used inside of resource meta'));
  }

  if (s.uniqueItems === true) errs.push(forbidden(`${fld}.uniqueItems`, 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const props = isObj(s.properties) ? s.properties : undefined;
  const ap = s.additionalProperties;
  if (ap !== undefined && ap !== null) {
    if (props && Object.keys(props).length > 0 && (ap !== true)) {
      errs.push(forbidden(`${fld}.additionalProperties`, 'additionalProperties and properties are mutual exclusive'));
    }
    if (isObj(ap)) {
      const sub = ssv.insideResourceMeta ? { ...ssv, allowDefaults: false, disallowDefaultsReason: 'inside additionalProperties applying to object metadata' } : ssv;
      errs.push(...validateOpenAPISchema(ap, `${fld}.additionalProperties`, sub, false));
    }
  }
  if (props) {
    for (const p of Object.keys(props).sort()) {
      let sub = ssv;
      if ((isRoot || s['x-kubernetes-embedded-resource'] === true) && META_FIELDS.has(p)) {
        sub = { ...sub, insideResourceMeta: true };
        if (isRoot) sub = { ...sub, allowDefaults: false, disallowDefaultsReason: `in top-level ${p}` };
      }
      errs.push(...validateOpenAPISchema(props[p], key(`${fld}.properties`, p), sub, false));
    }
  }
  errs.push(...validateOpenAPISchema(s.not, `${fld}.not`, ssv, false));
  for (const comb of ['allOf', 'oneOf', 'anyOf'] as const) {
    const arr = s[comb];
    if (Array.isArray(arr)) arr.forEach((x, i) => errs.push(...validateOpenAPISchema(x, `${fld}.${comb}[${i}]`, ssv, false)));
  }
  if (isObj(s.definitions)) {
    for (const d of Object.keys(s.definitions).sort()) errs.push(...validateOpenAPISchema(s.definitions[d], key(`${fld}.definitions`, d), ssv, false));
  }
  if (isObj(s.items)) errs.push(...validateOpenAPISchema(s.items, `${fld}.items`, ssv, false));
  else if (Array.isArray(s.items)) s.items.forEach((x, i) => errs.push(...validateOpenAPISchema(x, `${fld}.items[${i}]`, ssv, false)));

  if (s['x-kubernetes-preserve-unknown-fields'] === false) {
    errs.push(invalid(`${fld}.x-kubernetes-preserve-unknown-fields`, false, 'must be true or undefined'));
  }
  const mapType = s['x-kubernetes-map-type'];
  if (mapType !== undefined && s.type !== 'object') {
    if (!s.type) errs.push(required(`${fld}.type`, 'must be object if x-kubernetes-map-type is specified'));
    else errs.push(invalid(`${fld}.type`, s.type, 'must be object if x-kubernetes-map-type is specified'));
  }
  if (mapType !== undefined && mapType !== 'atomic' && mapType !== 'granular') errs.push(notSupported(`${fld}.x-kubernetes-map-type`, mapType, ['atomic', 'granular']));
  const listType = s['x-kubernetes-list-type'];
  const items = isObj(s.items) ? s.items : undefined;
  if (listType !== undefined && s.type !== 'array') {
    if (!s.type) errs.push(required(`${fld}.type`, 'must be array if x-kubernetes-list-type is specified'));
    else errs.push(invalid(`${fld}.type`, s.type, 'must be array if x-kubernetes-list-type is specified'));
  } else if (listType === 'set' && items) {
    if (items.type === 'array' && items['x-kubernetes-list-type'] !== undefined && items['x-kubernetes-list-type'] !== 'atomic') {
      errs.push(invalid(`${fld}.items.x-kubernetes-list-type`, items['x-kubernetes-list-type'], 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
    if (items.type === 'object' && items['x-kubernetes-map-type'] !== 'atomic') {
      errs.push(invalid(`${fld}.items.x-kubernetes-map-type`, items['x-kubernetes-list-type'] ?? null, 'must be atomic as item of a list with x-kubernetes-list-type=set'));
    }
  }
  if (listType !== undefined && listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push(notSupported(`${fld}.x-kubernetes-list-type`, listType, ['atomic', 'set', 'map']));
  const mapKeys = Array.isArray(s['x-kubernetes-list-map-keys']) ? (s['x-kubernetes-list-map-keys'] as string[]) : [];
  if (mapKeys.length > 0) {
    if (listType === undefined) errs.push(required(`${fld}.x-kubernetes-list-type`, 'must be map if x-kubernetes-list-map-keys is non-empty'));
    else if (listType !== 'map') errs.push(invalid(`${fld}.x-kubernetes-list-type`, listType, 'must be map if x-kubernetes-list-map-keys is non-empty'));
  }
  if (listType === 'map') {
    if (mapKeys.length === 0) errs.push(required(`${fld}.x-kubernetes-list-map-keys`, 'must not be empty if x-kubernetes-list-type is map'));
    if (s.items === undefined) errs.push(required(`${fld}.items`, 'must have a schema if x-kubernetes-list-type is map'));
    if (items && items.type !== 'object') errs.push(invalid(`${fld}.items.type`, items.type ?? '', "must be object if parent array's x-kubernetes-list-type is map"));
    if (items && items.type === 'object') {
      const ip = isObj(items.properties) ? items.properties : {};
      const seen = new Set<string>();
      for (const k of mapKeys) {
        const ps = ip[k];
        if (isObj(ps)) {
          if (ps.type === 'array' || ps.type === 'object') errs.push(invalid(key(`${fld}.items.properties`, k) + '.type', items.type, "must be a scalar type if parent array's x-kubernetes-list-type is map"));
        } else errs.push(invalid(`${fld}.x-kubernetes-list-map-keys`, mapKeys, 'entries must all be names of item properties'));
        if (seen.has(k)) errs.push(invalid(`${fld}.x-kubernetes-list-map-keys`, mapKeys, 'must not contain duplicate entries'));
        seen.add(k);
      }
    }
  }
  if (items && (listType === 'set' || listType === 'map')) {
    if (items.nullable === true) errs.push(forbidden(`${fld}.items.nullable`, `cannot be nullable when x-kubernetes-list-type is ${listType}`));
    if (listType === 'map') {
      const req = new Set(Array.isArray(items.required) ? (items.required as string[]) : []);
      const ip = isObj(items.properties) ? items.properties : {};
      for (const k of mapKeys) {
        const ps = ip[k];
        if (!isObj(ps)) continue;
        if (!req.has(k) && ps.default === undefined) errs.push(required(key(`${fld}.items.properties`, k) + '.default', 'this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property'));
        if (ps.nullable === true) errs.push(forbidden(key(`${fld}.items.properties`, k) + '.nullable', 'this property is in x-kubernetes-list-map-keys, so it cannot be nullable'));
      }
    }
  }
  const xv = s['x-kubernetes-validations'];
  if (Array.isArray(xv)) {
    xv.forEach((r, i) => {
      const rule = isObj(r) && typeof r.rule === 'string' ? r.rule.trim() : '';
      const msg = isObj(r) && typeof r.message === 'string' ? r.message : '';
      if (!rule) errs.push(required(`${fld}.x-kubernetes-validations[${i}].rule`, 'rule is not specified'));
      else if (msg.length > 0 && msg.trim().length === 0) errs.push(invalid(`${fld}.x-kubernetes-validations[${i}].message`, msg, 'message must be non-empty if specified'));
      else if (/[\n\r]/.test(msg.trim())) errs.push(invalid(`${fld}.x-kubernetes-validations[${i}].message`, msg, 'message must not contain line breaks'));
      else if (/[\n\r]/.test(rule) && msg.trim().length === 0) errs.push(required(`${fld}.x-kubernetes-validations[${i}].message`, 'message must be specified if rule contains line breaks'));
    });
  }
  return errs;
}

/** The structural-schema invariants (apiextensions schema.ValidateStructural) that matter for package configs. */
function validateStructural(s: Schema, fld: string, isRoot: boolean): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (n: unknown, path: string, lvl: 'root' | 'prop' | 'items' | 'additional'): void => {
    if (!isObj(n)) return;
    const untyped = !n.type;
    const escape = n['x-kubernetes-int-or-string'] === true || n['x-kubernetes-preserve-unknown-fields'] === true || n['x-kubernetes-embedded-resource'] === true;
    if (untyped && !escape) {
      if (lvl === 'root') errs.push(required(`${path}.type`, 'must not be empty at the root'));
      else if (lvl === 'prop') errs.push(required(`${path}.type`, 'must not be empty for specified object fields'));
      else if (lvl === 'items') errs.push(required(`${path}.type`, 'must not be empty for specified array items'));
    }
    if (lvl === 'root' && n.type && n.type !== 'object') errs.push(invalid(`${path}.type`, n.type, 'must be object at the root'));
    if (n['x-kubernetes-int-or-string'] === true && n.type) errs.push(invalid(`${path}.type`, n.type, 'must be empty if x-kubernetes-int-or-string is true'));
    if (n.type === 'array' && n.items === undefined) errs.push(required(`${path}.items`, 'must be specified'));
    if (isObj(n.properties)) {
      if (n.type && n.type !== 'object') errs.push(invalid(`${path}.type`, n.type, 'must be object if properties are specified'));
      for (const p of Object.keys(n.properties).sort()) walk(n.properties[p], key(`${path}.properties`, p), 'prop');
    }
    if (isObj(n.items)) walk(n.items, `${path}.items`, 'items');
    if (isObj(n.additionalProperties)) walk(n.additionalProperties, `${path}.additionalProperties`, 'additional');
  };
  walk(s, fld, isRoot ? 'root' : 'prop');
  return errs;
}

/** Defaults must validate against their own schema (ValidateDefaults), reported at `<path>.default`. */
function validateDefaults(s: Schema, fld: string): FieldError[] {
  const errs: FieldError[] = [];
  const walk = (n: unknown, path: string): void => {
    if (!isObj(n)) return;
    if (n.default !== undefined) {
      for (const e of validateConfigValue(n, n.default, `${path}.default`)) errs.push(e);
    }
    if (isObj(n.properties)) for (const p of Object.keys(n.properties).sort()) walk(n.properties[p], key(`${path}.properties`, p));
    if (isObj(n.items)) walk(n.items, `${path}.items`);
    if (isObj(n.additionalProperties)) walk(n.additionalProperties, `${path}.additionalProperties`);
  };
  walk(s, fld);
  return errs;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  if (typeof v === 'boolean') return 'boolean';
  if (typeof v === 'object') return 'object';
  return 'string';
}

function typeMatches(type: string, v: unknown): boolean {
  const t = jsonType(v);
  if (type === 'number') return t === 'number' || t === 'integer';
  return t === type;
}

/**
 * Validates a config value against the schema without pruning or defaulting (what manifest
 * validation does for test cases). `fld` is the path prefix, e.g. `test.template[0].context.config`.
 */
/** Characters as Go counts runes, without building an array per value (renders do this per config). */
function codePoints(v: string): number {
  let n = v.length;
  for (let i = 0; i < v.length; i++) {
    const c = v.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < v.length) {
      const d = v.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

// Compiled once per pattern (undefined: not a valid pattern; such schemas are reported elsewhere).
const patterns = new Map<string, RegExp | undefined>();
function patternRegExp(p: string): RegExp | undefined {
  if (patterns.has(p)) return patterns.get(p);
  let re: RegExp | undefined;
  try {
    re = new RegExp(p, 'u');
  } catch {
    re = undefined;
  }
  if (patterns.size >= 256) patterns.clear();
  patterns.set(p, re);
  return re;
}

export function validateConfigValue(schema: unknown, value: unknown, fld: string, opts: { hideValues?: boolean } = {}): FieldError[] {
  const found: FieldError[] = [];
  // A package's config values (not the schema's own defaults) are never quoted in a message.
  const errs = { push: (...es: FieldError[]) => found.push(...es.map((e) => (opts.hideValues ? { ...e, hideValue: true } : e))) };
  const walk = (s: unknown, v: unknown, name: string): void => {
    if (!isObj(s)) return;
    const path = name ? `${fld}.${name}` : fld;
    const bodyName = name || fld.split('.').pop() || '';
    if (v === null) {
      if (s.nullable === true || !s.type) return;
      errs.push({ type: 'TypeInvalid', field: path, value: '', detail: `${bodyName} in body must be of type ${s.type}: "null"` });
      return;
    }
    if (s['x-kubernetes-int-or-string'] === true) {
      const t = jsonType(v);
      if (t !== 'integer' && t !== 'string') errs.push({ type: 'TypeInvalid', field: path, value: v, detail: `${bodyName} in body must be of type integer,string: "${t}"` });
      return;
    }
    if (typeof s.type === 'string' && s.type && !typeMatches(s.type, v)) {
      errs.push({ type: 'TypeInvalid', field: path, value: v, detail: `${bodyName} in body must be of type ${s.type}: "${jsonType(v)}"` });
      return;
    }
    if (Array.isArray(s.enum) && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(v))) {
      errs.push(notSupported(path, v, s.enum.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
    }
    if (typeof v === 'string') {
      if (typeof s.maxLength === 'number' && codePoints(v) > s.maxLength) errs.push({ type: 'TooLong', field: path, detail: `may not be more than ${s.maxLength} bytes` });
      if (typeof s.minLength === 'number' && codePoints(v) < s.minLength) errs.push(invalid(path, v, `${bodyName} in body should be at least ${s.minLength} chars long`));
      if (typeof s.pattern === 'string') {
        const re = patternRegExp(s.pattern);
        if (re && !re.test(v)) errs.push(invalid(path, v, `${bodyName} in body should match '${s.pattern}'`));
      }
    }
    if (typeof v === 'number') {
      if (typeof s.minimum === 'number' && (s.exclusiveMinimum === true ? v <= s.minimum : v < s.minimum)) {
        errs.push(invalid(path, v, `${bodyName} in body should be greater than ${s.exclusiveMinimum === true ? '' : 'or equal to '}${s.minimum}`));
      }
      if (typeof s.maximum === 'number' && (s.exclusiveMaximum === true ? v >= s.maximum : v > s.maximum)) {
        errs.push(invalid(path, v, `${bodyName} in body should be less than ${s.exclusiveMaximum === true ? '' : 'or equal to '}${s.maximum}`));
      }
    }
    if (Array.isArray(v)) {
      if (typeof s.maxItems === 'number' && v.length > s.maxItems) errs.push({ type: 'TooMany', field: path, value: v.length, detail: `must have at most ${s.maxItems} items` });
      if (typeof s.minItems === 'number' && v.length < s.minItems) errs.push(invalid(path, v, `${bodyName} in body should have at least ${s.minItems} items`));
      v.forEach((x, i) => walk(s.items, x, `${name}[${i}]`));
    }
    if (isObj(v)) {
      const req = Array.isArray(s.required) ? (s.required as string[]) : [];
      for (const r of req) if (!(r in v)) errs.push(required(name ? `${path}.${r}` : `${fld}.${r}`));
      const props = isObj(s.properties) ? s.properties : {};
      for (const k of Object.keys(v).sort()) {
        const child = name ? `${name}.${k}` : k;
        if (k in props) walk(props[k], v[k], child);
        else if (isObj(s.additionalProperties)) walk(s.additionalProperties, v[k], child);
        else if (s.additionalProperties === false) errs.push(forbidden(`${fld}.${child}`, 'additional property not allowed'));
      }
    }
  };
  walk(schema, value, '');
  return found;
}

/** JSONSchemaProps fields that hold nested schemas (maps of them, lists of them, or one). */
const SCHEMA_MAPS = ['properties', 'patternProperties', 'definitions'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf'];
const SCHEMA_ONES = ['items', 'additionalProperties', 'additionalItems', 'not'];

/**
 * Go decodes `default: null` / `example: null` into a nil `*JSON` (encoding/json sets a pointer
 * to nil for a JSON null before any UnmarshalJSON runs), so PKO sees "no default". Mirror that
 * before anything reads the schema; without it `default: null` is a false "must be of type" error.
 */
export function dropNullSchemaPointers(s: unknown, depth = 0): void {
  if (!isObj(s) || depth > 512) return;
  for (const k of ['default', 'example']) if (k in s && s[k] === null) delete s[k];
  for (const k of SCHEMA_MAPS) if (isObj(s[k])) for (const v of Object.values(s[k] as Schema)) dropNullSchemaPointers(v, depth + 1);
  for (const k of SCHEMA_LISTS) if (Array.isArray(s[k])) for (const v of s[k] as unknown[]) dropNullSchemaPointers(v, depth + 1);
  for (const k of SCHEMA_ONES) {
    const v = s[k];
    if (Array.isArray(v)) for (const x of v) dropNullSchemaPointers(x, depth + 1);
    else dropNullSchemaPointers(v, depth + 1);
  }
}
