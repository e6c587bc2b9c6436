/**
 * The controller's loop, controller-runtime's shape: one watch per kind that can change a build
 * (configs, build records, Nodes and build Jobs and pods in the hosted cluster; token Secrets,
 * Cluster API objects, the HostedControlPlane and our hand-off ConfigMaps in the HCP namespace)
 * keeps the reconciler's observation (its cache, trimmed to what decisions read) up to date, and
 * each event queues only the configs it concerns (`Reconciler.applyEvent`): a config's own
 * events, a Job's or build record's config, the configs of a NodePool whose objects changed, the
 * configs waiting for the capacity or build slot it frees. Events that come back from the
 * controller's own writes (same resourceVersion as the write returned) queue nothing, and a
 * change that leaves the trimmed object as it was (a Node's heartbeat) neither. Both sides are
 * listed in full once every watch has started and then only every resync period (or when a
 * watch has to start over), and every config is queued then. A work queue reconciles configs:
 * one worker per key at a time, at most `workers` at once, a failed key retried with its own
 * backoff, so one NodePool whose release never resolves holds one worker and never delays
 * another. Watches resume from the last resourceVersion they saw and reconnect with a bounded
 * backoff.
 */
import type { Kube, KubeObject, Resource, WatchEvent } from '../clusters/kube.js';
import { KubeApiError, RESOURCES } from '../clusters/kube.js';
import { BUILD_NAMESPACE } from '../api/types.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from './build-job.js';
import { abortableSleep } from '../clusters/leader.js';
import { Clock, realClock, WorkQueue } from './queue.js';
import { NPOSB, NPOSC } from './observe.js';
import { Reconciler } from './reconciler.js';
import { HOSTED_PAGE_SIZE, REFUSAL_INTERVAL_MS } from './intake.js';

