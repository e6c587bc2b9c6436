import { childPath } from '../core/field-path.js';

/** ajv instancePath (/spec/containers/0/image) → spec.containers[0].image, given the data to tell indexes from keys. */
export function pointerToPath(pointer: string, data: unknown): string {
  if (pointer === '') return '';
  let out = '';
  let cur: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      out += `[${seg}]`;
      cur = cur[Number(seg)];
    } else {
      out = childPath(out, seg);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out;
}

/** Closest candidate to a misspelt field name (edit distance ≤ 1 per 3 characters, or same letters ignoring case). */
export function suggestField(name: string, candidates: Iterable<string>): string | undefined {
  const lower = name.toLowerCase();
  let best: string | undefined;
  let bestD = Math.max(1, Math.floor(name.length / 3)) + 1;
  for (const c of candidates) {
    if (c === name) continue;
    const d = c.toLowerCase() === lower ? 0 : distance(lower, c.toLowerCase());
    if (d < bestD) {
      best = c;
      bestD = d;
    }
  }
  return best;
}

/** Optimal-string-alignment distance (Levenshtein plus adjacent transpositions). */
function distance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 99;
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, d[i - 2]![j - 2]! + 1);
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/** `unknown field "x"`, with a did-you-mean when a declared field is close. */
export function unknownFieldMessage(name: string, declared: Iterable<string>): string {
  const s = suggestField(name, declared);
  return s === undefined ? `unknown field "${name}"` : `unknown field "${name}" (did you mean "${s}"?)`;
}
