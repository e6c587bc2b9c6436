/**
 * YAML in, with the semantics PKO uses: sigs.k8s.io/yaml on go-yaml v2, i.e. YAML 1.1 scalars
 * (`yes/no/on/off/y/n` are booleans, `0755` is octal, underscores in numbers), timestamps kept as
 * strings, non-string keys stringified, duplicate keys tolerated (last wins), `<<` merges.
 */
import type * as JsYaml from 'js-yaml';
import { formatPath } from '../core/field-path.js';
import { createRequire } from 'node:module';
import { closeSync, constants as fsConstants, fstatSync, openSync, readSync } from 'node:fs';
import { cachedText } from '../core/filemap.js';
import { BAIL, parseFastBlock } from './fast-block.js';
import { lineOf } from './positions.js';
import { boolType, floatType, intType, nullType, resolvePlain11, timestampType, type ScalarType } from './scalars.js';

export { resolvePlain11 } from './scalars.js';

// js-yaml loads with the first document the block fast path leaves to it (anchors, flow
// collections, multi-line scalars…), not with every command: generated manifests rarely need it.
type JsYamlLib = typeof JsYaml;
let jsYamlLib: { lib: JsYamlLib; schema: JsYaml.Schema } | undefined;
function jsYamlFull(): { lib: JsYamlLib; schema: JsYaml.Schema } {
  if (!jsYamlLib) {
    const lib = createRequire(import.meta.url)('js-yaml') as JsYamlLib;
    const t = (s: ScalarType) => new lib.Type(s.tag, s.options);
    // `<<` must be an implicit type: added with extend([merge]) it was explicit only, and `<<: *base`
    // stayed a literal "<<" key instead of merging as go-yaml v2 does.
    const schema = lib.FAILSAFE_SCHEMA.extend({
      implicit: [t(nullType), t(boolType), t(intType), t(floatType), t(timestampType), (lib as unknown as { types: { merge: JsYaml.Type } }).types.merge],
      explicit: [],
    });
    jsYamlLib = { lib, schema };
  }
  return jsYamlLib;
}

export interface ParseError {
  message: string;
  /** One-based. */
  line?: number;
  column?: number;
}

