/**
 * Reusing the YAML parse of a rendered template across renders (issue 16 §2: parsing rendered
 * YAML back was ~45 % of a render). A template's output is its literal text with the printed
 * values of its actions in between ("holes", recorded by the engine). Renders whose literal text
 * is the same — the same control flow, per-HCP values only inside scalars — parse to the same
 * structure with different scalars. So: parse the literal text once with a private-use sentinel
 * in each hole (the "shape"), then build each later render's objects from the shape and the hole
 * values, with exactly the scalar rules the block YAML reader (src/yaml/fast-block.ts) applies.
 *
 * Soundness rests on what a hole value may contain: a value is a hole only when it cannot change
 * the line structure or the quoting it sits in (no line breaks or control characters, no quotes,
 * backslash or `#`, no `: `, no edge whitespace), or when it is one whole quoted scalar without
 * escapes (`quote`, `toJson` of a string) standing where a plain scalar stood alone; any other
 * value (a `toYAML | nindent` block, a string with escapes) is kept as literal text, so it
 * becomes part of the key. Shapes are refused
 * where a hole could still matter structurally (inside a key, at a line start, in a comment,
 * anything the block reader bails on); a plain scalar's text is re-checked per render and resolved
 * with the same YAML 1.1 rules. Anything refused takes the full parse. A differential test
 * (test/pko/render-shape.test.ts) compares both paths.
 */
import { BAIL, parseFastBlock } from '../yaml/fast-block.js';
import { DEFAULT_YAML_LIMITS, resolvePlain11, splitPkoDocuments } from '../yaml/parse.js';
import type { KubeObject, ObjectRef } from './objects.js';

/** A template's output with its printed actions' [start, end) offsets (TemplateSet.executeWithHoles). */
export interface HoledText {
  text: string;
  holes: number[];
}

const SENTINEL_LEAD = 0xe000;
const SENTINEL_BASE = 0xe100;
const MAX_HOLES = 0xf8ff - SENTINEL_BASE;
// Distinct literal texts remembered per template (seen once, or shaped); a churn of one-off
// texts clears the map rather than growing it.
const MAX_ENTRIES = 64;
// …and at most this many characters of keys per template (a shape holds about as much again).
const MAX_KEY_CHARS = 4 << 20;

let hits = 0;
/** How many outputs were built from a shape (tests check that the fast path is taken). */
export function shapeStats(): { hits: number } {
  return { hits };
}

class Fallback extends Error {}
const FALLBACK = new Fallback();

/** A scalar with holes: `parts[0] v[idx[0]] parts[1] …`; plain scalars resolve like YAML 1.1. */
class HoleScalar {
  constructor(
    readonly parts: string[],
    readonly idx: number[],
    readonly plain: boolean,
  ) {}

  value(vals: string[]): unknown {
    if (this.idx.length === 1 && this.parts[0] === '' && this.parts[1] === '') {
      // the whole scalar is one printed value: a quoted one (`quote`, `toJson`) is that scalar
      const v = vals[this.idx[0]!]!;
      const q = v.charCodeAt(0);
      if (q === 0x22 || q === 0x27) {
        if (!this.plain) throw FALLBACK;
        return q === 0x22 ? v.slice(1, -1) : v.slice(1, -1).replaceAll("''", "'");
      }
    }
    let s = this.parts[0]!;
    for (let i = 0; i < this.idx.length; i++) {
      const v = vals[this.idx[i]!]!;
      const q = v.charCodeAt(0);
      // a quoted value inside a larger quoted or literal scalar could end it: not taken
      if ((q === 0x22 || q === 0x27) && !this.plain) throw FALLBACK;
      s += v + this.parts[i + 1]!;
    }
    if (!this.plain) return s;
    if (!plainScalarOk(s)) throw FALLBACK;
    return resolvePlain11(s);
  }
}

/**
 * A mapping of a shape: keys computed once, so building a copy walks arrays only. `holeFree`:
 * nothing below is a hole; `frozen`: then the same value, deep-frozen, made on the first render
 * that shares (frozenOf) and handed out as is to every later one.
 */
class ObjNode {
  frozen?: unknown;
  constructor(
    readonly keys: string[],
    readonly vals: unknown[],
    readonly holeFree: boolean,
  ) {}
}

/** A sequence of a shape (see ObjNode). */
class ArrNode {
  frozen?: unknown;
  constructor(
    readonly items: unknown[],
    readonly holeFree: boolean,
  ) {}
}

