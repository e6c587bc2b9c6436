/**
 * Go encoding/json for our value model: map keys sorted, `<>&` and U+2028/U+2029 escaped as
 * \u003c… unless escapeHTML is off (sprig's toRawJson), floats formatted like Go (exponent only
 * below 1e-6 or from 1e21), NaN/Inf rejected with Go's message.
 */
import { chargeDeep } from '../budget.js';
import { GoTyped, type GoMap, type GoValue } from '../types.js';
import { FuncError } from './value.js';

function quoteJson(s: string, escapeHTML: boolean): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const ch = s[i];
    if (c === 0x22) out += '\\"';
    else if (c === 0x5c) out += '\\\\';
    else if (c === 0x0a) out += '\\n';
    else if (c === 0x0d) out += '\\r';
    else if (c === 0x09) out += '\\t';
    else if (c === 0x08) out += '\\b';
    else if (c === 0x0c) out += '\\f';
    else if (c < 0x20) out += '\\u00' + c.toString(16).padStart(2, '0');
    else if (escapeHTML && (c === 0x3c || c === 0x3e || c === 0x26)) out += '\\u00' + c.toString(16);
    else if (c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16);
    else if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out += ch + s[i + 1];
        i++;
      } else out += '\\ufffd';
    } else if (c >= 0xdc00 && c <= 0xdfff) out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

/** Go's float encoding in encoding/json. */
export function jsonFloat(f: number): string {
  if (!Number.isFinite(f)) throw new FuncError(`json: unsupported value: ${Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf'}`);
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  // JS number→string switches to exponent at the same bounds (1e-7 / 1e21) and uses the same
  // shortest digits; Go writes e-07 then trims to e-7, which JS already does.
  return String(f);
}

export interface JsonOptions {
  escapeHTML: boolean;
  indent?: string;
}

export function marshalJson(v: GoValue, opts: JsonOptions, depth = 0): string {
  // Shared values are written out in full each time: count the expanded size first.
  if (depth === 0 && v !== null && typeof v === 'object') chargeDeep(v);
  if (v instanceof GoTyped) return marshalJson(v.value, opts, depth);
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return jsonFloat(v);
    case 'string':
      return quoteJson(v, opts.escapeHTML);
    case 'function':
      throw new FuncError('json: unsupported type: func(...interface {}) interface {}');
  }
  const ind = opts.indent;
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    if (!ind) return '[' + v.map((x) => marshalJson(x, opts, depth + 1)).join(',') + ']';
    const pad = ind.repeat(depth + 1);
    return '[\n' + v.map((x) => pad + marshalJson(x, opts, depth + 1)).join(',\n') + '\n' + ind.repeat(depth) + ']';
  }
  const m = v as GoMap;
  const keys = Object.keys(m).sort();
  if (keys.length === 0) return '{}';
  if (!ind) return '{' + keys.map((k) => quoteJson(k, opts.escapeHTML) + ':' + marshalJson(m[k], opts, depth + 1)).join(',') + '}';
  const pad = ind.repeat(depth + 1);
  return '{\n' + keys.map((k) => pad + quoteJson(k, opts.escapeHTML) + ': ' + marshalJson(m[k], opts, depth + 1)).join(',\n') + '\n' + ind.repeat(depth) + '}';
}

/** json.Unmarshal into interface{}: numbers become float64, objects maps, arrays slices. */
export function unmarshalJson(text: string): GoValue {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new FuncError(goJsonSyntaxMessage(text, e as Error));
  }
  return fromJs(parsed);
}

function goJsonSyntaxMessage(text: string, e: Error): string {
  if (text.trim() === '') return 'unexpected end of JSON input';
  const m = /position (\d+)/.exec(e.message);
  if (m) {
    const pos = Number(m[1]);
    const ch = text[pos];
    if (ch === undefined) return 'unexpected end of JSON input';
    return `invalid character '${ch}' looking for beginning of value`;
  }
  if (/end of (JSON|data)/i.test(e.message)) return 'unexpected end of JSON input';
  return e.message;
}

/** Plain JS data (from JSON or YAML) into the Go value model; integers stay float64 as in Go's JSON. */
export function fromJs(v: unknown, intsAsBigint = false): GoValue {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'boolean':
    case 'string':
      return v;
    case 'number':
      return intsAsBigint && Number.isInteger(v) ? BigInt(v) : v;
    case 'bigint':
      return intsAsBigint ? v : Number(v);
  }
  if (Array.isArray(v)) return v.map((x) => fromJs(x, intsAsBigint));
  const out: GoMap = {};
  for (const k of Object.keys(v as object)) out[k] = fromJs((v as Record<string, unknown>)[k], intsAsBigint);
  return out;
}

/** The Go value model back into plain JSON-compatible JS data (bigint → number when safe). */
export function toJs(v: GoValue): unknown {
  if (v instanceof GoTyped) return toJs(v.value);
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(toJs);
  if (v !== null && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = toJs((v as GoMap)[k]);
    return out;
  }
  if (typeof v === 'function') return null;
  return v;
}