export class YamlParseError extends Error {
  constructor(message: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/**
 * A document past one of the limits below. A YamlParseError, so every caller that reports bad
 * YAML with its file and line reports these too; `path` is the field where the limit was hit.
 */
export class YamlLimitError extends YamlParseError {
  constructor(message: string, line?: number, readonly path?: string) {
    super(message, line);
  }
}

// ---- limits: every YAML text pkogen reads comes through the functions below.

export interface YamlLimits {
  /** Largest number of nodes a document may expand to when aliases are followed. */
  maxNodes: number;
  /** Deepest nesting allowed. */
  maxDepth: number;
  /** Largest text accepted, in characters. */
  maxChars: number;
}

/** An object file larger than 8 MiB cannot be a Kubernetes object (etcd's limit is ~1.5 MiB). */
export const DEFAULT_YAML_LIMITS: YamlLimits = { maxNodes: 2_000_000, maxDepth: 512, maxChars: 8 * 1024 * 1024 };

/**
 * Parses one document with PKO's YAML 1.1 semantics, within the limits. Plain block YAML (what
 * manifests and rendered templates nearly always are) takes a fast path; anything else goes to
 * js-yaml. Throws YamlParseError (YamlLimitError for a limit).
 */
export function parseYaml11(text: string, filename?: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): unknown {
  checkSize(text, limits);
  // The fast path bails on aliases and past maxDepth, so its result is within the limits by
  // construction (nodes ≤ characters ≤ maxNodes).
  if (text.length <= limits.maxNodes) {
    const fast = parseFastBlock(text, resolvePlain11, limits.maxDepth, true);
    if (fast !== BAIL) return fast;
  }
  return parseYaml11Full(text, filename, limits);
}

/** js-yaml with the YAML 1.1 schema (no fast path), within the limits. */
export function parseYaml11Full(text: string, filename?: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): unknown {
  checkSize(text, limits);
  precheckDepth(text, limits.maxDepth);
  const v = jsYaml(({ lib, schema }) => lib.load(text, { schema, json: true, filename }));
  checkExpansion(v, text, limits);
  return v;
}

// A line that may start a document, end one or hold a directive (more than YAML's line breaks
// count here: a false match only means js-yaml reads the text).
const DOCUMENT_MARKER = /^(---|\.\.\.|%)/m;

/**
 * Every document of a multi-document text, YAML 1.1 semantics (js-yaml's own splitting), within
 * the limits. A text without document markers is one document: when that is a plain block mapping
 * or sequence (a rollout Template, a CRD file), the fast path reads it as parseYaml11 does, and
 * js-yaml (~20 ms to load) is not needed.
 */
export function parseAllYaml11(text: string, filename?: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): unknown[] {
  checkSize(text, limits);
  if (text.length <= limits.maxNodes && !DOCUMENT_MARKER.test(text)) {
    const fast = parseFastBlock(text, resolvePlain11, limits.maxDepth, true);
    if (fast !== BAIL && fast !== null && typeof fast === 'object') return [fast];
  }
  precheckDepth(text, limits.maxDepth);
  const docs = jsYaml(({ lib, schema }) => lib.loadAll(text, undefined, { schema, json: true, filename }));
  // One budget for the whole text: a stream of many small bombs is still a bomb.
  const budget = { nodes: 0, aliased: 0 };
  docs.forEach((d, i) => checkExpansion(d, text, limits, budget, docs.length > 1 ? i : undefined));
  return docs;
}

function jsYaml<T>(f: (y: { lib: JsYamlLib; schema: JsYaml.Schema }) => T): T {
  const y = jsYamlFull();
  try {
    return f(y);
  } catch (e) {
    if (e instanceof y.lib.YAMLException) {
      const m = e.mark;
      throw new YamlParseError(e.reason || e.message, m ? m.line + 1 : undefined, m ? m.column + 1 : undefined);
    }
    // js-yaml recurses per nesting level: block nesting (`- - - - …`, deep indentation) that the
    // bracket precheck cannot see ends here.
    if (e instanceof RangeError) throw new YamlLimitError('document is nested too deeply');
    throw e;
  }
}

function checkSize(text: string, limits: YamlLimits): void {
  if (text.length > limits.maxChars) throw new YamlLimitError(`document is larger than ${limits.maxChars} characters`);
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes → text for YAML input, with the size limit applied first. go-yaml rejects invalid UTF-8,
 * so we do too (instead of silently replacing bytes).
 */
export function decodeYamlBytes(bytes: Uint8Array, limits: YamlLimits = DEFAULT_YAML_LIMITS): string {
  if (bytes.length > limits.maxChars * 4) throw new YamlLimitError(`file is larger than ${limits.maxChars} characters`);
  // Bytes we encoded ourselves (rendered templates) are valid UTF-8: reuse their string.
  const known = cachedText(bytes);
  if (known !== undefined && known.length <= limits.maxChars) return known.charCodeAt(0) === 0xfeff ? known.slice(1) : known;
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new YamlLimitError('invalid leading UTF-8 octet (the file is not UTF-8 text)');
  }
  if (text.length > limits.maxChars) throw new YamlLimitError(`file is larger than ${limits.maxChars} characters`);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return text;
}

/** Why a YAML file could not be read: `message` is for the user (no stack, no errno noise). */
export class YamlFileError extends Error {
  constructor(readonly detail: string) {
    super(`cannot read file: ${detail}`);
  }
}

/**
 * Reads a YAML file named by the user (--config, --environment, rollout Templates, CRD files):
 * only a regular file (a FIFO would block forever, /dev/zero never ends), at most
 * limits.maxChars × 4 bytes (the UTF-8 worst case), strictly UTF-8.
 */
export function readYamlFileText(file: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): string {
  let fd: number | undefined;
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer before we can see it is one.
    fd = openSync(file, fsConstants.O_RDONLY | (fsConstants.O_NONBLOCK ?? 0));
    const st = fstatSync(fd);
    if (st.isDirectory()) throw new YamlFileError('it is a directory');
    if (!st.isFile()) throw new YamlFileError('not a regular file');
    const max = limits.maxChars * 4;
    if (st.size > max) throw new YamlFileError(`file is larger than ${max} bytes`);
    // Read at most max+1 bytes whatever the size said: a file may grow between stat and read.
    const buf = Buffer.alloc(Math.min(st.size, max) + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0 || (n += r) === buf.length) break;
    }
    if (n > max) throw new YamlFileError(`file is larger than ${max} bytes`);
    return decodeYamlBytes(buf.subarray(0, n), limits);
  } catch (e) {
    if (e instanceof YamlFileError) throw e;
    if (e instanceof YamlLimitError) throw new YamlFileError(e.message);
    throw new YamlFileError((e as NodeJS.ErrnoException).code ?? (e as Error).message);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * Flow collections (`[[[[...`) are what can nest deeply on one line and overflow the parser's
 * stack; count bracket depth cheaply before parsing. Quotes are tracked within a line only, so a
 * stray quote in a plain scalar cannot hide the brackets of the following lines.
 */
function precheckDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let inSingle = false;
  let inDouble = false;
  let line = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      line++;
      inSingle = inDouble = false;
      continue;
    }
    if (inDouble) {
      if (c === 92) i++;
      else if (c === 34) inDouble = false;
      continue;
    }
    if (inSingle) {
      if (c === 39) inSingle = false;
      continue;
    }
    if (c === 34) inDouble = true;
    else if (c === 39) inSingle = true;
    else if (c === 91 || c === 123) {
      if (++depth > maxDepth) throw new YamlLimitError(`document is nested deeper than ${maxDepth} levels`, line);
    } else if (c === 93 || c === 125) depth = Math.max(0, depth - 1);
  }
}

