/**
 * The fleet's watch caches (builder/fleet/cache.ts) lag the API, as HyperShift's own do: the gate
 * decides on what the cache holds, and its writes carry the resourceVersion it read. A write
 * decided on a stale object is refused (409), that object's next read goes to the API, and the
 * retry writes on what is there: a human's concurrent edit is kept, not overwritten. Reads after
 * that come from the cache again. On the API test server, the gate as the fleet runs it.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES } from '../../builder/clusters/kube.js';
import { FleetCache, gateView, keptConfigMap } from '../../builder/fleet/cache.js';
import { GATED_LABEL } from '../../builder/fleet/gate-names.js';
import { NODEPOOLS, settleGate } from '../../builder/fleet/gate.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { handoffName } from '../../builder/controller/handoff.js';
import { providerHandoff } from './fleet-fixtures.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const IMAGE = `quay.example.com/provider/os@${D('7')}`;
const FLEET_USER = 'fleet';
const HCP_NS = hcpNamespaceOf('clusters', 'apple');
const NP = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: 'apple-workers', namespace: 'clusters' };

describe('the fleet watch caches', () => {
  let mgmt: ApiTestServer;
  beforeAll(async () => {
    mgmt = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet-token' }, { name: 'system:admin', token: 'admin-token' }] });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    for (const n of ['clusters', HCP_NS]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    mgmt.store.put({ apiVersion: NP.apiVersion, kind: NP.kind, metadata: { name: NP.name, namespace: NP.namespace }, spec: { clusterName: 'apple', arch: 'amd64', release: { image: R1 } } });
    mgmt.store.put(providerHandoff(HCP_NS, NP.name, IMAGE, R1));
  });
  afterAll(async () => {
    await mgmt?.stop();
  });

  it('a write decided on a stale NodePool is refused, read from the API once, and redone on what is there; then reads come from the cache', async () => {
    const api = new Kube(mgmt.kubeConfig(FLEET_USER));
    const cache = new FleetCache(api);
    // The caches as their lists left them.
    const listed = (await api.list(NODEPOOLS)).items.map(gateView);
    cache.nodePoolsListed(listed);
    cache.configMapsListed(HCP_NS, (await api.list(RESOURCES.configMaps, { namespace: HCP_NS })).items.map(keptConfigMap));
    // A human edits the NodePool; the fleet's watch has not delivered it yet.
    const human = new Kube(mgmt.kubeConfig('system:admin'));
    await human.mergePatch(NODEPOOLS, NP.name, NP.namespace, { metadata: { annotations: { 'example.com/owner': 'sre' } } });

    const from = mgmt.audit.length;
    const gate = { management: cache.kube, nodePoolNamespace: NP.namespace, nodePoolName: NP.name, hcpNamespace: HCP_NS, layer: IMAGE, imageFor: () => ({ image: IMAGE }), maxHoldSeconds: 3600 };
    const { steps } = await settleGate(gate);
    expect(steps.map((s) => ('did' in s ? s.did : s.state))).toEqual(['Labelled', 'Consistent']);
    const mine = mgmt.audit.slice(from).filter((e) => e.user === FLEET_USER);
    expect(mine.map((e) => `${e.verb} ${e.resource} ${e.code}`)).toEqual(['patch nodepools 409', 'get nodepools 200', 'patch nodepools 200']);
    // The human's edit is kept; the label is ours.
    const np = mgmt.store.get(NP)! as KubeObject;
    expect(np.metadata.annotations?.['example.com/owner']).toBe('sre');
    expect(np.metadata.labels?.[GATED_LABEL]).toBe('true');

    // The next settle decides on the cache (our own write is in it): no request at all.
    const again = mgmt.audit.length;
    const next = await settleGate(gate);
    expect(next.steps.map((s) => ('done' in s && s.done ? s.state : 'write'))).toEqual(['Consistent']);
    expect(mgmt.audit.slice(again).filter((e) => e.user === FLEET_USER)).toEqual([]);
    // The hand-off came from the cache too, never from the API.
    expect(mgmt.audit.filter((e) => e.user === FLEET_USER && e.verb === 'get' && e.name === handoffName(NP.name))).toEqual([]);
  });
});
