/** sprig v3.3.0 string functions (strings.go, and the xstrings/goutils helpers they call). */
import { charge } from '../budget.js';
import { nodeCrypto } from '../../core/builtins.js';
import { GoTyped, type FuncMap, type GoValue } from '../types.js';
import { quoteString } from '../fmt.js';
import { argInt, argString, arity, FuncError, strslice, strval, toInt64, unwrap } from './value.js';

const s1 = (fn: string, f: (s: string) => GoValue) => (...a: GoValue[]) => {
  arity(fn, a, 1);
  return f(argString(fn, a[0], 0));
};
const s2 = (fn: string, f: (a: string, b: string) => GoValue) => (...a: GoValue[]) => {
  arity(fn, a, 2);
  return f(argString(fn, a[0], 0), argString(fn, a[1], 1));
};
const is = (fn: string, f: (n: bigint, s: string) => GoValue) => (...a: GoValue[]) => {
  arity(fn, a, 2);
  return f(argInt(fn, a[0], 0), argString(fn, a[1], 1));
};

/** Byte-oriented slicing like Go's s[a:b] (strings are UTF-8 bytes in Go). */
function byteLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
function byteSlice(s: string, from: number, to?: number): string {
  return Buffer.from(s, 'utf8').subarray(from, to).toString('utf8');
}

const isSpace = (c: string) => /\s/u.test(c);

function title(s: string): string {
  // strings.Title: uppercase letters that follow a separator (non letter/digit/underscore).
  let prev = ' ';
  let out = '';
  for (const c of s) {
    const sep = !/[\p{L}\p{N}_]/u.test(prev);
    out += sep ? c.toUpperCase() : c;
    prev = c;
  }
  return out;
}

function untitle(s: string): string {
  // goutils.Uncapitalize per word (whitespace-delimited).
  let prevSpace = true;
  let out = '';
  for (const c of s) {
    out += prevSpace ? c.toLowerCase() : c;
    prevSpace = isSpace(c);
  }
  return out;
}

function swapcase(s: string): string {
  // goutils.SwapCase: upper→lower, title→lower, lower→upper (whitespace resets nothing special)
  let out = '';
  for (const c of s) {
    if (c !== c.toLowerCase()) out += c.toLowerCase();
    else if (c !== c.toUpperCase()) out += c.toUpperCase();
    else out += c;
  }
  return out;
}

function initials(s: string): string {
  // goutils.Initials with no delimiters: first rune after whitespace.
  let out = '';
  let take = true;
  for (const c of s) {
    if (isSpace(c)) take = true;
    else if (take) {
      out += c;
      take = false;
    }
  }
  return out;
}

/** goutils.Abbreviate / AbbreviateFull. */
function abbreviateFull(str: string, offset: number, maxWidth: number): string {
  if (str === '') return '';
  if (maxWidth < 4) throw new FuncError('minimum abbreviation width is 4');
  const chars = [...str];
  if (chars.length <= maxWidth) return str;
  if (offset > chars.length) offset = chars.length;
  if (chars.length - offset < maxWidth - 3) offset = chars.length - (maxWidth - 3);
  const abrevMarker = '...';
  if (offset <= 4) return chars.slice(0, maxWidth - 3).join('') + abrevMarker;
  if (maxWidth < 7) throw new FuncError('minimum abbreviation width with offset is 7');
  if (offset + maxWidth - 3 < chars.length) return abrevMarker + abbreviateFull(chars.slice(offset).join(''), 0, maxWidth - 3);
  return abrevMarker + chars.slice(chars.length - (maxWidth - 3)).join('');
}

/** xstrings word splitting used by snakecase/kebabcase/camelcase (approximation of huandu/xstrings v1.5). */
function words(s: string): string[] {
  const out: string[] = [];
  let cur = '';
  const chars = [...s];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (!/[\p{L}\p{N}]/u.test(c)) {
      if (cur) out.push(cur);
      cur = '';
      continue;
    }
    const prev = chars[i - 1];
    const next = chars[i + 1];
    const isUpper = c !== c.toLowerCase();
    if (cur && isUpper && prev !== undefined) {
      const prevLower = prev === prev.toLowerCase() && /\p{L}/u.test(prev);
      const prevDigit = /\p{N}/u.test(prev);
      const nextLower = next !== undefined && next !== next.toUpperCase();
      if (prevLower || prevDigit || nextLower) {
        out.push(cur);
        cur = '';
      }
    }
    cur += c;
  }
  if (cur) out.push(cur);
  return out;
}

