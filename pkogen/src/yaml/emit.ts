/**
 * Deterministic YAML emitter for Kubernetes objects and PKO templates.
 *
 * Why our own and not js-yaml's dump: the output must be safe for go-yaml v2 (YAML 1.1, which PKO
 * uses) as well as YAML 1.2 readers, and Go template expressions must survive byte for byte, in
 * scalar position and as whole template-controlled blocks. js-yaml decides quoting by its own
 * YAML 1.2 schema and cannot place raw template text.
 *
 * Ordering: at the top level `apiVersion, kind, metadata` first; in every mapping `name` first;
 * the rest in code-unit order. Authors' key order never leaks into the output.
 */

/** A template fragment emitted verbatim right after `key:` (the function gets the key's indent). */
export class RawValue {
  constructor(readonly render: (indent: number) => string) {}
}

/**
 * A template fragment that replaces a whole `key: value` entry (lines emitted at the mapping's
 * indent, each prefixed with it). The key under which it is stored only decides its position.
 */
export class RawEntry {
  constructor(readonly render: (indent: number) => string[]) {}
}

export type YamlValue =
  | null
  | boolean
  | number
  | string
  | RawValue
  | RawEntry
  | YamlValue[]
  | { [key: string]: YamlValue | undefined };

const TOP_ORDER = ['apiVersion', 'kind', 'metadata'];

function compareKeys(a: string, b: string, top: boolean): number {
  if (top) {
    const ia = TOP_ORDER.indexOf(a);
    const ib = TOP_ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
  }
  if (a === 'name' || b === 'name') return a === 'name' ? (b === 'name' ? 0 : -1) : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

// YAML 1.1 implicit types as go-yaml v2 resolves them, plus YAML 1.2 core: a plain scalar that
// matches any of these would not read back as a string.
const YAML11_BOOL = /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/;
const YAML_NULL = /^(~|null|Null|NULL)$/;
const YAML_NUMBERISH = /^[-+]?(\.[0-9]|[0-9]|\.(inf|Inf|INF|nan|NaN|NAN)$)/;
const YAML_TIMESTAMP = /^[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?/;
// Numbers as go-yaml v2 (strconv with base prefixes and `_`), YAML 1.2 core and YAML 1.1
// sexagesimal read them; a digit-led string matching none of these (`500m`, `1.2.3`) stays plain.
const GO_INT = /^[-+]?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|[0-9][0-9_]*)$/;
const FLOAT_FORM = /^[-+]?(\.[0-9_]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$/;
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;
const SPECIAL_FLOAT = /^[-+]?\.(inf|Inf|INF|nan|NaN|NAN)$/;

function looksNumeric(s: string): boolean {
  return GO_INT.test(s) || FLOAT_FORM.test(s) || SEXAGESIMAL.test(s) || SPECIAL_FLOAT.test(s);
}

const SAFE_PLAIN = /^[A-Za-z0-9_/.$(][^\n\r\t]*$/;

/** True when `s` must be quoted to read back as the same string in YAML 1.1 and 1.2. */
export function needsQuotes(s: string): boolean {
  if (s === '') return true;
  if (YAML11_BOOL.test(s) || YAML_NULL.test(s)) return true;
  if (YAML_NUMBERISH.test(s) && looksNumeric(s)) return true;
  if (YAML_TIMESTAMP.test(s)) return true;
  if (s === '<<' || s === '=') return true;
  if (!SAFE_PLAIN.test(s)) return true;
  if (/\s$/.test(s)) return true;
  if (s.includes(': ') || s.endsWith(':') || s.includes(' #')) return true;
  if (s.includes('{{') || s.includes('}}')) return true;
  // Characters that are legal inside plain scalars but confuse readers or flow contexts.
  if (/[\u0000-\u001f\u007f-\u009f\ufeff\u2028\u2029]/.test(s)) return true;
  return false;
}

function doubleQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\t') out += '\\t';
    else if (ch === '\r') out += '\\r';
    else if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || c === 0xfeff || c === 0x2028 || c === 0x2029) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += ch;
  }
  return out + '"';
}

export class YamlEmitError extends Error {}

/** Formats a scalar string for a single-line position. */
export function scalarString(s: string): string {
  if (s.includes('{{')) {
    // Template text must survive exactly: single quotes escape nothing but `'` itself.
    if (s.includes("'") || s.includes('\n')) {
      throw new YamlEmitError(`template expression cannot be quoted safely (contains ' or a newline): ${JSON.stringify(s)}; use a RawValue`);
    }
    return `'${s}'`;
  }
  return needsQuotes(s) ? doubleQuote(s) : s;
}

function formatNumber(n: number): string {
  if (!Number.isFinite(n)) throw new YamlEmitError(`cannot emit non-finite number ${n}`);
  return String(n);
}

