/**
 * OCI image layout (image-spec image-layout.md) as a sink and a source. Written atomically: the
 * whole directory is built beside the target and swapped in.
 */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/errors.js';
import { FileMap } from '../core/filemap.js';
import { writeFileMapAtomic } from '../core/fs.js';
import { digestHex, isDigest } from './digest.js';
import { Blob, Descriptor, Image, parseJson, parseManifestOrIndex, selectPlatform, verifyDigest } from './image.js';
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

async function readBlob(dir: string, d: Descriptor): Promise<Uint8Array> {
  if (!isDigest(d.digest)) throw new UserError(`unsupported digest ${d.digest}`, { file: dir });
  const file = path.join(dir, 'blobs', 'sha256', digestHex(d.digest));
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await fsp.readFile(file));
  } catch {
    throw new UserError(`blob ${d.digest} missing from OCI layout`, { file: dir });
  }
  verifyDigest(bytes, d.digest, `${dir}: blob`);
  return bytes;
}

/**
 * Opens an image from an OCI layout. `ref` picks the index entry by its ref name; without it
 * the layout must hold exactly one entry. An index is resolved to linux/amd64.
 */
export async function openOciLayout(dir: string, ref?: string): Promise<Image> {
  let indexBytes: Uint8Array;
  try {
    indexBytes = new Uint8Array(await fsp.readFile(path.join(dir, 'index.json')));
  } catch {
    throw new UserError('not an OCI layout (no index.json)', { file: dir });
  }
  const index = parseJson(indexBytes, `${dir}/index.json`) as { manifests?: Descriptor[] };
  const entries = index.manifests ?? [];
  let d: Descriptor | undefined;
  if (ref !== undefined) {
    d = entries.find((m) => m.annotations?.[REF_NAME] === ref);
    if (!d) throw new UserError(`OCI layout has no image named ${JSON.stringify(ref)}`, { file: dir });
  } else if (entries.length === 1) d = entries[0];
  else if (entries.length === 0) throw new UserError('OCI layout holds no image', { file: dir });
  else {
    const names = entries.map((m) => m.annotations?.[REF_NAME] ?? m.digest);
    if (new Set(entries.map((m) => m.digest)).size === 1) d = entries[0];
    else throw new UserError(`OCI layout holds several images; name one of: ${names.join(', ')}`, { file: dir });
  }
  for (let depth = 0; depth < 4; depth++) {
    const bytes = await readBlob(dir, d);
    const parsed = parseManifestOrIndex(bytes, d.mediaType);
    if (parsed.kind === 'index') {
      d = selectPlatform(parsed.m, dir);
      continue;
    }
    const config = new Blob(parsed.m.config.mediaType, await readBlob(dir, parsed.m.config));
    const layers: Blob[] = [];
    for (const l of parsed.m.layers) layers.push(new Blob(l.mediaType, await readBlob(dir, l)));
    return new Image(parsed.m.mediaType, bytes, config, layers);
  }
  throw new UserError('OCI layout: index nesting too deep', { file: dir });
}
