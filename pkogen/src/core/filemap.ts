import { nodeCrypto } from './builtins.js';

/**
 * The seam between every stage: posix path (relative, no leading `./`) → bytes.
 * A Map keeps insertion order; `sortedPaths` gives the canonical order for output.
 */
export type FileMap = Map<string, Uint8Array>;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: false });

export function fileMap(entries: Record<string, string | Uint8Array> = {}): FileMap {
  const fm: FileMap = new Map();
  for (const p of Object.keys(entries).sort()) {
    const v = entries[p];
    fm.set(normalizePath(p), typeof v === 'string' ? encoder.encode(v) : v);
  }
  return fm;
}

// Text we encoded ourselves, so that reading it back (e.g. parsing rendered templates) skips decoding.
const textOfBytes = new WeakMap<Uint8Array, string>();

export function toBytes(s: string): Uint8Array {
  const b = encoder.encode(s);
  textOfBytes.set(b, s);
  return b;
}

/** The string `b` was encoded from by `toBytes`, if it was (valid UTF-8 by construction). */
export function cachedText(b: Uint8Array): string | undefined {
  return textOfBytes.get(b);
}

export function toText(b: Uint8Array): string {
  return textOfBytes.get(b) ?? decoder.decode(b);
}

/** Byte-wise (code unit) sort, the same on every machine and locale. */
export function sortedPaths(fm: FileMap): string[] {
  return [...fm.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

export function normalizePath(p: string): string {
  let s = p.replace(/\\/g, '/');
  while (s.startsWith('./')) s = s.slice(2);
  return s;
}

/** Stable digest of a FileMap's content, for tests and change detection. */
export function fileMapDigest(fm: FileMap): string {
  const h = nodeCrypto().createHash('sha256');
  for (const p of sortedPaths(fm)) {
    const b = fm.get(p)!;
    h.update(`${p}\0${b.length}\0`);
    h.update(b);
  }
  return h.digest('hex');
}

/** Byte-for-byte equality (native memcmp: a JS loop over a package's fixtures took ~5 ms of `validate`). */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0;
}

/** Paths that differ between two FileMaps: added, removed or changed. */
export function diffFileMaps(expected: FileMap, actual: FileMap): { added: string[]; removed: string[]; changed: string[] } {
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  for (const p of sortedPaths(actual)) {
    const e = expected.get(p);
    if (!e) added.push(p);
    else if (!equalBytes(e, actual.get(p)!)) changed.push(p);
  }
  for (const p of sortedPaths(expected)) if (!actual.has(p)) removed.push(p);
  return { added, removed, changed };
}
