/**
 * The fleet loop (builder/fleet/run.ts) with its rollout engine, on the API test server: the gate's
 * hand-off writes go through the planner (admitRollout), the state is in the fleet namespace's
 * ConfigMap, and HyperShift's NodePool status is played by the test (UpdatingConfig with its
 * "Target config" message, the current-config annotation, Ready/AllMachinesReady/AllNodesHealthy).
 * - Default policy: installing the fleet writes no hand-off; a release change (held by the
 *   admission mutation, as the API server would apply it) is admitted and carries the layer; the
 *   hold is lifted only once HyperShift's UpdatingConfig target moved past the one recorded.
 * - Progressive: the canary first; the others only once it succeeded, at most maxConcurrency at
 *   once; a restarted fleet process resumes from the persisted state without exceeding the bound;
 *   a failure beyond maxFailures halts; the `fleet-rollout resume` write (updateControl) resumes.
 * - Rollback: the NodePools changed go back under the same bound; one deferred for a full window
 *   stays in the loop's waiting set (settled again by the recheck) although the gate's own step
 *   found it Consistent, and goes back once the window frees.
 */
import { createHash } from 'node:crypto';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { admitNodePoolUpdate, GateStep, PAUSED_FOR_ANNOTATION } from '../../builder/fleet/gate.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_CLUSTER_RULES, FLEET_NAMESPACE_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { runFleet } from '../../builder/fleet/run.js';
import { parsePolicy, RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import { readRollout, ROLLOUT_CONFIGMAP, STATE_KEY, updateControl } from '../../builder/fleet/rollout/state.js';
import type { RolloutEngine } from '../../builder/fleet/rollout/engine.js';
import { handedOffImage, handoffName, HANDOFF_RELEASE_ANNOTATION } from '../../builder/controller/handoff.js';
import { clusterWide, withNamespace } from './clusters.js';
import { providerHandoff } from './fleet-fixtures.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const NS = 'on-cluster-build-fleet';
const FLEET_USER = `system:serviceaccount:${NS}:on-cluster-build-fleet`;
const NP = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };
const HC = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster' };
const CLUSTERS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
const imageFor = (layer: string, release: string) => `quay.example.com/provider/os@sha256:${createHash('sha256').update(`${layer} ${release}`).digest('hex')}`;

