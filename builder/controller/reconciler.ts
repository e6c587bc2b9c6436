/**
 * The reconcile of the NodePoolOSConfigs in one hosted cluster, read top-down: for each config,
 * from what is observed now (observe.ts: the NodePool's token Secret, its Cluster API objects and
 * the HostedControlPlane on the management side; the user's config and Secrets, the nodes and the
 * build Jobs on the hosted side) through the decision (decide.ts, a pure function, which asks
 * for what it needs read by name: gather.ts) to what it makes happen (act.ts: a NodePoolOSBuild
 * record, a build Job in the hosted cluster, the hand-off ConfigMap, and the status that says so). Level-triggered and idempotent: names derive from a
 * hash of the inputs, so a retry or a restarted controller finds the Job it created.
 *
 * Two clients, one per side: `management` (in-cluster, confined to `namespace`, the HCP
 * namespace), read-mostly; `hosted` (the controller's own ServiceAccount in the hosted cluster)
 * for the user-facing API, its status and the builds in `buildNamespace`.
 */
import type { KubeObject, Resource, WatchEvent } from '../clusters/kube.js';
import { Act } from './act.js';
import { decide, type DecideSettings, Gathered } from './decide.js';
import { applyEvent, compactEvent, type EventEffect } from './events.js';
import { DEFAULT_LIMITS, type IntakeLimits, LIMIT_REASON, readConfig, refusalMessage } from './intake.js';
import { Gather } from './gather.js';
import { Cache, NPOSC, type Obj, type Observed } from './observe.js';
import type { ReconcilerOptions } from './options.js';
import { WorkQueue } from './queue.js';
import { BUILD_NAMESPACE } from '../api/types.js';

/** Decisions in one reconcile: each need is read once, unless what is observed changes meanwhile. */
const MAX_DECISIONS = 16;

export class Reconciler {
  private readonly now: () => Date;
  private readonly log: (msg: string, fields?: Record<string, unknown>) => void;
  private readonly limits: IntakeLimits;
  private readonly settings: DecideSettings;
  private readonly cache: Cache;
  private readonly gather: Gather;
  private readonly act: Act;

