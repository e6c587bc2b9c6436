/**
 * sprig's regex functions with Go's regexp semantics, on re2js (a port of Go's RE2 engine):
 * Go's syntax as Go parses it (`(?i)`, `(?P<name>…)`, `\pL`, `[[:alpha:]]`, `\Q…\E`, `(?U)`,
 * no backreferences or lookaround), Go's error texts, and linear-time matching, so a pattern like
 * `^(a+)+$` cannot hang a render as JavaScript's backtracking RegExp did. Match iteration
 * (FindAll, ReplaceAll, Split) and `$name` expansion follow Go's regexp.go; positions are UTF-16
 * indexes here and bytes in Go, which select the same substrings.
 */
import { createRequire } from 'node:module';
import type { RE2JS } from 're2js';
import { charge } from '../budget.js';
import { GoTyped, type FuncMap, type GoValue } from '../types.js';
import { isDigit, isLetter } from '../unicode.js';
import { argInt, argString, arity, FuncError } from './value.js';

interface GoRegexp {
  re: RE2JS;
  /** Capture group names by index (Go's SubexpNames; '' for unnamed). */
  names: string[];
}

const cache = new Map<string, GoRegexp>();

// re2js (260 KB, one CommonJS file) loads with the first regex a template uses, not with the engine:
// most renders (and `pkogen build`) never call a regex function.
type Re2Lib = typeof import('re2js');
let re2: Re2Lib | undefined;
const re2js = (): Re2Lib => (re2 ??= createRequire(import.meta.url)('re2js') as Re2Lib);

/** regexp.Compile: Go's syntax and error messages ("error parsing regexp: …"). */
export function compileGoRegex(pattern: string): GoRegexp {
  const hit = cache.get(pattern);
  if (hit) return hit;
  let re: RE2JS;
  try {
    re = re2js().RE2JS.compile(pattern);
  } catch (e) {
    if (e instanceof re2js().RE2JSException) throw new FuncError(e.message);
    throw e;
  }
  const names: string[] = new Array(re.groupCount() + 1).fill('');
  for (const [name, i] of Object.entries(re.namedGroups())) names[i] = name;
  const g = { re, names };
  if (cache.size > 500) cache.clear();
  cache.set(pattern, g);
  return g;
}

/** FindAllStringSubmatchIndex(s, n): flat [start, end, g1start, g1end, …] per match, -1 for unset groups. */
function allMatches(g: GoRegexp, s: string, n: number): number[][] {
  if (n === 0) return [];
  return (g.re.re2().findAllSubmatchIndex(s, n < 0 ? -1 : n) as number[][] | null) ?? [];
}

/** Go's Regexp.expand: `$1`, `${1}`, `$name`, `${name}`, `$$`; names are as long as possible (`$1x` is `${1x}`). */
function expand(g: GoRegexp, template: string, src: string, m: number[]): string {
  let out = '';
  let t = template;
  for (;;) {
    const d = t.indexOf('$');
    if (d < 0) break;
    out += t.slice(0, d);
    t = t.slice(d + 1);
    if (t[0] === '$') {
      out += '$';
      t = t.slice(1);
      continue;
    }
    const x = extractName(t);
    if (!x) {
      out += '$';
      continue;
    }
    t = x.rest;
    let i = x.num;
    if (i < 0) i = g.names.indexOf(x.name);
    if (i >= 0 && 2 * i + 1 < m.length && m[2 * i] >= 0) out += src.slice(m[2 * i], m[2 * i + 1]);
  }
  return out + t;
}

/** Go's extract: a name of letters, digits and `_`, optionally in braces; a number unless it has a leading zero. */
function extractName(str: string): { name: string; num: number; rest: string } | null {
  let s = str;
  const brace = s[0] === '{';
  if (brace) s = s.slice(1);
  let i = 0;
  for (const ch of s) {
    if (ch !== '_' && !isLetter(ch) && !isDigit(ch)) break;
    i += ch.length;
  }
  if (i === 0) return null;
  const name = s.slice(0, i);
  if (brace) {
    if (s[i] !== '}') return null;
    i++;
  }
  let num = 0;
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c < 48 || c > 57 || num >= 1e8) {
      num = -1;
      break;
    }
    num = num * 10 + (c - 48);
  }
  if (name[0] === '0' && name.length > 1) num = -1;
  return { name, num, rest: s.slice(i) };
}

