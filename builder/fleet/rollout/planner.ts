/**
 * The rollout planner: a PURE function from (policy, layer, the NodePools as observed, the
 * persisted state, the human's controls, now, the hand-offs the gate asks to write) to decisions
 * and the next state. No I/O, no clock: the same input gives the same output (the fleet process
 * (run.ts), the plan view (view.ts) and the simulated HyperShift's scenario tests all drive it).
 *
 * Input (`PlanInput`):
 * - `policy`: policy.ts RolloutPolicy. `layer`: the provider layer the fleet hands off now (a new
 *   layer starts a new rollout: entries, halt and acknowledgements reset; the human's controls stay).
 * - `nodePools`: every NodePool the fleet gates (progress.ts NodePoolObservation: HostedCluster and
 *   its labels, release, generation, nodePoolCurrentConfig, the tracked conditions, onLayer).
 * - `state`: what plan() returned last (persisted by state.ts; undefined at first).
 * - `control`: what the human asked (pause, resume counter, rollback), state.ts's control key.
 * - `requests`: the gate's asks, in order (gate.ts RolloutRequest reduced to key, change, target id).
 * - `now`: epoch milliseconds.
 * Output (`Plan`): `state` (persist it when `changed`), `decisions` per request key, a row per
 * NodePool (pending | rolling | succeeded | failed | halted | blocked, with a reason, canary or
 * not, its wave), the waves still to go with an expected duration, and `recheckAfterMs` (the next
 * moment time alone changes something: a soak ends, a deadline passes).
 * `markStarted` records the gate's successful write (onRolloutStarted).
 *
 * `plan` is three steps, exported for the engine: `advance` (entries, counts, halts: one pass over
 * the NodePools, giving a Ledger), `decide` (admission.ts: the requests, each in constant time
 * against the ledger, which it updates) and `view` (rows, waves, expected duration). The engine
 * decides against one ledger until something is observed or its `recheckAt` comes.
 *
 * Semantics (docs/design/fleet-rollout.md): "rolling" = admitted (a reservation, for at most
 * `reservationMs` until the write is seen) or written and not yet succeeded or failed. The bound
 * counts rolling NodePools (Progressive also counts those soaking in minSuccessTime, as OCM's
 * window does) per management cluster and per HostedCluster, for every change. Progressive:
 * canaries first and no other starts until each succeeded and soaked; a failed canary halts; more
 * than maxFailures failed non-canaries halt; halted, nothing forward starts until resumed (those in
 * flight go on). A human pause stops every start. Rollback admits only `rollback` changes.
 */
import type { RolloutChange, RolloutDecision } from '../gate.js';
import { resolveCount, RolloutPolicy, selectorMatches } from './policy.js';
import { NodePoolObservation, observedTargetConfig, progressOf } from './progress.js';
import { decide, whyNot } from './admission.js';
import { type AdmitRequest, clip, type Entry, forward, type Ledger, type RolloutControl, type RolloutState, rolling } from './ledger.js';

export { type AdmitRequest, clip, type Entry, forward, type Ledger, type RolloutControl, type RolloutState, rolling };

export interface PlanInput {
  policy: RolloutPolicy;
  layer: string;
  now: number;
  nodePools: NodePoolObservation[];
  state?: RolloutState;
  control?: RolloutControl;
  requests?: AdmitRequest[];
  /** How long an admission counts as rolling before its write is seen (default 120 s). */
  reservationMs?: number;
  /** After a rollback: canary NodePools whose rollback the fleet will not write (rollback.ts skipped it): the other rollbacks do not wait for them. */
  rollbackSkipped?: ReadonlySet<string>;
  /**
   * NodePools whose admission was answered and whose gate is still writing (in this process): their
   * reservation does not lapse until the write ends, so a slow write is never a NodePool the bound
   * stopped counting. The write's own request timeouts end it.
   */
  writing?: ReadonlySet<string>;
}

export type RowState = 'pending' | 'rolling' | 'succeeded' | 'failed' | 'halted' | 'blocked';

export interface PlanRow {
  key: string;
  hostedCluster: string;
  canary: boolean;
  state: RowState;
  reason?: string;
  /** 1-based wave for pending NodePools (canary waves first). */
  wave?: number;
}

