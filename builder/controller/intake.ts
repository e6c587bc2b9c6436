/**
 * What the controller takes in of the tenant's NodePoolOSConfigs (docs/design/controller.md).
 * Hosted-cluster admins can create as many configs as their API server holds, each up to the
 * CRD's bounds (four 4 KiB Containerfiles, eight 32 KiB condition messages), so:
 * - the cache keeps a trimmed entry per config (`ConfigEntry`: name, uid, generation, NodePool,
 *   creation time, condition type/status/reason, a digest of the rest to tell news from echoes);
 *   a reconcile reads the whole object with one GET when it acts on it;
 * - at most `maxConfigs` are acted on per hosted cluster, chosen deterministically (`rankBefore`:
 *   those named after a NodePool of this hosted cluster first, then the oldest by
 *   creationTimestamp, then by name); lists stream through a bounded selection, so memory never
 *   grows with the number of configs beyond the cap;
 * - the others are refused: each gets `Degraded` `ConfigLimitExceeded` once per generation,
 *   written at a bounded rate; at most `maxRefusalsTracked` names wait for that write at a time
 *   (the rest are counted, and found again by the next full list);
 * - configs are listed in small pages (`HOSTED_PAGE_SIZE`), so one page of maximal objects stays
 *   far below the heap.
 */
import { createHash } from 'node:crypto';
import { apiVersionOf, type Kube, type KubeObject, type Resource } from '../clusters/kube.js';

/**
 * Configs acted on per hosted cluster: the most the controller's footprint bench has acted on
 * within the package's limits (1,000 NodePools with a config each). A NodePool has one config at
 * most (the config is named after it), so only a hosted cluster with more NodePools than this, or
 * configs named after no NodePool, has configs refused.
 */
export const MAX_CONFIGS = 1000;
/** Refused configs remembered at once for their status write (names only; the rest wait for the next list). */
export const MAX_REFUSALS_TRACKED = 2000;
/** Least time between two refusal status writes: 10 per second per hosted cluster. */
export const REFUSAL_INTERVAL_MS = 100;
/**
 * Page size of every list of tenant-writable kinds (configs, build records, Jobs, pods, Nodes).
 * An object can reach the API server's request limit (etcd's 1.5 MiB); 20 of them are ~30 MiB of
 * JSON, a page of 500 (the default) could not even be read (`Kube`'s 64 MiB response cap).
 */
export const HOSTED_PAGE_SIZE = 20;
export const LIMIT_REASON = 'ConfigLimitExceeded';
/** Longest condition type or reason kept in an entry (the CRD allows 316 and 1024; decisions compare short ones). */
const MAX_KEPT_REASON = 64;

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };

/** What decisions read of a config between reconciles; the object itself is read when acted on. */
export interface ConfigEntry extends KubeObject {
  metadata: { name: string; uid?: string; generation?: number; resourceVersion?: string; creationTimestamp?: string; deletionTimestamp?: string };
  spec: { nodePool: { name: string } };
  status: { conditions: { type: string; status: string; reason: string }[] };
  /** sha256 of the object but for resourceVersion and managedFields: equal digests, nothing new. */
  digest: string;
  /** It carries this generation's ConfigLimitExceeded status. */
  refusalWritten: boolean;
}

/** The intake's state next to the kept entries (part of the observation). */
export interface Refusals {
  /** Refused configs whose refusal status is to be written (at most `maxRefusalsTracked`). */
  pending: Set<string>;
  /**
   * Configs refused at the last full list and by events since (those already carrying the
   * refusal included); an upper bound (a refused config that goes is not known by name).
   */
  total: number;
  /** Refused configs not remembered (`pending` was full): the next full list finds them. */
  untracked: number;
}

export interface IntakeLimits {
  maxConfigs: number;
  maxRefusalsTracked: number;
}

