/**
 * A fast path for the YAML that Kubernetes manifests and rendered templates almost always are:
 * block mappings and sequences, single-line plain/quoted scalars, literal block scalars, empty
 * flow collections, comments. Anything else (anchors, aliases, tags, flow content, multi-line
 * plain or quoted scalars, folded scalars, complex or quoted keys, tabs, documents markers…)
 * returns BAIL and the caller uses the full parser. Scalars resolve through the same YAML 1.1
 * rules as the full parser; a differential test keeps the two identical.
 */

export const BAIL: unique symbol = Symbol('bail');
type Bail = typeof BAIL;

class BailError extends Error {}
const bail = (): never => {
  throw new BailError();
};

export type ScalarResolver = (plain: string) => unknown;

/**
 * Where each node of a document is (src/yaml/positions.ts): the 1-based line of a mapping key
 * (for its value) or of a sequence item; children by key or index.
 */
export interface PositionNode {
  line: number;
  keys?: Map<string, PositionNode>;
  items?: PositionNode[];
}

/** A key that appears twice in one mapping; `line` is the later one's. */
export interface DuplicateKey {
  key: string;
  line: number;
}

export interface FastPositions {
  root: PositionNode | null;
  duplicates: DuplicateKey[];
}

interface Line {
  indent: number;
  text: string; // without indentation, trailing \r kept out
}

const DQ: Record<string, string> = {
  '0': '\0', a: '\x07', b: '\b', t: '\t', '\t': '\t', n: '\n', v: '\v', f: '\f', r: '\r', e: '\x1b', ' ': ' ', '"': '"', '/': '/', '\\': '\\',
  N: '\u0085', _: '\u00a0', L: '\u2028', P: '\u2029',
};

/**
 * Texts this parser read whole without meeting a key twice in one mapping, per scalar resolver
 * (keys are compared resolved: `yes` and `true` are one key in YAML 1.1): the duplicate-key check
 * (positions.ts `duplicateKeys`) need not scan them again. Bounded: a forgotten text is only
 * scanned.
 */
const duplicateFree = new WeakMap<ScalarResolver, { texts: Set<string>; chars: number }>();
/** What the sets may hold (they keep their texts alive): 4,096 texts or 4 M characters. */
const DUPLICATE_FREE_MAX = 4096;
const DUPLICATE_FREE_MAX_CHARS = 4 << 20;

/** True when parseFastBlock read `text` with `resolve` and no mapping in it repeats a key. */
export function knownDuplicateFree(text: string, resolve: ScalarResolver): boolean {
  return duplicateFree.get(resolve)?.texts.has(text) === true;
}

/**
 * `maxDepth`: deeper nesting bails, so callers can leave limits to the full parser's path.
 * `noteDuplicateFree`: remember the text for knownDuplicateFree when no key repeats (callers
 * whose texts become objects; a shape's holed text never is one).
 */
export function parseFastBlock(text: string, resolve: ScalarResolver, maxDepth = Infinity, noteDuplicateFree = false): unknown | Bail {
  try {
    const p = new FastParser(text, resolve, maxDepth);
    const v = p.parseDocument();
    if (noteDuplicateFree && !p.repeatedKey && text.length <= DUPLICATE_FREE_MAX_CHARS) {
      let known = duplicateFree.get(resolve);
      if (!known) duplicateFree.set(resolve, (known = { texts: new Set(), chars: 0 }));
      if (known.texts.size >= DUPLICATE_FREE_MAX || known.chars + text.length > DUPLICATE_FREE_MAX_CHARS) {
        known.texts.clear();
        known.chars = 0;
      }
      if (!known.texts.has(text)) {
        known.texts.add(text);
        known.chars += text.length;
      }
    }
    return v;
  } catch (e) {
    // absurd nesting overflows the recursion: the full parser reports it properly
    if (e instanceof BailError || e instanceof RangeError) return BAIL;
    throw e;
  }
}

/**
 * The same parse, also recording each node's line and every duplicate key (what the value parse
 * keeps silently: last wins). BAIL exactly where parseFastBlock bails.
 */
export function parseFastBlockPositions(text: string, resolve: ScalarResolver, maxDepth = Infinity): { value: unknown; positions: FastPositions } | Bail {
  try {
    const p = new FastParser(text, resolve, maxDepth, true);
    const value = p.parseDocument();
    return { value, positions: { root: p.root, duplicates: p.duplicates } };
  } catch (e) {
    if (e instanceof BailError || e instanceof RangeError) return BAIL;
    throw e;
  }
}

