/**
 * `docker save` archives (what `crane.MultiSave` and `kubectl package build -o` write; loadable
 * by `docker load` and skopeo's `docker-archive:`), as a sink and a source.
 */
import { promises as fsp } from 'node:fs';
import { UserError } from '../core/errors.js';
import { writeFileAtomic } from '../core/fs.js';
import { digestHex } from './digest.js';
import { isGzip } from './gzip.js';
import { Blob, Image, parseJson } from './image.js';
import { MediaType } from './media-types.js';
import { readTar, writeTar } from './tar.js';

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
  await writeFileAtomic(file, dockerArchiveBytes(image, tags));
}

interface SaveEntry {
  Config: string;
  RepoTags?: string[] | null;
  Layers: string[];
}

/**
 * Opens an image from a docker-save archive; `tag` picks one when it holds several. Such
 * archives carry no registry manifest, so a Docker schema 2 manifest is synthesized.
 */
export async function openDockerArchive(file: string, tag?: string): Promise<Image> {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(await fsp.readFile(file));
  } catch {
    throw new UserError('cannot read archive', { file });
  }
  const members = new Map(readTar(bytes).filter((e) => e.type === 'file').map((e) => [e.name, e.data]));
  const mj = members.get('manifest.json');
  if (!mj) throw new UserError('not a docker-archive (no manifest.json)', { file });
  const list = parseJson(mj, `${file}: manifest.json`) as SaveEntry[];
  if (!Array.isArray(list) || list.length === 0) throw new UserError('docker-archive manifest.json lists no image', { file });
  let entry: SaveEntry | undefined;
  if (tag !== undefined) entry = list.find((e) => (e.RepoTags ?? []).includes(tag));
  else if (list.length === 1) entry = list[0];
  if (!entry) throw new UserError(tag !== undefined ? `archive has no image tagged ${tag}` : 'archive holds several images; name one by tag', { file });
  const get = (name: string) => {
    const b = members.get(name.replace(/^\.\//, ''));
    if (!b) throw new UserError(`archive member ${name} is missing`, { file });
    return b;
  };
  const config = new Blob(MediaType.DockerConfig, get(entry.Config));
  const layers = entry.Layers.map((n) => {
    const b = get(n);
    return new Blob(isGzip(b) ? MediaType.DockerLayerGzip : 'application/vnd.docker.image.rootfs.diff.tar', b);
  });
  const manifest = {
    schemaVersion: 2,
    mediaType: MediaType.DockerManifest,
    config: config.descriptor(),
    layers: layers.map((l) => l.descriptor()),
  };
  return new Image(MediaType.DockerManifest, enc.encode(JSON.stringify(manifest)), config, layers);
}
