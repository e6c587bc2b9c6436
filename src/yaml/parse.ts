/**
 * YAML in, with the semantics PKO uses: sigs.k8s.io/yaml on go-yaml v2, i.e. YAML 1.1 scalars
 * (`yes/no/on/off/y/n` are booleans, `0755` is octal, underscores in numbers), timestamps kept as
 * strings, non-string keys stringified, duplicate keys tolerated (last wins), `<<` merges.
 */
import yaml from 'js-yaml';
import { BAIL, parseFastBlock } from './fast-block.js';

const BOOL_TRUE = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']);
const BOOL_FALSE = new Set(['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']);

const boolType = new yaml.Type('tag:yaml.org,2002:bool', {
  kind: 'scalar',
  resolve: (d: string) => d.length <= 5 && (BOOL_TRUE.has(d) || BOOL_FALSE.has(d)),
  construct: (d: string) => BOOL_TRUE.has(d),
  predicate: (o: unknown) => typeof o === 'boolean',
  represent: (o: unknown) => ((o as boolean) ? 'true' : 'false'),
});

const nullType = new yaml.Type('tag:yaml.org,2002:null', {
  kind: 'scalar',
  resolve: (d: string) => d.length <= 4 && (d === '' || d === '~' || d === 'null' || d === 'Null' || d === 'NULL'),
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

/** Every int/float starts with a sign, a digit or a dot: skip the regexes for everything else (speed). */
function numberish(d: string): boolean {
  const c = d.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46;
}

const intType = new yaml.Type('tag:yaml.org,2002:int', {
  kind: 'scalar',
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

const floatType = new yaml.Type('tag:yaml.org,2002:float', {
  kind: 'scalar',
  resolve: (d: string) => numberish(d) && (d in SPECIAL_FLOAT || FLOAT.test(d.replace(/_/g, ''))),
  construct: (d: string) => (d in SPECIAL_FLOAT ? SPECIAL_FLOAT[d] : parseFloat(d.replace(/_/g, ''))),
  predicate: (o: unknown) => typeof o === 'number' && !Number.isInteger(o),
  represent: (o: unknown) => String(o),
});

/** Timestamps are recognised (so `!!timestamp` works) but kept as the original string, like go-yaml v2 into interface{}. */
const timestampType = new yaml.Type('tag:yaml.org,2002:timestamp', {
  kind: 'scalar',
  resolve: () => false,
  construct: (d: string) => d,
});

export const YAML11_SCHEMA = yaml.FAILSAFE_SCHEMA.extend({
  implicit: [nullType, boolType, intType, floatType, timestampType],
  explicit: [],
}).extend([(yaml as unknown as { types: { merge: yaml.Type } }).types.merge]);

export interface ParseError {
  message: string;
  /** One-based. */
  line?: number;
  column?: number;
}

export class YamlParseError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** A plain scalar resolved by the same YAML 1.1 implicit types as YAML11_SCHEMA (null, bool, int, float, else string). */
const PLAIN_TYPES = [nullType, boolType, intType, floatType];
export function resolvePlain11(d: string): unknown {
  // Only these first characters can start a null, bool, int or float: skip the resolvers otherwise.
  const c = d.charCodeAt(0);
  if (d.length > 0 && !(c <= 57 || c === 126 || 'yYnNtTfFoO'.includes(d[0]))) return d;
  for (const t of PLAIN_TYPES) {
    if (t.resolve(d)) return t.construct(d);
  }
  return d;
}

/**
 * Parses one YAML document with PKO's YAML 1.1 semantics. Plain block YAML (what manifests and
 * rendered templates nearly always are) takes a fast path; anything else goes to js-yaml.
 */
export function parseYaml11(text: string, filename?: string): unknown {
  const fast = parseFastBlock(text, resolvePlain11);
  if (fast !== BAIL) return fast;
  return parseYaml11Full(text, filename);
}

/** js-yaml with the YAML 1.1 schema (no fast path). */
export function parseYaml11Full(text: string, filename?: string): unknown {
  try {
    return yaml.load(text, { schema: YAML11_SCHEMA, json: true, filename });
  } catch (e) {
    if (e instanceof yaml.YAMLException) {
      const m = e.mark;
      throw new YamlParseError(e.reason || e.message, m ? m.line + 1 : undefined, m ? m.column + 1 : undefined);
    }
    throw e;
  }
}

/** Every document of a multi-document text, YAML 1.1 semantics (js-yaml's own splitting). */
export function parseAllYaml11(text: string, filename?: string): unknown[] {
  try {
    return yaml.loadAll(text, undefined, { schema: YAML11_SCHEMA, json: true, filename });
  } catch (e) {
    if (e instanceof yaml.YAMLException) {
      const m = e.mark;
      throw new YamlParseError(e.reason || e.message, m ? m.line + 1 : undefined, m ? m.column + 1 : undefined);
    }
    throw e;
  }
}

/**
 * PKO's document splitting (packagetypes/utils.go): trim any leading/trailing `-` and `\n`
 * characters (a cutset, not a prefix), split on lines that are exactly `---`, TrimSpace each.
 * Returns each document's text and the 1-based line where it starts in the original.
 */
export function splitPkoDocuments(text: string): { text: string; line: number }[] {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '-' || text[start] === '\n')) start++;
  while (end > start && (text[end - 1] === '-' || text[end - 1] === '\n')) end--;
  const body = text.slice(start, end);
  const baseLine = 1 + newlines(text, 0, start);
  const docs: { text: string; line: number }[] = [];
  const re = /^---$/gm;
  let last = 0;
  let m: RegExpExecArray | null;
  const pieces: { from: number; to: number }[] = [];
  while ((m = re.exec(body)) !== null) {
    pieces.push({ from: last, to: m.index });
    last = m.index + 3;
  }
  pieces.push({ from: last, to: body.length });
  // Count newlines incrementally: recounting from 0 per piece was quadratic in the file size.
  let counted = 0;
  let lines = 0;
  for (const p of pieces) {
    const raw = body.slice(p.from, p.to);
    const lead = raw.length - raw.trimStart().length;
    lines += newlines(body, counted, p.from + lead);
    counted = p.from + lead;
    docs.push({ text: raw.trim(), line: baseLine + lines });
  }
  return docs;
}

function newlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