function wrap(width: number, s: string, newline = '\n'): string {
  // goutils.WrapCustom(str, width, newline, wrapLongWords=true)
  if (width < 1) width = 1;
  const out: string[] = [];
  for (const line of s.split('\n')) {
    const chars = [...line];
    let offset = 0;
    const parts: string[] = [];
    while (chars.length - offset > width) {
      if (chars[offset] === ' ') {
        offset++;
        continue;
      }
      const window = chars.slice(offset, offset + width + 1).join('');
      const sp = window.lastIndexOf(' ');
      if (sp > 0) {
        parts.push(chars.slice(offset, offset + [...window.slice(0, sp)].length).join(''));
        offset += [...window.slice(0, sp)].length + 1;
      } else {
        const rest = chars.slice(offset + width).join('');
        const sp2 = rest.indexOf(' ');
        if (sp2 >= 0) {
          // wrapLongWords: break the word at width
          parts.push(chars.slice(offset, offset + width).join(''));
          offset += width;
        } else {
          parts.push(chars.slice(offset, offset + width).join(''));
          offset += width;
        }
      }
    }
    parts.push(chars.slice(offset).join(''));
    out.push(parts.join(newline));
  }
  return out.join('\n');
}

function quote(...a: GoValue[]): GoValue {
  const out: string[] = [];
  for (const v of a) if (v !== null) out.push(goQuote(strval(v)));
  return out.join(' ');
}

export const goQuote = (s: string): string => quoteString(s);

