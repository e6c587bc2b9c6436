/**
 * PKO's template function set: the sprig v3.3.0 allow-list of internal/transform (every other
 * sprig function is unknown, i.e. a parse error) plus PKO's own functions.
 */
import type { FuncMap, GoValue } from '../types.js';
import { collectionFuncs } from './collections.js';
import { mathFuncs } from './math.js';
import { miscFuncs } from './misc.js';
import { pkoFuncs, type PkoFuncOptions } from './pko.js';
import { regexFuncs } from './regex.js';
import { semverFuncs } from './semver.js';
import { stringFuncs } from './strings.js';
import { arity, argString } from './value.js';
import { withSignatures } from './signatures.js';

/** PKO's allow-list (internal/transform/transformfiles_funcs.go allowedFuncNames), verbatim. */
export const SPRIG_ALLOWED: readonly string[] = [
  'hello',
  'abbrev', 'abbrevboth', 'trunc', 'trim', 'upper', 'lower', 'title', 'untitle', 'substr', 'repeat', 'trimAll',
  'trimSuffix', 'trimPrefix', 'nospace', 'initials', 'swapcase', 'shuffle', 'snakecase', 'camelcase', 'kebabcase',
  'wrap', 'wrapWith', 'contains', 'hasPrefix', 'hasSuffix', 'quote', 'squote', 'cat', 'indent', 'nindent', 'replace',
  'plural', 'sha1sum', 'sha256sum', 'adler32sum', 'toString',
  'atoi', 'int64', 'int', 'float64', 'seq', 'toDecimal',
  'split', 'splitList', 'splitn', 'toStrings',
  'until', 'untilStep',
  'add1', 'add', 'sub', 'div', 'mod', 'mul', 'add1f', 'addf', 'subf', 'divf', 'mulf', 'biggest', 'max', 'min', 'maxf',
  'minf', 'ceil', 'floor', 'round',
  'join', 'sortAlpha',
  'default', 'empty', 'coalesce', 'all', 'any', 'compact', 'mustCompact', 'fromJson', 'toJson', 'toPrettyJson',
  'toRawJson', 'mustFromJson', 'mustToJson', 'mustToPrettyJson', 'mustToRawJson', 'ternary', 'deepCopy', 'mustDeepCopy',
  'typeOf', 'typeIs', 'typeIsLike', 'kindOf', 'kindIs', 'deepEqual',
  'base', 'dir', 'clean', 'ext', 'isAbs',
  'b64enc', 'b64dec', 'b32enc', 'b32dec',
  'tuple', 'list', 'dict', 'get', 'set', 'unset', 'hasKey', 'pluck', 'keys', 'pick', 'omit', 'merge', 'mergeOverwrite',
  'mustMerge', 'mustMergeOverwrite', 'values', 'append', 'mustAppend', 'push', 'mustPush', 'prepend', 'mustPrepend',
  'first', 'mustFirst', 'rest', 'mustRest', 'last', 'mustLast', 'initial', 'mustInitial', 'reverse', 'mustReverse',
  'uniq', 'mustUniq', 'without', 'mustWithout', 'has', 'mustHas', 'slice', 'mustSlice', 'concat', 'dig', 'chunk',
  'mustChunk',
  'semver', 'semverCompare',
  'fail',
  'regexMatch', 'mustRegexMatch', 'regexFindAll', 'mustRegexFindAll', 'regexFind', 'mustRegexFind', 'regexReplaceAll',
  'mustRegexReplaceAll', 'regexReplaceAllLiteral', 'mustRegexReplaceAllLiteral', 'regexSplit', 'mustRegexSplit',
  'regexQuoteMeta',
  'urlParse', 'urlJoin',
];

/**
 * sprig's shuffle is random (math/rand); pkogen must be deterministic, so it permutes with a
 * fixed seed derived from the input. Documented deviation.
 */
function shuffle(...a: GoValue[]): GoValue {
  arity('shuffle', a, 1);
  const chars = [...argString('shuffle', a[0], 0)];
  let seed = 0x9e3779b9;
  for (const c of chars) seed = (Math.imul(seed ^ c.codePointAt(0)!, 0x85ebca6b) >>> 0) || 1;
  for (let i = chars.length - 1; i > 0; i--) {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    const j = seed % (i + 1);
    [chars[i], chars[j]] = [chars[j], chars[i]];
  }
  return chars.join('');
}

const ALL_SPRIG: FuncMap = { ...stringFuncs, ...mathFuncs, ...collectionFuncs, ...miscFuncs, ...regexFuncs, ...semverFuncs, shuffle };

let sprigCache: FuncMap | undefined;

/** The allow-listed sprig functions (no PKO extras), with Go signatures. Stateless, so shared. */
export function sprigFuncs(): FuncMap {
  if (sprigCache) return sprigCache;
  const out: FuncMap = {};
  for (const name of SPRIG_ALLOWED) {
    const f = ALL_SPRIG[name];
    if (!f) throw new Error(`internal: sprig function ${name} missing`);
    out[name] = f;
  }
  sprigCache = withSignatures(out);
  return sprigCache;
}

/** Everything a PKO template can call besides text/template's builtins. */
export function pkoFuncMap(opts: PkoFuncOptions): FuncMap {
  return { ...sprigFuncs(), ...withSignatures(pkoFuncs(opts)) };
}

export type { PkoFuncOptions } from './pko.js';
