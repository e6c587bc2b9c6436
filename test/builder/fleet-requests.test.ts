/**
 * The fleet's API requests per NodePool per rollout step stay within the bound (3) at a
 * small scale, counted as the bench counts them (request-count.ts over the API test server's
 * audit), on the simulated HyperShift (rollout-scenario.ts): the gate, the rollback write and the
 * preconditions read NodePools, our ConfigMaps in HCP namespaces and HostedControlPlanes from the
 * fleet's watch caches (builder/fleet/cache.ts), so a step costs its writes and little else. A
 * regression to re-reading objects on every gate step (~18 requests per NodePool per step before
 * the caches) fails here. Not timed: counts only.
 *
 * The fleet runs as `on-cluster-build fleet` wires it (builder/fleet/main.ts): one FleetCache
 * shared by the loop and the preconditions (pull coverage from the published pull keys, NodeTuning
 * from the HostedControlPlane; a prebuilt image needs no build capacity), but without its
 * telemetry: the process creates a Kubernetes Event at each lift (~1 more per step; the fleet bench
 * counts them, docs/benchmarks.md).
 */
import { PULL_KEYS_CONFIGMAP } from '../../builder/api/types.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from '../../builder/controller/build-job.js';
import type { ImageKey } from '../../builder/fleet/gate.js';
import { FleetCache } from '../../builder/fleet/cache.js';
import { fleetPreconditions } from '../../builder/fleet/preconditions.js';
import { parsePolicy, type RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import { runFleet } from '../../builder/fleet/run.js';
import { hcpNamespace } from './hypershift-standin.js';
import { countRequests, describeCount, gateReads, MAX_REQUESTS_PER_STEP, perStep } from './request-count.js';
import { FLEET_USER, NEW_LAYER, NP_NAMESPACE, OLD_LAYER, R2, scenario, type ScenarioContext } from './rollout-scenario.js';

const MIN = 60_000;
const FLEET_NS = 'on-cluster-build-fleet';
const REPO = 'quay.example.com/provider/os';
const CLUSTERS = 10;
const NODEPOOLS = CLUSTERS * 2;
/**
 * The Progressive case at another scale (docs/benchmarks.md: 1,000 HostedClusters, 2,000
 * NodePools): `FLEET_REQUESTS_CLUSTERS`; from 100 HostedClusters on it runs the policy
 * (5 canary HostedClusters, maxConcurrency 50).
 */
const P_CLUSTERS = Number(process.env.FLEET_REQUESTS_CLUSTERS ?? CLUSTERS);
const P_NODEPOOLS = P_CLUSTERS * 2;
const P_CANARIES = P_CLUSTERS >= 100 ? 5 : 2;
const P_MAX_CONCURRENCY = P_CLUSTERS >= 100 ? 50 : 5;
const CANARY = { 'provider.example.com/ring': 'canary' };
const common = { hostedClusters: CLUSTERS, nodePoolsPerCluster: 2, replicas: 1, stepMs: 2 * MIN, machineBootMs: 8 * MIN, nodeUpgradeMs: 6 * MIN };

/** The fleet as main.ts runs it, on the scenario's clock, with the layer `layer()` says at each (re)start. */
const fleetProcess = (policy: RolloutPolicy, layer: () => string, maxHoldSeconds: number, clusters = CLUSTERS) => (ctx: ScenarioContext, signal: AbortSignal) => {
  const store = ctx.server.store;
  if (!store.get({ apiVersion: 'v1', kind: 'Namespace', name: FLEET_NS })) store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: FLEET_NS } });
  // The per-HCP controller has published each HostedCluster's pull secret keys: they cover the provider repository.
  for (let c = 0; c < clusters; c++) {
    const ns = hcpNamespace(NP_NAMESPACE, `hc-${String(c).padStart(4, '0')}`);
    if (!store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PULL_KEYS_CONFIGMAP.name, namespace: ns })) {
      store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: ns, labels: { [MANAGED_BY]: MANAGED_BY_VALUE } }, data: { [PULL_KEYS_CONFIGMAP.key]: 'quay.example.com\n' } });
    }
  }
  const cache = new FleetCache(ctx.fleetKube);
  return runFleet(
    {
      management: ctx.fleetKube,
      cache,
      preconditions: fleetPreconditions({ management: cache.kube, repository: REPO, builds: 'prebuilt', now: () => ctx.clock.now() }),
      resyncSeconds: 3600,
      layer: layer(),
      providerLayer: true,
      imageFor: (k: ImageKey) => ({ image: ctx.imageOf(k.releaseImage, k.arch, k.layer) }),
      maxHoldSeconds,
      clock: ctx.fleetClock,
      rollout: { policy, namespace: FLEET_NS },
      waitingRecheckMs: MIN,
      log: (msg, fields = {}) => {
        if (ctx.logs.length < 10_000) ctx.logs.push({ msg, ...fields });
      },
    },
    signal,
  );
};

