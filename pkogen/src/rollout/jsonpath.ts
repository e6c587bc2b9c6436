/**
 * The JSONPath subset PKO ObjectTemplate sources use: `key` reads from the source object
 * (`.data['service-ca\.crt']`, `.data.foo`, `{.spec.x}`), `destination` writes under `.config`
 * (`.serviceca`, `.a.b`). Dots inside a bracketed key may be escaped with a backslash.
 */

function segments(expr: string): string[] {
  let s = expr.trim();
  if (s.startsWith('{') && s.endsWith('}')) s = s.slice(1, -1).trim();
  if (s.startsWith('$')) s = s.slice(1);
  if (!s.startsWith('.') && !s.startsWith('[')) throw new Error(`JSONPath ${JSON.stringify(expr)} must start with "."`);
  const out: string[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === '.') {
      let j = i + 1;
      let seg = '';
      while (j < s.length && s[j] !== '.' && s[j] !== '[') {
        if (s[j] === '\\' && j + 1 < s.length) j++;
        seg += s[j++];
      }
      if (seg === '') throw new Error(`empty segment in JSONPath ${JSON.stringify(expr)}`);
      out.push(seg);
      i = j;
    } else if (s[i] === '[') {
      const q = s[i + 1];
      if (q !== "'" && q !== '"') throw new Error(`unsupported JSONPath selector in ${JSON.stringify(expr)}`);
      let j = i + 2;
      let seg = '';
      while (j < s.length && s[j] !== q) {
        if (s[j] === '\\' && j + 1 < s.length) j++;
        seg += s[j++];
      }
      if (s[j + 1] !== ']') throw new Error(`unterminated [ in JSONPath ${JSON.stringify(expr)}`);
      out.push(seg);
      i = j + 2;
    } else throw new Error(`unexpected ${JSON.stringify(s[i])} in JSONPath ${JSON.stringify(expr)}`);
  }
  return out;
}

export function getJsonPath(obj: unknown, expr: string): unknown {
  let cur: unknown = obj;
  for (const seg of segments(expr)) {
    if (typeof cur !== 'object' || cur === null || Array.isArray(cur)) return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

export function setJsonPath(target: Record<string, unknown>, expr: string, value: unknown): void {
  const segs = segments(expr);
  let cur = target;
  segs.forEach((seg, i) => {
    if (i === segs.length - 1) cur[seg] = value;
    else {
      const next = cur[seg];
      if (typeof next !== 'object' || next === null || Array.isArray(next)) cur[seg] = {};
      cur = cur[seg] as Record<string, unknown>;
    }
  });
}
