/**
 * The fleet process's own registry look-ups (builder/fleet/registry-lookups.ts: a release tag's
 * digest, the release's base OS and builder images, the prebuilt image's read-back) against
 * Debian's docker-registry with TLS on 127.0.0.1, its certificate signed by a test CA: with
 * `--provider-trust-bundle` naming a ConfigMap that holds the CA they succeed; without it each
 * fails saying the certificate is not trusted (the x509 code) and what the fleet trusts.
 */
import { readFileSync } from 'node:fs';
import { Image } from '../../pkogen/src/oci/image.js';
import { parseReference } from '../../pkogen/src/oci/reference.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { cleanupRegistry, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/clusters/kube.js';
import { BuildKey } from '../../builder/fleet/build-registry.js';
import { prebuiltProviderImage } from '../../builder/fleet/provider-build.js';
import { FLEET_NAMESPACE_RULES } from '../../builder/fleet/rbac.js';
import { fleetRegistryLookups } from '../../builder/fleet/registry-lookups.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { b64, imageReferences, releaseImage } from './fixtures.js';
import { withNamespace } from './clusters.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const NS = 'on-cluster-build-fleet';
const FLEET_USER = `system:serviceaccount:${NS}:fleet`;
const TAGS = {
  'machine-config-operator': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('c')}`,
  'rhel-coreos': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('e')}`,
};
const NOT_TRUSTED = /TLS certificate not trusted \([A-Z_]+\); the fleet trusts the system CAs and those of the ConfigMap --provider-trust-bundle names$/;

let tls: TestRegistry;
let mgmt: ApiTestServer;
let release: Image;

beforeAll(async () => {
  tls = await startRegistry('tls');
  release = releaseImage({ refs: imageReferences('4.20.1', TAGS) });
  const push = new RegistryClient({ ca: readFileSync(tls.caFile!, 'utf8') });
  try {
    await push.push(release, [parseReference(`${tls.host}/ocp/release:4.20.1`)]);
  } finally {
    push.close();
  }
  mgmt = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet-token', rules: withNamespace(FLEET_NAMESPACE_RULES, NS) }] });
  mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'provider-push', namespace: NS }, data: { '.dockerconfigjson': b64('{"auths":{}}') } });
  mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'provider-ca', namespace: NS }, data: { 'ca-bundle.crt': readFileSync(tls.caFile!, 'utf8') } });
}, 60_000);

afterAll(async () => {
  await mgmt?.stop();
  await cleanupRegistry(tls);
});

const lookups = (trustBundleConfigMap?: string) =>
  fleetRegistryLookups({ management: new Kube(mgmt.kubeConfig(FLEET_USER)), namespace: NS, pushSecretName: 'provider-push', connectPolicy: new NetGuard({ allow: [tls.host] }), ...(trustBundleConfigMap ? { trustBundleConfigMap } : {}) });
const key = (): BuildKey => ({ releaseDigest: release.digest, releasePullSpec: `${tls.host}/ocp/release:4.20.1`, arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b') });

describe('the fleet resolves releases on a registry signed by a private CA', () => {
  it('with --provider-trust-bundle: the tag resolves to its digest and the release to its base OS and builder', async () => {
    const l = lookups('provider-ca');
    expect(await l.resolveReleaseDigest(`${tls.host}/ocp/release:4.20.1`)).toBe(release.digest);
    expect(await l.resolveBase(key(), '{"auths":{}}')).toEqual({ baseOSImage: TAGS['rhel-coreos'], builderImage: TAGS['machine-config-operator'] });
  });

  it('without it: each fails with the x509 reason, naming the registry and what the fleet trusts', async () => {
    const l = lookups();
    await expect(l.resolveReleaseDigest(`${tls.host}/ocp/release:4.20.1`)).rejects.toThrow(new RegExp(`^registry ${tls.host.replace(/\./g, '\\.')}: ${NOT_TRUSTED.source}`));
    await expect(l.resolveBase(key(), '{"auths":{}}')).rejects.toThrow(new RegExp(`^release ${tls.host.replace(/\./g, '\\.')}/ocp/release:4\\.20\\.1: registry ${tls.host.replace(/\./g, '\\.')}: ${NOT_TRUSTED.source}`));
  });

  it('a trust bundle that is named but missing fails the look-up, naming the ConfigMap', async () => {
    await expect(lookups('no-such-ca').resolveBase(key(), undefined)).rejects.toThrow(`ConfigMap ${NS}/no-such-ca (--provider-trust-bundle) is missing`);
  });

  it('a prebuilt provider image is read back trusting the bundle', async () => {
    const l = lookups('provider-ca');
    const seen: (string | undefined)[] = [];
    const build = prebuiltProviderImage({
      image: `${tls.host}/provider/os@${D('9')}`,
      pushSecret: async () => '{"auths":{}}',
      resolveBase: l.resolveBase,
      verify: async (i) => (seen.push(i.ca), { ok: true }),
      trustBundle: l.trustBundle,
    });
    expect(await build(key())).toEqual({ image: `${tls.host}/provider/os@${D('9')}` });
    expect(seen).toEqual([readFileSync(tls.caFile!, 'utf8')]);
  });
});
