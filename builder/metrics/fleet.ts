/**
 * The fleet component's metrics and Events: holds in force and the age of the oldest (from the
 * NodePools the fleet watches: the gate's own annotations), the gate's actions and the states its
 * passes settle in, and the provider layer's builds (requests deduplicated, outcomes, in flight).
 *
 * `StateGauge` is the machinery for "how many objects are in each state": one entry per object,
 * bounded by the objects the process already tracks, exported as counts per state (a fixed enum),
 * forgotten when the object goes. The rollout's gauges and Events are rollout.ts's, read from the
 * rollout engine's plan.
 */
import { bounded, GATE_ACTIONS, GATE_STATES, METRICS, MetricSpec } from './catalogue.js';
import { EventRecorder, EventReason, InvolvedObject } from './events.js';
import { Labels, Metrics } from './registry.js';
import { ADMISSION_METRICS } from './admission.js';
import { rolloutCollectors, RolloutPlanView, RolloutTelemetry, ROLLOUT_METRICS } from './rollout.js';

export class StateGauge<S extends readonly string[]> {
  private readonly states = new Map<string, S[number]>();
  constructor(private readonly allowed: S) {}
  set(key: string, state: string): void {
    this.states.set(key, bounded(this.allowed, state));
  }
  forget(key: string): void {
    this.states.delete(key);
  }
  /** Every state with its count (0 for none), for a gauge's collect. */
  counts(label: string): [Labels, number][] {
    const n = new Map<string, number>(this.allowed.map((s) => [s, 0]));
    for (const s of this.states.values()) n.set(s, (n.get(s) ?? 0) + 1);
    return [...n].map(([s, c]) => [{ [label]: s }, c]);
  }
}

/** The gate's annotations on a NodePool (builder/fleet/gate.ts writes them). */
export interface HoldAnnotations {
  pausedFor: string;
  heldSince: string;
}

export const FLEET_METRICS: MetricSpec[] = [
  METRICS.holds,
  METRICS.holdOldestAge,
  METRICS.holdBound,
  METRICS.gateActions,
  METRICS.gateStates,
  METRICS.buildRequests,
  METRICS.fleetBuildsFinished,
  METRICS.fleetBuilds,
  ...ROLLOUT_METRICS,
  METRICS.eventsDropped,
  // Its mutating webhook shares the admission server (builder/webhook/server.ts).
  ...ADMISSION_METRICS,
];

const NODEPOOL = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };

export class FleetTelemetry {
  readonly metrics: Metrics;
  /** NodePool key → since when the gate holds it (ms). */
  private readonly holds = new Map<string, number>();
  private readonly gate = new StateGauge(GATE_STATES);

  constructor(o: {
    maxHoldSeconds: number;
    now: () => number;
    /** Builds queued and running now (the build registry's stats). */
    builds?: () => { queued: number; running: number };
    events?: EventRecorder;
    processMetrics?: boolean;
  }) {
    this.events = o.events;
    this.rolloutEvents = new RolloutTelemetry(o.events);
    this.metrics = new Metrics(FLEET_METRICS, {
      processMetrics: o.processMetrics,
      collectors: {
        [METRICS.holds.name]: () => [[{}, this.holds.size]],
        [METRICS.holdOldestAge.name]: () => {
          let oldest = Infinity;
          for (const t of this.holds.values()) oldest = Math.min(oldest, t);
          return [[{}, Number.isFinite(oldest) ? Math.max(0, (o.now() - oldest) / 1000) : 0]];
        },
        [METRICS.holdBound.name]: () => [[{}, o.maxHoldSeconds]],
        [METRICS.gateStates.name]: () => this.gate.counts('state'),
        ...rolloutCollectors(() => this.rollout?.()),
        [METRICS.fleetBuilds.name]: () => {
          const s = o.builds?.() ?? { queued: 0, running: 0 };
          return [
            [{ state: 'Queued' }, s.queued],
            [{ state: 'Running' }, s.running],
          ];
        },
      },
    });
    this.metrics.zero(METRICS.gateActions);
    this.metrics.zero(METRICS.buildRequests);
    this.metrics.zero(METRICS.fleetBuildsFinished);
  }
  private readonly events?: EventRecorder;
  private readonly rolloutEvents: RolloutTelemetry;
  /** The rollout's current plan, once the fleet has an engine. */
  private rollout?: () => RolloutPlanView | undefined;

  /** Where the rollout gauges are read at each scrape (the rollout engine's current plan). */
  watchRollout(current: () => RolloutPlanView | undefined): void {
    this.rollout = current;
  }

  /** Each plan the rollout engine makes: its milestones as Events on the rollout's ConfigMap. */
  rolloutPlanned(p: RolloutPlanView, configMap: { namespace: string; name: string }): void {
    this.rolloutEvents.planned(p, configMap);
  }

  /** A NodePool as the fleet's watch sees it (deleted: gone). Its hold, if the gate's annotations say so. */
  nodePool(key: string, hold: HoldAnnotations | undefined): void {
    if (!hold) {
      this.holds.delete(key);
      return;
    }
    const since = Date.parse(hold.heldSince);
    this.holds.set(key, Number.isFinite(since) ? since : 0);
  }

  /** One gate pass: its actions and where it settled. */
  gateSettled(key: string, steps: ({ did: string; message: string; routine?: true } | { state: string; message: string })[]): void {
    for (const s of steps) {
      if ('did' in s) {
        this.metrics.inc(METRICS.gateActions, { action: bounded(GATE_ACTIONS, s.did) });
        const reason = GATE_EVENTS[s.did];
        // A routine lift (a hold the NodePool never gave a reason for, so no UpgradeHeld either) is counted, not told: at fleet scale one Event per NodePool per upgrade is etcd's load and noise.
        if (reason && !s.routine) this.events?.event(nodePoolRef(key), reason, GATE_EVENT_TEXT[reason]);
      }
    }
    const last = steps[steps.length - 1];
    if (last && 'state' in last) this.gate.set(key, last.state);
  }

  forgetNodePool(key: string): void {
    this.holds.delete(key);
    this.gate.forget(key);
  }

  buildRequested(outcome: 'Started' | 'Deduplicated' | 'FailedRecently' | 'Invalid'): void {
    this.metrics.inc(METRICS.buildRequests, { outcome });
  }

  buildFinished(ok: boolean): void {
    this.metrics.inc(METRICS.fleetBuildsFinished, { result: ok ? 'Succeeded' : 'Failed' });
  }
}

/** The gate's actions that tell a NodePool's owner something, as Events on the NodePool. */
const GATE_EVENTS: Record<string, EventReason> = {
  Paused: 'UpgradeHeld',
  Unpaused: 'UpgradeReleased',
  TimedOut: 'UpgradeGateTimedOut',
  Overridden: 'UpgradeHoldOverridden',
};
/** Fixed words: the gate's own message can name registries and releases, the annotation on the NodePool carries it. */
const GATE_EVENT_TEXT: Record<EventReason, string> = {
  UpgradeHeld: 'the upgrade is held until the OS image for the new release is built (its gate-reason annotation says why)',
  UpgradeReleased: 'the OS image for the release is handed off: hold lifted',
  UpgradeGateTimedOut: 'held for the longest allowed: hold lifted, the release rolls out with the previous image until its own lands',
  UpgradeHoldOverridden: 'the hold was lifted by someone else: not held again for this release',
} as Record<EventReason, string>;

function nodePoolRef(key: string): InvolvedObject {
  const i = key.indexOf('/');
  return { ...NODEPOOL, namespace: key.slice(0, i), name: key.slice(i + 1) };
}