/**
 * Go's replaceAll: the accepted matches are exactly FindAll's (an empty match right after a
 * match is skipped), so this walks those.
 */
function replaceAll(g: GoRegexp, src: string, repl: (m: number[]) => string): string {
  let out = '';
  let last = 0;
  for (const m of allMatches(g, src, -1)) {
    const r = repl(m);
    // every match can add the whole replacement: count it as it grows
    charge(m[0] - last + r.length);
    out += src.slice(last, m[0]) + r;
    last = m[1];
  }
  return out + src.slice(last);
}

/** regexp.Split. */
function split(g: GoRegexp, s: string, n: number): string[] {
  if (n === 0) return [];
  if (g.re.pattern().length > 0 && s.length === 0) return [''];
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of allMatches(g, s, n)) {
    if (n > 0 && out.length === n - 1) break;
    end = m[0];
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1];
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

/** regexp.QuoteMeta: escapes exactly `\.+*?()|[]{}^$`. */
export function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
}

/** An int argument as a JS number; beyond ±2^53 only the sign matters to FindAll and Split. */
function intArg(fn: string, v: GoValue, i: number): number {
  const n = argInt(fn, v, i);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : n < -1n ? -1 : Number(n);
}

const sArgs = (fn: string, a: GoValue[], n: number) => {
  arity(fn, a, n);
  return a;
};

function def(fn: string, n: number, impl: (a: GoValue[]) => GoValue): [string, (...a: GoValue[]) => GoValue][] {
  const f = (...a: GoValue[]) => impl(sArgs(fn, a, n));
  const must = 'must' + fn[0].toUpperCase() + fn.slice(1);
  const fm = (...a: GoValue[]) => impl(sArgs(must, a, n));
  return [
    [fn, f],
    [must, fm],
  ];
}

export const regexFuncs: FuncMap = Object.fromEntries([
  ...def('regexMatch', 2, (a) => compileGoRegex(argString('regexMatch', a[0], 0)).re.test(argString('regexMatch', a[1], 1))),
  ...def('regexFindAll', 3, (a) => {
    const s = argString('regexFindAll', a[1], 1);
    const ms = allMatches(compileGoRegex(argString('regexFindAll', a[0], 0)), s, intArg('regexFindAll', a[2], 2));
    return new GoTyped('[]string', ms.map((m) => s.slice(m[0], m[1])));
  }),
  ...def('regexFind', 2, (a) => {
    const s = argString('regexFind', a[1], 1);
    const m = allMatches(compileGoRegex(argString('regexFind', a[0], 0)), s, 1)[0];
    return m ? s.slice(m[0], m[1]) : '';
  }),
  ...def('regexReplaceAll', 3, (a) => {
    const g = compileGoRegex(argString('regexReplaceAll', a[0], 0));
    const s = argString('regexReplaceAll', a[1], 1);
    const repl = argString('regexReplaceAll', a[2], 2);
    return replaceAll(g, s, (m) => expand(g, repl, s, m));
  }),
  ...def('regexReplaceAllLiteral', 3, (a) => {
    const repl = argString('regexReplaceAllLiteral', a[2], 2);
    return replaceAll(compileGoRegex(argString('regexReplaceAllLiteral', a[0], 0)), argString('regexReplaceAllLiteral', a[1], 1), () => repl);
  }),
  ...def('regexSplit', 3, (a) =>
    new GoTyped('[]string', split(compileGoRegex(argString('regexSplit', a[0], 0)), argString('regexSplit', a[1], 1), intArg('regexSplit', a[2], 2))),
  ),
  ['regexQuoteMeta', (...a: GoValue[]) => {
    arity('regexQuoteMeta', a, 1);
    return quoteMeta(argString('regexQuoteMeta', a[0], 0));
  }],
]);
