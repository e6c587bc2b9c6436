/**
 * Go's fmt printing rules for the template value model (see types.ts): `%v` as text/template
 * prints values, `fmt.Sprint`/`Sprintln`, and `fmt.Sprintf` with Go's verbs, flags, width,
 * precision, explicit argument indexes and error annotations (`%!d(string=x)`, `%!(EXTRA …)`).
 * Number and string conversions live in strconv.ts.
 */
import { charge, chargeDeep } from './budget.js';
import {
  canBackquote,
  formatFloat,
  hex,
  quoteRune,
  quoteString,
  runeCount,
  truncateRunes,
  utf8Bytes,
} from './strconv.js';
import { isPrint } from './unicode.js';
import { GoTyped, type GoValue } from './types.js';

export { formatFloat, quoteString };

/** Go's type name of a value, as `%T` and error messages print it. */
export function goTypeName(v: GoValue | undefined): string {
  if (v === null || v === undefined) return '<nil>';
  switch (typeof v) {
    case 'string': return 'string';
    case 'bigint': return 'int';
    case 'number': return 'float64';
    case 'boolean': return 'bool';
    case 'function': return 'func(...interface {}) interface {}';
  }
  if (v instanceof GoTyped) return v.goType;
  if (Array.isArray(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

function unwrap(v: GoValue): GoValue {
  while (v instanceof GoTyped) v = v.value;
  return v;
}

/** Sorted keys as Go's fmtsort orders string keys (byte order of UTF-8 = code point order). */
export function sortedKeys(m: object): string[] {
  const keys = Object.keys(m);
  keys.sort(compareStrings);
  return keys;
}

/** Go string comparison: by UTF-8 bytes, i.e. by code point (JS `<` compares UTF-16 units). */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      // Surrogates (code points above U+FFFF) sort after every BMP character in UTF-8.
      const xs = x >= 0xd800 && x <= 0xdfff;
      const ys = y >= 0xd800 && y <= 0xdfff;
      if (xs !== ys) return xs ? 1 : -1;
      return x < y ? -1 : 1;
    }
  }
  return a.length - b.length;
}

// ---------------------------------------------------------------------------------------------
// The printer

interface Spec {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  space: boolean;
  zero: boolean;
  plusV: boolean;
  sharpV: boolean;
  wid: number; // -1 = absent
  prec: number; // -1 = absent
}

/** For %v, `#` and `+` mean Go-syntax and field names rather than their numeric meaning. */
function vFlags(sp: Spec): void {
  if (sp.sharp) {
    sp.sharp = false;
    sp.sharpV = true;
  }
  if (sp.plus) {
    sp.plus = false;
    sp.plusV = true;
  }
}

function newSpec(): Spec {
  return { plus: false, minus: false, sharp: false, space: false, zero: false, plusV: false, sharpV: false, wid: -1, prec: -1 };
}

const plainSpec: Spec = newSpec();

class Printer {
  out = '';

  pad(s: string, sp: Spec): void {
    if (sp.wid < 0) {
      this.out += s;
      return;
    }
    const n = sp.wid - runeCount(s);
    if (n <= 0) {
      this.out += s;
      return;
    }
    charge(n);
    if (sp.minus) this.out += s + ' '.repeat(n);
    else this.out += (sp.zero ? '0' : ' ').repeat(n) + s;
  }

  // Go prints the offending value with %v but keeps the verb's flags, width and precision.
  badVerb(verb: string, v: GoValue | undefined, sp: Spec = plainSpec): void {
    this.out += '%!' + verb + '(';
    if (v === null || v === undefined) this.out += '<nil>';
    else {
      this.out += goTypeName(v) + '=';
      this.print(v, 'v', sp, 0);
    }
    this.out += ')';
  }

