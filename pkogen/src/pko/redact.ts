/**
 * No secret value in any finding or error. A finding may quote the value it rejects (schema
 * `got string "…"`, field errors' `Invalid value: "…"`, CEL messages, a fixture diff, the render
 * context PKO prints on a template error); when the object is a Secret or the field's name looks
 * secret, the value is replaced by a marker and the rest of the message (place, rule, what was
 * expected) is kept.
 */

import { isObj } from '../core/guards.js';
import { GoTyped } from '../gotemplate/types.js';
export const REDACTED = '<redacted>';

/**
 * A field or key whose value is a credential by convention. `secretName`, `secretRef`,
 * `secretKeyRef` and friends name a Secret, they hold none: not matched.
 */
const SECRET_NAME = /(?:password|passwd|passphrase|token|credential|private[-_.]?key|api[-_]?key|access[-_]?key|client[-_]?secret|\.?dockerconfigjson|\.?dockercfg|auths?$|secret(?![-_]?(?:name|ref|keyref|namespace|key$|s$)))/i;

export function looksSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

/** A segment of a field path (`spec.config.dbPassword`, `data[".dockerconfigjson"]`) looks secret. */
export function looksSecretPath(path: string): boolean {
  const segs = path.split(/[.[\]"']+/).filter((s) => s !== '');
  // A parent named just `secret` is a Secret volume source (`secret.secretName`), not a value.
  return segs.some((s, i) => looksSecretName(s) && (i === segs.length - 1 || !/^secrets?$/i.test(s)));
}

/** A core Secret: every value in it is secret, whatever the key is called. */
export function isSecretObject(obj: unknown): boolean {
  if (obj === null || typeof obj !== 'object') return false;
  const o = obj as Record<string, unknown>;
  return o.kind === 'Secret' && (o.apiVersion === 'v1' || o.apiVersion === undefined);
}


/**
 * The string values a message about `obj` must not show: all of a Secret's data/stringData, and
 * every value under a secret-looking key anywhere in the object. Bounded (depth and count) so a
 * hostile object cannot make redaction the expensive step.
 */
export function secretValuesOf(obj: unknown): string[] {
  const out: string[] = [];
  const LIMIT = 10_000;
  const walk = (v: unknown, secret: boolean, depth: number): void => {
    if (out.length >= LIMIT || depth > 64) return;
    if (typeof v === 'string') {
      if (secret) out.push(v);
    } else if (typeof v === 'number' || typeof v === 'boolean') {
      if (secret) out.push(String(v));
    } else if (Array.isArray(v)) {
      for (const x of v) walk(x, secret, depth + 1);
    } else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) walk(x, secret || looksSecretName(k), depth + 1);
    }
  };
  if (isSecretObject(obj)) {
    const o = obj as Record<string, unknown>;
    walk(o.data, true, 1);
    walk(o.stringData, true, 1);
  }
  walk(obj, false, 0);
  return out;
}

const JSON_STRING = String.raw`"(?:[^"\\]|\\.)*"(?:\.\.\.)?`;
/** The value-quoting shapes our messages use (schema errors, k8s field errors). */
const QUOTED_VALUE = [
  [new RegExp(String.raw`\bgot string ${JSON_STRING}`, 'g'), 'got a string (value not shown)'],
  [/\bgot (?:integer|number) -?[\d.e+-]+/g, 'got a number (value not shown)'],
  [new RegExp(String.raw`\b(Invalid value|Unsupported value|Duplicate value): (?:${JSON_STRING}|-?[\d.e+-]+|true|false|\{.*?\}|\[.*?\])`, 'g'), '$1: (value not shown)'],
] as const;

/**
 * Replaces quoted values in `message`, and every occurrence of the given secret values (as
 * written, and JSON-quoted), so messages built by code we do not control (CEL
 * `messageExpression`, template errors) lose them too.
 */
export function redactMessage(message: string, secretValues: readonly string[] = []): string {
  let m = message;
  for (const [re, by] of QUOTED_VALUE) m = m.replace(re, by);
  return redactValues(m, secretValues);
}

/** Replaces only the given values. Very short ones (`a`, `1`) would shred the message and say little. */
export function redactValues(message: string, values: readonly string[]): string {
  let m = message;
  // Longest first, so a value that contains another is replaced whole.
  const vals = [...new Set(values.filter((v) => v.length >= 4))].sort((a, b) => b.length - a.length);
  for (const v of vals) {
    m = m.split(v).join(REDACTED);
    const quoted = JSON.stringify(v).slice(1, -1);
    if (quoted !== v) m = m.split(quoted).join(REDACTED);
  }
  return m;
}

/**
 * A message about field `path` of `obj`: every quoted value goes when the object is a Secret or
 * the field looks secret; elsewhere only the object's secret values (a CEL message on a harmless
 * field may still quote one).
 */
