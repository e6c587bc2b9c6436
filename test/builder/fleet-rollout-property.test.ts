/**
 * The rollout planner under randomized schedules (fast-check): a fleet of NodePools in
 * HostedClusters, a random policy, and a random sequence of the gate asking, HyperShift finishing
 * or failing (InPlace) or hanging (Replace), time passing, the fleet process crashing (its state
 * re-read from what was persisted; the record of a write may be lost) and a human pausing,
 * resuming, rolling back. After EVERY step, against the simulation's own truth:
 * 1. NodePools rolling because of our writes ≤ maxConcurrency, and ≤ the per-HostedCluster bound;
 * 2. Progressive: no non-canary starts forward before every canary succeeded and soaked;
 * 3. after a halt, nothing starts forward until a resume;
 * plus: the persisted state always decodes to what was persisted (a crash resumes exactly).
 */
import fc from 'fast-check';
import type { RolloutChange } from '../../builder/fleet/gate.js';
import { markStarted, plan, RolloutControl, RolloutState } from '../../builder/fleet/rollout/planner.js';
import { parsePolicy, RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import type { NodePoolObservation } from '../../builder/fleet/rollout/progress.js';
import { decodeState, encodeState } from '../../builder/fleet/rollout/state.js';

const T0 = Date.parse('2026-11-27T10:00:00Z');

type Outcome = 'succeed' | 'fail' | 'hang';
interface Truth {
  writtenAt: number;
  finishAt: number;
  outcome: Outcome;
  forward: boolean;
  hash: string;
}

const policyArb = fc
  .record({
    type: fc.constantFrom('RideReleaseChange', 'Progressive'),
    maxConcurrency: fc.integer({ min: 1, max: 6 }),
    maxConcurrencyPerHostedCluster: fc.integer({ min: 1, max: 3 }),
    maxFailures: fc.integer({ min: 0, max: 3 }),
    minSuccessTime: fc.constantFrom('0', '300s', '20m'),
    progressDeadline: fc.constantFrom('None', '30m', '2h'),
    canaries: fc.boolean(),
  })
  .map((r) =>
    parsePolicy(
      r.type === 'Progressive'
        ? { type: r.type, maxConcurrency: r.maxConcurrency, maxConcurrencyPerHostedCluster: r.maxConcurrencyPerHostedCluster, maxFailures: r.maxFailures, minSuccessTime: r.minSuccessTime, progressDeadline: r.progressDeadline, ...(r.canaries ? { canaries: [{ matchLabels: { ring: 'canary' } }] } : {}) }
        : { type: r.type, maxConcurrency: r.maxConcurrency, maxConcurrencyPerHostedCluster: r.maxConcurrencyPerHostedCluster, progressDeadline: r.progressDeadline },
    ),
  );

const eventArb = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('ask' as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 8 }), change: fc.constantFrom<RolloutChange>('first-handoff', 'layer-change', 'release-change', 'rollback'), lose: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('time' as const), ms: fc.integer({ min: 1_000, max: 40 * 60_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constantFrom('pause' as const, 'unpause' as const, 'resume' as const, 'rollback' as const) }) },
);

type Ev = typeof eventArb extends fc.Arbitrary<infer T> ? T : never;