  print(v0: GoValue | undefined, verb: string, sp: Spec, depth: number): void {
    // A list or map is printed with shared values expanded: count that before doing it.
    if (depth === 0 && v0 !== null && typeof v0 === 'object') chargeDeep(v0);
    if (verb === 'T') {
      const t = goTypeName(v0);
      this.pad(sp.prec >= 0 && t !== '<nil>' ? truncateRunes(t, sp.prec) : t, sp);
      return;
    }
    if (v0 === null || v0 === undefined) {
      // A nil element inside a container is written without padding; a nil argument is padded.
      if (depth > 0) this.out += sp.sharpV ? 'interface {}(nil)' : '<nil>';
      else if (verb === 'v') this.pad('<nil>', sp);
      else this.badVerb(verb, null);
      return;
    }
    const v = unwrap(v0);
    if (v === null) {
      // A typed nil (e.g. a nil map under GoTyped)
      this.pad(sp.sharpV ? goTypeName(v0) + '(nil)' : Array.isArray(v) ? '[]' : '<nil>', sp);
      return;
    }
    switch (typeof v) {
      case 'boolean':
        if (verb === 't' || verb === 'v') this.pad(v ? 'true' : 'false', sp);
        else this.badVerb(verb, v0, sp);
        return;
      case 'bigint':
        this.fmtInt(v, verb, sp, v0);
        return;
      case 'number':
        this.fmtFloat(v, verb, sp, v0);
        return;
      case 'string':
        this.fmtString(v, verb, sp, v0);
        return;
      case 'function':
        if (verb === 'v' || verb === 'p') this.pad('0xc000000000', sp);
        else this.badVerb(verb, v0, sp);
        return;
    }
    if (Array.isArray(v)) {
      if (sp.sharpV) {
        this.out += goTypeName(v0) + '{';
        for (let i = 0; i < v.length; i++) {
          if (i > 0) this.out += ', ';
          this.print(v[i], verb, sp, depth + 1);
        }
        this.out += '}';
        return;
      }
      this.out += '[';
      for (let i = 0; i < v.length; i++) {
        if (i > 0) this.out += ' ';
        this.print(v[i], verb, sp, depth + 1);
      }
      this.out += ']';
      return;
    }
    const m = v as Record<string, GoValue>;
    const keys = sortedKeys(m);
    if (sp.sharpV) {
      this.out += goTypeName(v0) + '{';
      for (let i = 0; i < keys.length; i++) {
        if (i > 0) this.out += ', ';
        this.print(keys[i]!, verb, sp, depth + 1);
        this.out += ':';
        this.print(m[keys[i]!]!, verb, sp, depth + 1);
      }
      this.out += '}';
      return;
    }
    this.out += 'map[';
    for (let i = 0; i < keys.length; i++) {
      if (i > 0) this.out += ' ';
      this.print(keys[i]!, verb, sp, depth + 1);
      this.out += ':';
      this.print(m[keys[i]!]!, verb, sp, depth + 1);
    }
    this.out += ']';
  }

  fmtInt(n: bigint, verb: string, sp: Spec, orig: GoValue): void {
    switch (verb) {
      case 'v':
        if (sp.sharpV && orig instanceof GoTyped && orig.goType !== 'int') {
          this.out += orig.goType + '(';
          this.integer(n, 10, 'd', sp, false);
          this.out += ')';
          return;
        }
        this.integer(n, 10, 'd', sp, false);
        return;
      case 'd': this.integer(n, 10, verb, sp, false); return;
      case 'b': this.integer(n, 2, verb, sp, false); return;
      case 'o': case 'O': this.integer(n, 8, verb, sp, false); return;
      case 'x': this.integer(n, 16, verb, sp, false); return;
      case 'X': this.integer(n, 16, verb, sp, true); return;
      case 'c': this.pad(runeString(n), sp); return;
      case 'q': this.pad(quoteRune(runeNumber(n), sp.plus), sp); return;
      case 'U': {
        const cp = n < 0n ? n + (1n << 64n) : n;
        let s = 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
        if (sp.sharp && n >= 0n && n <= 0x10ffffn && isPrint(Number(n))) s += " '" + String.fromCodePoint(Number(n)) + "'";
        this.pad(s, { ...sp, zero: false });
        return;
      }
      default:
        this.badVerb(verb, orig, sp);
    }
  }

  integer(n: bigint, base: number, verb: string, sp: Spec, upper: boolean): void {
    const negative = n < 0n;
    let digits = (negative ? -n : n).toString(base);
    if (upper) digits = digits.toUpperCase();
    let prec = 0;
    if (sp.prec >= 0) {
      prec = sp.prec;
      if (prec === 0 && n === 0n) {
        this.pad('', { ...sp, zero: false });
        return;
      }
    } else if (sp.zero && !sp.minus && sp.wid >= 0) {
      prec = sp.wid;
      if (negative || sp.plus || sp.space) prec--;
    }
    if (digits.length < prec) digits = '0'.repeat(prec - digits.length) + digits;
    if (sp.sharp) {
      if (base === 2) digits = '0b' + digits;
      else if (base === 8 && verb !== 'O' && digits[0] !== '0') digits = '0' + digits;
      else if (base === 16) digits = (upper ? '0X' : '0x') + digits;
    }
    if (verb === 'O') digits = '0o' + digits;
    if (negative) digits = '-' + digits;
    else if (sp.plus) digits = '+' + digits;
    else if (sp.space) digits = ' ' + digits;
    // Zero padding was done through precision; the remaining padding uses spaces.
    this.pad(digits, sp.zero ? { ...sp, zero: false } : sp);
  }

