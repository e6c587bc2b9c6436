/**
 * Size ceilings for reading images we did not build (layouts, archives, registries). Every blob
 * is checked against its descriptor and these ceilings before a byte of it is read, so a hostile
 * image costs at most these amounts of memory. PKO packages are YAML: megabytes at most.
 */

/** One stored blob (compressed layer or config). */
export const MAX_BLOB_BYTES = 512 * 1024 * 1024;
/** All stored blobs of one image together (config + layers). */
export const MAX_IMAGE_BYTES = 512 * 1024 * 1024;
/** One uncompressed layer. */
export const MAX_LAYER_BYTES = 512 * 1024 * 1024;
/** All uncompressed layers of one image together. */
export const MAX_UNPACKED_BYTES = 512 * 1024 * 1024;
/** A manifest, an index, `index.json` or a docker `manifest.json` (registries cap manifests at 4 MiB too). */
export const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** An image config blob: JSON parsed whole, so kept small. */
export const MAX_CONFIG_BYTES = 8 * 1024 * 1024;

/** The ceilings an image reader applies; tests and callers may lower or raise them. */
export interface ImageReadLimits {
  maxBlobBytes: number;
  maxImageBytes: number;
  maxManifestBytes: number;
  maxConfigBytes: number;
}

export const DEFAULT_READ_LIMITS: ImageReadLimits = {
  maxBlobBytes: MAX_BLOB_BYTES,
  maxImageBytes: MAX_IMAGE_BYTES,
  maxManifestBytes: MAX_MANIFEST_BYTES,
  maxConfigBytes: MAX_CONFIG_BYTES,
};

/** Counts bytes against a per-image ceiling; the message names the image and the ceiling. */
export class ByteBudget {
  private used = 0;
  constructor(
    readonly max: number,
    private readonly what: string,
  ) {}
  get remaining(): number {
    return this.max - this.used;
  }
  /** Throws (via `fail`) when `n` more bytes would pass the ceiling. */
  take(n: number, fail: (message: string) => Error): void {
    if (n > this.max - this.used) throw fail(`${this.what} add up to more than the ${this.max} bytes allowed per image`);
    this.used += n;
  }
}
