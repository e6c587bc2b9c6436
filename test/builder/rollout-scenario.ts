/**
 * The scenario harness of the fleet rollout tests: builds a fleet on the API test server
 * (HostedClusters with labels, HostedControlPlanes, HCP namespaces, NodePools with Replace or
 * InPlace, hand-offs), starts the HyperShift stand-in and the invariant recorder, runs the fleet
 * component in-process (today's `runFleet`, or what the scenario gives), and drives SIMULATED time
 * in bounded steps: each step waits until the fleet is quiet (no request in flight, no new request
 * for a short real-time window), then advances the clock. Returns the recorder's findings.
 *
 * Real time is spent only waiting for the fleet's HTTP round trips; every timer of the fleet's
 * work queue, the gate's clock and the stand-in's machines is simulated.
 */
import { createHash } from 'node:crypto';
import { loadavg } from 'node:os';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import type { Clock as FleetClock } from '../../builder/controller/queue.js';
import { runFleet } from '../../builder/fleet/run.js';
import { admitNodePoolUpdate, NODEPOOLS, type ImageKey } from '../../builder/fleet/gate.js';
import { providerHandoff } from './fleet-fixtures.js';
import { hcpNamespace, HOSTEDCLUSTER_TYPE, HOSTEDCONTROLPLANE_TYPE, HyperShiftStandIn, NODEPOOL_TYPE, SimClock, type UpgradeType } from './hypershift-standin.js';
import { InvariantRecorder, type Violation } from './rollout-recorder.js';

export const FLEET_USER = 'system:serviceaccount:on-cluster-build-fleet:fleet';
/** The identity that applies a release change with the fleet's admission patch (the API server does, on the fleet's behalf). */
export const ADMISSION_USER = 'release-change-with-fleet-admission';
export const HUMAN_USER = 'system:admin';
export const NP_NAMESPACE = 'clusters';
const D = (c: string) => 'sha256:' + c.repeat(64);
export const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
export const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
export const OLD_LAYER = `provider-layer@${D('a')}`;
export const NEW_LAYER = `provider-layer@${D('b')}`;
const REPO = 'quay.example.com/provider/os';
/** The fleet's timers under this fire when it is quiet, not when the clock reaches them (fleetClock). */
const SHORT_TIMER_MS = 1_000;

export interface ScenarioOptions {
  hostedClusters: number;
  nodePoolsPerCluster: number;
  /** Per NodePool (index over the fleet): default alternates Replace, InPlace. */
  upgradeType?: (index: number) => UpgradeType;
  /** HostedCluster labels (canary groups are selected by them). */
  hostedClusterLabels?: (clusterIndex: number) => Record<string, string>;
  /** Capabilities disabled on a HostedCluster (copied to its HostedControlPlane, as HyperShift does): e.g. ['NodeTuning']. */
  disabledCapabilities?: (clusterIndex: number) => string[] | undefined;
  /** HostedClusters whose NodePools are canaries (the recorder's property 2). */
  canary?: (labels: Record<string, string>) => boolean;
  /** Hand-offs present at the start: none (the fleet is being installed) or provider-only ones of this layer for R1. */
  initialLayer?: string;
  /** The layer the fleet runs with. */
  layer: string;
  /**
   * R1 and R2 are a z-stream pair sharing one OS image: the image built for R2 is the one built for
   * R1 (the config HyperShift hashes does not change), fit for both releases (the recorder's
   * property 4 does not tell them apart).
   */
  zStream?: boolean;
  /** NodePools made to fail (by key `clusters/<name>`, or index): the stand-in's failure message. */
  failing?: (key: string, index: number) => string | undefined;
  /** Extra runFleet options (the rollout policy, admitRollout, a slower imageFor, …) merged into the default fleet's. */
  fleetOptions?: (ctx: ScenarioContext) => Record<string, unknown>;
  /** The fleet process; default: today's runFleet with a provider layer whose images exist at once. */
  fleet?: (ctx: ScenarioContext, signal: AbortSignal) => Promise<void>;
  bounds: { maxConcurrency?: number; perHostedCluster?: number; maxFailures?: number; progressDeadlineMs?: number; maxHoldSeconds: number };
  stepMs: number;
  maxSteps: number;
  replicas?: number;
  configMapLagMs?: number;
  machineBootMs?: number;
  nodeUpgradeMs?: number;
  /** Called before each step (human actions, release bumps, crashes). */
  during?: (ctx: ScenarioContext, step: number) => Promise<void> | void;
  /** Ends the run early when true after three steps in a row (default: nothing rolling, for the recorder and for the stand-in's machines). */
  until?: (ctx: ScenarioContext) => boolean;
}

