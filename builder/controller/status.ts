/**
 * What a NodePoolOSConfig's status says, as data: the decision (decide.ts) and the build's outcome
 * (act.ts) name a `ConfigStatus`; `configConditions` turns it into the five conditions the CRD
 * holds. Pure: no client, no clock (the time is passed in).
 */

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

/** One config's status: at most one of degraded, building, available, waiting, pending says what is happening. */
export interface ConfigStatus {
  degraded?: [string, string];
  building?: string;
  available?: string;
  waiting?: [string, string];
  pending?: [string, string];
  build?: { group: string; resource: string; name: string };
  /** NodesUpdated: status, reason, message. */
  nodes?: [Condition['status'], string, string];
}

/** Longest condition message written (a build log's end is cut to it). */
export const MAX_MESSAGE = 1024;

/** The conditions of a config's status, each keeping its transition time while its status holds. */
export function configConditions(prev: Condition[], s: ConfigStatus, now: string, gen: number | undefined): Condition[] {
  const buildingReason = s.building ? 'BuildRunning' : s.pending ? s.pending[0] : 'NotBuilding';
  return [
    cond(prev, 'Available', s.available ? 'True' : 'False', s.available ? 'ImageBuilt' : 'NoImage', s.available ? `the NodePool is given ${s.available}` : '', now, gen),
    cond(prev, 'Building', s.building ? 'True' : 'False', buildingReason, s.building ?? s.pending?.[1] ?? '', now, gen),
    cond(prev, 'Degraded', s.degraded ? 'True' : 'False', s.degraded ? s.degraded[0] : 'AsExpected', s.degraded ? tail(s.degraded[1], MAX_MESSAGE) : '', now, gen),
    cond(prev, 'WaitingForCapacity', s.waiting ? 'True' : 'False', s.waiting ? s.waiting[0] : 'CapacityAvailable', s.waiting?.[1] ?? '', now, gen),
    cond(prev, 'NodesUpdated', s.nodes?.[0] ?? 'False', s.nodes?.[1] ?? 'NoImage', s.nodes?.[2] ?? '', now, gen),
  ];
}

export function cond(prev: Condition[], type: string, status: Condition['status'], reason: string, message: string, now: string, observedGeneration?: number): Condition {
  const p = prev.find((c) => c.type === type);
  const c: Condition = { type, status, reason, message, lastTransitionTime: p && p.status === status ? p.lastTransitionTime ?? now : now };
  if (observedGeneration !== undefined) c.observedGeneration = observedGeneration;
  return c;
}

/** Status equality that ignores transition times (they only move when a status flips). */
export function sameStatus(a: unknown, b: unknown): boolean {
  const strip = (v: unknown) => JSON.stringify(v ?? {}, (k, x) => (k === 'lastTransitionTime' ? undefined : x));
  return strip(a) === strip(b);
}

/** Degraded while NodeTuning is disabled: HyperShift reads the hand-off only while it is enabled. */
export function handoffUnavailable(): [string, string] {
  return [
    'HandoffUnavailable',
    'the NodeTuning capability is disabled on this hosted cluster (HostedControlPlane spec.capabilities.disabled), and HyperShift reads the hand-off only while it is enabled; the image is built but no node will run it',
  ];
}

/**
 * The last `n` characters of `s`, starting at a line when one starts in the last `n` (a build log
 * ends with what went wrong), marked with a leading "…".
 */
export function tail(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(s.length - (n - 1));
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut}`;
}