class FastParser {
  private readonly lines: (Line | null)[] = [];
  private i = 0;
  private depth = 0;

  private readonly keys: Map<string, string | null>;
  /** Recording positions: the node being parsed (undefined when not recording). */
  private pos: PositionNode | undefined;
  root: PositionNode | null = null;
  readonly duplicates: DuplicateKey[] = [];
  /** A mapping may repeat a key (an inherited name such as `constructor` also counts: only ever a false alarm). */
  repeatedKey = false;

  constructor(text: string, private readonly resolve: ScalarResolver, private readonly maxDepth: number, private readonly record = false) {
    if (text.includes('\t') || text.includes('\r') || text.charCodeAt(0) === 0xfeff) bail();
    this.keys = keyCacheFor(resolve);
    this.raw = text.split('\n');
    for (const raw of this.raw) {
      let n = 0;
      while (raw.charCodeAt(n) === 32) n++;
      // blank and comment-only lines carry no structure (but matter inside block scalars: kept raw)
      const first = raw.charCodeAt(n);
      this.lines.push(n === raw.length || first === 35 ? null : { indent: n, text: n === 0 ? raw : raw.slice(n) });
    }
  }
  private readonly raw: string[];

  private skipBlank(): void {
    while (this.i < this.lines.length && this.lines[this.i] === null) this.i++;
  }

  parseDocument(): unknown {
    this.skipBlank();
    if (this.i >= this.lines.length) return null;
    const first = this.lines[this.i]!;
    if (first.text.startsWith('---') || first.text.startsWith('...') || first.text[0] === '%') bail();
    if (this.record) this.root = this.pos = { line: this.i + 1 };
    const v = this.parseBlock(first.indent, first.text, -1);
    this.skipBlank();
    if (this.i < this.lines.length) bail();
    return v;
  }

  /**
   * Parses the node whose first line (or line remainder) `text` starts at column `col`;
   * `this.i` points at the line it belongs to. `parentIndent` is the enclosing block's indent.
   */
  private parseBlock(col: number, text: string, parentIndent: number): unknown {
    if (text === '-' || text.startsWith('- ')) return this.nested(() => this.parseSequence(col, text, parentIndent));
    if (keyEnd(text) >= 0) return this.nested(() => this.parseMapping(col, text));
    // a lone scalar document / item
    return this.scalarValue(text, col, parentIndent);
  }

  private nested<T>(f: () => T): T {
    if (++this.depth > this.maxDepth) bail();
    const v = f();
    this.depth--;
    return v;
  }

  private parseSequence(col: number, text: string, parentIndent: number): unknown[] {
    const out: unknown[] = [];
    const node = this.pos;
    const items: PositionNode[] | undefined = node ? (node.items = []) : undefined;
    let cur: string | null = text;
    for (;;) {
      if (cur === null) {
        this.skipBlank();
        const l = this.lines[this.i];
        if (!l || l.indent !== col || !(l.text === '-' || l.text.startsWith('- '))) break;
        cur = l.text;
      }
      // an item whose content starts on a later line: js-yaml and go-yaml disagree on some of
      // these (nested indentless sequences), so leave them to the full parser
      if (cur === '-') bail();
      else {
        let n = 2;
        while (cur[n] === ' ') n++;
        const rest = cur.slice(n);
        if (rest === '' || rest[0] === '#') bail();
        if (items) items.push((this.pos = { line: this.i + 1 }));
        out.push(this.parseBlock(col + n, rest, col));
      }
      cur = null;
    }
    this.pos = node;
    void parentIndent;
    return out;
  }