export interface ScenarioContext {
  server: ApiTestServer;
  clock: SimClock;
  standIn: HyperShiftStandIn;
  recorder: InvariantRecorder;
  /** The fleet's client (its requests are counted for quiescence). */
  fleetKube: Kube;
  /** The clock a fleet run in the scenario is given (its short timers fire when it is quiet; the others after the step's writes are observed). */
  fleetClock: FleetClock;
  human: Kube;
  nodePools: string[];
  /** The fake build's image for (release, arch, layer), remembered for the recorder's property 4. */
  imageOf: (release: string, arch: string, layer: string) => string;
  imageRelease: (image: string) => string | undefined;
  logs: { msg: string; [k: string]: unknown }[];
  /** Changes a NodePool's release as the API server would with the fleet's mutating webhook in front. */
  bump: (key: string, release: string) => Promise<void>;
  /** A human sets (or, with null, removes) a NodePool's pausedUntil. */
  humanPause: (key: string, value: string | null) => Promise<void>;
  /** Stops the fleet process (a crash) / starts it again. */
  crash: () => Promise<void>;
  restart: () => void;
  /** Waits until the fleet is quiet (real time; bounded). */
  quiet: () => Promise<void>;
}

export interface ScenarioResult {
  violations: Violation[];
  violationCount: number;
  summary: string;
  steps: number;
  simulatedMs: number;
  /** API requests the fleet made (the bench's requests per NodePool per step come from here). */
  fleetRequests: number;
  ctx: ScenarioContext;
}

/** A seeded PRNG (xorshift32) for randomized schedules: the same seed gives the same run. */
export function rng(seed: number): { next(): number; int(n: number): number; pick<T>(xs: readonly T[]): T } {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x1_0000_0000;
  };
  const int = (n: number) => Math.floor(next() * n);
  return { next, int, pick: (xs) => xs[int(xs.length)]! };
}

/** A Kube whose requests are counted (quiescence). */
class Counted extends Kube {
  inFlight = 0;
  total = 0;
  override async request(method: string, p: string, body?: unknown, contentType?: string): Promise<unknown> {
    this.inFlight++;
    this.total++;
    try {
      return await super.request(method, p, body, contentType);
    } finally {
      this.inFlight--;
    }
  }
}

