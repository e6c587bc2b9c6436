/**
 * The images a NodePool's release payload names for its architecture and OS stream: the base OS
 * (`rhel-coreos`, `rhel-coreos-8` on 4.12, `rhel-coreos-10` for RHEL 10), its extensions and the
 * machine-config-operator, read from `release-manifests/image-references` the way HyperShift's
 * releaseinfo does (layers from the last to the first, first regular file found wins).
 *
 * A release comes from a registry we do not control, so every resolve is bounded: layers are
 * streamed (gunzip and untar as the bytes arrive, stop decompressing at the file, keep only the
 * file, capped), each resolve has its own deadline, the management network is guarded
 * (`connectPolicy`, builder/registry/net-guard.ts), a failure is cached with exponential backoff per
 * release key, and concurrent resolves of one key share one in-flight promise while different
 * keys never wait for each other. Results are cached by release digest and architecture.
 */
import { createHash } from 'node:crypto';
import { UserError } from 'pkogen/model';
import { formatMs, type ConnectPolicy, Deadline } from 'pkogen/oci';
import { parseConfig, type Descriptor } from 'pkogen/oci';
import { formatReference, parseReference, Reference, ReferenceError } from 'pkogen/oci';
import { RegistryClient, RegistryClientOptions } from 'pkogen/oci';
import { dockerConfigCredentials } from './dockerconfig.js';
import { LayerScan } from './layer-scan.js';
import { TarFind } from './tar-find.js';

export const IMAGE_REFERENCES = 'release-manifests/image-references';
/** MCO's default base OS tag since 4.13 (`rhel-coreos-8` in 4.12 and before). */
export const BASE_OS_TAGS = ['rhel-coreos', 'rhel-coreos-8'] as const;
export const MCO_TAG = 'machine-config-operator';
/** NodePool `spec.arch` values (HyperShift's enum); also the OCI architecture names. */
export const ARCHITECTURES = ['amd64', 'arm64', 'ppc64le', 's390x'] as const;
export type Architecture = (typeof ARCHITECTURES)[number];
/**
 * The token Secret's `os-stream` → the base OS tags to try, in order. No stream (or `rhel-9`)
 * is the default stream: `rhel-coreos`, or `rhel-coreos-8` on 4.12.
 */
export const OS_STREAM_TAGS: Record<string, readonly string[]> = {
  '': BASE_OS_TAGS,
  'rhel-9': BASE_OS_TAGS,
  'rhel-10': ['rhel-coreos-10'],
};

export interface ReleaseImages {
  /** The release as `registry/repository@digest`. */
  release: string;
  /** What the release pullspec names (the index digest for a multi-arch payload). */
  releaseDigest: string;
  /** The architecture the images are for. */
  arch: string;
  /** The image-references tag the base OS image came from. */
  baseOSTag: string;
  baseOSImage: string;
  baseOSExtensionsImage?: string;
  machineConfigOperatorImage: string;
  /** The ImageStream's `metadata.name` (HyperShift's `ReleaseImage.Version()`). */
  version?: string;
}

export interface ResolveOptions {
  /** The NodePool's `spec.arch` (default amd64). */
  arch?: string;
  /** The token Secret's `os-stream` (`rhel-9`, `rhel-10`; default: the release's default stream). */
  osStream?: string;
  /** PEM of CAs trusted besides the system's for this resolve (a release mirror signed by a private CA). */
  ca?: string;
}

