/**
 * The rollout engine's work at fleet scale (builder/fleet/rollout/engine.ts), counted, not timed:
 * the gate asks once per NodePool per pass, and a pass over 2,000 NodePools must not re-plan over
 * every NodePool at each request (that made a pass quadratic) nor evaluate the canary selectors
 * per NodePool per plan. The counts: the engine's `advances` (passes over every NodePool) and the
 * selector's own reads (a getter on its matchLabels).
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { RolloutEngine } from '../../builder/fleet/rollout/engine.js';
import { parsePolicy, type LabelSelector, type RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import { readRollout, RolloutStore, STATE_KEY } from '../../builder/fleet/rollout/state.js';
import { ROLLOUT_CONFIGMAP } from '../../builder/fleet/rbac.js';

const USER = 'system:serviceaccount:on-cluster-build-fleet:fleet';
const NS = 'on-cluster-build-fleet';
const CANARY = { 'provider.example.com/ring': 'canary' };
const HOSTED_CLUSTERS = 1000;
const PER = 2;
const CANARY_CLUSTERS = 5;
const T0 = Date.parse('2026-11-27T10:00:00Z');

let server: ApiTestServer;
beforeAll(async () => {
  server = await startApiServer({ identities: [{ name: USER, token: 'fleet-token' }] });
  server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
});
afterAll(() => server.stop());

/**
 * An engine over two HostedClusters of one NodePool each (`clusters/hc-a-pool`, `clusters/hc-b-pool`),
 * maxConcurrency 1, its state in a namespace of its own; the fleet's clock is `clock.now`.
 */
async function twoNodePools(store: Omit<ConstructorParameters<typeof RolloutStore>[0], 'kube' | 'namespace'> = {}, engineOptions: { log?: (msg: string, fields?: Record<string, unknown>) => void; onUnsaved?: () => void } = {}) {
  const policy = parsePolicy({ type: 'Progressive', maxConcurrency: 1, maxFailures: 0 });
  const clock = { now: T0 };
  const ns = `fleet-${Math.random().toString(36).slice(2, 8)}`;
  server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  const rolloutStore = new RolloutStore({ kube: new Kube(server.kubeConfig(USER)), namespace: ns, ...store });
  const engine = new RolloutEngine({ policy, layer: 'L2', store: rolloutStore, now: () => clock.now, ...engineOptions });
  engine.load(undefined, {});
  for (const name of ['hc-a', 'hc-b']) {
    engine.observeHostedCluster({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { namespace: 'clusters', name } }, false);
    engine.observeNodePool({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { namespace: 'clusters', name: `${name}-pool`, generation: 1 }, spec: { clusterName: name, release: { image: 'r1' } }, status: { conditions: [] } } as KubeObject, false);
  }
  engine.listed('nodePools');
  engine.listed('hostedClusters');
  await engine.tick();
  const request = (key: string) => ({ key, nodePool: { metadata: {} } as KubeObject, change: 'layer-change' as const, image: 'img-l2', releaseImage: 'r1' });
  return { engine, clock, request, store: rolloutStore, ns };
}

/** Timers fired by hand (the fleet's clock as the store sees it). */
function handTimers() {
  const due = new Map<number, () => void>();
  let id = 0;
  return {
    setTimeout: (f: () => void) => (due.set(++id, f), id),
    clearTimeout: (h: unknown) => void due.delete(h as number),
    now: () => T0,
    get pending() {
      return due.size;
    },
    fire() {
      const fs = [...due.values()];
      due.clear();
      for (const f of fs) f();
    },
  };
}

/** Until `f()` holds (real time, bounded). */
async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
}

/**
 * Until the progress's save timer is armed. mgmtEntryStarted reads the test server's store, which
 * holds the start before the store's write has its answer; the store arms the timer once that
 * write has ended.
 */
const progressArmed = (timers: ReturnType<typeof handTimers>) => until(() => timers.pending === 1);

