/** `pkogen/oci`: the package image both ways, and where images come from (registry, OCI layout, docker archive). */
export { buildPackageImage, packageFilesFromImage, packageLayerTar, type BuildImageOptions, type PackageImageLimits } from '../pko/package-image.js';
export { Image } from '../oci/image.js';
export { pullImage, openOciLayout, openDockerArchive, type PullOptions } from '../oci/sources.js';
export { RegistryClient, type RegistryClientOptions } from '../oci/registry-client.js';
export { parseReference } from '../oci/reference.js';
export { formatReference, ReferenceError, type Reference } from '../oci/reference.js';
export type { Descriptor } from '../oci/image.js';
export { isGzip, gunzipBounded } from '../oci/gzip.js';
export { readTar } from '../oci/tar.js';
export { authKeysFor, credentialFromAuthEntry, normalizeAuthKey, type AuthEntry, type Credential } from '../oci/credentials.js';
export { ConnectPolicyError, Deadline, formatMs, NetworkError, type ConnectPolicy } from '../oci/http.js';
export { parseConfig, parseManifestOrIndex, type ParsedManifest } from '../oci/image.js';
export { cleanTarName } from '../oci/tar.js';
export { Blob } from '../oci/image.js';
export { MediaType } from '../oci/media-types.js';
export { writeTar, type TarWriteEntry } from '../oci/tar.js';
