/**
 * An image is a value: a manifest's exact bytes, its config blob and its layer blobs. Digests are
 * computed on demand from the bytes; the manifest is serialized once and those same bytes go to
 * every sink (layout, registry), so the digest a user sees is the digest that was written.
 */
import { nodeCrypto } from '../core/builtins.js';
import { UserError } from '../core/errors.js';
import { isDigest, sha256Digest } from './digest.js';
import { INDEX_TYPES, MANIFEST_TYPES, MediaType } from './media-types.js';
import { isObj as isObject } from '../core/guards.js';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: { architecture: string; os: string; variant?: string };
}

/**
 * Bytes kept on disk (a layout's blob file): `read()` streams them from the start, every call;
 * `readAllSync()` reads them whole. Each yields exactly `size` bytes or throws.
 */
export interface ByteSource {
  readonly size: number;
  read(): AsyncIterable<Uint8Array>;
  readAllSync(): Uint8Array;
}

export class Blob {
  private cached?: string;
  /** Set while the bytes are not yet checked against `cached` (see `unverified`). */
  private pending?: string;
  private data?: Uint8Array;
  private readonly source?: ByteSource;
  constructor(
    readonly mediaType: string,
    /** The bytes, or where to read them when they are needed (`chunks()` streams them). */
    bytes: Uint8Array | ByteSource,
    /** The digest, when the caller has just verified `bytes` against it (saves hashing them again). */
    verifiedDigest?: string,
  ) {
    if (bytes instanceof Uint8Array) this.data = bytes;
    else this.source = bytes;
    this.cached = verifiedDigest;
  }

  /**
   * A blob whose bytes claim `digest` but are not hashed yet: `digest` answers the claim, and
   * `verify()` (or reading `chunks()` to the end) must succeed before anything depends on the
   * bytes matching it. A push uses this to hash while the bytes are on their way (`what` names
   * the blob in the mismatch error).
   */
  static unverified(mediaType: string, bytes: Uint8Array | ByteSource, digest: string, what: string): Blob {
    const b = new Blob(mediaType, bytes, digest);
    b.pending = what;
    return b;
  }

  get verified(): boolean {
    return this.pending === undefined;
  }

  /** The whole blob in memory (read from its source, once, on first use). */
  get bytes(): Uint8Array {
    return (this.data ??= this.source!.readAllSync());
  }

  /**
   * The bytes in order, in slices, from memory or streamed from the source. An unverified blob is
   * hashed on the way and its last slice is held back until the digest matched: a request body
   * fed from this never completes with bytes that are not the blob's.
   */
  async *chunks(): AsyncGenerator<Uint8Array> {
    const what = this.pending;
    const h = what === undefined ? undefined : nodeCrypto().createHash('sha256');
    let last: Uint8Array | undefined;
    for await (const c of this.data ? slices(this.data, 4 << 20) : this.source!.read()) {
      if (last) yield last;
      h?.update(c);
      last = c;
    }
    if (h) {
      const got = `sha256:${h.digest('hex')}`;
      if (got !== this.cached) throw new UserError(`${what}: digest mismatch: expected ${this.cached}, got ${got}`);
      this.pending = undefined;
    }
    if (last) yield last;
  }

  /**
   * Hashes an unverified blob (in slices, yielding between them so sockets keep moving); throws
   * on a mismatch. A no-op for verified blobs.
   */
  async verify(): Promise<void> {
    if (this.pending === undefined) return;
    for await (const _ of this.chunks()) await new Promise((r) => setImmediate(r));
  }

  get digest(): string {
    return (this.cached ??= sha256Digest(this.bytes));
  }
  get size(): number {
    return this.data?.length ?? this.source!.size;
  }
  descriptor(): Descriptor {
    return { mediaType: this.mediaType, digest: this.digest, size: this.size };
  }
}

function* slices(bytes: Uint8Array, step: number): Generator<Uint8Array> {
  for (let off = 0; off < bytes.length; off += step) yield bytes.subarray(off, off + step);
}

