/**
 * Our own stand-ins for what HyperShift and OpenShift put in front of the builder: release
 * payload images (only `release-manifests/image-references` and `release-metadata`, the files the
 * builder reads), token Secrets encoded as the NodePool controller writes them, and pull secrets.
 * Written for these tests; no upstream file is copied.
 */
import { gzipSync } from 'node:zlib';
import { Blob, Image } from '../../src/oci/image.js';
import { MediaType } from '../../src/oci/media-types.js';
import { gzipDeterministic } from '../../src/oci/gzip.js';
import { sha256Digest } from '../../src/oci/digest.js';
import { TarWriteEntry, writeTar } from '../../src/oci/tar.js';

export const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64');

/** An ImageStream as `oc adm release new` writes `image-references`. */
export function imageReferences(version: string, tags: Record<string, string>): string {
  return JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version, creationTimestamp: null },
    spec: { lookupPolicy: { local: false }, tags: Object.entries(tags).map(([name, image]) => ({ name, from: { kind: 'DockerImage', name: image } })) },
  });
}

/** A release payload image for linux/`arch` with the given component images. */
export function releaseImage(version: string, tags: Record<string, string>, arch = 'amd64'): Image {
  const entries: TarWriteEntry[] = [
    { name: 'release-manifests/', type: 'dir' },
    { name: 'release-manifests/image-references', type: 'file', data: new TextEncoder().encode(imageReferences(version, tags)) },
    { name: 'release-manifests/release-metadata', type: 'file', data: new TextEncoder().encode(JSON.stringify({ kind: 'cincinnati-metadata-v0', version })) },
  ];
  const tar = writeTar(entries);
  const layer = new Blob(MediaType.OciLayerGzip, gzipDeterministic(tar));
  const config = {
    architecture: arch,
    os: 'linux',
    config: { Labels: { 'io.openshift.release': version } },
    rootfs: { type: 'layers', diff_ids: [sha256Digest(tar)] },
  };
  return Image.fromBlobs(new Blob(MediaType.OciConfig, new TextEncoder().encode(JSON.stringify(config))), [layer]);
}

/** `.dockerconfigjson` for one registry. */
export function dockerConfigJson(registry: string, user: string, password: string): string {
  return JSON.stringify({ auths: { [registry]: { auth: b64(`${user}:${password}`) } } });
}

export function pullSecret(namespace: string, name: string, dockerconfigjson: string) {
  return { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name, namespace }, data: { '.dockerconfigjson': b64(dockerconfigjson) } };
}

/**
 * A NodePool token Secret as hypershift-operator/controllers/nodepool/token.go writes it:
 * `config` is base64(gzip(config)) (supportutil.CompressAndEncode) inside the API's base64.
 */
export function tokenSecret(o: { namespace: string; nodePoolNamespace: string; nodePool: string; hash: string; release: string; config: string; created: string }) {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: `token-${o.nodePool}-${o.hash}`,
      namespace: o.namespace,
      creationTimestamp: o.created,
      annotations: {
        'hypershift.openshift.io/ignition-config': 'true',
        'hypershift.openshift.io/nodePool': `${o.nodePoolNamespace}/${o.nodePool}`,
        'hypershift.openshift.io/node-pool-upgrade-type': 'Replace',
      },
    },
    data: {
      token: b64('0b6c1f6e-1111-4a4a-9b9b-000000000001'),
      release: b64(o.release),
      config: b64(b64(gzipSync(o.config))),
    },
  };
}