const waitFor = async (what: string, cond: () => boolean, ms = 30_000) => {
  for (let t = Date.now(); !cond(); ) {
    if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};
const healthy = [
  { type: 'Ready', status: 'True', reason: 'AsExpected' },
  { type: 'AllMachinesReady', status: 'True', reason: 'AsExpected' },
  { type: 'AllNodesHealthy', status: 'True', reason: 'AsExpected' },
];

describe('the fleet loop with a rollout policy', () => {
  let mgmt: ApiTestServer;
  const np = (c: string) => mgmt.store.get({ ...NP, name: `${c}-workers`, namespace: 'clusters' })!;
  const handoff = (c: string) => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(`${c}-workers`), namespace: hcpNamespaceOf('clusters', c) });
  const handedOff = () => CLUSTERS.filter((c) => handoff(c));
  /** HyperShift's config hash for what a NodePool runs (release and hand-off). */
  const hashOf = (c: string) => createHash('sha256').update(`${np(c).spec!.release.image} ${handoff(c)?.data?.config ?? ''}`).digest('hex').slice(0, 8);
  const setStatus = (c: string, f: (o: KubeObject & { status?: Record<string, unknown> }) => void) => {
    const o = structuredClone(np(c)) as KubeObject & { status?: Record<string, unknown> };
    f(o);
    mgmt.store.put(o);
  };
  /** HyperShift took the hand-off: rolling towards its hash. */
  const rolls = (c: string) =>
    setStatus(c, (o) => {
      o.status = { ...o.status, conditions: [{ type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${hashOf(c)}` }, { type: 'UpdatingVersion', status: 'False', reason: 'AsExpected', observedGeneration: o.metadata.generation }, ...healthy] };
    });
  const finishes = (c: string) =>
    setStatus(c, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, 'hypershift.openshift.io/nodePoolCurrentConfig': hashOf(c) };
      o.status = { ...o.status, conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, { type: 'UpdatingVersion', status: 'False', reason: 'AsExpected', observedGeneration: o.metadata.generation }, ...healthy] };
    });
  const fails = (c: string) =>
    setStatus(c, (o) => {
      o.status = { ...o.status, conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'InplaceUpgradeFailed', message: `Node ${c}-1 in nodepool degraded: rebase failed` }, ...healthy] };
    });

  let stop: AbortController;
  let running: Promise<void> | undefined;
  let engine: RolloutEngine | undefined;
  const settled = new Map<string, GateStep>();
  /** Settles per cluster (each call of the loop's `onSettled`). */
  const settles = new Map<string, number>();
  const start = (policy: RolloutPolicy, layer: string) => {
    stop = new AbortController();
    engine = undefined;
    running = runFleet(
      {
        management: new Kube(mgmt.kubeConfig(FLEET_USER)),
        layer,
        providerLayer: true,
        imageFor: (k) => ({ image: imageFor(layer, k.releaseImage) }),
        maxHoldSeconds: 3600,
        resyncSeconds: 3600,
        waitingRecheckMs: 200,
        rollout: { policy, namespace: NS, onEngine: (e) => (engine = e) },
        onSettled: (k, last) => {
          const c = k.slice(k.indexOf('/') + 1, -'-workers'.length);
          settled.set(c, last);
          settles.set(c, (settles.get(c) ?? 0) + 1);
        },
      },
      stop.signal,
    );
  };
  const halt = async () => {
    stop.abort();
    await running;
    running = undefined;
  };

  beforeEach(async () => {
    mgmt = await startApiServer({
      identities: [
        { name: FLEET_USER, token: 'fleet-token', rules: [...clusterWide(FLEET_CLUSTER_RULES), ...withNamespace(FLEET_NAMESPACE_RULES, NS), ...CLUSTERS.flatMap((c) => withNamespace(HANDOFF_RULES, hcpNamespaceOf('clusters', c)))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
    for (const n of [NS, 'clusters', ...CLUSTERS.map((c) => hcpNamespaceOf('clusters', c))]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    for (const c of CLUSTERS) {
      mgmt.store.put({ ...HC, metadata: { name: c, namespace: 'clusters', labels: c === 'c0' ? { 'provider.example.com/ring': 'canary' } : {} }, spec: {} });
      mgmt.store.put({ ...NP, metadata: { name: `${c}-workers`, namespace: 'clusters', annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'c0nfig00' } }, spec: { clusterName: c, arch: 'amd64', release: { image: R1 }, replicas: 2 } });
      setStatus(c, (o) => (o.status = { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, ...healthy] }));
    }
    settled.clear();
    settles.clear();
  });
  afterEach(async () => {
    if (running) await halt();
    await mgmt?.stop();
  });

  it('default policy: installing writes no hand-off; a release change carries the new layer in its own rollout', async () => {
    start(parsePolicy(undefined), 'L1');
    await waitFor('every NodePool settled', () => CLUSTERS.every((c) => settled.get(c)));
    await waitFor('every NodePool deferred', () => CLUSTERS.every((c) => 'state' in settled.get(c)! && (settled.get(c) as { state: string }).state === 'Deferred'));
    expect(handedOff()).toEqual([]);
    expect((settled.get('c3') as { message: string }).message).toBe('RideReleaseChange: the new layer reaches this NodePool with its next release change');
    // c3's release changes; the admission mutation holds it in the same write.
    const before = np('c3');
    const after = { ...structuredClone(before), spec: { ...before.spec, release: { image: R2 } } } as KubeObject & { spec: Record<string, unknown> };
    for (const op of admitNodePoolUpdate(before as never, after as never, new Date(), 3600)) {
      if (op.path === '/spec/pausedUntil') after.spec.pausedUntil = op.value;
      else if (op.path.startsWith('/metadata/annotations/')) after.metadata.annotations = { ...after.metadata.annotations, [op.path.slice('/metadata/annotations/'.length).replace(/~1/g, '/').replace(/~0/g, '~')]: op.value as string };
    }
    mgmt.store.put(after);
    await waitFor('c3 handed off for R2', () => handoff('c3')?.metadata?.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R2);
    // HyperShift reads it (its UpdatingConfig target moves): the gate lifts the hold.
    rolls('c3');
    await waitFor('c3 unheld', () => np('c3').spec?.pausedUntil === undefined && np('c3').metadata?.annotations?.[PAUSED_FOR_ANNOTATION] === undefined);
    expect(handedOffImage(handoff('c3')!.data!.config!)).toBe(imageFor('L1', R2));
    expect(handedOff()).toEqual(['c3']);
    // The admission was recorded before the lift (the hand-off was written while held: RideReleaseChange); its start is saved after the lift, not awaited; HyperShift finishing it is recorded too.
    let loaded = await readRollout(new Kube(mgmt.kubeConfig('system:admin')), NS);
    expect(loaded.state!.entries['clusters/c3-workers']).toMatchObject({ change: 'release-change' });
    await waitFor('start persisted', () => {
      const cm = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: NS });
      return JSON.parse(cm?.data?.['state.json'] ?? '{}').entries?.['clusters/c3-workers']?.s !== undefined;
    });
    finishes('c3');
    await waitFor('c3 succeeded in the plan', () => engine?.current()?.rows.find((r) => r.key === 'clusters/c3-workers')?.state === 'succeeded');
    await waitFor('success persisted', () => {
      const cm = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: NS });
      return JSON.parse(cm?.data?.['state.json'] ?? '{}').entries?.['clusters/c3-workers']?.ok !== undefined;
    });
    loaded = await readRollout(new Kube(mgmt.kubeConfig('system:admin')), NS);
    expect(loaded.problems).toEqual([]);
  });

  it('a fleet that stopped writes no more rollout state: progress seen just before is left to the next leader, who reads it from the NodePools', async () => {
    const policy = parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }], maxConcurrency: 2, maxFailures: 0 });
    start(policy, 'L1');
    await waitFor('the canary handed off', () => handedOff().length === 1);
    const stateOf = () => JSON.parse(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: NS })?.data?.[STATE_KEY] ?? '{}') as { entries?: Record<string, { s?: number; tc?: string }> };
    await waitFor('the canary\'s start written', () => stateOf().entries?.['clusters/c0-workers']?.s !== undefined);
    let writes = 0;
    const off = mgmt.onWrite((e) => void (e.object.kind === 'ConfigMap' && e.object.metadata?.name === ROLLOUT_CONFIGMAP && writes++));
    try {
      // HyperShift shows the canary's target: progress, written within the store's 5 s unless the fleet stops first.
      rolls('c0');
      await waitFor('the engine saw the target', () => (engine?.current()?.rows.find((r) => r.key === 'clusters/c0-workers')?.reason ?? '').includes('Target config'));
      await halt();
      await new Promise((r) => setTimeout(r, 6_000));
      expect(writes).toBe(0);
      expect(stateOf().entries?.['clusters/c0-workers']?.tc).toBeUndefined();
    } finally {
      off();
    }
  }, 60_000);

  it('Progressive: the canary first, then a window of maxConcurrency; a restart resumes within the bound; a halt until resumed', async () => {
    const policy = parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }], maxConcurrency: 2, maxFailures: 0 });
    start(policy, 'L1');
    await waitFor('the canary handed off', () => handedOff().length === 1);
    await waitFor('the others deferred', () => ['c1', 'c2', 'c3', 'c4', 'c5'].every((c) => (settled.get(c) as { state?: string } | undefined)?.state === 'Deferred'));
    expect(handedOff()).toEqual(['c0']);
    expect((settled.get('c1') as { message: string }).message).toBe('waiting for the canaries: 0/1 succeeded');
    rolls('c0');
    finishes('c0');
    await waitFor('two more handed off', () => handedOff().length === 3);
    await new Promise((r) => setTimeout(r, 500));
    expect(handedOff()).toHaveLength(3);
    const firstWave = handedOff().filter((c) => c !== 'c0');

    // The fleet process stops (a crash, a new leader): the new one reads its state and keeps the bound.
    await halt();
    start(policy, 'L1');
    await waitFor('the restarted fleet settled every NodePool', () => engine !== undefined && engine.current()?.summary.rollingNow === 2);
    await new Promise((r) => setTimeout(r, 800));
    expect(handedOff()).toHaveLength(3);

    // One of the wave fails: more than maxFailures 0, the rollout halts; the other one in flight finishes.
    for (const c of firstWave) rolls(c);
    fails(firstWave[0]!);
    await waitFor('halted', () => engine?.current()?.halted !== undefined);
    expect(engine!.current()!.halted).toBe(`1 NodePools failed, more than maxFailures 0: clusters/${firstWave[0]}-workers; first: UpdatingConfig InplaceUpgradeFailed: Node ${firstWave[0]}-1 in nodepool degraded: rebase failed`);
    finishes(firstWave[1]!);
    await waitFor(`${firstWave[1]} succeeded`, () => engine?.current()?.rows.find((r) => r.key === `clusters/${firstWave[1]}-workers`)?.state === 'succeeded');
    await new Promise((r) => setTimeout(r, 800));
    expect(handedOff()).toHaveLength(3);

    // `on-cluster-build fleet-rollout resume`: one write of the control key; the rollout goes on.
    await updateControl(new Kube(mgmt.kubeConfig('system:admin')), NS, (c) => ({ ...c, resume: (c.resume ?? 0) + 1 }));
    await waitFor('the rest handed off', () => handedOff().length === 5);
    expect(engine!.current()!.halted).toBeUndefined();
  });
  it('rollback: the NodePools this rollout changed get their previous image back, under the same bound; nothing else gets the layer', async () => {
    for (const c of CLUSTERS) mgmt.store.put(providerHandoff(hcpNamespaceOf('clusters', c), `${c}-workers`, imageFor('L0', R1), R1));
    start(parsePolicy({ type: 'Progressive', maxConcurrency: 2, maxConcurrencyPerHostedCluster: 1 }), 'L1');
    const onL1 = () => CLUSTERS.filter((c) => handedOffImage(handoff(c)!.data!.config!) === imageFor('L1', R1));
    await waitFor('two on the new layer', () => onL1().length === 2);
    const changed = onL1();
    for (const c of changed) rolls(c);
    await new Promise((r) => setTimeout(r, 500));
    expect(onL1()).toEqual(changed);
    // `on-cluster-build fleet-rollout rollback`: one write; the two go back to the image they had.
    await updateControl(new Kube(mgmt.kubeConfig('system:admin')), NS, (c) => ({ ...c, rollback: { at: Date.now(), by: 'sre' } }));
    await waitFor('both back on the previous image', () => onL1().length === 0);
    expect(CLUSTERS.every((c) => handedOffImage(handoff(c)!.data!.config!) === imageFor('L0', R1))).toBe(true);
    const loaded = await readRollout(new Kube(mgmt.kubeConfig('system:admin')), NS);
    expect(changed.map((c) => loaded.state!.entries[`clusters/${c}-workers`]!.change)).toEqual(['rollback', 'rollback']);
    // c5 (never changed) is settled again after the rollback's write: then it says why it waits.
    await waitFor('c5 settled after the rollback', () => /^rolled back by sre/.test((settled.get('c5') as { message?: string } | undefined)?.message ?? ''));
    expect((settled.get('c5') as { state?: string; message?: string }).message).toMatch(/^rolled back by sre at .*: layer L1 is not handed off again until a new layer is configured$/);
    await new Promise((r) => setTimeout(r, 800));
    expect(onL1()).toEqual([]);
  });

  it('a rollback deferred for a full window is done once the window frees, though the gate found the NodePool Consistent', async () => {
    for (const c of CLUSTERS) mgmt.store.put(providerHandoff(hcpNamespaceOf('clusters', c), `${c}-workers`, imageFor('L0', R1), R1));
    start(parsePolicy({ type: 'Progressive', maxConcurrency: 1 }), 'L1');
    const onL1 = () => CLUSTERS.filter((c) => handedOffImage(handoff(c)!.data!.config!) === imageFor('L1', R1));
    await waitFor('one on the new layer', () => onL1().length === 1);
    const [done] = onL1();
    const row = (c: string) => engine?.current()?.rows.find((r) => r.key === `clusters/${c}-workers`);
    rolls(done!);
    await waitFor(`${done}'s target seen`, () => /Target config/.test(row(done!)?.reason ?? ''));
    finishes(done!);
    await waitFor('a second on the new layer', () => onL1().length === 2);
    const [inFlight] = onL1().filter((c) => c !== done);
    rolls(inFlight!);
    await waitFor(`${inFlight}'s target seen`, () => /Target config/.test(row(inFlight!)?.reason ?? ''));
    // Rollback: the NodePool still rolling forward keeps its slot and goes back; the one that
    // finished waits for the window (maxConcurrency 1). Its hand-off is the layer the gate wants,
    // so the gate's own step for it ends Consistent: only the deferred rollback keeps it waiting.
    await updateControl(new Kube(mgmt.kubeConfig('system:admin')), NS, (c) => ({ ...c, rollback: { at: Date.now(), by: 'sre' } }));
    await waitFor(`${inFlight} back on the previous image`, () => !onL1().includes(inFlight!));
    await new Promise((r) => setTimeout(r, 500));
    expect(onL1()).toEqual([done]);
    expect(settled.get(done!)).toMatchObject({ state: 'Consistent' });
    // Nothing about it changes meanwhile, yet it stays in the waiting set: the recheck settles it again and again.
    const seen = settles.get(done!)!;
    await waitFor(`${done} settled again while its rollback waits`, () => settles.get(done!)! >= seen + 3);
    expect(onL1()).toEqual([done]);
    // HyperShift returns it to the config it ran (its target had shown): the rollback succeeded, the window frees.
    setStatus(inFlight!, (o) => {
      o.status = { ...o.status, conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, { type: 'UpdatingVersion', status: 'False', reason: 'AsExpected', observedGeneration: o.metadata.generation }, ...healthy] };
    });
    await waitFor(`${done} rolled back after the window freed`, () => onL1().length === 0);
    expect(handedOffImage(handoff(done!)!.data!.config!)).toBe(imageFor('L0', R1));
    const loaded = await readRollout(new Kube(mgmt.kubeConfig('system:admin')), NS);
    expect([done, inFlight].map((c) => loaded.state!.entries[`clusters/${c}-workers`]!.change)).toEqual(['rollback', 'rollback']);
  });
});
