/**
 * `oc process --local --ignore-unknown-parameters` and the parameter filling app-interface's
 * saasherder does before it (docs/rollout-reference.md §2).
 */
import { createHash } from 'node:crypto';
import { isObj } from '../core/guards.js';

export interface TemplateParameter {
  name: string;
  value?: string;
  required?: boolean;
  generate?: string;
  from?: string;
  index: number;
}

export interface ProcessProblem {
  /** Path inside the Template, e.g. ['parameters', 2]. */
  path: (string | number)[];
  message: string;
}

export interface ProcessResult {
  objects: unknown[];
  values: Record<string, string>;
  problems: ProcessProblem[];
}

const STRING_PARAM = /\$\{([a-zA-Z0-9_]+?)\}/g;
const NON_STRING_PARAM = /^\$\{\{([a-zA-Z0-9_]+)\}\}$/;


/** The Template's parameters, tolerant of shape errors (the linter reports those). */
export function readParameters(template: unknown): TemplateParameter[] {
  if (!isObj(template) || !Array.isArray(template.parameters)) return [];
  const out: TemplateParameter[] = [];
  template.parameters.forEach((p, index) => {
    if (!isObj(p) || typeof p.name !== 'string') return;
    out.push({
      name: p.name,
      value: p.value === undefined || p.value === null ? undefined : String(p.value),
      required: p.required === true || p.required === 'true',
      generate: typeof p.generate === 'string' ? p.generate : undefined,
      from: typeof p.from === 'string' ? p.from : undefined,
      index,
    });
  });
  return out;
}

/**
 * Longest value a `generate: expression` may produce. A parameter is a short secret or name; a
 * Template asking for `[a-z]{999999999}` would otherwise take gigabytes before anything is said.
 */
export const MAX_GENERATED_CHARS = 64 * 1024;

/** Deterministic stand-in for oc's random `generate: expression` (same input, same output). */
export function generateFromExpression(from: string, seed: string): string {
  let state = createHash('sha256').update(seed).digest();
  let pos = 0;
  const rnd = (n: number): number => {
    if (pos + 4 > state.length) {
      state = createHash('sha256').update(state).digest();
      pos = 0;
    }
    const v = state.readUInt32BE(pos);
    pos += 4;
    return v % n;
  };
  const classes: Record<string, string> = {
    w: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_',
    d: '0123456789',
    a: 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ',
    A: '!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~',
  };
  let out = '';
  let i = 0;
  while (i < from.length) {
    let chars: string;
    if (from[i] === '[') {
      const end = from.indexOf(']', i);
      if (end < 0) throw new Error(`unbalanced [ in generate expression ${JSON.stringify(from)}`);
      const body = from.slice(i + 1, end);
      chars = '';
      for (let j = 0; j < body.length; j++) {
        if (body[j] === '\\' && j + 1 < body.length && classes[body[j + 1]]) {
          chars += classes[body[++j]];
        } else if (j + 2 < body.length && body[j + 1] === '-') {
          for (let c = body.charCodeAt(j); c <= body.charCodeAt(j + 2); c++) chars += String.fromCharCode(c);
          j += 2;
        } else chars += body[j];
      }
      i = end + 1;
    } else if (from[i] === '\\' && classes[from[i + 1]]) {
      chars = classes[from[i + 1]];
      i += 2;
    } else {
      chars = from[i];
      i += 1;
    }
    let count = 1;
    const m = /^\{(\d+)\}/.exec(from.slice(i));
    if (m) {
      count = Number(m[1]);
      i += m[0].length;
    }
    if (chars.length === 0) throw new Error(`empty character class in generate expression ${JSON.stringify(from)}`);
    if (out.length + count > MAX_GENERATED_CHARS) {
      throw new Error(`generate expression ${JSON.stringify(from.length > 60 ? `${from.slice(0, 57)}...` : from)} would produce more than ${MAX_GENERATED_CHARS} characters`);
    }
    for (let k = 0; k < count; k++) out += chars[rnd(chars.length)];
  }
  return out;
}

