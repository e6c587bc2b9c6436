/** Field paths as users read them: `spec.phases[0].name`, `metadata.annotations["a.b/c"]`. */
import { lineOf, type LocatedText } from '../yaml/positions.js';

export function childPath(base: string, key: string): string {
  if (/^[A-Za-z_][A-Za-z0-9_-]*$/.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

export function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** Splits a path made by childPath/indexPath back into segments (strings and numbers). */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  const re = /([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]|\./gy;
  let m: RegExpExecArray | null;
  re.lastIndex = 0;
  while (re.lastIndex < path.length && (m = re.exec(path)) !== null) {
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else if (m[3] !== undefined) out.push(JSON.parse(m[3]) as string);
  }
  return out;
}

/** 1-based line of a field path (as made above) in a located YAML text, or of its nearest ancestor. */
export function lineOfField(t: LocatedText, path: string): number | undefined {
  return lineOf(t, parsePath(path));
}
