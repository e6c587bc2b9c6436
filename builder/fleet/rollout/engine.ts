/**
 * The rollout engine of the fleet process: the planner (planner.ts) over an in-memory view of the
 * fleet, fed by the fleet's watches (run.ts: NodePools with the status the planner reads,
 * HostedCluster labels, the rollout ConfigMap's control key), with its state kept in the cluster
 * (state.ts). It answers the gate's admitRollout (after the admission is persisted) and records
 * onRolloutStarted; `tick()` re-plans when NodePools report progress or time passes, persists
 * transitions, and tells the caller when a slot or a human's command may let a deferred NodePool go.
 *
 * Memory: one trimmed observation per NodePool (names, release, generation, the current-config
 * annotation, the five conditions with messages cut to 256 characters) and one label map per
 * HostedCluster (at most 64 labels, values cut), so 2,000 NodePools stay within a few MB.
 */
import type { KubeObject, Resource } from '../../clusters/kube.js';
import type { RolloutDecision, RolloutRequest } from '../gate.js';
import { advance, CanaryCache, Ledger, markStarted, Plan, rollbackTargets, RolloutControl, RolloutState, view } from './planner.js';
import { decide } from './admission.js';
import type { RolloutPolicy } from './policy.js';
import { CURRENT_CONFIG_ANNOTATION, MAX_CONDITION_MESSAGE, NodePoolObservation, ObservedCondition, TRACKED_CONDITIONS } from './progress.js';
import { RolloutStore, targetId } from './state.js';
import { HELD_SINCE_ANNOTATION, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION } from '../gate-names.js';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

const MAX_LABELS = 64;

export const HOSTED_CLUSTERS: Resource = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true };

type Np = KubeObject & {
  metadata: { generation?: number };
  spec?: { clusterName?: string; release?: { image?: string }; pausedUntil?: unknown };
  status?: { version?: string; conditions?: { type?: string; status?: string; reason?: string; message?: string; observedGeneration?: number }[] };
};

/** What of a NodePool the fleet keeps (the watch's trim; the gate's own fields too). */
export function trimNodePool(x: KubeObject): KubeObject {
  const np = x as Np;
  const spec = np.spec as (Np['spec'] & { arch?: unknown; osImageStream?: { name?: unknown } }) | undefined;
  const current = np.metadata.annotations?.[CURRENT_CONFIG_ANNOTATION];
  // The gate's hold (metrics: holds in force and their age), clipped.
  const a = np.metadata.annotations ?? {};
  const hold =
    a[PAUSED_FOR_ANNOTATION] !== undefined
      ? { [PAUSED_FOR_ANNOTATION]: a[PAUSED_FOR_ANNOTATION].slice(0, 512), [HELD_SINCE_ANNOTATION]: (a[HELD_SINCE_ANNOTATION] ?? '').slice(0, 64), ...(a[PAUSED_UNTIL_ANNOTATION] !== undefined ? { [PAUSED_UNTIL_ANNOTATION]: a[PAUSED_UNTIL_ANNOTATION].slice(0, 64) } : {}) }
      : undefined;
  const conditions = (np.status?.conditions ?? [])
    .filter((c) => (TRACKED_CONDITIONS as readonly string[]).includes(c.type ?? ''))
    .map((c) => ({
      type: c.type,
      status: c.status,
      ...(typeof c.reason === 'string' ? { reason: c.reason.slice(0, 128) } : {}),
      ...(typeof c.message === 'string' ? { message: c.message.slice(0, MAX_CONDITION_MESSAGE) } : {}),
      ...(typeof c.observedGeneration === 'number' ? { observedGeneration: c.observedGeneration } : {}),
    }));
  return {
    apiVersion: np.apiVersion,
    kind: np.kind,
    metadata: {
      name: np.metadata.name,
      namespace: np.metadata.namespace,
      ...(np.metadata.generation !== undefined ? { generation: np.metadata.generation } : {}),
      ...(typeof current === 'string' || hold ? { annotations: { ...(typeof current === 'string' ? { [CURRENT_CONFIG_ANNOTATION]: current.slice(0, 128) } : {}), ...hold } } : {}),
    },
    spec: {
      clusterName: spec?.clusterName,
      arch: spec?.arch,
      ...(spec?.osImageStream?.name !== undefined ? { osImageStream: { name: spec.osImageStream.name } } : {}),
      ...(typeof spec?.release?.image === 'string' ? { release: { image: spec.release.image } } : {}),
      ...(typeof spec?.pausedUntil === 'string' ? { pausedUntil: spec.pausedUntil.slice(0, 64) } : {}),
    },
    status: { ...(typeof np.status?.version === 'string' ? { version: np.status.version.slice(0, 128) } : {}), conditions },
  } as KubeObject;
}