/** What the block reader's resolver hands back for a plain scalar containing sentinels. */
class PlainMark {
  constructor(readonly raw: string) {}
  toString(): string {
    return this.raw;
  }
}

const holeResolver = (plain: string): unknown => (plain.includes(String.fromCharCode(SENTINEL_LEAD)) ? new PlainMark(plain) : resolvePlain11(plain));

/** fast-block's conditions for a one-line plain scalar (inlineValue), on its full text. */
function plainScalarOk(t: string): boolean {
  if (t.length === 0) return false;
  const c = t[0]!;
  if ('"\'[{|&*!>%@`,]}?#'.includes(c)) return false;
  if (c === '-' && (t.length === 1 || t[1] === ' ')) return false;
  return !t.includes(': ') && !t.endsWith(':') && !t.includes(' #');
}

const isSpace = (c: number): boolean => c === 32 || (c > 127 && /\s/.test(String.fromCharCode(c)));

/**
 * A printed value that cannot change line structure or quoting: a hole; otherwise literal text.
 * Also a value that is one whole quoted scalar (`"…"` without escapes, `'…'` with only `''`),
 * which HoleScalar accepts only where a plain scalar stood on its own.
 */
function holeSafe(v: string): boolean {
  const n = v.length;
  const q = v.charCodeAt(0);
  if (n >= 2 && (q === 0x22 || q === 0x27) && v.charCodeAt(n - 1) === q) return quotedHoleSafe(v, q);
  if (n === 0 || isSpace(v.charCodeAt(0)) || isSpace(v.charCodeAt(n - 1))) return false;
  for (let i = 0; i < n; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x22 || c === 0x23 || c === 0x27 || c === 0x5c || c === 0x7f) return false;
    if (c === 0x3a && v.charCodeAt(i + 1) === 0x20) return false;
    // surrogates, private use (our sentinels), BOM
    if (c >= 0xd800 && (c <= 0xf8ff || c === 0xfeff)) return false;
  }
  return true;
}

function quotedHoleSafe(v: string, q: number): boolean {
  for (let i = 1; i < v.length - 1; i++) {
    const c = v.charCodeAt(i);
    if (c < 0x20 || c === 0x5c || c === 0x7f || (c >= 0xd800 && (c <= 0xf8ff || c === 0xfeff))) return false;
    if (c === q) {
      // inside '…' a quote is only ever doubled; inside "…" not at all (no escapes taken)
      if (q === 0x22 || v.charCodeAt(i + 1) !== q || i + 1 >= v.length - 1) return false;
      i++;
    }
  }
  return true;
}

interface ShapeDoc {
  doc: number;
  tree: unknown;
}

interface Shape {
  holes: number;
  docCount: number;
  docs: ShapeDoc[];
  /** Only `-`/newlines follow the last hole: PKO's cutset trim would eat a trailing `-` of it. */
  tailDash: boolean;
}

type Entry = Shape | 'seen' | null;

/** Shapes of one template's outputs, keyed by literal text (holes marked). */
export class ShapeCache {
  private readonly entries = new Map<string, Entry>();
  private keyChars = 0;
  /** The shape used last and its literal parts: consecutive renders usually share it (no key string). */
  private last: { parts: string[]; shape: Shape } | null = null;

  /**
   * The objects of `path`'s rendered text, from a shape when one applies, else undefined (the
   * caller parses the text). Only for outputs the full reader would parse without a violation.
   * `share`: parts without holes are the same frozen objects in every render (no copies).
   * `metadataOnly`: each object carries only its apiVersion, kind and metadata (every hole's value
   * is still checked, so a text falls back exactly when it would for the whole object).
   */
  objects(path: string, h: HoledText, share = false, metadataOnly = false): ObjectRef[] | undefined {
    const text = h.text;
    const limit = Math.min(DEFAULT_YAML_LIMITS.maxChars, DEFAULT_YAML_LIMITS.maxNodes);
    if (text.length > limit || text.charCodeAt(0) === 0xfeff || text.includes(String.fromCharCode(SENTINEL_LEAD))) return undefined;
    const parts: string[] = [];
    const vals: string[] = [];
    let prev = 0;
    for (let i = 0; i < h.holes.length; i += 2) {
      const s = h.holes[i]!;
      const e = h.holes[i + 1]!;
      const v = text.slice(s, e);
      if (!holeSafe(v)) continue; // stays literal text, part of the key
      parts.push(text.slice(prev, s));
      vals.push(v);
      prev = e;
    }
    parts.push(text.slice(prev));
    if (vals.length > MAX_HOLES) return undefined;
    const last = this.last;
    if (last !== null && sameParts(last.parts, parts)) return instantiate(last.shape, path, text, vals, share, metadataOnly);
    const key = parts.join(String.fromCharCode(SENTINEL_LEAD));
    let entry = this.entries.get(key);
    if (entry === undefined) {
      // seen once: shape it only if it comes back (one-off texts cost no second parse)
      if (this.entries.size >= MAX_ENTRIES || this.keyChars + key.length > MAX_KEY_CHARS) {
        this.entries.clear();
        this.keyChars = 0;
        this.last = null;
      }
      this.entries.set(key, 'seen');
      this.keyChars += key.length;
      return undefined;
    }
    if (entry === 'seen') {
      entry = buildShape(parts);
      this.entries.set(key, entry);
    }
    if (entry === null) return undefined;
    this.last = { parts, shape: entry };
    return instantiate(entry, path, text, vals, share, metadataOnly);
  }
}