/** What a resolve costs at most, and how failures are remembered. */
export interface ReleaseBudgets {
  /** Compressed layer bytes read per resolve, all layers together (default 512 MiB; streamed, never held). */
  maxLayerBytes?: number;
  /** Decompressed bytes scanned per resolve before the file is found (default 1 GiB; streamed, never held). */
  maxUncompressedBytes?: number;
  /** Largest `image-references` accepted (default 4 MiB; the one thing kept in memory). */
  maxDocumentBytes?: number;
  /** Largest manifest or index (default 4 MiB) and image config (default 1 MiB). */
  maxManifestBytes?: number;
  maxConfigBytes?: number;
  /** Longest one resolve may take, every request and retry included (default 60 s, HyperShift's lookup timeout). */
  resolveTimeoutMs?: number;
  /** First wait after a failed resolve before the same key is tried again (default 10 s); doubles per failure. */
  failureBackoffMs?: number;
  /** Longest wait between tries of a failing key (default 10 min). */
  maxFailureBackoffMs?: number;
  /**
   * Hash the rest of the layer after the file was found, to check its digest (default true).
   * Decompression stops at the file either way; only the compressed bytes are read on.
   */
  verifyLayerDigest?: boolean;
}

/** Clock and timers, injectable for tests. */
export interface ResolverClock {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(t: unknown): void;
}

export interface ReleaseResolverOptions extends Omit<RegistryClientOptions, 'credentials' | 'maxBlobBytes' | 'deadline' | 'maxManifestBytes'>, ReleaseBudgets {
  /** @deprecated the old name of maxLayerBytes. */
  maxBytes?: number;
  /** Releases kept (default 32). */
  cacheSize?: number;
  /** The base OS tag to use instead of the stream's (e.g. `rhel-coreos-10`). */
  baseOSTag?: string;
  /** Who may be connected to (builder/registry/net-guard.ts `NetGuard`); default: anyone. */
  connectPolicy?: ConnectPolicy;
  clock?: ResolverClock;
  /** Told when a resolve started by `poll` settles (the controller requeues the NodePool). */
  onSettled?: (release: string, ok: boolean) => void;
}

/** A resolve that failed; `retryAt` (ms since the epoch) is when the key may be tried again. */
export class ReleaseResolveError extends UserError {
  constructor(
    message: string,
    readonly retryAt: number,
    readonly failures: number,
    location?: UserError['location'],
  ) {
    super(message, location);
  }
}

export type ReleaseState = { state: 'ready'; images: ReleaseImages } | { state: 'resolving' } | { state: 'failed'; error: ReleaseResolveError };

/** The tags a release is cached with: only those we may need (a few, not the whole document). */
interface Found {
  tags: Map<string, string>;
  version?: string;
}

interface Failure {
  error: UserError;
  failures: number;
  retryAt: number;
}

const MiB = 1 << 20;
const realClock: ResolverClock = { now: () => Date.now(), setTimeout: (f, ms) => setTimeout(f, ms), clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout) };

export class ReleaseResolver {
  private readonly cache = new Map<string, Found>();
  private readonly inflight = new Map<string, Promise<ReleaseImages>>();
  private readonly failures = new Map<string, Failure>();
  private readonly results = new Map<string, ReleaseImages>();
  private readonly cacheSize: number;
  private readonly clock: ResolverClock;
  private readonly b: Required<ReleaseBudgets>;

  constructor(private readonly opts: ReleaseResolverOptions = {}) {
    this.cacheSize = Math.max(1, opts.cacheSize ?? 32);
    this.clock = opts.clock ?? realClock;
    this.b = {
      maxLayerBytes: opts.maxLayerBytes ?? opts.maxBytes ?? 512 * MiB,
      maxUncompressedBytes: opts.maxUncompressedBytes ?? 1024 * MiB,
      maxDocumentBytes: opts.maxDocumentBytes ?? 4 * MiB,
      maxManifestBytes: opts.maxManifestBytes ?? 4 * MiB,
      maxConfigBytes: opts.maxConfigBytes ?? MiB,
      resolveTimeoutMs: opts.resolveTimeoutMs ?? 60_000,
      failureBackoffMs: opts.failureBackoffMs ?? 10_000,
      maxFailureBackoffMs: opts.maxFailureBackoffMs ?? 600_000,
      verifyLayerDigest: opts.verifyLayerDigest ?? true,
    };
  }

