/**
 * gobwas/glob with separator `/` (PKO's getFileGlob): `*` any run without `/`, `**` any run,
 * `?` one non-separator char, `[abc]`/`[!abc]`/`[a-z]` classes, `{a,b}` alternatives, `\` escapes.
 */
import { FuncError } from './value.js';

export function compileGobwasGlob(pattern: string): (path: string) => boolean {
  let re = '';
  let i = 0;
  let depth = 0;
  while (i < pattern.length) {
    const c = pattern[i];
    if (c === '\\') {
      if (i + 1 >= pattern.length) throw new FuncError('unexpected end of input');
      re += escapeRe(pattern[i + 1]);
      i += 2;
      continue;
    }
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        i += 2;
      } else {
        re += '[^/]*';
        i++;
      }
      continue;
    }
    if (c === '?') {
      re += '[^/]';
      i++;
      continue;
    }
    if (c === '[') {
      const close = pattern.indexOf(']', i + 1);
      if (close < 0) throw new FuncError('unexpected end of input');
      let body = pattern.slice(i + 1, close);
      const neg = body.startsWith('!');
      if (neg) body = body.slice(1);
      re += `[${neg ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = close + 1;
      continue;
    }
    if (c === '{') {
      depth++;
      re += '(?:';
      i++;
      continue;
    }
    if (c === '}' && depth > 0) {
      depth--;
      re += ')';
      i++;
      continue;
    }
    if (c === ',' && depth > 0) {
      re += '|';
      i++;
      continue;
    }
    re += escapeRe(c);
    i++;
  }
  if (depth !== 0) throw new FuncError('unexpected end of input');
  const rx = new RegExp(`^${re}$`, 's');
  return (p) => rx.test(p);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}
