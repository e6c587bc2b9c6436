/**
 * PKO's package image format (what `kubectl package build` writes: files under /package/): package files → a
 * deterministic image, and the bounded layer reader. Reading an image back into package files,
 * with PKO's importer rules, is src/pko/package-image.ts.
 */
import { UserError } from '../core/errors.js';
import { FileMap, sortedPaths } from '../core/filemap.js';
import { gunzipBounded, gzipDeterministic, isGzip } from './gzip.js';
import { Blob, Image } from './image.js';
import { MediaType } from './media-types.js';
import { readTar, TarWriteEntry, writeTar } from './tar.js';
import { sha256Digest } from './digest.js';
import { MAX_LAYER_BYTES, MAX_UNPACKED_BYTES } from './limits.js';

export const PACKAGE_PREFIX = 'package';
/** Fixed and far from any real date: the image never says when it was built. */
export const EPOCH = '1970-01-01T00:00:00Z';

function hasDotSegment(p: string): boolean {
  return p.split('/').some((s) => s.startsWith('.'));
}

/**
 * The layer tar: `package/` and its subdirectories (0755), then regular files (0644), all in
 * byte order, owner 0:0, mtime 0. Dot-paths are dropped here as well as by the folder reader,
 * so `.test-fixtures/` never ships whatever FileMap a caller passes.
 */
export function packageLayerTar(files: FileMap): Uint8Array {
  const paths = sortedPaths(files).filter((p) => !hasDotSegment(p));
  const names = new Set<string>();
  const entries: TarWriteEntry[] = [];
  for (const p of paths) {
    if (p.startsWith('/') || p.split('/').some((s) => s === '' || s === '..')) throw new UserError('invalid package path', { file: p });
    const full = `${PACKAGE_PREFIX}/${p}`;
    const segs = full.split('/');
    for (let i = 1; i < segs.length; i++) {
      const dir = segs.slice(0, i).join('/');
      if (!names.has(dir + '/')) {
        names.add(dir + '/');
        entries.push({ name: dir, type: 'dir' });
      }
    }
    entries.push({ name: full, type: 'file', data: files.get(p)! });
  }
  // Directories were interleaved in path order, which is already byte order of their names.
  return writeTar(entries);
}

export interface BuildImageOptions {
  labels?: Record<string, string>;
}

export function buildPackageImage(files: FileMap, opts: BuildImageOptions = {}): Image {
  const tar = packageLayerTar(files);
  const diffId = sha256Digest(tar);
  const layer = new Blob(MediaType.OciLayerGzip, gzipDeterministic(tar));
  const labels = opts.labels ?? {};
  const sortedLabels: Record<string, string> = {};
  for (const k of Object.keys(labels).sort()) sortedLabels[k] = labels[k];
  const config = {
    architecture: 'amd64',
    config: Object.keys(sortedLabels).length ? { Labels: sortedLabels } : {},
    created: EPOCH,
    history: [{ created: EPOCH, created_by: 'pkogen build' }],
    os: 'linux',
    rootfs: { type: 'layers', diff_ids: [diffId] },
  };
  const configBlob = new Blob(MediaType.OciConfig, new TextEncoder().encode(JSON.stringify(config)));
  return Image.fromBlobs(configBlob, [layer]);
}

/** Default ceiling for one uncompressed layer (PKO packages are YAML: megabytes at most). */
export { MAX_LAYER_BYTES };

/** A layer blob's tar bytes (gunzipped when compressed, bounded). */
export function layerTar(layer: Blob, maxBytes = MAX_LAYER_BYTES): Uint8Array {
  return isGzip(layer.bytes) ? gunzipBounded(layer.bytes, maxBytes, `layer ${layer.digest}`) : layer.bytes;
}

/**
 * Every layer's tar, bounded per layer and for the image as a whole: six layers just under the
 * per-layer ceiling are refused as soon as their sum passes `maxTotalBytes`.
 */
export function layerTars(image: Image, maxLayerBytes = MAX_LAYER_BYTES, maxTotalBytes = MAX_UNPACKED_BYTES): Uint8Array[] {
  let left = maxTotalBytes;
  return image.layers.map((layer, i) => {
    const cap = Math.min(maxLayerBytes, left);
    let tar: Uint8Array;
    try {
      tar = layerTar(layer, cap);
    } catch (e) {
      if (cap < maxLayerBytes && e instanceof UserError && /uncompresses to more than/.test(e.message))
        throw new UserError(`image layers (up to layers[${i}]) uncompress to more than ${maxTotalBytes} bytes together; refusing the image`);
      throw e;
    }
    if (tar.length > left) throw new UserError(`image layers (up to layers[${i}]) hold more than ${maxTotalBytes} bytes together; refusing the image`);
    left -= tar.length;
    return tar;
  });
}
