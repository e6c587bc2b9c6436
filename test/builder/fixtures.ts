/**
 * Our own stand-ins for what HyperShift and OpenShift put in front of the builder: release
 * payload images (only `release-manifests/image-references` and `release-metadata`, the files the
 * builder reads), token Secrets encoded as the NodePool controller writes them, and pull secrets.
 * Written for these tests; no upstream file is copied.
 */
import { gzipSync } from 'node:zlib';
import { Blob, Image } from '../../pkogen/src/oci/image.js';
import { MediaType } from '../../pkogen/src/oci/media-types.js';
import { gzipDeterministic } from '../../pkogen/src/oci/gzip.js';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { TarWriteEntry, writeTar } from '../../pkogen/src/oci/tar.js';

export const b64 = (b: Uint8Array | string) => Buffer.from(b).toString('base64');

const enc = new TextEncoder();

/** An ImageStream as `oc adm release new` writes `image-references`. */
export function imageReferences(version: string, tags: Record<string, string>): string {
  return JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version, creationTimestamp: null },
    spec: { lookupPolicy: { local: false }, tags: Object.entries(tags).map(([name, from]) => ({ name, annotations: {}, from: { kind: 'DockerImage', name: from } })) },
  });
}

/** Uncompressed digests (the config's diff_ids) of the layer blobs made here. */
const diffIds = new Map<Blob, string>();

export function layer(entries: TarWriteEntry[], gzip = true): Blob {
  const tar = writeTar(entries);
  const b = gzip ? new Blob(MediaType.OciLayerGzip, gzipDeterministic(tar)) : new Blob(MediaType.OciLayer, tar);
  diffIds.set(b, sha256Digest(tar));
  return b;
}

export const file = (name: string, text: string): TarWriteEntry => ({ name, type: 'file', data: enc.encode(text) });

/**
 * A release-like image for linux/`arch`: a base layer, then the release manifests layer
 * (`image-references` when `refs` is given, and `release-metadata`), then any extra layers.
 */
export function releaseImage(opts: { refs?: string; arch?: string; extra?: Blob[]; version?: string } = {}): Image {
  const layers = [
    layer([{ name: 'usr', type: 'dir' }, { name: 'usr/bin', type: 'dir' }, file('usr/bin/cluster-version-operator', '#!/bin/true\n')]),
    layer([
      { name: 'release-manifests', type: 'dir' },
      ...(opts.refs !== undefined ? [file('release-manifests/image-references', opts.refs)] : []),
      file('release-manifests/release-metadata', JSON.stringify({ kind: 'cincinnati-metadata-v0', version: opts.version ?? '4.20.1' })),
    ]),
    ...(opts.extra ?? []),
  ];
  const config = {
    architecture: opts.arch ?? 'amd64',
    os: 'linux',
    config: { Labels: { 'io.openshift.release': opts.version ?? '4.20.1' } },
    rootfs: { type: 'layers', diff_ids: layers.map((l) => diffIds.get(l)!) },
  };
  return Image.fromBlobs(new Blob(MediaType.OciConfig, enc.encode(JSON.stringify(config))), layers);
}

/** `.dockerconfigjson` for one registry. */
export function dockerConfigJson(registry: string, user: string, password: string): string {
  return JSON.stringify({ auths: { [registry]: { auth: b64(`${user}:${password}`) } } });
}

export function pullSecret(namespace: string, name: string, dockerconfigjson: string) {
  return { apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name, namespace }, data: { '.dockerconfigjson': b64(dockerconfigjson) } };
}

/** supportutil.CompressAndEncode: base64(gzip(config)); the API adds its own base64 on top. */
export const hypershiftConfig = (text: string) => b64(b64(gzipSync(text)));

/** A NodePool token Secret as hypershift-operator/controllers/nodepool/token.go writes it. */
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
      config: hypershiftConfig(o.config),
    },
  };
}
