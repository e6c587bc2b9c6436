/**
 * The fleet's watch caches: what the gate, the rollback write and the preconditions read, kept
 * from the loop's watches (run.ts) instead of read from the API on every step, as a
 * controller-runtime manager's cached client serves reads from its informers.
 *
 * - NodePools (cluster-wide watch): a gate view of each (`gateView`: names, resourceVersion, the
 *   gate's label and annotations, HyperShift's current-config annotation, the spec fields the image
 *   key and the hold read, the tracked status conditions, their messages bounded from the front:
 *   the gate reads the "Target config" hash at a message's end).
 * - ConfigMaps of HCP namespaces (one watch per HCP namespace, label `MANAGED_BY`): our hand-offs
 *   and the per-HCP controller's, the provider-images channel, the published pull keys; whole
 *   (without managedFields): a hand-off is rewritten from what was read.
 * - HostedControlPlanes (cluster-wide watch): release and capabilities.
 *
 * A read is served from a cache once its first list is in (the namespace's, for ConfigMaps); before
 * that, or for any other object, it goes to the API. The caches lag the API, as HyperShift's own
 * do, so nothing is decided on them without a check: every write still carries the
 * resourceVersion it was decided on, and a write the API refuses (409 Conflict, 404) marks that
 * object to be read from the API once, so the retry decides on what is there (a lagging watch event
 * older than what a read or our own write stored is not applied: resourceVersions compared as
 * numbers when both are, as etcd's are). Our own writes update the cache from the API's answer
 * (Kube.onWrite), so the next step of the same settle sees them.
 *
 * Memory: one gate view per NodePool (~1 KB), each managed ConfigMap in HCP namespaces, one small
 * object per HostedControlPlane.
 */
import { KubeApiError } from 'pkogen/kube';
import { isConflict, Kube, KubeObject, ListResult, RESOURCES, type Resource } from '../clusters/kube.js';
import { HANDOFF_PREFIX } from '../controller/handoff.js';
import { PROVIDER_IMAGES_CONFIGMAP } from '../controller/handoff.js';
import { PULL_KEYS_CONFIGMAP } from '../api/types.js';
import { CURRENT_CONFIG_ANNOTATION, GATED_LABEL } from './gate-names.js';
import { NODEPOOLS } from './gate.js';
import { TRACKED_CONDITIONS } from './rollout/progress.js';

/** The gate's annotations share this prefix (gate-names.ts). */
const GATE_PREFIX = GATED_LABEL.slice(0, GATED_LABEL.indexOf('/') + 1);
/** A condition message is kept up to this many characters, its end (where the target hash is). */
const MAX_MESSAGE = 1024;

type Np = KubeObject & {
  metadata: { generation?: number };
  spec?: { clusterName?: unknown; arch?: unknown; osImageStream?: { name?: unknown }; release?: { image?: unknown }; pausedUntil?: unknown };
  status?: { version?: unknown; conditions?: { type?: string; status?: string; reason?: string; message?: string; observedGeneration?: number; lastTransitionTime?: string }[] };
};

/** What of a NodePool the gate reads (and the rollout's trim reads from it in turn). */
export function gateView(x: KubeObject): KubeObject {
  const np = x as Np;
  const s = np.spec;
  const annotations = Object.fromEntries(Object.entries(np.metadata.annotations ?? {}).filter(([k]) => k.startsWith(GATE_PREFIX) || k === CURRENT_CONFIG_ANNOTATION));
  const gated = np.metadata.labels?.[GATED_LABEL];
  const conditions = (np.status?.conditions ?? [])
    .filter((c) => (TRACKED_CONDITIONS as readonly string[]).includes(c.type ?? ''))
    .map((c) => ({ ...c, ...(typeof c.message === 'string' && c.message.length > MAX_MESSAGE ? { message: c.message.slice(-MAX_MESSAGE) } : {}) }));
  return {
    apiVersion: np.apiVersion,
    kind: np.kind,
    metadata: {
      name: np.metadata.name,
      namespace: np.metadata.namespace,
      ...(np.metadata.resourceVersion !== undefined ? { resourceVersion: np.metadata.resourceVersion } : {}),
      ...(np.metadata.generation !== undefined ? { generation: np.metadata.generation } : {}),
      ...(gated !== undefined ? { labels: { [GATED_LABEL]: gated } } : {}),
      annotations,
    },
    spec: {
      ...(s?.clusterName !== undefined ? { clusterName: s.clusterName } : {}),
      ...(s?.arch !== undefined ? { arch: s.arch } : {}),
      ...(s?.osImageStream?.name !== undefined ? { osImageStream: { name: s.osImageStream.name } } : {}),
      ...(s?.release?.image !== undefined ? { release: { image: s.release.image } } : {}),
      ...(s?.pausedUntil !== undefined ? { pausedUntil: s.pausedUntil } : {}),
    },
    status: { ...(np.status?.version !== undefined ? { version: np.status.version } : {}), conditions },
  } as KubeObject;
}

