/**
 * Reading a rollout Template: the value (YAML 1.1, like oc/kubectl) plus a map from field path to
 * source line, so every finding on the processed Template can point at the line it came from.
 * Processing only replaces strings, so paths survive it unchanged.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, Node } from 'yaml';
import { parseAllYaml11, YamlParseError } from '../yaml/parse.js';
import { formatPath } from '../core/field-path.js';

export type Path = (string | number)[];

/** `objects[0].spec.resources[1].metadata.annotations["a.b/c"]`: the one notation (src/core/field-path.ts). */
export { formatPath } from '../core/field-path.js';

export interface LoadedTemplate {
  file: string;
  text: string;
  value: unknown;
  /** formatPath(path) → 1-based line. */
  lines: Map<string, number>;
}

export interface LoadProblem {
  message: string;
  line?: number;
  column?: number;
}

/** Nearest known line for a path (walks up to the parent when the field itself is absent). */
export function lineOf(t: LoadedTemplate, path: Path): number | undefined {
  for (let n = path.length; n >= 0; n--) {
    const l = t.lines.get(formatPath(path.slice(0, n)));
    if (l !== undefined) return l;
  }
  return undefined;
}

function walk(node: Node | null | undefined, path: Path, lc: LineCounter, out: Map<string, number>, keyLine?: number): void {
  if (!node) return;
  const at = keyLine ?? (node.range ? lc.linePos(node.range[0]).line : undefined);
  if (at !== undefined && !out.has(formatPath(path))) out.set(formatPath(path), at);
  if (isMap(node)) {
    for (const item of node.items) {
      if (!isPair(item)) continue;
      const k = isScalar(item.key) ? String(item.key.value) : String(item.key);
      const kl = isScalar(item.key) && item.key.range ? lc.linePos(item.key.range[0]).line : undefined;
      walk(item.value as Node, [...path, k], lc, out, kl);
    }
  } else if (isSeq(node)) {
    node.items.forEach((it, i) => walk(it as Node, [...path, i], lc, out));
  }
}

/** Parses the file; returns the first non-empty document or a located problem. */
export function loadTemplate(file: string, text: string): LoadedTemplate | LoadProblem {
  let docs: unknown[];
  try {
    docs = parseAllYaml11(text, file);
  } catch (e) {
    if (e instanceof YamlParseError) return { message: `invalid YAML: ${e.message}`, line: e.line, column: e.column };
    throw e;
  }
  const nonEmpty = docs.filter((d) => d !== null && d !== undefined);
  if (nonEmpty.length === 0) return { message: 'the file holds no YAML document' };
  if (nonEmpty.length > 1) return { message: `the file holds ${nonEmpty.length} YAML documents; a Template is one document` };
  const lc = new LineCounter();
  const lines = new Map<string, number>();
  try {
    const docsCst = parseDocument(text, { version: '1.1', lineCounter: lc, uniqueKeys: false, strict: false });
    walk(docsCst.contents as Node, [], lc, lines);
  } catch {
    // Positions are a convenience; the value above is authoritative.
  }
  return { file, text, value: nonEmpty[0], lines };
}
