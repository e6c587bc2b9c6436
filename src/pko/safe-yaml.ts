/**
 * YAML parsing with hard limits, for input we did not write: alias expansion (billion laughs),
 * nesting depth and size are bounded explicitly, so a hostile file gives an error, not a hang
 * or an out-of-memory crash.
 */
import { parseYaml11Full, resolvePlain11, YamlParseError } from '../yaml/parse.js';
import { BAIL, parseFastBlock } from '../yaml/fast-block.js';
import { cachedText } from '../core/filemap.js';

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

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Bytes → text for YAML input, with the limits applied first. go-yaml rejects invalid UTF-8, so
 * we do too (instead of silently replacing bytes).
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

export class YamlLimitError extends Error {}

/** Parses one document (YAML 1.1, like PKO) and enforces the limits; throws YamlParseError or YamlLimitError. */
export function parseYamlSafe(text: string, limits: YamlLimits = DEFAULT_YAML_LIMITS): unknown {
  if (text.length > limits.maxChars) throw new YamlLimitError(`document is larger than ${limits.maxChars} characters`);
  // Plain block YAML: the fast path has no aliases (it bails on them) and bails past maxDepth,
  // so its result is within the limits by construction (nodes ≤ characters < maxChars).
  if (text.length <= limits.maxNodes) {
    const fast = parseFastBlock(text, resolvePlain11, limits.maxDepth);
    if (fast !== BAIL) return fast;
  }
  precheckDepth(text, limits.maxDepth);
  let v: unknown;
  try {
    v = parseYaml11Full(text);
  } catch (e) {
    if (e instanceof RangeError) throw new YamlLimitError(`document is nested too deeply`);
    throw e;
  }
  checkExpansion(v, limits);
  return v;
}

/**
 * Flow collections (`[[[[...`) are what can nest deeply on one line and overflow the parser's
 * stack; count bracket depth cheaply before parsing. Block nesting is bounded by indentation.
 */
function precheckDepth(text: string, maxDepth: number): void {
  let depth = 0;
  let inSingle = false;
  let inDouble = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      // a stray quote in a plain scalar must not hide the brackets of the following lines
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
      if (++depth > maxDepth) throw new YamlLimitError(`document is nested deeper than ${maxDepth} levels`);
    } else if (c === 93 || c === 125) depth = Math.max(0, depth - 1);
    else if (c === 10) {
      // quotes do not span lines in practice for our purpose; reset so a stray quote cannot hide brackets
      inSingle = false;
    }
  }
}

/** Counts nodes as a consumer would see them (aliases expanded), stopping at the limit. */
function checkExpansion(root: unknown, limits: YamlLimits): void {
  let nodes = 0;
  const stack: { v: unknown; d: number }[] = [{ v: root, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (++nodes > limits.maxNodes) throw new YamlLimitError(`document expands to more than ${limits.maxNodes} nodes (YAML alias bomb?)`);
    if (d > limits.maxDepth) throw new YamlLimitError(`document is nested deeper than ${limits.maxDepth} levels`);
    if (Array.isArray(v)) for (const x of v) stack.push({ v: x, d: d + 1 });
    else if (v !== null && typeof v === 'object') for (const x of Object.values(v as object)) stack.push({ v: x, d: d + 1 });
  }
}

export { YamlParseError };