  constructor(private readonly o: ReconcilerOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...(o.intake ?? {}) };
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
    const buildNamespace = o.buildNamespace ?? BUILD_NAMESPACE;
    this.settings = { ...o, buildNamespace };
    this.cache = new Cache({ ...o, buildNamespace, limits: this.limits, log: this.log });
    this.gather = new Gather({ ...o, log: this.log });
    this.act = new Act({ ...o, buildNamespace, now: this.now, log: this.log, observed: () => this.cache.observed });
  }

  /** What is retained between passes (for tests of bounded memory). */
  retained(): { observed?: Observed; verified: number } {
    return { observed: this.cache.observed, verified: this.act.verifiedCount };
  }

  /** Whether a full list is wanted (refused configs left untracked, the tracked ones written); clears it. */
  takeRelist(): boolean {
    const r = this.cache.relistWanted;
    this.cache.relistWanted = false;
    return r;
  }

  /** Whether `name` is a refused config waiting for its status write (run.ts spaces those out). */
  isPendingRefusal(name: string): boolean {
    const obs = this.cache.observed;
    return !!obs?.refusals.pending.has(name) && !obs.configs.has(name);
  }

  /** The refused configs waiting for their status write, in name order (run.ts spaces them out). */
  pendingRefusals(): string[] {
    return [...(this.cache.observed?.refusals.pending ?? [])].sort();
  }

  /** Lists both sides once (observe.ts); a config that is gone no longer needs its verification memory. */
  async observe(): Promise<Observed> {
    const obs = await this.cache.observe();
    this.act.forgetAllBut(obs.configs);
    return obs;
  }

  /** A watch event cut to what `applyEvent` reads of its kind (events.ts). */
  compactEvent(r: Resource, e: { type: WatchEvent['type']; object: KubeObject }): { type: WatchEvent['type']; object: KubeObject } {
    return compactEvent(r, e);
  }

  /** Applies one watch event to the cache and says which configs it concerns (events.ts). */
  applyEvent(r: Resource, e: { type: string; object: KubeObject }): EventEffect {
    return applyEvent(this.cache.observed, r, e, { limits: this.limits, pullSecretName: this.o.pullSecretName, forget: (c) => this.act.forget(c) });
  }

  /** Lists the HCP namespace's Secrets again; the configs their change concerns (the pull keys follow the pull secret). */
  async refreshSecrets(): Promise<string[]> {
    const r = await this.cache.refreshSecrets();
    if (r.pullSecret) await this.act.publishPullKeys(this.cache.observed!);
    return r.configs;
  }

  /** Removes what belongs to configs that are gone, and publishes the pull keys (act.ts). */
  removeOrphans(obs: Observed): Promise<void> {
    return this.act.removeOrphans(obs);
  }

  /** Observes, removes what belongs to configs that are gone, then reconciles every config (bounded concurrency). */
  async reconcileAll(): Promise<void> {
    const obs = await this.observe();
    await this.removeOrphans(obs);
    const q = new WorkQueue({
      concurrency: this.o.workers ?? 4,
      process: async (k) => {
        await this.reconcileKey(k);
      },
      onError: (k, e) => this.log('reconcile failed', { nodePoolOSConfig: k, error: (e as Error).message }),
    });
    for (const k of [...obs.configs.keys(), ...obs.refusals.pending].sort()) q.add(k);
    await q.idle();
    q.stop();
  }

  /**
   * Reconciles one config from the last observation; says when to look again. A kept config is
   * read whole here (the cache holds a trimmed entry); a refused one gets its refusal status.
   */
  async reconcileKey(name: string): Promise<{ requeueAfterMs?: number }> {
    const obs = this.cache.observed ?? (await this.observe());
    if (obs.configs.has(name)) {
      const cfg = (await readConfig(this.o.hosted, NPOSC, name)) as Obj | undefined;
      if (!cfg || !obs.configs.has(name)) return {}; // gone: its DELETED event removes it
      return (await this.reconcileConfig(cfg, obs)) ?? {};
    }
    if (!obs.refusals.pending.has(name)) return {};
    try {
      const cfg = (await readConfig(this.o.hosted, NPOSC, name)) as Obj | undefined;
      if (cfg && !cfg.metadata.deletionTimestamp && !obs.configs.has(name)) await this.act.setConfigStatus(cfg, { degraded: [LIMIT_REASON, refusalMessage(this.limits)] });
    } finally {
      obs.refusals.pending.delete(name);
      if (!obs.refusals.pending.size && obs.refusals.untracked > 0) this.cache.relistWanted = true;
    }
    return {};
  }

  /**
   * One config, top-down: decide on what is observed (decide.ts, pure); while the decision asks
   * for something by name, gather it (gather.ts) and decide again; then act on it (act.ts).
   */
  async reconcileConfig(cfg: Obj, obs: Observed): Promise<{ requeueAfterMs?: number } | void> {
    const got = new Gathered();
    // The config does not change within a reconcile: its webhook rules run once, however often it is decided on.
    let problems: string[] | undefined;
    const settings: DecideSettings = { ...this.settings, validateConfig: (c) => (problems ??= this.o.validateConfig(c)) };
    for (let round = 1; ; round++) {
      const d = decide({ cfg, obs, got, settings, now: this.now() });
      if ('need' in d) {
        if (round >= MAX_DECISIONS) throw new Error(`the inputs of NodePoolOSConfig ${cfg.metadata.name} kept changing while they were read; the next event reconciles it again`);
        await this.gather.answer(d, got, obs);
        continue;
      }
      return this.act.apply(cfg, d, obs);
    }
  }
}