/**
 * The bound, MAX_REQUESTS_PER_STEP (request-count.ts): 3 (docs/benchmarks.md). Upgrade day
 * 2.90: a lift, a hand-off and half a provider-images write (one per HCP namespace) per NodePool,
 * and the rollout state's coalesced saves (batched by what the fleet did in a step: the scenario's
 * fleetClock fires its sub-second timers when it is quiet, so the count is the same each run).
 * Progressive 2.75 without the restart's list and watch requests (one each per HCP namespace and
 * per cluster-wide cache: a cost per restart, ~1 per NodePool at two NodePools per namespace: 4.15
 * in all at this scale, 2.81 at 100 HostedClusters
 * with `FLEET_REQUESTS_CLUSTERS=100`), bounded by PROGRESSIVE_WITH_RESTART in all. Any write more
 * per NodePool, or a read back on the gate's path, fails these.
 */
const UPGRADE_DAY_BOUND = MAX_REQUESTS_PER_STEP;
const PROGRESSIVE_BOUND = MAX_REQUESTS_PER_STEP;
const PROGRESSIVE_WITH_RESTART = P_CLUSTERS >= 100 ? MAX_REQUESTS_PER_STEP : 4.25;
/** Gate-path reads per step (NodePool and HCP-namespace ConfigMap gets, HostedControlPlane lists by namespace): only after a refused write. */
const MAX_GATE_READS_PER_STEP = 0.5;

/** `bound` on the requests per step (without list and watch requests when `restartBound` is given: that bounds them all). */
function expectWithin(audit: Parameters<typeof countRequests>[0], steps: number, bound: number, restartBound?: number): void {
  const c = countRequests(audit, FLEET_USER);
  const reads = gateReads(audit, FLEET_USER);
  const listWatch = [...c.by].filter(([k]) => k.startsWith('list ') || k.startsWith('watch ')).reduce((a, [, n]) => a + n, 0);
  const bounded = restartBound === undefined ? perStep(c, steps) : (c.total - listWatch) / steps;
  const what = `${perStep(c, steps).toFixed(2)} requests per NodePool per step (${((c.total - listWatch) / steps).toFixed(2)} without list and watch), ${(reads / steps).toFixed(2)} of them gate-path reads (${describeCount(c)})`;
  // FLEET_REQUESTS_PRINT=1: the counts for docs/benchmarks.md, by object (names of one kind folded).
  if (process.env.FLEET_REQUESTS_PRINT) {
    const by = countRequests(audit.map((e) => ({ ...e, resource: `${e.resource} ${(e.name ?? '').replace(/hc-\d+.*/, '<nodepool>')}` })), FLEET_USER);
    process.stdout.write(`${steps} steps: ${what}; by object: ${describeCount(by)}\n`);
  }
  expect(bounded <= bound && (restartBound === undefined || perStep(c, steps) <= restartBound) && reads / steps <= MAX_GATE_READS_PER_STEP ? 'within' : what).toBe('within');
}

