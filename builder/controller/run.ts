/**
 * The controller's loop, controller-runtime's shape: watches on what can change a build (configs,
 * build records, Nodes and build Jobs and pods in the hosted cluster; token Secrets and Machines
 * in the HCP namespace) mark the observation stale; after each burst of events (and at least
 * every resync period) the controller observes both sides once, trimmed to what decisions read,
 * and queues every config. A work queue reconciles configs: one worker per key at a time, at most
 * `workers` at once, a failed key retried with its own backoff, so one NodePool whose release
 * never resolves holds one worker and never delays another. Watches reconnect with a bounded
 * backoff.
 */
import type { Kube, Resource } from '../kube.js';
import { RESOURCES } from '../kube.js';
import { BUILD_NAMESPACE } from '../api/types.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from './build-job.js';
import { abortableSleep } from './leader.js';
import { Clock, realClock, WorkQueue } from './queue.js';
import { NPOSB, NPOSC, Reconciler } from './reconciler.js';

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

export async function runController(o: RunOptions, signal: AbortSignal): Promise<void> {
  const log = o.log ?? (() => {});
  let dirty = true;
  let wake: (() => void) | undefined;
  const poke = () => {
    dirty = true;
    wake?.();
  };
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
  ];
  const loops = watches.map(([kube, r, ns, sel]) => watchLoop(kube, r, ns, sel, poke, signal, log));
  const queue = new WorkQueue({
    concurrency: o.workers ?? 4,
    clock: o.clock ?? realClock,
    process: (key) => o.reconciler.reconcileKey(key),
    onError: (key, e, attempt) => log('reconcile failed', { nodePoolOSConfig: key, error: (e as Error).message, attempt }),
  });

  let failures = 0;
  while (!signal.aborted) {
    if (dirty) {
      await abortableSleep(o.debounceMs ?? 200, signal);
      dirty = false;
      try {
        const obs = await o.reconciler.observe();
        await o.reconciler.removeOrphans(obs);
        for (const k of [...obs.configs.keys()].sort()) queue.add(k);
        failures = 0;
      } catch (e) {
        failures++;
        dirty = true;
        log('observe failed', { error: (e as Error).message, attempt: failures });
        await abortableSleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)), signal);
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
        dirty = true;
        done();
      }, o.resyncSeconds * 1000);
      wake = done;
      signal.addEventListener('abort', done, { once: true });
      if (dirty || signal.aborted) done();
    });
    wake = undefined;
  }
  queue.stop();
  await Promise.all(loops);
}

/** List to learn the resourceVersion, then watch from it; on any end, back off and do it again. */
async function watchLoop(
  kube: Kube,
  r: Resource,
  namespace: string | undefined,
  labelSelector: string | undefined,
  poke: () => void,
  signal: AbortSignal,
  log: (msg: string, fields?: Record<string, unknown>) => void,
): Promise<void> {
  let attempt = 0;
  while (!signal.aborted) {
    try {
      const { resourceVersion } = await kube.list(r, { namespace, labelSelector });
      poke(); // anything may have changed while we were not watching
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
              if (e.type !== 'BOOKMARK') poke();
            },
            () => {
              signal.removeEventListener('abort', onAbort);
              resolve();
            },
          )
          .then((h) => {
            handle = h;
            if (signal.aborted) h.stop();
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
