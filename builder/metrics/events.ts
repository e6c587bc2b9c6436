/**
 * Kubernetes Events (core/v1) written the way client-go's event recorder writes them
 * (kubernetes/client-go tools/record/events_cache.go, EventCorrelator; cited with commit in
 * docs/design/observability.md):
 * - aggregation: more than AGGREGATE_MAX_EVENTS distinct messages for one (source, object, type,
 *   reason) within AGGREGATE_INTERVAL_S become one Event "(combined from similar events): …";
 * - deduplication: the same Event again patches the existing one (count + 1, lastTimestamp), no
 *   new object;
 * - spam filter: a token bucket per (source, object, type), SPAM_BURST tokens refilled at one per
 *   1/SPAM_QPS seconds; past it Events are dropped (and counted);
 * - caches are LRU-bounded (CACHE_ENTRIES), the write queue too (QUEUE_SIZE, dropping when full,
 *   as client-go's broadcaster does), so a storm costs bounded memory and bounded API writes.
 * Reasons come from EVENT_REASONS; messages are composed by the callers from our own words and
 * object names, never from a config's content, a registry's answer or a Secret, and are clipped.
 */

/** client-go's defaults (events_cache.go): maxLruCacheEntries, defaultAggregateMaxEvents, defaultAggregateIntervalInSeconds, defaultSpamBurst, defaultSpamQPS. */
export const CACHE_ENTRIES = 4096;
export const AGGREGATE_MAX_EVENTS = 10;
export const AGGREGATE_INTERVAL_S = 600;
export const SPAM_BURST = 25;
export const SPAM_QPS = 1 / 300;
export const QUEUE_SIZE = 1000;
export const MAX_MESSAGE = 1024;

/** Every Event reason we write, with its type (documented in docs/design/observability.md). */
export const EVENT_REASONS = {
  BuildStarted: 'Normal',
  BuildSucceeded: 'Normal',
  BuildFailed: 'Warning',
  BuildInterrupted: 'Warning',
  ImageHandedOff: 'Normal',
  ConfigDegraded: 'Warning',
  UpgradeHeld: 'Normal',
  UpgradeReleased: 'Normal',
  UpgradeGateTimedOut: 'Warning',
  UpgradeHoldOverridden: 'Warning',
  RolloutHalted: 'Warning',
  RolloutResumed: 'Normal',
  RolloutCanariesSucceeded: 'Normal',
  RolloutCompleted: 'Normal',
} as const;
export type EventReason = keyof typeof EVENT_REASONS;

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  name: string;
  namespace?: string;
  uid?: string;
}

