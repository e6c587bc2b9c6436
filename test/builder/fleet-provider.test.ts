/**
 * The build registry's real seams (builder/fleet/provider-build.ts): `lookup` against Debian's
 * docker-registry on 127.0.0.1 (basic auth, the push Secret's credentials, the network guard,
 * the image verified as a layer on the release's base OS), and `build` as a Job in the build
 * namespace on the API test server, with exactly FLEET_NAMESPACE_RULES in the fleet namespace and
 * FLEET_BUILD_NAMESPACE_RULES in the build namespace, whose reported digest is verified before
 * it is answered.
 */
import { gunzipSync } from 'node:zlib';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { Blob, Image } from '../../pkogen/src/oci/image.js';
import { MediaType } from '../../pkogen/src/oci/media-types.js';
import { parseReference } from '../../pkogen/src/oci/reference.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { cleanupRegistry, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES } from '../../builder/clusters/kube.js';
import { verifyBuiltImage } from '../../builder/registry/image-check.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { dockerConfigCredentials } from '../../builder/registry/dockerconfig.js';
import { BuildKey, BuildRegistry, buildTag } from '../../builder/fleet/build-registry.js';
import { prebuiltProviderImage, ProviderBuilds, readPushSecret } from '../../builder/fleet/provider-build.js';
import { FLEET_BUILD_NAMESPACE, FLEET_BUILD_NAMESPACE_RULES, FLEET_NAMESPACE_RULES } from '../../builder/fleet/rbac.js';
import { JOB_NAME_LABEL } from '../../builder/controller/build-job.js';
import { BUILD_SCRIPT, PUSH_SCRIPT } from '../../builder/controller/build-script.js';
import { b64, dockerConfigJson, file, layer } from './fixtures.js';
import { withNamespace } from './clusters.js';

const enc = new TextEncoder();
const D = (c: string) => 'sha256:' + c.repeat(64);
const NS = 'on-cluster-build-fleet';
const BNS = FLEET_BUILD_NAMESPACE;
const FLEET_USER = `system:serviceaccount:${NS}:fleet`;
const KEY: BuildKey = { releaseDigest: D('2'), arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b'), releasePullSpec: `quay.io/openshift-release-dev/ocp-release@${D('2')}` };
const image = (layers: Blob[], arch = 'amd64') => Image.fromBlobs(new Blob(MediaType.OciConfig, enc.encode(JSON.stringify({ architecture: arch, os: 'linux', rootfs: { type: 'layers', diff_ids: layers.map((l) => sha256Digest(gunzipSync(l.bytes))) } }))), layers);
const L1 = layer([file('usr/lib/os-release', 'ID=rhcos\n')]);
const L2 = layer([file('usr/bin/rpm-ostree', 'x')]);
const AGENT = layer([file('usr/bin/provider-agent', 'agent')]);
const OTHER = layer([file('usr/bin/other', 'not rhcos')]);

let reg: TestRegistry;
let mgmt: ApiTestServer;
let baseRef: string;
const digests: Record<string, string> = {};
const repo = () => `${reg.host}/provider/os`;

beforeAll(async () => {
  reg = await startRegistry('basic');
  const c = new RegistryClient({ credentials: async () => ({ username: reg.user!, password: reg.password! }) });
  try {
    const base = image([L1, L2]);
    await c.push(base, [parseReference(`${reg.host}/ocp/rhcos:base`)]);
    baseRef = `${reg.host}/ocp/rhcos@${base.digest}`;
    const layered = image([L1, L2, AGENT]);
    await c.push(layered, [parseReference(`${repo()}:${buildTag(KEY)}`), parseReference(`${repo()}:${buildTag({ ...KEY, arch: 'arm64' })}`), parseReference(`${repo()}:${buildTag({ ...KEY, releaseDigest: D('5') })}`)]);
    digests.layered = layered.digest;
    const stranger = image([OTHER, AGENT]);
    await c.push(stranger, [parseReference(`${repo()}:${buildTag({ ...KEY, releaseDigest: D('3') })}`)]);
  } finally {
    c.close();
  }
  mgmt = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet-token', rules: [...withNamespace(FLEET_NAMESPACE_RULES, NS), ...withNamespace(FLEET_BUILD_NAMESPACE_RULES, BNS)] }, { name: 'system:admin', token: 'admin-token' }] });
  mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: BNS } });
  mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'provider-push', namespace: NS }, data: { '.dockerconfigjson': b64(dockerConfigJson(reg.host, reg.user!, reg.password!)) } });
});
const stop = new AbortController();
afterAll(async () => {
  stop.abort();
  await new Promise((r) => setTimeout(r, 50));
  await mgmt?.stop();
  await cleanupRegistry(reg);
});