export function trimHostedCluster(x: KubeObject): KubeObject {
  const labels = Object.fromEntries(Object.entries(x.metadata.labels ?? {}).slice(0, MAX_LABELS).map(([k, v]) => [k.slice(0, 316), String(v).slice(0, 63)]));
  return { apiVersion: x.apiVersion, kind: x.kind, metadata: { name: x.metadata.name, namespace: x.metadata.namespace, labels } };
}

/** A NodePool (trimmed by trimNodePool) as the planner sees it; undefined without a spec.clusterName. */
export function observationOf(obj: KubeObject, hostedClusterLabels: Record<string, string>): NodePoolObservation | undefined {
  const np = obj as Np;
  if (!np.spec?.clusterName || !obj.metadata.namespace || !obj.metadata.name) return undefined;
  return {
    key: `${obj.metadata.namespace}/${obj.metadata.name}`,
    hostedCluster: `${obj.metadata.namespace}/${np.spec.clusterName}`,
    hostedClusterLabels,
    ...(np.spec.release?.image ? { releaseImage: np.spec.release.image } : {}),
    ...(np.metadata.generation !== undefined ? { generation: np.metadata.generation } : {}),
    ...(np.metadata.annotations?.[CURRENT_CONFIG_ANNOTATION] !== undefined ? { currentConfig: np.metadata.annotations[CURRENT_CONFIG_ANNOTATION] } : {}),
    ...(np.status?.version !== undefined ? { version: np.status.version } : {}),
    conditions: (np.status?.conditions ?? []) as ObservedCondition[],
  };
}

export interface RolloutEngineOptions {
  policy: RolloutPolicy;
  layer: string;
  store: RolloutStore;
  now: () => number;
  log?: Log;
  /** A re-plan may let deferred NodePools start (a slot freed, a resume): settle them again. */
  onMayStart?: () => void;
  /** Every new plan (metrics and Events). */
  onPlan?: (p: Plan) => void;
  /** A progress save (saveSoon) failed: tick again later, which writes the state. */
  onUnsaved?: () => void;
}

export class RolloutEngine {
  private readonly nodePools = new Map<string, NodePoolObservation>();
  private readonly hostedClusterLabels = new Map<string, Record<string, string>>();
  /** Canary membership by HostedCluster (the policy is fixed): selectors run once per HostedCluster and label change. */
  private readonly canaryCache: CanaryCache = new Map();
  private state: RolloutState | undefined;
  private control: RolloutControl = {};
  /** The rollout as last advanced, with the admissions since: requests are decided against it. */
  private ledger: Ledger | undefined;
  /** The view of `ledger` (rows, waves), made when asked. */
  private last: Plan | undefined;
  /** Something was observed (or a write recorded) since `ledger`: advance again before deciding. */
  private dirty = true;
  /** The observations as the planner takes them (undefined: rebuild). */
  private list: NodePoolObservation[] | undefined;
  /** The policy the fleet runs is written with the first save (the plan view reads it). */
  private saved = false;
  private passes = 0;
  /** Canaries whose rollback the fleet does not write (rollback.ts skipped it): the other rollbacks do not wait for them. */
  private readonly skipped = new Set<string>();
  /** Admitted NodePools whose gate is still writing (planner.ts `writing`). */
  private readonly writing = new Set<string>();
  /** Which full lists arrived: until both, the view is partial (a NodePool missing from it is not gone). */
  private readonly lists = new Set<'nodePools' | 'hostedClusters'>();

  constructor(private readonly o: RolloutEngineOptions) {}

  /** The persisted state and control, read once at the start of leadership. */
  load(state: RolloutState | undefined, control: RolloutControl): void {
    this.state = state;
    this.control = control;
    this.dirty = true;
  }

  /** A full list of NodePools or HostedClusters was observed. */
  listed(what: 'nodePools' | 'hostedClusters'): void {
    this.lists.add(what);
    this.dirty = true;
  }

  /** Passes over every NodePool so far (planner.ts advance): one per change observed, not one per request (tests, benches). */
  get advances(): number {
    return this.passes;
  }

