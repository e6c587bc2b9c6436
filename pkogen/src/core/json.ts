/**
 * `JSON.parse(JSON.stringify(v))` without the text in between: the same result for every value
 * (non-finite numbers become null, undefined/functions/symbols are dropped from objects and become
 * null in arrays, `toJSON` is honoured, bigint throws) at a fraction of the cost. The renderer
 * does this for every render, as PKO's Go code round-trips its context through JSON.
 */
export function jsonRoundTrip<T>(v: T): T {
  const out = convert(v, true);
  return out as T;
}

function convert(v: unknown, top: boolean): unknown {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return v;
    case 'number':
      return Number.isFinite(v) ? (v === 0 ? 0 : v) : null;
    case 'bigint':
      throw new TypeError('Do not know how to serialize a BigInt');
    case 'undefined':
    case 'function':
    case 'symbol':
      return top ? undefined : OMIT;
    case 'object': {
      if (v === null) return null;
      const j = (v as { toJSON?: unknown }).toJSON;
      if (typeof j === 'function') return convert((v as { toJSON: () => unknown }).toJSON(), top);
      if (Array.isArray(v)) {
        const a = new Array(v.length);
        for (let i = 0; i < v.length; i++) {
          const x = convert(v[i], false);
          a[i] = x === OMIT ? null : x;
        }
        return a;
      }
      const o: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        const x = convert((v as Record<string, unknown>)[k], false);
        if (x !== OMIT) o[k] = x;
      }
      return o;
    }
  }
  return v;
}

const OMIT = Symbol('omit');
