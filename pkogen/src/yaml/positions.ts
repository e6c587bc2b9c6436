/**
 * Where things are in a YAML text: the line of a field path and the keys a mapping repeats. The
 * one home for YAML positions (validate's findings, rollout Templates, limit errors).
 *
 * Positions come from the same block parser that reads the values (fast-block.ts), run in its
 * recording mode, so the common manifest costs one cheap pass and loads nothing. Texts that
 * parser leaves to the full parser (flow collections, anchors, multi-line scalars, several
 * documents…) are walked with eemeli/yaml, loaded only then. Aliases are not followed, so a
 * YAML bomb walks in time proportional to its text.
 */
import { createRequire } from 'node:module';
import { BAIL, knownDuplicateFree, parseFastBlockPositions, type DuplicateKey, type PositionNode } from './fast-block.js';
import { resolvePlain11 } from './scalars.js';
import { parsePath } from '../core/field-path.js';

export type { DuplicateKey, PositionNode } from './fast-block.js';

export type PathSegment = string | number;

/** A text and where it starts in its file (a document of a multi-document file). */
export interface LocatedText {
  text: string;
  /** 1-based line of the text's first line in its file. */
  firstLine: number;
}

export interface YamlPositions {
  /** Null for an empty document or a text that is not YAML. */
  root: PositionNode | null;
  /** Keys repeated in one mapping, by line (lines relative to the text, 1-based). */
  duplicates: DuplicateKey[];
  /** False when the text has YAML errors: its keys mean nothing, so no duplicates are reported. */
  valid: boolean;
}

type YamlLib = typeof import('yaml');
let yamlLib: YamlLib | undefined;
const Y = (): YamlLib => (yamlLib ??= createRequire(import.meta.url)('yaml') as YamlLib);

const NONE: YamlPositions = { root: null, duplicates: [], valid: false };
const cache = new Map<string, YamlPositions>();
const CACHE_MAX = 1000;

/**
 * Positions of document `doc` (0-based) of `text`; cached per text, since one text is asked for
 * many lines (one per finding) and, with template tests, rendered identically by several cases.
 */
export function positionsOf(text: string, doc = 0): YamlPositions {
  const key = doc === 0 ? text : `${doc}\u0000${text}`;
  let p = cache.get(key);
  if (p === undefined) {
    p = compute(text, doc);
    if (cache.size >= CACHE_MAX) cache.clear();
    cache.set(key, p);
  }
  return p;
}

function compute(text: string, doc: number): YamlPositions {
  if (doc === 0) {
    const fast = parseFastBlockPositions(text, resolvePlain11);
    if (fast !== BAIL) return { root: fast.positions.root, duplicates: fast.positions.duplicates, valid: true };
  }
  return positionsByFullParser(text, doc);
}

/**
 * Positions from eemeli/yaml, for what the block parser bails on (exported for the differential
 * test). Iterative: nesting depth is the text's, not the stack's.
 */
export function positionsByFullParser(text: string, doc = 0): YamlPositions {
  try {
    return walkYamlLib(text, doc);
  } catch {
    // Positions are a convenience: the parse that reads values reports bad YAML.
    return NONE;
  }
}

function walkYamlLib(text: string, doc: number): YamlPositions {
  const { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments } = Y();
  const lc = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lc, uniqueKeys: false, version: '1.1' });
  const d = Array.isArray(docs) ? docs[doc] : undefined;
  if (!d || !d.contents) return NONE;
  const lineAt = (n: unknown): number | undefined => {
    const r = (n as { range?: [number, number, number] } | null | undefined)?.range;
    return r ? lc.linePos(r[0]).line : undefined;
  };
  const duplicates: DuplicateKey[] = [];
  const root: PositionNode = { line: lineAt(d.contents) ?? 1 };
  const stack: { n: unknown; p: PositionNode }[] = [{ n: d.contents, p: root }];
  while (stack.length > 0) {
    const { n, p } = stack.pop()!;
    if (isAlias(n)) continue;
    if (isMap(n)) {
      p.keys = new Map();
      for (const it of n.items) {
        if (!isScalar(it.key)) continue;
        const k = String(it.key.value);
        const child: PositionNode = { line: lineAt(it.key) ?? p.line };
        if (p.keys.has(k)) duplicates.push({ key: k, line: child.line });
        else p.keys.set(k, child);
        if (it.value) stack.push({ n: it.value, p: child });
      }
    } else if (isSeq(n)) {
      p.items = n.items.map((it) => {
        const child: PositionNode = { line: lineAt(it) ?? p.line };
        stack.push({ n: it, p: child });
        return child;
      });
    }
  }
  duplicates.sort((a, b) => a.line - b.line);
  return { root, duplicates, valid: d.errors.length === 0 };
}

