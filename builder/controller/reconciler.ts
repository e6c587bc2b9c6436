/**
 * The reconcile: for each NodePoolOSConfig in the hosted cluster, from what is observed now (the
 * NodePool's token Secret, its Cluster API objects and the HostedControlPlane on the management
 * side; the user's Containerfile and Secrets, the nodes and the build Job on the hosted side) to
 * what should exist (a NodePoolOSBuild record, a build Job in the hosted cluster, the hand-off
 * ConfigMap) and the status that says so. Level-triggered and idempotent: names derive from a hash
 * of the inputs, so a retry or a restarted controller finds the Job it created.
 *
 * Trust (docs/design/threat-model.md "Threat model"): everything in the hosted cluster — the build Job, its
 * pods' termination messages, the NodePoolOSBuild records and their status, Nodes — is writable
 * by the tenant. Those objects decide only what happens to the tenant's own build; the one
 * management-side write (the hand-off) happens only for a digest `verifyImage` checked in the
 * registry, and the decisions that matter on the management side read management-side state.
 *
 * Two clients, one per side: `management` (in-cluster, confined to `namespace`, the HCP
 * namespace), read-mostly; `hosted` (the controller's own ServiceAccount in the hosted cluster)
 * for the user-facing API, its status and the builds in `buildNamespace`.
 */
import type { BuildTelemetry } from '../metrics/controller.js';
import type { InvolvedObject } from '../metrics/events.js';
import { createHash } from 'node:crypto';
import { isAlreadyExists, isConflict, Kube, KubeObject, RESOURCES, type Resource, type WatchEvent } from '../clusters/kube.js';
import {
  buildConfigMap,
  builderImageFor,
  buildJob,
  BuildJobInput,
  buildSecret,
  CONFIG_LABEL,
  runFiles,
  type RunMountName,
  JOB_NAME_LABEL,
  readJobEnd,
  MANAGED_BY,
  MANAGED_BY_VALUE,
} from './build-job.js';
import { handedOffImage, handoffConfigMap, HANDOFF_PREFIX, HANDOFF_RELEASE_ANNOTATION, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP, NO_PROVIDER_LAYER, providerImageFor, type ProviderImages, WANTED_RELEASE_ANNOTATION } from './handoff.js';
import { isTokenSecret, parseTokenSecret } from '../clusters/token-secret.js';
import { WorkQueue } from './queue.js';
import { applyConfigEvent, type ConfigEntry, DEFAULT_LIMITS, HOSTED_PAGE_SIZE, type IntakeLimits, LIMIT_REASON, listConfigs, MAX_JOBS_OBSERVED, readConfig, refusalMessage, type Refusals, trimConfig } from './intake.js';
import { baseOSTagForStream, trustBundleOf, USER_CA_BUNDLE, CURRENT_CONFIG_VERSION_ANNOTATION, nodePoolArch, nodesOnImage, nodePoolTolerations, nodeTuningDisabled, readyNodesOfArch, registriesConf, Toleration } from '../hypershift/nodepool-facts.js';
import { pullSecretAuthKeys, pushTargetCoveredByKeys, renderPullKeys } from '../registry/push-target.js';
import { UserError } from 'pkogen/model';
import { TENANT_LAYER_DISABLED_MESSAGE, type TenantLayer } from '../policy/layers.js';

import { BUILD_KIND, BUILD_NAMESPACE, BUILD_PLURAL, CONFIG_KIND, CONFIG_PLURAL, ENTITLEMENT_SECRET, GROUP, HOSTED_NAMESPACE, HOSTED_PULL_SECRET, PULL_KEYS_CONFIGMAP, RPM_GPG_SECRET, VERSION, YUM_REPOS_CONFIGMAP } from '../api/types.js';
import { nodePoolOSBuild } from '../api/generated/on-cluster-build.pkogen.io_v1alpha1.js';

export { GROUP as API_GROUP, VERSION as API_VERSION, HOSTED_NAMESPACE };
const API_GROUP = GROUP;
const API_VERSION = VERSION;
export const REBUILD_ANNOTATION = `${GROUP}/rebuild`;
/** On the hand-off ConfigMap: the build whose verified image it carries. */
export const HANDOFF_BUILD_ANNOTATION = `${GROUP}/nodepoolosbuild`;

export const NPOSC: Resource = { group: GROUP, version: VERSION, kind: CONFIG_KIND, plural: CONFIG_PLURAL, namespaced: false };
export const NPOSB: Resource = { group: GROUP, version: VERSION, kind: BUILD_KIND, plural: BUILD_PLURAL, namespaced: false };

export interface ReleaseImages {
  releaseDigest: string;
  baseOSImage: string;
  machineConfigOperatorImage: string;
  /** The release's version (`image-references` metadata.name): decides which image carries buildah. */
  version?: string;
}

/** What a release resolve needs to know about the NodePool (the release engineer's `resolve(releaseImage, {arch, stream, pullSecret})`). */
export interface ResolveOptions {
  arch: string;
  /** The token Secret's `os-stream` (`rhel-9`, `rhel-10`), when it has one. */
  stream?: string;
  /** `.dockerconfigjson` of the HCP's pull secret (management side). */
  pullSecret?: string;
}

/** The registry check of a built image before any hand-off (the release engineer's `verifyBuiltImage`). */
export interface VerifyImageInput {
  /** `repo@sha256:…` as the build reported it. */
  pushRef: string;
  arch: string;
  /** The base the image must descend from. */
  baseImageRef: string;
  /** `.dockerconfigjson` to read the pushed image with (the push Secret). */
  credentials?: string;
  /** `.dockerconfigjson` to read the base image with (the HCP's pull secret, management side). */
  baseCredentials?: string;
}
export type VerifyImageResult = { ok: true } | { ok: false; reason: string };

export interface NodePoolInputs {
  nodePoolName: string;
  /** The NodePool's namespace on the management cluster (from the token Secret's annotation). */
  nodePoolNamespace: string;
  secretName: string;
  releaseImage: string;
  /** The NodePool's machine config. Not a build input: it never enters the image (see hash). */
  config?: string;
  osStream?: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface ReconcilerOptions {
  management: Kube;
  hosted: Kube;
  /** The HCP namespace (POD_NAMESPACE). */
  namespace: string;
  /** Hosted-cluster namespace builds run in (default `BUILD_NAMESPACE`). */
  buildNamespace?: string;
  resolveRelease: (releaseImage: string, o: ResolveOptions) => Promise<ReleaseImages>;
  verifyImage: (i: VerifyImageInput) => Promise<VerifyImageResult>;
  nodePoolInputs: (secrets: KubeObject[]) => Map<string, NodePoolInputs | { error: string }>;
  /** The webhook's own rules, so a config admitted while the webhook was not yet registered is still refused. */
  validateConfig: (config: KubeObject) => string[];
  /** The provider's switch (`--tenant-layer`, builder/policy/layers.ts); Disabled: every config is Degraded TenantLayerDisabled, nothing is built. */
  tenantLayer?: TenantLayer;
  /** Name of the HCP's pull secret (HyperShift: `pull-secret`, key `.dockerconfigjson`). */
  pullSecretName: string;
  activeDeadlineSeconds: number;
  backoffLimit: number;
  historyLimit: number;
  userNamespaces: boolean;
  /** Our own image (builder/Containerfile carries buildah): the builder for NodePools whose release's MCO image has none (before 4.17). */
  ownBuilderImage?: string;
  proxyEnv?: { name: string; value: string }[];
  /** Builds running at once per hosted cluster (default 3). */
  maxConcurrentBuilds?: number;
  /** Least time between two builds of one config (default 60 s): a tenant flipping inputs cannot start builds in a loop. */
  minRebuildIntervalSeconds?: number;
  /** Configs reconciled at once (default 4). */
  workers?: number;
  /** How many configs are acted on, and refused ones remembered (intake.ts; default `DEFAULT_LIMITS`). */
  intake?: Partial<IntakeLimits>;
  now?: () => Date;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Metrics and Events at the places a build starts, ends, is handed off or a config degrades (builder/metrics/controller.ts). */
  telemetry?: BuildTelemetry;
}

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any>; data?: Record<string, string> };

/**
 * Everything a pass needs, observed once and trimmed to the fields the decisions read: the
 * retained size grows with the number of configs and NodePools, never with Secret data or
 * object sizes (a token Secret's data, a Node's images, a Machine's spec are not kept).
 */
