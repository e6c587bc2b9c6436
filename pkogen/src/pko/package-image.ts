/**
 * The package image, both ways, in one place: package files → image (`buildPackageImage`, the
 * deterministic writer in src/oci) and image → package files (`packageFilesFromImage`, PKO's
 * importer rules from ./image-files.ts, bounded per layer and per image). Build, validate,
 * diff, status --explain and simulate all go through here, so an image means the same package
 * to every command.
 */
import type { FileMap } from '../core/filemap.js';
import type { Image } from '../oci/image.js';
import { layerTars, MAX_LAYER_BYTES } from '../oci/package-image.js';
import { readTar } from '../oci/tar.js';
import { packageFilesFromLayers, type LayerEntry } from './image-files.js';

export { buildPackageImage, packageLayerTar, type BuildImageOptions } from '../oci/package-image.js';

export interface PackageImageLimits {
  /** Largest uncompressed layer (default src/oci/limits.ts MAX_LAYER_BYTES). */
  maxLayerBytes?: number;
  /** Largest sum of uncompressed layers (default MAX_UNPACKED_BYTES). */
  maxTotalBytes?: number;
}

/**
 * PKO's import of a package image: every layer in order, later files override earlier ones,
 * only regular files under `package/`, dot segments and escaping paths dropped. Throws PKO's
 * empty-package Violation, or a UserError for a broken or oversized layer (the image is not trusted).
 */
export function packageFilesFromImage(image: Image, limits: PackageImageLimits = {}): { files: FileMap; labels: Record<string, string> } {
  const layers: LayerEntry[][] = layerTars(image, limits.maxLayerBytes ?? MAX_LAYER_BYTES, limits.maxTotalBytes).map((tar) =>
    readTar(tar).map((e) => ({ name: e.name, data: e.type === 'file' ? e.data : undefined })),
  );
  return { files: packageFilesFromLayers(layers), labels: image.labels() };
}
