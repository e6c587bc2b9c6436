/**
 * The fleet's API requests as the API test server records them (pkogen/test/kube/api-server.ts
 * `audit`), counted by verb and resource and per NodePool rollout step: the one count the bench
 * (test/bench/fleet.ts, docs/benchmarks.md) reports and fleet-requests.test.ts bounds.
 *
 * A rollout step is one NodePool moved from one (release, provider image) to the next: one rollout
 * HyperShift runs for it (a new layer's hand-off under a policy, or a release change carrying the
 * layer). Every request of the fleet's identity in the phase counts: reads, writes, lists, watch
 * (re)starts, Lease renewals and the rollout state's writes.
 */

/** What an audit entry needs to be counted. */
export interface Counted {
  user: string;
  verb: string;
  resource: string;
  namespace: string;
  name?: string;
}

/** The bound: API requests per NodePool per rollout step. */
export const MAX_REQUESTS_PER_STEP = 3;

export interface RequestCount {
  total: number;
  /** `<verb> <resource>` → count. */
  by: Map<string, number>;
}

/** The requests of `user` in `entries` (a slice of the audit). */
export function countRequests(entries: readonly Counted[], user: string): RequestCount {
  const by = new Map<string, number>();
  let total = 0;
  for (const e of entries) {
    if (e.user !== user) continue;
    total++;
    const k = `${e.verb} ${e.resource || '-'}`;
    by.set(k, (by.get(k) ?? 0) + 1);
  }
  return { total, by };
}

/** "12 get nodepools, 3 patch nodepools, …", sorted by key (deterministic). */
export function describeCount(c: RequestCount): string {
  return [...c.by].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
}

/** Requests per NodePool per step, two decimals (NaN without a step). */
export function perStep(c: RequestCount, steps: number): number {
  return steps > 0 ? c.total / steps : NaN;
}

/**
 * The reads the watch caches replace (builder/fleet/cache.ts): gets of NodePools and of ConfigMaps
 * outside the fleet's own namespace, and HostedControlPlane lists of one namespace (the
 * preconditions'). A cache makes them only after a refused write.
 */
export function gateReads(entries: readonly Counted[], user: string, fleetNamespace = 'on-cluster-build-fleet'): number {
  let n = 0;
  for (const e of entries) {
    if (e.user !== user) continue;
    if (e.verb === 'get' && (e.resource === 'nodepools' || (e.resource === 'configmaps' && e.namespace !== fleetNamespace))) n++;
    else if (e.verb === 'list' && e.resource === 'hostedcontrolplanes' && e.namespace !== '') n++;
  }
  return n;
}
