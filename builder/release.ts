/**
 * The images a NodePool's release payload names: the base OS (`rhel-coreos`), its extensions
 * and the machine-config-operator, read from `release-manifests/image-references` the way
 * HyperShift's releaseinfo does (layers from the last to the first, first regular file found
 * wins), with the project's registry client. Results are cached by release digest: a pullspec
 * by tag costs one HEAD per call, a pullspec by digest none once cached.
 */
import { UserError } from 'pkogen/model';
import { gunzipBounded, isGzip } from 'pkogen/oci';
import type { Descriptor } from 'pkogen/oci';
import { formatReference, parseReference, Reference, ReferenceError } from 'pkogen/oci';
import { RegistryClient, RegistryClientOptions } from 'pkogen/oci';
import { readTar } from 'pkogen/oci';
import { dockerConfigCredentials } from './dockerconfig.js';

export const IMAGE_REFERENCES = 'release-manifests/image-references';
/** MCO's default base OS tag since 4.13 (`rhel-coreos-8` in 4.12 and before). */
export const BASE_OS_TAGS = ['rhel-coreos', 'rhel-coreos-8'] as const;
export const MCO_TAG = 'machine-config-operator';

export interface ReleaseImages {
  /** The release as `registry/repository@digest`. */
  release: string;
  /** What the release pullspec names (the index digest for a multi-arch payload). */
  releaseDigest: string;
  baseOSImage: string;
  baseOSExtensionsImage?: string;
  machineConfigOperatorImage: string;
  /** The ImageStream's `metadata.name` (HyperShift's `ReleaseImage.Version()`). */
  version?: string;
}

export interface ReleaseResolverOptions extends Omit<RegistryClientOptions, 'credentials' | 'maxBlobBytes'> {
  /** Most layer bytes (compressed and uncompressed together) read per release (default 1 GiB). */
  maxBytes?: number;
  /** Releases kept (default 32). */
  cacheSize?: number;
  /** The base OS tag to use instead of `rhel-coreos` (e.g. `rhel-coreos-10`). */
  baseOSTag?: string;
}

type Found = Omit<ReleaseImages, 'release' | 'releaseDigest'>;

const DEFAULT_MAX_BYTES = 1 << 30;

export class ReleaseResolver {
  private readonly cache = new Map<string, Found>();
  private readonly inflight = new Map<string, Promise<Found>>();
  private readonly maxBytes: number;
  private readonly cacheSize: number;

  constructor(private readonly opts: ReleaseResolverOptions = {}) {
    this.maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;
    this.cacheSize = Math.max(1, opts.cacheSize ?? 32);
  }

  /**
   * Resolves a release pullspec with a `.dockerconfigjson` (the HCP's pull secret; absent means
   * anonymous) for linux/`arch`. Errors are UserErrors naming the release and what is wrong.
   */
  async resolve(releasePullspec: string, pullSecret?: string, arch = 'amd64'): Promise<ReleaseImages> {
    let ref: Reference;
    try {
      ref = parseReference(releasePullspec);
    } catch (e) {
      if (e instanceof ReferenceError) throw new UserError(`release ${JSON.stringify(releasePullspec)} is not an image reference: ${e.message}`);
      throw e;
    }
    const credentials = dockerConfigCredentials(pullSecret, { file: 'pull secret', path: '.dockerconfigjson' });
    const client = new RegistryClient({ ...this.opts, credentials, maxBlobBytes: this.maxBytes });
    try {
      const digest = ref.digest ?? (await this.wrap(formatReference(ref), () => client.resolveDigest(ref)));
      const byDigest: Reference = { registry: ref.registry, repository: ref.repository, digest };
      const release = formatReference(byDigest);
      const key = `${digest} ${arch}`;
      let found = this.cache.get(key);
      if (found) {
        // Most recently used last: Map keeps insertion order.
        this.cache.delete(key);
        this.cache.set(key, found);
      } else {
        let p = this.inflight.get(key);
        if (!p) {
          p = this.wrap(release, () => this.read(client, byDigest, release, arch));
          this.inflight.set(key, p);
          p.finally(() => this.inflight.delete(key)).catch(() => {});
        }
        found = await p;
        this.remember(key, found);
      }
      return { release, releaseDigest: digest, ...found };
    } finally {
      client.close();
    }
  }

  private remember(key: string, found: Found): void {
    this.cache.delete(key);
    this.cache.set(key, found);
    while (this.cache.size > this.cacheSize) this.cache.delete(this.cache.keys().next().value!);
  }