export interface ImageConfigFile {
  architecture?: string;
  os?: string;
  config?: { Labels?: Record<string, string> | null };
  rootfs?: { type: string; diff_ids: string[] };
  [k: string]: unknown;
}

export class Image {
  private cached?: string;
  constructor(
    readonly manifestMediaType: string,
    readonly manifest: Uint8Array,
    readonly config: Blob,
    readonly layers: Blob[],
    /** Where the config came from (a file, an archive member, a registry blob), for errors. */
    readonly configSource = 'image config',
  ) {}

  get digest(): string {
    return (this.cached ??= sha256Digest(this.manifest));
  }

  /** Builds the OCI manifest for a config and layers, with a fixed key order. */
  static fromBlobs(config: Blob, layers: Blob[]): Image {
    const manifest = {
      schemaVersion: 2,
      mediaType: MediaType.OciManifest,
      config: config.descriptor(),
      layers: layers.map((l) => l.descriptor()),
    };
    return new Image(MediaType.OciManifest, new TextEncoder().encode(JSON.stringify(manifest)), config, layers);
  }

  configFile(): ImageConfigFile {
    return parseConfig(this.config.bytes, this.configSource);
  }

  labels(): Record<string, string> {
    return this.configFile().config?.Labels ?? {};
  }

  /** Every blob the manifest refers to, config last (the order a push uploads them in). */
  blobs(): Blob[] {
    return [...this.layers, this.config];
  }
}

/** The one error for image metadata we cannot use: `invalid image: <file>: <field>: <problem>`. */
export function invalidImage(file: string, field: string, problem: string): UserError {
  return new UserError(`invalid image: ${file}: ${field ? `${field}: ` : ''}${problem}`);
}

/** JSON type names as a user reads them in a message. */
export function jsonType(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
}


/** Parses image metadata JSON; `file` names the document in the error. */
export function parseJson(bytes: Uint8Array, file: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw invalidImage(file, '', `not valid JSON: ${(e as Error).message}`);
  }
}

/** `v` must be an object (or absent/null when optional); returns it or undefined. */
function objectField(v: unknown, file: string, field: string, optional: boolean): Record<string, unknown> | undefined {
  if (optional && (v === undefined || v === null)) return undefined;
  if (!isObject(v)) throw invalidImage(file, field, v === undefined ? 'missing' : `expected an object, got ${jsonType(v)}`);
  return v;
}

/** `v` must be an array (required); returns it. */
export function arrayField(v: unknown, file: string, field: string): unknown[] {
  if (!Array.isArray(v)) throw invalidImage(file, field, v === undefined ? 'missing' : `expected an array, got ${jsonType(v)}`);
  return v;
}

export function stringField(v: unknown, file: string, field: string): string {
  if (typeof v !== 'string') throw invalidImage(file, field, v === undefined ? 'missing' : `expected a string, got ${jsonType(v)}`);
  return v;
}

function stringMap(v: unknown, file: string, field: string): Record<string, string> | undefined {
  const o = objectField(v, file, field, true);
  if (!o) return undefined;
  for (const [k, x] of Object.entries(o)) stringField(x, file, `${field}.${k}`);
  return o as Record<string, string>;
}

export interface ParsedManifest {
  mediaType: string;
  config: Descriptor;
  layers: Descriptor[];
}

export interface ParsedIndex {
  mediaType: string;
  manifests: Descriptor[];
}

