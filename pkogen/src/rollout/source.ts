/**
 * Reading a rollout Template: the value (YAML 1.1, like oc/kubectl) plus a map from field path to
 * source line, so every finding on the processed Template can point at the line it came from.
 * Processing only replaces strings, so paths survive it unchanged.
 */
import { parseAllYaml11, YamlParseError } from '../yaml/parse.js';
import { positionsOf, type PositionNode } from '../yaml/positions.js';
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

/** The shared position tree (src/yaml/positions.ts) as this module's path → line map. */
function flatten(node: PositionNode, path: Path, out: Map<string, number>): void {
  const stack: { node: PositionNode; path: Path }[] = [{ node, path }];
  while (stack.length > 0) {
    const { node: n, path: p } = stack.pop()!;
    const key = formatPath(p);
    if (!out.has(key)) out.set(key, n.line);
    if (n.keys) for (const [k, c] of n.keys) stack.push({ node: c, path: [...p, k] });
    if (n.items) n.items.forEach((c, i) => stack.push({ node: c, path: [...p, i] }));
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
  const lines = new Map<string, number>();
  // Positions are a convenience; the value above is authoritative (no root: no lines).
  const root = positionsOf(text).root;
  if (root) flatten(root, [], lines);
  return { file, text, value: nonEmpty[0], lines };
}
