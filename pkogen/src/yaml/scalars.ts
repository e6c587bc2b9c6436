/**
 * YAML 1.1 plain scalars as go-yaml v2 resolves them: the implicit types of parse.ts's js-yaml
 * schema (as plain definitions, so the block fast path does not load js-yaml) and the resolver
 * the fast path uses for values and keys.
 */

/** A js-yaml scalar type's options, without js-yaml. */
export interface ScalarType {
  tag: string;
  options: {
    kind: 'scalar';
    resolve: (d: string) => boolean;
    construct: (d: string) => unknown;
    predicate?: (o: unknown) => boolean;
    represent?: (o: unknown) => string;
  };
}
const scalarType = (tag: string, options: Omit<ScalarType['options'], 'kind'>): ScalarType => ({ tag, options: { kind: 'scalar', ...options } });

const BOOL_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const BOOL_FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);

export const boolType = scalarType('tag:yaml.org,2002:bool', {
  resolve: (d: string | null) => typeof d === 'string' && d.length <= 5 && (BOOL_TRUE.has(d) || BOOL_FALSE.has(d)),
  construct: (d: string) => BOOL_TRUE.has(d),
  predicate: (o: unknown) => typeof o === 'boolean',
  represent: (o: unknown) => ((o as boolean) ? 'true' : 'false'),
});

export const nullType = scalarType('tag:yaml.org,2002:null', {
  resolve: (d: string | null) => d === null || (d.length <= 4 && (d === '' || d === '~' || d === 'null' || d === 'Null' || d === 'NULL')),
  construct: () => null,
  predicate: (o: unknown) => o === null,
  represent: () => 'null',
});

/** Go's strconv.ParseInt(s, 0, 64) after go-yaml removed underscores. */
function parseGoInt(src: string): number | null {
  const s = src.replace(/_/g, '');
  const m = /^([-+]?)(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/.exec(s);
  if (!m) return null;
  const sign = m[1] === '-' ? -1 : 1;
  const body = m[2];
  let v: number;
  if (/^0[xX]/.test(body)) v = parseInt(body.slice(2), 16);
  else if (/^0[oO]/.test(body)) v = parseInt(body.slice(2), 8);
  else if (/^0[bB]/.test(body)) v = parseInt(body.slice(2), 2);
  else if (body.length > 1 && body[0] === '0') v = parseInt(body.slice(1), 8);
  else v = parseInt(body, 10);
  return sign * v;
}

/**
 * Every int/float starts with a sign, a digit or a dot: skip the regexes for everything else
 * (speed). An explicit tag on an empty value (`key: !!int`) hands the resolver null: not a number.
 */
function numberish(d: string | null): d is string {
  if (typeof d !== 'string') return false;
  const c = d.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

export const intType = scalarType('tag:yaml.org,2002:int', {
  resolve: (d: string) => numberish(d) && parseGoInt(d) !== null,
  construct: (d: string) => parseGoInt(d),
  predicate: (o: unknown) => typeof o === 'number' && Number.isInteger(o),
  represent: (o: unknown) => String(o),
});

const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const SPECIAL_FLOAT: Record<string, number> = {
  '.inf': Infinity, '.Inf': Infinity, '.INF': Infinity,
  '+.inf': Infinity, '+.Inf': Infinity, '+.INF': Infinity,
  '-.inf': -Infinity, '-.Inf': -Infinity, '-.INF': -Infinity,
  '.nan': NaN, '.NaN': NaN, '.NAN': NaN,
};

export const floatType = scalarType('tag:yaml.org,2002:float', {
  resolve: (d: string) => numberish(d) && (d in SPECIAL_FLOAT || FLOAT.test(d.replace(/_/g, ''))),
  construct: (d: string) => (d in SPECIAL_FLOAT ? SPECIAL_FLOAT[d] : parseFloat(d.replace(/_/g, ''))),
  predicate: (o: unknown) => typeof o === 'number' && !Number.isInteger(o),
  represent: (o: unknown) => String(o),
});

/** Timestamps are recognised (so `!!timestamp` works) but kept as the original string, like go-yaml v2 into interface{}. */
export const timestampType = scalarType('tag:yaml.org,2002:timestamp', {
  resolve: () => false,
  construct: (d: string) => d,
});

/** A plain scalar resolved by the same YAML 1.1 implicit types as YAML11_SCHEMA (null, bool, int, float, else string). */
const PLAIN_TYPES = [nullType, boolType, intType, floatType].map((t) => t.options);
export function resolvePlain11(d: string): unknown {
  // Only these first characters can start a null, bool, int or float: skip the resolvers otherwise.
  const c = d.charCodeAt(0);
  if (d.length > 0 && !(c <= 57 || c === 126 || 'yYnNtTfFoO'.includes(d[0]))) return d;
  for (const t of PLAIN_TYPES) {
    if (t.resolve(d)) return t.construct(d);
  }
  return d;
}

