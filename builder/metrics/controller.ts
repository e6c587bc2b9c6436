/**
 * The per-HCP controller's metrics and Events, behind the small interface the reconciler calls at
 * the places a build starts, ends, is handed off or a config degrades (`BuildTelemetry`), and the
 * gauge of NodePools by state computed at scrape time from the configs' conditions.
 */
import { METRICS, NODEPOOL_REASONS } from './catalogue.js';
import { EventRecorder, InvolvedObject } from './events.js';
import { Labels, Metrics } from './registry.js';

export interface BuildTelemetry {
  buildStarted(build: InvolvedObject, nodePool: string): void;
  /** A build record reached a terminal phase (once per build: the record then freezes). */
  buildFinished(build: InvolvedObject, phase: 'Succeeded' | 'Failed' | 'Interrupted', reason: string, start?: string, end?: string): void;
  handedOff(config: InvolvedObject, nodePool: string): void;
  degraded(config: InvolvedObject, reason: string): void;
}

export const CONTROLLER_METRICS = [
  METRICS.buildsStarted,
  METRICS.buildsFinished,
  METRICS.buildDuration,
  METRICS.nodePools,
  METRICS.releaseResolutions,
  METRICS.imageVerifications,
  METRICS.eventsDropped,
];

interface Cond {
  type: string;
  status: string;
  reason?: string;
}

/** A config's state for the `nodepools` gauge, from its conditions (what its status says now). */
export function nodePoolState(conditions: Cond[] | undefined): Labels {
  const c = (t: string) => (conditions ?? []).find((x) => x.type === t);
  const degraded = c('Degraded');
  if (degraded?.status === 'True') return { state: 'Degraded', reason: degraded.reason };
  const capacity = c('WaitingForCapacity');
  if (capacity?.status === 'True') return { state: 'Waiting', reason: capacity.reason };
  const building = c('Building');
  if (building?.status === 'True') return { state: 'Building', reason: 'BuildRunning' };
  if (building?.reason && (NODEPOOL_REASONS as readonly string[]).includes(building.reason)) return { state: 'Waiting', reason: building.reason };
  if (c('Available')?.status === 'True') return { state: 'Available', reason: 'ImageBuilt' };
  return { state: 'Waiting', reason: 'Other' };
}

/** Counts of configs by state and reason (labels bounded by the catalogue). */
export function countNodePools(configs: Iterable<{ status?: { conditions?: Cond[] } }>): [Labels, number][] {
  const counts = new Map<string, [Labels, number]>();
  for (const cfg of configs) {
    const l = nodePoolState(cfg.status?.conditions);
    const k = `${l.state}/${l.reason}`;
    const have = counts.get(k);
    if (have) have[1]++;
    else counts.set(k, [l, 1]);
  }
  return [...counts.values()];
}

export class ControllerTelemetry implements BuildTelemetry {
  constructor(
    readonly metrics: Metrics,
    private readonly events?: EventRecorder,
  ) {
    metrics.zero(METRICS.buildsStarted);
    metrics.zero(METRICS.releaseResolutions);
    metrics.zero(METRICS.imageVerifications);
  }

  buildStarted(build: InvolvedObject, nodePool: string): void {
    this.metrics.inc(METRICS.buildsStarted);
    this.events?.event(build, 'BuildStarted', `build Job created in the hosted cluster for NodePool ${nodePool}`);
  }

  buildFinished(build: InvolvedObject, phase: 'Succeeded' | 'Failed' | 'Interrupted', reason: string, start?: string, end?: string): void {
    this.metrics.inc(METRICS.buildsFinished, { result: phase, reason: phase === 'Succeeded' ? 'BuildSucceeded' : reason });
    const s = Date.parse(start ?? '');
    const e = Date.parse(end ?? '');
    if (Number.isFinite(s) && Number.isFinite(e)) this.metrics.observe(METRICS.buildDuration, (e - s) / 1000, { result: phase });
    // The reason only (a fixed word): the failure's message can carry the tenant's build log.
    if (phase === 'Succeeded') this.events?.event(build, 'BuildSucceeded', 'the image was built and verified in the registry');
    else this.events?.event(build, phase === 'Failed' ? 'BuildFailed' : 'BuildInterrupted', `build ${phase.toLowerCase()}: ${wordOf(reason)} (the record's status says more)`);
  }

  handedOff(config: InvolvedObject, nodePool: string): void {
    this.events?.event(config, 'ImageHandedOff', `the built image was handed to NodePool ${nodePool}`);
  }

  degraded(config: InvolvedObject, reason: string): void {
    this.events?.event(config, 'ConfigDegraded', `Degraded: ${wordOf(reason)} (the Degraded condition says more)`);
  }

  releaseResolved(ok: boolean): void {
    this.metrics.inc(METRICS.releaseResolutions, { result: ok ? 'Resolved' : 'Error' });
  }

  imageVerified(result: 'Verified' | 'Rejected' | 'RegistryError'): void {
    this.metrics.inc(METRICS.imageVerifications, { result });
  }
}

/** A reason as one CamelCase word at most 64 characters long; anything else is `Other`. */
export function wordOf(reason: string): string {
  return /^[A-Z][A-Za-z0-9]{0,63}$/.test(reason) ? reason : 'Other';
}