  /** The key a resolve is de-duplicated, cached on failure and backed off by (no secret in it). */
  static key(releasePullspec: string, pullSecret: string | undefined, o: ResolveOptions = {}): string {
    const secret = pullSecret === undefined ? '-' : createHash('sha256').update(pullSecret).digest('hex').slice(0, 16);
    const ca = o.ca === undefined ? '' : ` ca:${createHash('sha256').update(o.ca).digest('hex').slice(0, 16)}`;
    return `${releasePullspec} ${o.arch ?? 'amd64'} ${o.osStream ?? ''} ${secret}${ca}`;
  }

  /**
   * Resolves a release pullspec with a `.dockerconfigjson` (the HCP's pull secret; absent means
   * anonymous) for linux/`arch` and the OS stream. Errors are UserErrors naming the release and
   * what is wrong; while a failed key backs off, the same error is thrown again at once (a
   * ReleaseResolveError with `retryAt`) without touching the registry.
   */
  resolve(releasePullspec: string, pullSecret?: string, archOrOptions: string | ResolveOptions = {}): Promise<ReleaseImages> {
    const o: ResolveOptions = typeof archOrOptions === 'string' ? { arch: archOrOptions } : archOrOptions;
    const key = ReleaseResolver.key(releasePullspec, pullSecret, o);
    const failed = this.failures.get(key);
    if (failed && this.clock.now() < failed.retryAt) return Promise.reject(this.cachedError(failed));
    let p = this.inflight.get(key);
    if (!p) {
      p = this.resolveNow(releasePullspec, pullSecret, o).then(
        (r) => {
          this.failures.delete(key);
          this.remember(this.results, key, r);
          return r;
        },
        (e: unknown) => {
          if (!(e instanceof UserError)) throw e;
          const n = (this.failures.get(key)?.failures ?? 0) + 1;
          const wait = Math.min(this.b.maxFailureBackoffMs, this.b.failureBackoffMs * 2 ** Math.min(n - 1, 30));
          const f: Failure = { error: e, failures: n, retryAt: this.clock.now() + wait };
          this.failures.set(key, f);
          while (this.failures.size > this.cacheSize * 4) this.failures.delete(this.failures.keys().next().value!);
          throw new ReleaseResolveError(e.message, f.retryAt, n, e.location);
        },
      );
      this.inflight.set(key, p);
      p.finally(() => this.inflight.delete(key)).catch(() => {});
    }
    return p;
  }

  /**
   * Never waits: the last result for this key if there is one and no resolve is due, the
   * cached failure while it backs off, else `resolving` (a resolve is started, or already
   * running; `onSettled` says when it ends). A reconciler that walks NodePools one after
   * another calls this so that one slow registry delays no other NodePool.
   */
  poll(releasePullspec: string, pullSecret?: string, o: ResolveOptions = {}): ReleaseState {
    const key = ReleaseResolver.key(releasePullspec, pullSecret, o);
    const failed = this.failures.get(key);
    if (failed && this.clock.now() < failed.retryAt) return { state: 'failed', error: this.cachedError(failed) };
    const ref = safeParse(releasePullspec);
    const done = this.results.get(key);
    // By digest a result never changes; by tag it is re-resolved (the tag may move), and the
    // previous answer is served meanwhile.
    if (done && ref?.digest) return { state: 'ready', images: done };
    if (!this.inflight.has(key)) {
      this.resolve(releasePullspec, pullSecret, o).then(
        () => this.opts.onSettled?.(releasePullspec, true),
        () => this.opts.onSettled?.(releasePullspec, false),
      );
    }
    return done ? { state: 'ready', images: done } : { state: 'resolving' };
  }

  /** The same text until the next try (a status written from it does not change every pass). */
  private cachedError(f: Failure): ReleaseResolveError {
    const at = new Date(f.retryAt).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return new ReleaseResolveError(`${f.error.message} (failed ${f.failures} time${f.failures === 1 ? '' : 's'}; not tried again before ${at})`, f.retryAt, f.failures, f.error.location);
  }