describe('the rollout engine at 2,000 NodePools', () => {

  it('answers a pass of the gate against one plan: passes over the fleet grow with what changed, selector evaluations with HostedClusters', async () => {
    let evaluations = 0;
    const selector: LabelSelector = {
      get matchLabels() {
        evaluations++;
        return CANARY;
      },
    };
    const policy: RolloutPolicy = { ...parsePolicy({ type: 'Progressive', maxConcurrency: 50, maxFailures: 3 }), canaries: [selector] };
    let now = T0;
    const engine = new RolloutEngine({ policy, layer: 'L2', store: new RolloutStore({ kube: new Kube(server.kubeConfig(USER)), namespace: NS }), now: () => now });
    engine.load(undefined, {});
    const keys: string[] = [];
    for (let c = 0; c < HOSTED_CLUSTERS; c++) {
      const name = `hc-${String(c).padStart(4, '0')}`;
      engine.observeHostedCluster({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { namespace: 'clusters', name, labels: c < CANARY_CLUSTERS ? CANARY : {} } }, false);
      for (let j = 0; j < PER; j++) {
        const np = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { namespace: 'clusters', name: `${name}-pool-${j}`, generation: 1 }, spec: { clusterName: name, release: { image: 'r1' } }, status: { conditions: [] } } as KubeObject;
        engine.observeNodePool(np, false);
        keys.push(`clusters/${name}-pool-${j}`);
      }
    }
    engine.listed('nodePools');
    engine.listed('hostedClusters');
    await engine.tick();
    const ask = (key: string) => engine.admit({ key, nodePool: { metadata: {} } as KubeObject, change: 'layer-change', image: 'img-l2', releaseImage: 'r1' });

    // The first pass: one NodePool per canary HostedCluster is admitted (and written), every other one waits.
    const before = engine.advances;
    const admitted: string[] = [];
    for (const key of keys) {
      const d = await ask(key);
      if (d.admit) {
        admitted.push(key);
        engine.started({ key, nodePool: { metadata: {} } as KubeObject, change: 'layer-change', image: 'img-l2', releaseImage: 'r1' });
      } else expect(d).toEqual({ admit: false, reason: expect.stringMatching(/^(waiting for the canaries: 0\/10 succeeded|maxConcurrencyPerHostedCluster 1 reached)/) });
    }
    expect(admitted).toEqual(keys.slice(0, CANARY_CLUSTERS * PER).filter((_, i) => i % PER === 0));
    // A write recorded is a change: the next request re-plans once. 2,000 requests, 5 writes: at most 6 passes, not 2,000.
    expect(engine.advances - before).toBeLessThanOrEqual(admitted.length + 1);

    // A second pass with nothing observed and no time passed: no pass over the fleet at all.
    const second = engine.advances;
    for (const key of keys.slice(CANARY_CLUSTERS * PER)) expect((await ask(key)).admit).toBe(false);
    expect(engine.advances - second).toBeLessThanOrEqual(1);

    // Time passes, short of anything due (the canaries' progress deadline is 2h away): still no pass.
    now += 10 * 60_000;
    const third = engine.advances;
    for (const key of keys.slice(CANARY_CLUSTERS * PER)) await ask(key);
    expect(engine.advances - third).toBe(0);
    // The deadline passes (the canaries fail, the rollout halts): one pass, then again constant-time answers.
    now += 2 * 3600_000;
    const fourth = engine.advances;
    for (const key of keys.slice(CANARY_CLUSTERS * PER)) expect(await ask(key)).toEqual({ admit: false, reason: expect.stringMatching(/^rollout halted: canary failed/) });
    expect(engine.advances - fourth).toBe(1);

    // The selectors ran once per HostedCluster, not per NodePool per plan (that was ~10,000 per request).
    expect(evaluations).toBeLessThanOrEqual(HOSTED_CLUSTERS);
    expect(engine.current()!.summary.canaries).toBe(CANARY_CLUSTERS * PER);
  }, 120_000);
});