export function redactFor(obj: unknown, path: string, message: string): string {
  const values = secretValuesOf(obj);
  if (isSecretObject(obj) || looksSecretPath(path)) return redactMessage(message, values);
  return values.length ? redactValues(message, values) : message;
}

/** A Go-template data context with secret-looking keys' values replaced (PKO prints the context on a template error). */
export function redactContext<T>(data: T, depth = 0): T {
  if (depth > 64) return data;
  // a typed Go value (PKO's map[string]string labels) stays typed, so it prints as Go prints it
  if (data instanceof GoTyped) return new GoTyped(data.goType, redactContext(data.value, depth + 1)) as T;
  if (Array.isArray(data)) return data.map((x) => redactContext(x, depth + 1)) as T;
  if (data instanceof Map) {
    const m = new Map();
    for (const [k, v] of data) m.set(k, typeof k === 'string' && looksSecretName(k) && !isContainer(v) ? REDACTED : redactContext(v, depth + 1));
    return m as T;
  }
  if (isObj(data)) {
    const o: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(data)) o[k] = looksSecretName(k) && !isContainer(v) ? REDACTED : redactContext(v, depth + 1);
    return o as T;
  }
  return data;
}

/** Every scalar under `v` replaced by the marker; maps and lists keep their keys and lengths. */
/** The scalar leaves of a package's config, as text: what no message may quote. Bounded like secretValuesOf. */
const BOOLEAN_WORD = /^(true|false|yes|no|on|off|null)$/i;

export function configValuesOf(config: unknown): string[] {
  const out: string[] = [];
  const walk = (v: unknown, depth: number): void => {
    if (out.length >= 10_000 || depth > 64) return;
    if (v instanceof GoTyped) walk(v.value, depth + 1);
    // A boolean (or a string spelling one) is no secret, and "true" is in every CRD (`served: true`).
    else if (typeof v === 'boolean' || (typeof v === 'string' && BOOLEAN_WORD.test(v))) return;
    else if (typeof v === 'string' || typeof v === 'number') out.push(String(v));
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1);
    else if (v instanceof Map) for (const x of v.values()) walk(x, depth + 1);
    else if (isObj(v)) for (const x of Object.values(v)) walk(x, depth + 1);
  };
  walk(config, 0);
  return out;
}

/** Every leaf value replaced by the marker, keys kept: how a package's config is shown anywhere (`status` shows its keys only). */
export function redactLeaves<T>(v: T, depth = 0): T {
  if (depth > 64) return REDACTED as T;
  if (v instanceof GoTyped) return new GoTyped(v.goType, redactLeaves(v.value, depth + 1)) as T;
  if (Array.isArray(v)) return v.map((x) => redactLeaves(x, depth + 1)) as T;
  if (v instanceof Map) return new Map([...v].map(([k, x]) => [k, redactLeaves(x, depth + 1)])) as T;
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, redactLeaves(x, depth + 1)])) as T;
  return (v === null || v === undefined ? v : REDACTED) as T;
}

/**
 * The context PKO prints (`%+v`) on a template execution error, without values a user must not
 * see in a log: every value of `.config` (keys kept) and any secret-looking key elsewhere.
 */
export function redactRenderContext<T>(data: T): T {
  const r = redactContext(data);
  if (isObj(r) && 'config' in r) return { ...r, config: redactLeaves(r.config) } as T;
  if (r instanceof Map && r.has('config')) return new Map([...r].map(([k, v]) => [k, k === 'config' ? redactLeaves(v) : v])) as T;
  return r;
}

const isContainer = (v: unknown): boolean => v !== null && typeof v === 'object';

/**
 * A fixture diff of a file: in a file that holds a Secret every changed `key: value` line has its
 * value replaced; elsewhere only lines whose key looks secret.
 */
export function redactDiff(diff: string, fileText: string): string {
  const secretFile = /^kind:\s*["']?Secret["']?\s*$/m.test(fileText);
  return diff
    .split('\n')
    .map((line) => {
      if (!/^[-+ ]/.test(line) || line.startsWith('+++') || line.startsWith('---')) return line;
      const m = /^([-+ ]\s*(?:-\s+)?)(["']?)([^"':\s][^"':]*)\2(:\s+)(.+)$/.exec(line);
      if (m) {
        if (secretFile ? !/^(apiVersion|kind|name|namespace|type|immutable|labels|annotations)$/.test(m[3]!) : looksSecretName(m[3]!)) return `${m[1]}${m[2]}${m[3]}${m[2]}${m[4]}${REDACTED}`;
        return line;
      }
      // A bare scalar line (block scalar or list item) of a Secret file may be a value itself.
      if (secretFile && /^[-+]\s+\S/.test(line) && !/^[-+]\s*[\w.-]+:\s*$/.test(line)) return `${line[0]}${line.slice(1).match(/^\s*/)![0]}${REDACTED}`;
      return line;
    })
    .join('\n');
}