describe('API requests per NodePool per rollout step (the watch caches)', () => {
  it(`default policy (RideReleaseChange), an upgrade day of ${NODEPOOLS} NodePools: at most ${UPGRADE_DAY_BOUND} requests per NodePool per step, no gate-path reads`, async () => {
    let from = -1;
    let startsBefore = 0;
    const r = await scenario({
      ...common,
      initialLayer: NEW_LAYER,
      layer: NEW_LAYER,
      bounds: { maxConcurrency: 50, perHostedCluster: 1, maxHoldSeconds: 3600 },
      maxSteps: 80,
      fleet: fleetProcess(parsePolicy(undefined), () => NEW_LAYER, 3600),
      during: async (ctx, step) => {
        if (step !== 3) return;
        // The fleet has taken the fleet in (labels, provider images published): the upgrade day starts.
        from = ctx.server.audit.length;
        startsBefore = ctx.recorder.starts;
        for (const k of ctx.nodePools) await ctx.bump(k, R2);
      },
      until: (ctx) => from >= 0 && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling() && ctx.nodePools.every((k) => (ctx.server.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', namespace: NP_NAMESPACE, name: k.slice(k.indexOf('/') + 1) }) as { spec?: { pausedUntil?: unknown } }).spec?.pausedUntil === undefined),
    });
    expect(r.violations).toEqual([]);
    const steps = r.ctx.recorder.starts - startsBefore;
    expect(steps).toBe(NODEPOOLS);
    expectWithin(r.ctx.server.audit.slice(from), steps, UPGRADE_DAY_BOUND);
  }, 300_000);

  it(`Progressive (${P_CANARIES} canary HostedClusters, maxConcurrency ${P_MAX_CONCURRENCY}), a new provider layer over ${P_NODEPOOLS} NodePools, the fleet restarted with it: at most ${PROGRESSIVE_BOUND} requests per NodePool per step without the restart's list and watch requests (${PROGRESSIVE_WITH_RESTART} with them), no gate-path reads`, async () => {
    let layer = OLD_LAYER;
    let from = -1;
    let startsBefore = 0;
    const policy = parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: CANARY }], maxConcurrency: P_MAX_CONCURRENCY, maxFailures: 3, progressDeadline: '2h' });
    const r = await scenario({
      ...common,
      hostedClusters: P_CLUSTERS,
      hostedClusterLabels: (c) => (c < P_CANARIES ? CANARY : {}),
      canary: (l) => l['provider.example.com/ring'] === 'canary',
      initialLayer: OLD_LAYER,
      layer: OLD_LAYER,
      bounds: { maxConcurrency: P_MAX_CONCURRENCY, perHostedCluster: 1, maxFailures: 3, progressDeadlineMs: 2 * 3600_000, maxHoldSeconds: 3600 },
      maxSteps: Math.max(200, Math.ceil(P_NODEPOOLS / P_MAX_CONCURRENCY) * 12),
      fleet: fleetProcess(policy, () => layer, 3600, P_CLUSTERS),
      during: async (ctx, step) => {
        if (step !== 3) return;
        // The provider changes the layer: the fleet's Deployment restarts with it (its caches start afresh).
        await ctx.crash();
        layer = NEW_LAYER;
        from = ctx.server.audit.length;
        startsBefore = ctx.recorder.starts;
        ctx.restart();
      },
      until: (ctx) => from >= 0 && ctx.recorder.starts - startsBefore === P_NODEPOOLS && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling(),
    });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.maxRolling).toBeLessThanOrEqual(P_MAX_CONCURRENCY);
    const steps = r.ctx.recorder.starts - startsBefore;
    expect(steps).toBe(P_NODEPOOLS);
    expectWithin(r.ctx.server.audit.slice(from), steps, PROGRESSIVE_BOUND, PROGRESSIVE_WITH_RESTART);
  }, Math.max(300_000, P_NODEPOOLS * 1_500));
});