describe('the rollout engine when recording an admission outlasts its reservation', () => {
  it('does not admit a write whose slot a later pass gave to another NodePool', async () => {
    // maxConcurrency 1; the state's saves wait 300 ms (real) to coalesce, and the fleet's clock
    // passes the 2-minute reservation meanwhile: the pass that B's request makes frees A's slot.
    const { engine, clock, request } = await twoNodePools({ coalesceMs: 300 });
    const ask = (key: string) => engine.admit(request(key));

    const a = ask('clusters/hc-a-pool');
    clock.now += 3 * 60_000;
    const b = await ask('clusters/hc-b-pool');
    const answers = [await a, b];
    // Never both: one slot.
    expect(answers.filter((d) => d.admit)).toHaveLength(1);
    expect(b.admit).toBe(true);
    expect(answers[0]).toEqual({ admit: false, reason: expect.stringMatching(/not recorded before its reservation ran out/) });
  }, 60_000);
});

describe('the rollout engine while a gate\'s write outlasts its reservation', () => {
  it('keeps the slot of an admission whose write is still in flight past the 2-minute reservation, and counts it once written', async () => {
    const { engine, clock, request } = await twoNodePools();
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    // A's gate is still writing (a slow API server) when the reservation's time has passed.
    clock.now += 3 * 60_000;
    expect((await engine.admit(request('clusters/hc-b-pool'))).admit).toBe(false);
    engine.started(request('clusters/hc-a-pool'));
    engine.writeEnded('clusters/hc-a-pool');
    clock.now += 60_000;
    expect((await engine.admit(request('clusters/hc-b-pool'))).admit).toBe(false);
    expect(engine.current()!.summary.rollingNow).toBe(1);
  }, 60_000);

  it('frees the slot of an admission its gate ended without writing, once the reservation has passed', async () => {
    const { engine, clock, request } = await twoNodePools();
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    clock.now += 3 * 60_000;
    expect((await engine.admit(request('clusters/hc-b-pool'))).admit).toBe(false);
    // A's write failed (its settle ended without `started`): the lapsed reservation frees the slot.
    engine.writeEnded('clusters/hc-a-pool');
    expect(await engine.admit(request('clusters/hc-b-pool'))).toEqual({ admit: true });
  }, 60_000);
});

