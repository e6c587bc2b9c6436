/**
 * The fleet component's loop, controller-runtime's shape: a cluster-wide watch of
 * NodePools and, per HCP namespace that one of them maps to, a label-selected watch of our
 * ConfigMaps (hand-offs among them) feed a work queue (builder/controller/queue.ts: one worker per NodePool at
 * a time, per-key backoff) whose worker settles the upgrade gate for that NodePool
 * (`settleGate`). Every resync period every NodePool is queued again (the fleet pass's listing,
 * `listGateTargets`, through the same queue, so a resync never settles a NodePool twice at once).
 * A NodePool left Waiting or HeldByOther is looked at again after `waitingRecheckMs`: a build
 * lands, or a hold reaches its bound, without any event.
 *
 * Hand-off watches are per HCP namespace, not cluster-wide: the fleet component may read
 * ConfigMaps only where a per-HCP package bound HANDOFF_RULES to it (a cluster-wide ConfigMap
 * watch would need a ClusterRole over every ConfigMap). A 403 there (our package is not installed
 * for that HostedCluster) backs off to the resync period.
 *
 * Pre-builds (with a provider layer): HyperShift upgrades the control plane first
 * (HostedControlPlane `spec.releaseImage`, copied from the HostedCluster's `spec.release.image`:
 * hypershift `hostedcluster_controller.go`), NodePools later, each on its own. A cluster-wide,
 * read-only watch of HostedControlPlanes asks the build registry for each of its NodePools'
 * (new release, arch, stream) as soon as that field changes, so the image usually exists when a
 * NodePool's release moves and the gate hands it off without a long hold.
 *
 * Rollout policy (`rollout`, builder/fleet/rollout/): every hand-off write the gate would make is
 * asked of the rollout engine first (admitRollout); the engine's view is fed by the same NodePool
 * watch (now keeping the status conditions the planner reads, trimmed), a HostedCluster watch
 * (labels: the canary selectors) and a watch of the rollout ConfigMap (the human's commands). A
 * NodePool the policy defers is settled again at its recheck, or at once when a slot frees. After
 * `fleet-rollout rollback` a NodePool's previous image is written back before its gate step.
 *
 * Reads: the gate, the rollback write and the preconditions read NodePools, our ConfigMaps in HCP
 * namespaces (hand-offs, provider images, pull keys) and HostedControlPlanes from the watches'
 * caches (cache.ts; one watch per kind, one per HCP namespace for ConfigMaps selected by
 * MANAGED_SELECTOR), never from the API on every step; writes carry the resourceVersion read, and
 * a refused write makes the next read of that object go to the API.
 *
 * Memory: names (NodePool key → HCP namespace, arch, stream; HCP namespace → release), the caches
 * (cache.ts: a gate view per NodePool, our ConfigMaps in HCP namespaces, release and capabilities
 * per HostedControlPlane) and, with a rollout policy, one trimmed observation per NodePool,
 * HostedCluster labels and each provider-only hand-off's image and release.
 * Logs: one structured line per gate action (Paused, Wanted, HandedOff, Unpaused, TimedOut,
 * Overridden, Forgot): NodePool, HCP namespace, action, the gate's message (releases and images
 * by reference; never object contents, never credentials).
 */