export interface Wave {
  index: number;
  canary: boolean;
  nodePools: string[];
}

export interface Plan {
  state: RolloutState;
  changed: boolean;
  decisions: Map<string, RolloutDecision>;
  rows: PlanRow[];
  summary: Record<RowState, number> & { canaries: number; canariesDone: number; rollingNow: number; maxConcurrency: number };
  halted?: string;
  paused?: string;
  rolledBack?: string;
  waves: Wave[];
  /** Seconds until the last wave is expected done (Progressive), with how it was estimated. */
  expected?: { seconds: number; perNodePoolSeconds: number; basis: string };
  recheckAfterMs?: number;
}

const DEFAULT_RESERVATION_MS = 120_000;
/** Per-NodePool duration assumed before any NodePool of this rollout finished. */
export const ASSUMED_NODEPOOL_SECONDS = 1800;
const listKeys = (ks: string[], n = 5) => `${ks.slice(0, n).join(', ')}${ks.length > n ? ` and ${ks.length - n} more` : ''}`;

export function freshState(layer: string): RolloutState {
  return { layer, entries: {}, resumes: 0 };
}

function clone(s: RolloutState): RolloutState {
  const entries: Record<string, Entry> = {};
  for (const [k, e] of Object.entries(s.entries)) entries[k] = { ...e };
  return { layer: s.layer, entries, resumes: s.resumes, ...(s.halted ? { halted: { ...s.halted } } : {}), ...(s.previous ? { previous: [...s.previous] } : {}) };
}

/** Canary membership by HostedCluster key (`<namespace>/<name>`), kept across plans by a caller whose policy does not change; a HostedCluster's entry goes when its labels change. */
export type CanaryCache = Map<string, boolean>;

export function plan(input: PlanInput): Plan {
  const l = advance(input);
  return view(l, decide(l, input.requests ?? [], input.now));
}