/**
 * 1-based line (in the file) of `path`, or of its deepest ancestor present in the text;
 * undefined when the text has no document.
 */
export function lineOf(t: LocatedText, path: readonly PathSegment[], doc = 0): number | undefined {
  const root = positionsOf(t.text, doc).root;
  if (!root) return undefined;
  let node = root;
  for (const seg of path) {
    const child = node.keys ? node.keys.get(String(seg)) : node.items && typeof seg === 'number' ? node.items[seg] : undefined;
    if (!child) break;
    node = child;
  }
  return node.line + t.firstLine - 1;
}

/**
 * Cheap line scan that says whether a block-style text may repeat a key in one mapping. It never
 * misses a block-style duplicate (plain keys are compared resolved, as the parse compares them);
 * flow mappings, complex keys and odd layouts answer "maybe", and the positions parse then
 * decides. Keeps validation of thousands of objects fast. `duplicateKeys` skips it for texts the
 * value parse already read without a repeated key.
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
    if (/^---\s*(#.*)?$/.test(line)) {
      // a new document: its mappings are new
      frames.length = 0;
      continue;
    }
    if (trimmed.startsWith('? ') || trimmed.startsWith('---') || line.includes('\t')) return true;
    let rest = trimmed;
    let newItem = false;
    while (rest.startsWith('- ') || rest === '-') {
      const after = rest.slice(1);
      const sp = after.length - after.trimStart().length;
      indent += 1 + sp;
      rest = after.trimStart();
      newItem = true;
    }
    // A flow collection starts where a node starts (a line, an item, a value), never inside a
    // plain or quoted scalar: `{` elsewhere (`rate(x{job="a"}[5m])`, `'{"a": 1}'`) is text.
    if (flowStart(rest)) return true;
    const m = /^("(?:[^"\\]|\\.)*"|'[^']*'|[^\s#'"\[\]][^:#]*?)\s*:(?:\s|$)/.exec(rest);
    if (!m) continue;
    if (flowStart(rest.slice(m[0].length).trimStart())) return true;
    while (frames.length > 0 && (frames[frames.length - 1].indent > indent || (newItem && frames[frames.length - 1].indent >= indent))) frames.pop();
    let top = frames[frames.length - 1];
    if (!top || top.indent < indent) {
      top = { indent, keys: new Set() };
      frames.push(top);
    }
    // Compared as the parse compares them: a plain key resolved first (YAML 1.1: `yes` is `true`).
    const key = m[1].startsWith('"') || m[1].startsWith("'") ? m[1].slice(1, -1) : String(resolvePlain11(m[1]) ?? 'null');
    if (top.keys.has(key)) return true;
    top.keys.add(key);
    if (/^[|>][-+0-9]*\s*(#.*)?$/.test(rest.slice(m[0].length).trim())) blockParent = indent;
  }
  return false;
}

/** A node that opens a flow mapping, or a flow sequence that may hold one (or go on to the next line). */
function flowStart(node: string): boolean {
  if (/^\{\s*\}\s*(#.*)?$/.test(node)) return false; // `{}`: no key at all
  return node.startsWith('{') || (node.startsWith('[') && (node.includes('{') || !node.includes(']')));
}

/** Keys that appear twice in the same mapping (PKO keeps the last one silently), lines in the file. */
export function duplicateKeys(t: LocatedText): DuplicateKey[] {
  if (knownDuplicateFree(t.text, resolvePlain11)) return [];
  return mayHaveDuplicateKeys(t.text) ? duplicateKeysExact(t) : [];
}

/** The exact answer from the positions parse (no prefilter). */
export function duplicateKeysExact(t: LocatedText): DuplicateKey[] {
  const p = positionsOf(t.text);
  // text that is not valid YAML is reported as such elsewhere; its keys mean nothing
  if (!p.valid) return [];
  return p.duplicates.map((d) => ({ key: d.key, line: d.line + t.firstLine - 1 }));
}

/** 1-based line of a field path (src/core/field-path.ts notation) in a located YAML text, or of its nearest ancestor. */
export function lineOfField(t: LocatedText, path: string): number | undefined {
  return lineOf(t, parsePath(path));
}