export interface RunOptions {
  management: Kube;
  hosted: Kube;
  namespace: string;
  buildNamespace?: string;
  reconciler: Reconciler;
  resyncSeconds: number;
  /** Quiet time after an event before observing, so a burst costs one pass. */
  debounceMs?: number;
  /** Configs reconciled at once (default 4). */
  workers?: number;
  clock?: Clock;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

/** Watch events held while a full observation is in flight (each trimmed: a few hundred bytes). */
const MAX_BUFFERED = 10_000;

/** Longest wait for every watch's first list before the first full observation. */
const SYNC_WAIT_MS = 10_000;

export async function runController(o: RunOptions, signal: AbortSignal): Promise<void> {
  const log = o.log ?? (() => {});
  const debounceMs = o.debounceMs ?? 200;
  let fullDirty = true;
  let secretsDirty = false;
  let orphansDirty = false;
  /** The first full observation has started: a watch that lists after it may have missed events. */
  let observeStarted = false;
  let wake: (() => void) | undefined;
  const managed = `${MANAGED_BY}=${MANAGED_BY_VALUE}`;
  const buildNs = o.buildNamespace ?? BUILD_NAMESPACE;
  const watches: [Kube, Resource, string | undefined, string | undefined][] = [
    [o.hosted, NPOSC, undefined, undefined],
    [o.hosted, NPOSB, undefined, managed],
    [o.hosted, RESOURCES.nodes, undefined, undefined],
    [o.hosted, RESOURCES.jobs, buildNs, managed],
    [o.hosted, RESOURCES.pods, buildNs, managed],
    [o.management, RESOURCES.secrets, o.namespace, undefined],
    [o.management, RESOURCES.machines, o.namespace, undefined],
    [o.management, RESOURCES.machineSets, o.namespace, undefined],
    [o.management, RESOURCES.machineDeployments, o.namespace, undefined],
    [o.management, RESOURCES.hostedControlPlanes, o.namespace, undefined],
    [o.management, RESOURCES.configMaps, o.namespace, managed],
  ];
  const clock = o.clock ?? realClock;
  const queue = new WorkQueue({
    concurrency: o.workers ?? 4,
    clock,
    process: async (key) => {
      const r = await o.reconciler.reconcileKey(key);
      // The refusals it remembered are written and more are refused: list again to find them.
      if (o.reconciler.takeRelist()) {
        fullDirty = true;
        poke();
      }
      return r;
    },
    onError: (key, e, attempt) => log('reconcile failed', { nodePoolOSConfig: key, error: (e as Error).message, attempt }),
  });

  // Refusal status writes (configs beyond the intake cap) get one slot each, REFUSAL_INTERVAL_MS
  // apart, however they come (a full list or events): a bounded write rate.
  let nextRefusalAt = 0;
  const enqueue = (key: string) => {
    if (!o.reconciler.isPendingRefusal(key)) return queue.add(key);
    const now = clock.now();
    nextRefusalAt = Math.max(nextRefusalAt, now) + REFUSAL_INTERVAL_MS;
    queue.addAfter(key, nextRefusalAt - now);
  };

  // Our own writes, by object: the resourceVersion the API gave each (bounded by the objects we write).
  const own = new Map<string, string>();
  const objectKey = (r: Resource, obj: KubeObject) => `${r.group}/${r.plural}/${obj.metadata?.namespace ?? ''}/${obj.metadata?.name ?? ''}`;
  const remember = (r: Resource, stored: KubeObject) => {
    if (stored.metadata?.resourceVersion) own.set(objectKey(r, stored), stored.metadata.resourceVersion);
  };
  const unsubscribe = [...new Set([o.hosted, o.management])].map((k) => k.onWrite(remember));

  const poke = () => wake?.();
  /** Events seen while a full observation is in flight, applied (in order) once it is in place. */
  let observing = false;
  let buffered: [Resource, WatchEvent][] = [];
  const apply = (r: Resource, e: WatchEvent) => {
    const k = objectKey(r, e.object);
    const mine = e.type !== 'DELETED' && e.object.metadata?.resourceVersion !== undefined && own.get(k) === e.object.metadata.resourceVersion;
    if (mine || e.type === 'DELETED') own.delete(k);
    const effect = o.reconciler.applyEvent(r, e);
    for (const key of new Set([...(mine ? [] : effect.owner), ...effect.concerned])) enqueue(key);
    if (effect.relistSecrets) secretsDirty = true;
    if (effect.orphans) orphansDirty = true;
    if (effect.relist) fullDirty = true;
    if (effect.relistSecrets || effect.orphans || effect.relist) poke();
  };
  const onEvent = (r: Resource, e: WatchEvent) => {
    if (!observing) return apply(r, e);
    // Held trimmed, and at most MAX_BUFFERED: beyond, they are dropped and both sides observed again.
    if (buffered.length < MAX_BUFFERED) buffered.push([r, o.reconciler.compactEvent(r, e)]);
    else if (!fullDirty) {
      fullDirty = true;
      log('too many events during a full observation: observing again', { events: MAX_BUFFERED });
    }
  };
  const unsynced = new Set(watches.map((_, i) => i));
  const listed = (i: number) => {
    // A watch that starts over (first time after the first observation, or after 410 Gone) may
    // have missed events: look at both sides again.
    if (!unsynced.delete(i) || observeStarted) {
      fullDirty = true;
      poke();
    }
  };
  // Tenant-writable kinds are listed in small pages (an object can be ~1.5 MiB).
  const loops = watches.map(([kube, r, ns, sel], i) => watchLoop(kube, r, ns, sel, kube === o.hosted ? HOSTED_PAGE_SIZE : undefined, () => listed(i), (e) => onEvent(r, e), signal, log));

  // As controller-runtime waits for its caches: the first observation after every watch has listed.
  const t0 = Date.now();
  while (!signal.aborted && unsynced.size && Date.now() - t0 < SYNC_WAIT_MS) await abortableSleep(20, signal);

  let failures = 0;
  const backoff = () => abortableSleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)), signal);
  while (!signal.aborted) {
    if (fullDirty) {
      await abortableSleep(debounceMs, signal);
      fullDirty = false;
      secretsDirty = false;
      orphansDirty = false;
      observing = true;
      observeStarted = true;
      buffered = [];
      try {
        const obs = await o.reconciler.observe();
        observing = false;
        const late = buffered;
        buffered = [];
        for (const [r, e] of late) apply(r, e);
        await o.reconciler.removeOrphans(obs);
        for (const k of [...obs.configs.keys()].sort()) queue.add(k);
        for (const k of o.reconciler.pendingRefusals()) enqueue(k);
        failures = 0;
      } catch (e) {
        observing = false;
        buffered = [];
        failures++;
        fullDirty = true;
        log('observe failed', { error: (e as Error).message, attempt: failures });
        await backoff();
        continue;
      }
    } else if (secretsDirty) {
      await abortableSleep(debounceMs, signal);
      secretsDirty = false;
      try {
        for (const k of await o.reconciler.refreshSecrets()) queue.add(k);
        failures = 0;
      } catch (e) {
        failures++;
        secretsDirty = true;
        log('observe failed', { resource: 'secrets', error: (e as Error).message, attempt: failures });
        await backoff();
        continue;
      }
    } else if (orphansDirty) {
      orphansDirty = false;
      const obs = o.reconciler.retained().observed;
      try {
        if (obs) await o.reconciler.removeOrphans(obs);
      } catch (e) {
        orphansDirty = true;
        log('removing what a deleted config left failed', { error: (e as Error).message });
        await backoff();
        continue;
      }
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        signal.removeEventListener('abort', done);
        resolve();
      };
      const t = setTimeout(() => {
        fullDirty = true;
        done();
      }, o.resyncSeconds * 1000);
      wake = done;
      signal.addEventListener('abort', done, { once: true });
      if (fullDirty || secretsDirty || orphansDirty || signal.aborted) done();
    });
    wake = undefined;
  }
  queue.stop();
  for (const u of unsubscribe) u();
  await Promise.all(loops);
}

