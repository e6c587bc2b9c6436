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
import { markStarted, Plan, plan, rollbackTargets, RolloutControl, RolloutState } from './planner.js';
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
}

export class RolloutEngine {
  private readonly nodePools = new Map<string, NodePoolObservation>();
  private readonly hostedClusterLabels = new Map<string, Record<string, string>>();
  private state: RolloutState | undefined;
  private control: RolloutControl = {};
  private last: Plan | undefined;
  private dirty = true;
  /** The policy the fleet runs is written with the first save (the plan view reads it). */
  private saved = false;
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
      return;
    }
    this.nodePools.set(key, o);
    this.dirty = true;
  }

  /** From the HostedCluster watch (labels only). */
  observeHostedCluster(obj: KubeObject, deleted: boolean): void {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (deleted) this.hostedClusterLabels.delete(key);
    else this.hostedClusterLabels.set(key, { ...(obj.metadata.labels ?? {}) });
    this.dirty = true;
  }

  private observations(): NodePoolObservation[] {
    return [...this.nodePools.values()].map((o) => ({ ...o, hostedClusterLabels: this.hostedClusterLabels.get(o.hostedCluster) ?? {} }));
  }

  private run(requests: { key: string; change: RolloutRequest['change']; target: string; from?: { image: string; releaseImage: string } }[] = []): Plan {
    const before = this.last;
    const p = plan({ policy: this.o.policy, layer: this.o.layer, now: this.o.now(), nodePools: this.observations(), ...(this.state ? { state: this.state } : {}), control: this.control, requests });
    this.state = p.state;
    this.last = p;
    this.dirty = false;
    if (p.halted && !before?.halted) this.o.log?.('rollout halted', { reason: p.halted });
    this.o.onPlan?.(p);
    if (before && (p.summary.rollingNow < before.summary.rollingNow || (before.halted && !p.halted) || (before.paused && !p.paused))) this.o.onMayStart?.();
    return p;
  }

  /**
   * The gate's question: admitted only once the admission is in the cluster. `from`: what the
   * NodePool's provider-only hand-off carries now (kept for a rollback).
   */
  async admit(r: RolloutRequest, from?: { image: string; releaseImage: string }): Promise<RolloutDecision> {
    // Planning on a partial view would drop the state of NodePools not seen yet, and misplace canaries.
    if (!this.synced) return { admit: false, reason: 'the fleet has not listed every NodePool and HostedCluster yet' };
    const target = targetId(r.image, r.releaseImage);
    const p = this.run([{ key: r.key, change: r.change, target, ...(from ? { from } : {}) }]);
    const d = p.decisions.get(r.key) ?? { admit: false, reason: 'no decision' };
    if (p.changed) {
      try {
        await this.o.store.save(p.state);
      } catch (e) {
        return { admit: false, reason: `the rollout state could not be recorded: ${(e as Error).message}` };
      }
    }
    if (d.admit) this.o.log?.('rollout admitted', { nodePool: r.key, change: r.change });
    return d;
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

  /** The gate wrote the hand-off. */
  started(r: RolloutRequest): void {
    if (!this.state || !this.synced) return;
    if (markStarted(this.state, r.key, targetId(r.image, r.releaseImage), this.nodePools.get(r.key), this.o.now())) {
      this.o.store.save(this.state).catch((e) => this.o.log?.('rollout state not recorded', { nodePool: r.key, error: (e as Error).message }));
    }
  }

  /** Re-plans if anything was observed or time passed; persists transitions. Returns the next time-driven recheck. */
  async tick(force = false): Promise<number | undefined> {
    if (!this.synced) return undefined;
    if (!this.dirty && !force && this.last) return this.last.recheckAfterMs;
    const p = this.run();
    if (p.changed || !this.saved) {
      await this.o.store.save(p.state);
      this.saved = true;
    }
    return p.recheckAfterMs;
  }

  /** The latest plan (the view and tests). */
  current(): Plan | undefined {
    return this.last ?? (this.synced ? this.run() : undefined);
  }
}
