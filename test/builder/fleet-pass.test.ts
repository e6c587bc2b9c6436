/**
 * One fleet pass over every NodePool of the management cluster (builder/fleet/pass.ts): HCP
 * namespaces by HyperShift's rule, NodePools of HostedClusters without our package left alone,
 * one provider-layer build for all.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { BuildKey, BuildRegistry, imageForFromRegistry } from '../../builder/fleet/build-registry.js';
import { admitNodePoolUpdate, NODEPOOLS } from '../../builder/fleet/gate.js';
import { fleetPass, hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_CLUSTER_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { handedOffImage, handoffName } from '../../builder/controller/handoff.js';
import { providerHandoff } from './fleet-fixtures.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const FLEET_USER = 'system:serviceaccount:on-cluster-build:fleet';
const CLUSTERS = [
  { name: 'apple', ours: true },
  { name: 'my.banana', ours: true },
  { name: 'cherry', ours: false }, // our package is not installed for it: no Role, no hand-off
];

describe('a fleet pass', () => {
  let mgmt: ApiTestServer;
  afterAll(async () => mgmt?.stop());

  test('HCP namespaces follow HyperShift', () => {
    expect(hcpNamespaceOf('clusters', 'my.banana')).toBe('clusters-my-banana');
    expect(hcpNamespaceOf('clusters', 'apple')).toBe('clusters-apple');
  });

  test('gates every NodePool of a HostedCluster with our package, one build for all, others untouched', async () => {
    mgmt = await startApiServer({
      identities: [
        {
          name: FLEET_USER,
          token: 'fleet-token',
          rules: [
            ...FLEET_CLUSTER_RULES.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] })),
            ...CLUSTERS.filter((c) => c.ours).map((c) => ({ apiGroups: [...HANDOFF_RULES[0].apiGroups], resources: [...HANDOFF_RULES[0].resources], verbs: [...HANDOFF_RULES[0].verbs], namespaces: [hcpNamespaceOf('clusters', c.name)] })),
          ],
        },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'clusters' } });
    const npName = (c: string) => `${c.replace(/\./g, '-')}-workers`;
    for (const c of CLUSTERS) {
      const hcp = hcpNamespaceOf('clusters', c.name);
      mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hcp } });
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: npName(c.name), namespace: 'clusters' }, spec: { clusterName: c.name, release: { image: R1 }, arch: 'arm64' } });
      if (!c.ours) continue;
      mgmt.store.put(providerHandoff(hcp, npName(c.name), `quay.example.com/provider/rhcos@${D('e')}`, R1));
    }
    const calls: BuildKey[] = [];
    let finish: () => void = () => {};
    const registry = new BuildRegistry({
      build: (k) => {
        calls.push(k);
        return new Promise((res) => (finish = () => res({ image: `quay.example.com/provider/rhcos@${D('f')}` })));
      },
    });
    const o = {
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      layer: 'provider',
      imageFor: imageForFromRegistry({ registry, resolveReleaseDigest: async (r: string) => r.split('@')[1], layerDigest: () => D('a'), builderImageDigest: D('b') }),
      maxHoldSeconds: 3600,
      now: () => new Date('2026-11-25T00:00:00Z'),
    };
    const states = async () => Object.fromEntries([...(await fleetPass(o)).nodePools].map(([k, v]) => [k, 'error' in v ? `error: ${v.error}` : 'did' in v ? v.did : v.state]));

    expect(await states()).toEqual({ 'clusters/apple-workers': 'Consistent', 'clusters/my-banana-workers': 'Consistent', 'clusters/cherry-workers': 'NotGated' });
    const admin = new Kube(mgmt.kubeConfig('system:admin'));
    for (const c of CLUSTERS) {
      const np = mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: npName(c.name), namespace: 'clusters' }) as KubeObject & { spec: any };
      const ops = [{ op: 'replace', path: '/spec/release/image', value: R2 }, ...admitNodePoolUpdate(np, { ...np, spec: { ...np.spec, release: { image: R2 } } }, new Date('2026-11-25T00:00:00Z'), 3600)];
      await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(c.name)), ops, 'application/json-patch+json');
    }
    const np = (c: string) => mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: npName(c), namespace: 'clusters' }) as KubeObject & { spec: any };
    expect(np('cherry').spec.pausedUntil).toBeUndefined(); // never labelled: the mutation leaves it
    expect(await states()).toEqual({ 'clusters/apple-workers': 'Waiting', 'clusters/my-banana-workers': 'Waiting', 'clusters/cherry-workers': 'NotGated' });
    expect(calls).toEqual([{ releaseDigest: D('2'), arch: 'arm64', layerDigest: D('a'), builderImageDigest: D('b'), releasePullSpec: R2 }]);
    finish();
    await registry.idle();
    expect(await states()).toEqual({ 'clusters/apple-workers': 'Consistent', 'clusters/my-banana-workers': 'Consistent', 'clusters/cherry-workers': 'NotGated' });
    for (const c of ['apple', 'my.banana']) {
      expect(np(c).spec.pausedUntil).toBeUndefined();
      const cm = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(npName(c)), namespace: hcpNamespaceOf('clusters', c) }) as KubeObject & { data: Record<string, string> };
      expect(handedOffImage(cm.data.config)).toBe(`quay.example.com/provider/rhcos@${D('f')}`);
    }
    expect(calls).toHaveLength(1);
    // The only refusals: reading a hand-off where our package is not installed.
    const mine = mgmt.audit.filter((e) => e.user === FLEET_USER && e.resource);
    expect([...new Set(mine.filter((e) => (e.code ?? 0) >= 400 && e.code !== 404).map((e) => `${e.code} ${e.verb} ${e.resource} ${e.namespace}`))]).toEqual(['403 get configmaps clusters-cherry']);
    expect([...new Set(mine.map((e) => `${e.verb} ${e.resource}`))].sort()).toEqual(['get configmaps', 'get nodepools', 'list nodepools', 'patch nodepools', 'update configmaps']);
  });
});