function check(policy: RolloutPolicy, hcs: number, perHc: number, canaryHcs: number, outcomes: Outcome[], durations: number[], events: Ev[]): void {
  const nodePools: NodePoolObservation[] = [];
  for (let i = 0; i < hcs; i++)
    for (let j = 0; j < perHc; j++)
      nodePools.push({ key: `ns/hc${i}-np${j}`, hostedCluster: `ns/hc${i}`, hostedClusterLabels: i < canaryHcs ? { ring: 'canary' } : {}, releaseImage: 'r1', generation: 1, currentConfig: 'c0', conditions: [] });
  const progressive = policy.type === 'Progressive';
  const isCanary = (o: NodePoolObservation) => progressive && policy.canaries.length > 0 && o.hostedClusterLabels.ring === 'canary';
  const truth = new Map<string, Truth>();
  let now = T0;
  let state: RolloutState | undefined;
  let persisted: string | undefined;
  let control: RolloutControl = {};
  let resumes = 0;
  let haltedSinceResume = false;
  let writes = 0;
  const soak = progressive ? policy.minSuccessSeconds * 1000 : 0;
  const deadline = policy.progressDeadlineSeconds === undefined ? Infinity : policy.progressDeadlineSeconds * 1000;

  /** HyperShift's status at `now` from the simulation's truth. */
  const observe = () => {
    for (const o of nodePools) {
      const t = truth.get(o.key);
      const ok = [
        { type: 'Ready', status: 'True', reason: 'AsExpected' },
        { type: 'AllMachinesReady', status: 'True', reason: 'AsExpected' },
        { type: 'AllNodesHealthy', status: 'True', reason: 'AsExpected' },
        { type: 'UpdatingVersion', status: 'False', reason: 'AsExpected', observedGeneration: 1 },
      ];
      if (!t || (t.outcome === 'succeed' && now >= t.finishAt)) {
        if (t) o.currentConfig = t.hash;
        o.conditions = [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, ...ok];
      } else if (t.outcome === 'fail' && now >= t.finishAt) o.conditions = [{ type: 'UpdatingConfig', status: 'False', reason: 'InplaceUpgradeFailed', message: 'degraded' }, ...ok];
      else o.conditions = [{ type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${t.hash}` }, ...ok];
    }
  };
  /** Rolling because of us, by the simulation's truth (a NodePool past the deadline has failed). */
  const rollingTruth = () => [...truth.entries()].filter(([, t]) => now < t.writtenAt + deadline && !(t.outcome !== 'hang' && now >= t.finishAt));
  const succeededTruth = (key: string) => {
    const t = truth.get(key);
    return t !== undefined && t.forward && t.outcome === 'succeed' && now >= t.finishAt + soak;
  };
  const run = (requests: { key: string; change: RolloutChange; target: string }[] = []) => {
    observe();
    const p = plan({ policy, layer: 'L', now, nodePools, ...(state ? { state } : {}), control, requests });
    state = p.state;
    if (p.halted) haltedSinceResume = true;
    if (p.changed) persisted = encodeState(state);
    return p;
  };

  for (const ev of events) {
    if (ev.kind === 'time') {
      now += ev.ms;
      run();
    } else if (ev.kind === 'crash') {
      // The process dies: what was persisted is all there is.
      state = persisted === undefined ? undefined : decodeState(persisted);
      if (persisted !== undefined) expect(encodeState(state!)).toBe(persisted);
      run();
    } else if (ev.kind === 'pause') control = { ...control, paused: { at: now, by: 'sre' } };
    else if (ev.kind === 'unpause') {
      const { paused: _, ...rest } = control;
      control = rest;
    } else if (ev.kind === 'resume') {
      control = { ...control, resume: ++resumes };
      run();
      haltedSinceResume = false;
    } else if (ev.kind === 'rollback') control = { ...control, rollback: { at: now, by: 'sre' } };
    else if (ev.kind === 'ask') {
      const keys = [...new Set(ev.picks.map((i) => nodePools[i % nodePools.length]!.key))].filter((k) => !truth.has(k) || ev.change === 'rollback' || ev.change === 'release-change');
      const target = `${ev.change}-${writes}`;
      const before = run();
      const canariesAllDone = nodePools.filter(isCanary).every((o) => succeededTruth(o.key));
      const wasHalted = before.halted !== undefined || haltedSinceResume;
      const p = run(keys.map((key) => ({ key, change: ev.change, target })));
      for (const key of keys) {
        if (!p.decisions.get(key)?.admit) continue;
        const o = nodePools.find((n) => n.key === key)!;
        const forward = ev.change !== 'rollback';
        // Property 2 and 3, at the moment of the write.
        if (progressive && forward && ev.change !== 'release-change') {
          if (!isCanary(o)) expect({ key, canariesAllDone }).toEqual({ key, canariesAllDone: true });
          expect({ key, wasHalted }).toEqual({ key, wasHalted: false });
        }
        if (!progressive && (ev.change === 'first-handoff' || ev.change === 'layer-change')) throw new Error(`RideReleaseChange admitted ${ev.change} for ${key}`);
        // The write; its record may be lost with a crash right after (lose).
        writes++;
        const w = writes;
        truth.set(key, { writtenAt: now, finishAt: now + durations[w % durations.length]!, outcome: outcomes[w % outcomes.length]!, forward, hash: `h${w}` });
        if (!ev.lose) {
          markStarted(state!, key, target, o, now);
          persisted = encodeState(state!);
        }
      }
    }
    // Property 1, after every step.
    const rolling = rollingTruth();
    const max = 'n' in policy.maxConcurrency ? policy.maxConcurrency.n : Infinity;
    expect(rolling.length).toBeLessThanOrEqual(max);
    const perHcCount = new Map<string, number>();
    for (const [k] of rolling) {
      const hc = k.slice(0, k.indexOf('-np'));
      perHcCount.set(hc, (perHcCount.get(hc) ?? 0) + 1);
    }
    for (const [hc, n] of perHcCount) expect({ hc, n: Math.min(n, policy.maxConcurrencyPerHostedCluster + 1) }).toEqual({ hc, n: Math.min(n, policy.maxConcurrencyPerHostedCluster) });
  }
}

describe('the rollout planner under random schedules', () => {
  test('bounds, canaries first and halts hold at every step, across crashes and human commands', () => {
    fc.assert(
      fc.property(
        policyArb,
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.array(fc.constantFrom<Outcome>('succeed', 'succeed', 'succeed', 'fail', 'hang'), { minLength: 1, maxLength: 12 }),
        fc.array(fc.integer({ min: 60_000, max: 3 * 3600_000 }), { minLength: 1, maxLength: 12 }),
        fc.array(eventArb, { minLength: 1, maxLength: 80 }),
        check,
      ),
      { numRuns: 300, seed: 20261127 },
    );
  });
});
