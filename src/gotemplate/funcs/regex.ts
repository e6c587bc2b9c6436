/**
 * sprig's regex functions on JS RegExp, translating Go RE2 syntax where it differs:
 * `(?P<n>…)` → `(?<n>…)`, leading `(?i)`/`(?s)`/`(?m)` flag groups → JS flags, `\A` → `^`,
 * `\z` → `$` (without m), POSIX classes `[[:alpha:]]` → explicit ranges. RE2 has no
 * backreferences or lookaround: patterns using them are rejected like Go does.
 * Not translated (documented limits): flag groups in the middle of a pattern, `\Q…\E`, `\C`.
 */
import { GoTyped, type FuncMap, type GoValue } from '../types.js';
import { argInt, argString, arity, FuncError } from './value.js';

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F', digit: '0-9',
  graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-/:-@[-`{-~', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z',
  word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

const cache = new Map<string, RegExp>();

export function compileGoRegex(pattern: string, global = false): RegExp {
  const key = (global ? 'g' : '-') + pattern;
  const hit = cache.get(key);
  if (hit) {
    hit.lastIndex = 0;
    return hit;
  }
  let src = pattern;
  let flags = '';
  const lead = /^\(\?([imsU]+)\)/.exec(src);
  if (lead) {
    if (lead[1].includes('U')) throw new FuncError(`error parsing regexp: pkogen does not support the U (ungreedy) flag: \`${pattern}\``);
    flags += lead[1].replace(/U/g, '');
    src = src.slice(lead[0].length);
  }
  if (/\\[1-9]/.test(src.replace(/\\\\/g, ''))) throw new FuncError(`error parsing regexp: invalid escape sequence: \`${/\\[1-9]/.exec(src)![0]}\``);
  if (/\(\?[=!<][^P]/.test(src) || /\(\?<[=!]/.test(src)) throw new FuncError(`error parsing regexp: invalid or unsupported Perl syntax: \`${/\(\?[=!<]{1,2}/.exec(src)![0]}\``);
  src = src
    .replace(/\(\?P<([A-Za-z_][A-Za-z0-9_]*)>/g, '(?<$1>')
    .replace(/\\A/g, '^')
    .replace(/\\z/g, '(?![\\s\\S])')
    .replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => {
      const r = POSIX[name];
      if (!r) throw new FuncError(`error parsing regexp: invalid character class range: \`${m}\``);
      if (neg) throw new FuncError(`error parsing regexp: pkogen does not support negated POSIX classes: \`${m}\``);
      return r;
    });
  let re: RegExp;
  try {
    re = new RegExp(src, flags + 'u' + (global ? 'g' : ''));
  } catch {
    try {
      re = new RegExp(src, flags + (global ? 'g' : ''));
    } catch (e) {
      throw new FuncError(`error parsing regexp: ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`);
    }
  }
  if (cache.size > 500) cache.clear();
  cache.set(key, re);
  return re;
}

/** Go's Regexp.Expand template: `$1`, `${1}`, `$name`, `${name}`, `$$`; names are greedy (`$1x` = group "1x"). */
function expand(template: string, m: RegExpExecArray): string {
  let out = '';
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c !== '$' || i + 1 >= template.length) {
      out += c;
      continue;
    }
    if (template[i + 1] === '$') {
      out += '$';
      i++;
      continue;
    }
    let name: string;
    let end: number;
    if (template[i + 1] === '{') {
      const close = template.indexOf('}', i + 2);
      const n = close < 0 ? '' : template.slice(i + 2, close);
      if (close < 0 || !/^[A-Za-z0-9_]+$/.test(n)) {
        out += c;
        continue;
      }
      name = n;
      end = close;
    } else {
      const mm = /^[A-Za-z0-9_]+/.exec(template.slice(i + 1));
      if (!mm) {
        out += c;
        continue;
      }
      name = mm[0];
      end = i + mm[0].length;
    }
    if (/^\d+$/.test(name)) {
      const n = Number(name);
      out += n < m.length ? (m[n] ?? '') : '';
    } else out += m.groups?.[name] ?? '';
    i = end;
  }
  return out;
}

