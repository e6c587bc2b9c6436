/**
 * text/template's builtin functions (funcs.go) over the value model. `undefined` is Go's
 * invalid reflect.Value ("no value"); `null` is a nil interface. Errors are thrown as
 * BuiltinError with Go's message; the executor reports them as `error calling NAME: …`.
 */
import { compareStrings, formatValue, goTypeName, sprint, sprintf, sprintln } from './fmt.js';
import { GoTyped, type GoValue } from './types.js';
import { isPrint } from './unicode.js';

export type V = GoValue | undefined;

export class BuiltinError extends Error {}

/** Parameter kinds: 'reflect' = reflect.Value (sees nil vs no value), 'any' = interface{}, or a Go type name. */
export interface FuncSignature {
  params: string[];
  variadic?: boolean;
}

export interface BuiltinFunc {
  sig: FuncSignature;
  fn: (args: V[]) => V;
}

function concrete(v: V): V {
  return v === null ? undefined : v;
}

function unwrapTyped(v: V): V {
  while (v instanceof GoTyped) v = v.value;
  return v;
}

export function isPlainMap(v: unknown): v is Record<string, GoValue> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof GoTyped);
}

/** Go's isTrue: the truth of a value, nil and no value being false. */
export function truth(v0: V): boolean {
  const v = unwrapTyped(v0);
  switch (typeof v) {
    case 'undefined': return false;
    case 'boolean': return v;
    case 'string': return v.length > 0;
    case 'bigint': return v !== 0n;
    case 'number': return v !== 0;
    case 'function': return true;
  }
  if (v === null) return false;
  if (Array.isArray(v)) return v.length > 0;
  for (const _ in v as object) return true;
  return false;
}

/** Length in UTF-8 bytes of `s[from:to]` (Go counts columns and lengths in bytes). */
export function utf8Length(s: string, from = 0, to = s.length): number {
  let n = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n++;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/** Go's type of the elements of a container value (for zero values and iface-ness). */
export function elemType(container: V): string {
  if (container instanceof GoTyped) {
    const t = container.goType;
    if (t.startsWith('[]')) return t.slice(2);
    const m = /^map\[[^\]]*\](.*)$/.exec(t);
    if (m) return m[1]!;
  }
  return 'interface {}';
}

export function zeroValue(goType: string): V {
  switch (goType) {
    case 'string': return '';
    case 'bool': return false;
    case 'float64': case 'float32': return 0;
    case 'int': case 'int64': case 'int32': case 'int16': case 'int8': return 0n;
    case 'uint': case 'uint64': case 'uint32': case 'uint16': case 'uint8': return new GoTyped(goType, 0n);
  }
  return null;
}