  get synced(): boolean {
    return this.lists.size === 2;
  }

  setControl(c: RolloutControl): void {
    this.control = c;
    this.dirty = true;
  }

  /** From the NodePool watch (objects trimmed by trimNodePool). */
  observeNodePool(obj: KubeObject, deleted: boolean): void {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const o = deleted ? undefined : observationOf(obj, {});
    if (!o) {
      if (this.nodePools.delete(key)) this.dirty = true;
      this.list = undefined;
      return;
    }
    o.hostedClusterLabels = this.hostedClusterLabels.get(o.hostedCluster) ?? NO_LABELS;
    this.nodePools.set(key, o);
    this.list = undefined;
    this.dirty = true;
  }

  /** From the HostedCluster watch (labels only). */
  observeHostedCluster(obj: KubeObject, deleted: boolean): void {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    const before = this.hostedClusterLabels.get(key);
    const labels = deleted ? undefined : { ...(obj.metadata.labels ?? {}) };
    if (labels) this.hostedClusterLabels.set(key, labels);
    else this.hostedClusterLabels.delete(key);
    if (sameLabels(before, labels)) return;
    this.canaryCache.delete(key);
    for (const o of this.nodePools.values()) if (o.hostedCluster === key) o.hostedClusterLabels = labels ?? NO_LABELS;
    this.list = undefined;
    this.dirty = true;
  }

  private observations(): NodePoolObservation[] {
    return (this.list ??= [...this.nodePools.values()]);
  }

  /** Follows what was observed and the time (planner.ts advance); tells the caller when a deferred NodePool may start now. */
  private advance(now: number): Ledger {
    const before = this.ledger;
    this.passes++;
    const l = advance({ policy: this.o.policy, layer: this.o.layer, now, nodePools: this.observations(), ...(this.state ? { state: this.state } : {}), control: this.control, canaryCache: this.canaryCache, rollbackSkipped: this.skipped, writing: this.writing });
    this.state = l.state;
    this.ledger = l;
    this.last = undefined;
    this.dirty = false;
    if (l.state.halted && !before?.state.halted) this.o.log?.('rollout halted', { reason: l.state.halted.reason });
    if (before && mayStartMore(before, l)) this.o.onMayStart?.();
    return l;
  }

  /** The ledger at `now`: advanced again only when something was observed or time passed its recheck. */
  private at(now: number): Ledger {
    const l = this.ledger;
    if (!l || this.dirty || now < l.now || (l.recheckAt !== undefined && now >= l.recheckAt)) return this.advance(now);
    return l;
  }

  /** The view of the ledger (rows, waves, summary), handed to onPlan once per ledger. */
  private viewed(): Plan {
    if (!this.last) {
      this.last = view(this.ledger!);
      this.o.onPlan?.(this.last);
    }
    return this.last;
  }

  /**
   * The gate's question: admitted only once the admission is in the cluster. `from`: what the
   * NodePool's provider-only hand-off carries now (kept for a rollback).
   */
  async admit(r: RolloutRequest, from?: { image: string; releaseImage: string }): Promise<RolloutDecision> {
    // Planning on a partial view would drop the state of NodePools not seen yet, and misplace canaries.
    if (!this.synced) return { admit: false, reason: 'the fleet has not listed every NodePool and HostedCluster yet' };
    const target = targetId(r.image, r.releaseImage);
    const now = this.o.now();
    const l = this.at(now);
    const wasChanged = l.changed;
    l.changed = false;
    const d = decide(l, [{ key: r.key, change: r.change, target, ...(from ? { from } : {}) }], now).get(r.key) ?? { admit: false, reason: 'no decision' };
    if (l.changed) this.last = undefined; // the view shows the admission
    if (!l.changed && wasChanged) {
      // Only progress seen since the last write: this answer changed nothing, so it need not wait for it.
      this.saveProgress(l.state);
    } else if (l.changed) {
      try {
        await this.o.store.save(l.state);
        if (this.ledger === l) l.changed = false;
      } catch (e) {
        // Not recorded: advanced again before the next decision (the state in the cluster is what counts after a restart).
        l.changed = true;
        return { admit: false, reason: `the rollout state could not be recorded: ${(e as Error).message}` };
      }
    }
    if (d.admit) {
      // The save took time: a pass meanwhile may have let the reservation go (its time passed), and
      // a write now would roll a NodePool the bound no longer counts. Admitted only if it still
      // holds the slot; the reservation's time then runs from now, when the gate can write.
      const e = this.state?.entries[r.key];
      if (!e || e.target !== target || e.change !== r.change) return { admit: false, reason: 'the admission was not recorded before its reservation ran out; asked again at the next settle' };
      if (e.startedAt === undefined && e.admittedAt < this.o.now()) e.admittedAt = this.o.now();
      this.writing.add(r.key);
      this.o.log?.('rollout admitted', { nodePool: r.key, change: r.change });
    }
    return d;
  }