export interface Observed {
  /** The configs acted on (at most `maxConfigs`), trimmed: a reconcile reads the object itself. */
  configs: Map<string, ConfigEntry>;
  /** The configs beyond the cap (intake.ts). */
  refusals: Refusals;
  inputs: Map<string, NodePoolInputs | { error: string }>;
  /** The HCP's pull secret text (management side, trusted). */
  pullSecret?: string;
  /** Its auth keys (what nodes can pull from), or why there are none. The one home of the first-boot pull check's input. */
  pullKeys: { keys: string[] } | { error: string };
  capi: { machineDeployments: Obj[]; machineSets: Obj[]; machines: Obj[] };
  imageContentSources?: unknown;
  nodeTuningDisabled: boolean;
  nodes: Obj[];
  /** Hand-off ConfigMaps by NodePool: the image and the build it came from. */
  handoffs: Map<string, HandoffEntry>;
  /** The fleet component's provider-layered images (handoff.ts PROVIDER_IMAGES_CONFIGMAP), when it publishes any here. */
  providerImages?: ProviderImages;
  /** Build Jobs in the hosted build namespace, trimmed. */
  jobs: Obj[];
  /** `<nodepool>/<config hash>` → the image our MachineConfig in that config names (from token Secrets). */
  imageByHash: Map<string, string>;
  /** Hosted Nodes labelled with each NodePool (tenant-writable: shown, never decided on). */
  hostedNodesByPool: Map<string, number>;
}

export interface HandoffEntry {
  name: string;
  image?: string;
  build?: string;
  config?: string;
  /** The release the fleet gate asks this NodePool's tenant layer to be built for (WANTED_RELEASE_ANNOTATION). */
  wantedRelease?: string;
}

/**
 * What one watch event means for the configs (`Reconciler.applyEvent`): `owner` are the configs
 * the object belongs to (its own write comes back as such an event: the caller drops them then),
 * `concerned` other configs whose decisions read it; `relistSecrets`: a token Secret or the pull
 * secret changed (`refreshSecrets`); `orphans`: a config is gone (`removeOrphans`).
 */
export interface EventEffect {
  owner: string[];
  concerned: string[];
  relistSecrets?: boolean;
  orphans?: boolean;
  /** A kept config went while others were refused: a full list takes the best of them in. */
  relist?: boolean;
}

const TERMINAL = ['Succeeded', 'Failed', 'Interrupted'];
const MAX_MESSAGE = 1024;

export class Reconciler {
  private readonly now: () => Date;
  private readonly log: (msg: string, fields?: Record<string, unknown>) => void;
  private readonly buildNamespace: string;
  /** Per config: the build whose digest passed verification (bounded by the number of configs). */
  private readonly verified = new Map<string, { build: string; pullSpec: string }>();
  private observed?: Observed;
  private readonly limits: IntakeLimits;
  /** Refusals were left untracked and the tracked ones are written: a full list finds the rest. */
  private relistWanted = false;

  constructor(private readonly o: ReconcilerOptions) {
    this.limits = { ...DEFAULT_LIMITS, ...(o.intake ?? {}) };
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
    this.buildNamespace = o.buildNamespace ?? BUILD_NAMESPACE;
  }

  /** What is retained between passes (for tests of bounded memory). */
  retained(): { observed?: Observed; verified: number } {
    return { observed: this.observed, verified: this.verified.size };
  }

  /** Whether a full list is wanted (refused configs left untracked, the tracked ones written); clears it. */
  takeRelist(): boolean {
    const r = this.relistWanted;
    this.relistWanted = false;
    return r;
  }

  /** Whether `name` is a refused config waiting for its status write (run.ts spaces those out). */
  isPendingRefusal(name: string): boolean {
    return !!this.observed?.refusals.pending.has(name) && !this.observed.configs.has(name);
  }

  /** The refused configs waiting for their status write, in name order (run.ts spaces them out). */
  pendingRefusals(): string[] {
    return [...(this.observed?.refusals.pending ?? [])].sort();
  }

  /**
   * Lists both sides once and keeps only what decisions read. The token Secrets come first: the
   * configs named after a NodePool are taken in first (intake.ts).
   */
  async observe(): Promise<Observed> {
    const m = this.o.management;
    const h = this.o.hosted;
    const ns = this.o.namespace;
    // Only token Secrets and the pull secret are kept past their page; no other Secret's data.
    const secrets = await m.list(RESOURCES.secrets, { namespace: ns, keep: (o) => (o.metadata.name === this.o.pullSecretName || isTokenSecret(o) ? o : undefined) });
    const facts = this.secretFacts(secrets.items);
    let jobsSeen = 0;
    const [intake, mds, mss, machines, hcps, cms, nodes, jobs] = await Promise.all([
      listConfigs(h, NPOSC, new Set(facts.inputs.keys()), this.limits),
      m.list(RESOURCES.machineDeployments, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.machineSets, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.machines, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.hostedControlPlanes, { namespace: ns }),
      m.list(RESOURCES.configMaps, { namespace: ns, labelSelector: `${MANAGED_BY}=${MANAGED_BY_VALUE}` }),
      h.list(RESOURCES.nodes, { pageSize: HOSTED_PAGE_SIZE, keep: trimNode }),
      // The tenant can label Jobs as ours: at most MAX_JOBS_OBSERVED are kept (pruning and orphan removal bring the rest in later).
      h.list(RESOURCES.jobs, { namespace: this.buildNamespace, labelSelector: `${MANAGED_BY}=${MANAGED_BY_VALUE}`, pageSize: HOSTED_PAGE_SIZE, keep: (j) => (++jobsSeen <= MAX_JOBS_OBSERVED ? trimJob(j as Obj) : undefined) }),
    ]);
    if (jobsSeen > MAX_JOBS_OBSERVED) this.log('more build Jobs than observed', { jobs: jobsSeen, observed: MAX_JOBS_OBSERVED });
    if (intake.refusals.total) this.log('nodepoolosconfigs beyond the limit refused', { refused: intake.refusals.total, limit: this.limits.maxConfigs, toWrite: intake.refusals.pending.size, untracked: intake.refusals.untracked });
    const hcp = hcps.items[0] as Obj | undefined;
    const handoffs = new Map<string, HandoffEntry>();
    for (const cm of cms.items as Obj[]) {
      const h = handoffEntry(cm);
      if (h) handoffs.set(h.nodePool, h.entry);
    }
    const trimmedNodes = (nodes.items as Obj[]).map(trimNode);
    const providerImages = parseProviderImages((cms.items as Obj[]).find((cm) => cm.metadata.name === PROVIDER_IMAGES_CONFIGMAP));
    this.relistWanted = false;
    this.observed = {
      configs: intake.configs,
      refusals: intake.refusals,
      ...facts,
      capi: {
        machineDeployments: (mds.items as Obj[]).map(trimCapi),
        machineSets: (mss.items as Obj[]).map(trimCapi),
        machines: (machines.items as Obj[]).map(trimCapi),
      },
      ...hcpFacts(hcp),
      nodes: trimmedNodes,
      handoffs,
      ...(providerImages ? { providerImages } : {}),
      jobs: jobs.items as Obj[],
      hostedNodesByPool: nodesByPool(trimmedNodes),
    };
    // A config that is gone no longer needs its verification memory.
    for (const k of this.verified.keys()) if (!this.observed.configs.has(k)) this.verified.delete(k);
    return this.observed;
  }

  /** Token Secrets and the pull secret, reduced to what decisions read (their data is not kept). */
  private secretFacts(secrets: KubeObject[]): Pick<Observed, 'inputs' | 'imageByHash' | 'pullSecret' | 'pullKeys'> {
    const pull = secrets.find((s) => s.metadata.name === this.o.pullSecretName);
    const inputs = new Map<string, NodePoolInputs | { error: string }>();
    for (const [k, v] of this.o.nodePoolInputs(secrets)) {
      // The config text is not a build input (it never enters the image): not kept.
      inputs.set(k, 'error' in v ? { error: v.error } : { nodePoolName: v.nodePoolName, nodePoolNamespace: v.nodePoolNamespace, secretName: v.secretName, releaseImage: v.releaseImage, ...(v.osStream ? { osStream: v.osStream } : {}) });
    }
    const imageByHash = new Map<string, string>();
    for (const sec of secrets) {
      if (!isTokenSecret(sec)) continue;
      try {
        const t = parseTokenSecret(sec);
        const prefix = `token-${t.nodePoolName}-`;
        const image = t.secretName.startsWith(prefix) ? handedOffImage(t.config) : undefined;
        if (image) imageByHash.set(`${t.nodePoolName}/${t.secretName.slice(prefix.length)}`, image);
      } catch {
        // a malformed token Secret is reported by nodePoolInputs when it is the current one
      }
    }
    const pullSecret = pull ? dockerConfigJson(pull) : undefined;
    return { inputs, imageByHash, ...(pullSecret !== undefined ? { pullSecret } : {}), pullKeys: this.pullKeys(pullSecret) };
  }

  /** The configs a NodePool's objects concern (spec.nodePool.name), from the cache. */
  private configsOf(nodePools: Set<string>): string[] {
    const out: string[] = [];
    if (!nodePools.size || !this.observed) return out;
    for (const [name, c] of this.observed.configs) if (nodePools.has(c.spec?.nodePool?.name)) out.push(name);
    return out;
  }