export const DEFAULT_LIMITS: IntakeLimits = { maxConfigs: MAX_CONFIGS, maxRefusalsTracked: MAX_REFUSALS_TRACKED };

/** Entries made by `trimConfig` (an event compacted before it is applied is not trimmed twice). */
const ENTRIES = new WeakSet<object>();

export function trimConfig(o: KubeObject): ConfigEntry {
  if (ENTRIES.has(o)) return o as ConfigEntry;
  const c = o as Obj;
  const md = c.metadata;
  const digest = createHash('sha256')
    .update(JSON.stringify({ ...c, apiVersion: undefined, kind: undefined }, (k, x) => (k === 'resourceVersion' || k === 'managedFields' ? undefined : x)))
    .digest('hex');
  // Only short strings are kept, whole: a slice of a long one would keep all of it alive (V8's
  // sliced strings point into their parent), and no decision compares a long type or reason.
  const short = (v: unknown) => (typeof v === 'string' && v.length <= MAX_KEPT_REASON ? v : '');
  const conditions = (Array.isArray(c.status?.conditions) ? (c.status!.conditions as Record<string, unknown>[]) : [])
    .slice(0, 16)
    .filter((x) => short(x?.type) !== '')
    .map((x) => ({ type: short(x.type), status: short(x.status), reason: short(x.reason) }));
  const refusalWritten = conditions.some((x) => x.type === 'Degraded' && x.status === 'True' && x.reason === LIMIT_REASON) && c.status?.observedGeneration === md.generation;
  const np = c.spec?.nodePool?.name;
  const entry: ConfigEntry = {
    metadata: {
      name: md.name!,
      ...(md.uid ? { uid: md.uid } : {}),
      ...(typeof md.generation === 'number' ? { generation: md.generation } : {}),
      ...(md.resourceVersion ? { resourceVersion: md.resourceVersion } : {}),
      ...(typeof md.creationTimestamp === 'string' ? { creationTimestamp: md.creationTimestamp } : {}),
      ...(md.deletionTimestamp ? { deletionTimestamp: md.deletionTimestamp } : {}),
    },
    spec: { nodePool: { name: typeof np === 'string' && np.length <= 253 ? np : '' } },
    status: { conditions },
    digest,
    refusalWritten,
  };
  ENTRIES.add(entry);
  return entry;
}

/** The intake order: configs named after a NodePool of this hosted cluster, then oldest, then by name. */
export function rankBefore(a: ConfigEntry, b: ConfigEntry, nodePools: ReadonlySet<string>): number {
  const pa = nodePools.has(a.metadata.name) ? 0 : 1;
  const pb = nodePools.has(b.metadata.name) ? 0 : 1;
  if (pa !== pb) return pa - pb;
  const ta = a.metadata.creationTimestamp ?? '';
  const tb = b.metadata.creationTimestamp ?? '';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;
}

/** The refusal, in words (stable: written once per generation). */
export function refusalMessage(limits: IntakeLimits): string {
  return (
    `this hosted cluster has more NodePoolOSConfigs than the ${limits.maxConfigs} the controller acts on (those named after a NodePool of this hosted cluster first, ` +
    'then the oldest by creationTimestamp, then by name); this one is not built or changed. Delete the configs that are not needed: it is taken in when a place is free'
  );
}

/** A refused config: remembered for its status write unless it carries it or the list is full. */
function refuse(r: Refusals, e: ConfigEntry, limits: IntakeLimits): boolean {
  r.total++;
  if (e.refusalWritten) return false;
  if (r.pending.size >= limits.maxRefusalsTracked) {
    r.untracked++;
    return false;
  }
  r.pending.add(e.metadata.name);
  return true;
}

/**
 * One config, whole, for a reconcile: a list with `fieldSelector=metadata.name=<name>`, which the
 * Role's `list` verb allows (kube-apiserver serves metadata.name field selectors for custom
 * resources; docs/design/controller.md), so no `get` verb is added.
 */