function replaceAll(re: RegExp, s: string, f: (m: RegExpExecArray) => string): string {
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  let prevEnd = -1;
  while ((m = re.exec(s)) !== null) {
    if (m[0] === '' && m.index === prevEnd) {
      // Go skips an empty match right after the previous match
      re.lastIndex++;
      continue;
    }
    out += s.slice(last, m.index) + f(m);
    last = m.index + m[0].length;
    prevEnd = last;
    if (m[0] === '') re.lastIndex++;
    if (re.lastIndex > s.length) break;
  }
  return out + s.slice(last);
}

function findAll(re: RegExp, s: string, n: number): string[] {
  const out: string[] = [];
  if (n === 0) return out;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  let prevEnd = -1;
  while ((m = re.exec(s)) !== null) {
    if (m[0] === '') {
      re.lastIndex++;
      if (m.index === prevEnd) continue;
    }
    out.push(m[0]);
    prevEnd = m.index + m[0].length;
    if (n > 0 && out.length >= n) break;
    if (re.lastIndex > s.length) break;
  }
  return out;
}

function split(re: RegExp, s: string, n: number): string[] {
  // regexp.Split
  if (n === 0) return [];
  if (re.source === '(?:)' && s.length > 0 === false) return [''];
  const matches: [number, number][] = [];
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  let prevEnd = -1;
  while ((m = re.exec(s)) !== null) {
    if (m[0] === '') {
      re.lastIndex++;
      if (m.index === prevEnd) continue;
    }
    matches.push([m.index, m.index + m[0].length]);
    prevEnd = m.index + m[0].length;
    if (re.lastIndex > s.length) break;
  }
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const [a, b] of matches) {
    if (n > 0 && out.length === n - 1) break;
    end = a;
    if (b === 0) continue;
    out.push(s.slice(beg, end));
    beg = b;
  }
  if (end !== s.length) out.push(s.slice(beg));
  else if (beg <= s.length) out.push(s.slice(beg));
  return out;
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
  ...def('regexMatch', 2, (a) => compileGoRegex(argString('regexMatch', a[0], 0)).test(argString('regexMatch', a[1], 1))),
  ...def('regexFindAll', 3, (a) =>
    new GoTyped('[]string', findAll(compileGoRegex(argString('regexFindAll', a[0], 0), true), argString('regexFindAll', a[1], 1), Number(argInt('regexFindAll', a[2], 2)))),
  ),
  ...def('regexFind', 2, (a) => {
    const m = compileGoRegex(argString('regexFind', a[0], 0)).exec(argString('regexFind', a[1], 1));
    return m ? m[0] : '';
  }),
  ...def('regexReplaceAll', 3, (a) =>
    replaceAll(compileGoRegex(argString('regexReplaceAll', a[0], 0), true), argString('regexReplaceAll', a[1], 1), (m) => expand(argString('regexReplaceAll', a[2], 2), m)),
  ),
  ...def('regexReplaceAllLiteral', 3, (a) =>
    replaceAll(compileGoRegex(argString('regexReplaceAllLiteral', a[0], 0), true), argString('regexReplaceAllLiteral', a[1], 1), () => argString('regexReplaceAllLiteral', a[2], 2)),
  ),
  ...def('regexSplit', 3, (a) =>
    new GoTyped('[]string', split(compileGoRegex(argString('regexSplit', a[0], 0), true), argString('regexSplit', a[1], 1), Number(argInt('regexSplit', a[2], 2)))),
  ),
  ['regexQuoteMeta', (...a: GoValue[]) => {
    arity('regexQuoteMeta', a, 1);
    return argString('regexQuoteMeta', a[0], 0).replace(/[\\.+*?()|[\]{}^$]/g, '\\$&');
  }],
]);
