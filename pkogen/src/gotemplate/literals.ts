/**
 * Go literal syntax for template constants: strconv.ParseInt/ParseUint with base 0,
 * ParseFloat (decimal and hex), UnquoteChar/Unquote, and parse.newNumber's classification.
 */
import type { GoValue } from './types.js';
import { quoteString } from './fmt.js';

const INT64_MAX = (1n << 63n) - 1n;
const INT64_MIN = -(1n << 63n);
const UINT64_MAX = (1n << 64n) - 1n;

function underscoreOK(s: string): boolean {
  let saw = '^';
  let i = 0;
  if (s.length >= 1 && (s[0] === '-' || s[0] === '+')) s = s.slice(1);
  let hex = false;
  if (s.length >= 2 && s[0] === '0' && 'bBoOxX'.includes(s[1]!)) {
    i = 2;
    saw = '0';
    hex = s[1] === 'x' || s[1] === 'X';
  }
  for (; i < s.length; i++) {
    const c = s[i]!;
    if ((c >= '0' && c <= '9') || (hex && /[a-fA-F]/.test(c))) {
      saw = '0';
      continue;
    }
    if (c === '_') {
      if (saw !== '0') return false;
      saw = '_';
      continue;
    }
    if (saw === '_') return false;
    saw = '!';
  }
  return saw !== '_';
}

/** strconv.ParseUint(s, 0, 64) without the sign; null on any error. */
function parseUintBase0(s: string): bigint | null {
  if (s.length === 0) return null;
  let base = 10;
  let body = s;
  if (s[0] === '0') {
    if (s.length >= 3 && (s[1] === 'x' || s[1] === 'X')) {
      base = 16;
      body = s.slice(2);
    } else if (s.length >= 3 && (s[1] === 'o' || s[1] === 'O')) {
      base = 8;
      body = s.slice(2);
    } else if (s.length >= 3 && (s[1] === 'b' || s[1] === 'B')) {
      base = 2;
      body = s.slice(2);
    } else {
      base = 8;
      body = s.slice(1);
      if (body.length === 0) return 0n;
    }
  }
  if (body.includes('_')) {
    if (!underscoreOK(s)) return null;
    body = body.replace(/_/g, '');
  }
  if (body.length === 0) return null;
  const digitRe = base === 16 ? /^[0-9a-fA-F]+$/ : base === 10 ? /^[0-9]+$/ : base === 8 ? /^[0-7]+$/ : /^[01]+$/;
  if (!digitRe.test(body)) return null;
  const prefix = base === 16 ? '0x' : base === 8 ? '0o' : base === 2 ? '0b' : '';
  const v = BigInt(prefix + body);
  return v > UINT64_MAX ? null : v;
}

function parseIntBase0(s: string): bigint | null {
  let neg = false;
  let body = s;
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-';
    body = s.slice(1);
  }
  const u = parseUintBase0(body);
  if (u === null) return null;
  const v = neg ? -u : u;
  return v > INT64_MAX || v < INT64_MIN ? null : v;
}

/** strconv.ParseFloat(s, 64); null on syntax error (out-of-range gives ±Inf, which Go reports as an error too). */
export function parseGoFloat(s: string): number | null {
  if (s.includes('_')) {
    if (!underscoreOK(s)) return null;
    s = s.replace(/_/g, '');
  }
  let sign = 1;
  let body = s;
  if (body[0] === '+' || body[0] === '-') {
    sign = body[0] === '-' ? -1 : 1;
    body = body.slice(1);
  }
  if (/^0[xX]/.test(body)) {
    const m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?[pP]([+-]?[0-9]+)$/.exec(body);
    if (!m || (m[1] === '' && (m[2] ?? '') === '')) return null;
    const digits = (m[1] ?? '') + (m[2] ?? '');
    let v = 0;
    for (const d of digits) v = v * 16 + parseInt(d, 16);
    const exp = parseInt(m[3]!, 10) - 4 * (m[2] ?? '').length;
    const r = v * Math.pow(2, exp);
    return Number.isFinite(r) ? sign * r : null;
  }
  if (!/^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$/.test(body)) return null;
  const r = Number(body);
  return Number.isFinite(r) ? sign * r : null;
}

export interface NumberInfo {
  value: GoValue;
  overflow: boolean;
  isInt: boolean;
  isFloat: boolean;
  int?: bigint;
  float?: number;
}

