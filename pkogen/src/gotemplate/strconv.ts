/**
 * Go's strconv formatting the printer builds on: FormatFloat (exact binary value, round half
 * to even; JS toFixed rounds ties away from zero) and Quote/QuoteRune with Go's IsPrint.
 */
import { isPrint } from './unicode.js';

// ---------------------------------------------------------------------------------------------
// Float formatting (strconv.FormatFloat semantics)

interface Digits {
  d: string; // significant digits, no leading/trailing zeros ('' for zero)
  dp: number; // decimal point position: value = 0.d × 10^dp
}

const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);

/** Exact decimal expansion of a finite, non-negative double. */
function exactDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  f64[0] = x;
  const lo = u32[0]!;
  const hi = u32[1]!;
  const bexp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e: number;
  if (bexp === 0) e = -1074;
  else {
    mant |= 1n << 52n;
    e = bexp - 1075;
  }
  let s: string;
  let dp: number;
  if (e >= 0) {
    s = (mant << BigInt(e)).toString();
    dp = s.length;
  } else {
    s = (mant * 5n ** BigInt(-e)).toString();
    dp = s.length + e; // value = s × 10^e
  }
  return trimDigits(s, dp);
}

function trimDigits(s: string, dp: number): Digits {
  let start = 0;
  while (start < s.length && s.charCodeAt(start) === 48) {
    start++;
    dp--;
  }
  let end = s.length;
  while (end > start && s.charCodeAt(end - 1) === 48) end--;
  if (start === end) return { d: '', dp: 0 };
  return { d: s.slice(start, end), dp };
}

/** Shortest digits that round-trip (what JS and Go both compute). */
function shortestDigits(x: number): Digits {
  if (x === 0) return { d: '', dp: 0 };
  const s = x.toExponential(); // "d.ddde±x"
  const ei = s.indexOf('e');
  const mant = s.slice(0, ei).replace('.', '');
  const exp = parseInt(s.slice(ei + 1), 10);
  return trimDigits(mant, exp + 1);
}

/** Round exact digits to nd significant digits, ties to even (Go's decimal.Round). */
function roundDigits(dg: Digits, nd: number): Digits {
  if (nd < 0) return { d: '', dp: 0 };
  if (nd >= dg.d.length) return dg;
  const c = dg.d.charCodeAt(nd);
  let up: boolean;
  if (c === 53 && nd + 1 === dg.d.length) up = nd > 0 && (dg.d.charCodeAt(nd - 1) - 48) % 2 === 1;
  else up = c >= 53;
  if (!up) return trimDigits(dg.d.slice(0, nd), dg.dp);
  // Round up: increment the prefix.
  const arr = dg.d.slice(0, nd).split('');
  let i = nd - 1;
  while (i >= 0 && arr[i] === '9') {
    arr[i] = '0';
    i--;
  }
  if (i < 0) return { d: '1', dp: dg.dp + 1 };
  arr[i] = String.fromCharCode(arr[i]!.charCodeAt(0) + 1);
  return trimDigits(arr.join(''), dg.dp);
}

function digitAt(dg: Digits, i: number): string {
  return i >= 0 && i < dg.d.length ? dg.d[i]! : '0';
}

function fmtE(dg: Digits, prec: number, e: string): string {
  let out = dg.d.length === 0 ? '0' : dg.d[0]!;
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) out += digitAt(dg, i);
  }
  let exp = dg.d.length === 0 ? 0 : dg.dp - 1;
  let sign = '+';
  if (exp < 0) {
    sign = '-';
    exp = -exp;
  }
  return out + e + sign + (exp < 10 ? '0' + exp : String(exp));
}

function fmtF(dg: Digits, prec: number): string {
  let out = '';
  if (dg.dp > 0) {
    for (let i = 0; i < dg.dp; i++) out += digitAt(dg, i);
  } else out = '0';
  if (prec > 0) {
    out += '.';
    for (let i = 1; i <= prec; i++) out += digitAt(dg, dg.dp + i - 1);
  }
  return out;
}

/** strconv.FormatFloat's 'x'/'X' (hex mantissa, binary exponent) and 'b' formats. */
function formatFloatBinary(x: number, fmt: string, prec: number): string {
  f64[0] = x;
  const lo = u32[0]!;
  const hi = u32[1]!;
  const neg = hi >>> 31 === 1;
  let exp = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (exp === 0) exp++;
  else mant |= 1n << 52n;
  exp -= 1023;
  if (fmt === 'b') return (neg ? '-' : '') + mant.toString() + 'p' + (exp - 52 >= 0 ? '+' : '') + (exp - 52);
  if (mant === 0n) exp = 0;
  mant <<= 8n;
  while (mant !== 0n && (mant & (1n << 60n)) === 0n) {
    mant <<= 1n;
    exp--;
  }
  if (prec >= 0 && prec < 15) {
    const shift = BigInt(prec * 4);
    const extra = (mant << shift) & ((1n << 60n) - 1n);
    mant >>= 60n - shift;
    if ((extra | (mant & 1n)) > 1n << 59n) mant++;
    mant <<= 60n - shift;
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n;
      exp++;
    }
  }
  const digits = fmt === 'X' ? '0123456789ABCDEF' : '0123456789abcdef';
  let out = (neg ? '-' : '') + '0' + fmt + String((mant >> 60n) & 1n);
  mant = (mant << 4n) & ((1n << 64n) - 1n);
  if (prec < 0 && mant !== 0n) {
    out += '.';
    while (mant !== 0n) {
      out += digits[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  } else if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) {
      out += digits[Number((mant >> 60n) & 15n)];
      mant = (mant << 4n) & ((1n << 64n) - 1n);
    }
  }
  out += fmt === 'X' ? 'P' : 'p';
  out += exp < 0 ? '-' : '+';
  const e = Math.abs(exp);
  return out + (e < 10 ? '0' + e : String(e));
}

