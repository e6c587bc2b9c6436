/**
 * The one home for globs. Three upstream matchers decide what a pattern means in the places
 * pkogen checks, and each is reproduced here as a dialect of one compiler:
 * - `filepath`: Go's path/filepath.Match, as config-policy-controller applies namespace
 *   include/exclude: `*` and `?` within a segment, `[…]`/`[^…]` classes, `\` escapes, no braces.
 * - `doublestar`: bmatcuk/doublestar v1 PathMatch, PKO's `spec.filter.paths[].glob`: as
 *   filepath, plus `**` as a whole segment (any number of segments), `[!…]` and `{a,b}`.
 * - `gobwas`: gobwas/glob with separator `/`, PKO's template function getFileGlob: `**` anywhere
 *   is any run, `*` any run without `/`, `[!…]` classes, `{a,b}`.
 * A pattern is compiled once to a RegExp (cached); bad syntax throws GlobSyntaxError.
 */

export type GlobDialect = 'filepath' | 'doublestar' | 'gobwas';

export class GlobSyntaxError extends Error {}

const ESCAPE = /[.*+?^${}()|[\]\\/]/g;
const cache = new Map<string, RegExp>();
const CACHE_LIMIT = 1024;

/** Compiles `pattern` in `dialect` to an anchored RegExp (cached per dialect and pattern). */
export function globRegExp(pattern: string, dialect: GlobDialect): RegExp {
  const key = `${dialect}\0${pattern}`;
  let re = cache.get(key);
  if (!re) {
    re = new RegExp(`^${dialect === 'doublestar' ? doublestarSource(pattern) : segmentSource(pattern, dialect)}$`, 's');
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(key, re);
  }
  return re;
}

/** True when `path` matches `pattern`; throws GlobSyntaxError for a malformed pattern. */
export function globMatches(pattern: string, path: string, dialect: GlobDialect): boolean {
  return globRegExp(pattern, dialect).test(path);
}

function doublestarSource(pattern: string): string {
  const segs = pattern.split('/');
  let src = '';
  segs.forEach((s, i) => {
    const last = i === segs.length - 1;
    if (s === '**') src += last ? '.*' : '(?:[^/]*/)*';
    else src += segmentSource(s, 'doublestar') + (last ? '' : '/');
  });
  return src;
}

/** The part of a pattern between separators (doublestar) or a whole pattern (filepath, gobwas). */
function segmentSource(p: string, dialect: GlobDialect): string {
  const braces = dialect !== 'filepath';
  let re = '';
  let depth = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\') {
      if (i + 1 >= p.length) {
        if (dialect === 'filepath') { re += '\\\\'; continue; }
        throw new GlobSyntaxError('syntax error in pattern');
      }
      re += p[++i]!.replace(ESCAPE, '\\$&');
    } else if (c === '*') {
      if (dialect === 'gobwas' && p[i + 1] === '*') {
        re += '.*';
        i++;
      } else re += '[^/]*';
    } else if (c === '?') re += '[^/]';
    else if (c === '[') {
      // doublestar lets `]` be the class's first member; the others end the class at the first `]`.
      const close = p.indexOf(']', dialect === 'doublestar' ? i + 2 : i + 1);
      if (close < 0) throw new GlobSyntaxError('syntax error in pattern');
      let body = p.slice(i + 1, close);
      let neg = false;
      if ((body[0] === '!' && dialect !== 'filepath') || (body[0] === '^' && dialect !== 'gobwas')) {
        neg = true;
        body = body.slice(1);
      }
      re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close;
    } else if (c === '{' && braces) {
      depth++;
      re += '(?:';
    } else if (c === '}' && braces && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && braces && depth > 0) re += '|';
    else re += c.replace(ESCAPE, '\\$&');
  }
  if (depth) throw new GlobSyntaxError('syntax error in pattern');
  return re;
}
