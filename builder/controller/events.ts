/**
 * What one watch event changes in the cache (observe.ts) and which configs it queues: the event's
 * object is trimmed as `Cache.observe` trims its kind, applied, and compared with what was there,
 * so a change decisions do not read (a Node's heartbeat, a Machine's status) queues nothing.
 */
import type { KubeObject, WatchEvent } from '../clusters/kube.js';
import { RESOURCES, type Resource } from '../clusters/kube.js';
import { CONFIG_LABEL } from './build-job.js';
import { HANDOFF_PREFIX, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP } from './handoff.js';
import { applyConfigEvent, type IntakeLimits, trimConfig } from './intake.js';
import { configsOf, handoffEntry, hcpFacts, jobFinished, nodesByPool, NPOSB, NPOSC, type Obj, type Observed, trimCapi, trimJob, trimNode } from './observe.js';
import type { Condition } from './status.js';
import { isTokenSecret } from '../clusters/token-secret.js';

/**
 * What one watch event means for the configs: `owner` are the configs the object belongs to (its
 * own write comes back as such an event: the caller drops them then), `concerned` other configs
 * whose decisions read it; `relistSecrets`: a token Secret or the pull secret changed
 * (`Cache.refreshSecrets`); `orphans`: a config is gone (`Act.removeOrphans`).
 */
export interface EventEffect {
  owner: string[];
  concerned: string[];
  relistSecrets?: boolean;
  orphans?: boolean;
  /** A kept config went while others were refused: a full list takes the best of them in. */
  relist?: boolean;
}

export interface EventContext {
  limits: IntakeLimits;
  pullSecretName: string;
  /** A config left the kept set: what is remembered about it goes. */
  forget: (config: string) => void;
}

/**
 * The event with its object cut to what `applyEvent` reads of its kind, for events held while a
 * full observation is in flight (run.ts): what is held is bounded by the trimmed sizes, never by
 * what the tenant put in an object.
 */
