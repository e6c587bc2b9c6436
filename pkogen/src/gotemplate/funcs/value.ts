/**
 * Go value helpers shared by the sprig/PKO functions: Go type names, sprig's `strval`,
 * spf13/cast conversions (sprig v3.3.0 uses cast v1.7), emptiness and deep equality.
 */
import { GoTyped, type GoMap, type GoValue } from '../types.js';
import { formatGo } from './print.js';

export class FuncError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FuncError';
  }
}

export function unwrap(v: GoValue): GoValue {
  return v instanceof GoTyped ? v.value : v;
}

export function isMap(v: GoValue): v is GoMap {
  const u = unwrap(v);
  return u !== null && typeof u === 'object' && !Array.isArray(u) && !(u instanceof GoTyped);
}

export function isList(v: GoValue): v is GoValue[] {
  return Array.isArray(unwrap(v));
}

/** Go's `%T`. */
export function goTypeName(v: GoValue): string {
  if (v instanceof GoTyped) return v.goType;
  if (v === null) return '<nil>';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float64';
    case 'string':
      return 'string';
    case 'function':
      return 'func(...interface {}) interface {}';
  }
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** reflect.Kind names, as sprig's `kindOf` prints them. */
export function goKindName(v: GoValue): string {
  if (v instanceof GoTyped) {
    const t = v.goType;
    if (t.startsWith('[]')) return 'slice';
    if (t.startsWith('map[')) return 'map';
    if (t.startsWith('*')) return 'ptr';
    if (t.startsWith('func')) return 'func';
    return t.replace(/^.*\./, '').toLowerCase() === t.toLowerCase() ? t : 'struct';
  }
  if (v === null) return 'invalid';
  switch (typeof v) {
    case 'boolean':
      return 'bool';
    case 'bigint':
      return 'int';
    case 'number':
      return 'float64';
    case 'string':
      return 'string';
    case 'function':
      return 'func';
  }
  return Array.isArray(v) ? 'slice' : 'map';
}

/** sprig's strval: strings as is, everything else through fmt `%v`. */
export function strval(v: GoValue): string {
  const u = unwrap(v);
  if (typeof u === 'string') return u;
  return formatGo(v);
}

/** sprig's strslice. */
export function strslice(v: GoValue): string[] {
  const u = unwrap(v);
  if (u === null) return [];
  if (Array.isArray(u)) {
    if (v instanceof GoTyped && v.goType === '[]string') return u as string[];
    const out: string[] = [];
    for (const x of u) if (x !== null) out.push(strval(x));
    return out;
  }
  return [strval(v)];
}

const I64_MIN = -(1n << 63n);
const I64_MAX = (1n << 63n) - 1n;

function wrapInt64(n: bigint): bigint {
  return BigInt.asIntN(64, n);
}

/** Go's `int64(f)` for a float: truncation (out-of-range is implementation-defined; we saturate). */
export function floatToInt(f: number): bigint {
  if (Number.isNaN(f)) return I64_MIN;
  if (f >= 9.223372036854775807e18) return I64_MIN; // amd64 behaviour for overflow
  if (f <= -9.223372036854775808e18) return I64_MIN;
  return BigInt(Math.trunc(f));
}

/** strconv.ParseInt(s, 0, 64); null on error. */
export function parseGoIntLiteral(s: string): bigint | null {
  const m = /^([+-]?)(0[xX](_?[0-9a-fA-F])+|0[bB](_?[01])+|0[oO](_?[0-7])+|0(_?[0-7])*|[1-9](_?[0-9])*)$/.exec(s);
  if (!m) return null;
  let body = m[2].replace(/_/g, '');
  let n: bigint;
  if (/^0[xXbBoO]/.test(body)) n = BigInt(body.toLowerCase());
  else if (body.length > 1 && body[0] === '0') n = BigInt('0o' + body.slice(1));
  else n = BigInt(body);
  if (m[1] === '-') n = -n;
  if (n < I64_MIN || n > I64_MAX) return null;
  body = '';
  return n;
}

/** cast's trimZeroDecimal: "3.000" → "3". */
function trimZeroDecimal(s: string): string {
  let foundZero = false;
  for (let i = s.length; i > 0; i--) {
    switch (s[i - 1]) {
      case '.':
        if (foundZero) return s.slice(0, i - 1);
        break;
      case '0':
        foundZero = true;
        continue;
    }
    break;
  }
  return s;
}

/** cast.ToInt64 (errors become 0, as sprig ignores them). */
export function toInt64(v: GoValue): bigint {
  const u = unwrap(v);
  if (u === null) return 0n;
  switch (typeof u) {
    case 'bigint':
      return wrapInt64(u);
    case 'number':
      return floatToInt(u);
    case 'boolean':
      return u ? 1n : 0n;
    case 'string': {
      const n = parseGoIntLiteral(trimZeroDecimal(u));
      return n ?? 0n;
    }
  }
  return 0n;
}

