/**
 * Per-architecture placement of provider builds (builder/fleet/placement.ts, `--build-placement`):
 * its validation, the build Job it shapes (builder/fleet/provider-build.ts on the API test server),
 * and the build-capacity precondition (builder/fleet/preconditions.ts) with its reason where the
 * fleet view shows it: an arch is buildable with a management Node of it, or a placement for it,
 * or a prebuilt image; otherwise the NodePool is Blocked, saying why.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { buildJob } from '../../builder/controller/build-job.js';
import { BuildKey, buildTag } from '../../builder/fleet/build-registry.js';
import { BLOCKED_ANNOTATION } from '../../builder/fleet/gate-names.js';
import { settleGate } from '../../builder/fleet/gate.js';
import { parseBuildPlacement, PlacementError } from '../../builder/fleet/placement.js';
import { fleetPreconditions } from '../../builder/fleet/preconditions.js';
import { ProviderBuilds } from '../../builder/fleet/provider-build.js';
import { FLEET_BUILD_NAMESPACE, FLEET_BUILD_NAMESPACE_RULES, FLEET_NAMESPACE_RULES } from '../../builder/fleet/rbac.js';
import { fleetStatus } from '../../builder/fleet/view.js';
import { checkFleetFlags, FLEET_FLAGS } from '../../builder/fleet/main.js';
import { parseFlags } from '../../builder/flags.js';
import { PULL_KEYS_CONFIGMAP } from '../../builder/api/types.js';
import { b64, dockerConfigJson } from './fixtures.js';
import { withNamespace } from './clusters.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const NS = 'on-cluster-build-fleet';
const BNS = FLEET_BUILD_NAMESPACE;
const FLEET_USER = `system:serviceaccount:${NS}:fleet`;
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const ARM = { nodeSelector: { 'node-role.kubernetes.io/builder': '', 'example.com/disk': 'nvme' }, tolerations: [{ key: 'builder', operator: 'Exists', effect: 'NoSchedule' }, { key: 'arch', operator: 'Equal', value: 'arm64' }] };

describe('--build-placement', () => {
  it('takes per-architecture nodeSelector and tolerations, normalised and sorted', () => {
    expect(parseBuildPlacement('')).toEqual({});
    expect(parseBuildPlacement(JSON.stringify({ s390x: { tolerations: [{ operator: 'Exists' }] }, arm64: ARM }))).toEqual({
      arm64: { nodeSelector: { 'example.com/disk': 'nvme', 'node-role.kubernetes.io/builder': '' }, tolerations: [{ key: 'builder', operator: 'Exists', effect: 'NoSchedule' }, { key: 'arch', operator: 'Equal', value: 'arm64' }] },
      s390x: { nodeSelector: {}, tolerations: [{ operator: 'Exists' }] },
    });
  });

  it.each([
    ['{', /^--build-placement is not JSON: /],
    ['[]', /^--build-placement must be a JSON object from architecture \(amd64, arm64, ppc64le, s390x\)/],
    ['{"x86_64":{"tolerations":[]}}', '--build-placement: "x86_64" is not an architecture (amd64, arm64, ppc64le, s390x)'],
    ['{"arm64":{}}', '--build-placement: "arm64" sets neither nodeSelector nor tolerations'],
    ['{"arm64":{"affinity":{}}}', '--build-placement: "arm64": unknown field "affinity" (nodeSelector, tolerations)'],
    ['{"arm64":{"nodeSelector":{"kubernetes.io/arch":"amd64"}}}', '--build-placement: "arm64".nodeSelector["kubernetes.io/arch"]: the build selects kubernetes.io/arch itself (the architecture is the key this placement is under)'],
    ['{"arm64":{"nodeSelector":{"bad key":"x"}}}', /^--build-placement: "arm64"\.nodeSelector\["bad key"\] is not a label key: its name/],
    ['{"arm64":{"nodeSelector":{"Bad_Prefix/x":"y"}}}', '--build-placement: "arm64".nodeSelector["Bad_Prefix/x"] is not a label key: its prefix is not a DNS subdomain'],
    ['{"arm64":{"nodeSelector":{"a":7}}}', /^--build-placement: "arm64"\.nodeSelector\["a"\]: the value must be a label value/],
    ['{"arm64":{"tolerations":{}}}', '--build-placement: "arm64".tolerations must be a list of tolerations'],
    ['{"arm64":{"tolerations":[{"key":"a","operator":"In"}]}}', '--build-placement: "arm64".tolerations[0].operator must be Equal or Exists'],
    ['{"arm64":{"tolerations":[{"value":"v"}]}}', '--build-placement: "arm64".tolerations[0]: an empty key needs operator Exists (it tolerates every taint)'],
    ['{"arm64":{"tolerations":[{"key":"a","operator":"Exists","value":"v"}]}}', '--build-placement: "arm64".tolerations[0].value must be empty with operator Exists'],
    ['{"arm64":{"tolerations":[{"key":"a","effect":"NoRun"}]}}', '--build-placement: "arm64".tolerations[0].effect must be one of NoSchedule, PreferNoSchedule, NoExecute (or absent: every effect)'],
    ['{"arm64":{"tolerations":[{"key":"a","effect":"NoSchedule","tolerationSeconds":5}]}}', '--build-placement: "arm64".tolerations[0].tolerationSeconds is only for effect NoExecute'],
    ['{"arm64":{"tolerations":[{"key":"a","toleration":"x"}]}}', '--build-placement: "arm64".tolerations[0]: unknown field "toleration"'],
  ])('%s is refused, located', (text, why) => {
    expect(() => parseBuildPlacement(text)).toThrow(PlacementError);
    expect(() => parseBuildPlacement(text)).toThrow(why);
  });

  it('is a fleet flag: a bad one is a usage error naming the field', () => {
    const flags = (extra: string[]) => parseFlags('on-cluster-build fleet', FLEET_FLAGS, ['--namespace=f', '--provider-repository=quay.io/p/os', ...extra]);
    expect(() => checkFleetFlags(flags([`--build-placement=${JSON.stringify({ arm64: ARM })}`]))).not.toThrow();
    expect(() => checkFleetFlags(flags(['--build-placement={"arm":{"tolerations":[]}}']))).toThrow('on-cluster-build fleet: --build-placement: "arm" is not an architecture (amd64, arm64, ppc64le, s390x)');
  });

  it('the build pod selects its labels and tolerates its taints; the arch and OS selectors stay the build\'s', () => {
    const placed = parseBuildPlacement(JSON.stringify({ arm64: ARM })).arm64!;
    const base = { namespace: BNS, jobName: 'j', buildName: 'b', configName: 'c', nodePool: 'n', releaseImage: R1, baseOSImage: `r/os@${D('2')}`, builderImage: `r/mco@${D('3')}`, pushTag: 'r/p:t', containerfile: 'FROM configs AS final\n', activeDeadlineSeconds: 60, backoffLimit: 0, arch: 'arm64' as const };
    const pod = (buildJob({ ...base, nodeSelector: { ...placed.nodeSelector, 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'windows' }, tolerations: placed.tolerations }) as any).spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'example.com/disk': 'nvme', 'node-role.kubernetes.io/builder': '', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' });
    expect(pod.tolerations).toEqual(placed.tolerations);
  });
});

describe('provider builds and the build-capacity precondition on the management cluster', () => {
  let mgmt: ApiTestServer;
  const admin = () => new Kube(mgmt.kubeConfig('system:admin'));
  beforeAll(async () => {
    mgmt = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet-token', rules: [...withNamespace(FLEET_NAMESPACE_RULES, NS), ...withNamespace(FLEET_BUILD_NAMESPACE_RULES, BNS)] }, { name: 'system:admin', token: 'admin-token' }] });
    for (const n of [NS, BNS]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'provider-push', namespace: NS }, data: { '.dockerconfigjson': b64(dockerConfigJson('quay.example.com', 'u', 'p')) } });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
    mgmt.registerType({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, status: true });
  });
  afterAll(async () => {
    await mgmt?.stop();
  });

  it('a build Job for an arch with a placement selects and tolerates it; one without selects only its arch', async () => {
    const stop = new AbortController();
    const builds = new ProviderBuilds({
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      namespace: NS,
      buildNamespace: BNS,
      repository: 'quay.example.com/provider/os',
      containerfile: 'FROM configs AS final\n',
      pushSecretName: 'provider-push',
      connectPolicy: new NetGuard({ allow: [] }),
      resolveBase: async () => ({ baseOSImage: `quay.example.com/ocp/rhcos@${D('4')}`, builderImage: `quay.example.com/ocp/mco@${D('5')}` }),
      verify: async () => ({ ok: true }),
      placement: parseBuildPlacement(JSON.stringify({ arm64: ARM })),
      pollMs: 10,
      signal: stop.signal,
    });
    const spec = async (arch: string) => {
      const key: BuildKey = { releaseDigest: D('1'), arch, layerDigest: D('a'), builderImageDigest: D('b') };
      const p = builds.build(key).catch((e: Error) => e);
      const name = `provider-${buildTag(key)}`;
      let job: (KubeObject & { spec: any }) | undefined;
      for (let i = 0; i < 300 && !job; i++) {
        job = mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name, namespace: BNS }) as typeof job;
        if (!job) await new Promise((r) => setTimeout(r, 10));
      }
      return { pod: job!.spec.template.spec, p };
    };
    try {
      const arm = await spec('arm64');
      expect(arm.pod.nodeSelector).toEqual({ 'example.com/disk': 'nvme', 'node-role.kubernetes.io/builder': '', 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' });
      expect(arm.pod.tolerations).toEqual(ARM.tolerations);
      const amd = await spec('amd64');
      expect(amd.pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
      expect(amd.pod.tolerations).toBeUndefined();
    } finally {
      stop.abort();
    }
  });

  describe('build capacity', () => {
    const HCP = 'clusters-banana';
    const node = (name: string, arch: string, ready = true) => mgmt.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/arch': arch } }, spec: {}, status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] } });
    const key = (arch: string) => ({ releaseImage: R1, arch, layer: 'provider-layer@' + D('a') });
    const check = (o: Partial<Parameters<typeof fleetPreconditions>[0]>, arch: string) =>
      fleetPreconditions({ management: admin(), repository: 'quay.example.com/provider/os', builds: 'nodes', cacheMs: 0, ...o })({ nodePool: {} as never, hcpNamespace: HCP, key: key(arch) });
    const NO_ARM = 'no Ready, schedulable management cluster Node of architecture arm64 (kubernetes.io/arch=arm64) to run the provider build on, no build placement for arm64 (--build-placement) and no prebuilt provider image';
    beforeAll(() => {
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: HCP }, spec: { releaseImage: R1 } });
      mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: HCP }, data: { [PULL_KEYS_CONFIGMAP.key]: 'quay.example.com\n' } });
      node('m-amd', 'amd64');
      node('m-arm-notready', 'arm64', false);
    });

    it('buildable with a Ready management Node of the arch, or a placement for it, or a prebuilt image; otherwise the reason', async () => {
      expect(await check({}, 'amd64')).toBeUndefined();
      expect(await check({}, 'arm64')).toBe(NO_ARM);
      expect(await check({ placement: parseBuildPlacement(JSON.stringify({ arm64: ARM })) }, 'arm64')).toBeUndefined();
      expect(await check({ placement: parseBuildPlacement(JSON.stringify({ s390x: ARM })) }, 'arm64')).toBe(NO_ARM);
      expect(await check({ builds: 'prebuilt' }, 'arm64')).toBeUndefined();
      node('m-arm', 'arm64');
      try {
        expect(await check({}, 'arm64')).toBeUndefined();
      } finally {
        mgmt.store.delete({ apiVersion: 'v1', kind: 'Node', name: 'm-arm' });
      }
    });

    it('the gate blocks an arm64 NodePool with the reason, the fleet view shows it; with a placement it is gated again', async () => {
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'workers', namespace: 'clusters' }, spec: { clusterName: 'banana', arch: 'arm64', release: { image: R1 } } });
      const gate = (placement?: string) => ({
        management: admin(),
        nodePoolNamespace: 'clusters',
        nodePoolName: 'workers',
        hcpNamespace: HCP,
        layer: 'provider-layer@' + D('a'),
        providerLayer: true,
        imageFor: () => ({ pending: 'building' }),
        maxHoldSeconds: 3600,
        now: () => new Date('2026-11-27T10:00:00Z'),
        preconditions: fleetPreconditions({ management: admin(), repository: 'quay.example.com/provider/os', builds: 'nodes', cacheMs: 0, ...(placement ? { placement: parseBuildPlacement(placement) } : {}) }),
      });
      const steps = async (placement?: string) => (await settleGate(gate(placement))).steps.map((s) => ('did' in s ? s.did : s.state));
      expect(await steps()).toEqual(['Blocked', 'Blocked']);
      const np = () => mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: 'workers', namespace: 'clusters' }) as KubeObject;
      expect(np()!.metadata.annotations?.[BLOCKED_ANNOTATION]).toBe(NO_ARM);
      const view = async () => (await fleetStatus({ management: admin(), buildNamespace: BNS, maxRows: 10, namespace: NS })).nodePools.find((r) => r.name === 'workers')!;
      expect(await view()).toMatchObject({ state: 'Blocked', arch: 'arm64', reason: NO_ARM });
      expect(await steps(JSON.stringify({ arm64: ARM }))).toEqual(['Labelled', 'Waiting']);
      expect(np()!.metadata.annotations?.[BLOCKED_ANNOTATION]).toBeUndefined();
      expect((await view()).state).not.toBe('Blocked');
    });
  });
});