  private async resolveNow(releasePullspec: string, pullSecret: string | undefined, o: ResolveOptions): Promise<ReleaseImages> {
    let ref: Reference;
    try {
      ref = parseReference(releasePullspec);
    } catch (e) {
      if (e instanceof ReferenceError) throw new UserError(`release ${JSON.stringify(releasePullspec)} is not an image reference: ${e.message}`);
      throw e;
    }
    const arch = o.arch ?? 'amd64';
    if (!(ARCHITECTURES as readonly string[]).includes(arch)) throw new UserError(`release ${releasePullspec}: architecture ${JSON.stringify(arch)} is not one of ${ARCHITECTURES.join(', ')}`);
    const stream = o.osStream ?? '';
    const baseTags = this.opts.baseOSTag ? [this.opts.baseOSTag] : OS_STREAM_TAGS[stream];
    if (!baseTags) throw new UserError(`release ${releasePullspec}: OS stream ${JSON.stringify(stream)} is not one of ${Object.keys(OS_STREAM_TAGS).filter(Boolean).join(', ')}`);
    const credentials = dockerConfigCredentials(pullSecret, { file: 'pull secret', path: '.dockerconfigjson' });
    const deadline = new Deadline(this.b.resolveTimeoutMs, this.clock.now(), () => this.clock.now());
    const { clock: _c, onSettled: _s, ...clientOpts } = this.opts;
    const client = new RegistryClient({
      ...clientOpts,
      ...(o.ca !== undefined ? { ca: o.ca } : {}),
      credentials,
      deadline,
      // Layer sizes are checked against what is left of maxLayerBytes, the config against maxConfigBytes.
      maxBlobBytes: Math.max(this.b.maxLayerBytes, this.b.maxConfigBytes),
      maxManifestBytes: this.b.maxManifestBytes,
    });
    let timer: unknown;
    const expired = new Promise<never>((_, reject) => {
      timer = this.clock.setTimeout(() => {
        // Cuts whatever is in flight (sockets destroyed); the work's own failure is then ignored.
        client.close();
        reject(new UserError(`release ${formatReference(ref)}: no result within ${formatMs(this.b.resolveTimeoutMs)} (the deadline of one release lookup)`));
      }, this.b.resolveTimeoutMs);
    });
    const work = this.work(client, ref, arch, stream, baseTags);
    work.catch(() => {});
    try {
      return await Promise.race([work, expired]);
    } finally {
      this.clock.clearTimeout(timer);
      client.close();
    }
  }

  private async work(client: RegistryClient, ref: Reference, arch: string, stream: string, baseTags: readonly string[]): Promise<ReleaseImages> {
    const digest = ref.digest ?? (await this.wrap(formatReference(ref), () => client.resolveDigest(ref)));
    const byDigest: Reference = { registry: ref.registry, repository: ref.repository, digest };
    const release = formatReference(byDigest);
    const key = `${digest} ${arch}`;
    let found = this.cache.get(key);
    if (found) this.remember(this.cache, key, found);
    else {
      found = await this.wrap(release, () => this.read(client, byDigest, release, arch));
      this.remember(this.cache, key, found);
    }
    return { release, releaseDigest: digest, arch, ...pickImages(found, release, baseTags, stream, arch) };
  }