/** cast.ToFloat64 (errors become 0). */
export function toFloat64(v: GoValue): number {
  const u = unwrap(v);
  if (u === null) return 0;
  switch (typeof u) {
    case 'bigint':
      return Number(u);
    case 'number':
      return u;
    case 'boolean':
      return u ? 1 : 0;
    case 'string': {
      const f = parseGoFloat(u);
      return f ?? 0;
    }
  }
  return 0;
}

/** strconv.ParseFloat(s, 64); null on syntax error. */
export function parseGoFloat(s: string): number | null {
  const t = s.replace(/_/g, '');
  if (/^[+-]?(inf|infinity)$/i.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  if (/^nan$/i.test(t)) return NaN;
  if (/^[+-]?0[xX]/.test(t)) {
    const n = parseGoIntLiteral(t);
    return n === null ? null : Number(n);
  }
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(t)) return null;
  return parseFloat(t);
}

/** sprig's `empty` (reflect-based zero check; nil/empty containers/zero numbers/false). */
export function isEmpty(v: GoValue): boolean {
  const u = unwrap(v);
  if (u === null) return true;
  switch (typeof u) {
    case 'boolean':
      return !u;
    case 'bigint':
      return u === 0n;
    case 'number':
      return u === 0;
    case 'string':
      return u.length === 0;
    case 'function':
      return false;
  }
  if (Array.isArray(u)) return u.length === 0;
  if (u instanceof GoTyped) return false;
  return Object.keys(u as GoMap).length === 0;
}

/** reflect.DeepEqual on our value model. */
export function deepEqual(a: GoValue, b: GoValue): boolean {
  if (a instanceof GoTyped || b instanceof GoTyped) {
    if (!(a instanceof GoTyped && b instanceof GoTyped) || a.goType !== b.goType) return false;
    return deepEqual(a.value, b.value);
  }
  if (a === b) return true;
  if (a === null || b === null) return false;
  if (typeof a !== typeof b) return false;
  if (typeof a === 'number') return a === b;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => deepEqual(x, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && !Array.isArray(b)) {
    const ka = Object.keys(a as GoMap);
    const kb = Object.keys(b as GoMap);
    if (ka.length !== kb.length) return false;
    return ka.every((k) => Object.prototype.hasOwnProperty.call(b, k) && deepEqual((a as GoMap)[k], (b as GoMap)[k]));
  }
  return false;
}

export function deepCopy(v: GoValue): GoValue {
  if (v instanceof GoTyped) return new GoTyped(v.goType, deepCopy(v.value));
  if (Array.isArray(v)) return v.map(deepCopy);
  if (v !== null && typeof v === 'object') {
    const out: GoMap = {};
    for (const k of Object.keys(v)) out[k] = deepCopy((v as GoMap)[k]);
    return out;
  }
  return v;
}

/** A Go map with sorted iteration is just an object; create one without prototype surprises. */
export function newMap(): GoMap {
  return {};
}

export function hasOwn(m: GoMap, k: string): boolean {
  return Object.prototype.hasOwnProperty.call(m, k);
}

// ---- argument checks: Go's text/template converts arguments to the parameter types ----

export function argString(fn: string, v: GoValue, pos: number): string {
  const u = unwrap(v);
  if (typeof u === 'string') return u;
  throw new FuncError(`wrong type for value; expected string; got ${goTypeName(v)}`);
  void fn;
  void pos;
}

export function argInt(fn: string, v: GoValue, pos: number): bigint {
  const u = unwrap(v);
  if (typeof u === 'bigint') return u;
  throw new FuncError(`wrong type for value; expected int; got ${goTypeName(v)}`);
  void fn;
  void pos;
}

export function argBool(fn: string, v: GoValue): boolean {
  const u = unwrap(v);
  if (typeof u === 'boolean') return u;
  throw new FuncError(`wrong type for value; expected bool; got ${goTypeName(v)}`);
  void fn;
}

export function argMap(fn: string, v: GoValue): GoMap {
  const u = unwrap(v);
  if (u !== null && typeof u === 'object' && !Array.isArray(u)) return u as GoMap;
  throw new FuncError(`wrong type for value; expected map[string]interface {}; got ${goTypeName(v)}`);
  void fn;
}

export function argList(fn: string, v: GoValue): GoValue[] {
  const u = unwrap(v);
  if (Array.isArray(u)) return u;
  throw new FuncError(`wrong type for value; expected []interface {}; got ${goTypeName(v)}`);
  void fn;
}

/** Arity check with text/template's message. */
export function arity(fn: string, args: GoValue[], want: number, variadic = false): void {
  if (variadic ? args.length < want : args.length !== want) {
    throw new FuncError(`wrong number of args for ${fn}: want ${variadic ? 'at least ' : ''}${want} got ${args.length}`);
  }
}
