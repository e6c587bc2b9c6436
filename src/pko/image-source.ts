/**
 * A package image (any source in src/oci) → the package FileMap, with PKO's image rules
 * (image-files.ts) applied to the entries of every layer in order.
 */
import type { FileMap } from '../core/filemap.js';
import type { Image } from '../oci/image.js';
import { layerTars, MAX_LAYER_BYTES } from '../oci/package-image.js';
import { readTar } from '../oci/tar.js';
import { packageFilesFromLayers, type LayerEntry } from './image-files.js';

/** Throws the empty-package Violation, or the oci reader's UserError for a broken layer. */
export function packageFilesFromOciImage(image: Image, maxLayerBytes = MAX_LAYER_BYTES, maxTotalBytes?: number): FileMap {
  // Bounded per layer and per image (src/oci/limits.ts): the image is not trusted.
  const layers: LayerEntry[][] = layerTars(image, maxLayerBytes, maxTotalBytes).map((tar) =>
    readTar(tar).map((e) => ({ name: e.name, data: e.type === 'file' ? e.data : undefined })),
  );
  return packageFilesFromLayers(layers);
}