/** Steps 1-3: the entries follow HyperShift, the counts, the halts. */
export function advance(input: PlanInput & { canaryCache?: CanaryCache }): Ledger {
  const { policy, now } = input;
  const progressive = policy.type === 'Progressive';
  const reservationMs = input.reservationMs ?? DEFAULT_RESERVATION_MS;
  let changed = false;
  let state: RolloutState;
  if (!input.state || input.state.layer !== input.layer) {
    state = freshState(input.layer);
    // A new layer is a new rollout; resumes asked before it are spent.
    state.resumes = input.state?.resumes ?? 0;
    changed = true;
  } else state = clone(input.state);
  const control = input.control ?? {};
  if ((control.resume ?? 0) > state.resumes) {
    state.resumes = control.resume!;
    if (state.halted) delete state.halted;
    for (const e of Object.values(state.entries)) if (e.failedAt !== undefined) e.acknowledged = true;
    changed = true;
  }

  const byKey = new Map(input.nodePools.map((o) => [o.key, o]));
  // Selectors are evaluated once per HostedCluster (its NodePools share its labels), not per NodePool per plan.
  const canaryCache = input.canaryCache ?? new Map<string, boolean>();
  const isCanary = (o: NodePoolObservation) => {
    if (!progressive) return false;
    let c = canaryCache.get(o.hostedCluster);
    if (c === undefined) {
      c = policy.canaries.some((s) => selectorMatches(s, o.hostedClusterLabels));
      canaryCache.set(o.hostedCluster, c);
    }
    return c;
  };
  let recheckAt: number | undefined;
  const at = (t: number) => {
    if (t > now && (recheckAt === undefined || t < recheckAt)) recheckAt = t;
  };
  // 1. Entries follow what HyperShift reports.
  const details = new Map<string, string>();
  for (const [key, e] of Object.entries(state.entries)) {
    const o = byKey.get(key);
    if (!o) {
      delete state.entries[key]; // the NodePool is gone
      changed = true;
      continue;
    }
    if (e.startedAt === undefined) {
      if (now - e.admittedAt < reservationMs) {
        at(e.admittedAt + reservationMs);
        continue;
      }
      if (input.writing?.has(key)) continue; // its end is observed (the engine advances again then)
      changed = true;
      if (observedTargetConfig(o) === undefined) {
        delete state.entries[key]; // admitted, never written: the slot is free again
        continue;
      }
      // HyperShift is rolling it: the write happened and its record was lost (a crash between the two).
      e.startedAt = e.admittedAt;
    }
    if (e.succeededAt !== undefined || e.failedAt !== undefined) continue;
    const t = observedTargetConfig(o);
    if (t !== undefined && t !== e.targetConfig) {
      e.targetConfig = t;
      changed = true;
    }
    // Back on the config it ran counts only from a status HyperShift wrote after the rollback: it had shown the undone write's target, or a reservation's time passed.
    const settledBack = e.expectConfig !== undefined && (e.undone !== undefined || now - e.startedAt >= reservationMs);
    if (e.expectConfig !== undefined && !settledBack) at(e.startedAt + reservationMs);
    const p = progressOf(o, { fromConfig: e.fromConfig, generation: e.generation, targetConfig: e.targetConfig, ...(settledBack ? { expectConfig: e.expectConfig } : {}), releaseChange: e.change === 'release-change' });
    if (p.state === 'succeeded') {
      e.succeededAt = now;
      changed = true;
    } else if (p.state === 'failed') {
      e.failedAt = now;
      e.reason = clip(p.reason);
      changed = true;
    } else if (policy.progressDeadlineSeconds !== undefined && now >= e.startedAt + policy.progressDeadlineSeconds * 1000) {
      e.failedAt = now;
      e.reason = clip(`progressDeadline ${policy.progressDeadlineSeconds}s passed: ${p.detail}`);
      changed = true;
    } else {
      details.set(key, p.detail);
      if (policy.progressDeadlineSeconds !== undefined) at(e.startedAt + policy.progressDeadlineSeconds * 1000);
    }
  }

  // 2. Counts.
  const soakEnd = (e: Entry) => soakEndOf(policy, progressive, e);

  const inWindow = (e: Entry) => rolling(e) || (e.succeededAt !== undefined && now < soakEnd(e));
  const maxConcurrency = resolveCount(policy.maxConcurrency, input.nodePools.length, 1);
  let windowUsed = 0;
  let rollingNow = 0;
  const perHc = new Map<string, number>();
  for (const [key, e] of Object.entries(state.entries)) {
    if (inWindow(e)) windowUsed++;
    if (e.succeededAt !== undefined && now < soakEnd(e)) at(soakEnd(e));
    if (rolling(e)) {
      rollingNow++;
      const hc = byKey.get(key)!.hostedCluster;
      perHc.set(hc, (perHc.get(hc) ?? 0) + 1);
    }
  }
  const canaries = input.nodePools.filter(isCanary);
  const canaryDone = (o: NodePoolObservation) => {
    const e = state.entries[o.key];
    return e ? e.succeededAt !== undefined && now >= soakEnd(e) && forward(e.change) : o.onLayer === true;
  };
  const canariesDone = canaries.filter(canaryDone).length;

  // Rollback, canaries first (as forward): a canary changed forward and not yet back, or going back now.
  let canaryRollbacksLeft = 0;
  if (progressive && control.rollback) {
    for (const [key, e] of Object.entries(state.entries)) {
      if (!e.canary) continue;
      const owed = forward(e.change) && e.from !== undefined && state.previous?.[e.from] !== undefined && !input.rollbackSkipped?.has(key);
      if (owed || (e.change === 'rollback' && rolling(e))) canaryRollbacksLeft++;
    }
  }

  // 3. Halts (Progressive, forward): a failed canary, or more than maxFailures failed others.
  if (progressive && !state.halted && !control.rollback) {
    const failed = Object.entries(state.entries).filter(([, e]) => e.failedAt !== undefined && !e.acknowledged && forward(e.change));
    const failedCanaries = failed.filter(([, e]) => e.canary);
    const failedOthers = failed.filter(([, e]) => !e.canary);
    const maxFailures = resolveCount(policy.maxFailures, Math.max(0, input.nodePools.length - canaries.length), 0);
    if (failedCanaries.length) {
      state.halted = { at: now, reason: clip(`canary failed (canaries tolerate no failure): ${failedCanaries.map(([k, e]) => `${k}: ${e.reason ?? 'failed'}`).slice(0, 3).join('; ')}`) };
      changed = true;
    } else if (failedOthers.length > maxFailures) {
      state.halted = { at: now, reason: clip(`${failedOthers.length} NodePools failed, more than maxFailures ${maxFailures}: ${listKeys(failedOthers.map(([k]) => k))}; first: ${failedOthers[0]![1].reason ?? 'failed'}`) };
      changed = true;
    }
  }

  const pausedWhy = control.paused ? `paused by ${control.paused.by} at ${new Date(control.paused.at).toISOString()}; resume with on-cluster-build fleet-rollout resume` : undefined;
  const rolledBackWhy = control.rollback ? `rolled back by ${control.rollback.by} at ${new Date(control.rollback.at).toISOString()}: layer ${input.layer} is not handed off again until a new layer is configured` : undefined;
  const haltedWhy = state.halted ? `rollout halted: ${state.halted.reason}; resume or roll back with on-cluster-build fleet-rollout` : undefined;
  return {
    policy,
    progressive,
    reservationMs,
    now,
    state,
    changed,
    control,
    nodePools: input.nodePools,
    byKey,
    isCanary,
    details,
    ...(recheckAt !== undefined ? { recheckAt } : {}),
    windowUsed,
    rollingNow,
    perHc,
    maxConcurrency,
    canaries: canaries.length,
    canariesDone,
    canaryRollbacksLeft,
    ...(pausedWhy ? { pausedWhy } : {}),
    ...(rolledBackWhy ? { rolledBackWhy } : {}),
    ...(haltedWhy ? { haltedWhy } : {}),
  };
}