export function compactEvent(r: Resource, e: { type: WatchEvent['type']; object: KubeObject }): { type: WatchEvent['type']; object: KubeObject } {
  const o = e.object as Obj;
  if (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED') return { type: e.type, object: { metadata: {} } };
  const labelOnly = (): KubeObject => ({ metadata: { name: o.metadata?.name, labels: { [CONFIG_LABEL]: String(o.metadata?.labels?.[CONFIG_LABEL] ?? '') } } });
  switch (r.plural) {
    case NPOSC.plural:
      return { type: e.type, object: typeof o.metadata?.name === 'string' ? trimConfig(o) : { metadata: {} } };
    case NPOSB.plural:
    case RESOURCES.pods.plural:
      return { type: e.type, object: labelOnly() };
    case RESOURCES.jobs.plural:
      return { type: e.type, object: trimJob(o) };
    case RESOURCES.nodes.plural:
      return { type: e.type, object: trimNode(o) };
    case RESOURCES.machines.plural:
    case RESOURCES.machineSets.plural:
    case RESOURCES.machineDeployments.plural:
      return { type: e.type, object: trimCapi(o) };
    default:
      return e; // management-side kinds the tenant cannot write (Secrets, ConfigMaps, the HostedControlPlane)
  }
}

/**
 * Applies one watch event to the cache the reconciles read (the last observation, trimmed as
 * `Cache.observe` trims) and says which configs it concerns.
 */
export function applyEvent(obs: Observed | undefined, r: Resource, e: { type: string; object: KubeObject }, ctx: EventContext): EventEffect {
  const none: EventEffect = { owner: [], concerned: [] };
  if (!obs || (e.type !== 'ADDED' && e.type !== 'MODIFIED' && e.type !== 'DELETED')) return none;
  const gone = e.type === 'DELETED';
  const o = e.object as Obj;
  const name = o.metadata?.name;
  if (typeof name !== 'string') return none;
  const configLabel = o.metadata.labels?.[CONFIG_LABEL];
  const ofLabel = typeof configLabel === 'string' && configLabel ? [configLabel] : [];
  switch (r.plural) {
    case NPOSC.plural: {
      const had = obs.configs.has(name);
      const r = applyConfigEvent(obs.configs, obs.refusals, o, gone, new Set(obs.inputs.keys()), ctx.limits);
      if (!obs.configs.has(name)) ctx.forget(name);
      if (gone) return had ? { owner: r.owner, concerned: [], orphans: true, ...(r.relist ? { relist: true } : {}) } : none;
      // The same object (a write of ours already in the cache) is not news.
      return r.news ? { owner: r.owner, concerned: [] } : none;
    }
    case NPOSB.plural:
    case RESOURCES.pods.plural:
      return { owner: ofLabel, concerned: [] };
    case RESOURCES.jobs.plural: {
      const i = obs.jobs.findIndex((j) => j.metadata.name === name);
      const prev = i >= 0 ? obs.jobs[i] : undefined;
      const next = gone ? undefined : trimJob(o);
      if (i >= 0) obs.jobs.splice(i, 1);
      if (next) obs.jobs.push(next);
      // A Job that ends or goes frees a build slot for the configs waiting for one.
      const freed = prev && !jobFinished(prev) && (!next || jobFinished(next));
      return { owner: ofLabel, concerned: freed ? configsWaiting(obs, 'Building', 'WaitingForBuildSlot') : [] };
    }
    case RESOURCES.nodes.plural: {
      const i = obs.nodes.findIndex((n) => n.metadata.name === name);
      const prev = i >= 0 ? obs.nodes[i] : undefined;
      const next = gone ? undefined : trimNode(o);
      if (JSON.stringify(prev) === JSON.stringify(next)) return none;
      if (i >= 0) obs.nodes.splice(i, 1);
      if (next) obs.nodes.push(next);
      obs.hostedNodesByPool = nodesByPool(obs.nodes);
      const pools = new Set([prev, next].map((n) => n?.metadata.labels?.['hypershift.openshift.io/nodePool']).filter((p): p is string => !!p));
      // Capacity changed: the configs waiting for a node may start; the NodePool's own config shows its node count.
      return { owner: [], concerned: [...configsOf(obs, pools), ...configsWaiting(obs, 'WaitingForCapacity')] };
    }
    case RESOURCES.machines.plural:
    case RESOURCES.machineSets.plural:
    case RESOURCES.machineDeployments.plural: {
      const list = r.plural === RESOURCES.machines.plural ? obs.capi.machines : r.plural === RESOURCES.machineSets.plural ? obs.capi.machineSets : obs.capi.machineDeployments;
      const i = list.findIndex((m) => m.metadata.name === name);
      const prev = i >= 0 ? list[i] : undefined;
      const next = gone ? undefined : trimCapi(o);
      if (JSON.stringify(prev) === JSON.stringify(next)) return none;
      if (i >= 0) list.splice(i, 1);
      if (next) list.push(next);
      return { owner: [], concerned: configsOf(obs, capiNodePools([prev, next])) };
    }
    case RESOURCES.hostedControlPlanes.plural: {
      const next = hcpFacts(gone ? undefined : o);
      const same = JSON.stringify(next) === JSON.stringify({ imageContentSources: obs.imageContentSources, nodeTuningDisabled: obs.nodeTuningDisabled });
      Object.assign(obs, next);
      return same ? none : { owner: [], concerned: [...obs.configs.keys()] };
    }
    case RESOURCES.configMaps.plural: {
      if (name === PROVIDER_IMAGES_CONFIGMAP) {
        const prev = obs.providerImages;
        const next = gone ? undefined : parseProviderImages(o);
        if (next) obs.providerImages = next;
        else delete obs.providerImages;
        // The layer came, went or changed: every config; else the NodePools whose entry changed.
        if (prev?.layer !== next?.layer) return { owner: [], concerned: [...obs.configs.keys()] };
        const pools = new Set<string>();
        for (const k of new Set([...(prev?.entries.keys() ?? []), ...(next?.entries.keys() ?? [])])) if (JSON.stringify(prev?.entries.get(k)) !== JSON.stringify(next?.entries.get(k))) pools.add(k);
        return pools.size ? { owner: [], concerned: configsOf(obs, pools) } : none;
      }
      if (!name.startsWith(HANDOFF_PREFIX)) return none;
      const np = name.slice(HANDOFF_PREFIX.length);
      const prev = obs.handoffs.get(np);
      const next = gone ? undefined : handoffEntry(o)?.entry;
      if (next) obs.handoffs.set(np, next);
      else obs.handoffs.delete(np);
      if (JSON.stringify(prev) === JSON.stringify(next)) return none;
      const owners = new Set([prev?.config, next?.config].filter((c): c is string => !!c));
      return { owner: [...owners], concerned: configsOf(obs, new Set([np])) };
    }
    case RESOURCES.secrets.plural:
      return name === ctx.pullSecretName || isTokenSecret(o) ? { owner: [], concerned: [], relistSecrets: true } : none;
    default:
      return none;
  }
}

/** Configs whose last status says they wait for `type`/`reason` (capacity, a build slot). */
function configsWaiting(obs: Observed, type: string, reason?: string): string[] {
  const out: string[] = [];
  for (const [name, c] of obs.configs) {
    const x = ((c.status?.conditions ?? []) as Condition[]).find((k) => k.type === type);
    if (x && x.status === 'True' && (reason === undefined || x.reason === reason)) out.push(name);
  }
  return out;
}

/** NodePool names trimmed Cluster API objects belong to (their own or template annotation, or their bootstrap Secret's name). */
function capiNodePools(objs: (Obj | undefined)[]): Set<string> {
  const out = new Set<string>();
  for (const o of objs) {
    if (!o) continue;
    for (const a of [o.metadata.annotations, o.spec?.template?.metadata?.annotations] as (Record<string, string> | undefined)[]) {
      const key = a?.['hypershift.openshift.io/nodePool'];
      if (typeof key === 'string' && key.includes('/')) out.add(key.slice(key.indexOf('/') + 1));
    }
    const ds = o.spec?.bootstrap?.dataSecretName;
    // `user-data-<nodePool>-<hash>`: the NodePool name may hold dashes, so every prefix is a candidate.
    if (typeof ds === 'string' && ds.startsWith('user-data-')) {
      const rest = ds.slice('user-data-'.length);
      for (let i = rest.indexOf('-'); i > 0; i = rest.indexOf('-', i + 1)) out.add(rest.slice(0, i));
    }
  }
  return out;
}