/** A descriptor with every field we use checked: digest (sha256), size (a byte count), strings. */
export function checkDescriptor(d: unknown, file: string, field: string): Descriptor {
  const o = objectField(d, file, field, false)!;
  if (o.mediaType !== undefined) stringField(o.mediaType, file, `${field}.mediaType`);
  const digest = stringField(o.digest, file, `${field}.digest`);
  if (!isDigest(digest)) throw invalidImage(file, `${field}.digest`, `unsupported digest ${JSON.stringify(digest.slice(0, 80))} (sha256:<64 hex> expected)`);
  if (typeof o.size !== 'number' || !Number.isSafeInteger(o.size) || o.size < 0)
    throw invalidImage(file, `${field}.size`, `expected a byte count, got ${typeof o.size === 'number' ? o.size : jsonType(o.size)}`);
  const annotations = stringMap(o.annotations, file, `${field}.annotations`);
  let platform: Descriptor['platform'];
  const p = objectField(o.platform, file, `${field}.platform`, true);
  if (p) {
    platform = { os: stringField(p.os, file, `${field}.platform.os`), architecture: stringField(p.architecture, file, `${field}.platform.architecture`) };
    if (p.variant !== undefined) platform.variant = stringField(p.variant, file, `${field}.platform.variant`);
  }
  return {
    mediaType: (o.mediaType as string | undefined) ?? '',
    digest,
    size: o.size,
    ...(annotations ? { annotations } : {}),
    ...(platform ? { platform } : {}),
  };
}

/**
 * Parses a manifest or index, telling which it is by mediaType (or by shape when absent).
 * `file` names the document in errors (a layout blob path, `registry/repo@digest`).
 */
export function parseManifestOrIndex(
  bytes: Uint8Array,
  contentType?: string,
  file = 'manifest',
): { kind: 'manifest'; m: ParsedManifest } | { kind: 'index'; m: ParsedIndex } {
  const j = objectField(parseJson(bytes, file), file, '', false)!;
  if (j.mediaType !== undefined) stringField(j.mediaType, file, 'mediaType');
  const mt = (j.mediaType as string | undefined) || contentType?.split(';')[0].trim() || undefined;
  if ((mt && INDEX_TYPES.includes(mt)) || (!mt && j.manifests !== undefined)) return { kind: 'index', m: parseIndexObject(j, file, mt) };
  if (mt && !MANIFEST_TYPES.includes(mt)) throw invalidImage(file, 'mediaType', `unsupported manifest media type ${JSON.stringify(mt.slice(0, 200))}`);
  if (j.schemaVersion !== 2) throw invalidImage(file, 'schemaVersion', `unsupported ${JSON.stringify(j.schemaVersion ?? null)} (2 expected)`);
  const config = checkDescriptor(j.config, file, 'config');
  const layers = arrayField(j.layers, file, 'layers').map((d, i) => checkDescriptor(d, file, `layers[${i}]`));
  return { kind: 'manifest', m: { mediaType: mt ?? MediaType.OciManifest, config, layers } };
}

/** An OCI index (`index.json` of a layout, or a registry's index/manifest list). */
export function parseIndex(bytes: Uint8Array, file: string): ParsedIndex {
  return parseIndexObject(objectField(parseJson(bytes, file), file, '', false)!, file, undefined);
}

function parseIndexObject(j: Record<string, unknown>, file: string, mt: string | undefined): ParsedIndex {
  const manifests = arrayField(j.manifests, file, 'manifests').map((d, i) => checkDescriptor(d, file, `manifests[${i}]`));
  return { mediaType: mt ?? MediaType.OciIndex, manifests };
}

/** An image config, with the fields pkogen reads (labels) checked for shape. */
export function parseConfig(bytes: Uint8Array, file: string): ImageConfigFile {
  const j = objectField(parseJson(bytes, file), file, '', false)!;
  const c = objectField(j.config, file, 'config', true);
  if (c) stringMap(c.Labels, file, 'config.Labels');
  return j as ImageConfigFile;
}

/** The linux/<arch> entry of an index (amd64 by default, as crane.Pull picks it). */
export function selectPlatform(index: ParsedIndex, where: string, architecture = 'amd64'): Descriptor {
  const d = index.manifests.find((m) => m.platform?.os === 'linux' && m.platform?.architecture === architecture);
  if (!d) throw new UserError(`${where}: image index has no linux/${architecture} manifest`);
  return d;
}

/** Checks bytes against a digest; a mismatch means corruption or a lying server. */
export function verifyDigest(bytes: Uint8Array, expected: string, what: string): void {
  const got = sha256Digest(bytes);
  if (got !== expected) throw new UserError(`${what}: digest mismatch: expected ${expected}, got ${got}`);
}
