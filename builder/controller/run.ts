/**
 * The controller's loop: while leading, watch what can change a build (configs and build records
 * in the hosted cluster; token Secrets, Jobs and their pods in the HCP namespace) and run a full,
 * level-triggered reconcile after each burst of events, and at least every resync period. Watches
 * reconnect with a bounded backoff; a failed reconcile is retried with a bounded backoff.
 */
import type { Kube, Resource } from '../kube.js';
import { RESOURCES } from '../kube.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from './build-job.js';
import { abortableSleep } from './leader.js';
import { NPOSB, NPOSC, Reconciler } from './reconciler.js';

export interface RunOptions {
  management: Kube;
  hosted: Kube;
  namespace: string;
  reconciler: Reconciler;
  resyncSeconds: number;
  /** Quiet time after an event before reconciling, so a burst costs one pass. */
  debounceMs?: number;
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
  const watches: [Kube, Resource, string | undefined, string | undefined][] = [
    [o.hosted, NPOSC, undefined, undefined],
    [o.hosted, NPOSB, undefined, managed],
    [o.management, RESOURCES.secrets, o.namespace, undefined],
    [o.management, RESOURCES.jobs, o.namespace, managed],
    [o.management, RESOURCES.pods, o.namespace, managed],
  ];
  const loops = watches.map(([kube, r, ns, sel]) => watchLoop(kube, r, ns, sel, poke, signal, log));

  let failures = 0;
  while (!signal.aborted) {
    if (dirty) {
      await abortableSleep(o.debounceMs ?? 200, signal);
      dirty = false;
      try {
        await o.reconciler.reconcileAll();
        failures = 0;
      } catch (e) {
        failures++;
        dirty = true;
        log('reconcile pass failed', { error: (e as Error).message, attempt: failures });
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