export async function readConfig(hosted: Kube, r: Resource, name: string): Promise<KubeObject | undefined> {
  const q = new URLSearchParams({ fieldSelector: `metadata.name=${name}` });
  const res = (await hosted.request('GET', `${hosted.path(r)}?${q}`)) as { items?: KubeObject[] };
  const it = (res.items ?? []).find((o) => o.metadata?.name === name);
  return it ? { ...it, apiVersion: apiVersionOf(r), kind: r.kind } : undefined;
}

/**
 * Lists every config in pages of `HOSTED_PAGE_SIZE` and keeps the first `maxConfigs` in intake
 * order: candidates collect up to twice the cap, then the worse half is refused (amortised
 * n log cap, at most 2 × cap entries held).
 */
export async function listConfigs(hosted: Kube, resource: Resource, nodePools: ReadonlySet<string>, limits: IntakeLimits): Promise<{ configs: Map<string, ConfigEntry>; refusals: Refusals }> {
  const refusals: Refusals = { pending: new Set(), total: 0, untracked: 0 };
  let candidates: ConfigEntry[] = [];
  const cut = () => {
    candidates.sort((a, b) => rankBefore(a, b, nodePools));
    for (const e of candidates.slice(limits.maxConfigs)) refuse(refusals, e, limits);
    candidates = candidates.slice(0, limits.maxConfigs);
  };
  await hosted.list(resource, {
    pageSize: HOSTED_PAGE_SIZE,
    keep: (o) => {
      if (typeof o.metadata?.name !== 'string') return undefined;
      candidates.push(trimConfig(o));
      if (candidates.length >= 2 * limits.maxConfigs) cut();
      return undefined;
    },
  });
  cut();
  return { configs: new Map(candidates.map((e) => [e.metadata.name, e])), refusals };
}

/**
 * A config's watch event applied to the kept entries and the refusals. `owner`: the configs to
 * reconcile (the config itself when kept or newly refused; a kept config it displaced);
 * `relist`: a kept config went while others were refused, so the best of them is taken in by a
 * full list (refused configs are not all remembered).
 */
export function applyConfigEvent(
  configs: Map<string, ConfigEntry>,
  refusals: Refusals,
  o: KubeObject,
  gone: boolean,
  nodePools: ReadonlySet<string>,
  limits: IntakeLimits,
): { owner: string[]; relist?: boolean; news: boolean } {
  const name = o.metadata.name!;
  const prev = configs.get(name);
  if (gone) {
    refusals.pending.delete(name);
    if (!prev) return { owner: [], news: false };
    configs.delete(name);
    return { owner: [name], news: true, ...(refusals.total > 0 ? { relist: true } : {}) };
  }
  const next = trimConfig(o);
  if (prev) {
    configs.set(name, next);
    return { owner: [name], news: prev.digest !== next.digest };
  }
  if (configs.size < limits.maxConfigs) {
    refusals.pending.delete(name);
    configs.set(name, next);
    return { owner: [name], news: true };
  }
  let worst: ConfigEntry | undefined;
  for (const e of configs.values()) if (!worst || rankBefore(e, worst, nodePools) > 0) worst = e;
  if (worst && rankBefore(next, worst, nodePools) < 0) {
    // A better-ranked config (one named after a NodePool) takes the place of the worst kept one.
    configs.delete(worst.metadata.name);
    refusals.pending.delete(name);
    configs.set(name, next);
    refuse(refusals, { ...worst, refusalWritten: false }, limits);
    return { owner: [name, worst.metadata.name], news: true };
  }
  // Refused: reconciled (its refusal written) unless it carries the refusal already.
  refusals.pending.delete(name);
  const write = refuse(refusals, next, limits);
  return { owner: write ? [name] : [], news: write };
}

/** Build Jobs (labelled as ours, which the tenant can forge) kept in one observation (~200 bytes each). */
export const MAX_JOBS_OBSERVED = 5000;