/** parse.newNumber + exec.idealConstant for a number token; a string is the error text. */
export function parseNumberLiteral(text: string): NumberInfo | string {
  if (text.endsWith('i')) return `complex numbers are not supported: ${quoteString(text)}`;
  let isUint = false;
  let isInt = false;
  let isFloat = false;
  let uint = 0n;
  let int = 0n;
  let float = 0;
  if (text[0] !== '+' && text[0] !== '-') {
    const u = parseUintBase0(text);
    if (u !== null) {
      isUint = true;
      uint = u;
    }
  }
  const i = parseIntBase0(text);
  if (i !== null) {
    isInt = true;
    int = i;
    if (i === 0n) isUint = true;
  }
  if (isInt) {
    isFloat = true;
    float = Number(int);
  } else if (isUint) {
    isFloat = true;
    float = Number(uint);
  } else {
    const f = parseGoFloat(text);
    if (f !== null) {
      if (!/[.eEpP]/.test(text)) return `integer overflow: ${quoteString(text)}`;
      isFloat = true;
      float = f;
      if (Number.isInteger(f) && f >= -9223372036854775808 && f < 9223372036854775808) {
        isInt = true;
        int = BigInt(f);
      }
    }
  }
  if (!isInt && !isUint && !isFloat) return `illegal number syntax: ${quoteString(text)}`;
  const hexInt = text.length > 2 && text[0] === '0' && (text[1] === 'x' || text[1] === 'X') && !/[pP]/.test(text);
  if (isFloat && !hexInt && /[.eEpP]/.test(text)) return { value: float, overflow: false, isInt, isFloat, int: isInt ? int : undefined, float };
  if (isInt) return { value: int, overflow: false, isInt, isFloat, int, float };
  return { value: null, overflow: true, isInt, isFloat, float };
}

/** strconv.UnquoteChar: one (possibly escaped) character; returns [codepoint or byte, rest] or null. */
function unquoteChar(s: string, quote: string): [number, string, boolean] | null {
  const c = s[0];
  if (c === undefined) return null;
  if (c === quote && (quote === "'" || quote === '"')) return null;
  if (c !== '\\') {
    const cp = s.codePointAt(0)!;
    return [cp, s.slice(cp > 0xffff ? 2 : 1), false];
  }
  if (s.length <= 1) return null;
  const e = s[1]!;
  let rest = s.slice(2);
  switch (e) {
    case 'a': return [7, rest, false];
    case 'b': return [8, rest, false];
    case 'f': return [12, rest, false];
    case 'n': return [10, rest, false];
    case 'r': return [13, rest, false];
    case 't': return [9, rest, false];
    case 'v': return [11, rest, false];
    case 'x': case 'u': case 'U': {
      const n = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      if (rest.length < n) return null;
      const h = rest.slice(0, n);
      if (!/^[0-9a-fA-F]+$/.test(h)) return null;
      const v = parseInt(h, 16);
      rest = rest.slice(n);
      if (e === 'x') return [v, rest, true]; // a single byte
      if (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return null;
      return [v, rest, false];
    }
    case '0': case '1': case '2': case '3': case '4': case '5': case '6': case '7': {
      const o = s.slice(1, 4);
      if (!/^[0-7]{3}$/.test(o)) return null;
      const v = parseInt(o, 8);
      if (v > 255) return null;
      return [v, s.slice(4), true];
    }
    case '\\': return [92, rest, false];
    case "'": case '"':
      if (e !== quote) return null;
      return [e.charCodeAt(0), rest, false];
  }
  return null;
}

/** strconv.Unquote for "…" and `…` strings; null on invalid syntax. Byte escapes (\xff) map to U+00FF. */
export function unquoteGoString(s: string): string | null {
  if (s.length < 2) return null;
  const q = s[0];
  if (q !== s[s.length - 1]) return null;
  let body = s.slice(1, -1);
  if (q === '`') {
    if (body.includes('`')) return null;
    return body.replace(/\r/g, '');
  }
  if (q !== '"') return null;
  if (!body.includes('\\') && !body.includes('"')) {
    return body.includes('\n') ? null : body;
  }
  let out = '';
  // Collect byte escapes so that "\xc3\xa9" decodes as UTF-8 like Go's byte strings print.
  let bytes: number[] = [];
  const flush = (): void => {
    if (bytes.length) {
      out += Buffer.from(bytes).toString('utf8');
      bytes = [];
    }
  };
  while (body.length > 0) {
    if (body[0] === '\n') return null;
    const r = unquoteChar(body, '"');
    if (!r) return null;
    const [v, rest, isByte] = r;
    if (isByte) bytes.push(v);
    else {
      flush();
      out += String.fromCodePoint(v);
    }
    body = rest;
  }
  flush();
  return out;
}

/** A character constant like 'a' or '\n'. */
export function parseCharConstant(text: string): NumberInfo | string {
  const r = unquoteChar(text.slice(1), "'");
  if (!r) return 'invalid syntax';
  const [v, tail] = r;
  if (tail !== "'") return `malformed character constant: ${text}`;
  const n = BigInt(v);
  return { value: n, overflow: false, isInt: true, isFloat: true, int: n, float: v };
}
