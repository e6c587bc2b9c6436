/**
 * The fleet loop's watches (builder/fleet/watch-loop.ts, as builder/fleet/run.ts runs them) on the API test server: a watch that
 * ends without the API saying why (here: the server ends every stream, as at its timeoutSeconds or
 * when a quiet stream is cut) is resumed from the last resourceVersion it saw, without listing
 * and without queueing every NodePool again (docs/benchmarks.md "Fleet component footprint": with
 * 500 HCP namespaces, a re-list per ended watch was ~100 requests/s on a quiet fleet); a watch
 * the API answers with 410 Gone (history compacted) starts over with a list, and events after
 * either still reach the gate.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/clusters/kube.js';
import { GATED_LABEL } from '../../builder/fleet/gate-names.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_CLUSTER_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { runFleet } from '../../builder/fleet/run.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffName } from '../../builder/controller/handoff.js';
import { clusterWide, withNamespace } from './clusters.js';
import { providerHandoff } from './fleet-fixtures.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const IMAGE = `quay.example.com/provider/os@${D('7')}`;
const FLEET_USER = 'system:serviceaccount:on-cluster-build-fleet:on-cluster-build-fleet';
const CLUSTERS = ['apple', 'banana', 'cherry'];
const NP = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };

const waitFor = async (what: string, cond: () => boolean, ms = 20_000) => {
  for (let t = Date.now(); !cond(); ) {
    if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

describe('the fleet loop\'s watches', () => {
  let mgmt: ApiTestServer;
  const stop = new AbortController();
  let running: Promise<void>;
  /** The NodePools settled, in order (the gate reads them from the watch caches, so no read tells). */
  const settled: string[] = [];
  const WATCHES = 2 + CLUSTERS.length;
  const mine = (from = 0) => mgmt.audit.slice(from).filter((e) => e.user === FLEET_USER);
  const count = (from: number, verb: string, resource?: string) => mine(from).filter((e) => e.verb === verb && (!resource || e.resource === resource)).length;
  const np = (c: string) => mgmt.store.get({ ...NP, name: `${c}-workers`, namespace: 'clusters' })!;
  const handoff = (c: string) => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(`${c}-workers`), namespace: hcpNamespaceOf('clusters', c) })!;
  const bump = (c: string) => {
    const o = np(c);
    mgmt.store.put({ ...o, spec: { ...o.spec, release: { image: R2 } } });
  };

  beforeAll(async () => {
    mgmt = await startApiServer({
      identities: [
        { name: FLEET_USER, token: 'fleet-token', rules: [...clusterWide(FLEET_CLUSTER_RULES), ...CLUSTERS.flatMap((c) => withNamespace(HANDOFF_RULES, hcpNamespaceOf('clusters', c)))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
    for (const n of ['clusters', ...CLUSTERS.map((c) => hcpNamespaceOf('clusters', c))]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    for (const c of CLUSTERS) {
      mgmt.store.put({ ...NP, metadata: { name: `${c}-workers`, namespace: 'clusters' }, spec: { clusterName: c, arch: 'amd64', release: { image: R1 }, replicas: 2 } });
      mgmt.store.put(providerHandoff(hcpNamespaceOf('clusters', c), `${c}-workers`, `quay.example.com/provider/os@${D('6')}`, R1));
    }
    running = runFleet({ management: new Kube(mgmt.kubeConfig(FLEET_USER)), layer: IMAGE, imageFor: () => ({ image: IMAGE }), maxHoldSeconds: 3600, resyncSeconds: 3600, onSettled: (key) => settled.push(key) }, stop.signal);
    // The NodePool and HostedControlPlane watches and one ConfigMap watch per HCP namespace are open; every NodePool is labelled.
    await waitFor('the watches and the labels', () => count(0, 'watch') === WATCHES && CLUSTERS.every((c) => np(c).metadata?.labels?.[GATED_LABEL] === 'true'));
  });
  afterAll(async () => {
    stop.abort();
    await running;
    await mgmt?.stop();
  });

  /** Until the fleet has made no request and settled nothing for 300 ms (its reactions to its own writes are over). */
  const quiet = async () => {
    const progress = () => mine().length + settled.length;
    for (let n = -1, t = Date.now(); n !== progress() && Date.now() - t < 20_000; ) {
      n = progress();
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  it('resumes a watch that ended without an error from where it was: no list, no NodePool settled again', async () => {
    await quiet();
    const from = mgmt.audit.length;
    const settledFrom = settled.length;
    mgmt.dropWatches();
    await waitFor('the watches resumed', () => count(from, 'watch') === WATCHES);
    // Events after the resumption still reach the gate: a release bump is handed off.
    bump('apple');
    await waitFor('apple handed off for R2', () => handoff('apple').metadata?.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R2);
    // The hand-off is in the store as soon as the server takes the write; the settle that wrote it reports after the answer.
    await waitFor('apple settled', () => settled.slice(settledFrom).includes('clusters/apple-workers'));
    await quiet();
    expect(count(from, 'list')).toBe(0);
    // Only apple was settled again (its own events), not every NodePool.
    expect(new Set(settled.slice(settledFrom))).toEqual(new Set(['clusters/apple-workers']));
    expect(mine(from).filter((e) => e.code === 403)).toEqual([]);
  });

  it('starts over with a list when the API answers 410 Gone, and events after it still reach the gate', async () => {
    await quiet();
    const from = mgmt.audit.length;
    // A write the fleet does not watch, then a compaction: the resourceVersions it resumes from are gone.
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'unrelated' } });
    mgmt.compact();
    mgmt.dropWatches();
    await waitFor('the lists', () => count(from, 'list', 'nodepools') === 1 && count(from, 'list', 'configmaps') === CLUSTERS.length);
    bump('banana');
    await waitFor('banana handed off for R2', () => handoff('banana').metadata?.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R2);
  });
});
