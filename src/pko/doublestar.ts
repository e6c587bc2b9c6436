/**
 * bmatcuk/doublestar v1 PathMatch (PKO's `spec.filter.paths[].glob`): `*` any run within a
 * segment, `**` as a whole segment any number of segments, `?`, `[…]`/`[^…]`/`[!…]`, `{a,b}`, `\` escapes.
 */
const cache = new Map<string, RegExp>();

export class GlobSyntaxError extends Error {}

function segmentToRe(seg: string): string {
  let re = '';
  let depth = 0;
  for (let i = 0; i < seg.length; i++) {
    const c = seg[i];
    if (c === '\\') {
      if (i + 1 >= seg.length) throw new GlobSyntaxError('syntax error in pattern');
      re += seg[++i].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else if (c === '[') {
      const close = seg.indexOf(']', i + 2);
      if (close < 0) throw new GlobSyntaxError('syntax error in pattern');
      let body = seg.slice(i + 1, close);
      let neg = '';
      if (body[0] === '^' || body[0] === '!') {
        neg = '^';
        body = body.slice(1);
      }
      re += `[${neg}${body.replace(/\\/g, '\\\\').replace(/\]/g, '\\]')}]`;
      i = close;
    } else if (c === '{') {
      depth++;
      re += '(?:';
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
    } else if (c === ',' && depth > 0) re += '|';
    else re += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  if (depth) throw new GlobSyntaxError('syntax error in pattern');
  return re;
}

export function doublestarMatch(pattern: string, path: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    const segs = pattern.split('/');
    let src = '';
    segs.forEach((s, i) => {
      const last = i === segs.length - 1;
      if (s === '**') src += last ? '.*' : '(?:[^/]*/)*';
      else src += segmentToRe(s) + (last ? '' : '/');
    });
    re = new RegExp(`^${src}$`, 's');
    cache.set(pattern, re);
  }
  return re.test(path);
}