  private parseMapping(col: number, text: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const node = this.pos;
    const keys: Map<string, PositionNode> | undefined = node ? (node.keys = new Map()) : undefined;
    let cur: string | null = text;
    for (;;) {
      if (cur === null) {
        this.skipBlank();
        const l = this.lines[this.i];
        if (!l || l.indent < col) break;
        if (l.indent > col) bail();
        cur = l.text;
      }
      const ke = keyEnd(cur);
      if (ke < 0) bail();
      const k = resolvedKey(cur.slice(0, ke), this.resolve, this.keys);
      if (k === null) bail();
      if (keys) {
        const child: PositionNode = { line: this.i + 1 };
        // The first occurrence keeps its place (as eemeli/yaml's lookup did); the later is reported.
        if (keys.has(k!)) this.duplicates.push({ key: k!, line: child.line });
        else keys.set(k!, child);
        this.pos = child;
      }
      let n = ke + 1;
      while (cur[n] === ' ') n++;
      const rest = cur.slice(n);
      let value: unknown;
      if (rest === '' || rest[0] === '#') {
        this.i++;
        this.skipBlank();
        const l = this.lines[this.i];
        if (l && l.indent > col) value = this.parseBlock(l.indent, l.text, col);
        else if (l && l.indent === col && (l.text === '-' || l.text.startsWith('- '))) value = this.parseSequence(col, l.text, col);
        else value = null;
      } else {
        value = this.scalarValue(rest, col + n, col);
      }
      if (out[k!] !== undefined) this.repeatedKey = true;
      out[k!] = value;
      cur = null;
    }
    this.pos = node;
    return out;
  }

  /**
   * A value that starts on the current line: scalar, empty flow collection or block scalar
   * header. Leaves `this.i` at the line after the value.
   */
  private scalarValue(text: string, col: number, parentIndent: number): unknown {
    if (text[0] === '|') return this.literal(text, parentIndent);
    const v = this.inlineValue(text, col, parentIndent);
    this.i++;
    return v;
  }

  private inlineValue(text: string, col: number, parentIndent: number): unknown {
    const c = text[0];
    if (c === '"') return this.doubleQuoted(text);
    if (c === "'") return this.singleQuoted(text);
    if (c === '[' || c === '{') {
      const t = stripComment(text);
      if (/^\[ *\]$/.test(t)) {
        if (this.pos) this.pos.items = [];
        return [];
      }
      if (/^\{ *\}$/.test(t)) {
        if (this.pos) this.pos.keys = new Map();
        return {};
      }
      bail();
    }
    if ('&*!>%@`,]}?#'.includes(c) || (c === '-' && (text.length === 1 || text[1] === ' '))) bail();
    const t = stripComment(text);
    if (t.includes(': ') || t.endsWith(':') || t.includes(' #')) bail();
    // a plain scalar continued on the next, more indented line is a multi-line plain scalar
    const next = this.peekNextContent();
    if (next && next.indent > parentIndent && !(next.text === '-' || next.text.startsWith('- ')) && keyEnd(next.text) < 0) bail();
    if (next && next.indent > parentIndent && this.lines[this.i + 1] !== null && next.indent > col) bail();
    return this.resolve(t);
  }

  private peekNextContent(): Line | null {
    for (let j = this.i + 1; j < this.lines.length; j++) if (this.lines[j] !== null) return this.lines[j];
    return null;
  }