  fmtFloat(x: number, verb: string, sp: Spec, orig: GoValue): void {
    let prec: number;
    let fmt: string;
    switch (verb) {
      case 'v': fmt = 'g'; prec = -1; break;
      case 'g': case 'G': fmt = verb; prec = -1; break;
      case 'e': case 'E': case 'f': case 'F': fmt = verb; prec = 6; break;
      case 'x': case 'X': case 'b': fmt = verb; prec = -1; break;
      default:
        this.badVerb(verb, orig, sp);
        return;
    }
    if (sp.prec >= 0) prec = sp.prec;
    let num = formatFloat(x, fmt, prec);
    if (num[0] !== '-' && num[0] !== '+') num = '+' + num;
    if (sp.space && num[0] === '+' && !sp.plus) num = ' ' + num.slice(1);
    if (num[1] === 'I' || num[1] === 'N') {
      if (num[1] === 'N' && !sp.space && !sp.plus) num = num.slice(1);
      this.pad(num, { ...sp, zero: false });
      return;
    }
    if (sp.sharp && fmt !== 'b') {
      let digits = 0;
      if (fmt === 'g' || fmt === 'G' || fmt === 'x') digits = prec === -1 ? 6 : prec;
      let tail = '';
      let body = num;
      const ei = body.search(fmt === 'x' || fmt === 'X' || fmt === 'b' ? /[pP]/ : /[eE]/);
      if (ei >= 0) {
        tail = body.slice(ei);
        body = body.slice(0, ei);
      }
      let hasPoint = false;
      let sawNonzero = false;
      for (let i = 1; i < body.length; i++) {
        const c = body[i]!;
        if (c === '.') hasPoint = true;
        else {
          if (c !== '0') sawNonzero = true;
          if (sawNonzero) digits--;
        }
      }
      if (!hasPoint) {
        if (body.length === 2 && body[1] === '0') digits--;
        body += '.';
      }
      while (digits > 0) {
        body += '0';
        digits--;
      }
      num = body + tail;
    }
    if (sp.plus || num[0] !== '+') {
      if (sp.zero && !sp.minus && sp.wid >= 0 && sp.wid > num.length) {
        this.out += num[0] + '0'.repeat(sp.wid - num.length) + num.slice(1);
        return;
      }
      this.pad(num, sp);
      return;
    }
    this.pad(num.slice(1), sp);
  }

  fmtString(s: string, verb: string, sp: Spec, orig: GoValue): void {
    switch (verb) {
      case 'v':
        if (sp.sharpV) this.pad(quoteString(sp.prec >= 0 ? truncateRunes(s, sp.prec) : s), sp);
        else this.pad(sp.prec >= 0 ? truncateRunes(s, sp.prec) : s, sp);
        return;
      case 's':
        this.pad(sp.prec >= 0 ? truncateRunes(s, sp.prec) : s, sp);
        return;
      case 'q': {
        if (sp.prec >= 0) s = truncateRunes(s, sp.prec);
        if (sp.sharp && canBackquote(s)) this.pad('`' + s + '`', sp);
        else this.pad(quoteString(s, sp.plus), sp);
        return;
      }
      case 'x': case 'X': {
        let bytes = utf8Bytes(s);
        if (sp.prec >= 0 && sp.prec < bytes.length) bytes = bytes.subarray(0, sp.prec);
        const upper = verb === 'X';
        let out = '';
        for (let i = 0; i < bytes.length; i++) {
          if (sp.space && i > 0) out += ' ';
          if (sp.sharp && (sp.space || i === 0)) out += upper ? '0X' : '0x';
          const h = hex(bytes[i]!, 2);
          out += upper ? h.toUpperCase() : h;
        }
        this.pad(out, sp);
        return;
      }
      default:
        this.badVerb(verb, orig, sp);
    }
  }
}

