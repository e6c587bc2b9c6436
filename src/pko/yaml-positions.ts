/**
 * Where a field is in a YAML text: a position-aware parse (eemeli/yaml) walked along a field
 * path. Parsing happens only when a finding needs a line, and aliases are capped.
 */
import { createRequire } from 'node:module';
import type { LineCounter, Node, parseDocument as ParseDocument } from 'yaml';

// The position-aware parser is needed only when a finding needs a line: load it then.
type YamlLib = typeof import('yaml');
let yamlLib: YamlLib | undefined;
const Y = (): YamlLib => (yamlLib ??= createRequire(import.meta.url)('yaml') as YamlLib);
import { parsePath } from '../core/field-path.js';

export interface LocatedText {
  text: string;
  /** 1-based line of the text's first line in its file. */
  firstLine: number;
}

const cache = new Map<string, { doc: ReturnType<typeof ParseDocument>; lc: LineCounter } | null>();

function parsed(text: string) {
  let c = cache.get(text);
  if (c === undefined) {
    try {
      const lc = new (Y().LineCounter)();
      const doc = Y().parseDocument(text, { lineCounter: lc, uniqueKeys: false, version: '1.1' });
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
    if (Y().isMap(node)) {
      const pair: { key: unknown; value: unknown } | undefined = node.items.find((it) => Y().isScalar(it.key) && String(it.key.value) === String(seg));
      if (!pair) break;
      line = lineAt(p.lc, pair.key as Node) ?? line;
      node = (pair.value as Node) ?? null;
    } else if (Y().isSeq(node) && typeof seg === 'number') {
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

/**
 * Cheap line scan that says whether a block-style text may repeat a key in one mapping. It never
 * misses a block-style duplicate; flow mappings, complex keys and odd layouts answer "maybe", and
 * the exact (slow) parse then decides. Keeps validation of thousands of objects fast.
 */
export function mayHaveDuplicateKeys(text: string): boolean {
  const frames: { indent: number; keys: Set<string> }[] = [];
  let blockParent = -1;
  let blockContent = -1;
  for (const raw of text.split('\n')) {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const trimmed = line.trimStart();
    let indent = line.length - trimmed.length;
    if (blockParent >= 0) {
      if (trimmed === '') continue;
      if (blockContent < 0 && indent > blockParent) {
        blockContent = indent;
        continue;
      }
      if (blockContent >= 0 && indent >= blockContent) continue;
      blockParent = blockContent = -1;
    }
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    if (trimmed.includes('{') || trimmed.startsWith('? ') || trimmed.startsWith('---') || line.includes('\t')) return true;
    let rest = trimmed;
    let newItem = false;
    while (rest.startsWith('- ') || rest === '-') {
      const after = rest.slice(1);
      const sp = after.length - after.trimStart().length;
      indent += 1 + sp;
      rest = after.trimStart();
      newItem = true;
    }
    const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\[\]][^:#]*?)\s*:(?:\s|$)/.exec(rest);
    if (!m) continue;
    while (frames.length > 0 && (frames[frames.length - 1].indent > indent || (newItem && frames[frames.length - 1].indent >= indent))) frames.pop();
    let top = frames[frames.length - 1];
    if (!top || top.indent < indent) {
      top = { indent, keys: new Set() };
      frames.push(top);
    }
    const key = m[1].startsWith('"') || m[1].startsWith("'") ? m[1].slice(1, -1) : m[1];
    if (top.keys.has(key)) return true;
    top.keys.add(key);
    if (/^[|>][-+0-9]*\s*(#.*)?$/.test(rest.slice(m[0].length).trim())) blockParent = indent;
  }
  return false;
}

/** Keys that appear twice in the same mapping (PKO keeps the last one silently). */
export function duplicateKeys(t: LocatedText): { key: string; line: number }[] {
  return mayHaveDuplicateKeys(t.text) ? duplicateKeysExact(t) : [];
}

/** The exact answer from a full parse (slow; use duplicateKeys). */
export function duplicateKeysExact(t: LocatedText): { key: string; line: number }[] {
  const out: { key: string; line: number }[] = [];
  const p = parsed(t.text);
  // text that is not valid YAML is reported as such elsewhere; its keys mean nothing
  if (!p || !p.doc.contents || p.doc.errors.length > 0) return out;
  const seen = new Set<Node>();
  const stack: Node[] = [p.doc.contents as Node];
  let budget = 200_000;
  while (stack.length > 0 && budget-- > 0) {
    const n = stack.pop()!;
    if (seen.has(n)) continue;
    seen.add(n);
    if (Y().isMap(n)) {
      const keys = new Set<string>();
      for (const it of n.items) {
        if (Y().isScalar(it.key)) {
          const k = String(it.key.value);
          if (keys.has(k)) out.push({ key: k, line: (lineAt(p.lc, it.key as Node) ?? 1) + t.firstLine - 1 });
          keys.add(k);
        }
        if (it.value) stack.push(it.value as Node);
      }
    } else if (Y().isSeq(n)) {
      for (const it of n.items) stack.push(it as Node);
    }
  }
  return out.sort((a, b) => a.line - b.line);
}
