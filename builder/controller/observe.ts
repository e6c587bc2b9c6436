/**
 * What the reconcile reads, and nothing else: both sides listed once into a cache trimmed to the
 * fields decisions read (`Cache.observe`), the HCP namespace's Secrets listed again when one of
 * them changes (`Cache.refreshSecrets`). Watch events update the same cache (events.ts); what one
 * config's decision asks for by name is read by gather.ts. No writes.
 *
 * The retained size grows with the number of configs and NodePools, never with Secret data or
 * object sizes (a token Secret's data, a Node's images, a Machine's spec are not kept).
 */
import type { NodePoolInputs, ReconcilerOptions } from './options.js';
import { Kube, KubeObject, RESOURCES, type Resource } from '../clusters/kube.js';
import { BUILD_LABEL, CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE } from './build-job.js';
import { handedOffImage, HANDOFF_BUILD_ANNOTATION, HANDOFF_PREFIX, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP, type ProviderImages, WANTED_RELEASE_ANNOTATION } from './handoff.js';
import { type ConfigEntry, HOSTED_PAGE_SIZE, type IntakeLimits, listConfigs, MAX_JOBS_OBSERVED, type Refusals } from './intake.js';
import { dockerConfigJson } from '../registry/dockerconfig.js';
import { isTokenSecret, parseTokenSecret } from '../clusters/token-secret.js';
import { CURRENT_CONFIG_VERSION_ANNOTATION, nodeTuningDisabled } from '../hypershift/nodepool-facts.js';
import { pullSecretAuthKeys } from '../registry/push-target.js';
import { UserError } from 'pkogen/model';
import { BUILD_KIND, BUILD_PLURAL, CONFIG_KIND, CONFIG_PLURAL, GROUP, VERSION } from '../api/types.js';

export const NPOSC: Resource = { group: GROUP, version: VERSION, kind: CONFIG_KIND, plural: CONFIG_PLURAL, namespaced: false };
export const NPOSB: Resource = { group: GROUP, version: VERSION, kind: BUILD_KIND, plural: BUILD_PLURAL, namespaced: false };

export type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any>; data?: Record<string, string> };

/** Everything a pass needs, observed once and trimmed to the fields the decisions read. */
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

export type CacheOptions = Pick<ReconcilerOptions, 'management' | 'hosted' | 'namespace' | 'pullSecretName' | 'nodePoolInputs' | 'resolveRelease'> & {
  buildNamespace: string;
  limits: IntakeLimits;
  log: (msg: string, fields?: Record<string, unknown>) => void;
};

export class Cache {
  /** The last observation, kept current by watch events (events.ts). */
  observed?: Observed;
  /** Refusals were left untracked and the tracked ones are written: a full list finds the rest. */
  relistWanted = false;

  constructor(private readonly o: CacheOptions) {}