import type { FleetTelemetry, HoldAnnotations } from '../metrics/fleet.js';
import { HELD_SINCE_ANNOTATION, LEGACY_PAUSE_VALUE, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION } from './gate-names.js';
import type { Kube, KubeObject } from '../clusters/kube.js';
import { RESOURCES } from '../clusters/kube.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE } from '../controller/build-job.js';
import { handedOffImage, handoffName, HANDOFF_PREFIX, HANDOFF_RELEASE_ANNOTATION, NTO_GENERATED_LABEL } from '../controller/handoff.js';
import { PULL_KEYS_CONFIGMAP } from '../api/types.js';
import { FleetCache, gateView, keptConfigMap, keptControlPlane } from './cache.js';
import { watchLoop } from './watch-loop.js';
import { abortableSleep } from '../clusters/leader.js';
import { Clock, realClock, WorkQueue } from '../controller/queue.js';
import { GateOptions, GateStep, NODEPOOLS, settleGate } from './gate.js';
import { gateTargetOf, listGateTargets } from './pass.js';
import { HOSTED_CLUSTERS, RolloutEngine, trimHostedCluster, trimNodePool } from './rollout/engine.js';
import type { RolloutPolicy } from './rollout/policy.js';
import { CONTROL_KEY, decodeRollout, readRollout, ROLLOUT_CONFIGMAP, ROLLOUT_LABEL, RolloutStore } from './rollout/state.js';
import { rollbackStep } from './rollout/rollback.js';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface FleetRunOptions extends Omit<GateOptions, 'nodePoolNamespace' | 'nodePoolName' | 'hcpNamespace' | 'now'> {
  management: Kube;
  resyncSeconds: number;
  /** A NodePool the gate is waiting on is settled again after this (default 15 s). */
  waitingRecheckMs?: number;
  /** NodePools settled at once (default 8). */
  workers?: number;
  /** Timers of the queue and the gate's clock (`now`). */
  clock?: Clock;
  log?: Log;
  /**
   * Subscribes to "an image build finished" (the build registry's onFinished): the NodePools left
   * Waiting or HeldByOther are settled again at once instead of at their next recheck.
   */
  onImageFinished?: (f: () => void) => () => void;
  /** Called after each settle (tests, metrics): the NodePool key and its last step. */
  onSettled?: (key: string, last: GateStep) => void;
  /**
   * The rollout policy (builder/fleet/rollout/): every hand-off that changes a NodePool is admitted
   * by its planner; its state lives in ConfigMap ROLLOUT_CONFIGMAP in `namespace`. Without it every
   * hand-off is admitted (the gate alone).
   */
  rollout?: { policy: RolloutPolicy; namespace: string; onEngine?: (e: RolloutEngine) => void };
  /** Metrics and Events: holds from the watched NodePools, each settle's steps (builder/metrics/fleet.ts). */
  telemetry?: FleetTelemetry;
  /** The watch caches the gate reads from (cache.ts); default: new ones over `management` (give it to share them, e.g. with the preconditions). */
  cache?: FleetCache;
}

/** The label selector of our hand-off ConfigMaps (what HyperShift selects, and ours). */
export const HANDOFF_SELECTOR = `${NTO_GENERATED_LABEL}=true,${MANAGED_BY}=${MANAGED_BY_VALUE}`;
/** What the per-HCP-namespace watches select: our ConfigMaps there (hand-offs, provider images, pull keys). */
export const MANAGED_SELECTOR = `${MANAGED_BY}=${MANAGED_BY_VALUE}`;

/** A hand-off as the rollout keeps it: names, its release, provider-only or not, and the image (never the rest of its config). */
function keepHandoff(x: KubeObject): KubeObject {
  const release = x.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
  const tenant = x.metadata.labels?.[CONFIG_LABEL];
  const image = handedOffImage((x as { data?: Record<string, string> }).data?.config ?? '');
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: x.metadata.name, namespace: x.metadata.namespace, ...(release ? { annotations: { [HANDOFF_RELEASE_ANNOTATION]: release } } : {}), ...(tenant !== undefined ? { labels: { [CONFIG_LABEL]: tenant } } : {}) },
    ...(image ? { data: { image } } : {}),
  } as KubeObject;
}

/**
 * A NodePool whose release changed is settled this much later (it is held meanwhile): NodePools of
 * one HCP namespace upgraded together then publish their provider-images entries in one write.
 */
