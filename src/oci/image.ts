/**
 * An image is a value: a manifest's exact bytes, its config blob and its layer blobs. Digests are
 * computed on demand from the bytes; the manifest is serialized once and those same bytes go to
 * every sink (layout, registry), so the digest a user sees is the digest that was written.
 */
import { UserError } from '../core/errors.js';
import { isDigest, sha256Digest } from './digest.js';
import { INDEX_TYPES, MANIFEST_TYPES, MediaType } from './media-types.js';

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
  platform?: { architecture: string; os: string; variant?: string };
}

export class Blob {
  private cached?: string;
  constructor(
    readonly mediaType: string,
    readonly bytes: Uint8Array,
  ) {}
  get digest(): string {
    return (this.cached ??= sha256Digest(this.bytes));
  }
  get size(): number {
    return this.bytes.length;
  }
  descriptor(): Descriptor {
    return { mediaType: this.mediaType, digest: this.digest, size: this.size };
  }
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
    return parseJson(this.config.bytes, 'image config') as ImageConfigFile;
  }

  labels(): Record<string, string> {
    return this.configFile().config?.Labels ?? {};
  }

  /** Every blob the manifest refers to, config last (the order a push uploads them in). */
  blobs(): Blob[] {
    return [...this.layers, this.config];
  }
}

export function parseJson(bytes: Uint8Array, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new UserError(`${what} is not valid JSON: ${(e as Error).message}`);
  }
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

function checkDescriptor(d: unknown, what: string): Descriptor {
  const o = d as Descriptor;
  if (!o || typeof o !== 'object' || typeof o.digest !== 'string' || !isDigest(o.digest) || typeof o.size !== 'number' || o.size < 0)
    throw new UserError(`${what}: invalid descriptor ${JSON.stringify(d)}`);
  return o;
}

/** Parses a manifest or index, telling which it is by mediaType (or by shape when absent). */
export function parseManifestOrIndex(bytes: Uint8Array, contentType?: string): { kind: 'manifest'; m: ParsedManifest } | { kind: 'index'; m: ParsedIndex } {
  const j = parseJson(bytes, 'manifest') as Record<string, unknown>;
  if (!j || typeof j !== 'object') throw new UserError('manifest is not a JSON object');
  const mt = (typeof j.mediaType === 'string' ? j.mediaType : undefined) ?? (contentType?.split(';')[0].trim() || undefined);
  if ((mt && INDEX_TYPES.includes(mt)) || (!mt && Array.isArray(j.manifests))) {
    const manifests = (j.manifests as unknown[] | undefined)?.map((d, i) => checkDescriptor(d, `index manifests[${i}]`)) ?? [];
    return { kind: 'index', m: { mediaType: mt ?? MediaType.OciIndex, manifests } };
  }
  if (mt && !MANIFEST_TYPES.includes(mt)) throw new UserError(`unsupported manifest media type ${mt}`);
  if (j.schemaVersion !== 2) throw new UserError(`unsupported manifest schemaVersion ${JSON.stringify(j.schemaVersion)}`);
  const config = checkDescriptor(j.config, 'manifest config');
  const layers = ((j.layers as unknown[]) ?? []).map((d, i) => checkDescriptor(d, `manifest layers[${i}]`));
  return { kind: 'manifest', m: { mediaType: mt ?? MediaType.OciManifest, config, layers } };
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