function builds(over: Partial<ConstructorParameters<typeof ProviderBuilds>[0]> = {}) {
  const guard = new NetGuard({ allow: [reg.host] });
  return new ProviderBuilds({
    management: new Kube(mgmt.kubeConfig(FLEET_USER)),
    namespace: NS,
    buildNamespace: BNS,
    repository: repo(),
    containerfile: 'FROM configs AS final\nRUN dnf install -y provider-agent\n',
    pushSecretName: 'provider-push',
    connectPolicy: guard,
    resolveBase: async () => ({ baseOSImage: baseRef, builderImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('c')}` }),
    verify: async (i) => {
      const r = await verifyBuiltImage({ pushRef: i.pushRef, arch: i.arch, baseImageRef: i.baseImageRef, credentials: dockerConfigCredentials(i.credentials, { file: 'push secret', path: '.dockerconfigjson' }), connectPolicy: guard });
      return r.ok ? { ok: true } : { ok: false, reason: `${r.reason}: ${r.message}` };
    },
    pollMs: 20,
    signal: stop.signal,
    ...over,
  });
}

describe('provider-layer lookup in the registry', () => {
  it("finds a key's tag, answers it by digest after verifying it descends from the release's base OS", async () => {
    expect(await builds().lookup(KEY)).toEqual({ image: `${repo()}@${digests.layered}` });
  });
  it('a key whose tag is not there: undefined (a build follows)', async () => {
    expect(await builds().lookup({ ...KEY, releaseDigest: D('4') })).toBeUndefined();
  });
  it('an image under the tag that is not on the base OS, or for another arch, is refused', async () => {
    await expect(builds().lookup({ ...KEY, releaseDigest: D('3') })).rejects.toThrow(/is not a provider layer on the release's base OS image: NotFromBase/);
    await expect(builds().lookup({ ...KEY, arch: 'arm64' })).rejects.toThrow(/WrongArchitecture/);
  });
  it('the network guard applies: a registry not allow-listed is refused; a missing push Secret is named, its content never', async () => {
    await expect(builds({ connectPolicy: new NetGuard({ allow: [] }) }).lookup(KEY)).rejects.toThrow(/127\.0\.0\.1/);
    // The Role names the push Secret (FLEET_NAMESPACE_RULES): a missing one is a 404, named.
    const saved = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'provider-push', namespace: NS })!;
    mgmt.store.delete({ apiVersion: 'v1', kind: 'Secret', name: 'provider-push', namespace: NS });
    try {
      await expect(builds().lookup(KEY)).rejects.toThrow(`Secret ${NS}/provider-push is missing or has no .dockerconfigjson`);
    } finally {
      const { resourceVersion: _rv, uid: _uid, ...meta } = saved.metadata as Record<string, unknown>;
      mgmt.store.put({ ...saved, metadata: meta } as typeof saved);
    }
    const e = await builds({ connectPolicy: new NetGuard({ allow: [] }) }).lookup(KEY).catch((x: Error) => x);
    expect(String((e as Error).message)).not.toContain(reg.password!);
  });
});

describe('provider-layer build Job', () => {
  it('creates the tenant build pod shape in the build namespace, and answers the pushed digest only once verified', async () => {
    const key = { ...KEY, releaseDigest: D('5') };
    const jobName = `provider-${buildTag(key)}`;
    const p = builds().build(key);
    const job = async () => mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: BNS }) as (KubeObject & { spec: any; status?: any }) | undefined;
    const secret = () => mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: jobName, namespace: BNS });
    for (let i = 0; i < 200 && !secret(); i++) await new Promise((r) => setTimeout(r, 10));
    const j = (await job())!;
    expect(j).toBeDefined();
    const pod = j.spec.template.spec;
    expect(pod.initContainers.find((x: any) => x.name === 'build').command).toEqual(['/bin/bash', '-c', BUILD_SCRIPT]);
    const c = pod.containers[0];
    expect(c.command).toEqual(['/bin/bash', '-c', PUSH_SCRIPT]);
    expect(c.env).toContainEqual({ name: 'TAG', value: `${repo()}:${buildTag(key)}` });
    expect(j.spec.template.spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
    const cm = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: jobName, namespace: BNS }) as KubeObject & { data: Record<string, string> };
    expect(cm.data.Containerfile).toContain(`FROM ${baseRef} AS configs`);
    expect(cm.data.Containerfile).toContain('RUN dnf install -y provider-agent');
    expect((mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: jobName, namespace: BNS }) as KubeObject).metadata.ownerReferences![0]!.name).toBe(jobName);
    // The Job finishes: its pod reports the digest it pushed (the layered image is at the tag).
    mgmt.store.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${jobName}-x`, namespace: BNS, labels: { [JOB_NAME_LABEL]: jobName }, creationTimestamp: '2026-11-25T00:00:00Z' }, status: { containerStatuses: [{ name: 'build', state: { terminated: { exitCode: 0, message: digests.layered } } }] } });
    mgmt.store.put({ ...j, status: { conditions: [{ type: 'Complete', status: 'True' }] } });
    expect(await p).toEqual({ image: `${repo()}@${digests.layered}` });
    // Only the two Roles' rights, none refused: the push Secret read in the fleet namespace, every
    // build object in the build namespace, nothing of the build's left in the fleet namespace.
    const mine = mgmt.audit.filter((e) => e.user === FLEET_USER && e.resource);
    expect(mine.filter((e) => e.code === 401 || e.code === 403)).toEqual([]);
    expect([...new Set(mine.map((e) => `${e.verb} ${e.resource} ${e.namespace}`))].sort()).toEqual([`create configmaps ${BNS}`, `create jobs ${BNS}`, `create secrets ${BNS}`, `get jobs ${BNS}`, `get secrets ${NS}`, `list pods ${BNS}`]);
    expect(j.metadata.namespace).toBe(BNS);
    expect(mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: NS })).toBeUndefined();
  });

  it("a pushed digest that is not a layer on the base OS is refused; a failed Job's tail is the reason", async () => {
    const key = { ...KEY, releaseDigest: D('6') };
    const jobName = `provider-${buildTag(key)}`;
    const p = builds().build(key);
    for (let i = 0; i < 200 && !mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: BNS }); i++) await new Promise((r) => setTimeout(r, 10));
    const j = mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: BNS }) as KubeObject;
    const c = new RegistryClient({ credentials: async () => ({ username: reg.user!, password: reg.password! }) });
    const stranger = image([OTHER]);
    await c.push(stranger, [parseReference(`${repo()}:${buildTag(key)}`)]);
    c.close();
    mgmt.store.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${jobName}-x`, namespace: BNS, labels: { [JOB_NAME_LABEL]: jobName } }, status: { containerStatuses: [{ name: 'build', state: { terminated: { exitCode: 0, message: stranger.digest } } }] } });
    mgmt.store.put({ ...j, status: { conditions: [{ type: 'Complete', status: 'True' }] } });
    await expect(p).rejects.toThrow(/NotFromBase/);

    const key2 = { ...KEY, releaseDigest: D('7') };
    const job2 = `provider-${buildTag(key2)}`;
    const p2 = builds().build(key2);
    for (let i = 0; i < 200 && !mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: job2, namespace: BNS }); i++) await new Promise((r) => setTimeout(r, 10));
    const j2 = mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: job2, namespace: BNS }) as KubeObject;
    mgmt.store.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${job2}-x`, namespace: BNS, labels: { [JOB_NAME_LABEL]: job2 } }, status: { containerStatuses: [{ name: 'build', state: { terminated: { exitCode: 1, message: 'RUN dnf install -y provider-agent: exit status 1' } } }] } });
    mgmt.store.put({ ...j2, status: { conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] } });
    await expect(p2).rejects.toThrow(`provider build job ${job2} failed: Job has reached the specified backoff limit; last pod: RUN dnf install -y provider-agent: exit status 1`);
  });
});