function sameParts(a: string[], b: string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sentinel(i: number): string {
  return String.fromCharCode(SENTINEL_LEAD, SENTINEL_BASE + i);
}

function buildShape(parts: string[]): Shape | null {
  let st = parts[0]!;
  const at: number[] = [];
  for (let i = 1; i < parts.length; i++) {
    at.push(st.length);
    st += sentinel(i - 1) + parts[i];
  }
  const holes = parts.length - 1;
  for (const p of at) {
    // A hole at a line start could make `---`, `...`, a comment, an indentation or a sequence
    // indicator: refuse it (and after `-`, `--`, `.`, `..` likewise).
    let j = p - 1;
    while (j >= 0 && st.charCodeAt(j) === 32) j--;
    let k = j;
    while (k >= 0 && st[k] !== '\n') k--;
    const prefix = st.slice(k + 1, p).trimStart();
    if (prefix === '' || prefix === '-' || prefix === '--' || prefix === '.' || prefix === '..') return null;
  }
  const tail = holes > 0 ? st.slice(at[holes - 1]! + 2) : '';
  const tailDash = holes > 0 && /^[-\n]*$/.test(tail);
  const docs = splitPkoDocuments(st);
  const out: ShapeDoc[] = [];
  const seen = new Set<number>();
  for (let d = 0; d < docs.length; d++) {
    const text = docs[d]!.text;
    if (text === '') continue;
    const v = parseFastBlock(text, holeResolver, DEFAULT_YAML_LIMITS.maxDepth);
    if (v === BAIL) return null;
    if (v === null || v === undefined) {
      if (text.includes(String.fromCharCode(SENTINEL_LEAD))) return null;
      continue;
    }
    if (typeof v !== 'object' || Array.isArray(v)) return null; // a violation: the full path reports it
    let tree: unknown;
    try {
      tree = toShape(v, seen);
    } catch (e) {
      if (e instanceof Fallback) return null;
      throw e;
    }
    const kind = (v as KubeObject).kind;
    if (typeof kind !== 'string' || kind === '' || kind.includes(String.fromCharCode(SENTINEL_LEAD))) return null;
    out.push({ doc: d, tree });
  }
  // a hole that is nowhere in the result (a comment, an overwritten duplicate key): refuse
  if (seen.size !== holes) return null;
  return { holes, docCount: docs.length, docs: out, tailDash };
}

function scalarShape(s: string, plain: boolean, seen: Set<number>): HoleScalar {
  const parts: string[] = [];
  const idx: number[] = [];
  let from = 0;
  for (let k = s.indexOf(String.fromCharCode(SENTINEL_LEAD)); k >= 0; k = s.indexOf(String.fromCharCode(SENTINEL_LEAD), from)) {
    const i = s.charCodeAt(k + 1) - SENTINEL_BASE;
    parts.push(s.slice(from, k));
    idx.push(i);
    seen.add(i);
    from = k + 2;
  }
  parts.push(s.slice(from));
  return new HoleScalar(parts, idx, plain);
}

function toShape(v: unknown, seen: Set<number> | null): unknown {
  if (v instanceof PlainMark) {
    if (!seen) throw FALLBACK;
    return scalarShape(v.raw, true, seen);
  }
  if (typeof v === 'string') {
    if (!v.includes(String.fromCharCode(SENTINEL_LEAD))) return v;
    if (!seen) throw FALLBACK;
    return scalarShape(v, false, seen);
  }
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    const items = v.map((x) => toShape(x, seen));
    return new ArrNode(items, items.every(holeFree));
  }
  const keys = Object.keys(v);
  const children = new Array<unknown>(keys.length);
  for (let i = 0; i < keys.length; i++) {
    if (seen && keys[i]!.includes(String.fromCharCode(SENTINEL_LEAD))) throw FALLBACK; // a key with a hole
    children[i] = toShape((v as Record<string, unknown>)[keys[i]!], seen);
  }
  return new ObjNode(keys, children, children.every(holeFree));
}