export async function scenario(o: ScenarioOptions, body?: (ctx: ScenarioContext) => Promise<void>): Promise<ScenarioResult> {
  const clock = new SimClock();
  const server = await startApiServer({
    identities: [
      { name: FLEET_USER, token: 'fleet-token' },
      { name: ADMISSION_USER, token: 'admission-token' },
      { name: HUMAN_USER, token: 'admin-token' },
    ],
    clock: () => new Date(clock.now()),
    historyLimit: 100_000,
  });
  for (const t of [NODEPOOL_TYPE, HOSTEDCLUSTER_TYPE, HOSTEDCONTROLPLANE_TYPE]) server.registerType(t);
  const images = new Map<string, string | undefined>();
  const imageOf = (release: string, arch: string, layer: string) => {
    const built = o.zStream && release === R2 ? R1 : release;
    const image = `${REPO}@sha256:${createHash('sha256').update(`${built} ${arch} ${layer}`).digest('hex')}`;
    images.set(image, o.zStream && built === R1 ? undefined : release);
    return image;
  };
  const store = server.store;
  const nodePools: string[] = [];
  store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NP_NAMESPACE } });
  const canaries = new Set<string>();
  let index = 0;
  for (let c = 0; c < o.hostedClusters; c++) {
    const name = `hc-${String(c).padStart(4, '0')}`;
    const labels = o.hostedClusterLabels?.(c) ?? {};
    const hcp = hcpNamespace(NP_NAMESPACE, name);
    store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hcp } });
    const disabled = o.disabledCapabilities?.(c);
    const capabilities = disabled ? { capabilities: { disabled } } : {};
    store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name, namespace: NP_NAMESPACE, labels }, spec: { release: { image: R1 }, ...capabilities } });
    store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name, namespace: hcp }, spec: { releaseImage: R1, ...capabilities } });
    for (let j = 0; j < o.nodePoolsPerCluster; j++, index++) {
      const np = `${name}-pool-${j}`;
      const key = `${NP_NAMESPACE}/${np}`;
      nodePools.push(key);
      if (o.canary?.(labels)) canaries.add(key);
      const upgradeType = o.upgradeType?.(index) ?? (index % 2 === 0 ? 'Replace' : 'InPlace');
      store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: np, namespace: NP_NAMESPACE }, spec: { clusterName: name, arch: 'amd64', release: { image: R1 }, replicas: o.replicas ?? 2, management: { upgradeType } } });
      if (o.initialLayer) store.put(providerHandoff(hcp, np, imageOf(R1, 'amd64', o.initialLayer), R1));
    }
  }

  // Only the times given: an undefined one would replace the stand-in's default (and a machine would never boot).
  const standIn = new HyperShiftStandIn({ server, clock, configMapLagMs: o.configMapLagMs ?? 0, ...(o.machineBootMs !== undefined ? { machineBootMs: o.machineBootMs } : {}), ...(o.nodeUpgradeMs !== undefined ? { nodeUpgradeMs: o.nodeUpgradeMs } : {}) });
  const recorder = new InvariantRecorder({
    server,
    clock,
    standIn,
    fleetWriters: [FLEET_USER, ADMISSION_USER],
    maxConcurrency: o.bounds.maxConcurrency,
    perHostedCluster: o.bounds.perHostedCluster,
    canaries,
    maxFailures: o.bounds.maxFailures,
    progressDeadlineMs: o.bounds.progressDeadlineMs,
    maxHoldSeconds: o.bounds.maxHoldSeconds,
    imageRelease: (image) => images.get(image),
  });
  nodePools.forEach((k, i) => {
    const why = o.failing?.(k, i);
    if (why) standIn.fail(k, why);
  });
  standIn.start();
  recorder.start();

  const fleetKube = new Counted(server.kubeConfig(FLEET_USER));
  const human = new Kube(server.kubeConfig(HUMAN_USER));
  const admission = new Counted(server.kubeConfig(ADMISSION_USER));
  const logs: { msg: string; [k: string]: unknown }[] = [];
  let stop: AbortController | undefined;
  let running: Promise<void> | undefined;
  /**
   * The fleet's timers (its work queue's rechecks, its rollout ticks) due in a step run once the
   * fleet observed the stand-in's writes of that step: on real time a NodePool's status reaches the
   * fleet's watch within milliseconds, long before a recheck a minute away; on simulated time a step
   * makes both at one instant, and the fleet would act on a view missing that step's writes.
   */
  type FleetTimer = { f: () => void; cleared: boolean; id?: unknown };
  const fleetDue: FleetTimer[] = [];
  /**
   * The fleet's timers shorter than a second (its rollout state's coalescing, a re-plan at once):
   * on real time they fire long before a step's minutes pass, so here they fire once the fleet is
   * quiet, at the same simulated instant, and whatever they batch is what the fleet did in between
   * (not what a busy machine happened to fit into a real-time window).
   */
  const fleetShort: FleetTimer[] = [];
  const fleetClock: FleetClock = {
    now: () => clock.now(),
    setTimeout: (f: () => void, ms: number): unknown => {
      const t: FleetTimer = { f, cleared: false };
      if (ms < SHORT_TIMER_MS) fleetShort.push(t);
      else t.id = clock.setTimeout(() => fleetDue.push(t), ms);
      return t;
    },
    clearTimeout: (h: unknown) => {
      const t = h as FleetTimer;
      t.cleared = true;
      if (t.id !== undefined) clock.clearTimeout(t.id);
    },
  };
  /** Fires the short timers set so far; how many fired. */
  const fireShort = (): number => {
    let n = 0;
    for (const t of fleetShort.splice(0)) if (!t.cleared) (n++, t.f());
    return n;
  };
  /** Runs the fleet's due timers once the fleet is quiet (those their callbacks set due at once too, as an advance would). */
  const fleetTimers = async () => {
    if (!fleetDue.length) return;
    await ctx.quiet();
    for (let round = 0; round < 1000 && fleetDue.length; round++) {
      for (const t of fleetDue.splice(0)) if (!t.cleared) t.f();
      clock.advance(0);
    }
  };
  /** Writes to the API (anyone's), fleet (re)starts and the fleet's requests: a step with none since the fleet was last quiet needs no second wait. */
  let marks = 0;
  const offWrites = server.onWrite(() => void marks++);
  const activity = () => marks + fleetKube.total + admission.total;
  const ctx: ScenarioContext = {
    server,
    clock,
    standIn,
    recorder,
    fleetKube,
    fleetClock,
    human,
    nodePools,
    imageOf,
    imageRelease: (image) => images.get(image),
    logs,
    bump: async (key, release) => {
      const i = key.indexOf('/');
      const old = store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', namespace: key.slice(0, i), name: key.slice(i + 1) })! as KubeObject;
      const next = { ...old, spec: { ...(old as any).spec, release: { image: release } } } as KubeObject;
      const ops = [{ op: 'replace', path: '/spec/release/image', value: release }, ...admitNodePoolUpdate(old as any, next as any, new Date(clock.now()), o.bounds.maxHoldSeconds)];
      await admission.request('PATCH', admission.path(NODEPOOLS, key.slice(0, i), key.slice(i + 1)), ops, 'application/json-patch+json');
    },
    humanPause: async (key, value) => {
      const i = key.indexOf('/');
      await human.mergePatch(NODEPOOLS, key.slice(i + 1), key.slice(0, i), { spec: { pausedUntil: value } });
    },
    crash: async () => {
      stop?.abort();
      // A dead process's timers never fire.
      for (const t of fleetShort.splice(0)) t.cleared = true;
      await running?.catch(() => {});
      stop = undefined;
      running = undefined;
    },
    restart: () => {
      if (running) return;
      stop = new AbortController();
      const fleet =
        o.fleet ??
        ((c: ScenarioContext, signal: AbortSignal) =>
          runFleet(
            {
              management: c.fleetKube,
              resyncSeconds: 3600, // real-time sleep: beyond any scenario; the watches drive it
              layer: o.layer,
              providerLayer: true,
              imageFor: (k: ImageKey) => ({ image: imageOf(k.releaseImage, k.arch, k.layer) }),
              maxHoldSeconds: o.bounds.maxHoldSeconds,
              clock: fleetClock,
              log: (msg, fields = {}) => {
                if (logs.length < 10_000) logs.push({ msg, ...fields });
              },
              ...o.fleetOptions?.(c),
            },
            signal,
          ));
      running = fleet(ctx, stop.signal);
      marks++;
    },
    quiet: async () => {
      // Quiet: no request of the fleet (or of the admission path) in flight and none started, over a few polls.
      let last = -1;
      let calm = 0;
      for (let i = 0; i < 2000 && calm < 3; i++) {
        await new Promise((r) => setTimeout(r, 15));
        const now = fleetKube.total + admission.total;
        if (fleetKube.inFlight === 0 && admission.inFlight === 0 && now === last) calm++;
        else calm = 0;
        last = now;
        // Quiet but for a short timer: it fires now, and the fleet gets busy again.
        if (calm === 3 && fireShort() > 0) calm = 0;
      }
    },
  };

  let steps = 0;
  const t0 = clock.now();
  const wall0 = Date.now();
  try {
    ctx.restart();
    if (body) await body(ctx);
    let idle = 0;
    for (; steps < o.maxSteps; steps++) {
      await ctx.quiet();
      const before = activity();
      await o.during?.(ctx, steps);
      if (activity() !== before || fleetKube.inFlight || admission.inFlight) await ctx.quiet();
      clock.advance(o.stepMs);
      recorder.tick();
      await fleetTimers();
      const done = o.until ? o.until(ctx) : recorder.rollingNow().length === 0 && !standIn.anyRolling();
      idle = done ? idle + 1 : 0;
      if (idle >= 3) break;
    }
    await ctx.quiet();
  } finally {
    await ctx.crash();
    offWrites();
    standIn.stop();
    recorder.stop();
    await server.stop();
  }
  // FLEET_ROLLOUT_STATS=1: one line per scenario (docs/design/fleet-simulation.md's scale table).
  if (process.env.FLEET_ROLLOUT_STATS) process.stderr.write(`fleet-rollout stats: nodePools ${nodePools.length} steps ${steps} fleetRequests ${fleetKube.total} admissionRequests ${admission.total} wallSeconds ${Math.round((Date.now() - wall0) / 1000)} loadavg ${loadavg().map((x) => x.toFixed(2)).join(' ')}\n`);
  return { violations: recorder.violations, violationCount: recorder.violationCount, summary: recorder.summary(), steps, simulatedMs: clock.now() - t0, fleetRequests: fleetKube.total, ctx };
}