/**
 * List (first, and after 410 Gone) to learn a resourceVersion, then watch from the last one seen;
 * a watch that ends is resumed from there, with a bounded backoff. The list keeps no items (the
 * reconciler's observation lists what it needs).
 */
async function watchLoop(
  kube: Kube,
  r: Resource,
  namespace: string | undefined,
  labelSelector: string | undefined,
  pageSize: number | undefined,
  listed: () => void,
  onEvent: (e: WatchEvent) => void,
  signal: AbortSignal,
  log: (msg: string, fields?: Record<string, unknown>) => void,
): Promise<void> {
  let attempt = 0;
  let resourceVersion: string | undefined;
  while (!signal.aborted) {
    try {
      if (resourceVersion === undefined) {
        resourceVersion = (await kube.list(r, { namespace, labelSelector, ...(pageSize ? { pageSize } : {}), keep: () => undefined })).resourceVersion;
        listed();
      }
      await new Promise<void>((resolve) => {
        let handle: { stop(): void } | undefined;
        const onAbort = () => handle?.stop();
        signal.addEventListener('abort', onAbort, { once: true });
        kube
          .watch(
            r,
            { namespace, labelSelector, resourceVersion },
            (e) => {
              attempt = 0;
              if (e.type === 'ERROR') {
                // 410 Gone (the history moved on) or another failure: list again.
                resourceVersion = undefined;
                handle?.stop();
                return;
              }
              const rv = e.object?.metadata?.resourceVersion;
              if (typeof rv === 'string' && rv) resourceVersion = rv;
              if (e.type !== 'BOOKMARK') onEvent(e);
            },
            (err) => {
              if (err instanceof KubeApiError && err.code === 410) resourceVersion = undefined;
              signal.removeEventListener('abort', onAbort);
              resolve();
            },
          )
          .then((h) => {
            handle = h;
            if (signal.aborted || resourceVersion === undefined) h.stop();
          })
          .catch(() => resolve());
      });
    } catch (e) {
      log('watch failed', { resource: r.plural, error: (e as Error).message });
    }
    attempt++;
    await abortableSleep(Math.min(30_000, 250 * 2 ** Math.min(attempt, 7)), signal);
  }
}