export const soakEndOf = (policy: RolloutPolicy, progressive: boolean, e: Entry) => (e.succeededAt ?? 0) + (progressive ? policy.minSuccessSeconds * 1000 : 0);

/** Step 5: rows, waves and the expected duration, as of the ledger's time. */
export function view(l: Ledger, decisions: Map<string, RolloutDecision> = new Map()): Plan {
  const { policy, progressive, state, control, now, isCanary, haltedWhy, pausedWhy, rolledBackWhy, maxConcurrency } = l;
  const soakEnd = (e: Entry) => soakEndOf(policy, progressive, e);
  const why = (o: NodePoolObservation, change: RolloutChange) => whyNot(l, o, change);
  const details = l.details;
  // 5. Rows and waves.
  const rows: PlanRow[] = [];
  const waiting: NodePoolObservation[] = [];
  for (const o of [...l.nodePools].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const e = state.entries[o.key];
    const canary = isCanary(o);
    const row = (s: RowState, reason?: string): PlanRow => ({ key: o.key, hostedCluster: o.hostedCluster, canary, state: s, ...(reason ? { reason: clip(reason) } : {}) });
    if (e && e.failedAt !== undefined) rows.push(row('failed', `${e.reason ?? 'failed'}${e.acknowledged ? ' (resumed past)' : ''}`));
    else if (e && e.succeededAt !== undefined) rows.push(row('succeeded', now < soakEnd(e) ? `soaking until ${new Date(soakEnd(e)).toISOString()}` : undefined));
    else if (e && e.startedAt === undefined) rows.push(row('rolling', `${e.change} admitted; the hand-off is being written`));
    else if (e) rows.push(row('rolling', `${e.change}: ${details.get(o.key) ?? ''}`));
    else if (o.onLayer) rows.push(row('succeeded', 'already on the layer'));
    else {
      const no = why(o, 'layer-change');
      if (no && (no === haltedWhy)) rows.push(row('halted', no));
      else if (no && (no === pausedWhy || no === rolledBackWhy || !progressive)) rows.push(row('blocked', no));
      else {
        rows.push(row('pending', no));
        waiting.push(o);
      }
    }
  }
  const waves: Wave[] = [];
  if (progressive && !state.halted && !control.paused && !control.rollback) {
    const wavesOf = (list: NodePoolObservation[], canary: boolean) => {
      let rest = list;
      while (rest.length) {
        const take: string[] = [];
        const hc = new Map<string, number>();
        const left: NodePoolObservation[] = [];
        for (const o of rest) {
          if (take.length < maxConcurrency && (hc.get(o.hostedCluster) ?? 0) < policy.maxConcurrencyPerHostedCluster) {
            take.push(o.key);
            hc.set(o.hostedCluster, (hc.get(o.hostedCluster) ?? 0) + 1);
          } else left.push(o);
        }
        waves.push({ index: waves.length + 1, canary, nodePools: take });
        rest = left;
      }
    };
    wavesOf(waiting.filter(isCanary), true);
    wavesOf(waiting.filter((o) => !isCanary(o)), false);
    const waveOf = new Map<string, number>();
    for (const w of waves) for (const k of w.nodePools) waveOf.set(k, w.index);
    for (const r of rows) if (waveOf.has(r.key)) r.wave = waveOf.get(r.key);
  }
  let expected: Plan['expected'];
  if (progressive) {
    const took = Object.values(state.entries)
      .filter((e) => e.succeededAt !== undefined && e.startedAt !== undefined)
      .map((e) => (e.succeededAt! - e.startedAt!) / 1000)
      .sort((a, b) => a - b);
    const per = took.length ? took[Math.floor(took.length / 2)]! : ASSUMED_NODEPOOL_SECONDS;
    const inFlight = rows.some((r) => r.state === 'rolling') ? 1 : 0;
    expected = {
      seconds: Math.round((waves.length + inFlight) * (per + policy.minSuccessSeconds)),
      perNodePoolSeconds: Math.round(per),
      basis: took.length ? `median of ${took.length} NodePool(s) of this rollout` : `assumed ${ASSUMED_NODEPOOL_SECONDS}s per NodePool (none finished yet)`,
    };
  }
  const summary = { pending: 0, rolling: 0, succeeded: 0, failed: 0, halted: 0, blocked: 0, canaries: l.canaries, canariesDone: l.canariesDone, rollingNow: l.rollingNow, maxConcurrency };
  for (const r of rows) summary[r.state]++;
  return {
    state,
    changed: l.changed,
    decisions,
    rows,
    summary,
    ...(state.halted ? { halted: state.halted.reason } : {}),
    ...(pausedWhy ? { paused: pausedWhy } : {}),
    ...(rolledBackWhy ? { rolledBack: rolledBackWhy } : {}),
    waves,
    ...(expected ? { expected } : {}),
    ...(l.recheckAt !== undefined ? { recheckAfterMs: l.recheckAt - now } : {}),
  };
}