/** A ConfigMap as kept: everything but managedFields. */
export function keptConfigMap(x: KubeObject): KubeObject {
  const { managedFields: _m, ...metadata } = x.metadata as KubeObject['metadata'] & { managedFields?: unknown };
  return { ...x, apiVersion: 'v1', kind: 'ConfigMap', metadata } as KubeObject;
}

/** A HostedControlPlane as kept: its release and capabilities. */
export function keptControlPlane(x: KubeObject): KubeObject {
  const spec = (x as { spec?: { releaseImage?: unknown; capabilities?: unknown } }).spec;
  return { apiVersion: x.apiVersion, kind: x.kind, metadata: { name: x.metadata.name, namespace: x.metadata.namespace, ...(x.metadata.resourceVersion !== undefined ? { resourceVersion: x.metadata.resourceVersion } : {}) }, spec: { releaseImage: spec?.releaseImage, ...(spec?.capabilities !== undefined ? { capabilities: spec.capabilities } : {}) } } as KubeObject;
}

/** The ConfigMaps of an HCP namespace the cache answers for (others are read from the API). */
const cachedConfigMap = (name: string) => name.startsWith(HANDOFF_PREFIX) || name === PROVIDER_IMAGES_CONFIGMAP || name === PULL_KEYS_CONFIGMAP.name;

const olderThan = (a: string | undefined, b: string | undefined) => a !== undefined && b !== undefined && /^\d+$/.test(a) && /^\d+$/.test(b) && BigInt(a) < BigInt(b);

export class FleetCache {
  /** NodePool `<ns>/<name>` → gate view; undefined until the first list. */
  private nodePools?: Map<string, KubeObject>;
  /** HCP namespace → ConfigMap name → ConfigMap; a namespace is present once its first list is in. */
  private readonly configMaps = new Map<string, Map<string, KubeObject>>();
  /** HCP namespace → HostedControlPlane name → kept; undefined until the first list. */
  private controlPlanes?: Map<string, Map<string, KubeObject>>;
  /** `<plural>/<ns>/<name>` read from the API once (a write there was refused). */
  private readonly stale = new Set<string>();
  /** The reader the gate, the rollback write and the preconditions are given: reads from here, writes to the API. */
  readonly kube: Kube;

  constructor(readonly api: Kube) {
    api.onWrite((r, stored) => this.wrote(r, stored));
    this.kube = new CachedKube(api, this);
  }

  nodePoolsListed(items: KubeObject[]): void {
    this.nodePools = new Map(items.map((o) => [`${o.metadata.namespace}/${o.metadata.name}`, o]));
  }
  nodePool(o: KubeObject, deleted: boolean): void {
    if (this.nodePools) put(this.nodePools, `${o.metadata.namespace}/${o.metadata.name}`, o, deleted);
  }
  configMapsListed(namespace: string, items: KubeObject[]): void {
    this.configMaps.set(namespace, new Map(items.map((o) => [o.metadata.name ?? '', o])));
  }
  configMap(o: KubeObject, deleted: boolean): void {
    const m = this.configMaps.get(o.metadata.namespace ?? '');
    if (m) put(m, o.metadata.name ?? '', o, deleted);
  }
  /** The namespace's watch stopped: its reads go to the API again. */
  forgetNamespace(namespace: string): void {
    this.configMaps.delete(namespace);
  }
  controlPlanesListed(items: KubeObject[]): void {
    this.controlPlanes = new Map();
    for (const o of items) this.controlPlane(o, false);
  }
  controlPlane(o: KubeObject, deleted: boolean): void {
    if (!this.controlPlanes) return;
    const ns = o.metadata.namespace ?? '';
    let m = this.controlPlanes.get(ns);
    if (!m) this.controlPlanes.set(ns, (m = new Map()));
    put(m, o.metadata.name ?? '', o, deleted);
  }

  /** Our own write, as the API stored it. */
  private wrote(r: Resource, stored: KubeObject): void {
    if (r.plural === NODEPOOLS.plural && r.group === NODEPOOLS.group) this.nodePool(gateView(stored), false);
    else if (r === RESOURCES.configMaps && cachedConfigMap(stored.metadata.name ?? '')) this.configMap(keptConfigMap(stored), false);
  }