const RELEASE_BATCH_MS = 1_000;
/** The rollout state's saves within this many milliseconds of one another are one write (state.ts RolloutStore): a burst of admissions costs one. */
const STATE_COALESCE_MS = 50;
/** Progress (starts, targets shown, successes, failures) is written at most this long after it is seen (RolloutStore saveSoon). */
const STATE_PROGRESS_MS = 5_000;
/** What a provider-only hand-off carries (image, and the release it was built for); undefined for a tenant-layered, empty or deleted one. */
function providerHandoffOf(obj: KubeObject | undefined, type: string): { image: string; releaseImage: string } | undefined {
  if (!obj || type === 'DELETED') return undefined;
  const kept = keepHandoff(obj);
  const image = (kept as KubeObject & { data?: Record<string, string> }).data?.image;
  const releaseImage = kept.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
  return image && releaseImage && kept.metadata.labels?.[CONFIG_LABEL] === undefined ? { image, releaseImage } : undefined;
}

/** A NodePool or HostedCluster event re-plans the rollout this soon (events come in bursts). */
const RETICK_MS = 1_000;

/** Gate actions worth a log line each. */
const LOGGED = new Set(['Paused', 'Wanted', 'HandedOff', 'Neutralised', 'Unpaused', 'TimedOut', 'Overridden', 'Forgot']);

