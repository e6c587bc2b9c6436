/**
 * Dedupe of provider-layer builds across the management cluster: the fleet component
 * is one process per management cluster, and every NodePool of every HostedCluster on one
 * (release digest, arch, stream, layer digest, builder image digest) needs the same image. This
 * registry keeps one entry per such key, so 500 HCPs upgrading at once cause one build per key,
 * not 500. Every part of the key is a digest or a closed value: a tag is refused, since two
 * builds of one tag need not be the same build.
 *
 * Bounded: at most `maxConcurrent` builds run; the rest wait in order of first request. A failure
 * is shared too (one failing build is not retried by each of 500 HCPs) and becomes retryable
 * after `failureRetrySeconds`. Finished entries beyond `maxEntries` are dropped oldest first;
 * running and queued ones never are.
 */
import { createHash } from 'node:crypto';
import type { ImageKey, ImageState } from './gate.js';

export interface BuildKey {
  releaseDigest: string;
  arch: string;
  stream?: string;
  layerDigest: string;
  builderImageDigest: string;
  /**
   * Where the release can be pulled by that digest (`repo@sha256:…`): not part of the key (the
   * digest is the content), only what the build pulls; the first requester's is used.
   */
  releasePullSpec?: string;
}

export interface BuildRegistryOptions {
  /** Builds the provider layer for a key and answers the pushed, verified image (`repo@sha256:…`); pushes it under `buildTag(key)` too. */
  build: (key: BuildKey) => Promise<{ image: string }>;
  /**
   * The image already built for a key, if the registry has it (`buildTag(key)` resolved to a
   * digest and verified): asked before building, so a restarted fleet component, which has lost
   * this registry's memory, does not rebuild what exists.
   */
  lookup?: (key: BuildKey) => Promise<{ image: string } | undefined>;
  maxConcurrent?: number;
  failureRetrySeconds?: number;
  maxEntries?: number;
  now?: () => Date;
  /** Requests (started or deduplicated) and outcomes, for metrics (builder/metrics/fleet.ts). */
  telemetry?: { buildRequested(outcome: 'Started' | 'Deduplicated' | 'FailedRecently' | 'Invalid'): void; buildFinished(ok: boolean): void };
}

type Entry =
  | { state: 'queued'; seq: number }
  | { state: 'running'; seq: number; since: Date }
  | { state: 'done'; seq: number; image: string }
  | { state: 'failed'; seq: number; reason: string; at: Date };

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;
const ARCHES = new Set(['amd64', 'arm64', 'ppc64le', 's390x']);
const MAX_REASON = 512;

export function buildKeyId(k: BuildKey): string {
  return [k.releaseDigest, k.arch, k.stream ?? '', k.layerDigest, k.builderImageDigest].join(' ');
}

/** The tag a key's image is pushed under besides its digest: the same key, the same tag, on any restart. */
export function buildTag(k: BuildKey): string {
  return `ocb-${createHash('sha256').update(buildKeyId(k)).digest('hex').slice(0, 40)}`;
}

export function validateBuildKey(k: BuildKey): string | undefined {
  for (const [name, v] of [['release digest', k.releaseDigest], ['layer digest', k.layerDigest], ['builder image digest', k.builderImageDigest]] as const) {
    if (!DIGEST_RE.test(v)) return `${name} ${JSON.stringify(v)} is not a sha256 digest: builds are deduplicated by content, never by tag`;
  }
  if (!ARCHES.has(k.arch)) return `arch ${JSON.stringify(k.arch)} is not one of ${[...ARCHES].join(', ')}`;
  if (k.stream !== undefined && !/^[a-z0-9][a-z0-9.-]{0,62}$/.test(k.stream)) return `stream ${JSON.stringify(k.stream)} is not a stream name`;
  return undefined;
}

export class BuildRegistry {
  private readonly entries = new Map<string, { key: BuildKey; e: Entry }>();
  private seq = 0;
  private running = 0;
  private readonly now: () => Date;
  private readonly maxConcurrent: number;
  private readonly failureRetryMs: number;
  private readonly maxEntries: number;
  private readonly settled = new Set<() => void>();

  constructor(private readonly o: BuildRegistryOptions) {
    this.now = o.now ?? (() => new Date());
    this.maxConcurrent = o.maxConcurrent ?? 4;
    this.failureRetryMs = (o.failureRetrySeconds ?? 900) * 1000;
    this.maxEntries = o.maxEntries ?? 4096;
  }

