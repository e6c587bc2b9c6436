/**
 * OCI image layout (image-spec image-layout.md) as a sink and a source. Written atomically: the
 * whole directory is built beside the target and swapped in.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/errors.js';
import { FileMap } from '../core/filemap.js';
import { writeFileMapAtomic } from '../core/fs.js';
import { digestHex } from './digest.js';
import { Blob, Descriptor, Image, invalidImage, parseConfig, parseIndex, parseManifestOrIndex, selectPlatform, verifyDigest } from './image.js';
import { imageFileSource, readImageFile } from './image-file.js';
import { ByteBudget, DEFAULT_READ_LIMITS, type ImageReadLimits } from './limits.js';
import { MediaType } from './media-types.js';

const REF_NAME = 'org.opencontainers.image.ref.name';
const enc = new TextEncoder();

/** The layout as files; one index entry per tag (annotated with the tag), or one unnamed entry. */
export function ociLayoutFiles(image: Image, tags: string[]): FileMap {
  const fm: FileMap = new Map();
  fm.set('oci-layout', enc.encode(JSON.stringify({ imageLayoutVersion: '1.0.0' })));
  const base: Descriptor = { mediaType: image.manifestMediaType, digest: image.digest, size: image.manifest.length };
  const manifests = tags.length ? [...new Set(tags)].map((t) => ({ ...base, annotations: { [REF_NAME]: t } })) : [base];
  fm.set('index.json', enc.encode(JSON.stringify({ schemaVersion: 2, mediaType: MediaType.OciIndex, manifests })));
  for (const b of [image.config, ...image.layers]) fm.set(`blobs/sha256/${digestHex(b.digest)}`, b.bytes);
  fm.set(`blobs/sha256/${digestHex(image.digest)}`, image.manifest);
  return fm;
}

/**
 * Replaces `dir` with a layout holding only this image. Refuses to replace a non-empty directory
 * that is not an OCI layout, so a mistyped path can never wipe a package or a checkout.
 */