  /** Configs whose last status says they wait for `type`/`reason` (capacity, a build slot). */
  private configsWaiting(type: string, reason?: string): string[] {
    const out: string[] = [];
    for (const [name, c] of this.observed?.configs ?? []) {
      const x = ((c.status?.conditions ?? []) as Condition[]).find((k) => k.type === type);
      if (x && x.status === 'True' && (reason === undefined || x.reason === reason)) out.push(name);
    }
    return out;
  }

  /**
   * The event with its object cut to what `applyEvent` reads of its kind, for events held while a
   * full observation is in flight (run.ts): what is held is bounded by the trimmed sizes, never by
   * what the tenant put in an object.
   */
  compactEvent(r: Resource, e: { type: WatchEvent['type']; object: KubeObject }): { type: WatchEvent['type']; object: KubeObject } {
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
   * `observe` trims) and says which configs it concerns. A change that leaves the trimmed object
   * as it was (a Node's heartbeat, a Machine's status) concerns none.
   */
  applyEvent(r: Resource, e: { type: string; object: KubeObject }): EventEffect {
    const obs = this.observed;
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
        const r = applyConfigEvent(obs.configs, obs.refusals, o, gone, new Set(obs.inputs.keys()), this.limits);
        if (!obs.configs.has(name)) this.verified.delete(name);
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
        return { owner: ofLabel, concerned: freed ? this.configsWaiting('Building', 'WaitingForBuildSlot') : [] };
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
        return { owner: [], concerned: [...this.configsOf(pools), ...this.configsWaiting('WaitingForCapacity')] };
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
        return { owner: [], concerned: this.configsOf(capiNodePools([prev, next])) };
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
          return pools.size ? { owner: [], concerned: this.configsOf(pools) } : none;
        }
        if (!name.startsWith(HANDOFF_PREFIX)) return none;
        const np = name.slice(HANDOFF_PREFIX.length);
        const prev = obs.handoffs.get(np);
        const next = gone ? undefined : handoffEntry(o)?.entry;
        if (next) obs.handoffs.set(np, next);
        else obs.handoffs.delete(np);
        if (JSON.stringify(prev) === JSON.stringify(next)) return none;
        const owners = new Set([prev?.config, next?.config].filter((c): c is string => !!c));
        return { owner: [...owners], concerned: this.configsOf(new Set([np])) };
      }
      case RESOURCES.secrets.plural:
        return name === this.o.pullSecretName || isTokenSecret(o) ? { owner: [], concerned: [], relistSecrets: true } : none;
      default:
        return none;
    }
  }

  /**
   * Lists the HCP namespace's Secrets again (a token Secret or the pull secret changed) and
   * returns the configs whose NodePool inputs, machine-config images or pull secret changed.
   * A NodePool's current token Secret is chosen among all of its Secrets, so one event is not
   * enough to know it; the Secrets' data is not cached (it holds machine configs).
   */
  async refreshSecrets(): Promise<string[]> {
    const secrets = await this.o.management.list(RESOURCES.secrets, { namespace: this.o.namespace, keep: (o) => (o.metadata.name === this.o.pullSecretName || isTokenSecret(o) ? o : undefined) });
    const obs = this.observed;
    if (!obs) return [];
    const next = this.secretFacts(secrets.items);
    if (next.pullSecret !== obs.pullSecret) {
      Object.assign(obs, next);
      if (next.pullSecret === undefined) delete obs.pullSecret;
      // The webhook's list of the pull secret's auth keys follows the pull secret.
      await this.publishPullKeys(obs);
      return [...obs.configs.keys()];
    }
    const pools = new Set<string>();
    for (const k of new Set([...obs.inputs.keys(), ...next.inputs.keys()])) if (JSON.stringify(obs.inputs.get(k)) !== JSON.stringify(next.inputs.get(k))) pools.add(k);
    for (const k of new Set([...obs.imageByHash.keys(), ...next.imageByHash.keys()])) if (obs.imageByHash.get(k) !== next.imageByHash.get(k)) pools.add(k.slice(0, k.lastIndexOf('/')));
    obs.inputs = next.inputs;
    obs.imageByHash = next.imageByHash;
    return this.configsOf(pools);
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
    const obs = this.observed ?? (await this.observe());
    if (obs.configs.has(name)) {
      const cfg = (await readConfig(this.o.hosted, NPOSC, name)) as Obj | undefined;
      if (!cfg || !obs.configs.has(name)) return {}; // gone: its DELETED event removes it
      return (await this.reconcileConfig(cfg, obs)) ?? {};
    }
    if (!obs.refusals.pending.has(name)) return {};
    try {
      const cfg = (await readConfig(this.o.hosted, NPOSC, name)) as Obj | undefined;
      if (cfg && !cfg.metadata.deletionTimestamp && !obs.configs.has(name)) await this.setConfigStatus(cfg, { degraded: [LIMIT_REASON, refusalMessage(this.limits)] });
    } finally {
      obs.refusals.pending.delete(name);
      if (!obs.refusals.pending.size && obs.refusals.untracked > 0) this.relistWanted = true;
    }
    return {};
  }

  async reconcileConfig(cfg: Obj, obs: Observed): Promise<{ requeueAfterMs?: number } | void> {
    const name = cfg.metadata.name!;
    if (cfg.metadata.deletionTimestamp) return;
    if (this.o.tenantLayer === 'Disabled') return this.setConfigStatus(cfg, { degraded: ['TenantLayerDisabled', TENANT_LAYER_DISABLED_MESSAGE] });
    const problems = this.o.validateConfig(cfg);
    if (problems.length) return this.setConfigStatus(cfg, { degraded: ['InvalidSpec', problems.join('; ')] });

    const nodePool: string = cfg.spec!.nodePool.name;
    let inputs = obs.inputs.get(nodePool);
    if (!inputs) {
      return this.setConfigStatus(cfg, { degraded: ['NodePoolNotFound', `no token Secret for NodePool "${nodePool}" in namespace ${this.o.namespace}: is it a NodePool of this hosted cluster?`] });
    }
    if ('error' in inputs) return this.setConfigStatus(cfg, { degraded: ['NodePoolInputsInvalid', inputs.error] });
    // the fleet gate holds this NodePool for a release no token Secret names yet (HyperShift
    // writes it after its pause check) and says which on the hand-off: build for that one.
    // Once the current token Secret names that release, HyperShift has it: the annotation has done
    // its work and goes (left, it would pin later builds to it after the fleet is uninstalled).
    const wanted = obs.handoffs.get(nodePool)?.wantedRelease;
    if (wanted !== undefined && wanted === inputs.releaseImage) await this.clearWantedRelease(nodePool, wanted, obs);
    else if (wanted !== undefined) inputs = { ...inputs, releaseImage: wanted };
    const npKey = `${inputs.nodePoolNamespace}/${nodePool}`;

    const stream = baseOSTagForStream(inputs.osStream);
    if ('error' in stream) return this.setConfigStatus(cfg, { degraded: ['OSStreamUnknown', stream.error] });
    const archFact = nodePoolArch(npKey, obs.capi);
    if (archFact.arch === undefined) return this.setConfigStatus(cfg, { degraded: ['ArchitectureUnknown', `cannot tell the CPU architecture of NodePool ${nodePool}: ${(archFact as { reason: string }).reason}`] });
    const arch = archFact.arch;
    // Layers compose: with the provider's layer in force, the tenant's image is built FROM the
    // provider-layered image for this (release, arch, stream), and verified to descend from it.
    const provider = providerImageFor(obs.providerImages, { nodePool, release: inputs.releaseImage, arch, ...(inputs.osStream ? { stream: inputs.osStream } : {}) });
    if (provider && 'waiting' in provider) return this.setConfigStatus(cfg, { pending: ['WaitingForProviderImage', provider.waiting] });

    // New machines pull the image at first boot with the HostedCluster's pull secret only. The
    // webhook refuses such a target at admission too, but a tenant can delete webhooks: this is the control.
    const pushSpec: string = cfg.spec!.renderedImagePushSpec;
    const coverage = 'error' in obs.pullKeys ? { covered: false as const, reason: obs.pullKeys.error } : pushTargetCoveredByKeys(pushSpec, obs.pullKeys.keys, this.pullSecretWhere());
    if (!coverage.covered) return this.setConfigStatus(cfg, { degraded: ['PushTargetNotPullableByNodes', coverage.reason] });

    const pushSecretName: string = cfg.spec!.renderedImagePushSecret.name;
    const pushSecret = await this.o.hosted.get(RESOURCES.secrets, pushSecretName, HOSTED_NAMESPACE);
    const pushAuth = pushSecret ? dockerConfigJson(pushSecret) : undefined;
    if (!pushAuth) {
      return this.setConfigStatus(cfg, {
        degraded: ['PushSecretNotFound', `Secret ${HOSTED_NAMESPACE}/${pushSecretName} (a kubernetes.io/dockerconfigjson Secret) is missing or has no .dockerconfigjson in the hosted cluster`],
      });
    }
    // Base image credentials: the hosted cluster's own pull secret (or the user's), never a copy of a management-side Secret.
    const baseSecretName: string | undefined = cfg.spec!.baseImagePullSecret?.name;
    const baseRef = baseSecretName ? { namespace: HOSTED_NAMESPACE, name: baseSecretName } : HOSTED_PULL_SECRET;
    const baseSecret = await this.o.hosted.get(RESOURCES.secrets, baseRef.name, baseRef.namespace);
    const baseAuth = baseSecret ? dockerConfigJson(baseSecret) : undefined;
    if (!baseAuth) return this.setConfigStatus(cfg, { degraded: ['BaseImagePullSecretNotFound', `Secret ${baseRef.namespace}/${baseRef.name} is missing or has no .dockerconfigjson in the hosted cluster`] });

    // Files for dnf/rpm-ostree in RUN: the hosted cluster's RHEL entitlement (insights-operator's,
    // or its admin's; this architecture's first), the tenant's repositories and GPG keys.
    const run = await this.runFileSources(arch);
    if ('error' in run) return this.setConfigStatus(cfg, { degraded: [run.reason, run.error] });
    // The HostedCluster's additional trust bundle (private registry CAs): the build's pull and push trust it.
    const trust = trustBundleOf(await this.o.management.get(RESOURCES.configMaps, USER_CA_BUNDLE.name, this.o.namespace));
    if ('error' in trust) return this.setConfigStatus(cfg, { degraded: ['TrustBundleInvalid', trust.error] });

    let release: ReleaseImages;
    try {
      release = await this.o.resolveRelease(inputs.releaseImage, { arch, ...(inputs.osStream ? { stream: inputs.osStream } : {}), ...(obs.pullSecret !== undefined ? { pullSecret: obs.pullSecret } : {}) });
    } catch (e) {
      return this.setConfigStatus(cfg, { degraded: ['ReleaseResolutionFailed', (e as Error).message] });
    }

    // buildah: in the release's machine-config-operator image from 4.17; before, in ours, or a refusal.
    const builder = builderImageFor({ releaseVersion: release.version ?? '', mcoImage: release.machineConfigOperatorImage, ...(this.o.ownBuilderImage ? { ownImage: this.o.ownBuilderImage } : {}) });
    if ('refused' in builder) return this.setConfigStatus(cfg, { degraded: ['NoBuilderImage', builder.refused] });
    if (provider) release = { ...release, baseOSImage: provider.image };
    const containerfile = pickContainerfile(cfg, arch);
    const pushRepo = repositoryOf(pushSpec);
    const mirrors = registriesConf(obs.imageContentSources);
    // Only what enters the image (or decides where it goes): the NodePool's machine config does
    // not (the `configs` stage is the release's base OS), so a config change never rebuilds.
    const hash = inputsHash({
      releaseDigest: release.releaseDigest,
      baseOSImage: release.baseOSImage,
      builderImage: builder.image,
      arch,
      containerfile,
      pushRepo,
      baseSecretName: baseSecretName ?? '',
      registriesConf: mirrors ?? '',
      rebuild: cfg.metadata.annotations?.[REBUILD_ANNOTATION] ?? '',
      // Which sources, not their content (renewed certificates do not rebuild); only when there are some.
      ...(run.sources.length ? { runFiles: run.sources.join(',') } : {}),
      // Whether a trust bundle is given, not its content (a renewed CA does not rebuild).
      ...(trust.pem !== undefined ? { trustBundle: USER_CA_BUNDLE.name } : {}),
    });
    const buildName = `${name.slice(0, 242)}-${hash}`;
    const jobName = `build-${name.slice(0, 46).replace(/[.-]+$/, '')}-${hash}`;
    const tolerations: Toleration[] = nodePoolTolerations(npKey, obs.capi);
    const jobInput: BuildJobInput = {
      namespace: this.buildNamespace,
      jobName,
      buildName,
      configName: name,
      nodePool,
      releaseImage: inputs.releaseImage,
      baseOSImage: release.baseOSImage,
      builderImage: builder.image,
      pushTag: `${pushRepo}:${buildName.slice(0, 128)}`,
      containerfile,
      activeDeadlineSeconds: this.o.activeDeadlineSeconds,
      backoffLimit: this.o.backoffLimit,
      userNamespaces: this.o.userNamespaces,
      proxyEnv: this.o.proxyEnv,
      arch,
      tolerations,
      ...(mirrors ? { registriesConf: mirrors } : {}),
      ...(run.sources.length ? { runFiles: Object.fromEntries(Object.entries(run.files).map(([n, f]) => [n, Object.keys(f!)])) } : {}),
      ...(trust.pem !== undefined ? { trustBundle: trust.pem } : {}),
    };
    const ref = { group: API_GROUP, resource: 'nodepoolosbuilds', name: buildName };

    // Already handed off (management-side record of a verified image): nothing to build.
    const handoff = obs.handoffs.get(nodePool);
    if (handoff?.build === buildName && handoff.image) {
      if (obs.nodeTuningDisabled) return this.setConfigStatus(cfg, { degraded: handoffUnavailable(), build: ref });
      await this.pruneHistory(name, buildName, jobName, obs);
      return this.setConfigStatus(cfg, { available: handoff.image, build: ref, nodes: this.nodes(nodePool, npKey, handoff.image, obs) });
    }

    const mine = obs.jobs.filter((j) => j.metadata.labels?.[CONFIG_LABEL] === name);
    const existing = mine.find((j) => j.metadata.name === jobName);
    // The slot this pass claims in the shared observation (below), released if the Job is not made.
    let claim: Obj | undefined;
    if (!existing) {
      // Capacity: a build needs a Ready node of the NodePool's architecture; we never scale up.
      const nodes = readyNodesOfArch(obs.nodes, arch);
      if (!nodes.length) {
        return this.setConfigStatus(cfg, {
          waiting: ['NoReadyNodeOfArchitecture', `no Ready, schedulable node of architecture ${arch} in the hosted cluster to run the build of NodePool ${nodePool} on; it starts when one is Ready`],
          build: this.observedBuildRef(cfg),
        });
      }
      // One build per hosted cluster at a time beyond the cap.
      const running = obs.jobs.filter((j) => !jobFinished(j) && j.metadata.labels?.[CONFIG_LABEL] !== name).length;
      const cap = this.o.maxConcurrentBuilds ?? 3;
      if (running >= cap) {
        await this.setConfigStatus(cfg, { pending: ['WaitingForBuildSlot', `${running} builds are running in this hosted cluster (at most ${cap} at once); this one starts when one ends`] });
        return { requeueAfterMs: 30_000 };
      }
      // Rebuilds are rate-limited per config.
      const last = mine.map((j) => Date.parse(String(j.metadata.creationTimestamp ?? ''))).filter((t) => !Number.isNaN(t)).sort((a, b) => b - a)[0];
      const minGap = (this.o.minRebuildIntervalSeconds ?? 60) * 1000;
      const since = last === undefined ? Infinity : this.now().getTime() - last;
      if (since < minGap) {
        await this.setConfigStatus(cfg, { pending: ['RebuildRateLimited', `the last build of this config started less than ${minGap / 1000}s ago; the next one starts in ${Math.ceil((minGap - since) / 1000)}s`] });
        return { requeueAfterMs: minGap - since };
      }
      // Claim the slot before the first await: concurrent workers share this observation.
      claim = trimJob({ metadata: { name: jobName, creationTimestamp: this.now().toISOString(), labels: { [CONFIG_LABEL]: name } } });
      obs.jobs.push(claim);
    }
    try {
      await this.runBuild(cfg, jobInput, obs, mine, { name, buildName, jobName, baseAuth, pushAuth, files: run.files });
    } catch (e) {
      // The cache is kept by watches: a Job that was made replaces the claim by name (ADDED); one
      // that was not would hold a build slot and the rate limit until the next resync.
      const i = claim ? obs.jobs.indexOf(claim) : -1;
      if (i >= 0) obs.jobs.splice(i, 1);
      throw e;
    }
  }

  /** Drives one config's build from its record and Job to the hand-off (the slot is claimed). */
  private async runBuild(cfg: Obj, jobInput: BuildJobInput, obs: Observed, mine: Obj[], b: { name: string; buildName: string; jobName: string; baseAuth: string; pushAuth: string; files: Partial<Record<RunMountName, Record<string, string>>> }): Promise<void> {
    const { name, buildName, jobName, baseAuth, pushAuth } = b;
    let build = await this.ensureBuildRecord(cfg, jobInput);
    // One active build per config: a Job of superseded inputs stops.
    for (const j of mine) if (j.metadata.name !== jobName && !jobFinished(j)) {
      await this.o.hosted.delete(RESOURCES.jobs, j.metadata.name!, this.buildNamespace);
      this.log('superseded build job deleted', { job: j.metadata.name, nodePoolOSConfig: name });
    }
    let state = await this.driveJob(jobInput, baseAuth, pushAuth, b.files);
    if (state.phase === 'Succeeded') state = await this.verify(name, jobInput, state, pushAuth, obs.pullSecret);
    // A record that says more than was observed and verified (the tenant can write it, and the
    // CRD freezes a finished record) is replaced, so it never shows a forged result.
    const recorded = terminalState(build);
    if (recorded && !sameOutcome(build, recorded, state, jobInput)) {
      this.log('build record replaced: it disagreed with the observed build', { nodePoolOSBuild: buildName, recorded: recorded.phase, observed: state.phase });
      await this.o.hosted.delete(NPOSB, buildName);
      build = await this.ensureBuildRecord(cfg, jobInput, true);
    }
    await this.setBuildStatus(build, jobInput, state);
    await this.finish(cfg, jobInput, state, obs);
    await this.pruneHistory(name, buildName, jobName, obs);
  }

  /** The tenant-reported digest, checked in the registry; only a verified one is ever handed off. */
  private async verify(config: string, j: BuildJobInput, s: BuildState, pushAuth: string, pullSecret: string | undefined): Promise<BuildState> {
    const pullSpec = `${repositoryOf(j.pushTag)}@${s.digest}`;
    const known = this.verified.get(config);
    if (known && known.build === j.buildName && known.pullSpec === pullSpec) return s;
    let r: VerifyImageResult;
    try {
      r = await this.o.verifyImage({ pushRef: pullSpec, arch: j.arch!, baseImageRef: j.baseOSImage, credentials: pushAuth, ...(pullSecret !== undefined ? { baseCredentials: pullSecret } : {}) });
    } catch (e) {
      r = { ok: false, reason: (e as Error).message };
    }
    if (!r.ok) {
      this.log('built image failed verification', { nodePoolOSBuild: j.buildName, reason: r.reason });
      return { phase: 'Failed', reason: 'ImageVerificationFailed', message: tail(`the image the build reported (${pullSpec}) failed verification in the registry: ${r.reason}`, MAX_MESSAGE), start: s.start, end: s.end };
    }
    this.verified.set(config, { build: j.buildName, pullSpec });
    return s;
  }

  /** The NodesUpdated condition: machines on the image / machines, from management-side state. */
  private nodes(nodePool: string, npKey: string, image: string, obs: Observed): [Condition['status'], string, string] {
    const n = nodesOnImage(nodePool, npKey, image, obs.capi, obs.imageByHash);
    const shown = obs.hostedNodesByPool.get(nodePool);
    const also = shown === undefined ? '' : ` (the hosted cluster lists ${shown} Node${shown === 1 ? '' : 's'} labelled with this NodePool)`;
    if (n.total === 0) return ['False', 'NoMachines', `NodePool ${nodePool} has no machines${also}`];
    const msg = `${n.onImage}/${n.total} machines of NodePool ${nodePool} run ${image}${also}`;
    return n.onImage === n.total ? ['True', 'AllNodesUpdated', msg] : ['False', 'RollingOut', msg];
  }

  private observedBuildRef(cfg: Obj) {
    return cfg.status?.nodePoolOSBuild;
  }

  private async ensureBuildRecord(cfg: Obj, j: BuildJobInput, fresh = false): Promise<Obj> {
    const existing = fresh ? undefined : await this.o.hosted.get<Obj>(NPOSB, j.buildName);
    if (existing) return existing;
    // Typed from the CRD itself (`pkogen import`): a misspelt field here is a compile error.
    const record = nodePoolOSBuild({
      metadata: {
        name: j.buildName,
        labels: { [MANAGED_BY]: MANAGED_BY_VALUE, [CONFIG_LABEL]: j.configName },
        // The record goes with its config (same cluster, so garbage collection can do it).
        ownerReferences: [{ apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'NodePoolOSConfig', name: cfg.metadata.name!, uid: cfg.metadata.uid!, controller: true, blockOwnerDeletion: false }],
      },
      spec: {
        nodePoolOSConfig: { name: j.configName },
        nodePool: { name: j.nodePool },
        releaseImage: j.releaseImage,
        baseOSImage: j.baseOSImage,
        renderedImagePushSpec: j.pushTag,
      },
    });
    try {
      const created = await this.o.hosted.create<Obj>(NPOSB, record as unknown as Obj);
      this.log('build recorded', { nodePoolOSBuild: j.buildName, nodePool: j.nodePool });
      return created;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return (await this.o.hosted.get<Obj>(NPOSB, j.buildName))!;
    }
  }

  /** Creates the Job in the hosted build namespace (once: its name is the inputs' hash) and its inputs, then reads how it is doing. */
  private async driveJob(j: BuildJobInput, baseAuth: string, pushAuth: string, run: Partial<Record<RunMountName, Record<string, string>>>): Promise<BuildState> {
    const h = this.o.hosted;
    let job = await h.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace);
    if (!job) {
      try {
        job = await h.create(RESOURCES.jobs, buildJob(j));
        this.log('build job created', { job: j.jobName, nodePool: j.nodePool, arch: j.arch, baseOSImage: j.baseOSImage });
        this.o.telemetry?.buildStarted(buildRef(j.buildName), j.nodePool);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        job = (await h.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace))!;
      }
      // The pod waits for these volumes; creating them after the Job lets them be owned by it.
      await createIfMissing(h, RESOURCES.configMaps, buildConfigMap(j, job));
      await createIfMissing(h, RESOURCES.secrets, buildSecret(j, job, baseAuth, pushAuth, run));
    }
    return this.jobState(job, j);
  }

  private async jobState(job: Obj, j: BuildJobInput): Promise<BuildState> {
    const start = job.status?.startTime as string | undefined;
    const end = await readJobEnd(job, async () => (await this.o.hosted.list(RESOURCES.pods, { namespace: j.namespace, labelSelector: `${JOB_NAME_LABEL}=${j.jobName}` })).items);
    if (end.state === 'running') return { phase: 'Building', reason: 'JobRunning', message: `job ${j.namespace}/${j.jobName} is running in the hosted cluster`, start };
    if (end.state === 'complete') {
      const complete = end.condition;
      if (!end.digest) return { phase: 'Failed', reason: 'NoDigest', message: `job ${j.jobName} completed but no pod reported an image digest in its termination message`, start, end: complete.lastTransitionTime ?? job.status?.completionTime };
      return { phase: 'Succeeded', reason: 'BuildSucceeded', message: `pushed ${repositoryOf(j.pushTag)}@${end.digest}`, start, end: job.status?.completionTime ?? complete.lastTransitionTime, digest: end.digest };
    }
    const failed = end.condition;
    const head = `job ${j.jobName} failed: ${failed.message ?? failed.reason ?? 'failed'}`;
    // The end of a build log says what went wrong; its start is pull progress.
    const detail = end.lastMessage ? `; last pod: ${tail(end.lastMessage, MAX_MESSAGE - Math.min(head.length, 256) - 13)}` : '';
    return { phase: 'Failed', reason: failed.reason || 'JobFailed', message: `${head.slice(0, 256)}${detail}`, start, end: failed.lastTransitionTime ?? this.now().toISOString() };
  }

  private async setBuildStatus(build: Obj, j: BuildJobInput, s: BuildState): Promise<Obj> {
    // A finished record never changes (upstream's rule, and the CRD's). Its status is output
    // only: nothing here is decided from it, since the tenant can write it.
    if (terminalState(build)) return build;
    const now = this.now().toISOString();
    const prev: Condition[] = build.status?.conditions ?? [];
    const is = (t: string) => (s.phase === t ? 'True' : 'False');
    const conds: Condition[] = [
      cond(prev, 'Prepared', 'True', 'JobCreated', `job ${j.namespace}/${j.jobName} in the hosted cluster`, now),
      cond(prev, 'Building', is('Building'), s.phase === 'Building' ? s.reason : 'NotBuilding', s.phase === 'Building' ? s.message : '', now),
      cond(prev, 'Succeeded', is('Succeeded'), s.phase === 'Succeeded' ? s.reason : 'NotSucceeded', s.phase === 'Succeeded' ? s.message : '', now),
      cond(prev, 'Failed', is('Failed'), s.phase === 'Failed' ? s.reason : 'NotFailed', s.phase === 'Failed' ? s.message : '', now),
      cond(prev, 'Interrupted', is('Interrupted'), s.phase === 'Interrupted' ? s.reason : 'NotInterrupted', s.phase === 'Interrupted' ? s.message : '', now),
    ];
    const status: Record<string, unknown> = {
      conditions: conds,
      builder: { imageBuilderType: 'Job', job: { group: 'batch', resource: 'jobs', namespace: j.namespace, name: j.jobName } },
      relatedObjects: [
        { group: '', resource: 'configmaps', namespace: j.namespace, name: j.jobName },
        { group: '', resource: 'secrets', namespace: j.namespace, name: j.jobName },
      ],
    };
    if (s.start) status.buildStart = s.start;
    if (s.end && s.phase !== 'Building') status.buildEnd = laterThan(s.end, s.start);
    if (s.digest && s.phase === 'Succeeded') status.digestedImagePushSpec = `${repositoryOf(j.pushTag)}@${s.digest}`;
    if (sameStatus(build.status, status)) return build;
    if (s.phase !== 'Building') this.log(`build ${s.phase.toLowerCase()}`, { nodePoolOSBuild: j.buildName, reason: s.reason });
    if (s.phase !== 'Building') this.o.telemetry?.buildFinished(buildRef(j.buildName, build.metadata.uid), s.phase, s.reason, s.start, status.buildEnd as string | undefined);
    try {
      return await this.o.hosted.updateStatus(NPOSB, { ...build, status });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return build;
    }
  }

  private async finish(cfg: Obj, j: BuildJobInput, s: BuildState, obs: Observed): Promise<void> {
    const ref = { group: API_GROUP, resource: 'nodepoolosbuilds', name: j.buildName };
    if (s.phase === 'Succeeded' && s.digest) {
      const pullSpec = `${repositoryOf(j.pushTag)}@${s.digest}`;
      // Fail closed: with NodeTuning disabled HyperShift ignores the hand-off ConfigMap.
      if (obs.nodeTuningDisabled) return this.setConfigStatus(cfg, { degraded: handoffUnavailable(), build: ref });
      await this.handOff(j, pullSpec);
      return this.setConfigStatus(cfg, { available: pullSpec, build: ref, nodes: this.nodes(j.nodePool, `${nodePoolNamespaceOf(obs, j.nodePool)}/${j.nodePool}`, pullSpec, obs) });
    }
    if (s.phase === 'Building') return this.setConfigStatus(cfg, { building: `building ${j.buildName} for NodePool ${j.nodePool} (${j.arch}) in the hosted cluster`, build: ref });
    return this.setConfigStatus(cfg, { degraded: [s.reason, s.message], build: ref });
  }

  /** Creates or updates the ConfigMap HyperShift reads into the NodePool's machine config. */
  private async handOff(j: BuildJobInput, pullSpec: string): Promise<void> {
    const want = handoffConfigMap(this.o.namespace, j.nodePool, j.configName, pullSpec);
    want.metadata.annotations = { ...(want.metadata.annotations ?? {}), [HANDOFF_BUILD_ANNOTATION]: j.buildName, [HANDOFF_RELEASE_ANNOTATION]: j.releaseImage };
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, want.metadata.name!, this.o.namespace);
    if (!have) {
      await createIfMissing(m, RESOURCES.configMaps, want);
      this.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
      this.o.telemetry?.handedOff(configRef(j.configName), j.nodePool);
      return;
    }
    const same = JSON.stringify(have.data) === JSON.stringify((want as Obj).data) && JSON.stringify(have.metadata.labels) === JSON.stringify(want.metadata.labels) && have.metadata.annotations?.[HANDOFF_BUILD_ANNOTATION] === j.buildName && have.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] === j.releaseImage;
    if (same) return;
    await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, annotations: { ...(have.metadata.annotations ?? {}), ...want.metadata.annotations } }, data: (want as Obj).data });
    this.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
    this.o.telemetry?.handedOff(configRef(j.configName), j.nodePool);
  }

  private async setConfigStatus(
    cfg: Obj,
    s: {
      degraded?: [string, string];
      building?: string;
      available?: string;
      waiting?: [string, string];
      pending?: [string, string];
      build?: { group: string; resource: string; name: string };
      /** NodesUpdated: status, reason, message. */
      nodes?: [Condition['status'], string, string];
    },
  ): Promise<void> {
    const now = this.now().toISOString();
    const prev: Condition[] = cfg.status?.conditions ?? [];
    const gen = cfg.metadata.generation;
    const buildingReason = s.building ? 'BuildRunning' : s.pending ? s.pending[0] : 'NotBuilding';
    const conds = [
      cond(prev, 'Available', s.available ? 'True' : 'False', s.available ? 'ImageBuilt' : 'NoImage', s.available ? `the NodePool is given ${s.available}` : '', now, gen),
      cond(prev, 'Building', s.building ? 'True' : 'False', buildingReason, s.building ?? s.pending?.[1] ?? '', now, gen),
      cond(prev, 'Degraded', s.degraded ? 'True' : 'False', s.degraded ? s.degraded[0] : 'AsExpected', s.degraded ? tail(s.degraded[1], MAX_MESSAGE) : '', now, gen),
      cond(prev, 'WaitingForCapacity', s.waiting ? 'True' : 'False', s.waiting ? s.waiting[0] : 'CapacityAvailable', s.waiting?.[1] ?? '', now, gen),
      cond(prev, 'NodesUpdated', s.nodes?.[0] ?? 'False', s.nodes?.[1] ?? 'NoImage', s.nodes?.[2] ?? '', now, gen),
    ];
    const status: Record<string, unknown> = { ...(cfg.status ?? {}), conditions: conds, observedGeneration: gen };
    if (s.available) status.currentImagePullSpec = s.available;
    if (s.build) status.nodePoolOSBuild = s.build;
    if (sameStatus(cfg.status, status)) return;
    if (s.degraded) this.log('nodepoolosconfig degraded', { nodePoolOSConfig: cfg.metadata.name, reason: s.degraded[0] });
    if (s.degraded) this.o.telemetry?.degraded(configRef(cfg.metadata.name!, cfg.metadata.uid), s.degraded[0]);
    try {
      const updated = await this.o.hosted.updateStatus(NPOSC, { ...cfg, status });
      if (this.observed?.configs.has(cfg.metadata.name!)) this.observed.configs.set(cfg.metadata.name!, trimConfig(updated));
    } catch (e) {
      if (!isConflict(e)) throw e; // a newer object is on its way: the next pass writes its status
    }
  }

  /** Keeps the newest `historyLimit` builds (Jobs and records) per config; the current one always. */
  private async pruneHistory(config: string, currentBuild: string, currentJob: string, obs: Observed): Promise<void> {
    const jobs = obs.jobs.filter((j) => j.metadata.labels?.[CONFIG_LABEL] === config);
    for (const old of beyondLimit(jobs, this.o.historyLimit, currentJob)) await this.o.hosted.delete(RESOURCES.jobs, old, this.buildNamespace);
    const builds = (await this.o.hosted.list(NPOSB, { labelSelector: `${CONFIG_LABEL}=${config}`, pageSize: HOSTED_PAGE_SIZE, keep: (b) => ({ metadata: { name: b.metadata.name, creationTimestamp: b.metadata.creationTimestamp, ...(b.metadata.deletionTimestamp ? { deletionTimestamp: b.metadata.deletionTimestamp } : {}) } }) })).items;
    for (const old of beyondLimit(builds, this.o.historyLimit, currentBuild)) await this.o.hosted.delete(NPOSB, old);
  }

  /**
   * What RUN steps get besides the base image (`RUN_MOUNTS`), each read by name only, bounded,
   * never logged or put in a message:
   * - `entitlement`: `openshift-config-managed/etc-pki-entitlement-<arch>` (insights-operator
   *   writes one per architecture when nodes have several), else `etc-pki-entitlement`;
   * - `yum-repos`: ConfigMap `etc-yum-repos-d`, `rpm-gpg`: Secret `etc-pki-rpm-gpg`, both in
   *   `HOSTED_NAMESPACE` (MCO's names).
   * None present: the build runs without (as MCO's does). `sources` names what was used (for the hash).
   */
  private async runFileSources(arch: string): Promise<{ sources: string[]; files: Partial<Record<RunMountName, Record<string, string>>> } | { reason: string; error: string }> {
    const h = this.o.hosted;
    const sources: string[] = [];
    const files: Partial<Record<RunMountName, Record<string, string>>> = {};
    const take = (n: RunMountName, ref: string, data: Record<string, unknown> | undefined, encoding: 'base64' | 'text', reason: string) => {
      const f = runFiles(n, data, `${ref} in the hosted cluster`, encoding);
      if ('error' in f) return { reason, error: f.error };
      files[n] = f.files;
      sources.push(ref);
      return undefined;
    };
    for (const name of [`${ENTITLEMENT_SECRET.name}-${arch}`, ENTITLEMENT_SECRET.name]) {
      const sec = await h.get<Obj>(RESOURCES.secrets, name, ENTITLEMENT_SECRET.namespace);
      if (!sec) continue;
      const bad = take('entitlement', `Secret ${ENTITLEMENT_SECRET.namespace}/${name}`, sec.data, 'base64', 'EntitlementInvalid');
      if (bad) return bad;
      break;
    }
    const repos = await h.get<Obj>(RESOURCES.configMaps, YUM_REPOS_CONFIGMAP, HOSTED_NAMESPACE);
    if (repos) {
      const bad = take('yum-repos', `ConfigMap ${HOSTED_NAMESPACE}/${YUM_REPOS_CONFIGMAP}`, repos.data, 'text', 'RepositoriesInvalid');
      if (bad) return bad;
    }
    const gpg = await h.get<Obj>(RESOURCES.secrets, RPM_GPG_SECRET, HOSTED_NAMESPACE);
    if (gpg) {
      const bad = take('rpm-gpg', `Secret ${HOSTED_NAMESPACE}/${RPM_GPG_SECRET}`, gpg.data, 'base64', 'RepositoriesInvalid');
      if (bad) return bad;
    }
    return { sources, files };
  }

  /** `the HostedCluster pull secret (Secret <ns>/pull-secret)`, for messages. */
  private pullSecretWhere(): string {
    return `the HostedCluster pull secret (Secret ${this.o.namespace}/${this.o.pullSecretName})`;
  }

  /** The pull secret's auth keys, or a message (never a value) saying why there are none. */
  private pullKeys(pullSecret: string | undefined): Observed['pullKeys'] {
    const where = this.pullSecretWhere();
    if (pullSecret === undefined) return { error: `${where} is missing, so nodes have no credentials for any registry` };
    try {
      return { keys: pullSecretAuthKeys(pullSecret, where) };
    } catch (e) {
      if (e instanceof UserError) return { error: e.describe() };
      throw e;
    }
  }

  /**
   * Publishes the pull secret's auth keys (no credential) in the HCP namespace for the webhook
   * (`PULL_KEYS_CONFIGMAP`); when they cannot be published, says why under `unavailable`, and
   * the webhook admits (the status check above still refuses). Written only when it changes.
   */
  async publishPullKeys(obs: Observed): Promise<void> {
    const text = 'keys' in obs.pullKeys ? renderPullKeys(obs.pullKeys.keys) : undefined;
    const why = 'error' in obs.pullKeys ? 'the HostedCluster pull secret is missing or not a docker config' : 'the HostedCluster pull secret has more auth keys than the published list holds';
    const data: Record<string, string> = text !== undefined ? { [PULL_KEYS_CONFIGMAP.key]: text } : { [PULL_KEYS_CONFIGMAP.unavailableKey]: why };
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, PULL_KEYS_CONFIGMAP.name, this.o.namespace);
    const labels = { [MANAGED_BY]: MANAGED_BY_VALUE };
    if (!have) {
      await createIfMissing(m, RESOURCES.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: this.o.namespace, labels }, data } as Obj);
      this.log('pull keys published', { configMap: PULL_KEYS_CONFIGMAP.name, keys: 'keys' in obs.pullKeys ? obs.pullKeys.keys.length : 0 });
      return;
    }
    if (JSON.stringify(have.data ?? {}) === JSON.stringify(data)) return;
    await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels: { ...(have.metadata.labels ?? {}), ...labels } }, data });
    this.log('pull keys published', { configMap: PULL_KEYS_CONFIGMAP.name, keys: 'keys' in obs.pullKeys ? obs.pullKeys.keys.length : 0 });
  }

  /** Drops the fleet gate's wanted-release from a NodePool's hand-off (it is served: the current token Secret names it). */
  private async clearWantedRelease(nodePool: string, wanted: string, obs: Observed): Promise<void> {
    const h = obs.handoffs.get(nodePool);
    if (!h) return;
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, h.name, this.o.namespace);
    if (!have || have.metadata.annotations?.[WANTED_RELEASE_ANNOTATION] !== wanted) return;
    const annotations = { ...(have.metadata.annotations ?? {}) };
    delete annotations[WANTED_RELEASE_ANNOTATION];
    try {
      await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, annotations } });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return; // someone wrote it first: the next event brings it back here
    }
    const { wantedRelease: _, ...rest } = h;
    obs.handoffs.set(nodePool, rest);
    this.log('wanted release served', { nodePool, release: wanted });
  }

  /** Rewrites a tenant hand-off whose config is gone into a provider-only one (false: it is gone or changed meanwhile). */
  private async toProviderHandoff(h: HandoffEntry, entry: { release: string; image: string }): Promise<boolean> {
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, h.name, this.o.namespace);
    if (!have || have.metadata.labels?.[CONFIG_LABEL] !== h.config) return false;
    const np = h.name.slice(HANDOFF_PREFIX.length);
    const want = handoffConfigMap(this.o.namespace, np, '', entry.image);
    const labels: Record<string, string> = { ...(have.metadata.labels ?? {}), ...want.metadata.labels };
    delete labels[CONFIG_LABEL];
    const annotations: Record<string, string> = { ...(have.metadata.annotations ?? {}), [HANDOFF_RELEASE_ANNOTATION]: entry.release };
    delete annotations[HANDOFF_BUILD_ANNOTATION];
    delete annotations[WANTED_RELEASE_ANNOTATION];
    try {
      await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels, annotations }, data: (want as Obj).data });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return false;
    }
    return true;
  }

  /**
   * A deleted config takes its Jobs and its hand-off with it: the NodePool returns to the
   * release's OS image, or, with the provider's layer in force, to the provider-layered image the
   * fleet published for it (the hand-off becomes a provider-only one, which the fleet gate keeps
   * from then on: no rollout to the bare OS in between). Also publishes the pull keys (once per pass).
   */
  async removeOrphans(obs: Observed): Promise<void> {
    const m = this.o.management;
    await this.publishPullKeys(obs);
    for (const [np, h] of obs.handoffs) {
      const owner = h.config;
      // A config beyond the intake cap is not acted on: its last hand-off stays (one GET per hand-off, bounded by NodePools).
      if (owner && !obs.configs.has(owner) && !(await readConfig(this.o.hosted, NPOSC, owner))) {
        const entry = obs.providerImages && obs.providerImages.layer !== NO_PROVIDER_LAYER ? obs.providerImages.entries.get(np) : undefined;
        if (entry) {
          // Not deleted even when the rewrite loses a race: the next pass decides again.
          if (await this.toProviderHandoff(h, entry)) {
            obs.handoffs.set(np, { name: h.name, image: entry.image });
            this.log('hand-off returned to the provider layer', { configMap: h.name, nodePoolOSConfig: owner, image: entry.image });
          }
          continue;
        }
        await m.delete(RESOURCES.configMaps, h.name, this.o.namespace);
        obs.handoffs.delete(np);
        this.log('hand-off removed', { configMap: h.name, nodePoolOSConfig: owner });
      }
    }
    for (const job of obs.jobs) {
      const owner = job.metadata.labels?.[CONFIG_LABEL];
      if (owner && !obs.configs.has(owner)) await this.o.hosted.delete(RESOURCES.jobs, job.metadata.name!, this.buildNamespace);
    }
  }
}