function indexArg(index: V, cap: number): number {
  const x = unwrapTyped(index);
  if (x === undefined || x === null) throw new BuiltinError('cannot index slice/array with nil');
  if (typeof x !== 'bigint') throw new BuiltinError(`cannot index slice/array with type ${goTypeName(index as GoValue)}`);
  if (x < 0n || x > BigInt(cap)) throw new BuiltinError(`index out of range: ${x}`);
  return Number(x);
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

function index(args: V[]): V {
  let item = concrete(args[0]);
  if (item === undefined) throw new BuiltinError('index of untyped nil');
  for (let i = 1; i < args.length; i++) {
    const idx = concrete(args[i]);
    if (item === null) throw new BuiltinError('index of nil pointer');
    const typed = item instanceof GoTyped ? item : null;
    const raw = unwrapTyped(item);
    if (Array.isArray(raw)) {
      const x = indexArg(idx, raw.length);
      if (x === raw.length) throw new BuiltinError('reflect: slice index out of range');
      item = raw[x]!;
      if (typed && item === null) item = zeroValue(elemType(typed));
    } else if (typeof raw === 'string') {
      const bytes = encoder.encode(raw);
      const x = indexArg(idx, bytes.length);
      if (x === bytes.length) throw new BuiltinError('reflect: string index out of range');
      item = new GoTyped('uint8', BigInt(bytes[x]!));
    } else if (isPlainMap(raw)) {
      const key = unwrapTyped(idx);
      const et = elemType(item);
      if (key === undefined) throw new BuiltinError('value is nil; should be of type string');
      if (typeof key !== 'string') throw new BuiltinError(`value has type ${goTypeName(idx as GoValue)}; should be string`);
      item = Object.prototype.hasOwnProperty.call(raw, key) ? raw[key]! : (zeroValue(et) as GoValue);
    } else {
      throw new BuiltinError(`can't index item of type ${goTypeName(item)}`);
    }
  }
  return item;
}

function slice(args: V[]): V {
  const item = concrete(args[0]);
  if (item === undefined || item === null) throw new BuiltinError('slice of untyped nil');
  const indexes = args.slice(1);
  if (indexes.length > 3) throw new BuiltinError(`too many slice indexes: ${indexes.length}`);
  const raw = unwrapTyped(item);
  let len: number;
  let bytes: Uint8Array | null = null;
  if (typeof raw === 'string') {
    if (indexes.length === 3) throw new BuiltinError('cannot 3-index slice a string');
    bytes = encoder.encode(raw);
    len = bytes.length;
  } else if (Array.isArray(raw)) {
    len = raw.length; // JSON-decoded slices: Go's capacity may exceed the length; we use the length
  } else {
    throw new BuiltinError(`can't slice item of type ${goTypeName(item)}`);
  }
  const idx = [0, len, len];
  for (let i = 0; i < indexes.length; i++) idx[i] = indexArg(indexes[i], len);
  if (idx[0]! > idx[1]!) throw new BuiltinError(`invalid slice index: ${idx[0]} > ${idx[1]}`);
  if (indexes.length === 3 && idx[1]! > idx[2]!) throw new BuiltinError(`invalid slice index: ${idx[1]} > ${idx[2]}`);
  if (bytes) return decoder.decode(bytes.subarray(idx[0], idx[1]));
  const out = (raw as GoValue[]).slice(idx[0], idx[1]);
  return item instanceof GoTyped ? new GoTyped(item.goType, out) : out;
}

function length(args: V[]): V {
  const v = args[0];
  if (v === undefined) throw new BuiltinError('reflect: call of reflect.Value.Type on zero Value');
  if (v === null) throw new BuiltinError('len of nil pointer');
  const raw = unwrapTyped(v);
  if (typeof raw === 'string') return BigInt(utf8Length(raw));
  if (Array.isArray(raw)) return BigInt(raw.length);
  if (isPlainMap(raw)) return BigInt(Object.keys(raw).length);
  if (raw === null) return 0n; // typed nil slice/map
  throw new BuiltinError(`len of type ${goTypeName(v)}`);
}

// --- comparison

const enum K {
  Invalid,
  Bool,
  Int,
  Float,
  String,
}

function basicKind(v: V): K {
  const r = unwrapTyped(v);
  switch (typeof r) {
    case 'boolean': return K.Bool;
    case 'bigint': return K.Int;
    case 'number': return K.Float;
    case 'string': return K.String;
  }
  return K.Invalid;
}

function reflectKind(v: V): string {
  const r = unwrapTyped(v);
  if (r === undefined) return 'invalid';
  if (r === null) return v instanceof GoTyped ? (v.goType.startsWith('[]') ? 'slice' : 'map') : 'interface';
  if (Array.isArray(r)) return 'slice';
  if (typeof r === 'function') return 'func';
  return 'map';
}

function isNilValue(v: V): boolean {
  return unwrapTyped(v) === undefined || unwrapTyped(v) === null;
}

export function eq(args: V[]): boolean {
  const a1 = concrete(args[0]);
  if (args.length < 2) throw new BuiltinError('missing argument for comparison');
  const k1 = basicKind(a1);
  for (let i = 1; i < args.length; i++) {
    const a = concrete(args[i]);
    const k2 = basicKind(a);
    let t = false;
    if (k1 !== k2) {
      if (a1 !== undefined && a !== undefined) {
        throw new BuiltinError(`incompatible types for comparison: ${goTypeName(a1)} and ${goTypeName(a)}`);
      }
    } else if (k1 !== K.Invalid) {
      t = unwrapTyped(a1) === unwrapTyped(a);
    } else {
      const rk1 = reflectKind(a1);
      const rk2 = reflectKind(a);
      if (rk1 !== rk2 && rk1 !== 'invalid' && rk2 !== 'invalid') {
        throw new BuiltinError(
          `non-comparable types ${sprintf('%s', [a1 as GoValue])}: ${goTypeName(a1)}, ${goTypeName(a)}: ${formatValue(a as GoValue)}`,
        );
      }
      if (isNilValue(a1) || isNilValue(a)) t = isNilValue(a) === isNilValue(a1);
      else throw new BuiltinError(`non-comparable type ${sprintf('%s', [a as GoValue])}: ${goTypeName(a)}`);
    }
    if (t) return true;
  }
  return false;
}

export function lt(args: V[]): boolean {
  const a1 = concrete(args[0]);
  const k1 = basicKind(a1);
  if (k1 === K.Invalid) throw new BuiltinError('invalid type for comparison');
  const a2 = concrete(args[1]);
  const k2 = basicKind(a2);
  if (k2 === K.Invalid) throw new BuiltinError('invalid type for comparison');
  if (k1 !== k2) throw new BuiltinError(`incompatible types for comparison: ${goTypeName(a1)} and ${goTypeName(a2)}`);
  const x = unwrapTyped(a1);
  const y = unwrapTyped(a2);
  switch (k1) {
    case K.Bool: throw new BuiltinError('invalid type for comparison');
    case K.String: return compareStrings(x as string, y as string) < 0;
    default: return (x as number) < (y as number);
  }
}

function le(args: V[]): boolean {
  return lt(args) || eq(args);
}

// --- escaping

function evalArgs(args: V[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  return sprint(args.map((a) => (a === undefined || a === null ? '<no value>' : a)));
}

export function htmlEscape(s: string): string {
  let out = '';
  let last = 0;
  for (let i = 0; i < s.length; i++) {
    let rep: string;
    switch (s.charCodeAt(i)) {
      case 34: rep = '&#34;'; break;
      case 39: rep = '&#39;'; break;
      case 38: rep = '&amp;'; break;
      case 60: rep = '&lt;'; break;
      case 62: rep = '&gt;'; break;
      case 0: rep = '\uFFFD'; break;
      default: continue;
    }
    out += s.slice(last, i) + rep;
    last = i + 1;
  }
  return last === 0 ? s : out + s.slice(last);
}

export function jsEscape(s: string): string {
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c < 0x80) {
      switch (ch) {
        case '\\': out += '\\\\'; continue;
        case "'": out += "\\'"; continue;
        case '"': out += '\\"'; continue;
        case '<': out += '\\u003C'; continue;
        case '>': out += '\\u003E'; continue;
        case '&': out += '\\u0026'; continue;
        case '=': out += '\\u003D'; continue;
      }
      if (c >= 0x20 && c < 0x7f) out += ch;
      else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
      continue;
    }
    if (isPrint(c)) out += ch; // unicode.IsPrint: no spaces beyond ASCII
    else out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
  }
  return out;
}

