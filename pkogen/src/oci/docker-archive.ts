/**
 * `docker save` archives (what `crane.MultiSave` and `kubectl package build -o` write; loadable
 * by `docker load` and skopeo's `docker-archive:`), as a sink and a source.
 */
import * as path from 'node:path';
import { UserError } from '../core/errors.js';
import { writeFileAtomic } from '../core/fs.js';
import { digestHex } from './digest.js';
import { isGzip } from './gzip.js';
import { arrayField, Blob, Image, invalidImage, jsonType, parseConfig, parseJson, stringField } from './image.js';
import { readImageFile } from './image-file.js';
import { ByteBudget, DEFAULT_READ_LIMITS, type ImageReadLimits } from './limits.js';
import { MediaType } from './media-types.js';
import { cleanTarName, readTar, writeTar } from './tar.js';

const enc = new TextEncoder();

export function dockerArchiveBytes(image: Image, tags: string[]): Uint8Array {
  const configName = `${digestHex(image.config.digest)}.json`;
  const layerNames = image.layers.map((l) => `${digestHex(l.digest)}.tar${isGzip(l.bytes) ? '.gz' : ''}`);
  const manifest = [{ Config: configName, RepoTags: [...new Set(tags)], Layers: layerNames }];
  const entries = [
    { name: configName, type: 'file' as const, data: image.config.bytes },
    ...image.layers.map((l, i) => ({ name: layerNames[i], type: 'file' as const, data: l.bytes })),
    { name: 'manifest.json', type: 'file' as const, data: enc.encode(JSON.stringify(manifest)) },
  ];
  return writeTar(entries);
}

export async function writeDockerArchive(file: string, image: Image, tags: string[]): Promise<void> {
  writeFileAtomic(file, dockerArchiveBytes(image, tags));
}

interface SaveEntry {
  Config: string;
  RepoTags: string[];
  Layers: string[];
}

/** docker `manifest.json`, checked for the shape we use: `[{Config, RepoTags?, Layers}]`. */
function parseSaveManifest(bytes: Uint8Array, file: string): SaveEntry[] {
  const list = arrayField(parseJson(bytes, file), file, '');
  if (list.length === 0) throw invalidImage(file, '', 'lists no image');
  return list.map((e, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw invalidImage(file, `[${i}]`, `expected an object, got ${jsonType(e)}`);
    const o = e as Record<string, unknown>;
    const tags = o.RepoTags === undefined || o.RepoTags === null ? [] : arrayField(o.RepoTags, file, `[${i}].RepoTags`);
    return {
      Config: stringField(o.Config, file, `[${i}].Config`),
      RepoTags: tags.map((t, j) => stringField(t, file, `[${i}].RepoTags[${j}]`)),
      Layers: arrayField(o.Layers, file, `[${i}].Layers`).map((l, j) => stringField(l, file, `[${i}].Layers[${j}]`)),
    };
  });
}

/**
 * Opens an image from a docker-save archive; `tag` picks one when it holds several. Such
 * archives carry no registry manifest, so a Docker schema 2 manifest is synthesized. The archive
 * must be a regular file no larger than the image budget; members are read from it in memory
 * only (a symlink member is followed inside the archive, never on disk).
 */
export async function openDockerArchive(file: string, tag?: string, limits: Partial<ImageReadLimits> = {}): Promise<Image> {
  const lim = { ...DEFAULT_READ_LIMITS, ...limits };
  // Tar headers and padding on top of the blobs: a little room, not another image's worth.
  const bytes = await readImageFile(file, { max: lim.maxImageBytes + lim.maxManifestBytes + (1 << 20), followSymlink: true });
  if (!bytes) throw new UserError('cannot read archive (no such file)', { file });
  const entries = new Map(readTar(bytes).map((e) => [e.name, e]));
  const member = (name: string, from: string, field: string): Uint8Array => {
    let key = name.replace(/^(\.\/)+/, '');
    for (let hops = 0; hops < 8; hops++) {
      const e = entries.get(key);
      if (!e) break;
      if (e.type === 'file') return e.data;
      if (e.type !== 'symlink' || !e.linkname) throw invalidImage(`${file}(${key})`, '', `is a ${e.type === 'other' ? 'special file' : e.type}; only regular files are read from an image`);
      const target = cleanTarName(e.linkname.startsWith('/') ? e.linkname : `${path.posix.dirname(key)}/${e.linkname}`);
      if (target === undefined) break;
      key = target;
    }
    throw invalidImage(from, field, `archive member ${JSON.stringify(name.slice(0, 200))} is missing`);
  };
  const mjName = `${file}(manifest.json)`;
  const mje = entries.get('manifest.json');
  if (!mje) throw new UserError('not a docker-archive (no manifest.json)', { file });
  const mj = member('manifest.json', mjName, '');
  if (mj.length > lim.maxManifestBytes) throw invalidImage(mjName, '', `${mj.length} bytes is more than the ${lim.maxManifestBytes} allowed`);
  const list = parseSaveManifest(mj, mjName);
  let index = -1;
  if (tag !== undefined) index = list.findIndex((e) => e.RepoTags.includes(tag));
  else if (list.length === 1) index = 0;
  if (index < 0) throw new UserError(tag !== undefined ? `archive has no image tagged ${tag}` : 'archive holds several images; name one by tag', { file });
  const entry = list[index];
  const configBytes = member(entry.Config, mjName, `[${index}].Config`);
  if (configBytes.length > lim.maxConfigBytes) throw invalidImage(mjName, `[${index}].Config`, `${configBytes.length} bytes is more than the ${lim.maxConfigBytes} allowed`);
  const configName = `${file}(${entry.Config.replace(/^(\.\/)+/, '')})`;
  parseConfig(configBytes, configName);
  const config = new Blob(MediaType.DockerConfig, configBytes);
  // Members are slices of the archive, already bounded by its size; the budget still refuses a
  // manifest that lists one large member many times.
  const budget = new ByteBudget(lim.maxImageBytes, `the image's layers (${entry.Layers.length} listed)`);
  const layers = entry.Layers.map((n, j) => {
    const b = member(n, mjName, `[${index}].Layers[${j}]`);
    budget.take(b.length, (msg) => invalidImage(mjName, `[${index}].Layers[${j}]`, msg));
    return new Blob(isGzip(b) ? MediaType.DockerLayerGzip : 'application/vnd.docker.image.rootfs.diff.tar', b);
  });
  const manifest = {
    schemaVersion: 2,
    mediaType: MediaType.DockerManifest,
    config: config.descriptor(),
    layers: layers.map((l) => l.descriptor()),
  };
  return new Image(MediaType.DockerManifest, enc.encode(JSON.stringify(manifest)), config, layers, configName);
}