/** HyperShift shows the NodePool of `cluster` rolling to `target` (progress the engine records when it plans next). */
const rolling = (engine: RolloutEngine, cluster: string, target: string) =>
  engine.observeNodePool({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { namespace: 'clusters', name: `${cluster}-pool`, generation: 2 }, spec: { clusterName: cluster, release: { image: 'r1' } }, status: { conditions: [{ type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${target}`, observedGeneration: 2 }] } } as KubeObject, false);
const entry = async (ns: string, key: string) => (await readRollout(new Kube(server.kubeConfig(USER)), ns)).state?.entries[key];

describe('the rollout state: admissions and starts written at once, progress soon after', () => {
  it('writes progress with the next admission or on its own when its time comes; an answer that changes nothing waits for no write', async () => {
    const timers = handTimers();
    const { engine, request, store, ns } = await twoNodePools({ soon: { ms: 5_000 }, clock: timers });
    const first = store.writeCount;
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    // The start is written at once: after a restart nothing else shows that the hand-off was written.
    engine.started(request('clusters/hc-a-pool'));
    await until(() => store.writeCount === first + 2);
    expect((await entry(ns, 'clusters/hc-a-pool'))?.startedAt).toBe(T0);
    rolling(engine, 'hc-a', '1a2b3c4d');
    // B waits for A's slot: answered at once, with no write for A's progress; that waits for its time.
    expect((await engine.admit(request('clusters/hc-b-pool'))).admit).toBe(false);
    expect(store.writeCount).toBe(first + 2);
    expect(timers.pending).toBe(1);
    expect((await entry(ns, 'clusters/hc-a-pool'))?.targetConfig).toBeUndefined();
    // Its time comes: one write carries it.
    timers.fire();
    await until(() => store.writeCount === first + 3);
    expect(store.writeCount).toBe(first + 3);
    expect((await entry(ns, 'clusters/hc-a-pool'))?.targetConfig).toBe('1a2b3c4d');
  }, 60_000);

  it('progress rides an admission asked before its time: one write for both, none when the time comes', async () => {
    const timers = handTimers();
    const { engine, request, store, ns } = await twoNodePools({ soon: { ms: 5_000 }, clock: timers });
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    engine.started(request('clusters/hc-a-pool'));
    await until(() => mgmtEntryStarted(ns));
    const before = store.writeCount;
    rolling(engine, 'hc-a', '1a2b3c4d');
    await engine.tick();
    await progressArmed(timers);
    expect([store.writeCount, timers.pending]).toEqual([before, 1]);
    // A finishes (its slot frees) and B is admitted before the progress's time: one write carries both.
    engine.observeNodePool({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { namespace: 'clusters', name: 'hc-a-pool', generation: 2, annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': '1a2b3c4d' } }, spec: { clusterName: 'hc-a', release: { image: 'r1' } }, status: { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected', observedGeneration: 2 }, ...['Ready', 'AllMachinesReady', 'AllNodesHealthy'].map((type) => ({ type, status: 'True', reason: 'AsExpected' }))] } } as KubeObject, false);
    expect(await engine.admit(request('clusters/hc-b-pool'))).toEqual({ admit: true });
    expect(store.writeCount).toBe(before + 1);
    const [a, b] = [await entry(ns, 'clusters/hc-a-pool'), await entry(ns, 'clusters/hc-b-pool')];
    expect([a?.targetConfig, a?.succeededAt, b?.admittedAt]).toEqual(['1a2b3c4d', T0, T0]);
    expect(timers.pending).toBe(0);
  }, 60_000);

  it('a progress save that fails is logged and the next tick writes the state', async () => {
    const timers = handTimers();
    const logs: string[] = [];
    let unsaved = 0;
    const { engine, request, store, ns } = await twoNodePools({ soon: { ms: 5_000 }, clock: timers }, { log: (msg, f) => logs.push(`${msg}: ${String(f?.error ?? '')}`), onUnsaved: () => void unsaved++ });
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    engine.started(request('clusters/hc-a-pool'));
    await until(() => mgmtEntryStarted(ns));
    rolling(engine, 'hc-a', '1a2b3c4d');
    await engine.tick();
    await progressArmed(timers);
    // The API refuses the next write: the rollout ConfigMap is gone and its namespace with it.
    server.store.delete({ apiVersion: 'v1', kind: 'Namespace', name: ns });
    server.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: ns });
    timers.fire();
    await until(() => unsaved > 0);
    expect(unsaved).toBe(1);
    expect(logs.filter((l) => l.startsWith('rollout state not recorded'))).toHaveLength(1);
    server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const before = store.writeCount;
    await engine.tick();
    expect(store.writeCount).toBe(before + 1);
    expect((await entry(ns, 'clusters/hc-a-pool'))?.targetConfig).toBe('1a2b3c4d');
  }, 60_000);
});

describe('the rollout state once the fleet stops', () => {
  it('writes nothing more: progress waiting is dropped (a new leader may be writing), later saves fail', async () => {
    const timers = handTimers();
    const logs: string[] = [];
    const { engine, request, store, ns } = await twoNodePools({ soon: { ms: 5_000 }, clock: timers }, { log: (msg, f) => logs.push(`${msg}: ${String(f?.error ?? '')}`) });
    expect(await engine.admit(request('clusters/hc-a-pool'))).toEqual({ admit: true });
    engine.started(request('clusters/hc-a-pool'));
    await until(() => mgmtEntryStarted(ns));
    rolling(engine, 'hc-a', '1a2b3c4d');
    await engine.tick();
    await progressArmed(timers);
    expect(timers.pending).toBe(1);
    const before = store.writeCount;
    store.stop();
    expect(timers.pending).toBe(0);
    timers.fire();
    await new Promise((r) => setTimeout(r, 50));
    expect(store.writeCount).toBe(before);
    expect(logs).toContain('rollout state not recorded: the fleet is stopping');
    await expect(store.save({ layer: 'L2', resumes: 0, entries: {} } as never)).rejects.toThrow('the fleet is stopping');
    expect(store.writeCount).toBe(before);
  }, 60_000);
});

/** The API test server holds hc-a-pool's start. */
function mgmtEntryStarted(ns: string): boolean {
  const cm = server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: ns }) as { data?: Record<string, string> } | undefined;
  return JSON.parse(cm?.data?.[STATE_KEY] ?? '{}').entries?.['clusters/hc-a-pool']?.s !== undefined;
}