  /**
   * The gate's settle of `key` ended (its write done, failed or not made): an admission it did not
   * write lapses from now on, when its reservation's time has passed.
   */
  writeEnded(key: string): void {
    if (this.writing.delete(key)) this.dirty = true;
  }

  /** After `fleet-rollout rollback`: the image (and its release) this NodePool goes back to, if any. */
  rollbackTarget(key: string): { image: string; releaseImage: string } | undefined {
    if (!this.control.rollback || !this.synced) return undefined;
    return rollbackTargets(this.state).get(key);
  }

  /** NodePools with a rollback still to write (after `fleet-rollout rollback`). */
  rollbackKeys(): string[] {
    return this.control.rollback && this.synced ? [...rollbackTargets(this.state).keys()] : [];
  }

  /** rollback.ts will not write this NodePool's rollback (no provider-only hand-off for its release). */
  rollbackSkipped(key: string): void {
    if (this.skipped.has(key)) return;
    this.skipped.add(key);
    this.dirty = true;
  }

  /** The gate wrote the hand-off. */
  started(r: RolloutRequest): void {
    this.writing.delete(r.key);
    if (!this.state || !this.synced) return;
    if (markStarted(this.state, r.key, targetId(r.image, r.releaseImage), this.nodePools.get(r.key), this.o.now())) {
      // A started entry follows HyperShift from now on: the next decision advances first.
      this.dirty = true;
      // Not progress: after a restart nothing shows that our write happened, so it is written now (not awaited).
      this.o.store.save(this.state).catch((e) => this.unsaved(e, r.key));
    }
  }

  /**
   * Progress the fleet observes again after a restart (a target shown, a success or failure seen,
   * the halt they make) rides the next write, or its own within the store's `soon` time; not
   * waited for. A failed one is written by the next tick.
   */
  private saveProgress(state: RolloutState): void {
    this.o.store.saveSoon(state).catch((e) => this.unsaved(e));
  }

  private unsaved(e: unknown, nodePool?: string): void {
    this.saved = false;
    this.o.log?.('rollout state not recorded', { ...(nodePool ? { nodePool } : {}), error: (e as Error).message });
    this.o.onUnsaved?.();
  }

  /** Re-plans if anything was observed or time passed; persists transitions. Returns the next time-driven recheck. */
  async tick(force = false): Promise<number | undefined> {
    if (!this.synced) return undefined;
    const now = this.o.now();
    const l = force ? this.advance(now) : this.at(now);
    this.viewed();
    if (!this.saved) {
      // The first write (it carries the policy the plan view reads), and the one after a failed save.
      await this.o.store.save(l.state);
      l.changed = false;
      this.saved = true;
    } else if (l.changed) {
      l.changed = false;
      this.saveProgress(l.state);
    }
    return l.recheckAt === undefined ? undefined : Math.max(0, l.recheckAt - now);
  }

  /** The latest plan (the view and tests). */
  current(): Plan | undefined {
    if (!this.synced) return undefined;
    if (!this.ledger) this.advance(this.o.now());
    return this.viewed();
  }
}

const NO_LABELS: Record<string, string> = Object.freeze({}) as Record<string, string>;

function sameLabels(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  if (!a || !b) return a === b;
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/** A slot freed (a NodePool finished, a soak ended, a reservation lapsed), the canaries completed (or went back), or a halt or pause ended. */
function mayStartMore(before: Ledger, l: Ledger): boolean {
  return l.rollingNow < before.rollingNow || l.windowUsed < before.windowUsed || (l.canariesDone >= l.canaries && before.canariesDone < before.canaries) || (l.canaryRollbacksLeft === 0 && before.canaryRollbacksLeft > 0) || (before.haltedWhy !== undefined && !l.haltedWhy) || (before.pausedWhy !== undefined && !l.pausedWhy);
}