/** Replaces parameters in one string; `${{X}}` as the whole value yields a JSON value. */
export function substitute(s: string, values: Record<string, string>): unknown {
  const m = NON_STRING_PARAM.exec(s);
  if (m && Object.prototype.hasOwnProperty.call(values, m[1])) {
    const v = values[m[1]];
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }
  return s.replace(/\$\{\{([a-zA-Z0-9_]+)\}\}|\$\{([a-zA-Z0-9_]+?)\}/g, (whole, ns: string | undefined, name: string | undefined) => {
    const n = (ns ?? name)!;
    return Object.prototype.hasOwnProperty.call(values, n) ? values[n] : whole;
  });
}

function substituteDeep(v: unknown, values: Record<string, string>): unknown {
  if (typeof v === 'string') return substitute(v, values);
  if (Array.isArray(v)) return v.map((x) => substituteDeep(x, values));
  if (isObj(v)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const nk = substitute(k, values);
      out[typeof nk === 'string' ? nk : k] = substituteDeep(x, values);
    }
    return out;
  }
  return v;
}

/** Every `${X}` / `${{X}}` name used in strings below `v`, with the path of each use. */
export function parameterUses(v: unknown, path: (string | number)[] = [], out: { name: string; path: (string | number)[] }[] = []) {
  if (typeof v === 'string') {
    for (const m of v.matchAll(/\$\{\{([a-zA-Z0-9_]+)\}\}|\$\{([a-zA-Z0-9_]+?)\}/g)) out.push({ name: (m[1] ?? m[2])!, path });
  } else if (Array.isArray(v)) v.forEach((x, i) => parameterUses(x, [...path, i], out));
  else if (isObj(v)) for (const [k, x] of Object.entries(v)) parameterUses(x, [...path, k], out);
  return out;
}

/**
 * oc process: given values override defaults, generate expressions fill empty ones, a required
 * parameter without a value is an error, undeclared given values are ignored.
 */
export function processTemplate(template: unknown, given: Record<string, string>): ProcessResult {
  const problems: ProcessProblem[] = [];
  const params = readParameters(template);
  const values: Record<string, string> = {};
  for (const p of params) {
    let v = Object.prototype.hasOwnProperty.call(given, p.name) ? given[p.name] : p.value;
    if ((v === undefined || v === '') && p.generate === 'expression' && p.from) {
      try {
        v = generateFromExpression(p.from, p.name);
      } catch (e) {
        problems.push({ path: ['parameters', p.index, 'from'], message: (e as Error).message });
      }
    }
    if ((v === undefined || v === '') && p.required) {
      problems.push({ path: ['parameters', p.index], message: `parameter ${p.name} is required and must be specified` });
    }
    values[p.name] = v ?? '';
  }
  const objectsIn = isObj(template) && Array.isArray(template.objects) ? template.objects : [];
  const objects = objectsIn.map((o) => substituteDeep(o, values));
  // Template-level labels go onto every object, as oc process does.
  if (isObj(template) && isObj(template.labels)) {
    const labels = substituteDeep(template.labels, values) as Record<string, unknown>;
    for (const o of objects) {
      if (!isObj(o)) continue;
      const md = isObj(o.metadata) ? o.metadata : (o.metadata = {});
      (md as Record<string, unknown>).labels = { ...(isObj((md as Record<string, unknown>).labels) ? ((md as Record<string, unknown>).labels as object) : {}), ...labels };
    }
  }
  return { objects, values, problems };
}

export interface SaasFillOptions {
  /** Parameters from the SaaS file / command line (strings; `${OTHER}` references resolved). */
  given: Record<string, string>;
  /** Declared Template parameters. */
  declared: TemplateParameter[];
  /** Fill parameters the SaaS file would have to supply with placeholders (lint) instead of leaving them unset (simulate). */
  placeholders: boolean;
  hashLength?: number;
}