/** Whether a finished record says what was observed (phase, and for success the verified image). */
function sameOutcome(build: Obj, recorded: BuildState, observed: BuildState, j: BuildJobInput): boolean {
  if (recorded.phase !== observed.phase) return false;
  if (observed.phase !== 'Succeeded') return true;
  return build.status?.digestedImagePushSpec === `${repositoryOf(j.pushTag)}@${observed.digest}`;
}

function nodePoolNamespaceOf(obs: Observed, nodePool: string): string {
  const i = obs.inputs.get(nodePool);
  return i && !('error' in i) ? i.nodePoolNamespace : '';
}

/**
 * The fleet gate's wanted release on a hand-off (builder/fleet/gate.ts WANTED_RELEASE_ANNOTATION):
 * management-side only (HCP namespaces are not tenant-writable); a value that is not a plausible
 * pull spec is ignored, and a bad one fails release resolution with its own status.
 */
function wantedReleaseOf(cm: Obj): string | undefined {
  const v = cm.metadata.annotations?.[WANTED_RELEASE_ANNOTATION];
  return typeof v === 'string' && v.length > 0 && v.length <= 512 && !/\s/.test(v) ? v : undefined;
}

function handoffUnavailable(): [string, string] {
  return [
    'HandoffUnavailable',
    'the NodeTuning capability is disabled on this hosted cluster (HostedControlPlane spec.capabilities.disabled), and HyperShift reads the hand-off only while it is enabled; the image is built but no node will run it',
  ];
}