/**
 * After `fleet-rollout rollback`: what each NodePool changed forward by this rollout goes back to
 * (the hand-off it had before), until its rollback write is recorded (an admitted rollback whose
 * write was refused stays a target).
 */
export function rollbackTargets(state: RolloutState | undefined): Map<string, { image: string; releaseImage: string }> {
  const out = new Map<string, { image: string; releaseImage: string }>();
  for (const [k, e] of Object.entries(state?.entries ?? {})) {
    // Changed forward, or a rollback admitted whose write is not recorded yet (a refused write is retried).
    const owed = forward(e.change) || (e.change === 'rollback' && e.startedAt === undefined && e.succeededAt === undefined && e.failedAt === undefined);
    if (!owed || e.from === undefined) continue;
    const text = state!.previous?.[e.from];
    if (text === undefined) continue;
    const i = text.indexOf('\n');
    out.set(k, { image: text.slice(0, i), releaseImage: text.slice(i + 1) });
  }
  return out;
}

/** The gate's write succeeded: the entry starts rolling from what the NodePool shows now. */
export function markStarted(state: RolloutState, key: string, target: string, o: NodePoolObservation | undefined, now: number): boolean {
  const e = state.entries[key];
  if (!e || e.target !== target || e.startedAt !== undefined) return false;
  e.startedAt = now;
  if (o?.currentConfig !== undefined) e.fromConfig = o.currentConfig;
  if (o?.generation !== undefined) e.generation = o.generation;
  return true;
}