  private remember<T>(m: Map<string, T>, key: string, v: T): void {
    // Most recently used last: Map keeps insertion order.
    m.delete(key);
    m.set(key, v);
    while (m.size > this.cacheSize) m.delete(m.keys().next().value!);
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
    const { m, file } = await client.manifest(ref, arch).catch((e: unknown) => {
      if (e instanceof UserError && /image index has no linux\//.test(e.message))
        throw new UserError(`release ${release}: it has no linux/${arch} image (the NodePool's architecture); a multi-arch release payload is needed`);
      throw e;
    });
    // A single-architecture payload: its config says which one.
    if (m.config.size > this.b.maxConfigBytes) throw new UserError(`release ${release}: its image config is ${m.config.size} bytes, more than the ${this.b.maxConfigBytes} allowed`);
    const cfg = parseConfig((await client.blob(ref, m.config)).bytes, `${file} config`);
    if (cfg.architecture !== undefined && cfg.architecture !== arch)
      throw new UserError(`release ${release}: it is a linux/${String(cfg.architecture)} release, the NodePool's architecture is ${arch}; a multi-arch release payload is needed`);
    const text = await this.findFile(client, ref, m.layers, release);
    const all = parseImageReferences(text, release);
    const tags = new Map([...all.tags].filter(([t]) => t === MCO_TAG || t.startsWith('rhel-coreos') || t === this.opts.baseOSTag || t === `${this.opts.baseOSTag}-extensions`));
    return { tags, ...(all.name ? { version: all.name } : {}) };
  }

  /**
   * The topmost regular `release-manifests/image-references`; a whiteout above it hides it.
   * Each layer is streamed through gunzip into a tar scanner; decompression stops at the file.
   */
  private async findFile(client: RegistryClient, ref: Reference, layers: Descriptor[], release: string): Promise<string> {
    let compressedLeft = this.b.maxLayerBytes;
    let plainLeft = this.b.maxUncompressedBytes;
    for (let i = layers.length - 1; i >= 0; i--) {
      const d = layers[i];
      if (/zstd/.test(d.mediaType)) throw new UserError(`release ${release}: layer ${d.digest} is zstd-compressed (${d.mediaType}); only gzip and uncompressed layers are read`);
      if (d.size > compressedLeft) throw new UserError(`release ${release}: reading its layers needs more than ${this.b.maxLayerBytes} bytes`);
      compressedLeft -= d.size;
      let scan!: LayerScan;
      await client.streamBlob(ref, d, () => {
        scan = new LayerScan(
          new TarFind({ name: IMAGE_REFERENCES, maxFileBytes: this.b.maxDocumentBytes, what: `release ${release}: layer ${d.digest}` }),
          plainLeft,
          this.b.verifyLayerDigest,
          () => new UserError(`release ${release}: its layers decompress to more than ${this.b.maxUncompressedBytes} bytes before ${IMAGE_REFERENCES}; refusing it`),
          `release ${release}: layer ${d.digest}`,
        );
        return (c) => scan.write(c);
      });
      await scan.end();
      plainLeft -= scan.plain;
      if (scan.find.found) return new TextDecoder().decode(scan.find.found);
      if (scan.find.hidden) break;
    }
    throw new UserError(`release ${release}: the image has no file ${IMAGE_REFERENCES}; is it a release payload?`);
  }
}

function safeParse(s: string): Reference | undefined {
  try {
    return parseReference(s);
  } catch {
    return undefined;
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

function pickImages(found: Found, release: string, baseTags: readonly string[], stream: string, arch: string): Omit<ReleaseImages, 'release' | 'releaseDigest' | 'arch'> {
  const need = (tag: string, why: string): string => {
    const v = found.tags.get(tag);
    if (v === undefined) throw new UserError(`release ${release}: image-references has no tag "${tag}"${why}`, { file: IMAGE_REFERENCES });
    return checkPullspec(v, tag, release);
  };
  const baseTag = baseTags.find((x) => found.tags.has(x));
  if (!baseTag) {
    const forStream = stream ? ` for OS stream ${stream} (linux/${arch})` : '';
    throw new UserError(`release ${release}: image-references has no tag "${baseTags[0]}"${forStream}`, { file: IMAGE_REFERENCES });
  }
  const out: Omit<ReleaseImages, 'release' | 'releaseDigest' | 'arch'> = { baseOSTag: baseTag, baseOSImage: need(baseTag, ''), machineConfigOperatorImage: need(MCO_TAG, '') };
  const ext = found.tags.get(`${baseTag}-extensions`);
  if (ext !== undefined) out.baseOSExtensionsImage = checkPullspec(ext, `${baseTag}-extensions`, release);
  if (found.version) out.version = found.version;
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