/**
 * js-yaml shares one value for every alias of an anchor, so a 500-byte alias bomb parses fast and
 * blows up later, in whoever walks it. Walk it here as a consumer would (aliases expanded),
 * within maxNodes, and apply go-yaml's own rule as well: past 1000 nodes, the share reached
 * through aliases may not exceed allowedAliasRatio (go-yaml's "document contains excessive
 * aliasing", which PKO would report). A value that contains itself (`a: &a [*a]`) is go-yaml's
 * "anchor value contains itself".
 */
function checkExpansion(root: unknown, text: string, limits: YamlLimits, budget = { nodes: 0, aliased: 0 }, doc?: number): void {
  const seen = new Set<object>();
  const ancestors = new Set<object>();
  const path: (string | number)[] = [];
  const fail = (msg: string): never => {
    const p = formatPath(path);
    const where = doc === undefined ? '' : `document ${doc}: `;
    throw new YamlLimitError(`${where}${p ? `${p}: ` : ''}${msg}`, lineOf({ text, firstLine: 1 }, path, doc ?? 0), p);
  };
  const walk = (v: unknown, aliasDepth: number): void => {
    budget.nodes++;
    if (aliasDepth > 0) budget.aliased++;
    if (budget.nodes > limits.maxNodes) fail(`document contains excessive aliasing: it expands to more than ${limits.maxNodes} nodes (YAML alias bomb)`);
    if (budget.aliased > 100 && budget.nodes > 1000 && budget.aliased / budget.nodes > allowedAliasRatio(budget.nodes)) {
      fail(`document contains excessive aliasing (YAML alias bomb): ${budget.aliased} of its first ${budget.nodes} nodes come from aliases`);
    }
    if (v === null || typeof v !== 'object') return;
    if (path.length > limits.maxDepth) fail(`document is nested deeper than ${limits.maxDepth} levels`);
    if (ancestors.has(v)) fail('an anchor\'s value contains itself (circular alias)');
    const again = seen.has(v);
    seen.add(v);
    ancestors.add(v);
    const ad = again ? aliasDepth + 1 : aliasDepth;
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        path.push(i);
        walk(v[i], ad);
        path.pop();
      }
    } else {
      for (const k of Object.keys(v)) {
        path.push(k);
        walk((v as Record<string, unknown>)[k], ad);
        path.pop();
      }
    }
    ancestors.delete(v);
  };
  walk(root, 0);
}

/** go-yaml's allowedAliasRatio (decode.go): 99% up to 400,000 decodes, scaling down to 10% at 4,000,000. */
function allowedAliasRatio(decodes: number): number {
  if (decodes <= 400_000) return 0.99;
  if (decodes >= 4_000_000) return 0.1;
  return 0.99 - 0.89 * ((decodes - 400_000) / 3_600_000);
}


/**
 * PKO's document splitting (packagetypes/utils.go): trim any leading/trailing `-` and `\n`
 * characters (a cutset, not a prefix), split on lines that are exactly `---`, TrimSpace each.
 * Returns each document's text and the 1-based line where it starts in the original.
 */
export function splitPkoDocuments(text: string): { text: string; line: number }[] {
  let start = 0;
  let end = text.length;
  while (start < end && (text[start] === '-' || text[start] === '\n')) start++;
  while (end > start && (text[end - 1] === '-' || text[end - 1] === '\n')) end--;
  const body = text.slice(start, end);
  const baseLine = 1 + newlines(text, 0, start);
  const docs: { text: string; line: number }[] = [];
  // The lines Go's `(?m)^---$` matches: `---` between line feeds or the text's ends (`---\r`
  // does not split; JavaScript's multiline `^`/`$` would also take \r, U+2028 and U+2029).
  // Found with indexOf: a multiline regex tried every position and was ~3 % of simulate.
  let last = 0;
  const pieces: { from: number; to: number }[] = [];
  for (let i = body.indexOf('---'); i !== -1; i = body.indexOf('---', i + 1)) {
    if ((i === 0 || body.charCodeAt(i - 1) === 10) && (i + 3 === body.length || body.charCodeAt(i + 3) === 10)) {
      pieces.push({ from: last, to: i });
      last = i + 3;
    }
  }
  pieces.push({ from: last, to: body.length });
  // Count newlines incrementally: recounting from 0 per piece was quadratic in the file size.
  let counted = 0;
  let lines = 0;
  for (const p of pieces) {
    const raw = body.slice(p.from, p.to);
    const lead = raw.length - raw.trimStart().length;
    lines += newlines(body, counted, p.from + lead);
    counted = p.from + lead;
    docs.push({ text: raw.trim(), line: baseLine + lines });
  }
  return docs;
}

function newlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
