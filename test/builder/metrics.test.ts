/**
 * builder/metrics/: label values stay in their lists; /metrics answers only an allowed client
 * certificate from the trusted CA; Events are deduplicated, aggregated and spam-filtered as
 * client-go's EventCorrelator does (events_cache.go), on simulated time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { bounded, GATE_ACTIONS, GATE_STATES, METRICS, NODEPOOL_REASONS, ROLLOUT_STATES } from '../../builder/metrics/catalogue.js';
import type { GateStep } from '../../builder/fleet/gate.js';
import type { RowState } from '../../builder/fleet/rollout/planner.js';
import { AGGREGATE_MAX_EVENTS, EventObject, EventRecorder, SPAM_BURST } from '../../builder/metrics/events.js';
import { Metrics } from '../../builder/metrics/registry.js';
import { startMetricsServer } from '../../builder/metrics/server.js';
import { ControllerTelemetry, countNodePools } from '../../builder/metrics/controller.js';
import { FleetTelemetry } from '../../builder/metrics/fleet.js';
import { rolloutEvents, RolloutPlanView } from '../../builder/metrics/rollout.js';
import { metricsPki, sample, scrape } from './metrics-harness.js';

describe('metric labels', () => {
  it('a value outside its list is Other: a tenant, a registry or a Job cannot add a series', async () => {
    expect(bounded(NODEPOOL_REASONS, 'WaitingForBuildSlot')).toBe('WaitingForBuildSlot');
    expect(bounded(NODEPOOL_REASONS, 'x'.repeat(1000))).toBe('Other');
    const m = new Metrics([METRICS.buildsFinished], { processMetrics: false });
    for (let i = 0; i < 100; i++) m.inc(METRICS.buildsFinished, { result: 'Failed', reason: `Reason${i}` });
    m.inc(METRICS.buildsFinished, { result: 'Failed', reason: 'BackoffLimitExceeded' });
    const text = await m.text();
    expect(sample(text, 'on_cluster_build_builds_finished_total', { result: 'Failed', reason: 'Other' })).toBe(100);
    expect(sample(text, 'on_cluster_build_builds_finished_total', { result: 'Failed', reason: 'BackoffLimitExceeded' })).toBe(1);
    expect(text.split('\n').filter((l) => l.startsWith('on_cluster_build_builds_finished_total'))).toHaveLength(2);
  });

  it('NodePools are counted by the state and reason their conditions say', () => {
    const c = (conds: [string, string, string][]) => ({ status: { conditions: conds.map(([type, status, reason]) => ({ type, status, reason })) } });
    const counts = countNodePools([
      c([['Available', 'True', 'ImageBuilt'], ['Building', 'False', 'NotBuilding'], ['Degraded', 'False', 'AsExpected']]),
      c([['Building', 'False', 'WaitingForBuildSlot']]),
      c([['Building', 'False', 'WaitingForBuildSlot']]),
      c([['WaitingForCapacity', 'True', 'NoReadyNodeOfArchitecture']]),
      c([['Degraded', 'True', 'PushSecretNotFound'], ['Building', 'False', 'NotBuilding']]),
      c([['Building', 'True', 'BuildRunning']]),
    ]);
    expect(counts.map(([l, v]) => `${l.state}/${l.reason}=${v}`).sort()).toEqual(['Available/ImageBuilt=1', 'Building/BuildRunning=1', 'Degraded/PushSecretNotFound=1', 'Waiting/NoReadyNodeOfArchitecture=1', 'Waiting/WaitingForBuildSlot=2']);
  });

  it("a failed build's Event names its reason, never its message (which can carry the tenant's build log)", async () => {
    const written: EventObject[] = [];
    const events = new EventRecorder({ sink: { create: async (e) => (written.push(e), e), patch: async () => ({}) }, component: 'c', instance: 'i', now: () => 0 });
    const t = new ControllerTelemetry(new Metrics([METRICS.buildsStarted, METRICS.buildsFinished, METRICS.buildDuration, METRICS.releaseResolutions, METRICS.imageVerifications], { processMetrics: false }), events);
    t.buildFinished({ apiVersion: 'v1', kind: 'NodePoolOSBuild', name: 'b' }, 'Failed', 'secret-token: hunter2');
    await events.flush();
    expect(written[0]).toMatchObject({ reason: 'BuildFailed', type: 'Warning', message: 'build failed: Other (the record\'s status says more)', metadata: { namespace: 'default' } });
  });

  it("an interrupted build's Event is BuildInterrupted, a Warning naming its reason", async () => {
    const written: EventObject[] = [];
    const events = new EventRecorder({ sink: { create: async (e) => (written.push(e), e), patch: async () => ({}) }, component: 'c', instance: 'i', now: () => 0 });
    const t = new ControllerTelemetry(new Metrics([METRICS.buildsStarted, METRICS.buildsFinished, METRICS.buildDuration, METRICS.releaseResolutions, METRICS.imageVerifications], { processMetrics: false }), events);
    t.buildFinished({ apiVersion: 'v1', kind: 'NodePoolOSBuild', name: 'b' }, 'Interrupted', 'Superseded');
    await events.flush();
    expect(written[0]).toMatchObject({ reason: 'BuildInterrupted', type: 'Warning', message: 'build interrupted: Superseded (the record\'s status says more)' });
  });

  it("the fleet exports its rollout: the halted gauge follows the plan's halt, NodePools by rollout state", async () => {
    const f = new FleetTelemetry({ maxHoldSeconds: 3600, now: () => 0, processMetrics: false });
    let text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_rollouts_halted')).toBe(0); // no engine yet: not halted
    let plan: { halted?: string; rows: { state: string }[] } = { rows: [{ state: 'succeeded' }, { state: 'rolling' }, { state: 'pending' }, { state: 'pending' }] };
    f.watchRollout(() => plan);
    text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_rollouts_halted')).toBe(0);
    expect(sample(text, 'on_cluster_build_fleet_rollout_nodepools', { state: 'pending' })).toBe(2);
    expect(sample(text, 'on_cluster_build_fleet_rollout_nodepools', { state: 'rolling' })).toBe(1);
    plan = { halted: '4 NodePools failed (maxFailures 3)', rows: [{ state: 'failed' }, { state: 'halted' }, { state: 'halted' }, { state: 'a state nobody listed' }] };
    text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_rollouts_halted')).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_rollout_nodepools', { state: 'halted' })).toBe(2);
    expect(sample(text, 'on_cluster_build_fleet_rollout_nodepools', { state: 'failed' })).toBe(1);
    // A state outside the list is counted under the closest bounded label (never a new series).
    expect(text).not.toContain('a state nobody listed');
  });

  it("the label lists name every gate action, gate state and rollout state the fleet decides (tsc: make typecheck)", () => {
    // A value the fleet can produce but the catalogue does not list would be exported as Other.
    type Unlisted<T, L extends readonly string[]> = [Exclude<T, L[number]>] extends [never] ? true : Exclude<T, L[number]>;
    const actions: Unlisted<Extract<GateStep, { did: string }>['did'], typeof GATE_ACTIONS> = true;
    const states: Unlisted<Extract<GateStep, { state: string }>['state'], typeof GATE_STATES> = true;
    const rollout: Unlisted<RowState, typeof ROLLOUT_STATES> = true;
    expect([actions, states, rollout]).toEqual([true, true, true]);
  });

  it('the fleet exports canaries by rollout state and the waves still to go', async () => {
    const f = new FleetTelemetry({ maxHoldSeconds: 3600, now: () => 0, processMetrics: false });
    let text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_rollout_waves_remaining')).toBe(0);
    f.watchRollout(() => ({ rows: [{ state: 'succeeded', canary: true }, { state: 'rolling', canary: true }, { state: 'pending' }, { state: 'pending' }, { state: 'pending' }], waves: [{}, {}] }));
    text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_rollout_canary_nodepools', { state: 'succeeded' })).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_rollout_canary_nodepools', { state: 'rolling' })).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_rollout_canary_nodepools', { state: 'pending' })).toBe(0);
    expect(sample(text, 'on_cluster_build_fleet_rollout_nodepools', { state: 'pending' })).toBe(3);
    expect(sample(text, 'on_cluster_build_fleet_rollout_waves_remaining')).toBe(2);
  });

  it("the rollout's milestones are Events on its ConfigMap, once each; a restarted process repeats only the halt", () => {
    const rows = (...s: string[]) => s.map((state, i) => ({ state, ...(i === 0 ? { canary: true } : {}) }));
    const reasons = (p: RolloutPlanView, before?: RolloutPlanView) => rolloutEvents(p, before).map(([r]) => r);
    const canaryRolling = { rows: rows('rolling', 'pending', 'pending') };
    const canaryDone = { rows: rows('succeeded', 'rolling', 'pending') };
    const halted = { halted: '1 NodePools failed, more than maxFailures 0: clusters/c1-workers; first: UpdatingConfig InplaceUpgradeFailed: rebase failed', rows: rows('succeeded', 'failed', 'halted') };
    const resumed = { rows: rows('succeeded', 'failed', 'rolling') };
    const done = { rows: rows('succeeded', 'succeeded', 'succeeded') };
    expect(reasons(canaryRolling)).toEqual([]);
    expect(reasons(canaryDone, canaryRolling)).toEqual(['RolloutCanariesSucceeded']);
    expect(reasons(canaryDone, canaryDone)).toEqual([]);
    expect(reasons(halted, canaryDone)).toEqual(['RolloutHalted']);
    expect(reasons(halted, halted)).toEqual([]);
    expect(reasons(resumed, halted)).toEqual(['RolloutResumed']);
    expect(reasons(done, resumed)).toEqual(['RolloutCompleted']);
    expect(reasons({ rows: [] }, { rows: [] })).toEqual([]);
    // A restarted process's first plan: the halt again (someone must act), no milestone.
    expect(reasons(halted)).toEqual(['RolloutHalted']);
    expect(reasons(done)).toEqual([]);
    // Fixed words and counts: never the halt's reason (NodePool names, HyperShift's messages).
    const [[, message]] = rolloutEvents(halted, canaryDone) as [[string, string]];
    expect(message).toBe('the rollout halted with 1 NodePool(s) failed: nothing starts until `on-cluster-build fleet-rollout resume` or `rollback` (`on-cluster-build fleet-status --plan` says which failed and why)');
  });

  it('the fleet counts every lift but tells a NodePool (UpgradeReleased) only of one whose hold it had explained', async () => {
    const written: EventObject[] = [];
    const events = new EventRecorder({ sink: { create: async (e) => (written.push(e), e), patch: async () => ({}) }, component: 'c', instance: 'i', now: () => 0 });
    const f = new FleetTelemetry({ maxHoldSeconds: 3600, now: () => 0, processMetrics: false, events });
    f.gateSettled('clusters/quick', [{ did: 'HandedOff', message: 'm' }, { did: 'Unpaused', message: 'm', routine: true }, { state: 'Consistent', message: 'm' }]);
    f.gateSettled('clusters/waited', [{ did: 'HandedOff', message: 'm' }, { did: 'Unpaused', message: 'm' }, { state: 'Consistent', message: 'm' }]);
    await events.flush();
    expect(written.map((e) => `${e.involvedObject.name}/${e.reason}`)).toEqual(['waited/UpgradeReleased']);
    expect(sample(await f.metrics.text(), 'on_cluster_build_fleet_gate_actions_total', { action: 'Unpaused' })).toBe(2);
  });

  it('the fleet exports holds in force and the age of the oldest from the NodePools it watches', async () => {
    let now = Date.parse('2026-11-25T00:00:00Z');
    const f = new FleetTelemetry({ maxHoldSeconds: 3600, now: () => now, processMetrics: false });
    f.nodePool('clusters/a', { pausedFor: 'r2', heldSince: '2026-11-25T00:00:00Z' });
    now += 600_000;
    f.nodePool('clusters/b', { pausedFor: 'r2', heldSince: '2026-11-25T00:05:00Z' });
    let text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(2);
    expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(600);
    expect(sample(text, 'on_cluster_build_fleet_hold_bound_seconds')).toBe(3600);
    f.nodePool('clusters/a', undefined);
    text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(300);
    f.gateSettled('clusters/b', [{ did: 'Paused', message: 'm' }, { state: 'Waiting', message: 'm' }]);
    f.gateSettled('clusters/c', [{ did: 'Bogus', message: 'm' }, { state: 'Consistent', message: 'm' }]);
    text = await f.metrics.text();
    expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'Paused' })).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'Other' })).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_gate_nodepools', { state: 'Waiting' })).toBe(1);
    expect(sample(text, 'on_cluster_build_fleet_gate_nodepools', { state: 'Consistent' })).toBe(1);
  });
});

describe('/metrics: HTTPS, and only an allowed client certificate from the trusted CA', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'metrics-server-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('serves the allowed scraper, refuses the others', async () => {
    const pki = metricsPki(dir);
    const m = new Metrics([METRICS.buildsStarted], { processMetrics: false });
    m.inc(METRICS.buildsStarted);
    const server = await startMetricsServer({ port: 0, host: '127.0.0.1', certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), clientCAFile: pki.clientCa, allowedClients: ['system:serviceaccount:hypershift:prometheus'], render: () => m.render() });
    try {
      const ok = await scrape(server.port, pki.serverCa, pki.client('system:serviceaccount:hypershift:prometheus'));
      expect(ok.status).toBe(200);
      expect(sample(ok.body, 'on_cluster_build_builds_started_total')).toBe(1);
      // Another subject from the trusted CA: authenticated, not authorized.
      expect((await scrape(server.port, pki.serverCa, pki.client('system:serviceaccount:tenant:reader'))).status).toBe(403);
      // The allowed subject signed by another CA, and no certificate at all: refused in the handshake.
      expect((await scrape(server.port, pki.serverCa, pki.client('system:serviceaccount:hypershift:prometheus', false))).status).toBe(0);
      expect((await scrape(server.port, pki.serverCa)).status).toBe(0);
      // Nothing but /metrics.
      expect((await scrape(server.port, pki.serverCa, pki.client('system:serviceaccount:hypershift:prometheus'), '/debug')).status).toBe(404);
    } finally {
      await server.close();
    }
  });
});

describe("Events, correlated as client-go's recorder does", () => {
  const obj = { apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers' };
  function recorder() {
    let now = Date.parse('2026-11-25T00:00:00Z');
    const created: EventObject[] = [];
    const patches: { name: string; count: number; message: string }[] = [];
    const dropped: string[] = [];
    const r = new EventRecorder({
      sink: { create: async (e) => (created.push(e), e), patch: async (_ns, name, p) => void patches.push({ name, count: p.count, message: p.message }) },
      component: 'on-cluster-build-controller',
      instance: 'pod-1',
      now: () => now,
      onDrop: (cause) => dropped.push(cause),
    });
    return { r, created, patches, dropped, advance: (s: number) => (now += s * 1000) };
  }

  it('the same Event again is a patch of its count, not a new object', async () => {
    const { r, created, patches } = recorder();
    for (let i = 0; i < 3; i++) r.event(obj, 'ConfigDegraded', 'Degraded: PushSecretNotFound');
    await r.flush();
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ reason: 'ConfigDegraded', type: 'Warning', count: 1, involvedObject: obj, metadata: { namespace: 'default' }, source: { component: 'on-cluster-build-controller' } });
    expect(patches).toEqual([
      { name: created[0]!.metadata.name, count: 2, message: 'Degraded: PushSecretNotFound' },
      { name: created[0]!.metadata.name, count: 3, message: 'Degraded: PushSecretNotFound' },
    ]);
  });

  it('many different messages for one object and reason are combined into one Event', async () => {
    const { r, created, patches } = recorder();
    for (let i = 0; i < AGGREGATE_MAX_EVENTS + 5; i++) r.event(obj, 'ConfigDegraded', `Degraded: reason ${i}`);
    await r.flush();
    // The first AGGREGATE_MAX_EVENTS - 1 are their own Events; then one combined Event, patched.
    expect(created).toHaveLength(AGGREGATE_MAX_EVENTS);
    expect(created[AGGREGATE_MAX_EVENTS - 1]!.message).toMatch(/^\(combined from similar events\): /);
    expect(patches).toHaveLength(5);
  });

  it('past the burst, Events of one object are dropped until the bucket refills (one per 5 minutes)', async () => {
    const { r, created, patches, dropped, advance } = recorder();
    for (let i = 0; i < SPAM_BURST + 10; i++) r.event(obj, 'BuildStarted', 'build Job created');
    await r.flush();
    expect(created.length + patches.length).toBe(SPAM_BURST);
    expect(dropped).toEqual(Array(10).fill('SpamFiltered'));
    // Another object has its own bucket.
    r.event({ ...obj, name: 'other' }, 'BuildStarted', 'build Job created');
    advance(300);
    r.event(obj, 'BuildStarted', 'build Job created');
    r.event(obj, 'BuildStarted', 'build Job created');
    await r.flush();
    expect(created.length + patches.length).toBe(SPAM_BURST + 2);
    expect(dropped).toHaveLength(11);
  });

  it('a failed write is dropped and counted, never thrown at the caller', async () => {
    const dropped: string[] = [];
    const r = new EventRecorder({ sink: { create: async () => { throw new Error('forbidden'); }, patch: async () => ({}) }, component: 'c', instance: 'i', onDrop: (c) => dropped.push(c) });
    r.event(obj, 'BuildStarted', 'x');
    await r.flush();
    expect(dropped).toEqual(['WriteFailed']);
  });

  it('messages are one line and clipped', async () => {
    const { r, created } = recorder();
    r.event(obj, 'BuildStarted', `a\nb\u0000c${'x'.repeat(5000)}`);
    await r.flush();
    expect(created[0]!.message).toMatch(/^a b cx+…$/);
    expect(created[0]!.message.length).toBe(1024);
  });
});