  /** Prefixes registry and parse errors with the release they concern. */
  private async wrap<T>(release: string, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof UserError && !e.message.startsWith(`release ${release}`)) {
        // The registry client names the image too; say it once.
        const msg = e.message.startsWith(`${release}: `) ? e.message.slice(release.length + 2) : e.message;
        throw new UserError(`release ${release}: ${msg}`, e.location);
      }
      throw e;
    }
  }

  private async read(client: RegistryClient, ref: Reference, release: string, arch: string): Promise<Found> {
    const { m } = await client.manifest(ref, arch);
    const text = await this.findFile(client, ref, m.layers, release);
    return pickImages(parseImageReferences(text, release), release, this.opts.baseOSTag);
  }

  /** The topmost regular `release-manifests/image-references`; a whiteout above it hides it. */
  private async findFile(client: RegistryClient, ref: Reference, layers: Descriptor[], release: string): Promise<string> {
    let budget = this.maxBytes;
    const dir = IMAGE_REFERENCES.slice(0, IMAGE_REFERENCES.lastIndexOf('/'));
    const base = IMAGE_REFERENCES.slice(dir.length + 1);
    for (let i = layers.length - 1; i >= 0; i--) {
      const d = layers[i];
      if (d.size > budget) throw new UserError(`release ${release}: reading its layers needs more than ${this.maxBytes} bytes`);
      const blob = await client.blob(ref, d);
      budget -= blob.size;
      let tar: Uint8Array;
      if (isGzip(blob.bytes)) {
        if (budget <= 0) throw new UserError(`release ${release}: reading its layers needs more than ${this.maxBytes} bytes`);
        try {
          tar = gunzipBounded(blob.bytes, budget, `layer ${d.digest}`);
        } catch (e) {
          if (e instanceof UserError && /uncompresses to more than/.test(e.message))
            throw new UserError(`release ${release}: reading its layers needs more than ${this.maxBytes} bytes`);
          throw e;
        }
        budget -= tar.length;
      } else tar = blob.bytes;
      let hidden = false;
      for (const e of readTar(tar)) {
        if (e.name === IMAGE_REFERENCES && e.type === 'file') return new TextDecoder().decode(e.data);
        if (e.name === `${dir}/.wh.${base}` || e.name === `${dir}/.wh..wh..opq` || e.name === `.wh.${dir}`) hidden = true;
      }
      if (hidden) break;
    }
    throw new UserError(`release ${release}: the image has no file ${IMAGE_REFERENCES}; is it a release payload?`);
  }
}

export interface ImageStreamTags {
  /** `metadata.name`. */
  name?: string;
  /** Tag name → `from.name`, in file order. */
  tags: Map<string, string>;
}

/** Checks the ImageStream's shape; errors name the release, the file and the field. */
export function parseImageReferences(text: string, release: string): ImageStreamTags {
  const loc = (path?: string) => ({ file: IMAGE_REFERENCES, ...(path ? { path } : {}) });
  const fail = (msg: string, path?: string): never => {
    throw new UserError(`release ${release}: ${msg}`, loc(path));
  };
  let j: unknown;
  try {
    j = JSON.parse(text);
  } catch (e) {
    return fail(`image-references is not valid JSON: ${(e as Error).message}`);
  }
  if (!j || typeof j !== 'object' || Array.isArray(j)) return fail('image-references is not a JSON object');
  const o = j as Record<string, unknown>;
  // oc adm release info accepts exactly this kind and apiVersion.
  if (o.kind !== 'ImageStream') fail(`image-references kind is ${JSON.stringify(o.kind)}, expected "ImageStream"`, 'kind');
  if (o.apiVersion !== 'image.openshift.io/v1') fail(`image-references apiVersion is ${JSON.stringify(o.apiVersion)}, expected "image.openshift.io/v1"`, 'apiVersion');
  const md = o.metadata as Record<string, unknown> | undefined;
  if (md !== undefined && (!md || typeof md !== 'object')) fail('metadata is not an object', 'metadata');
  const name = md?.name;
  if (name !== undefined && typeof name !== 'string') fail('metadata.name is not a string', 'metadata.name');
  const spec = o.spec as Record<string, unknown> | undefined;
  if (!spec || typeof spec !== 'object' || Array.isArray(spec)) return fail('image-references has no spec', 'spec');
  if (!Array.isArray(spec.tags)) return fail('image-references has no spec.tags list', 'spec.tags');
  const tags = new Map<string, string>();
  spec.tags.forEach((t: unknown, i: number) => {
    const p = `spec.tags[${i}]`;
    if (!t || typeof t !== 'object' || Array.isArray(t)) fail('tag is not an object', p);
    const tag = t as Record<string, unknown>;
    if (typeof tag.name !== 'string' || !tag.name) fail('tag has no name', `${p}.name`);
    const from = tag.from as Record<string, unknown> | undefined;
    if (!from || typeof from !== 'object' || typeof from.name !== 'string' || !from.name) fail(`tag "${tag.name}" has no from.name`, `${p}.from.name`);
    if (from!.kind !== undefined && from!.kind !== 'DockerImage') fail(`tag "${tag.name}" from.kind is ${JSON.stringify(from!.kind)}, expected "DockerImage"`, `${p}.from.kind`);
    if (tags.has(tag.name as string)) fail(`tag "${tag.name}" appears twice`, `${p}.name`);
    tags.set(tag.name as string, from!.name as string);
  });
  return { ...(typeof name === 'string' && name ? { name } : {}), tags };
}

function pickImages(is: ImageStreamTags, release: string, baseOSTag?: string): Found {
  const need = (tag: string): string => {
    const v = is.tags.get(tag);
    if (v === undefined) throw new UserError(`release ${release}: image-references has no tag "${tag}"`, { file: IMAGE_REFERENCES });
    return checkPullspec(v, tag, release);
  };
  let baseTag: string;
  if (baseOSTag) baseTag = baseOSTag;
  else {
    const t = BASE_OS_TAGS.find((x) => is.tags.has(x));
    if (!t) throw new UserError(`release ${release}: image-references has no tag "${BASE_OS_TAGS[0]}"`, { file: IMAGE_REFERENCES });
    baseTag = t;
  }
  const out: Found = { baseOSImage: need(baseTag), machineConfigOperatorImage: need(MCO_TAG) };
  const ext = is.tags.get(`${baseTag}-extensions`);
  if (ext !== undefined) out.baseOSExtensionsImage = checkPullspec(ext, `${baseTag}-extensions`, release);
  if (is.name) out.version = is.name;
  return out;
}

function checkPullspec(v: string, tag: string, release: string): string {
  try {
    parseReference(v);
  } catch (e) {
    if (e instanceof ReferenceError) throw new UserError(`release ${release}: image-references tag "${tag}" is not an image reference: ${e.message}`, { file: IMAGE_REFERENCES });
    throw e;
  }
  return v;
}