  /** A write to this object was refused: its next read goes to the API. */
  refused(r: Resource, name: string, namespace: string | undefined): void {
    this.stale.add(`${r.plural}/${namespace ?? ''}/${name}`);
  }

  /** The cached answer to a get, or `miss` (read the API). */
  cachedGet(r: Resource, name: string, namespace: string | undefined): KubeObject | undefined | 'miss' {
    if (this.stale.has(`${r.plural}/${namespace ?? ''}/${name}`)) return 'miss';
    if (r === NODEPOOLS) return this.nodePools ? this.nodePools.get(`${namespace}/${name}`) : 'miss';
    if (r === RESOURCES.configMaps && cachedConfigMap(name)) {
      const m = this.configMaps.get(namespace ?? '');
      return m ? m.get(name) : 'miss';
    }
    return 'miss';
  }

  /** What a read from the API found, stored (it is at least as new as what the watch gave). */
  fresh(r: Resource, name: string, namespace: string | undefined, o: KubeObject | undefined): void {
    this.stale.delete(`${r.plural}/${namespace ?? ''}/${name}`);
    const gone = { metadata: { name, namespace } } as KubeObject;
    if (r === NODEPOOLS) this.nodePool(o ? gateView(o) : gone, o === undefined);
    else if (r === RESOURCES.configMaps && cachedConfigMap(name)) this.configMap(o ? keptConfigMap(o) : gone, o === undefined);
  }

  /** A namespace's HostedControlPlanes from the cache, or undefined (read the API). */
  cachedControlPlanes(namespace: string): KubeObject[] | undefined {
    if (!this.controlPlanes) return undefined;
    return [...(this.controlPlanes.get(namespace)?.values() ?? [])];
  }
}

function put(m: Map<string, KubeObject>, key: string, o: KubeObject, deleted: boolean): void {
  if (deleted) {
    m.delete(key);
    return;
  }
  if (olderThan(o.metadata.resourceVersion, m.get(key)?.metadata.resourceVersion)) return;
  m.set(key, o);
}

/**
 * The cached client: `get` of a cached kind and `list` of a namespace's HostedControlPlanes from
 * the caches; every write, and every other read, through the API client it wraps (its write
 * listeners see our writes).
 */
class CachedKube extends Kube {
  constructor(
    private readonly inner: Kube,
    private readonly cache: FleetCache,
  ) {
    super(inner.config);
  }

  override async get<T extends KubeObject = KubeObject>(r: Resource, name: string, namespace?: string): Promise<T | undefined> {
    const hit = this.cache.cachedGet(r, name, namespace);
    if (hit !== 'miss') return hit as T | undefined;
    const o = await this.inner.get<T>(r, name, namespace);
    this.cache.fresh(r, name, namespace, o);
    return o;
  }

  override async list(r: Resource, opts: Parameters<Kube['list']>[1] = {}): Promise<ListResult> {
    const hcps = r === RESOURCES.hostedControlPlanes && opts.namespace !== undefined && opts.labelSelector === undefined ? this.cache.cachedControlPlanes(opts.namespace) : undefined;
    if (!hcps) return this.inner.list(r, opts);
    const items: KubeObject[] = [];
    for (const o of hcps) {
      const kept = opts.keep ? opts.keep(o) : o;
      if (kept) items.push(kept);
    }
    return { items, resourceVersion: '' };
  }

  private async write<T>(r: Resource, name: string | undefined, namespace: string | undefined, f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (isConflict(e) || (e instanceof KubeApiError && e.code === 404)) this.cache.refused(r, name ?? '', namespace);
      throw e;
    }
  }
  override create<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.write(r, obj.metadata.name, obj.metadata.namespace, () => this.inner.create(r, obj));
  }
  override update<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.write(r, obj.metadata.name, obj.metadata.namespace, () => this.inner.update(r, obj));
  }
  override updateStatus<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.write(r, obj.metadata.name, obj.metadata.namespace, () => this.inner.updateStatus(r, obj));
  }
  override mergePatch<T extends KubeObject>(r: Resource, name: string, namespace: string | undefined, patch: unknown, subresource?: string): Promise<T> {
    return this.write(r, name, namespace, () => this.inner.mergePatch<T>(r, name, namespace, patch, subresource));
  }
  override delete(r: Resource, name: string, namespace?: string): Promise<void> {
    return this.inner.delete(r, name, namespace);
  }
  override watch(...a: Parameters<Kube['watch']>): ReturnType<Kube['watch']> {
    return this.inner.watch(...a);
  }
  override onWrite(...a: Parameters<Kube['onWrite']>): ReturnType<Kube['onWrite']> {
    return this.inner.onWrite(...a);
  }
  override request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
    return this.inner.request(method, path, body, contentType);
  }
}