export async function runFleet(o: FleetRunOptions, signal: AbortSignal): Promise<void> {
  const log = o.log ?? (() => {});
  const clock = o.clock ?? realClock;
  const now = () => new Date(clock.now());
  const cache = o.cache ?? new FleetCache(o.management);
  /** Reads from the watch caches, writes to the API: what the gate and the rollback write are given. */
  const reader = cache.kube;
  /** NodePool `<ns>/<name>` → HCP namespace. */
  const targets = new Map<string, string>();
  /** NodePool `<ns>/<name>` → what its image key needs besides the release (pre-builds), and its release as last seen. */
  const shapes = new Map<string, { arch: string; stream?: string; release?: string }>();
  /** NodePool `<ns>/<name>` whose release just changed → until when its settle waits (RELEASE_BATCH_MS). */
  const batchUntil = new Map<string, number>();
  /** NodePools whose last settle ended Waiting or HeldByOther (re-settled when a build finishes). */
  const waiting = new Set<string>();
  /** HCP namespace → its HostedControlPlane's spec.releaseImage, as last seen. */
  const controlPlaneReleases = new Map<string, string>();
  /** HCP namespace → its hand-off watch (stopped when no NodePool maps to it). */
  const handoffWatches = new Map<string, AbortController>();
  /** With a rollout policy: `<HCP namespace>/<NodePool name>` → what its provider-only hand-off carries (the rollback's previous image). */
  const providerHandoffs = new Map<string, { image: string; releaseImage: string }>();
  /** Running watch loops (a finished one leaves the set: hand-off watches come and go with HCP namespaces). */
  const loops = new Set<Promise<void>>();
  const keep = (p: Promise<void>) => {
    loops.add(p);
    p.then(
      () => loops.delete(p),
      () => loops.delete(p),
    );
  };

  // The rollout engine: its state from the cluster first (a restarted leader resumes exactly).
  let engine: RolloutEngine | undefined;
  let store: RolloutStore | undefined;
  let tickTimer: unknown;
  let tickAt = Infinity;
  if (o.rollout) {
    store = new RolloutStore({ kube: o.management, namespace: o.rollout.namespace, policy: o.rollout.policy, coalesceMs: STATE_COALESCE_MS, soon: { ms: STATE_PROGRESS_MS }, clock, ...(o.owner ? { owner: [{ ...o.owner }] } : {}) });
    const rolloutCm = { namespace: o.rollout.namespace, name: ROLLOUT_CONFIGMAP };
    engine = new RolloutEngine({ policy: o.rollout.policy, layer: o.layer, store, now: () => clock.now(), log, onMayStart: () => wakeWaiting(), onUnsaved: () => scheduleTick(5_000), onPlan: (p) => o.telemetry?.rolloutPlanned(p, rolloutCm) });
    for (;;) {
      try {
        const loaded = await readRollout(o.management, o.rollout.namespace);
        for (const p of loaded.problems) log('rollout state unreadable: starting afresh', { error: p });
        engine.load(loaded.state, loaded.control);
        store.loaded(loaded.cm);
        break;
      } catch (e) {
        // Admitting without the state could exceed the bound: wait for it.
        log('rollout state not read', { error: (e as Error).message });
        await abortableSleep(5_000, signal);
        if (signal.aborted) return;
      }
    }
    o.rollout.onEngine?.(engine);
    const e = engine;
    o.telemetry?.watchRollout(() => e.current());
  }
  /** Re-plans at `ms` from now (the earliest asked wins). */
  const scheduleTick = (ms: number) => {
    if (!engine || signal.aborted) return;
    const when = clock.now() + ms;
    if (when >= tickAt) return;
    if (tickTimer !== undefined) clock.clearTimeout(tickTimer);
    tickAt = when;
    tickTimer = clock.setTimeout(() => {
      tickTimer = undefined;
      tickAt = Infinity;
      engine!.tick().then(
        (next) => next !== undefined && scheduleTick(next),
        (e) => {
          log('rollout state not recorded', { error: (e as Error).message });
          scheduleTick(5_000);
        },
      );
    }, ms);
  };
  /** RideReleaseChange, running (not paused, halted or rolling back): a held NodePool's hand-off is written before the policy is asked (gate.ts handOffWhileHeld). */
  const rides =
    o.rollout?.policy.type === 'RideReleaseChange'
      ? () => {
          const p = engine?.current();
          return !!p && !p.paused && !p.halted && engine!.rollbackKeys().length === 0;
        }
      : undefined;
  const wakeWaiting = () => {
    for (const k of waiting) queue.add(k);
  };

  /**
   * HCP namespace → the end of its settles: NodePools of one HCP namespace settle one at a time.
   * They write one provider-images ConfigMap there; settled at once, both decide on the same cached
   * resourceVersion and one write is refused (a conflict, a read from the API, a retry).
   */
  const namespaceTurns = new Map<string, Promise<void>>();
  const inTurn = async <T>(ns: string, f: () => Promise<T>): Promise<T> => {
    const before = namespaceTurns.get(ns);
    let done!: () => void;
    const mine = new Promise<void>((r) => (done = r));
    const end = (before ?? Promise.resolve()).then(() => mine);
    namespaceTurns.set(ns, end);
    await before;
    try {
      return await f();
    } finally {
      done();
      if (namespaceTurns.get(ns) === end) namespaceTurns.delete(ns);
    }
  };

  const queue = new WorkQueue({
    concurrency: o.workers ?? 8,
    clock,
    process: (key) => {
      const hcpNamespace = targets.get(key);
      return hcpNamespace === undefined ? Promise.resolve(undefined) : inTurn(hcpNamespace, () => settle(key, hcpNamespace));
    },
    onError: (key, e, attempt) => log('gate failed', { nodePool: key, error: (e as Error).message, attempt }),
  });
  async function settle(key: string, hcpNamespace: string): Promise<{ requeueAfterMs: number } | undefined> {
    try {
      return await settleOnce(key, hcpNamespace);
    } finally {
      // An admission this settle did not write lapses with its reservation from now on.
      engine?.writeEnded(key);
    }
  }
  async function settleOnce(key: string, hcpNamespace: string): Promise<{ requeueAfterMs: number } | undefined> {
    const i = key.indexOf('/');
    let rollbackDeferred = false;
    if (engine) {
      // After `fleet-rollout rollback`: the previous image back first, under the same bounds.
      const rb = await rollbackStep({ management: reader, engine, key, nodePool: { metadata: { namespace: key.slice(0, i), name: key.slice(i + 1) } } as KubeObject, hcpNamespace });
      if (rb.did !== 'none') log(`rollback ${rb.did}`, { nodePool: key, hcpNamespace, ...('reason' in rb ? { message: rb.reason } : {}), ...('image' in rb ? { image: rb.image } : {}) });
      rollbackDeferred = rb.did === 'deferred';
    }
    // What the hand-off carries now (the rollback's target): from the hand-off watch, or read (its namespace's watch may not have listed yet).
    const from = async (name: string) => providerHandoffs.get(`${hcpNamespace}/${name}`) ?? providerHandoffOf(await reader.get<KubeObject>(RESOURCES.configMaps, handoffName(name), hcpNamespace), 'ADDED');
    const hook = engine ? { admitRollout: async (r: Parameters<RolloutEngine['admit']>[0]) => engine!.admit(r, r.change === 'rollback' ? undefined : await from(key.slice(i + 1))), onRolloutStarted: (r: Parameters<RolloutEngine['started']>[0]) => engine!.started(r), ...(rides ? { handOffWhileHeld: rides } : {}) } : {};
    const siblings = () => [...targets].filter(([k, ns]) => ns === hcpNamespace && k !== key && k.slice(0, k.indexOf('/')) === key.slice(0, i)).map(([k]) => k.slice(i + 1));
    const { steps } = await settleGate({ ...o, ...hook, siblings, management: reader, nodePoolNamespace: key.slice(0, i), nodePoolName: key.slice(i + 1), hcpNamespace, now });
    for (const s of steps) if ('did' in s && LOGGED.has(s.did)) log(`gate ${s.did}`, { nodePool: key, hcpNamespace, message: s.message });
    o.telemetry?.gateSettled(key, steps);
    const last = steps[steps.length - 1]!;
    o.onSettled?.(key, last);
    // A deferred rollback stays waiting whatever the gate's own step ended on: a freed slot or the recheck retries it.
    if (rollbackDeferred || ('state' in last && (last.state === 'Waiting' || last.state === 'HeldByOther' || last.state === 'Deferred'))) {
      waiting.add(key);
      return { requeueAfterMs: o.waitingRecheckMs ?? 15_000 };
    }
    waiting.delete(key);
    return undefined;
  }

  const syncHandoffWatches = () => {
    const want = new Set(targets.values());
    for (const [ns, c] of handoffWatches) if (!want.has(ns)) {
      c.abort();
      handoffWatches.delete(ns);
    }
    for (const ns of want) {
      if (handoffWatches.has(ns)) continue;
      const c = new AbortController();
      const stop = () => c.abort();
      signal.addEventListener('abort', stop, { once: true });
      handoffWatches.set(ns, c);
      const onConfigMap = (obj: KubeObject, type: string) => {
        const name = obj.metadata.name ?? '';
        if (name === PULL_KEYS_CONFIGMAP.name) {
          // The pull-coverage precondition may answer otherwise now.
          for (const [k, hcp] of targets) if (hcp === ns) queue.add(k);
          return;
        }
        if (!name.startsWith(HANDOFF_PREFIX)) return;
        const np = name.slice(HANDOFF_PREFIX.length);
        if (engine) {
          const h = providerHandoffOf(obj, type);
          if (h) providerHandoffs.set(`${ns}/${np}`, h);
          else providerHandoffs.delete(`${ns}/${np}`);
        }
        for (const [k, hcp] of targets) if (hcp === ns && k.slice(k.indexOf('/') + 1) === np) queue.add(k);
      };
      keep(
        watchLoop(o.management, RESOURCES.configMaps, ns, MANAGED_SELECTOR, (obj, type) => {
          cache.configMap(obj, type === 'DELETED');
          onConfigMap(obj, type);
        }, c.signal, log, o.resyncSeconds, (items) => {
          cache.configMapsListed(ns, items);
          for (const i of items) onConfigMap(i, 'ADDED');
        }, keptConfigMap).finally(() => {
          signal.removeEventListener('abort', stop);
          cache.forgetNamespace(ns);
        }),
      );
    }
  };

  const track = (obj: KubeObject, deleted: boolean) => {
    const key = `${obj.metadata.namespace}/${obj.metadata.name}`;
    if (engine) {
      engine.observeNodePool(trimNodePool(obj), deleted);
      scheduleTick(RETICK_MS);
    }
    o.telemetry?.nodePool(key, deleted ? undefined : holdOf(obj));
    const t = deleted ? undefined : gateTargetOf(obj);
    if (t) {
      targets.set(key, t.hcpNamespace);
      const spec = (obj as { spec?: { arch?: string; osImageStream?: { name?: string }; release?: { image?: string } } }).spec;
      const stream = spec?.osImageStream?.name;
      const release = spec?.release?.image;
      const before = shapes.get(key)?.release;
      if (before !== undefined && release !== before) batchUntil.set(key, clock.now() + RELEASE_BATCH_MS);
      shapes.set(key, { arch: spec?.arch || 'amd64', ...(stream ? { stream } : {}), ...(release ? { release } : {}) });
    } else {
      shapes.delete(key);
      waiting.delete(key);
      batchUntil.delete(key);
      if (targets.delete(key)) queue.forget(key);
    }
    syncHandoffWatches();
    if (!t) return;
    const until = batchUntil.get(key);
    if (until !== undefined && until > clock.now()) queue.addAfter(key, until - clock.now());
    else {
      batchUntil.delete(key);
      queue.add(key);
    }
  };

  keep(watchLoop(o.management, NODEPOOLS, undefined, undefined, (obj, type) => {
    cache.nodePool(obj, type === 'DELETED');
    track(obj, type === 'DELETED');
  }, signal, log, o.resyncSeconds, (items) => {
    cache.nodePoolsListed(items);
    // A fresh list: NodePools gone while we were not watching are dropped.
    const seen = new Set(items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`));
    for (const k of [...targets.keys()]) if (!seen.has(k)) {
      targets.delete(k);
      const i = k.indexOf('/');
      engine?.observeNodePool({ metadata: { namespace: k.slice(0, i), name: k.slice(i + 1) } } as KubeObject, true);
    }
    for (const i of items) track(i, false);
    engine?.listed('nodePools');
  }, gateView));

  if (engine) {
    const e = engine;
    // HostedCluster labels (the canary selectors), and the human's commands on the rollout ConfigMap.
    keep(watchLoop(o.management, HOSTED_CLUSTERS, undefined, undefined, (obj, type) => (e.observeHostedCluster(obj, type === 'DELETED'), scheduleTick(RETICK_MS)), signal, log, o.resyncSeconds, (items) => {
      for (const i of items) e.observeHostedCluster(i, false);
      e.listed('hostedClusters');
      scheduleTick(0);
    }, trimHostedCluster));
    keep(watchLoop(o.management, RESOURCES.configMaps, o.rollout!.namespace, `${ROLLOUT_LABEL}=true`, (obj, type) => {
      const { control, problems } = decodeRollout(type === 'DELETED' ? undefined : (obj as KubeObject & { data?: Record<string, string> }));
      for (const p of problems) log('rollout control unreadable', { error: p });
      e.setControl(control);
      scheduleTick(0);
      // A rollback: the NodePools it concerns are settled now (their previous image goes back first).
      for (const k of e.rollbackKeys()) queue.add(k);
    }, signal, log, o.resyncSeconds, undefined, (x) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: x.metadata.name, namespace: x.metadata.namespace }, data: { [CONTROL_KEY]: (x as { data?: Record<string, string> }).data?.[CONTROL_KEY] ?? '' } }) as KubeObject));
    scheduleTick(0);
  }

  /** A control plane's release changed: build its NodePools' images for it now (the registry dedupes and bounds builds). */
  const prebuild = (hcpNamespace: string, releaseImage: string) => {
    const asked = new Set<string>();
    for (const [key, ns] of targets) {
      const shape = shapes.get(key);
      if (ns !== hcpNamespace || !shape) continue;
      const k = { releaseImage, arch: shape.arch, ...(shape.stream ? { stream: shape.stream } : {}), layer: o.layer };
      const id = JSON.stringify(k);
      if (asked.has(id)) continue;
      asked.add(id);
      Promise.resolve()
        .then(() => o.imageFor(k))
        .then(
          (state) => log('prebuild', { hcpNamespace, release: releaseImage, arch: k.arch, ...(k.stream ? { stream: k.stream } : {}), state: 'image' in state ? 'Exists' : 'pending' in state ? 'Building' : 'Failed' }),
          (e) => log('prebuild failed', { hcpNamespace, release: releaseImage, error: (e as Error).message }),
        );
    }
  };
  // HostedControlPlanes: the preconditions' capabilities (from the cache) and, with a provider layer, the pre-builds.
  const seeControlPlane = (obj: KubeObject, deleted: boolean) => {
    if (!o.providerLayer) return;
    const ns = obj.metadata.namespace ?? '';
    const release = (obj as { spec?: { releaseImage?: unknown } }).spec?.releaseImage;
    if (deleted || typeof release !== 'string' || !release) {
      controlPlaneReleases.delete(ns);
      return;
    }
    const before = controlPlaneReleases.get(ns);
    controlPlaneReleases.set(ns, release);
    // At start (before undefined) nothing is asked: NodePools on their release are the gate's work.
    if (before !== undefined && before !== release) prebuild(ns, release);
  };
  keep(watchLoop(o.management, RESOURCES.hostedControlPlanes, undefined, undefined, (obj, type) => {
    cache.controlPlane(obj, type === 'DELETED');
    seeControlPlane(obj, type === 'DELETED');
  }, signal, log, o.resyncSeconds, (items) => {
    cache.controlPlanesListed(items);
    const seen = new Set(items.map((i) => i.metadata.namespace ?? ''));
    for (const ns of [...controlPlaneReleases.keys()]) if (!seen.has(ns)) controlPlaneReleases.delete(ns);
    for (const i of items) seeControlPlane(i, false);
  }, keptControlPlane));

  const unsubscribe = o.onImageFinished?.(() => {
    for (const k of waiting) queue.add(k);
  });

  // The resync: every NodePool again, from a fresh list (the fleet pass's listing).
  while (!signal.aborted) {
    await abortableSleep(o.resyncSeconds * 1000, signal);
    if (signal.aborted) break;
    try {
      const all = await listGateTargets(o.management);
      for (const t of all) targets.set(t.key, t.hcpNamespace);
      syncHandoffWatches();
      for (const t of all) queue.add(t.key);
    } catch (e) {
      log('resync failed', { error: (e as Error).message });
    }
  }
  unsubscribe?.();
  if (tickTimer !== undefined) clock.clearTimeout(tickTimer);
  store?.stop();
  queue.stop();
  for (const c of handoffWatches.values()) c.abort();
  await Promise.all([...loops]);
}

/** The gate's hold on a NodePool, from its own annotations (gate.ts writes them with pausedUntil). */
function holdOf(np: KubeObject): HoldAnnotations | undefined {
  const a = np.metadata.annotations ?? {};
  const pausedFor = a[PAUSED_FOR_ANNOTATION];
  const spec = (np as { spec?: { pausedUntil?: unknown } }).spec;
  // Ours and in place: pausedUntil is the value the gate recorded (an older fleet's "true").
  if (pausedFor === undefined || spec?.pausedUntil !== (a[PAUSED_UNTIL_ANNOTATION] ?? LEGACY_PAUSE_VALUE)) return undefined;
  return { pausedFor, heldSince: a[HELD_SINCE_ANNOTATION] ?? '' };
}
