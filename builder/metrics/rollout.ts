/**
 * The provider layer's rollout as an SRE watches it: gauges read from the rollout engine's current
 * plan at each scrape (halted or not, NodePools and canaries by rollout state, waves still to go)
 * and Events on the rollout's ConfigMap in the fleet namespace when the plan crosses a milestone
 * (halted, resumed, canaries done, complete). The plan is read through its shape only
 * (builder/fleet/rollout/planner.ts `Plan`): this folder does not import the fleet.
 *
 * Events compare each plan with the one before it in this process. The first plan a process makes
 * writes RolloutHalted if it is halted (a state that needs someone), no milestone: a restarted
 * fleet does not announce canaries or completion again.
 */
import { bounded, METRICS, ROLLOUT_STATES } from './catalogue.js';
import { EventRecorder, EventReason, InvolvedObject } from './events.js';
import { Labels } from './registry.js';

/** What the metrics read of a plan. */
export interface RolloutPlanView {
  halted?: string;
  rows: readonly { state: string; canary?: boolean }[];
  /** Waves still to go (Progressive; empty while halted, paused or rolled back). */
  waves?: readonly unknown[];
}

export const ROLLOUT_METRICS = [METRICS.rolloutsHalted, METRICS.rolloutNodePools, METRICS.rolloutCanaries, METRICS.rolloutWaves];

function byState(rows: readonly { state: string }[]): [Labels, number][] {
  const counts = new Map<string, number>(ROLLOUT_STATES.map((s) => [s, 0]));
  for (const r of rows) {
    const s = bounded(ROLLOUT_STATES, r.state);
    counts.set(s, counts.get(s)! + 1);
  }
  return [...counts].map(([state, n]) => [{ state }, n]);
}

/** The scrape-time collectors of the rollout gauges (no plan yet: not halted, nothing counted). */
export function rolloutCollectors(current: () => RolloutPlanView | undefined): Record<string, () => [Labels, number][]> {
  return {
    [METRICS.rolloutsHalted.name]: () => [[{}, current()?.halted ? 1 : 0]],
    [METRICS.rolloutNodePools.name]: () => byState(current()?.rows ?? []),
    [METRICS.rolloutCanaries.name]: () => byState((current()?.rows ?? []).filter((r) => r.canary)),
    [METRICS.rolloutWaves.name]: () => [[{}, current()?.waves?.length ?? 0]],
  };
}

const counted = (p: RolloutPlanView, ...states: string[]) => p.rows.filter((r) => states.includes(r.state)).length;
const canariesDone = (p: RolloutPlanView) => p.rows.some((r) => r.canary) && p.rows.every((r) => !r.canary || r.state === 'succeeded');
const complete = (p: RolloutPlanView) => p.rows.length > 0 && p.rows.every((r) => r.state === 'succeeded');

/**
 * The Events of a new plan against the one before (none before: this process's first plan).
 * Messages are fixed words and counts: the halt's own reason names NodePools and carries
 * HyperShift's condition messages, which `on-cluster-build fleet-rollout` shows.
 */
export function rolloutEvents(p: RolloutPlanView, before: RolloutPlanView | undefined): [EventReason, string][] {
  const out: [EventReason, string][] = [];
  if (p.halted && !before?.halted) {
    out.push(['RolloutHalted', `the rollout halted with ${counted(p, 'failed')} NodePool(s) failed: nothing starts until \`on-cluster-build fleet-rollout resume\` or \`rollback\` (\`on-cluster-build fleet-status --plan\` says which failed and why)`]);
  }
  if (!before) return out;
  if (before.halted && !p.halted) out.push(['RolloutResumed', `the rollout resumed: ${counted(p, 'pending')} NodePool(s) pending, ${counted(p, 'rolling')} rolling`]);
  if (canariesDone(p) && !canariesDone(before)) out.push(['RolloutCanariesSucceeded', `every canary NodePool succeeded (${p.rows.filter((r) => r.canary).length}): the other waves may start`]);
  if (complete(p) && !complete(before)) out.push(['RolloutCompleted', `every NodePool is on the layer (${p.rows.length})`]);
  return out;
}

/** Writes a plan's Events on the rollout's ConfigMap. */
export class RolloutTelemetry {
  private last?: RolloutPlanView;
  constructor(private readonly events?: EventRecorder) {}

  planned(p: RolloutPlanView, configMap: { namespace: string; name: string }): void {
    const before = this.last;
    this.last = { ...(p.halted ? { halted: p.halted } : {}), rows: p.rows.map((r) => ({ state: r.state, ...(r.canary ? { canary: true } : {}) })) };
    if (!this.events) return;
    const obj: InvolvedObject = { apiVersion: 'v1', kind: 'ConfigMap', ...configMap };
    for (const [reason, message] of rolloutEvents(p, before)) this.events.event(obj, reason, message);
  }
}
