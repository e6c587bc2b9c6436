/**
 * The one field-path notation every finding uses, as users read it:
 * `spec.template.spec.containers[0].image`, `metadata.annotations["a.b/c"]`. A key that is not
 * a plain word (letter or `_`, then letters, digits, `_`, `-`) is a JSON string in brackets.
 */
export type FieldPath = readonly (string | number)[];

const SIMPLE_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** Appends a field name or map key. */
export function childPath(base: string, key: string): string {
  if (SIMPLE_KEY.test(key)) return base ? `${base}.${key}` : key;
  return `${base}[${JSON.stringify(key)}]`;
}

/** Appends a list index. */
export function indexPath(base: string, i: number): string {
  return `${base}[${i}]`;
}

/** Segments (keys as strings, indexes as numbers) → path text. */
export function formatPath(segments: FieldPath): string {
  let out = '';
  for (const s of segments) out = typeof s === 'number' ? indexPath(out, s) : childPath(out, s);
  return out;
}

/**
 * Path text back to segments: the inverse of formatPath, tolerant of bare keys that formatPath
 * would have quoted (`a.$ref`), e.g. for finding the YAML node a finding's line is on.
 */
export function parsePath(path: string): (string | number)[] {
  const out: (string | number)[] = [];
  let i = 0;
  while (i < path.length) {
    if (path[i] === '.') {
      i++;
      continue;
    }
    if (path[i] === '[') {
      if (path[i + 1] === '"') {
        let j = i + 2;
        while (j < path.length && path[j] !== '"') j += path[j] === '\\' ? 2 : 1;
        try {
          out.push(JSON.parse(path.slice(i + 1, j + 1)) as string);
        } catch {
          out.push(path.slice(i + 2, j));
        }
        i = path[j + 1] === ']' ? j + 2 : j + 1;
      } else {
        const j = path.indexOf(']', i);
        const end = j < 0 ? path.length : j;
        const body = path.slice(i + 1, end);
        out.push(/^\d+$/.test(body) ? Number(body) : body);
        i = end + 1;
      }
      continue;
    }
    let j = i;
    while (j < path.length && path[j] !== '.' && path[j] !== '[') j++;
    out.push(path.slice(i, j));
    i = j;
  }
  return out;
}