  /** The image for a key, starting (or queueing) its one build if there is none. Never blocks on a build. */
  ensure(key: BuildKey): ImageState {
    const invalid = validateBuildKey(key);
    if (invalid) {
      this.o.telemetry?.buildRequested('Invalid');
      return { failed: invalid };
    }
    const id = buildKeyId(key);
    const have = this.entries.get(id);
    if (have) {
      const e = have.e;
      const failedRecently = e.state === 'failed' && this.now().getTime() - e.at.getTime() < this.failureRetryMs;
      if (e.state !== 'failed' || failedRecently) this.o.telemetry?.buildRequested(failedRecently ? 'FailedRecently' : 'Deduplicated');
      if (e.state === 'done') return { image: e.image };
      if (e.state === 'running') return { pending: `building since ${e.since.toISOString()}` };
      if (e.state === 'queued') return { pending: `queued behind ${this.running} running build(s)` };
      if (failedRecently) return { failed: e.reason };
      this.entries.delete(id); // retry: a new entry below
    }
    this.o.telemetry?.buildRequested('Started');
    this.entries.set(id, { key, e: { state: 'queued', seq: ++this.seq } });
    this.pump();
    const e = this.entries.get(id)!.e;
    return e.state === 'running' ? { pending: `building since ${e.since.toISOString()}` } : { pending: `queued behind ${this.running} running build(s)` };
  }

  /** Counts by state (for metrics and tests). */
  stats(): Record<Entry['state'], number> {
    const s = { queued: 0, running: 0, done: 0, failed: 0 };
    for (const { e } of this.entries.values()) s[e.state]++;
    return s;
  }

  /** Calls `f` each time a build finishes (done or failed); returns how to stop. The fleet loop re-settles the NodePools waiting on one. */
  onFinished(f: () => void): () => void {
    this.finishedListeners.add(f);
    return () => this.finishedListeners.delete(f);
  }
  private readonly finishedListeners = new Set<() => void>();

  /** Resolves when no build is running or queued (tests; a graceful stop). */
  idle(): Promise<void> {
    if (this.running === 0 && this.stats().queued === 0) return Promise.resolve();
    return new Promise((res) => {
      const f = () => {
        if (this.running === 0 && this.stats().queued === 0) {
          this.settled.delete(f);
          res();
        }
      };
      this.settled.add(f);
    });
  }

  private pump(): void {
    while (this.running < this.maxConcurrent) {
      let next: [string, { key: BuildKey; e: Entry }] | undefined;
      for (const kv of this.entries) if (kv[1].e.state === 'queued' && (!next || kv[1].e.seq < next[1].e.seq)) next = kv;
      if (!next) return;
      const [id, entry] = next;
      entry.e = { state: 'running', seq: entry.e.seq, since: this.now() };
      this.running++;
      const seq = entry.e.seq;
      const build = (): Promise<{ image: string }> => {
        try {
          return this.o.build(entry.key);
        } catch (err) {
          return Promise.reject(err);
        }
      };
      const lookup = this.o.lookup;
      const p = lookup ? (async () => (await lookup(entry.key)) ?? (await build()))() : build();
      p.then(
        (r) => this.finish(id, seq, DIGEST_IMAGE_RE.test(r?.image ?? '') ? { state: 'done', seq, image: r.image } : { state: 'failed', seq, reason: `the build answered ${JSON.stringify(r?.image)}, not an image by digest`, at: this.now() }),
        (err) => this.finish(id, seq, { state: 'failed', seq, reason: String(err instanceof Error ? err.message : err).slice(0, MAX_REASON), at: this.now() }),
      );
    }
  }

  private finish(id: string, seq: number, e: Entry): void {
    this.running--;
    this.o.telemetry?.buildFinished(e.state === 'done');
    const entry = this.entries.get(id);
    if (entry && entry.e.seq === seq) entry.e = e;
    this.evict();
    this.pump();
    for (const f of [...this.settled]) f();
    for (const f of [...this.finishedListeners]) f();
  }

  private evict(): void {
    if (this.entries.size <= this.maxEntries) return;
    const finished = [...this.entries].filter(([, v]) => v.e.state === 'done' || v.e.state === 'failed').sort((a, b) => a[1].e.seq - b[1].e.seq);
    for (const [id] of finished.slice(0, this.entries.size - this.maxEntries)) this.entries.delete(id);
  }
}

const DIGEST_IMAGE_RE = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

/**
 * The gate's `imageFor` seam answered from the registry: the NodePool's release pull spec is
 * resolved to its digest (`resolveReleaseDigest`, the registry's answer, not the spec's text)
 * before it becomes part of a key.
 */
export function imageForFromRegistry(o: {
  registry: BuildRegistry;
  resolveReleaseDigest: (releaseImage: string) => Promise<string>;
  layerDigest: (layer: string) => string;
  builderImageDigest: string;
}): (k: ImageKey) => Promise<ImageState> {
  return async (k) => {
    let releaseDigest: string;
    try {
      releaseDigest = await o.resolveReleaseDigest(k.releaseImage);
    } catch (e) {
      return { pending: `resolving ${k.releaseImage}: ${String(e instanceof Error ? e.message : e).slice(0, MAX_REASON)}` };
    }
    const at = k.releaseImage.indexOf('@');
    const repo = at >= 0 ? k.releaseImage.slice(0, at) : k.releaseImage.replace(/:[^:/]+$/, '');
    return o.registry.ensure({ releaseDigest, arch: k.arch, ...(k.stream ? { stream: k.stream } : {}), layerDigest: o.layerDigest(k.layer), builderImageDigest: o.builderImageDigest, releasePullSpec: `${repo}@${releaseDigest}` });
  };
}
