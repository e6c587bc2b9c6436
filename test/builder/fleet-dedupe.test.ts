/**
 * Dedupe of provider-layer builds across HCPs: the fleet component's build registry,
 * alone and behind the upgrade gate on the API test server (three HostedClusters upgrading at
 * once on one release and one provider layer cause one build).
 */
import { createHash } from 'node:crypto';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { BuildKey, BuildRegistry, buildTag, imageForFromRegistry } from '../../builder/fleet/build-registry.js';
import { admitNodePoolUpdate, NODEPOOLS, settleGate } from '../../builder/fleet/gate.js';
import { FLEET_CLUSTER_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { handedOffImage, handoffName } from '../../builder/controller/handoff.js';
import { providerHandoff } from './fleet-fixtures.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const sha = (s: string) => 'sha256:' + createHash('sha256').update(s).digest('hex');
const KEY: BuildKey = { releaseDigest: D('2'), arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b') };

/** A builder seam whose builds finish when the test says. */
function fakeBuilder() {
  const calls: BuildKey[] = [];
  const waiting: { key: BuildKey; resolve: (r: { image: string }) => void; reject: (e: Error) => void }[] = [];
  const build = (key: BuildKey) => {
    calls.push(key);
    return new Promise<{ image: string }>((resolve, reject) => waiting.push({ key, resolve, reject }));
  };
  const finish = (i = 0) => {
    const w = waiting.splice(i, 1)[0];
    w.resolve({ image: `quay.example.com/provider/rhcos@${sha(JSON.stringify(w.key))}` });
  };
  const fail = (msg: string) => waiting.shift()!.reject(new Error(msg));
  return { calls, waiting, build, finish, fail };
}

describe('provider-layer build registry', () => {
  it('one build per key however many ask at once; other keys build separately', async () => {
    const b = fakeBuilder();
    const r = new BuildRegistry({ build: b.build, maxConcurrent: 8 });
    const answers = Array.from({ length: 500 }, () => r.ensure({ ...KEY }));
    expect(b.calls).toHaveLength(1);
    expect(new Set(answers.map((a) => ('pending' in a ? 'pending' : 'other')))).toEqual(new Set(['pending']));
    r.ensure({ ...KEY, arch: 'arm64' });
    r.ensure({ ...KEY, stream: 'rhel-10' });
    r.ensure({ ...KEY, builderImageDigest: D('c') });
    r.ensure({ ...KEY, layerDigest: D('d') });
    expect(b.calls).toHaveLength(5);
    b.finish(0);
    await Promise.resolve();
    await new Promise((res) => setImmediate(res));
    const done = r.ensure({ ...KEY });
    expect(done).toEqual({ image: `quay.example.com/provider/rhcos@${sha(JSON.stringify(KEY))}` });
    expect(b.calls).toHaveLength(5);
  });

  it('refuses tags, bounds concurrency, shares a failure until it may be retried', async () => {
    let t = new Date('2026-11-25T00:00:00Z');
    const b = fakeBuilder();
    const r = new BuildRegistry({ build: b.build, maxConcurrent: 1, failureRetrySeconds: 60, now: () => t });
    expect(r.ensure({ ...KEY, releaseDigest: 'quay.io/ocp-release:4.19.0' })).toEqual({ failed: expect.stringMatching(/^release digest "quay.io\/ocp-release:4.19.0" is not a sha256 digest: builds are deduplicated by content, never by tag$/) });
    expect(r.ensure({ ...KEY, arch: 'x86_64' })).toEqual({ failed: 'arch "x86_64" is not one of amd64, arm64, ppc64le, s390x' });
    r.ensure(KEY);
    expect(r.ensure({ ...KEY, arch: 'arm64' })).toEqual({ pending: 'queued behind 1 running build(s)' });
    expect(b.calls).toHaveLength(1);
    b.fail('RUN dnf install agent: exit status 1');
    await new Promise((res) => setImmediate(res));
    expect(b.calls.map((k) => k.arch)).toEqual(['amd64', 'arm64']); // the queued one started
    expect(r.ensure(KEY)).toEqual({ failed: 'RUN dnf install agent: exit status 1' });
    t = new Date(t.getTime() + 59_000);
    expect(r.ensure(KEY)).toEqual({ failed: 'RUN dnf install agent: exit status 1' });
    expect(b.calls).toHaveLength(2);
    t = new Date(t.getTime() + 1_000);
    expect(r.ensure(KEY)).toEqual({ pending: 'queued behind 1 running build(s)' });
    b.finish();
    await new Promise((res) => setImmediate(res));
    expect(b.calls).toHaveLength(3);
    expect(r.stats()).toEqual({ queued: 0, running: 1, done: 1, failed: 0 });
  });

  it('after a restart, finds the image the registry already has for a key instead of rebuilding it', async () => {
    const b = fakeBuilder();
    const tags = new Map([[buildTag(KEY), `quay.example.com/provider/rhcos@${D('9')}`]]);
    const lookups: string[] = [];
    const lookup = async (k: BuildKey) => {
      lookups.push(buildTag(k));
      const image = tags.get(buildTag(k));
      return image ? { image } : undefined;
    };
    const r = new BuildRegistry({ build: b.build, lookup });
    expect(r.ensure(KEY)).toEqual({ pending: expect.stringMatching(/^building since /) });
    await r.idle();
    expect(r.ensure(KEY)).toEqual({ image: `quay.example.com/provider/rhcos@${D('9')}` });
    expect(b.calls).toEqual([]);
    // A key the registry does not have is built.
    r.ensure({ ...KEY, arch: 'arm64' });
    await new Promise((res) => setImmediate(res));
    expect(b.calls).toHaveLength(1);
    expect(lookups).toHaveLength(2);
    // Tags are a function of the whole key.
    expect(buildTag(KEY)).toMatch(/^ocb-[0-9a-f]{40}$/);
    expect(new Set([KEY, { ...KEY, arch: 'arm64' }, { ...KEY, stream: 'rhel-10' }, { ...KEY, builderImageDigest: D('c') }, { ...KEY, layerDigest: D('c') }, { ...KEY, releaseDigest: D('c') }].map(buildTag)).size).toBe(6);
  });

  it('keeps at most maxEntries finished entries, never dropping a running one', async () => {
    const b = fakeBuilder();
    const r = new BuildRegistry({ build: b.build, maxConcurrent: 10, maxEntries: 2 });
    for (const c of ['1', '3', '4']) r.ensure({ ...KEY, releaseDigest: D(c) });
    b.finish();
    b.finish();
    await new Promise((res) => setImmediate(res));
    expect(r.stats()).toEqual({ queued: 0, running: 1, done: 1, failed: 0 });
  });
});

describe('three HCPs upgrading at once behind the gate', () => {
  const HCPS = ['apple', 'banana', 'cherry'];
  const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
  const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
  const FLEET_USER = 'system:serviceaccount:on-cluster-build:fleet';
  let mgmt: ApiTestServer;
  afterAll(async () => mgmt?.stop());

  it('cause one provider-layer build, and each is handed the one image', async () => {
    mgmt = await startApiServer({
      identities: [
        { name: FLEET_USER, token: 'fleet-token', rules: [{ apiGroups: ['hypershift.openshift.io'], resources: ['nodepools'], verbs: [...FLEET_CLUSTER_RULES[0].verbs] }, ...HCPS.map((h) => ({ apiGroups: [''], resources: ['configmaps'], verbs: [...HANDOFF_RULES[0].verbs], namespaces: [`clusters-${h}`] }))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'clusters' } });
    for (const h of HCPS) {
      mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `clusters-${h}` } });
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: `${h}-workers`, namespace: 'clusters' }, spec: { clusterName: h, release: { image: R1 } } });
      mgmt.store.put(providerHandoff(`clusters-${h}`, `${h}-workers`, `quay.example.com/provider/rhcos@${D('e')}`, R1));
    }
    const fleet = new Kube(mgmt.kubeConfig(FLEET_USER));
    const admin = new Kube(mgmt.kubeConfig('system:admin'));
    const b = fakeBuilder();
    const registry = new BuildRegistry({ build: b.build });
    const resolved: string[] = [];
    const imageFor = imageForFromRegistry({
      registry,
      resolveReleaseDigest: async (image) => {
        resolved.push(image);
        return image.split('@')[1];
      },
      layerDigest: () => D('a'),
      builderImageDigest: D('b'),
    });
    const gate = (h: string) => ({ management: fleet, nodePoolNamespace: 'clusters', nodePoolName: `${h}-workers`, hcpNamespace: `clusters-${h}`, layer: 'provider', imageFor, maxHoldSeconds: 3600, now: () => new Date('2026-11-25T00:00:00Z') });
    for (const h of HCPS) await settleGate(gate(h)); // labels each for the admission gate

    // All three upgrade at once.
    await Promise.all(
      HCPS.map(async (h) => {
        const np = mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: `${h}-workers`, namespace: 'clusters' }) as KubeObject & { spec: any };
        const ops = [{ op: 'replace', path: '/spec/release/image', value: R2 }, ...admitNodePoolUpdate(np, { ...np, spec: { ...np.spec, release: { image: R2 } } }, new Date('2026-11-25T00:00:00Z'), 3600)];
        await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', `${h}-workers`), ops, 'application/json-patch+json');
      }),
    );
    const first = await Promise.all(HCPS.map((h) => settleGate(gate(h))));
    expect(first.map((s) => s.steps.map((x) => ('did' in x ? x.did : x.state)))).toEqual(HCPS.map(() => ['Neutralised', 'Paused', 'Waiting']));
    expect(b.calls).toEqual([{ releaseDigest: D('2'), arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b'), releasePullSpec: R2 }]);
    b.finish();
    await registry.idle();
    const second = await Promise.all(HCPS.map((h) => settleGate(gate(h))));
    expect(second.map((s) => s.steps.map((x) => ('did' in x ? x.did : x.state)))).toEqual(HCPS.map(() => ['HandedOff', 'Unpaused', 'Consistent']));
    expect(b.calls).toHaveLength(1);
    const images = HCPS.map((h) => handedOffImage((mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(`${h}-workers`), namespace: `clusters-${h}` }) as any).data.config));
    expect(new Set(images)).toEqual(new Set([`quay.example.com/provider/rhcos@${sha(JSON.stringify(b.calls[0]))}`]));
    expect(mgmt.audit.filter((e) => e.user === FLEET_USER && (e.code ?? 0) >= 400 && e.code !== 404)).toEqual([]);
  });
});