export function urlQueryEscape(s: string): string {
  let out = '';
  for (const b of encoder.encode(s)) {
    if ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d || b === 0x2e || b === 0x5f || b === 0x7e) {
      out += String.fromCharCode(b);
    } else if (b === 0x20) out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

// print/printf/println take interface{} parameters: the executor already turned "no value" into nil.
function asValues(args: V[]): GoValue[] {
  return args as GoValue[];
}

const R = 'reflect';

/** and/or/call are handled by the executor (short-circuit, callee name); listed here for arity. */
export const builtins: Record<string, BuiltinFunc> = {
  and: { sig: { params: [R, R], variadic: true }, fn: () => undefined },
  or: { sig: { params: [R, R], variadic: true }, fn: () => undefined },
  call: { sig: { params: [R, R], variadic: true }, fn: () => undefined },
  not: { sig: { params: [R] }, fn: (a) => !truth(a[0]) },
  len: { sig: { params: [R] }, fn: length },
  index: { sig: { params: [R, R], variadic: true }, fn: index },
  slice: { sig: { params: [R, R], variadic: true }, fn: slice },
  print: { sig: { params: ['any'], variadic: true }, fn: (a) => sprint(asValues(a)) },
  printf: { sig: { params: ['string', 'any'], variadic: true }, fn: (a) => sprintf(a.shift() as string, asValues(a)) },
  println: { sig: { params: ['any'], variadic: true }, fn: (a) => sprintln(asValues(a)) },
  eq: { sig: { params: [R, R], variadic: true }, fn: eq },
  ne: { sig: { params: [R, R] }, fn: (a) => !eq(a) },
  lt: { sig: { params: [R, R] }, fn: lt },
  le: { sig: { params: [R, R] }, fn: le },
  gt: { sig: { params: [R, R] }, fn: (a) => !le(a) },
  ge: { sig: { params: [R, R] }, fn: (a) => !lt(a) },
  html: { sig: { params: ['any'], variadic: true }, fn: (a) => htmlEscape(evalArgs(a)) },
  js: { sig: { params: ['any'], variadic: true }, fn: (a) => jsEscape(evalArgs(a)) },
  urlquery: { sig: { params: ['any'], variadic: true }, fn: (a) => urlQueryEscape(evalArgs(a)) },
};