function isBlockable(s: string): boolean {
  // Literal block scalars keep text readable; they cannot carry trailing spaces, tabs at line
  // start in the indentation, or control characters.
  if (!s.includes('\n')) return false;
  if (s.trim() === '') return false;
  if (s.includes('{{')) return false;
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\ufeff\u2028\u2029\r]/.test(s)) return false;
  if (/[ \t]\n/.test(s) || /[ \t]$/.test(s)) return false;
  return true;
}

function blockScalar(s: string, indent: number): string[] {
  const trailing = /\n+$/.exec(s)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const body = trailing === 0 ? s : s.slice(0, s.length - (chomp === '+' ? 0 : 1));
  const lines = (chomp === '+' ? s.slice(0, s.length - 1) : body).split('\n');
  const firstIndented = lines.length > 0 && /^[ ]/.test(lines[0]);
  const header = `|${firstIndented ? '2' : ''}${chomp}`;
  const pad = ' '.repeat(indent);
  return [header, ...lines.map((l) => (l === '' ? '' : pad + l))];
}

function isPlainObject(v: unknown): v is Record<string, YamlValue | undefined> {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawValue) && !(v instanceof RawEntry);
}

function keyString(k: string): string {
  if (k.includes('{{')) throw new YamlEmitError(`template expression in a mapping key: ${k}`);
  return needsQuotes(k) || k.includes(' ') ? doubleQuote(k) : k;
}

function emitMapping(obj: Record<string, YamlValue | undefined>, indent: number, top: boolean, out: string[], firstPrefix: string | null): void {
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort((a, b) => compareKeys(a, b, top));
  if (keys.length === 0) {
    if (firstPrefix !== null) out.push(firstPrefix + '{}');
    else out.push(' '.repeat(indent) + '{}');
    return;
  }
  const pad = ' '.repeat(indent);
  keys.forEach((k, i) => {
    const prefix = i === 0 && firstPrefix !== null ? firstPrefix : pad;
    const v = obj[k] as YamlValue;
    if (v instanceof RawEntry) {
      const lines = v.render(indent);
      lines.forEach((l, j) => out.push((j === 0 ? prefix : pad) + l));
      return;
    }
    emitEntry(keyString(k), v, indent, prefix, out);
  });
}

function emitEntry(key: string, v: YamlValue, indent: number, prefix: string, out: string[]): void {
  const head = `${prefix}${key}:`;
  if (v instanceof RawValue) {
    out.push(head + v.render(indent));
  } else if (Array.isArray(v)) {
    if (v.length === 0) out.push(head + ' []');
    else {
      out.push(head);
      emitSequence(v, indent, out);
    }
  } else if (isPlainObject(v)) {
    if (Object.keys(v).filter((k) => v[k] !== undefined).length === 0) out.push(head + ' {}');
    else {
      out.push(head);
      emitMapping(v, indent + 2, false, out, null);
    }
  } else if (typeof v === 'string' && isBlockable(v)) {
    const [header, ...lines] = blockScalar(v, indent + 2);
    out.push(`${head} ${header}`, ...lines);
  } else {
    out.push(`${head} ${scalar(v)}`);
  }
}

function scalar(v: YamlValue): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') return formatNumber(v);
  if (typeof v === 'string') return scalarString(v);
  throw new YamlEmitError(`not a scalar: ${String(v)}`);
}

// Sequences are indented under their key (`key:\n  - a`), the Kubernetes convention.
function emitSequence(items: YamlValue[], indent: number, out: string[]): void {
  const pad = ' '.repeat(indent + 2);
  for (const item of items) {
    if (item instanceof RawEntry) {
      for (const l of item.render(indent + 2)) out.push(pad + l);
    } else if (isPlainObject(item)) {
      emitMapping(item, indent + 4, false, out, pad + '- ');
    } else if (Array.isArray(item)) {
      if (item.length === 0) out.push(pad + '- []');
      else {
        out.push(pad + '-');
        emitSequence(item, indent + 2, out);
      }
    } else if (item instanceof RawValue) {
      out.push(pad + '-' + item.render(indent + 2));
    } else if (typeof item === 'string' && isBlockable(item)) {
      const [header, ...lines] = blockScalar(item, indent + 4);
      out.push(`${pad}- ${header}`, ...lines);
    } else {
      out.push(`${pad}- ${scalar(item)}`);
    }
  }
}

/** One YAML document (no `---`), ending with a newline. */
export function emitDocument(value: YamlValue): string {
  const out: string[] = [];
  if (isPlainObject(value)) emitMapping(value, 0, true, out, null);
  else if (Array.isArray(value)) {
    if (value.length === 0) out.push('[]');
    else {
      const tmp: string[] = [];
      emitSequence(value, -2, tmp);
      out.push(...tmp);
    }
  } else out.push(scalar(value));
  return out.join('\n') + '\n';
}

/** Several documents separated by `---` lines, the form PKO splits on. */
export function emitDocuments(values: YamlValue[]): string {
  return values.map(emitDocument).join('---\n');
}