const holeFree = (c: unknown): boolean => !(c instanceof HoleScalar) && (c === null || typeof c !== 'object' || (c as ObjNode | ArrNode).holeFree);

/**
 * A hole-free node's shared value, made once: its children are shared (frozen) values or
 * primitives, so freezing the node's own object freezes the whole tree.
 */
function frozenOf(n: ObjNode | ArrNode): unknown {
  return (n.frozen ??= Object.freeze(buildNode(n, [], true)));
}

/** A value from a shape node: fresh objects throughout, or with `share` hole-free parts shared (frozen). */
function build(n: unknown, vals: string[], share: boolean): unknown {
  if (n === null || typeof n !== 'object') return n;
  if (n instanceof HoleScalar) return n.value(vals);
  const node = n as ObjNode | ArrNode;
  if (share && node.holeFree) return frozenOf(node);
  return buildNode(node, vals, share);
}

/** The node's own object or array (never the shared one), its children by `build`. */
function buildNode(n: ObjNode | ArrNode, vals: string[], share: boolean): unknown {
  if (n instanceof ObjNode) {
    const out: Record<string, unknown> = {};
    const ks = n.keys;
    const vs = n.vals;
    for (let i = 0; i < ks.length; i++) out[ks[i]!] = build(vs[i], vals, share);
    return out;
  }
  const items = n.items;
  const a = new Array(items.length);
  for (let i = 0; i < items.length; i++) a[i] = build(items[i], vals, share);
  return a;
}

/** Every hole's value below `n`, checked as `build` would (a Fallback throws), nothing built. */
function checkHoles(n: unknown, vals: string[]): void {
  if (n === null || typeof n !== 'object') return;
  if (n instanceof HoleScalar) {
    n.value(vals);
    return;
  }
  if ((n as ObjNode | ArrNode).holeFree) return;
  const children = n instanceof ObjNode ? n.vals : (n as ArrNode).items;
  for (let i = 0; i < children.length; i++) checkHoles(children[i], vals);
}

const HEAD_KEYS = new Set(['apiVersion', 'kind', 'metadata']);

/** A document's apiVersion, kind and metadata only (holes elsewhere checked, not built). */
function buildHead(n: unknown, vals: string[]): unknown {
  if (!(n instanceof ObjNode) || n.holeFree) return build(n, vals, true);
  const out: Record<string, unknown> = {};
  for (let i = 0; i < n.keys.length; i++) {
    const k = n.keys[i]!;
    if (HEAD_KEYS.has(k)) out[k] = build(n.vals[i], vals, true);
    else checkHoles(n.vals[i], vals);
  }
  return out;
}

function instantiate(shape: Shape, path: string, text: string, vals: string[], share: boolean, metadataOnly = false): ObjectRef[] | undefined {
  if (vals.length !== shape.holes) return undefined;
  if (shape.tailDash && vals[vals.length - 1]!.endsWith('-')) return undefined;
  const docs = splitPkoDocuments(text);
  if (docs.length !== shape.docCount) return undefined;
  const objects: ObjectRef[] = [];
  try {
    for (const sd of shape.docs) {
      const d = docs[sd.doc]!;
      objects.push({ path, index: objects.length, doc: sd.doc, line: d.line, text: d.text, object: (metadataOnly ? buildHead(sd.tree, vals) : build(sd.tree, vals, share)) as KubeObject });
    }
  } catch (e) {
    if (e instanceof Fallback) return undefined;
    throw e;
  }
  hits++;
  return objects;
}

/**
 * Parsed JSON-like data made into a template for cheap deep copies (`copyOf`): what the renderer
 * keeps of a static file, whose objects every render hands out afresh (callers may mutate them).
 */
export interface CopyTemplate {
  readonly node: unknown;
}

export function copyTemplate(v: unknown): CopyTemplate {
  return { node: toShape(v, null) };
}

/** A fresh deep copy; with `share`, the frozen original itself (callers that never modify objects). */
export function copyOf<T>(t: CopyTemplate, share = false): T {
  return build(t.node, [], share) as T;
}