function jobFinished(j: Obj): boolean {
  return ((j.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => ['Complete', 'Failed', 'SuccessCriteriaMet', 'FailureTarget'].includes(c.type) && c.status === 'True');
}

/** Only what decisions read of a Cluster API object. */
function trimCapi(o: Obj): Obj {
  const pick = (a: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(a ?? {}).filter(([k]) => k === 'hypershift.openshift.io/nodePool' || k === 'hypershift.openshift.io/nodePoolTaints' || k === 'capacity.cluster-autoscaler.kubernetes.io/labels' || k === CURRENT_CONFIG_VERSION_ANNOTATION));
  const arch = o.status?.nodeInfo?.architecture;
  const tmpl = o.spec?.template?.metadata?.annotations;
  const ds = o.spec?.bootstrap?.dataSecretName;
  const owner = (o.metadata.ownerReferences ?? []).find((r) => r.kind === 'MachineSet');
  return {
    metadata: { name: o.metadata.name, annotations: pick(o.metadata.annotations as Record<string, string>), ...(owner ? { ownerReferences: [{ apiVersion: owner.apiVersion, kind: owner.kind, name: owner.name, uid: owner.uid }] } : {}) },
    ...(tmpl || typeof ds === 'string' ? { spec: { ...(tmpl ? { template: { metadata: { annotations: pick(tmpl) } } } : {}), ...(typeof ds === 'string' ? { bootstrap: { dataSecretName: ds } } : {}) } } : {}),
    ...(typeof arch === 'string' ? { status: { nodeInfo: { architecture: arch } } } : {}),
  };
}

function trimNode(n: Obj): Obj {
  const ready = ((n.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready');
  return {
    metadata: { name: n.metadata.name, labels: Object.fromEntries(Object.entries(n.metadata.labels ?? {}).filter(([k]) => k === 'kubernetes.io/arch' || k === 'hypershift.openshift.io/nodePool')) },
    spec: n.spec?.unschedulable ? { unschedulable: true } : {},
    status: { conditions: ready ? [{ type: 'Ready', status: ready.status }] : [] },
  };
}

const JOB_CONDITION_TYPES = new Set(['Complete', 'Failed', 'SuccessCriteriaMet', 'FailureTarget', 'Suspended']);

function trimJob(j: Obj): Obj {
  return {
    metadata: { name: j.metadata.name, creationTimestamp: j.metadata.creationTimestamp, labels: { [CONFIG_LABEL]: j.metadata.labels?.[CONFIG_LABEL] ?? '' } },
    // The tenant can write a Job's status: a bounded number of conditions, of the types decisions read.
    status: { conditions: ((Array.isArray(j.status?.conditions) ? j.status!.conditions : []) as { type: string; status: string }[]).filter((c) => JOB_CONDITION_TYPES.has(c?.type)).slice(0, 8).map((c) => ({ type: c.type, status: c.status === 'True' ? 'True' : 'False' })) },
  };
}

/** A hand-off ConfigMap's NodePool and what decisions read of it. */
function handoffEntry(cm: Obj): { nodePool: string; entry: HandoffEntry } | undefined {
  if (!cm.metadata.name!.startsWith(HANDOFF_PREFIX)) return undefined;
  const np = cm.metadata.name!.slice(HANDOFF_PREFIX.length);
  let image: string | undefined;
  try {
    image = JSON.parse(cm.data?.config ?? '{}')?.spec?.osImageURL;
  } catch {
    image = undefined;
  }
  const wantedRelease = wantedReleaseOf(cm);
  return { nodePool: np, entry: { name: cm.metadata.name!, image, build: cm.metadata.annotations?.[HANDOFF_BUILD_ANNOTATION], config: cm.metadata.labels?.[CONFIG_LABEL], ...(wantedRelease ? { wantedRelease } : {}) } };
}

/** What decisions read of the HostedControlPlane (mirrors, whether NodeTuning is disabled). */
function hcpFacts(hcp: Obj | undefined): Pick<Observed, 'imageContentSources' | 'nodeTuningDisabled'> {
  return { imageContentSources: hcp?.spec?.imageContentSources, nodeTuningDisabled: nodeTuningDisabled(hcp) };
}

/** Hosted Nodes per NodePool label. */
function nodesByPool(nodes: readonly Obj[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of nodes) {
    const np = n.metadata.labels?.['hypershift.openshift.io/nodePool'];
    if (np) m.set(np, (m.get(np) ?? 0) + 1);
  }
  return m;
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

interface BuildState {
  phase: 'Building' | 'Succeeded' | 'Failed' | 'Interrupted';
  reason: string;
  message: string;
  start?: string;
  end?: string;
  digest?: string;
}

function terminalState(build: Obj): BuildState | undefined {
  const c = ((build.status?.conditions ?? []) as Condition[]).find((x) => TERMINAL.includes(x.type) && x.status === 'True');
  return c ? { phase: c.type as BuildState['phase'], reason: c.reason, message: c.message } : undefined;
}

function cond(prev: Condition[], type: string, status: Condition['status'], reason: string, message: string, now: string, observedGeneration?: number): Condition {
  const p = prev.find((c) => c.type === type);
  const c: Condition = { type, status, reason, message, lastTransitionTime: p && p.status === status ? p.lastTransitionTime ?? now : now };
  if (observedGeneration !== undefined) c.observedGeneration = observedGeneration;
  return c;
}

/** Status equality that ignores transition times (they only move when a status flips). */
function sameStatus(a: unknown, b: unknown): boolean {
  const strip = (v: unknown) => JSON.stringify(v ?? {}, (k, x) => (k === 'lastTransitionTime' ? undefined : x));
  return strip(a) === strip(b);
}

function beyondLimit(objs: KubeObject[], limit: number, keep: string): string[] {
  const sorted = objs
    .filter((o) => o.metadata.name !== keep && !o.metadata.deletionTimestamp)
    .sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')) || String(b.metadata.name).localeCompare(String(a.metadata.name)));
  return sorted.slice(Math.max(0, limit - 1)).map((o) => o.metadata.name!);
}

async function createIfMissing(kube: Kube, r: Resource, obj: KubeObject): Promise<void> {
  try {
    await kube.create(r, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** The registry auth file in a Secret: `.dockerconfigjson`, or a legacy `.dockercfg` wrapped as one. */
export function dockerConfigJson(secret: KubeObject): string | undefined {
  const data = (secret as Obj & { data?: Record<string, string> }).data ?? {};
  const dec = (k: string) => (typeof data[k] === 'string' ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
  const json = dec('.dockerconfigjson');
  if (json) return json;
  const legacy = dec('.dockercfg');
  return legacy ? `{"auths":${legacy}}` : undefined;
}

const CONTAINERFILE_ARCH: Record<string, string> = { amd64: 'AMD64', arm64: 'ARM64', ppc64le: 'PPC64LE', s390x: 'S390X' };

/** The Containerfile for the NodePool's architecture, else the NoArch one (MachineOSConfig's rule). */
export function pickContainerfile(cfg: Obj, arch: string): string {
  const files: { containerfileArch?: string; content: string }[] = cfg.spec?.containerFile ?? [];
  const f = files.find((x) => x.containerfileArch === CONTAINERFILE_ARCH[arch]) ?? files.find((x) => (x.containerfileArch ?? 'NoArch') === 'NoArch');
  return f?.content ?? 'FROM configs AS final\n';
}

/** `host/ns/name:tag` → `host/ns/name` (the tag is replaced by the build's name, as upstream does). */
export function repositoryOf(spec: string): string {
  const at = spec.indexOf('@');
  const noDigest = at >= 0 ? spec.slice(0, at) : spec;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function inputsHash(inputs: Record<string, string>): string {
  const canonical = JSON.stringify(Object.keys(inputs).sort().map((k) => [k, inputs[k]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 10);
}

/**
 * The last `n` characters of `s`, starting at a line when one starts in the last `n` (a build log
 * ends with what went wrong), marked with a leading "…".
 */
export function tail(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(s.length - (n - 1));
  const nl = cut.indexOf('\n');
  return `…${nl >= 0 && nl < cut.length - 1 ? cut.slice(nl + 1) : cut}`;
}

/** Upstream's rule: buildEnd after buildStart. */
function laterThan(end: string, start?: string): string {
  if (!start) return end;
  return Date.parse(end) > Date.parse(start) ? end : new Date(Date.parse(start) + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Our records as Events name them (cluster-scoped: their Events go to `default`, as client-go puts them). */
function buildRef(name: string, uid?: string): InvolvedObject {
  return { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'NodePoolOSBuild', name, ...(uid ? { uid } : {}) };
}
function configRef(name: string, uid?: string): InvolvedObject {
  return { apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'NodePoolOSConfig', name, ...(uid ? { uid } : {}) };
}
