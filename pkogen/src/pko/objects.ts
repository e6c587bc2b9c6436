/**
 * Package files → Kubernetes objects, the way PKO's RenderObjects reads them: only `.yaml`/`.yml`
 * files whose base name does not start with `_`, PKO's document splitting, empty/null documents
 * dropped, a document without `kind` is `Invalid YAML … Object 'Kind' is missing in '<json>'`.
 */
import type { FileMap } from '../core/filemap.js';
import { splitPkoDocuments } from '../yaml/parse.js';
import { decodeYamlBytes, parseYamlSafe, YamlLimitError, YamlParseError, YamlLimits, DEFAULT_YAML_LIMITS } from './safe-yaml.js';
import { Violation, ViolationReason } from './types.js';

export type KubeObject = Record<string, unknown> & {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> } & Record<string, unknown>;
};

export interface ObjectRef {
  /** Package-relative path (inside the component, when there is one). */
  path: string;
  /** Index among the objects of the file (what PKO's `idx` means for object validators). */
  index: number;
  /** Index of the YAML document in the file (counting dropped empty ones). */
  doc: number;
  /** 1-based line where the document starts in the file. */
  line: number;
  /** The document's text (for locating fields). */
  text: string;
  object: KubeObject;
}

/** PKO's sort of rendered paths: `/` sorts before every other character. */
export function pkoPathCompare(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x === 47) x = 0;
    if (y === 47) y = 0;
    return x < y ? -1 : 1;
  }
  return a.length - b.length;
}

export function isObjectFile(path: string): boolean {
  const base = path.slice(path.lastIndexOf('/') + 1);
  if (base.startsWith('_')) return false;
  return path.endsWith('.yaml') || path.endsWith('.yml');
}

/** Go's json.Marshal of a decoded YAML document: keys sorted, compact. */
export function goJson(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o).sort().map((k) => `${JSON.stringify(k)}:${goJson(o[k])}`).join(',')}}`;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) return 'null';
  return JSON.stringify(v);
}

export interface ParsedObjects {
  objects: ObjectRef[];
  violations: Violation[];
}

/** Parses every object file of `files`, in PKO's path order. Bad documents become Violations. */
export function parseObjects(files: FileMap, limits: YamlLimits = DEFAULT_YAML_LIMITS): ParsedObjects {
  const objects: ObjectRef[] = [];
  const violations: Violation[] = [];
  for (const path of [...files.keys()].filter(isObjectFile).sort(pkoPathCompare)) {
    const r = parseObjectFile(path, files.get(path)!, limits);
    objects.push(...r.objects);
    violations.push(...r.violations);
  }
  return { objects, violations };
}

export function parseObjectFile(path: string, bytes: Uint8Array, limits: YamlLimits = DEFAULT_YAML_LIMITS): ParsedObjects {
  const objects: ObjectRef[] = [];
  const violations: Violation[] = [];
  let text: string;
  try {
    text = decodeYamlBytes(bytes, limits);
  } catch (e) {
    if (e instanceof YamlLimitError) return { objects, violations: [new Violation({ reason: ViolationReason.InvalidYAML, path, details: e.message })] };
    throw e;
  }
  const docs = splitPkoDocuments(text);
  let index = 0;
  docs.forEach((d, doc) => {
    if (d.text === '') return;
    let v: unknown;
    try {
      v = parseYamlSafe(d.text, limits);
    } catch (e) {
      // A limit error is also a YamlParseError: test it first so it keeps its own wording.
      if (e instanceof YamlLimitError) {
        violations.push(new Violation({ reason: ViolationReason.InvalidYAML, path, index: doc, details: e.message, line: e.line !== undefined ? d.line + e.line - 1 : d.line }));
        return;
      }
      if (e instanceof YamlParseError) {
        const line = e.line !== undefined ? d.line + e.line - 1 : d.line;
        violations.push(new Violation({ reason: ViolationReason.InvalidYAML, path, index: doc, details: `error converting YAML to JSON: yaml: line ${line}: ${e.message}`, line }));
        return;
      }
      throw e;
    }
    if (v === null || v === undefined) return;
    if (typeof v !== 'object' || Array.isArray(v)) {
      const t = Array.isArray(v) ? 'array' : typeof v === 'number' ? 'number' : typeof v === 'boolean' ? 'bool' : 'string';
      violations.push(new Violation({ reason: ViolationReason.InvalidYAML, path, index: doc, details: `json: cannot unmarshal ${t} into Go value of type map[string]interface {}`, subject: d.text, line: d.line }));
      return;
    }
    const o = v as KubeObject;
    if (typeof o.kind !== 'string' || o.kind === '') {
      violations.push(new Violation({ reason: ViolationReason.InvalidYAML, path, index: doc, details: `Object 'Kind' is missing in '${goJson(o)}'`, subject: d.text, line: d.line }));
      return;
    }
    objects.push({ path, index: index++, doc, line: d.line, text: d.text, object: o });
  });
  return { objects, violations };
}