export interface EventObject {
  apiVersion: 'v1';
  kind: 'Event';
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: InvolvedObject;
  reason: string;
  message: string;
  type: 'Normal' | 'Warning';
  source: { component: string; host?: string };
  reportingComponent: string;
  reportingInstance: string;
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

/** Where Events go: a create, and a merge patch of an existing one (count, lastTimestamp, message). */
export interface EventSink {
  create(e: EventObject): Promise<{ metadata: { name?: string; resourceVersion?: string } }>;
  patch(namespace: string, name: string, patch: { count: number; lastTimestamp: string; message: string }): Promise<unknown>;
}

export type DropCause = 'SpamFiltered' | 'QueueFull' | 'WriteFailed';

export interface EventRecorderOptions {
  sink: EventSink;
  /** source.component / reportingComponent. */
  component: string;
  /** source.host / reportingInstance (the pod). */
  instance: string;
  /** Milliseconds (simulated in tests). */
  now?: () => number;
  onDrop?: (cause: DropCause, reason: EventReason) => void;
}

/** A Map used as an LRU cache of bounded size. */
class Lru<V> {
  private readonly m = new Map<string, V>();
  constructor(private readonly max: number) {}
  get(k: string): V | undefined {
    const v = this.m.get(k);
    if (v !== undefined) {
      this.m.delete(k);
      this.m.set(k, v);
    }
    return v;
  }
  set(k: string, v: V): void {
    this.m.delete(k);
    this.m.set(k, v);
    if (this.m.size > this.max) this.m.delete(this.m.keys().next().value!);
  }
  get size(): number {
    return this.m.size;
  }
}

const join = (...parts: (string | undefined)[]) => parts.map((p) => p ?? '').join('\u0000');

export class EventRecorder {
  private readonly now: () => number;
  /** aggregate key → distinct messages seen and when last. */
  private readonly aggregates = new Lru<{ messages: Set<string>; last: number }>(CACHE_ENTRIES);
  /** event key → what the API server holds for it. */
  private readonly written = new Lru<{ name: string; namespace: string; count: number; first: string }>(CACHE_ENTRIES);
  /** spam key → token bucket. */
  private readonly buckets = new Lru<{ tokens: number; at: number }>(CACHE_ENTRIES);
  private queued = 0;
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly o: EventRecorderOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Records an Event about `obj` (never blocks; written in order by one queue). */
  event(obj: InvolvedObject, reason: EventReason, message: string): void {
    const type = EVENT_REASONS[reason];
    const msg = clip(message);
    const now = this.now();
    // Aggregation (EventAggregate): by source, object, type and reason; the message is the local key.
    const aggKey = join(this.o.component, this.o.instance, obj.kind, obj.namespace, obj.name, obj.uid, obj.apiVersion, type, reason);
    let agg = this.aggregates.get(aggKey);
    if (!agg || now - agg.last > AGGREGATE_INTERVAL_S * 1000) agg = { messages: new Set(), last: now };
    agg.messages.add(msg);
    agg.last = now;
    this.aggregates.set(aggKey, agg);
    let key = join(aggKey, msg);
    let text = msg;
    if (agg.messages.size >= AGGREGATE_MAX_EVENTS) {
      // Do not grow the set past the bound (client-go pops any one).
      agg.messages.delete(agg.messages.values().next().value!);
      key = aggKey;
      text = clip(`(combined from similar events): ${msg}`);
    }
    // Spam filter (EventSourceObjectSpamFilter): one bucket per source, object and type.
    const spamKey = join(this.o.component, this.o.instance, obj.kind, obj.namespace, obj.name, obj.uid, obj.apiVersion, type);
    const b = this.buckets.get(spamKey) ?? { tokens: SPAM_BURST, at: now };
    b.tokens = Math.min(SPAM_BURST, b.tokens + ((now - b.at) / 1000) * SPAM_QPS);
    b.at = now;
    this.buckets.set(spamKey, b);
    if (b.tokens < 1) return this.o.onDrop?.('SpamFiltered', reason);
    b.tokens -= 1;
    if (this.queued >= QUEUE_SIZE) return this.o.onDrop?.('QueueFull', reason);
    this.queued++;
    const stamp = new Date(now).toISOString();
    this.tail = this.tail.then(() => this.write(obj, reason, type, text, key, stamp, now)).finally(() => void this.queued--);
  }

  /** Resolves when every queued Event has been written or dropped (tests, shutdown). */
  flush(): Promise<void> {
    return this.tail;
  }

  private async write(obj: InvolvedObject, reason: EventReason, type: 'Normal' | 'Warning', message: string, key: string, stamp: string, now: number): Promise<void> {
    const seen = this.written.get(key);
    try {
      if (seen) {
        // Deduplication (eventObserve): the same Event again is a patch of its count.
        const count = seen.count + 1;
        await this.o.sink.patch(seen.namespace, seen.name, { count, lastTimestamp: stamp, message });
        this.written.set(key, { ...seen, count });
        return;
      }
      const namespace = obj.namespace || 'default';
      const e: EventObject = {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name: `${obj.name}.${(BigInt(now) * 1_000_000n).toString(16)}${(this.written.size % 4096).toString(16).padStart(3, '0')}`.slice(0, 253), namespace },
        involvedObject: { apiVersion: obj.apiVersion, kind: obj.kind, name: obj.name, ...(obj.namespace ? { namespace: obj.namespace } : {}), ...(obj.uid ? { uid: obj.uid } : {}) },
        reason,
        message,
        type,
        source: { component: this.o.component, host: this.o.instance },
        reportingComponent: this.o.component,
        reportingInstance: this.o.instance,
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
      };
      const created = await this.o.sink.create(e);
      this.written.set(key, { name: created.metadata.name ?? e.metadata.name, namespace, count: 1, first: stamp });
    } catch {
      // An Event is best effort (client-go retries a few times, then drops): never an error of the caller.
      this.o.onDrop?.('WriteFailed', reason);
    }
  }
}

function clip(s: string): string {
  const one = s.replace(/[\u0000-\u001f\u007f]+/g, ' ');
  return one.length <= MAX_MESSAGE ? one : `${one.slice(0, MAX_MESSAGE - 1)}…`;
}
