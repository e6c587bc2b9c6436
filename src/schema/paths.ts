const SIMPLE_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** Appends a map key or field name: `a.b`, or `a["x.io/y"]` when the key is not a plain word. */
export function joinPath(parent: string, key: string): string {
  if (SIMPLE_KEY.test(key)) return parent === '' ? key : `${parent}.${key}`;
  return `${parent}[${JSON.stringify(key)}]`;
}

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
      out = joinPath(out, seg);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return out;
}