  /**
   * Lists both sides once and keeps only what decisions read. The token Secrets come first: the
   * configs named after a NodePool are taken in first (intake.ts).
   */
  async observe(): Promise<Observed> {
    const m = this.o.management;
    const h = this.o.hosted;
    const ns = this.o.namespace;
    const facts = this.secretFacts((await this.listSecrets()).items);
    let jobsSeen = 0;
    const [intake, mds, mss, machines, hcps, cms, nodes, jobs] = await Promise.all([
      listConfigs(h, NPOSC, new Set(facts.inputs.keys()), this.o.limits),
      m.list(RESOURCES.machineDeployments, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.machineSets, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.machines, { namespace: ns, keep: trimCapi }),
      m.list(RESOURCES.hostedControlPlanes, { namespace: ns }),
      m.list(RESOURCES.configMaps, { namespace: ns, labelSelector: `${MANAGED_BY}=${MANAGED_BY_VALUE}` }),
      h.list(RESOURCES.nodes, { pageSize: HOSTED_PAGE_SIZE, keep: trimNode }),
      // The tenant can label Jobs as ours: at most MAX_JOBS_OBSERVED are kept (pruning and orphan removal bring the rest in later).
      h.list(RESOURCES.jobs, { namespace: this.o.buildNamespace, labelSelector: `${MANAGED_BY}=${MANAGED_BY_VALUE}`, pageSize: HOSTED_PAGE_SIZE, keep: (j) => (++jobsSeen <= MAX_JOBS_OBSERVED ? trimJob(j as Obj) : undefined) }),
    ]);
    if (jobsSeen > MAX_JOBS_OBSERVED) this.o.log('more build Jobs than observed', { jobs: jobsSeen, observed: MAX_JOBS_OBSERVED });
    if (intake.refusals.total) this.o.log('nodepoolosconfigs beyond the limit refused', { refused: intake.refusals.total, limit: this.o.limits.maxConfigs, toWrite: intake.refusals.pending.size, untracked: intake.refusals.untracked });
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
      ...hcpFacts(hcps.items[0] as Obj | undefined),
      nodes: trimmedNodes,
      handoffs,
      ...(providerImages ? { providerImages } : {}),
      jobs: jobs.items as Obj[],
      hostedNodesByPool: nodesByPool(trimmedNodes),
    };
    return this.observed;
  }

  /** Only token Secrets and the pull secret are kept past their page; no other Secret's data. */
  private listSecrets() {
    return this.o.management.list(RESOURCES.secrets, { namespace: this.o.namespace, keep: (o) => (o.metadata.name === this.o.pullSecretName || isTokenSecret(o) ? o : undefined) });
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
    return { inputs, imageByHash, ...(pullSecret !== undefined ? { pullSecret } : {}), pullKeys: pullKeysOf(pullSecret, pullSecretWhere(this.o.namespace, this.o.pullSecretName)) };
  }

  /**
   * Lists the HCP namespace's Secrets again (a token Secret or the pull secret changed): `configs`
   * are those whose NodePool inputs, machine-config images or pull secret changed; `pullSecret`,
   * that the pull secret did (every config, and the published pull keys follow it). A NodePool's
   * current token Secret is chosen among all of its Secrets, so one event is not enough to know
   * it; the Secrets' data is not cached (it holds machine configs).
   */
  async refreshSecrets(): Promise<{ configs: string[]; pullSecret?: true }> {
    const secrets = await this.listSecrets();
    const obs = this.observed;
    if (!obs) return { configs: [] };
    const next = this.secretFacts(secrets.items);
    if (next.pullSecret !== obs.pullSecret) {
      Object.assign(obs, next);
      if (next.pullSecret === undefined) delete obs.pullSecret;
      return { configs: [...obs.configs.keys()], pullSecret: true };
    }
    const pools = new Set<string>();
    for (const k of new Set([...obs.inputs.keys(), ...next.inputs.keys()])) if (JSON.stringify(obs.inputs.get(k)) !== JSON.stringify(next.inputs.get(k))) pools.add(k);
    for (const k of new Set([...obs.imageByHash.keys(), ...next.imageByHash.keys()])) if (obs.imageByHash.get(k) !== next.imageByHash.get(k)) pools.add(k.slice(0, k.lastIndexOf('/')));
    obs.inputs = next.inputs;
    obs.imageByHash = next.imageByHash;
    return { configs: configsOf(obs, pools) };
  }
}

/** `the HostedCluster pull secret (Secret <ns>/pull-secret)`, for messages. */
export function pullSecretWhere(namespace: string, pullSecretName: string): string {
  return `the HostedCluster pull secret (Secret ${namespace}/${pullSecretName})`;
}

/** The pull secret's auth keys, or a message (never a value) saying why there are none. */
function pullKeysOf(pullSecret: string | undefined, where: string): Observed['pullKeys'] {
  if (pullSecret === undefined) return { error: `${where} is missing, so nodes have no credentials for any registry` };
  try {
    return { keys: pullSecretAuthKeys(pullSecret, where) };
  } catch (e) {
    if (e instanceof UserError) return { error: e.describe() };
    throw e;
  }
}

