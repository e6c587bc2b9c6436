/**
 * Where a field is in a YAML text: a position-aware parse (eemeli/yaml) walked along a field
 * path. Parsing happens only when a finding needs a line, and aliases are capped.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import { parsePath } from './field-path.js';

export interface LocatedText {
  text: string;
  /** 1-based line of the text's first line in its file. */
  firstLine: number;
}

const cache = new Map<string, { doc: ReturnType<typeof parseDocument>; lc: LineCounter } | null>();

function parsed(text: string) {
  let c = cache.get(text);
  if (c === undefined) {
    try {
      const lc = new LineCounter();
      const doc = parseDocument(text, { lineCounter: lc, uniqueKeys: false, version: '1.1' });
      c = { doc, lc };
    } catch {
      c = null;
    }
    if (cache.size > 2000) cache.clear();
    cache.set(text, c);
  }
  return c;
}

/** 1-based line of `path` (as made by field-path.ts) in the text, or of its deepest existing ancestor. */
export function lineOf(t: LocatedText, path: string): number | undefined {
  const p = parsed(t.text);
  if (!p || !p.doc.contents) return undefined;
  let node: Node | null = p.doc.contents as Node;
  let line = lineAt(p.lc, node);
  for (const seg of parsePath(path)) {
    if (isMap(node)) {
      const pair: { key: unknown; value: unknown } | undefined = node.items.find((it) => isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) break;
      line = lineAt(p.lc, pair.key as Node) ?? line;
      node = (pair.value as Node) ?? null;
    } else if (isSeq(node) && typeof seg === 'number') {
      const item = node.items[seg] as Node | undefined;
      if (!item) break;
      line = lineAt(p.lc, item) ?? line;
      node = item;
    } else break;
    if (!node) break;
  }
  return line === undefined ? undefined : line + t.firstLine - 1;
}

function lineAt(lc: LineCounter, n: Node | null | undefined): number | undefined {
  const r = n?.range;
  if (!r) return undefined;
  return lc.linePos(r[0]).line;
}

/** Keys that appear twice in the same mapping (PKO keeps the last one silently). */
export function duplicateKeys(t: LocatedText): { key: string; line: number }[] {
  const out: { key: string; line: number }[] = [];
  const p = parsed(t.text);
  if (!p || !p.doc.contents) return out;
  const seen = new Set<Node>();
  const stack: Node[] = [p.doc.contents as Node];
  let budget = 200_000;
  while (stack.length > 0 && budget-- > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (isMap(n)) {
      const keys = new Set<string>();
      for (const it of n.items) {
        if (isScalar(it.key)) {
          const k = String(it.key.value);
          if (keys.has(k)) out.push({ key: k, line: (lineAt(p.lc, it.key as Node) ?? 1) + t.firstLine - 1 });
          keys.add(k);
        }
        if (it.value) stack.push(it.value as Node);
      }
    } else if (isSeq(n)) {
      for (const it of n.items) stack.push(it as Node);
    }
  }
  return out.sort((a, b) => a.line - b.line);
}