describe('a prebuilt provider image (--provider-image)', () => {
  const guard = () => new NetGuard({ allow: [reg.host] });
  const prebuilt = (baseFor: (k: BuildKey) => string) =>
    prebuiltProviderImage({
      image: `${repo()}@${digests.layered}`,
      pushSecret: () => readPushSecret(new Kube(mgmt.kubeConfig(FLEET_USER)), NS, 'provider-push'),
      resolveBase: async (k) => ({ baseOSImage: baseFor(k), builderImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('c')}` }),
      verify: async (i) => {
        const r = await verifyBuiltImage({ pushRef: i.pushRef, arch: i.arch, baseImageRef: i.baseImageRef, credentials: dockerConfigCredentials(i.credentials, { file: 'push secret', path: '.dockerconfigjson' }), connectPolicy: guard() });
        return r.ok ? { ok: true } : { ok: false, reason: `${r.reason}: ${r.message}` };
      },
    });
  let strangerBase: string;
  beforeAll(async () => {
    const c = new RegistryClient({ credentials: async () => ({ username: reg.user!, password: reg.password! }) });
    try {
      const other = image([OTHER]);
      await c.push(other, [parseReference(`${reg.host}/ocp/rhcos:other-release`)]);
      strangerBase = `${reg.host}/ocp/rhcos@${other.digest}`;
    } finally {
      c.close();
    }
  });

  it("is answered for a key only when it is a layer on that key's release base OS, for its arch; otherwise the key fails, saying why", async () => {
    const R5 = { ...KEY, releaseDigest: D('5'), releasePullSpec: `quay.io/openshift-release-dev/ocp-release@${D('5')}` };
    const build = prebuilt((k) => (k.releaseDigest === D('5') ? strangerBase : baseRef));
    expect(await build(KEY)).toEqual({ image: `${repo()}@${digests.layered}` });
    await expect(build(R5)).rejects.toThrow(new RegExp(`is not a layer on release quay\\.io/openshift-release-dev/ocp-release@${D('5')}'s base OS for amd64: NotFromBase`));
    await expect(build({ ...KEY, arch: 'arm64' })).rejects.toThrow(/for arm64: WrongArchitecture/);
    // Through the build registry the gate uses: the failure is shared and named, never an image.
    const registry = new BuildRegistry({ build });
    expect(await registry.ensure(R5)).toMatchObject({ pending: expect.any(String) });
    await registry.idle();
    expect(await registry.ensure(R5)).toEqual({ failed: expect.stringMatching(/^the prebuilt provider image .* is not a layer on release/) });
    expect(await registry.ensure(KEY)).toMatchObject({ pending: expect.any(String) });
    await registry.idle();
    expect(await registry.ensure(KEY)).toEqual({ image: `${repo()}@${digests.layered}` });
  });
});