  private doubleQuoted(text: string): string {
    let out = '';
    let j = 1;
    // Runs of plain characters are copied whole: indexOf is native, a loop here runs cold. Each
    // quote and backslash is found once (a search starts where the last one ended): linear time.
    let q = text.indexOf('"', j);
    let b = text.indexOf('\\', j);
    for (;;) {
      if (q < 0) bail();
      if (b < 0 || b > q) {
        out += text.slice(j, q);
        j = q;
        break;
      }
      out += text.slice(j, b);
      j = b;
      const e = text[j + 1];
      if (e === undefined) bail();
      if (e === 'x' || e === 'u' || e === 'U') {
        const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
        const hex = text.slice(j + 2, j + 2 + len);
        if (!/^[0-9a-fA-F]+$/.test(hex) || hex.length !== len) bail();
        out += String.fromCodePoint(parseInt(hex, 16));
        j += 2 + len;
      } else {
        const r = DQ[e];
        if (r === undefined) bail();
        out += r;
        j += 2;
      }
      if (q < j) q = text.indexOf('"', j);
      b = text.indexOf('\\', j);
    }
    const after = text.slice(j + 1).trimEnd();
    if (after !== '' && !/^ +#/.test(text.slice(j + 1))) bail();
    return out;
  }

  private singleQuoted(text: string): string {
    let out = '';
    let j = 1;
    for (;;) {
      const q = text.indexOf("'", j);
      if (q < 0) bail();
      out += text.slice(j, q);
      if (text[q + 1] !== "'") {
        j = q;
        break;
      }
      out += "'";
      j = q + 2;
    }
    const after = text.slice(j + 1).trimEnd();
    if (after !== '' && !/^ +#/.test(text.slice(j + 1))) bail();
    return out;
  }

  /** `|`, `|-`, `|+` (no indentation indicator): content lines more indented than the parent. */
  private literal(text: string, parentIndent: number): string {
    const m = /^\|([+-]?)( +#.*)?\s*$/.exec(text);
    if (!m) bail();
    const chomp = m![1];
    const start = this.i + 1;
    let indent = -1;
    let j = start;
    const body: string[] = [];
    for (; j < this.raw.length; j++) {
      const raw = this.raw[j];
      let n = 0;
      while (raw.charCodeAt(n) === 32) n++;
      if (n === raw.length) {
        // blank (or spaces only)
        if (indent >= 0 && n > indent) body.push(raw.slice(indent));
        else body.push('');
        continue;
      }
      if (indent < 0) {
        if (n <= parentIndent) break;
        // leading blank lines longer than the content indent are an error in YAML: let the full parser decide
        if (body.some((b, k) => this.raw[start + k].length > n)) bail();
        indent = n;
      }
      if (n < indent) break;
      body.push(raw.slice(indent));
    }
    // trailing blank lines belong to chomping; the scan consumed them
    let end = body.length;
    while (end > 0 && body[end - 1] === '' && (start + end - 1 >= this.raw.length || /^ *$/.test(this.raw[start + end - 1]))) end--;
    const content = body.slice(0, end);
    const trailing = body.length - end;
    this.i = start + end; // next structural line (blank lines after are skipped by callers)
    if (content.length === 0) {
      // all-blank block scalar: only keep chomping keeps the newlines
      return chomp === '+' ? '\n'.repeat(body.length) : '';
    }
    let s = content.join('\n');
    if (chomp === '-') return s;
    if (chomp === '+') {
      // kept: every trailing line break, including ones from lines at EOF
      const atEof = start + body.length >= this.raw.length;
      return s + '\n' + '\n'.repeat(atEof ? Math.max(0, trailing - 1) : trailing);
    }
    s += '\n';
    return s;
  }
}

/** Index of the `:` that ends a plain mapping key on this line, or -1. */
function keyEnd(text: string): number {
  const c = text.charCodeAt(0);
  // " ' ? [ { & * ! | > #
  if (c === 34 || c === 39 || c === 63 || c === 91 || c === 123 || c === 38 || c === 42 || c === 33 || c === 124 || c === 62 || c === 35) return -1;
  const len = text.length;
  if (c === 45 && (len === 1 || text.charCodeAt(1) === 32)) return -1;
  // The first `:` followed by a space or the end, unless a comment (` #`) starts before it.
  const comment = text.indexOf(' #');
  for (let j = text.indexOf(':'); j >= 0 && (comment < 0 || j < comment); j = text.indexOf(':', j + 1)) {
    if (j + 1 === len || text.charCodeAt(j + 1) === 32) return j;
  }
  return -1;
}

// Manifests repeat the same few hundred keys: remember how each resolves (null = not for the fast path).
const keyCaches = new WeakMap<ScalarResolver, Map<string, string | null>>();

function keyCacheFor(resolve: ScalarResolver): Map<string, string | null> {
  let cache = keyCaches.get(resolve);
  if (!cache) keyCaches.set(resolve, (cache = new Map()));
  return cache;
}

function resolvedKey(key: string, resolve: ScalarResolver, cache: Map<string, string | null>): string | null {
  let k = cache.get(key);
  if (k === undefined) {
    k = isPlainKey(key) ? keyString(key, resolve) : null;
    if (k === '__proto__' || k === '<<') k = null;
    if (cache.size > 50_000) cache.clear();
    cache.set(key, k);
  }
  return k;
}

function isPlainKey(k: string): boolean {
  if (k === '' || k.endsWith(' ') || k.length > 1024) return false;
  return !/[,[\]{}]/.test(k) && !k.startsWith('%') && !k.startsWith('@') && !k.startsWith('`');
}

/** Keys are resolved like values (`yes:` is a boolean key) and then stringified, as js-yaml does with json: true. */
function keyString(k: string, resolve: ScalarResolver): string {
  const v = resolve(k);
  if (v === null) return 'null';
  return String(v);
}

function stripComment(text: string): string {
  const h = text.indexOf(' #');
  return (h >= 0 ? text.slice(0, h) : text).trimEnd();
}