function runeNumber(n: bigint): number {
  if (n < 0n || n > 0x10ffffn) return 0xfffd;
  const cp = Number(n);
  return cp >= 0xd800 && cp <= 0xdfff ? 0xfffd : cp;
}

function runeString(n: bigint): string {
  return String.fromCodePoint(runeNumber(n));
}

/** Go's `%v` of one value — what `{{.}}` prints (the engine prints `<no value>` for a missing value itself). */
export function formatValue(v: GoValue): string {
  // Fast paths for the common scalar cases.
  switch (typeof v) {
    case 'string': return v;
    case 'bigint': return v.toString();
    case 'boolean': return v ? 'true' : 'false';
    case 'number': return formatFloat(v, 'g', -1);
  }
  const p = new Printer();
  p.print(v, 'v', plainSpec, 0);
  return p.out;
}

/** fmt.Sprint: spaces between operands when neither side is a string. */
export function sprint(args: readonly GoValue[]): string {
  let out = '';
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (i > 0 && typeof a !== 'string' && typeof args[i - 1] !== 'string') out += ' ';
    out += formatValue(a);
  }
  return out;
}

/** fmt.Sprintln: always spaces between operands, newline at the end. */
export function sprintln(args: readonly GoValue[]): string {
  return args.map(formatValue).join(' ') + '\n';
}

function parseNum(format: string, i: number): [number, number, boolean] {
  let n = 0;
  let ok = false;
  while (i < format.length) {
    const c = format.charCodeAt(i);
    if (c < 48 || c > 57) break;
    if (n > 1e6) return [0, format.length, false]; // Go's tooLarge guard: gives up on the rest
    n = n * 10 + (c - 48);
    ok = true;
    i++;
  }
  return [n, i, ok];
}

type Piece = string | { sp: Spec; verb: string };
const planCache = new Map<string, Piece[]>();

/** Pre-parsed form of a format without argument indexes or `*` (the common case), cached. */
function plan(format: string): Piece[] | null {
  const cached = planCache.get(format);
  if (cached) return cached;
  if (format.includes('[') || format.includes('*')) return null;
  const pieces: Piece[] = [];
  const end = format.length;
  let i = 0;
  let lit = '';
  while (i < end) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      lit += format.slice(i);
      break;
    }
    lit += format.slice(i, pct);
    i = pct + 1;
    const sp = newSpec();
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case '#': sp.sharp = true; break;
        case '0': sp.zero = !sp.minus; break;
        case '+': sp.plus = true; break;
        case '-': sp.minus = true; sp.zero = false; break;
        case ' ': sp.space = true; break;
        default: break flags;
      }
    }
    const [w, wi, wok] = parseNum(format, i);
    if (wok) sp.wid = w;
    i = wi;
    if (i < end && format[i] === '.') {
      const [pr, pi] = parseNum(format, i + 1);
      sp.prec = pr;
      i = pi;
    }
    if (i >= end) {
      lit += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      lit += '%';
      continue;
    }
    if (verb === 'v') vFlags(sp);
    if (lit) pieces.push(lit);
    lit = '';
    pieces.push({ sp, verb });
  }
  if (lit) pieces.push(lit);
  if (planCache.size < 1000) planCache.set(format, pieces);
  return pieces;
}

function sprintfPlanned(pieces: Piece[], args: readonly GoValue[]): string {
  const p = new Printer();
  let argNum = 0;
  for (let k = 0; k < pieces.length; k++) {
    const piece = pieces[k]!;
    if (typeof piece === 'string') {
      p.out += piece;
      continue;
    }
    if (argNum >= args.length) {
      p.out += '%!' + piece.verb + '(MISSING)';
      continue;
    }
    if (piece.verb === 'w') p.badVerb('w', args[argNum]!, piece.sp);
    else p.print(args[argNum]!, piece.verb, piece.sp, 0);
    argNum++;
  }
  if (argNum < args.length) appendExtra(p, args, argNum);
  return p.out;
}

function appendExtra(p: Printer, args: readonly GoValue[], from: number): void {
  p.out += '%!(EXTRA ';
  for (let k = from; k < args.length; k++) {
    if (k > from) p.out += ', ';
    const a = args[k]!;
    if (a === null || a === undefined) p.out += '<nil>';
    else {
      p.out += goTypeName(a) + '=';
      p.print(a, 'v', plainSpec, 0);
    }
  }
  p.out += ')';
}