/** The configs a NodePool's objects concern (spec.nodePool.name), from the cache. */
export function configsOf(obs: Observed | undefined, nodePools: Set<string>): string[] {
  const out: string[] = [];
  if (!nodePools.size || !obs) return out;
  for (const [name, c] of obs.configs) if (nodePools.has(c.spec?.nodePool?.name)) out.push(name);
  return out;
}

/** Whether a trimmed Job has ended (its slot is free). */
export function jobFinished(j: Obj): boolean {
  return ((j.status?.conditions ?? []) as { type: string; status: string }[]).some((c) => ['Complete', 'Failed', 'SuccessCriteriaMet', 'FailureTarget'].includes(c.type) && c.status === 'True');
}

/** Only what decisions read of a Cluster API object. */
export function trimCapi(o: Obj): Obj {
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

export function trimNode(n: Obj): Obj {
  const ready = ((n.status?.conditions ?? []) as { type: string; status: string }[]).find((c) => c.type === 'Ready');
  return {
    metadata: { name: n.metadata.name, labels: Object.fromEntries(Object.entries(n.metadata.labels ?? {}).filter(([k]) => k === 'kubernetes.io/arch' || k === 'hypershift.openshift.io/nodePool')) },
    spec: n.spec?.unschedulable ? { unschedulable: true } : {},
    status: { conditions: ready ? [{ type: 'Ready', status: ready.status }] : [] },
  };
}

const JOB_CONDITION_TYPES = new Set(['Complete', 'Failed', 'SuccessCriteriaMet', 'FailureTarget', 'Suspended']);

export function trimJob(j: Obj): Obj {
  return {
    metadata: { name: j.metadata.name, creationTimestamp: j.metadata.creationTimestamp, labels: { [CONFIG_LABEL]: j.metadata.labels?.[CONFIG_LABEL] ?? '', [BUILD_LABEL]: j.metadata.labels?.[BUILD_LABEL] ?? '' } },
    // The tenant can write a Job's status: a bounded number of conditions, of the types decisions read.
    status: { conditions: ((Array.isArray(j.status?.conditions) ? j.status!.conditions : []) as { type: string; status: string }[]).filter((c) => JOB_CONDITION_TYPES.has(c?.type)).slice(0, 8).map((c) => ({ type: c.type, status: c.status === 'True' ? 'True' : 'False' })) },
  };
}

/** A hand-off ConfigMap's NodePool and what decisions read of it. */
export function handoffEntry(cm: Obj): { nodePool: string; entry: HandoffEntry } | undefined {
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

/**
 * The fleet gate's wanted release on a hand-off (builder/fleet/gate.ts WANTED_RELEASE_ANNOTATION):
 * management-side only (HCP namespaces are not tenant-writable); a value that is not a plausible
 * pull spec is ignored, and a bad one fails release resolution with its own status.
 */
function wantedReleaseOf(cm: Obj): string | undefined {
  const v = cm.metadata.annotations?.[WANTED_RELEASE_ANNOTATION];
  return typeof v === 'string' && v.length > 0 && v.length <= 512 && !/\s/.test(v) ? v : undefined;
}

/** What decisions read of the HostedControlPlane (mirrors, whether NodeTuning is disabled). */
export function hcpFacts(hcp: Obj | undefined): Pick<Observed, 'imageContentSources' | 'nodeTuningDisabled'> {
  return { imageContentSources: hcp?.spec?.imageContentSources, nodeTuningDisabled: nodeTuningDisabled(hcp) };
}

/** Hosted Nodes per NodePool label. */
export function nodesByPool(nodes: readonly Obj[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const n of nodes) {
    const np = n.metadata.labels?.['hypershift.openshift.io/nodePool'];
    if (np) m.set(np, (m.get(np) ?? 0) + 1);
  }
  return m;
}
