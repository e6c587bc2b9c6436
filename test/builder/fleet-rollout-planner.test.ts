/**
 * The rollout planner (builder/fleet/rollout/planner.ts), pure: tables of (policy, NodePools as
 * HyperShift reports them, state, controls, now, the gate's asks) → decisions, rows, waves.
 * Also the policy's parsing (located errors) and progress read from HyperShift's conditions.
 */
import { AdmitRequest, markStarted, plan, Plan, PlanInput, rollbackTargets, RolloutControl, RolloutState } from '../../builder/fleet/rollout/planner.js';
import { decodeState, encodeState } from '../../builder/fleet/rollout/state.js';
import { DEFAULT_POLICY, formatPolicy, parsePolicy, RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import { NodePoolObservation, progressOf } from '../../builder/fleet/rollout/progress.js';
import type { RolloutChange } from '../../builder/fleet/gate.js';

const T0 = Date.parse('2026-11-27T10:00:00Z');
const MIN = 60_000;
/** The config hash HyperShift shows for a NodePool's rollout (alphanumeric, as its hashes are). */
const hashOf = (key: string) => `h${key.replace(/[^a-z0-9]/g, '')}`;

/** A fleet: `n` HostedClusters `hc<i>` in namespace `clusters`, `per` NodePools each; `canary` labels the first `canaries` of them. */
function fleet(n: number, per = 1, canaries = 0): NodePoolObservation[] {
  const out: NodePoolObservation[] = [];
  for (let i = 0; i < n; i++)
    for (let j = 0; j < per; j++)
      out.push({
        key: `clusters/hc${String(i).padStart(3, '0')}-np${j}`,
        hostedCluster: `clusters/hc${String(i).padStart(3, '0')}`,
        hostedClusterLabels: i < canaries ? { 'provider.example.com/ring': 'canary' } : {},
        releaseImage: 'r1',
        generation: 1,
        currentConfig: 'c0',
        conditions: settled('c0'),
      });
  return out;
}
const settled = (_c: string, gen = 1) => [
  { type: 'UpdatingConfig', status: 'False', reason: 'AsExpected', observedGeneration: gen },
  { type: 'UpdatingVersion', status: 'False', reason: 'AsExpected', observedGeneration: gen },
  { type: 'Ready', status: 'True', reason: 'AsExpected' },
  { type: 'AllMachinesReady', status: 'True', reason: 'AsExpected' },
  { type: 'AllNodesHealthy', status: 'True', reason: 'AsExpected' },
];
/** HyperShift took our write and is rolling towards `target`. */
function rollingTo(o: NodePoolObservation, target: string): void {
  o.conditions = o.conditions.map((c) => (c.type === 'UpdatingConfig' ? { type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${target}` } : c));
}
/** The rollout completed on `target`. */
function doneAt(o: NodePoolObservation, target: string): void {
  o.currentConfig = target;
  o.conditions = settled(target, o.generation);
}
function inPlaceFailed(o: NodePoolObservation): void {
  o.conditions = o.conditions.map((c) => (c.type === 'UpdatingConfig' ? { type: 'UpdatingConfig', status: 'False', reason: 'InplaceUpgradeFailed', message: 'Node n1 in nodepool degraded: rebase failed' } : c));
}

const PROGRESSIVE: RolloutPolicy = parsePolicy({
  type: 'Progressive',
  canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }],
  maxConcurrency: 3,
  maxConcurrencyPerHostedCluster: 1,
  maxFailures: 1,
  progressDeadline: '2h',
});

/** A driver: the fleet process's loop (ask, write, observe) over the pure planner. */
class Sim {
  state: RolloutState | undefined;
  control: RolloutControl = {};
  now = T0;
  last!: Plan;
  constructor(
    public policy: RolloutPolicy,
    public nodePools: NodePoolObservation[],
    public layer = 'L1',
  ) {}
  run(requests: AdmitRequest[] = []): Plan {
    const input: PlanInput = { policy: this.policy, layer: this.layer, now: this.now, nodePools: this.nodePools, control: this.control, requests, ...(this.state ? { state: this.state } : {}) };
    this.last = plan(input);
    this.state = this.last.state;
    return this.last;
  }
  /** The gate asks for `keys` (in order); admitted ones are written at once and HyperShift starts rolling them. */
  ask(keys: string[], change: RolloutChange = 'layer-change', target = `t-${this.layer}`): string[] {
    // The gate asks only for NodePools whose hand-off does not carry the target yet.
    const asking = keys.filter((k) => this.state?.entries[k]?.target !== target);
    const p = this.run(asking.map((key) => ({ key, change, target })));
    const admitted = asking.filter((k) => p.decisions.get(k)?.admit);
    for (const k of admitted) {
      markStarted(this.state!, k, target, this.np(k), this.now);
      rollingTo(this.np(k), hashOf(k));
    }
    return admitted;
  }
  np(key: string): NodePoolObservation {
    return this.nodePools.find((o) => o.key === key)!;
  }
  reason(key: string, change: RolloutChange = 'layer-change'): string | undefined {
    const d = this.run([{ key, change, target: 'probe' }]).decisions.get(key)!;
    // A probe admitted is undone: these tests only read the answer.
    if (d.admit) delete this.state!.entries[key];
    return d.admit ? undefined : d.reason;
  }
  rollingCount(): number {
    return Object.values(this.state?.entries ?? {}).filter((e) => e.succeededAt === undefined && e.failedAt === undefined).length;
  }
}
const keys = (ns: NodePoolObservation[]) => ns.map((o) => o.key);

describe('rollout policy', () => {
  test('defaults to RideReleaseChange with bounds', () => {
    expect(parsePolicy(undefined)).toEqual(DEFAULT_POLICY);
    expect(parsePolicy('').type).toBe('RideReleaseChange');
  });
  test.each([
    ['{"type":"Rolling"}', 'rollout.type: must be RideReleaseChange or Progressive, got "Rolling"'],
    ['{"maxConcurrency":0}', 'rollout.maxConcurrency: must be an integer from 1 to 100000 or a percentage such as "10%", got 0'],
    ['{"maxConcurrency":"150%"}', 'rollout.maxConcurrency: must be an integer from 1 to 100000 or a percentage such as "10%", got "150%"'],
    ['{"type":"Progressive","minSuccessTime":"5 minutes"}', 'rollout.minSuccessTime: must be a duration such as "90m", "2h", "360s", got "5 minutes"'],
    ['{"type":"Progressive","progressDeadline":"0"}', 'rollout.progressDeadline: 0 would fail every NodePool at once; give a duration or "None"'],
    ['{"canaries":[{"matchLabels":{"a":"b"}}]}', "rollout.canaries: only for type Progressive (RideReleaseChange rides each NodePool's own release change)"],
    ['{"type":"Progressive","canaries":[{}]}', 'rollout.canaries[0]: an empty selector would make every HostedCluster a canary; give matchLabels or matchExpressions'],
    ['{"type":"Progressive","canaries":[{"matchExpressions":[{"key":"a","operator":"Near"}]}]}', 'rollout.canaries[0].matchExpressions[0].operator: must be In, NotIn, Exists or DoesNotExist, got "Near"'],
    ['{"maxConcurency":3}', 'rollout: unknown field "maxConcurency" (type, canaries, maxConcurrency, maxConcurrencyPerHostedCluster, maxFailures, minSuccessTime, progressDeadline)'],
    ['{', 'rollout: not JSON: '],
  ])('%s is refused with a located error', (text, msg) => {
    expect(() => parsePolicy(text)).toThrow(msg);
  });
  test('formatPolicy round-trips', () => {
    const p = parsePolicy({ type: 'Progressive', canaries: [{ matchExpressions: [{ key: 'ring', operator: 'In', values: ['0'] }] }], maxConcurrency: '10%', maxFailures: 3, minSuccessTime: '30m', progressDeadline: 'None' });
    expect(parsePolicy(formatPolicy(p))).toEqual(p);
  });
});

describe('progress from HyperShift status', () => {
  const o = fleet(1)[0]!;
  test('rolling until the target seen after our write is current and the nodes are healthy', () => {
    rollingTo(o, 'h1');
    expect(progressOf(o, { fromConfig: 'c0', targetConfig: 'h1', releaseChange: false }).state).toBe('rolling');
    doneAt(o, 'h1');
    o.conditions = o.conditions.map((c) => (c.type === 'AllNodesHealthy' ? { ...c, status: 'False', reason: 'NodeConditionsFailed' } : c));
    expect(progressOf(o, { fromConfig: 'c0', targetConfig: 'h1', releaseChange: false })).toEqual({ state: 'rolling', detail: 'AllNodesHealthy False (NodeConditionsFailed)' });
    doneAt(o, 'h1');
    expect(progressOf(o, { fromConfig: 'c0', targetConfig: 'h1', releaseChange: false }).state).toBe('succeeded');
    // Another target than the one seen after our write is not ours.
    expect(progressOf(o, { fromConfig: 'c0', targetConfig: 'h2', releaseChange: false }).state).toBe('rolling');
  });
  test('without a target seen, the current config must have moved', () => {
    const p = fleet(1)[0]!;
    expect(progressOf(p, { fromConfig: 'c0', releaseChange: false })).toEqual({ state: 'rolling', detail: 'HyperShift has not taken the new config yet' });
    doneAt(p, 'h9');
    expect(progressOf(p, { fromConfig: 'c0', releaseChange: false }).state).toBe('succeeded');
  });
  test('a release change whose config hashes the same (one OS image for both releases) succeeds once UpdatingVersion is done for the new generation', () => {
    const p = fleet(1)[0]!;
    doneAt(p, 'c0'); // the config never moves
    expect(progressOf(p, { fromConfig: 'c0', generation: 2, releaseChange: true })).toEqual({ state: 'rolling', detail: 'HyperShift has not taken the new config yet' });
    p.generation = 2;
    doneAt(p, 'c0');
    expect(progressOf(p, { fromConfig: 'c0', generation: 2, releaseChange: true }).state).toBe('succeeded');
    expect(progressOf(p, { fromConfig: 'c0', generation: 2, releaseChange: false }).state).toBe('rolling'); // a layer change must move the config
  });
  test('a release change whose target was dropped (a stale hand-off emptied while held, then its config back for a z-stream) succeeds once HyperShift reconciled the new generation and the version is done', () => {
    const p = fleet(1)[0]!;
    // After our write HyperShift showed the emptied hand-off's config as its target, then the config came back: UpdatingConfig False, current unchanged.
    doneAt(p, 'c0');
    const started = { fromConfig: 'c0', targetConfig: 'hempty', generation: 2, releaseChange: true };
    expect(progressOf(p, started)).toEqual({ state: 'rolling', detail: 'current config c0 is not the target hempty' });
    p.generation = 2;
    doneAt(p, 'c0');
    expect(progressOf(p, started).state).toBe('succeeded');
    // UpdatingConfig from an older reconcile: not yet.
    p.conditions = p.conditions.map((c) => (c.type === 'UpdatingConfig' ? { ...c, observedGeneration: 1 } : c));
    expect(progressOf(p, started).state).toBe('rolling');
    // A layer change must reach the target it showed.
    doneAt(p, 'c0');
    expect(progressOf(p, { ...started, releaseChange: false }).state).toBe('rolling');
  });
  test('InPlace failure is a failure; a release change also needs UpdatingVersion for the new generation', () => {
    const p = fleet(1)[0]!;
    inPlaceFailed(p);
    expect(progressOf(p, { fromConfig: 'c0', releaseChange: false })).toEqual({ state: 'failed', reason: 'UpdatingConfig InplaceUpgradeFailed: Node n1 in nodepool degraded: rebase failed' });
    const q = fleet(1)[0]!;
    doneAt(q, 'h1');
    expect(progressOf(q, { fromConfig: 'c0', targetConfig: 'h1', generation: 2, releaseChange: true })).toEqual({ state: 'rolling', detail: 'UpdatingVersion not yet observed for the new release' });
    q.generation = 2;
    doneAt(q, 'h1');
    expect(progressOf(q, { fromConfig: 'c0', targetConfig: 'h1', generation: 2, releaseChange: true }).state).toBe('succeeded');
  });
});

describe('RideReleaseChange (the default)', () => {
  test('admits only release changes: installing the fleet or a new layer starts nothing', () => {
    const s = new Sim(DEFAULT_POLICY, fleet(4));
    expect(s.ask(keys(s.nodePools), 'first-handoff')).toEqual([]);
    expect(s.ask(keys(s.nodePools), 'layer-change')).toEqual([]);
    expect(s.reason('clusters/hc000-np0')).toBe('RideReleaseChange: the new layer reaches this NodePool with its next release change');
    expect(s.ask(['clusters/hc000-np0'], 'release-change')).toEqual(['clusters/hc000-np0']);
    expect(s.last.rows.filter((r) => r.state === 'blocked').length).toBe(3);
  });
  test('the bounds hold for release changes too (management cluster and HostedCluster)', () => {
    const s = new Sim(parsePolicy({ maxConcurrency: 2, maxConcurrencyPerHostedCluster: 1 }), fleet(3, 2));
    expect(s.ask(keys(s.nodePools), 'release-change')).toEqual(['clusters/hc000-np0', 'clusters/hc001-np0']);
    expect(s.reason('clusters/hc002-np0', 'release-change')).toBe('maxConcurrency 2 reached (2 NodePools rolling)');
    doneAt(s.np('clusters/hc000-np0'), hashOf('clusters/hc000-np0'));
    s.run();
    expect(s.reason('clusters/hc001-np1', 'release-change')).toBe('maxConcurrencyPerHostedCluster 1 reached in HostedCluster clusters/hc001');
    expect(s.ask(['clusters/hc000-np1'], 'release-change')).toEqual(['clusters/hc000-np1']);
  });
});

describe('Progressive', () => {
  test('canaries first; no other starts before every canary succeeded', () => {
    const s = new Sim(PROGRESSIVE, fleet(6, 1, 2));
    const [c0, c1] = ['clusters/hc000-np0', 'clusters/hc001-np0'];
    expect(s.ask(keys(s.nodePools).reverse())).toEqual([c1, c0]);
    expect(s.reason('clusters/hc002-np0')).toBe('waiting for the canaries: 0/2 succeeded');
    doneAt(s.np(c0), hashOf(c0));
    s.run();
    expect(s.reason('clusters/hc002-np0')).toBe('waiting for the canaries: 1/2 succeeded');
    doneAt(s.np(c1), hashOf(c1));
    expect(s.ask(keys(s.nodePools))).toEqual(['clusters/hc002-np0', 'clusters/hc003-np0', 'clusters/hc004-np0']);
  });
  test('minSuccessTime is counted from success: the canary soaks, and holds its slot while it does', () => {
    const s = new Sim({ ...PROGRESSIVE, minSuccessSeconds: 600 }, fleet(5, 1, 1));
    const c = 'clusters/hc000-np0';
    s.ask([c]);
    s.now += 30 * MIN;
    doneAt(s.np(c), hashOf(c));
    s.run();
    const succeededAt = s.now;
    s.now += 9 * MIN;
    expect(s.reason('clusters/hc001-np0')).toBe('waiting for the canaries: 0/1 succeeded and soaked 600s');
    expect(s.last.recheckAfterMs).toBe(succeededAt + 10 * MIN - s.now);
    s.now = succeededAt + 10 * MIN;
    expect(s.ask(keys(s.nodePools).slice(1))).toHaveLength(3);
  });
  test('a sliding window of maxConcurrency: a success frees a slot', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(8));
    const first = s.ask(keys(s.nodePools));
    expect(first).toHaveLength(3);
    expect(s.reason('clusters/hc005-np0')).toBe('maxConcurrency 3 reached (3 NodePools rolling)');
    doneAt(s.np(first[1]!), hashOf(first[1]!));
    expect(s.ask(keys(s.nodePools))).toEqual(['clusters/hc003-np0']);
    expect(s.rollingCount()).toBe(3);
  });
  test('halts when failures exceed maxFailures; those in flight finish; nothing starts until resumed', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(8));
    const [a] = s.ask(keys(s.nodePools));
    inPlaceFailed(s.np(a!));
    s.now += MIN;
    expect(s.ask(keys(s.nodePools))).toEqual(['clusters/hc003-np0']); // 1 failure ≤ maxFailures 1
    s.now += 3 * 3600_000; // b and the fourth pass their progress deadline
    s.run();
    expect(s.last.halted).toMatch(/^4 NodePools failed, more than maxFailures 1: clusters\/hc000-np0, clusters\/hc001-np0, clusters\/hc002-np0, clusters\/hc003-np0; first: UpdatingConfig InplaceUpgradeFailed/);
    expect(s.ask(keys(s.nodePools))).toEqual([]);
    expect(s.last.rows.find((r) => r.key === 'clusters/hc007-np0')).toMatchObject({ state: 'halted' });
    // Resume: past failures are acknowledged, the rollout goes on.
    s.control = { resume: 1 };
    expect(s.ask(keys(s.nodePools))).toHaveLength(3);
    expect(s.last.halted).toBeUndefined();
    expect(s.last.rows.find((r) => r.key === 'clusters/hc000-np0')!.reason).toMatch(/\(resumed past\)$/);
  });
  test('in flight when halted, a NodePool still finishes and is counted', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [], maxFailures: { n: 0 } }, fleet(4));
    const [a, b] = s.ask(keys(s.nodePools));
    inPlaceFailed(s.np(a!));
    s.run();
    expect(s.last.halted).toBeDefined();
    doneAt(s.np(b!), hashOf(b));
    s.run();
    expect(s.last.rows.find((r) => r.key === b)!.state).toBe('succeeded');
    expect(s.ask(keys(s.nodePools))).toEqual([]);
  });
  test('a failing canary halts before any other starts', () => {
    const s = new Sim(PROGRESSIVE, fleet(5, 1, 2));
    s.ask(keys(s.nodePools));
    inPlaceFailed(s.np('clusters/hc000-np0'));
    doneAt(s.np('clusters/hc001-np0'), hashOf('clusters/hc001-np0'));
    expect(s.ask(keys(s.nodePools))).toEqual([]);
    expect(s.last.halted).toBe('canary failed (canaries tolerate no failure): clusters/hc000-np0: UpdatingConfig InplaceUpgradeFailed: Node n1 in nodepool degraded: rebase failed');
  });
  test('progressDeadline fails a NodePool that never finishes (Replace has no other failure signal)', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [], maxFailures: { n: 5 } }, fleet(2));
    const [a] = s.ask(['clusters/hc000-np0']);
    s.now += 2 * 3600_000 - 1;
    s.run();
    expect(s.last.rows[0]!.state).toBe('rolling');
    expect(s.last.recheckAfterMs).toBe(1);
    s.now += 1;
    s.run();
    expect(s.last.rows[0]).toMatchObject({ key: a, state: 'failed', reason: 'progressDeadline 7200s passed: Updating config in progress. Target config: hclustershc000np0' });
  });
  test('a release change of a NodePool not yet on the layer obeys canaries and halts; one already on it only the bounds', () => {
    const s = new Sim(PROGRESSIVE, fleet(4, 1, 1));
    expect(s.reason('clusters/hc002-np0', 'release-change')).toBe('waiting for the canaries: 0/1 succeeded');
    s.ask(['clusters/hc000-np0']);
    doneAt(s.np('clusters/hc000-np0'), hashOf('clusters/hc000-np0'));
    s.run();
    expect(s.ask(['clusters/hc000-np0'], 'release-change', 'r2')).toEqual(['clusters/hc000-np0']);
  });
  test('pause stops every start; rollback admits only rollback writes, under the same bound', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(6));
    s.ask(keys(s.nodePools).slice(0, 2));
    s.control = { paused: { at: T0, by: 'alice' } };
    expect(s.reason('clusters/hc004-np0', 'release-change')).toBe('paused by alice at 2026-11-27T10:00:00.000Z; resume with on-cluster-build fleet-rollout resume');
    s.control = { rollback: { at: T0, by: 'alice' } };
    expect(s.reason('clusters/hc004-np0')).toMatch(/^rolled back by alice at 2026-11-27T10:00:00.000Z: layer L1 is not handed off again/);
    // The two rolling forward keep their slots; the bound (3) leaves one for a rollback write.
    expect(s.ask(['clusters/hc000-np0', 'clusters/hc001-np0', 'clusters/hc004-np0'], 'rollback', 'prev')).toEqual(['clusters/hc000-np0', 'clusters/hc001-np0', 'clusters/hc004-np0']);
    expect(s.ask(['clusters/hc005-np0'], 'rollback', 'prev')).toEqual([]);
  });
  test('asked again for the same write, the same answer (a conflict, a crash); an admission never written frees its slot', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [], maxConcurrency: { n: 1 } }, fleet(3));
    const p = s.run([{ key: 'clusters/hc000-np0', change: 'layer-change', target: 't' }]);
    expect(p.decisions.get('clusters/hc000-np0')).toEqual({ admit: true });
    expect(s.run([{ key: 'clusters/hc000-np0', change: 'layer-change', target: 't' }]).decisions.get('clusters/hc000-np0')).toEqual({ admit: true });
    expect(s.reason('clusters/hc001-np0')).toBe('maxConcurrency 1 reached (1 NodePools rolling)');
    s.now += 2 * MIN;
    expect(s.reason('clusters/hc001-np0')).toBeUndefined();
  });
  test('an admission whose write HyperShift is rolling counts as started even when its record was lost', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [], maxConcurrency: { n: 1 } }, fleet(3));
    s.run([{ key: 'clusters/hc000-np0', change: 'layer-change', target: 't' }]);
    rollingTo(s.np('clusters/hc000-np0'), 'h0'); // written; the process died before onRolloutStarted was recorded
    s.now += 2 * MIN;
    expect(s.reason('clusters/hc001-np0')).toBe('maxConcurrency 1 reached (1 NodePools rolling)');
    expect(s.state!.entries['clusters/hc000-np0']!.startedAt).toBe(T0);
  });
  test('a new layer is a new rollout', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [], maxFailures: { n: 0 } }, fleet(3));
    const [a] = s.ask(keys(s.nodePools));
    inPlaceFailed(s.np(a!));
    s.run();
    expect(s.last.halted).toBeDefined();
    s.layer = 'L2';
    doneAt(s.np(a!), 'x');
    expect(s.ask(keys(s.nodePools), 'layer-change', 't-L2')).toHaveLength(3);
  });
  test('the plan: canary waves first, each within both bounds, with an expected duration', () => {
    const s = new Sim({ ...PROGRESSIVE, maxConcurrency: { n: 2 }, minSuccessSeconds: 300 }, fleet(4, 2, 1));
    const p = s.run();
    expect(p.waves.map((w) => [w.canary, w.nodePools])).toEqual([
      [true, ['clusters/hc000-np0']],
      [true, ['clusters/hc000-np1']],
      [false, ['clusters/hc001-np0', 'clusters/hc002-np0']],
      [false, ['clusters/hc001-np1', 'clusters/hc002-np1']],
      [false, ['clusters/hc003-np0']],
      [false, ['clusters/hc003-np1']],
    ]);
    expect(p.expected).toEqual({ seconds: 6 * (1800 + 300), perNodePoolSeconds: 1800, basis: 'assumed 1800s per NodePool (none finished yet)' });
    expect(p.rows.find((r) => r.key === 'clusters/hc003-np1')).toMatchObject({ state: 'pending', wave: 6, reason: 'waiting for the canaries: 0/2 succeeded and soaked 300s' });
  });
  test('rollback goes canaries first, as the rollout did: another NodePool starts going back once every canary is back; one rolling forward is sent back at once; a canary whose rollback is not written does not hold the others', () => {
    // hc000, hc001: canaries; maxConcurrency 3.
    const s = new Sim(PROGRESSIVE, fleet(6, 1, 2));
    const from = { image: 'quay.example.com/os@sha256:old', releaseImage: 'r1' };
    const forwardAll = (ks: string[]) => {
      const p = s.run(ks.map((key) => ({ key, change: 'layer-change' as const, target: 't-L1', from })));
      const admitted = ks.filter((k) => p.decisions.get(k)?.admit);
      for (const k of admitted) {
        markStarted(s.state!, k, 't-L1', s.np(k), s.now);
        rollingTo(s.np(k), hashOf(k));
      }
      return admitted;
    };
    const [c0, c1, a, b, c, d] = keys(s.nodePools) as [string, string, string, string, string, string];
    expect(forwardAll([c0, c1])).toEqual([c0, c1]);
    for (const k of [c0, c1]) doneAt(s.np(k), hashOf(k));
    s.now += MIN;
    expect(forwardAll([a, b, c, d])).toEqual([a, b, c]);
    doneAt(s.np(a), hashOf(a));
    s.now += MIN;
    s.run();
    // Rolled back: a (done forward) waits for the canaries; b (rolling forward) goes back at once, in its own slot; the canaries take the free slots.
    s.control = { rollback: { at: s.now, by: 'sre' } };
    const back = (ks: string[]) => {
      const p = s.run(ks.map((key) => ({ key, change: 'rollback' as const, target: 'prev' })));
      for (const k of ks) if (p.decisions.get(k)?.admit) markStarted(s.state!, k, 'prev', s.np(k), s.now);
      return ks.filter((k) => p.decisions.get(k)?.admit);
    };
    expect(back([a, b])).toEqual([b]);
    expect(s.run([{ key: a, change: 'rollback', target: 'prev' }]).decisions.get(a)).toEqual({ admit: false, reason: 'rolling back the canaries first: 2 canary NodePool(s) not back yet' });
    expect(back([c0, c1])).toEqual([c0]); // the bound: b, c and c0 rolling
    // c0 back on the config it ran: c1 goes back; a still waits for it.
    s.np(c0).currentConfig = 'c0';
    s.np(c0).conditions = settled('c0');
    s.now += 3 * MIN;
    expect(back([a, c1])).toEqual([c1]);
    s.np(c1).currentConfig = 'c0';
    s.np(c1).conditions = settled('c0');
    s.now += 3 * MIN;
    expect(back([a])).toEqual([a]);
    // Without canaries' rollbacks to write (each skipped by the fleet), none waits.
    const t = new Sim(PROGRESSIVE, fleet(4, 1, 1));
    const p = t.run([{ key: 'clusters/hc000-np0', change: 'layer-change', target: 't-L1', from }]);
    expect(p.decisions.get('clusters/hc000-np0')).toEqual({ admit: true });
    t.control = { rollback: { at: t.now, by: 'sre' } };
    expect(t.reason('clusters/hc001-np0', 'rollback')).toBe('rolling back the canaries first: 1 canary NodePool(s) not back yet');
    const skipped = plan({ policy: PROGRESSIVE, layer: 'L1', now: t.now, nodePools: t.nodePools, state: t.state!, control: t.control, rollbackSkipped: new Set(['clusters/hc000-np0']), requests: [{ key: 'clusters/hc001-np0', change: 'rollback', target: 'prev' }] });
    expect(skipped.decisions.get('clusters/hc001-np0')).toEqual({ admit: true });
  });
  test('rollback targets: what each NodePool had before its first forward write of this rollout; kept across a crash', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(3));
    const from = { image: 'quay.example.com/os@sha256:old', releaseImage: 'r1' };
    s.run([{ key: 'clusters/hc000-np0', change: 'layer-change', target: 't1', from }, { key: 'clusters/hc001-np0', change: 'layer-change', target: 't1', from }]);
    // Rewritten again (a release change carrying the layer): the original stays the one to go back to.
    s.run([{ key: 'clusters/hc000-np0', change: 'release-change', target: 't2', from: { image: 'quay.example.com/os@sha256:new', releaseImage: 'r1' } }]);
    const again = decodeState(encodeState(s.state!));
    expect(again).toEqual(s.state);
    expect(again.previous).toEqual(['quay.example.com/os@sha256:old\nr1']);
    expect([...rollbackTargets(again)]).toEqual([
      ['clusters/hc000-np0', from],
      ['clusters/hc001-np0', from],
    ]);
    // Rolled back: admitted, its write refused (a conflict): still a target, the same answer when asked again; written: no target left for it.
    s.control = { rollback: { at: T0, by: 'sre' } };
    s.run([{ key: 'clusters/hc001-np0', change: 'rollback', target: 'back' }]);
    expect([...rollbackTargets(s.state)]).toEqual([
      ['clusters/hc000-np0', from],
      ['clusters/hc001-np0', from],
    ]);
    expect(s.run([{ key: 'clusters/hc001-np0', change: 'rollback', target: 'back' }]).decisions.get('clusters/hc001-np0')).toEqual({ admit: true });
    expect(rollbackTargets(decodeState(encodeState(s.state!))).get('clusters/hc001-np0')).toEqual(from);
    markStarted(s.state!, 'clusters/hc001-np0', 'back', s.np('clusters/hc001-np0'), s.now);
    expect([...rollbackTargets(s.state).keys()]).toEqual(['clusters/hc000-np0']);
  });
  test('a rollback of a NodePool still rolling forward is done once HyperShift is back on the config it ran (no new target ever shows); its slot goes to the rollback that waited for it', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(4));
    const [first, a, b, last] = keys(s.nodePools) as [string, string, string, string];
    expect(s.ask([first, a, b, last])).toEqual([first, a, b]);
    doneAt(s.np(first), hashOf(first));
    s.run();
    expect(s.ask([last])).toEqual([last]);
    s.control = { rollback: { at: s.now, by: 'sre' } };
    // The bound is full with three rolling forward: the finished one's rollback waits; the three keep their slots.
    const back = (ks: string[]) => {
      const p = s.run(ks.map((key) => ({ key, change: 'rollback' as const, target: 'prev' })));
      const admitted = ks.filter((k) => p.decisions.get(k)?.admit);
      for (const k of admitted) markStarted(s.state!, k, 'prev', s.np(k), s.now);
      return admitted;
    };
    expect(back([first])).toEqual([]);
    expect(s.last.decisions.get(first)).toEqual({ admit: false, reason: 'maxConcurrency 3 reached (3 NodePools rolling)' });
    expect(back([a, b, last])).toEqual([a, b, last]);
    // HyperShift reads the rollback: its target is the current config again, UpdatingConfig False, nothing else moves.
    for (const k of [a, b, last]) s.np(k).conditions = settled('c0');
    s.now += MIN;
    expect(s.run().rows.filter((r) => [a, b, last].includes(r.key)).map((r) => r.state)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(back([first])).toEqual([first]);
    // A finished NodePool's rollback is not done until the config it ran before is current again.
    s.now += MIN;
    expect(s.run().rows.find((r) => r.key === first)!.state).toBe('rolling');
    rollingTo(s.np(first), 'c0');
    expect(s.run().rows.find((r) => r.key === first)!.state).toBe('rolling');
    doneAt(s.np(first), 'c0');
    expect(s.run().rows.find((r) => r.key === first)!.state).toBe('succeeded');
    expect(s.state!.entries[first]!.expectConfig).toBe('c0');
    expect(decodeState(encodeState(s.state!))).toEqual(s.state);
  });
  test('a rollback of a write HyperShift never showed: a status unchanged since before both writes proves nothing until a reservation\'s time has passed', () => {
    const s = new Sim({ ...PROGRESSIVE, canaries: [] }, fleet(2));
    const [a] = keys(s.nodePools) as [string];
    s.run([{ key: a, change: 'layer-change', target: 't' }]);
    markStarted(s.state!, a, 't', s.np(a), s.now); // written; HyperShift has not reconciled since
    s.control = { rollback: { at: s.now, by: 'sre' } };
    s.run([{ key: a, change: 'rollback', target: 'prev' }]);
    markStarted(s.state!, a, 'prev', s.np(a), s.now);
    s.now += MIN;
    const p = s.run();
    expect(p.rows.find((r) => r.key === a)!.state).toBe('rolling');
    expect(p.recheckAfterMs).toBe(MIN);
    s.now += MIN;
    expect(s.run().rows.find((r) => r.key === a)!.state).toBe('succeeded');
  });
  test("emptying the stale hand-off of an unheld NodePool (its release's own OS) is a rollout: it takes a slot and obeys the bounds and a pause, not the canaries, a halt or a rollback", () => {
    const s = new Sim({ ...PROGRESSIVE, maxConcurrency: { n: 1 } }, fleet(3, 1, 1));
    const [canary, a, b] = keys(s.nodePools) as [string, string, string];
    expect(s.reason(a)).toBe('waiting for the canaries: 0/1 succeeded');
    expect(s.ask([a], 'neutralise', 'neutral')).toEqual([a]);
    expect(s.reason(b, 'neutralise')).toBe('maxConcurrency 1 reached (1 NodePools rolling)');
    expect(s.reason(canary, 'rollback')).toBe('maxConcurrency 1 reached (1 NodePools rolling)');
    s.control = { rollback: { at: s.now, by: 'sre' } };
    doneAt(s.np(a), hashOf(a));
    s.run();
    expect(s.reason(b, 'neutralise')).toBeUndefined();
    // Not the layer: no rollback target, and a canary emptied is no canary done.
    expect([...rollbackTargets(s.state).keys()]).toEqual([]);
    s.control = {};
    expect(s.ask([canary], 'neutralise', 'neutral')).toEqual([canary]);
    doneAt(s.np(canary), hashOf(canary));
    expect(s.run().summary.canariesDone).toBe(0);
    s.control = { paused: { at: s.now, by: 'alice' } };
    expect(s.reason(b, 'neutralise')).toMatch(/^paused by alice/);
    const ride = new Sim(DEFAULT_POLICY, fleet(2));
    expect(ride.reason('clusters/hc000-np0', 'layer-change')).toBe('RideReleaseChange: the new layer reaches this NodePool with its next release change');
    expect(ride.reason('clusters/hc000-np0', 'neutralise')).toBeUndefined();
    expect(decodeState(encodeState(s.state!))).toEqual(s.state);
  });
  test('percentages resolve over the NodePools in scope', () => {
    const s = new Sim(parsePolicy({ type: 'Progressive', maxConcurrency: '10%', maxConcurrencyPerHostedCluster: 5 }), fleet(25));
    expect(s.ask(keys(s.nodePools))).toHaveLength(3);
  });
});