export interface SaasFill {
  values: Record<string, string>;
  /** Parameter name → how it got its value, for reporting. */
  origin: Record<string, 'given' | 'saasherder' | 'placeholder'>;
  problems: ProcessProblem[];
}

const FAKE_COMMIT = '0123456789abcdef0123456789abcdef01234567';

function fakeDigest(ref: string): string {
  return 'sha256:' + createHash('sha256').update(ref).digest('hex');
}

function placeholderFor(name: string): string {
  const lower = name.toLowerCase().replace(/_/g, '-');
  if (/URL$/i.test(name)) return `https://${lower}.example.invalid`;
  if (/IMG|IMAGE|REPO/i.test(name)) return `quay.io/app-sre/${lower}`;
  if (/TAG$/i.test(name)) return 'v0.0.0-placeholder';
  return `placeholder-${lower}`;
}

/**
 * Parameter values as saasherder passes them to oc process: COMMIT_SHA, IMAGE_TAG (short sha),
 * IMAGE_DIGEST / REPO_DIGEST when declared and not given (needs REGISTRY_IMG), `${OTHER}`
 * inside a value replaced by OTHER's value.
 */
export function fillLikeSaasherder(o: SaasFillOptions): SaasFill {
  const values: Record<string, string> = {};
  const origin: SaasFill['origin'] = {};
  const problems: ProcessProblem[] = [];
  for (const [k, v] of Object.entries(o.given)) {
    values[k] = v;
    origin[k] = 'given';
  }
  for (const k of Object.keys(values)) values[k] = values[k].replace(/\$\{([A-Za-z0-9_]+)\}/g, (w, n: string) => (n in o.given ? o.given[n] : w));
  const declared = new Map(o.declared.map((p) => [p.name, p]));
  if (!('COMMIT_SHA' in values)) {
    values.COMMIT_SHA = FAKE_COMMIT;
    origin.COMMIT_SHA = 'saasherder';
  }
  if (!('IMAGE_TAG' in values)) {
    values.IMAGE_TAG = values.COMMIT_SHA.slice(0, o.hashLength ?? 7);
    origin.IMAGE_TAG = 'saasherder';
  }
  const wantsDigest = (declared.has('IMAGE_DIGEST') && !('IMAGE_DIGEST' in values)) || (declared.has('REPO_DIGEST') && !('REPO_DIGEST' in values));
  if (wantsDigest && !('REGISTRY_IMG' in values) && o.placeholders) {
    values.REGISTRY_IMG = placeholderFor('REGISTRY_IMG');
    origin.REGISTRY_IMG = 'placeholder';
  }
  if (wantsDigest) {
    if (!('REGISTRY_IMG' in values)) {
      const p = declared.get('IMAGE_DIGEST') ?? declared.get('REPO_DIGEST')!;
      problems.push({ path: ['parameters', p.index], message: `error generating REPO_DIGEST. Is REGISTRY_IMG missing? (saasherder computes ${p.name} from REGISTRY_IMG:IMAGE_TAG)` });
    } else {
      const digest = fakeDigest(`${values.REGISTRY_IMG}:${values.IMAGE_TAG}`);
      if (declared.has('IMAGE_DIGEST') && !('IMAGE_DIGEST' in values)) {
        values.IMAGE_DIGEST = digest;
        origin.IMAGE_DIGEST = 'saasherder';
      }
      if (declared.has('REPO_DIGEST') && !('REPO_DIGEST' in values)) {
        values.REPO_DIGEST = `${values.REGISTRY_IMG}@${digest}`;
        origin.REPO_DIGEST = 'saasherder';
      }
    }
  }
  if (o.placeholders) {
    for (const p of o.declared) {
      if (p.name in values) continue;
      if (p.required && (p.value === undefined || p.value === '') && !p.generate) {
        values[p.name] = placeholderFor(p.name);
        origin[p.name] = 'placeholder';
      }
    }
  }
  return { values, origin, problems };
}
