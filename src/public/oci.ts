/** `pkogen/oci`: the package image both ways, and where images come from (registry, OCI layout, docker archive). */
export { buildPackageImage, packageFilesFromImage, packageLayerTar, type BuildImageOptions, type PackageImageLimits } from '../pko/package-image.js';
export { Image } from '../oci/image.js';
export { pullImage, openOciLayout, openDockerArchive, type PullOptions } from '../oci/sources.js';
export { RegistryClient, type RegistryClientOptions } from '../oci/registry-client.js';
export { parseReference } from '../oci/reference.js';
