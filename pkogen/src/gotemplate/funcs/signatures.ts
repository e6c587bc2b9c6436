/**
 * Go signatures of sprig v3.3.0 and PKO functions. text/template checks arity and converts
 * arguments by these types before calling (so `trunc "5" .x` fails with Go's
 * `wrong type for value; expected int; got string`, and `indent 2` gets an int); the engine
 * reads them from each function's `goSignature`.
 */
import type { FuncSignature } from '../builtins.js';
import type { FuncMap } from '../types.js';

const I = 'interface {}';
const S = 'string';
const N = 'int';
const M = 'map[string]interface {}';

const fixed = (...params: string[]): FuncSignature => ({ params });
const vari = (...params: string[]): FuncSignature => ({ params, variadic: true });

const s1 = fixed(S);
const s2 = fixed(S, S);
const i1 = fixed(I);
const iv = vari(I);
const ivv = vari(I, I);

export const SIGNATURES: Record<string, FuncSignature> = {
  hello: fixed(),
  abbrev: fixed(N, S), abbrevboth: fixed(N, N, S), trunc: fixed(N, S),
  trim: s1, upper: s1, lower: s1, title: s1, untitle: s1, substr: fixed(N, N, S), repeat: fixed(N, S),
  trimAll: s2, trimSuffix: s2, trimPrefix: s2, nospace: s1, initials: s1, swapcase: s1, shuffle: s1,
  snakecase: s1, camelcase: s1, kebabcase: s1, wrap: fixed(N, S), wrapWith: fixed(N, S, S),
  contains: s2, hasPrefix: s2, hasSuffix: s2, quote: iv, squote: iv, cat: iv, indent: fixed(N, S), nindent: fixed(N, S),
  replace: fixed(S, S, S), plural: fixed(S, S, N), sha1sum: s1, sha256sum: s1, adler32sum: s1, toString: i1,
  atoi: s1, int64: i1, int: i1, float64: i1, seq: vari(N), toDecimal: i1,
  split: s2, splitList: s2, splitn: fixed(S, N, S), toStrings: i1,
  until: fixed(N), untilStep: fixed(N, N, N),
  add1: i1, add: iv, sub: fixed(I, I), div: fixed(I, I), mod: fixed(I, I), mul: ivv,
  add1f: i1, addf: iv, subf: ivv, divf: ivv, mulf: ivv,
  biggest: ivv, max: ivv, min: ivv, maxf: ivv, minf: ivv, ceil: i1, floor: i1, round: vari(I, N, 'float64'),
  join: fixed(S, I), sortAlpha: i1,
  default: ivv, empty: i1, coalesce: iv, all: iv, any: iv, compact: i1, mustCompact: i1,
  fromJson: s1, toJson: i1, toPrettyJson: i1, toRawJson: i1, mustFromJson: s1, mustToJson: i1, mustToPrettyJson: i1,
  mustToRawJson: i1, ternary: fixed(I, I, 'bool'), deepCopy: i1, mustDeepCopy: i1,
  typeOf: i1, typeIs: fixed(S, I), typeIsLike: fixed(S, I), kindOf: i1, kindIs: fixed(S, I), deepEqual: fixed(I, I),
  base: s1, dir: s1, clean: s1, ext: s1, isAbs: s1,
  b64enc: s1, b64dec: s1, b32enc: s1, b32dec: s1,
  tuple: iv, list: iv, dict: iv, get: fixed(M, S), set: fixed(M, S, I), unset: fixed(M, S), hasKey: fixed(M, S),
  pluck: vari(S, M), keys: vari(M), pick: vari(M, S), omit: vari(M, S), merge: vari(M, I), mergeOverwrite: vari(M, I),
  mustMerge: vari(M, I), mustMergeOverwrite: vari(M, I), values: fixed(M),
  append: fixed(I, I), mustAppend: fixed(I, I), push: fixed(I, I), mustPush: fixed(I, I), prepend: fixed(I, I), mustPrepend: fixed(I, I),
  first: i1, mustFirst: i1, rest: i1, mustRest: i1, last: i1, mustLast: i1, initial: i1, mustInitial: i1,
  reverse: i1, mustReverse: i1, uniq: i1, mustUniq: i1, without: ivv, mustWithout: ivv, has: fixed(I, I), mustHas: fixed(I, I),
  slice: ivv, mustSlice: ivv, concat: iv, dig: iv, chunk: fixed(N, I), mustChunk: fixed(N, I),
  semver: s1, semverCompare: s2,
  fail: s1,
  regexMatch: s2, mustRegexMatch: s2, regexFindAll: fixed(S, S, N), mustRegexFindAll: fixed(S, S, N), regexFind: s2,
  mustRegexFind: s2, regexReplaceAll: fixed(S, S, S), mustRegexReplaceAll: fixed(S, S, S), regexReplaceAllLiteral: fixed(S, S, S),
  mustRegexReplaceAllLiteral: fixed(S, S, S), regexSplit: fixed(S, S, N), mustRegexSplit: fixed(S, S, N), regexQuoteMeta: s1,
  urlParse: s1, urlJoin: fixed(M),
  // PKO
  include: fixed(S, I), b64decMap: fixed(M), toYAML: i1, fromYAML: s1, getFile: s1, getFileGlob: s1, cel: s1,
};

/** Returns copies of the functions carrying their Go signatures (the originals stay untouched). */
export function withSignatures(funcs: FuncMap): FuncMap {
  const out: FuncMap = {};
  for (const [name, f] of Object.entries(funcs)) {
    const g = (...a: Parameters<typeof f>) => f(...a);
    const sig = SIGNATURES[name];
    if (sig) Object.defineProperty(g, 'goSignature', { value: sig });
    out[name] = g;
  }
  return out;
}
