/** Media types we write (OCI) and the Docker schema 2 equivalents we also read. */
export const MediaType = {
  OciManifest: 'application/vnd.oci.image.manifest.v1+json',
  OciIndex: 'application/vnd.oci.image.index.v1+json',
  OciConfig: 'application/vnd.oci.image.config.v1+json',
  OciLayerGzip: 'application/vnd.oci.image.layer.v1.tar+gzip',
  OciLayer: 'application/vnd.oci.image.layer.v1.tar',
  DockerManifest: 'application/vnd.docker.distribution.manifest.v2+json',
  DockerManifestList: 'application/vnd.docker.distribution.manifest.list.v2+json',
  DockerConfig: 'application/vnd.docker.container.image.v1+json',
  DockerLayerGzip: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
} as const;

export const MANIFEST_TYPES: readonly string[] = [MediaType.OciManifest, MediaType.DockerManifest];
export const INDEX_TYPES: readonly string[] = [MediaType.OciIndex, MediaType.DockerManifestList];
/** What we ask a registry for: any single manifest or index we can read. */
export const MANIFEST_ACCEPT = [...MANIFEST_TYPES, ...INDEX_TYPES].join(', ');