/** strconv.FormatFloat(x, fmt, prec, 64) for fmt in e E f F g G x X b; prec -1 = shortest. */
export function formatFloat(x: number, fmt: string, prec: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  if (fmt === 'x' || fmt === 'X' || fmt === 'b') return formatFloatBinary(x, fmt, prec);
  if (prec < 0 && fmt === 'g') {
    // Fast path: in this range Go's shortest %g and JavaScript's toString agree digit for digit.
    const a = Math.abs(x);
    if (a >= 1e-4 && a < 1e6) return String(x);
  }
  const neg = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  const shortest = prec < 0;
  let dg: Digits;
  if (shortest) {
    dg = shortestDigits(ax);
    switch (fmt) {
      case 'e': case 'E': prec = Math.max(dg.d.length - 1, 0); break;
      case 'f': case 'F': prec = Math.max(dg.d.length - dg.dp, 0); break;
      default: prec = dg.d.length; break;
    }
  } else {
    const exact = exactDigits(ax);
    switch (fmt) {
      case 'e': case 'E': dg = roundDigits(exact, prec + 1); break;
      case 'f': case 'F': dg = roundDigits(exact, exact.dp + prec); break;
      default:
        if (prec === 0) prec = 1;
        dg = roundDigits(exact, prec);
        break;
    }
  }
  let body: string;
  switch (fmt) {
    case 'e': case 'E': body = fmtE(dg, prec, fmt); break;
    case 'f': case 'F': body = fmtF(dg, prec); break;
    default: {
      let eprec = prec;
      const nd = dg.d.length;
      if (eprec > nd && nd >= dg.dp) eprec = nd;
      if (shortest) eprec = 6;
      const exp = dg.dp - 1;
      if (nd !== 0 && (exp < -4 || exp >= eprec)) {
        if (prec > nd) prec = nd;
        body = fmtE(dg, prec - 1, fmt === 'G' ? 'E' : 'e');
      } else {
        if (prec > dg.dp) prec = nd;
        body = fmtF(dg, Math.max(prec - dg.dp, 0));
      }
    }
  }
  return (neg ? '-' : '') + body;
}

// ---------------------------------------------------------------------------------------------
// Quoting (strconv.Quote and friends)

export function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

function quoteRuneBody(cp: number, quote: number, asciiOnly: boolean): string {
  if (cp === quote || cp === 92) return '\\' + String.fromCharCode(cp);
  if (asciiOnly ? cp < 0x80 && isPrint(cp) : isPrint(cp)) return String.fromCodePoint(cp);
  switch (cp) {
    case 7: return '\\a';
    case 8: return '\\b';
    case 12: return '\\f';
    case 10: return '\\n';
    case 13: return '\\r';
    case 9: return '\\t';
    case 11: return '\\v';
  }
  if (cp < 0x20 || cp === 0x7f) return '\\x' + hex(cp, 2);
  if (cp >= 0xd800 && cp <= 0xdfff) return '\\ufffd'; // lone surrogate: invalid UTF-8 in Go
  if (cp < 0x10000) return '\\u' + hex(cp, 4);
  return '\\U' + hex(cp, 8);
}

/** strconv.Quote (or QuoteToASCII when asciiOnly). */
const plainAsciiRe = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

export function quoteString(s: string, asciiOnly = false): string {
  if (plainAsciiRe.test(s)) return '"' + s + '"';
  let out = '"';
  for (const ch of s) out += quoteRuneBody(ch.codePointAt(0)!, 34, asciiOnly);
  return out + '"';
}

export function quoteRune(cp: number, asciiOnly: boolean): string {
  if (cp > 0x10ffff || cp < 0 || (cp >= 0xd800 && cp <= 0xdfff)) cp = 0xfffd;
  return "'" + quoteRuneBody(cp, 39, asciiOnly) + "'";
}

export function canBackquote(s: string): boolean {
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp === 0x60 || cp === 0xfeff) return false;
    if (cp < 0x20 && cp !== 9) return false;
    if (cp === 0x7f) return false;
  }
  return true;
}

export function runeCount(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

export function truncateRunes(s: string, n: number): string {
  let i = 0;
  let count = 0;
  while (i < s.length && count < n) {
    const c = s.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
    count++;
  }
  return s.slice(0, i);
}

export function utf8Bytes(s: string): Uint8Array {
  return new TextEncoder().encode(s);
}