export async function writeOciLayout(dir: string, image: Image, tags: string[]): Promise<void> {
  let entries: string[] | undefined;
  try {
    entries = await fsp.readdir(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOTDIR') throw new UserError('exists and is not a directory; refusing to replace it with an OCI layout', { file: dir });
    if (code !== 'ENOENT') throw e;
  }
  if (entries && entries.length > 0 && !entries.includes('oci-layout'))
    throw new UserError('is a non-empty directory that is not an OCI layout; refusing to replace it', { file: dir });
  await writeFileMapAtomic(dir, ociLayoutFiles(image, tags));
}

/** A blob named by a descriptor: a regular file of exactly the descriptor's size and digest. */
async function readBlob(dir: string, d: Descriptor, max: number, from: string, field: string): Promise<{ bytes: Uint8Array; file: string }> {
  const file = path.join(dir, 'blobs', 'sha256', digestHex(d.digest));
  if (d.size > max) throw invalidImage(from, `${field}.size`, `${d.size} bytes is more than the ${max} allowed`);
  const bytes = await readImageFile(file, { max, expectSize: d.size, field: `${field}.size`, fieldFile: from });
  if (!bytes) throw invalidImage(from, `${field}.digest`, `blob ${d.digest} is missing from the layout`);
  verifyDigest(bytes, d.digest, `invalid image: ${file}`);
  return { bytes, file };
}

/** `blobs/` and `blobs/sha256/` must be real directories: a symlink there could lead anywhere. */
async function checkBlobDirs(dir: string): Promise<void> {
  for (const sub of ['blobs', path.join('blobs', 'sha256')]) {
    const p = path.join(dir, sub);
    const st = await fsp.lstat(p).catch(() => undefined);
    if (st && !st.isDirectory()) throw invalidImage(p, '', `is ${st.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; a layout's blob directories must be real directories`);
  }
}

/**
 * Opens an image from an OCI layout. `ref` picks the index entry by its ref name; without it
 * the layout must hold exactly one entry. An index is resolved to linux/amd64. Nothing in the
 * layout is trusted: every file must be a regular file of the size its descriptor gives, and the
 * image's blobs together must fit `limits.maxImageBytes`, checked before any blob is read.
 */
export interface OpenLayoutOptions {
  /**
   * Leave layers on disk, unread and unhashed: their digests are checked by `Blob.chunks()` or
   * `Blob.verify()` (a push streams each layer and hashes it while the bytes are sent, before any
   * tag is written) instead of reading and hashing every layer on open.
   */
  deferLayerVerification?: boolean;
}

export async function openOciLayout(dir: string, ref?: string, limits: Partial<ImageReadLimits> = {}, opts: OpenLayoutOptions = {}): Promise<Image> {
  const lim = { ...DEFAULT_READ_LIMITS, ...limits };
  const indexFile = path.join(dir, 'index.json');
  const indexBytes = await readImageFile(indexFile, { max: lim.maxManifestBytes });
  if (!indexBytes) throw new UserError('not an OCI layout (no index.json)', { file: dir });
  const entries = parseIndex(indexBytes, indexFile).manifests;
  await checkBlobDirs(dir);
  let d: Descriptor | undefined;
  if (ref !== undefined) {
    d = entries.find((m) => m.annotations?.[REF_NAME] === ref);
    if (!d) throw new UserError(`OCI layout has no image named ${JSON.stringify(ref)}`, { file: dir });
  } else if (entries.length === 1) d = entries[0];
  else if (entries.length === 0) throw new UserError('OCI layout holds no image', { file: dir });
  else {
    const names = entries.map((m) => m.annotations?.[REF_NAME] ?? m.digest);
    if (new Set(entries.map((m) => m.digest)).size === 1) d = entries[0];
    else throw new UserError(`OCI layout holds several images; name one of: ${names.slice(0, 20).join(', ')}${names.length > 20 ? ', …' : ''}`, { file: dir });
  }
  let from = indexFile;
  let field = `manifests[${entries.indexOf(d)}]`;
  for (let depth = 0; depth < 4; depth++) {
    const { bytes, file } = await readBlob(dir, d, lim.maxManifestBytes, from, field);
    const parsed = parseManifestOrIndex(bytes, d.mediaType, file);
    if (parsed.kind === 'index') {
      d = selectPlatform(parsed.m, file);
      from = file;
      field = `manifests[${parsed.m.manifests.indexOf(d)}]`;
      continue;
    }
    const m = parsed.m;
    // Sizes first: a manifest that claims more than the image budget is refused before any read.
    const budget = new ByteBudget(lim.maxImageBytes, `the image's blobs (config and ${m.layers.length} layers)`);
    for (const [i, x] of [m.config, ...m.layers].entries()) budget.take(x.size, (msg) => invalidImage(file, i === 0 ? 'config.size' : `layers[${i - 1}].size`, msg));
    const config = await readBlob(dir, m.config, lim.maxConfigBytes, file, 'config');
    parseConfig(config.bytes, config.file);
    const layers: Blob[] = [];
    // readBlob verified each digest: the blobs carry it (a push must not hash 50 MB twice).
    // Deferred: each layer stays on disk, checked (regular file, size) and streamed when sent.
    for (const [i, l] of m.layers.entries()) {
      if (opts.deferLayerVerification === true) {
        const blobFile = path.join(dir, 'blobs', 'sha256', digestHex(l.digest));
        if (l.size > lim.maxBlobBytes) throw invalidImage(file, `layers[${i}].size`, `${l.size} bytes is more than the ${lim.maxBlobBytes} allowed`);
        const source = await imageFileSource(blobFile, { max: lim.maxBlobBytes, expectSize: l.size, field: `layers[${i}].size`, fieldFile: file });
        if (!source) throw invalidImage(file, `layers[${i}].digest`, `blob ${l.digest} is missing from the layout`);
        layers.push(Blob.unverified(l.mediaType, source, l.digest, `invalid image: ${blobFile}`));
        continue;
      }
      const blob = await readBlob(dir, l, lim.maxBlobBytes, file, `layers[${i}]`);
      layers.push(new Blob(l.mediaType, blob.bytes, l.digest));
    }
    return new Image(m.mediaType, bytes, new Blob(m.config.mediaType, config.bytes, m.config.digest), layers, config.file);
  }
  throw new UserError('OCI layout: index nesting too deep', { file: dir });
}
