import { KubeApiError } from 'pkogen/kube';
import type { Kube, KubeObject, Resource } from '../clusters/kube.js';
import { abortableSleep } from '../clusters/leader.js';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/**
 * The fleet loop's watches (run.ts): list (each item through `trim`: what the caller keeps), then
 * watch from the list's resourceVersion. A watch that ends without the API saying why (its timeoutSeconds, a quiet
 * stream cut by the client's idle timeout, a dropped connection) is resumed from the last
 * resourceVersion it delivered (bookmarks included), as client-go's reflector does: no list, and
 * nothing queued again. Only an answer from the API (an ERROR event such as 410 Gone, or an HTTP
 * error) or a failed list starts over with a list. Every new start backs off; a 403 backs off to
 * the resync period (not installed there; it may be later).
 */
export async function watchLoop(
  kube: Kube,
  r: Resource,
  namespace: string | undefined,
  labelSelector: string | undefined,
  onObject: (o: KubeObject, type: string) => void,
  signal: AbortSignal,
  log: Log,
  resyncSeconds: number,
  onList: ((items: KubeObject[]) => void) | undefined,
  trim: (o: KubeObject) => KubeObject,
): Promise<void> {
  let attempt = 0;
  /** Where the next watch starts; undefined: list first. */
  let resumeFrom: string | undefined;
  while (!signal.aborted) {
    let forbidden = false;
    try {
      if (resumeFrom === undefined) {
        const list = await kube.list(r, { namespace, labelSelector, keep: trim });
        if (onList) onList(list.items);
        else for (const i of list.items) onObject(i, 'ADDED');
        resumeFrom = list.resourceVersion;
      }
      const from = resumeFrom;
      await new Promise<void>((resolve) => {
        let handle: { stop(): void } | undefined;
        const onAbort = () => handle?.stop();
        signal.addEventListener('abort', onAbort, { once: true });
        const relist = () => {
          resumeFrom = undefined;
        };
        kube
          .watch(
            r,
            { namespace, labelSelector, resourceVersion: from },
            (e) => {
              attempt = 0;
              if (e.type === 'ERROR') return relist();
              if (resumeFrom === undefined) return; // an ERROR came first: what follows is not trusted
              const rv = e.object?.metadata?.resourceVersion;
              if (typeof rv === 'string' && rv !== '') resumeFrom = rv;
              if (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED') onObject(trim(e.object), e.type);
            },
            (err) => {
              if (err instanceof KubeApiError) {
                relist();
                forbidden = err.code === 403;
              }
              signal.removeEventListener('abort', onAbort);
              resolve();
            },
          )
          .then((h) => {
            handle = h;
            if (signal.aborted) h.stop();
          })
          .catch((e) => {
            relist();
            forbidden = e instanceof KubeApiError && e.code === 403;
            signal.removeEventListener('abort', onAbort);
            resolve();
          });
      });
    } catch (e) {
      resumeFrom = undefined;
      forbidden = e instanceof KubeApiError && e.code === 403;
      if (!forbidden) log('watch failed', { resource: r.plural, ...(namespace ? { namespace } : {}), error: (e as Error).message });
    }
    attempt++;
    await abortableSleep(forbidden ? resyncSeconds * 1000 : Math.min(30_000, 250 * 2 ** Math.min(attempt, 7)), signal);
  }
}
