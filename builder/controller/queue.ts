/**
 * A work queue with controller-runtime's guarantees (client-go `workqueue`): a key is processed
 * by at most one worker at a time, a key added while it is processed is processed once more
 * afterwards, at most `concurrency` keys are processed at once, and a failed key comes back after
 * a per-key exponential backoff (base × 2^failures, capped) while other keys go on. One key that
 * never finishes holds one worker, never the queue. Time comes from an injectable clock.
 */
export interface Clock {
  now(): number;
  setTimeout(f: () => void, ms: number): unknown;
  clearTimeout(h: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (f, ms) => {
    const t = setTimeout(f, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export type ProcessResult = void | { requeueAfterMs?: number };

export interface WorkQueueOptions {
  concurrency: number;
  process: (key: string) => Promise<ProcessResult>;
  baseDelayMs?: number;
  maxDelayMs?: number;
  clock?: Clock;
  onError?: (key: string, error: unknown, attempt: number) => void;
}

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly delayed = new Map<string, { at: number; handle: unknown }>();
  private readonly failures = new Map<string, number>();
  private idleWaiters: (() => void)[] = [];
  private stopped = false;
  private readonly clock: Clock;

  constructor(private readonly o: WorkQueueOptions) {
    this.clock = o.clock ?? realClock;
  }

  /** Keys waiting, running, delayed or remembered for backoff: bounded by the number of distinct keys. */
  size(): { queued: number; processing: number; delayed: number; failures: number } {
    return { queued: this.queue.length, processing: this.processing.size, delayed: this.delayed.size, failures: this.failures.size };
  }

  add(key: string): void {
    if (this.stopped) return;
    const d = this.delayed.get(key);
    if (d) {
      this.clock.clearTimeout(d.handle);
      this.delayed.delete(key);
    }
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.pump();
  }

  /** Adds the key after `ms`; an earlier pending add of the same key wins. */
  addAfter(key: string, ms: number): void {
    if (this.stopped) return;
    if (ms <= 0) return this.add(key);
    const at = this.clock.now() + ms;
    const d = this.delayed.get(key);
    if (d && d.at <= at) return;
    if (d) this.clock.clearTimeout(d.handle);
    const handle = this.clock.setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, ms);
    this.delayed.set(key, { at, handle });
  }

  /** Drops a key's failure count (a deleted object's key). */
  forget(key: string): void {
    this.failures.delete(key);
  }

  /** Resolves when nothing is queued or running (delayed keys do not count). */
  idle(): Promise<void> {
    if (this.queue.length === 0 && this.processing.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  stop(): void {
    this.stopped = true;
    for (const d of this.delayed.values()) this.clock.clearTimeout(d.handle);
    this.delayed.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.checkIdle();
  }

  private backoff(key: string): number {
    const n = this.failures.get(key) ?? 0;
    this.failures.set(key, n + 1);
    return Math.min(this.o.maxDelayMs ?? 300_000, (this.o.baseDelayMs ?? 500) * 2 ** Math.min(n, 20));
  }

  private pump(): void {
    while (!this.stopped && this.processing.size < Math.max(1, this.o.concurrency) && this.queue.length) {
      const key = this.queue.shift()!;
      this.queued.delete(key);
      this.processing.add(key);
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    let next: number | undefined;
    try {
      const r = await this.o.process(key);
      this.failures.delete(key);
      if (r && r.requeueAfterMs !== undefined) next = r.requeueAfterMs;
    } catch (e) {
      next = this.backoff(key);
      this.o.onError?.(key, e, this.failures.get(key)!);
    }
    this.processing.delete(key);
    if (this.dirty.delete(key)) this.add(key);
    else if (next !== undefined) this.addAfter(key, next);
    this.pump();
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.queue.length === 0 && this.processing.size === 0) {
      const w = this.idleWaiters;
      this.idleWaiters = [];
      for (const r of w) r();
    }
  }
}
