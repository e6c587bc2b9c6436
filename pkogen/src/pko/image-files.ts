/**
 * PKO's image import rules (packageimport/oci.go): from the files of an image's layers, in
 * order, keep those under `package/`, drop any path with a segment starting with `.`, ignore
 * entries that would resolve outside (`..`) without ever escaping, let later layers override.
 */
import type { FileMap } from '../core/filemap.js';
import { goPathClean } from '../core/paths.js';
import { Violation, ViolationReason } from './types.js';

export interface LayerEntry {
  /** Entry name as stored in the tar. */
  name: string;
  /** Regular-file content; directories and other types are passed as undefined and skipped. */
  data?: Uint8Array;
}

/** Go's path.Clean for slash paths. */
export const cleanPath = goPathClean;

/** filepath.Rel("package", name) for relative names; undefined when outside. */
function relToPackage(name: string): string | undefined {
  const c = cleanPath(name.replace(/^\/+/, ''));
  if (c === 'package') return undefined; // the directory itself
  if (!c.startsWith('package/')) return undefined;
  return c.slice('package/'.length);
}

/** Layers in order (first = bottom). Returns the package FileMap or throws the empty-package Violation. */
export function packageFilesFromLayers(layers: LayerEntry[][]): FileMap {
  const fm: FileMap = new Map();
  for (const layer of layers) {
    for (const e of layer) {
      if (e.data === undefined) continue;
      if (e.name === '.' || e.name === '..' || e.name.startsWith('../')) continue;
      const rel = relToPackage(e.name);
      if (rel === undefined || rel === '.' || rel.startsWith('../') || rel === '..') continue;
      if (rel.split('/').some((seg) => seg.startsWith('.'))) continue;
      fm.set(rel, e.data);
    }
  }
  if (fm.size === 0) throw new Violation({ reason: ViolationReason.EmptyPackage });
  return new Map([...fm.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
}