function adler32(data: Buffer): number {
  let a = 1;
  let b = 0;
  for (const x of data) {
    a = (a + x) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

export const stringFuncs: FuncMap = {
  hello: (...a) => {
    arity('hello', a, 0);
    return 'Hello!';
  },
  abbrev: is('abbrev', (w, s) => abbreviateFull(s, 0, Number(w))),
  abbrevboth: (...a) => {
    arity('abbrevboth', a, 3);
    return abbreviateFull(argString('abbrevboth', a[2], 2), Number(argInt('abbrevboth', a[0], 0)), Number(argInt('abbrevboth', a[1], 1)));
  },
  trunc: is('trunc', (c, s) => {
    const n = Number(c);
    const l = byteLen(s);
    if (n < 0 && l + n > 0) return byteSlice(s, l + n);
    if (n >= 0 && l > n) return byteSlice(s, 0, n);
    return s;
  }),
  trim: s1('trim', (s) => s.replace(/^\s+|\s+$/gu, '')),
  upper: s1('upper', (s) => s.toUpperCase()),
  lower: s1('lower', (s) => s.toLowerCase()),
  title: s1('title', title),
  untitle: s1('untitle', untitle),
  substr: (...a) => {
    arity('substr', a, 3);
    const start = Number(argInt('substr', a[0], 0));
    const end = Number(argInt('substr', a[1], 1));
    const s = argString('substr', a[2], 2);
    const l = byteLen(s);
    if (start < 0) return byteSlice(s, 0, end);
    if (end < 0 || end > l) return byteSlice(s, start);
    if (start > end) throw new FuncError(`runtime error: slice bounds out of range [${start}:${end}]`);
    return byteSlice(s, start, end);
  },
  repeat: is('repeat', (n, s) => {
    if (n < 0n) throw new FuncError('strings: negative Repeat count');
    if (BigInt(byteLen(s)) * n > 1n << 26n) throw new FuncError('strings: Repeat output length overflow (pkogen limit 64 MiB)');
    charge(s.length * Number(n));
    return s.repeat(Number(n));
  }),
  trimAll: s2('trimAll', (cut, s) => trimCutset(s, cut, true, true)),
  trimSuffix: s2('trimSuffix', (suf, s) => (suf && s.endsWith(suf) ? s.slice(0, s.length - suf.length) : s)),
  trimPrefix: s2('trimPrefix', (pre, s) => (pre && s.startsWith(pre) ? s.slice(pre.length) : s)),
  nospace: s1('nospace', (s) => s.replace(/\s/gu, '')),
  initials: s1('initials', initials),
  swapcase: s1('swapcase', swapcase),
  snakecase: s1('snakecase', (s) => words(s).map((w) => w.toLowerCase()).join('_')),
  kebabcase: s1('kebabcase', (s) => words(s).map((w) => w.toLowerCase()).join('-')),
  camelcase: s1('camelcase', (s) =>
    s
      .split('_')
      .map((p) => (p ? p[0].toUpperCase() + p.slice(1) : ''))
      .join(''),
  ),
  wrap: is('wrap', (w, s) => wrap(Number(w), s)),
  wrapWith: (...a) => {
    arity('wrapWith', a, 3);
    return wrap(Number(argInt('wrapWith', a[0], 0)), argString('wrapWith', a[2], 2), argString('wrapWith', a[1], 1));
  },
  contains: s2('contains', (sub, s) => s.includes(sub)),
  hasPrefix: s2('hasPrefix', (p, s) => s.startsWith(p)),
  hasSuffix: s2('hasSuffix', (p, s) => s.endsWith(p)),
  quote,
  squote: (...a) => a.filter((v) => v !== null).map((v) => `'${strval(v)}'`).join(' '),
  cat: (...a) => a.filter((v) => v !== null).map(strval).join(' '),
  indent: is('indent', (n, s) => {
    chargeIndent(n, s);
    const pad = ' '.repeat(Math.max(0, Number(n)));
    return pad + s.split('\n').join('\n' + pad);
  }),
  nindent: is('nindent', (n, s) => {
    chargeIndent(n, s);
    const pad = ' '.repeat(Math.max(0, Number(n)));
    return '\n' + pad + s.split('\n').join('\n' + pad);
  }),
  replace: (...a) => {
    arity('replace', a, 3);
    const [o, n, s] = a.map((v, i) => argString('replace', v, i));
    return goReplaceAll(s, o, n);
  },
  plural: (...a) => {
    arity('plural', a, 3);
    const one = argString('plural', a[0], 0);
    const many = argString('plural', a[1], 1);
    return argInt('plural', a[2], 2) === 1n ? one : many;
  },
  sha1sum: s1('sha1sum', (s) => nodeCrypto().createHash('sha1').update(s, 'utf8').digest('hex')),
  sha256sum: s1('sha256sum', (s) => nodeCrypto().createHash('sha256').update(s, 'utf8').digest('hex')),
  adler32sum: s1('adler32sum', (s) => String(adler32(Buffer.from(s, 'utf8')))),
  toString: (...a: GoValue[]) => {
    arity('toString', a, 1);
    return strval(a[0]);
  },
  toStrings: (...a) => {
    arity('toStrings', a, 1);
    return new GoTyped('[]string', strslice(a[0]));
  },
  split: s2('split', (sep, s) => {
    const parts = goSplit(s, sep, -1);
    const m: Record<string, GoValue> = {};
    parts.forEach((p, i) => (m[`_${i}`] = p));
    return new GoTyped('map[string]string', m);
  }),
  splitList: s2('splitList', (sep, s) => new GoTyped('[]string', goSplit(s, sep, -1))),
  splitn: (...a) => {
    arity('splitn', a, 3);
    const sep = argString('splitn', a[0], 0);
    const n = Number(argInt('splitn', a[1], 1));
    const s = argString('splitn', a[2], 2);
    const parts = goSplit(s, sep, n);
    const m: Record<string, GoValue> = {};
    parts.forEach((p, i) => (m[`_${i}`] = p));
    return new GoTyped('map[string]string', m);
  },
  join: (...a) => {
    arity('join', a, 2);
    const parts = strslice(a[1]);
    const sep = argString('join', a[0], 0);
    charge(parts.length * sep.length);
    return parts.join(sep);
  },
  sortAlpha: (...a) => {
    arity('sortAlpha', a, 1);
    const u = unwrap(a[0]);
    if (Array.isArray(u)) return new GoTyped('[]string', [...strslice(a[0])].sort(byteCompare));
    return new GoTyped('[]string', [strval(a[0])]);
  },
};

export function byteCompare(a: string, b: string): number {
  const ba = Buffer.from(a, 'utf8');
  const bb = Buffer.from(b, 'utf8');
  return Buffer.compare(ba, bb);
}

/** strings.Trim with a cutset (by runes). */
function trimCutset(s: string, cut: string, left: boolean, right: boolean): string {
  const set = new Set([...cut]);
  const chars = [...s];
  let i = 0;
  let j = chars.length;
  if (left) while (i < j && set.has(chars[i])) i++;
  if (right) while (j > i && set.has(chars[j - 1])) j--;
  return chars.slice(i, j).join('');
}

/** strings.ReplaceAll; an empty `old` inserts `new` around every rune, as Go does. */
/** The output size of indent/nindent (the pad once per line), counted before building it. */
function chargeIndent(n: bigint, s: string): void {
  if (n <= 0n) return;
  let lines = 1;
  for (let i = s.indexOf('\n'); i >= 0; i = s.indexOf('\n', i + 1)) lines++;
  // a bigint pad beyond the budget must not become Infinity*0 or wrap: cap before multiplying
  charge(s.length + Math.min(Number(n), Number.MAX_SAFE_INTEGER / 2 ** 20) * lines);
}

function goReplaceAll(s: string, o: string, n: string): string {
  // the output can be far larger than the input (every rune, or every match, gets `n`)
  charge(s.length + (o === '' ? s.length + 1 : Math.floor(s.length / o.length)) * n.length);
  if (o === '') {
    // an empty /u pattern matches at every code point boundary, like Go's per-rune insert;
    // natively, without an array of runes (slow and large for a long string)
    return s.replace(/(?:)/gu, n.replace(/\$/g, '$$$$'));
  }
  return s.split(o).join(n);
}

/** strings.SplitN (n < 0 = all); empty sep splits into runes. */
export function goSplit(s: string, sep: string, n: number): string[] {
  if (n === 0) return [];
  if (sep === '') {
    const chars = [...s];
    if (n < 0 || n >= chars.length) return chars;
    return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
  }
  const all = s.split(sep);
  if (n < 0 || all.length <= n) return all;
  return [...all.slice(0, n - 1), all.slice(n - 1).join(sep)];
}
void toInt64;