/** Go's fmt.Sprintf. */
export function sprintf(format: string, args: readonly GoValue[]): string {
  const pieces = plan(format);
  if (pieces) return sprintfPlanned(pieces, args);
  const p = new Printer();
  let argNum = 0;
  let reordered = false;
  let goodArgNum = true;
  const end = format.length;
  let i = 0;

  // Go's argNumber: parses "[n]" at position at; returns [argNum, next index, found].
  const argIndex = (argNumIn: number, at: number): [number, number, boolean] => {
    if (at >= end || format[at] !== '[') return [argNumIn, at, false];
    reordered = true;
    let idx = 0;
    let wid = 1;
    let ok = false;
    if (end - at >= 3) {
      for (let j = at + 1; j < end; j++) {
        if (format[j] === ']') {
          const [n, newi, numOk] = parseNum(format, at + 1);
          wid = j + 1 - at;
          if (numOk && newi === j) {
            idx = n - 1;
            ok = true;
          }
          break;
        }
      }
    }
    if (ok && idx >= 0 && idx < args.length) return [idx, at + wid, true];
    goodArgNum = false;
    return [argNumIn, at + wid, ok];
  };

  while (i < end) {
    goodArgNum = true;
    const lasti = i;
    while (i < end && format[i] !== '%') i++;
    if (i > lasti) p.out += format.slice(lasti, i);
    if (i >= end) break;
    i++; // skip %
    const sp = newSpec();
    flags: for (; i < end; i++) {
      switch (format[i]) {
        case '#': sp.sharp = true; break;
        case '0': sp.zero = !sp.minus; break;
        case '+': sp.plus = true; break;
        case '-': sp.minus = true; sp.zero = false; break;
        case ' ': sp.space = true; break;
        default: break flags;
      }
    }
    let afterIndex: boolean;
    [argNum, i, afterIndex] = argIndex(argNum, i);
    if (i < end && format[i] === '*') {
      i++;
      const [w, ok, next] = intFromArg(args, argNum);
      argNum = next;
      if (!ok) p.out += '%!(BADWIDTH)';
      else {
        sp.wid = w;
        if (w < 0) {
          sp.wid = -w;
          sp.minus = true;
          sp.zero = false;
        }
      }
      afterIndex = false;
    } else {
      const [w, ni, ok] = parseNum(format, i);
      if (ok) {
        sp.wid = w;
        if (afterIndex) goodArgNum = false; // "%[3]2d"
      }
      i = ni;
    }
    if (i + 1 <= end && format[i] === '.') {
      i++;
      if (afterIndex) goodArgNum = false; // "%[3].2d"
      [argNum, i, afterIndex] = argIndex(argNum, i);
      if (i < end && format[i] === '*') {
        i++;
        const [pr, ok, next] = intFromArg(args, argNum);
        argNum = next;
        sp.prec = ok && pr >= 0 ? pr : -1;
        if (sp.prec < 0) p.out += '%!(BADPREC)';
        afterIndex = false;
      } else {
        const [pr, ni] = parseNum(format, i);
        sp.prec = pr;
        i = ni;
      }
    }
    if (!afterIndex) [argNum, i, afterIndex] = argIndex(argNum, i);
    if (i >= end) {
      p.out += '%!(NOVERB)';
      break;
    }
    const cp = format.codePointAt(i)!;
    const verb = String.fromCodePoint(cp);
    i += verb.length;
    if (verb === '%') {
      p.out += '%';
      continue;
    }
    if (!goodArgNum) {
      p.out += '%!' + verb + '(BADINDEX)';
      continue;
    }
    if (argNum >= args.length) {
      p.out += '%!' + verb + '(MISSING)';
      continue;
    }
    if (verb === 'w') {
      p.badVerb(verb, args[argNum]!);
      argNum++;
      continue;
    }
    if (verb === 'v') vFlags(sp);
    p.print(args[argNum]!, verb, sp, 0);
    argNum++;
  }
  if (!reordered && argNum < args.length) appendExtra(p, args, argNum);
  return p.out;
}

function intFromArg(args: readonly GoValue[], argNum: number): [number, boolean, number] {
  if (argNum >= args.length) return [0, false, argNum];
  const a = unwrap(args[argNum]!);
  if (typeof a === 'bigint') {
    if (a > 1000000n || a < -1000000n) return [0, false, argNum + 1];
    return [Number(a), true, argNum + 1];
  }
  return [0, false, argNum + 1];
}
