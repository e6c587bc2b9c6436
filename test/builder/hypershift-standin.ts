/**
 * A stand-in for HyperShift's NodePool controller (and the CAPI MachineDeployment / in-place
 * upgrader beneath it), driven on SIMULATED time against the project's API test server. It reads
 * NodePools, HostedClusters and hand-off ConfigMaps from the server, and writes what HyperShift
 * writes on a NodePool: status conditions, status.version and the current-config annotations.
 * Machines live in memory (the CAPI world is not on the management API we test).
 *
 * Faithful to openshift/hypershift at 3ee9615567acffaf3e3ee25c2ca2942d650565cf (paths below are
 * at that commit; docs/design/fleet-simulation.md has the evidence table):
 * - Config hash (hypershift-operator/controllers/nodepool/config.go `Hash`, `HashWithoutVersion`,
 *   `generateMCORawConfig`, `parse`; nto.go `getNTOGeneratedConfig`): the machine config is every
 *   ConfigMap in the HCP namespace labelled `hypershift.openshift.io/nto-generated-machine-config=true`
 *   and `hypershift.openshift.io/nodePool=<name>` (only while the HostedCluster's
 *   `spec.capabilities.disabled` does not name NodeTuning: support/capabilities
 *   hosted_control_plane_capabilities.go), key `config`, split into YAML documents, sorted, joined
 *   with "\n---\n". The target config hash (UpdatingConfig, annotation
 *   `hypershift.openshift.io/nodePoolCurrentConfig`) excludes the release version; the payload
 *   hash that names the user-data Secret (what rolls machines) includes it. Both are 32-bit FNV-1a
 *   as "%08x" (support/util/util.go `HashSimple`). Core configs, pull secret and trust bundle are
 *   constants here.
 * - The HCP namespace is `<namespace>-<clusterName with . as ->` (manifests/manifests.go).
 * - `spec.pausedUntil` (support/util/pausereconcile.go `ProcessPausedUntilField`): Go's
 *   strconv.ParseBool first, else time.Parse(RFC3339) and paused while now is before it (requeued
 *   at that time: nodepool_controller.go `RequeueAfter: duration`), else NOT paused (the error is
 *   only logged). Implemented here from those semantics, sharing nothing with builder/, so the
 *   stand-in checks the gate rather than agreeing with it.
 * - Order in `reconcile` (nodepool_controller.go ~309-436): the signal conditions (ReconciliationActive,
 *   UpdatingConfig with "Updating config in progress. Target config: <hash>", UpdatingVersion with
 *   "Updating version in progress. Target version: <v>", machine and node conditions) are computed
 *   BEFORE the pause check, and the patch helper writes them even when paused: while held, the
 *   Target config hash still moves. Paused: `capi.Pause` (MachineDeployment and MachineSet
 *   annotated paused: no new machines) and return.
 * - Replace (capi.go `reconcileMachineDeployment`, default rolling update maxSurge 1,
 *   maxUnavailable 0: api nodepool_types.go): a new user-data Secret is propagated to the
 *   MachineDeployment; one surge machine boots, an old one is deleted when it is ready, and so on.
 *   Done when the MachineDeployment is complete (`MachineDeploymentComplete`): then status.version
 *   and nodePoolCurrentConfig(-Version) are set (capi.go `reconcileMachineDeploymentStatus`).
 *   No failure signal: a machine that never joins leaves it rolling.
 * - InPlace (capi.go `reconcileMachineSet`; hostedclusterconfigoperator inplaceupgrader.go): the
 *   MachineSet gets the target config version; nodes upgrade one at a time (maxUnavailable 1);
 *   progress is the MachineSet annotation "Nodepool update in progress. Target Config version: %s.
 *   Total Nodes: %d. Upgraded: %d", which REPLACES the UpdatingConfig/UpdatingVersion message
 *   (conditions.go `updatingConfigCondition`); a degraded node sets "Node %s in nodepool degraded:
 *   %v" and UpdatingConfig becomes False with reason InplaceUpgradeFailed. An in-place rollout
 *   already targeted goes on while paused (the upgrader runs in the hosted cluster).
 * - ConfigMaps come from the operator's informer cache (config.go reads through the manager's
 *   client): here a configurable lag between a ConfigMap write and the stand-in seeing it. A
 *   NodePool is read fresh. A ConfigMap event requeues its NodePool when the cache sees it
 *   (nodepool_controller.go `enqueueNodePoolsForConfig`).
 */
import type { ApiTestServer, KubeObject, WriteEvent } from '../../pkogen/test/kube/api-server.js';

// ---- upstream names (api/hypershift/v1beta1/nodepool_conditions.go, hostedcluster_conditions.go; nodepool_controller.go) ----
export const NTO_GENERATED_CONFIG_LABEL = 'hypershift.openshift.io/nto-generated-machine-config';
export const NODEPOOL_LABEL = 'hypershift.openshift.io/nodePool';
export const CURRENT_CONFIG_ANNOTATION = 'hypershift.openshift.io/nodePoolCurrentConfig';
export const CURRENT_CONFIG_VERSION_ANNOTATION = 'hypershift.openshift.io/nodePoolCurrentConfigVersion';
export const UPDATING_CONFIG = 'UpdatingConfig';
export const UPDATING_VERSION = 'UpdatingVersion';
export const READY = 'Ready';
export const ALL_MACHINES_READY = 'AllMachinesReady';
export const ALL_NODES_HEALTHY = 'AllNodesHealthy';
export const RECONCILIATION_ACTIVE = 'ReconciliationActive';
export const AS_EXPECTED = 'AsExpected';
export const INPLACE_UPGRADE_FAILED = 'InplaceUpgradeFailed';
export const NODE_TUNING = 'NodeTuning';

export const NODEPOOL_TYPE = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true };
export const HOSTEDCLUSTER_TYPE = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true };
export const HOSTEDCONTROLPLANE_TYPE = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true };
const API = 'hypershift.openshift.io/v1beta1';

// ---- simulated time ------------------------------------------------------------------------

/**
 * Simulated time with timers, shaped as builder/controller/queue.ts's Clock so the fleet's work
 * queue runs on it too. Nothing happens until `advance`: timers fire in due order, `now` jumping
 * to each one's time.
 */
export class SimClock {
  private t: number;
  private seq = 0;
  /** Pending timers by id; `heap` orders them by (at, id) (a cleared timer leaves the heap when it reaches the top). */
  private readonly timers = new Map<number, { at: number; f: () => void }>();
  private readonly heap: [number, number][] = [];
  constructor(start: string | number = '2026-11-25T00:00:00Z') {
    this.t = typeof start === 'number' ? start : Date.parse(start);
  }
  now(): number {
    return this.t;
  }
  setTimeout(f: () => void, ms: number): unknown {
    const id = ++this.seq;
    const at = this.t + Math.max(0, ms);
    this.timers.set(id, { at, f });
    this.push([at, id]);
    return id;
  }
  clearTimeout(h: unknown): void {
    this.timers.delete(h as number);
  }
  /** The earliest pending timer's time. */
  nextDue(): number | undefined {
    this.drop();
    return this.heap[0]?.[0];
  }
  /** Moves time forward by `ms`, firing every timer due on the way (bounded: a timer loop at 0 ms cannot spin forever). Returns how many fired. */
  advance(ms: number, maxFires = 1_000_000): number {
    const end = this.t + ms;
    let fired = 0;
    for (;;) {
      this.drop();
      const top = this.heap[0];
      if (!top || top[0] > end) break;
      if (++fired > maxFires) throw new Error(`SimClock: more than ${maxFires} timers fired in one advance of ${ms} ms`);
      this.pop();
      const timer = this.timers.get(top[1])!;
      this.timers.delete(top[1]);
      this.t = Math.max(this.t, timer.at);
      timer.f();
    }
    this.t = end;
    return fired;
  }
  /** Cleared timers off the top. */
  private drop(): void {
    while (this.heap.length && !this.timers.has(this.heap[0]![1])) this.pop();
  }
  private static less(a: [number, number], b: [number, number]): boolean {
    return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  }
  private push(x: [number, number]): void {
    const h = this.heap;
    h.push(x);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!SimClock.less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }
  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (!h.length) return;
    h[0] = last;
    for (let i = 0; ; ) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && SimClock.less(h[l]!, h[m]!)) m = l;
      if (r < h.length && SimClock.less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

// ---- upstream semantics, implemented from their source ------------------------------------

/** Go strconv.ParseBool. */
function goParseBool(s: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(s)) return false;
  return undefined;
}

/** Go time.Parse(time.RFC3339, s) in epoch ms, or undefined (fractional seconds are accepted when parsing, as Go does). */
export function goParseRFC3339(s: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|([+-])(\d{2}):(\d{2}))$/.exec(s);
  if (!m) return undefined;
  const [y, mo, d, h, mi, se] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  const days = [31, y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
  if (mo! < 1 || mo! > 12 || d! < 1 || d! > days[mo! - 1]! || h! > 23 || mi! > 59 || se! > 59) return undefined;
  let offset = 0;
  if (m[8] !== 'Z') {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 60 + om) * 60_000;
  }
  const frac = m[7] ? Math.floor(Number(`0${m[7]}`) * 1000) : 0;
  return Date.UTC(y!, mo! - 1, d!, h!, mi!, se!, frac) - offset;
}

/**
 * support/util/pausereconcile.go ProcessPausedUntilField: ParseBool, else RFC3339 (paused while
 * now is before it; requeue after the difference), else not paused and `invalid`.
 */
export function pausedUntilState(v: string | undefined | null, nowMs: number): { paused: boolean; requeueAfterMs: number; invalid: boolean } {
  if (v == null) return { paused: false, requeueAfterMs: 0, invalid: false };
  const b = goParseBool(v);
  if (b !== undefined) return { paused: b, requeueAfterMs: 0, invalid: false };
  const t = goParseRFC3339(v);
  if (t !== undefined) return { paused: nowMs < t, requeueAfterMs: t - nowMs, invalid: false };
  return { paused: false, requeueAfterMs: 0, invalid: true };
}

/** support/util/util.go HashSimple: 32-bit FNV-1a of the string, "%08x". */
export function hashSimple(s: string): string {
  let h = 0x811c9dc5;
  for (const byte of Buffer.from(s, 'utf8')) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** config.go parse: every ConfigMap's `config` split into YAML documents, trimmed, non-empty, sorted, joined. */
export function mcoRawConfig(configs: KubeObject[]): string {
  const docs: string[] = [];
  for (const c of configs) for (const d of (c.data?.config ?? '').split(/^---[ \t]*$/m)) if (d.trim() !== '') docs.push(d.trim());
  return docs.sort().join('\n---\n');
}

/** The two hashes HyperShift derives: `config` (HashWithoutVersion: UpdatingConfig, nodePoolCurrentConfig) and `payload` (Hash: the user-data Secret: what rolls machines). */
export function configHashes(raw: string, version: string): { config: string; payload: string } {
  return { config: hashSimple(raw), payload: hashSimple(raw + version) };
}

export function hcpNamespace(nodePoolNamespace: string, clusterName: string): string {
  return `${nodePoolNamespace}-${clusterName.replace(/\./g, '-')}`;
}

/** The release version a pull spec resolves to (HyperShift reads it from the release metadata): a stand-in mapping. */
export function defaultVersionOf(release: string): string {
  return `4.20.0-${hashSimple(release)}`;
}

// ---- the stand-in --------------------------------------------------------------------------

export type UpgradeType = 'Replace' | 'InPlace';

interface Machine {
  name: string;
  /** The payload hash the machine runs (InPlace: the node's current config version). */
  payload: string;
  /** Replace: booting until readyAt; InPlace: being upgraded until readyAt. */
  readyAt?: number;
  /** Being upgraded in place to this payload. */
  upgradingTo?: string;
}

interface Pool {
  key: string;
  type: UpgradeType;
  replicas: number;
  machines: Machine[];
  machineSeq: number;
  /** MachineDeployment/MachineSet spec: what the user-data Secret names. */
  target?: { payload: string; config: string; version: string };
  /** capi.Pause. */
  capiPaused: boolean;
  /** MachineSet annotations of the in-place upgrader. */
  inPlaceProgress?: string;
  inPlaceFailed?: string;
  /** The next progress event of the machines. */
  progressTimer?: unknown;
  /** Made to fail: InPlace: the next node to upgrade degrades; Replace: new machines never join. */
  failing?: string;
}

export interface StandInOptions {
  server: ApiTestServer;
  clock: SimClock;
  /** How long after a ConfigMap write the operator's cache holds it (simulated ms; default 0). */
  configMapLagMs?: number;
  /** Between an event and the reconcile it causes (simulated ms; default 1000). */
  reconcileDelayMs?: number;
  /** Replace: a new machine boots and joins in this long (default 8 min). */
  machineBootMs?: number;
  /** InPlace: one node drains, rebases and reboots in this long (default 6 min). */
  nodeUpgradeMs?: number;
  versionOf?: (release: string) => string;
}

type NodePool = KubeObject & {
  metadata: { name: string; namespace: string; annotations?: Record<string, string> };
  spec: { clusterName: string; release: { image: string }; replicas?: number; pausedUntil?: string; management?: { upgradeType?: UpgradeType } };
  status?: { version?: string; conditions?: Condition[] };
};
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
  observedGeneration?: number;
  lastTransitionTime?: string;
}

/** What the stand-in's machines do for one NodePool (tests and the recorder read it). */
export interface PoolView {
  type: UpgradeType;
  /** The payload and config hashes the machines are being moved to (undefined: never rolled). */
  target?: { payload: string; config: string; version: string };
  /** Machines not yet on the target, or not ready. */
  rolling: boolean;
  failed?: string;
  capiPaused: boolean;
  machines: { name: string; payload: string; ready: boolean }[];
}

export class HyperShiftStandIn {
  private readonly o: Required<Omit<StandInOptions, 'server' | 'clock'>> & Pick<StandInOptions, 'server' | 'clock'>;
  private readonly pools = new Map<string, Pool>();
  /** The operator's ConfigMap cache (machine-config ones): namespace → name → object as last delivered. */
  private readonly cache = new Map<string, Map<string, KubeObject>>();
  private cacheSet(o: KubeObject, present: boolean): void {
    const ns = o.metadata!.namespace as string;
    let m = this.cache.get(ns);
    if (!m) this.cache.set(ns, (m = new Map()));
    if (present) m.set(o.metadata!.name as string, o);
    else m.delete(o.metadata!.name as string);
  }
  private readonly queued = new Map<string, { at: number; handle: unknown }>();
  private writing = false;
  private off?: () => void;
  /** Reconciles done (a bound for tests and a measure). */
  reconciles = 0;

  constructor(o: StandInOptions) {
    this.o = { configMapLagMs: 0, reconcileDelayMs: 1000, machineBootMs: 8 * 60_000, nodeUpgradeMs: 6 * 60_000, versionOf: defaultVersionOf, ...o };
  }

  /** Starts watching (the server's write hook): fills the cache with what is there and reconciles every NodePool once, now. */
  start(): void {
    for (const cm of this.o.server.store.list('v1', 'ConfigMap')) if (this.isMachineConfig(cm)) this.cacheSet(cm, true);
    this.off = this.o.server.onWrite((e) => this.onWrite(e));
    // The machines run what each NodePool says now (they existed before us): settled at once, so a
    // write that lands before the first clock step is a change, not the starting point.
    for (const np of this.o.server.store.list(API, 'NodePool')) {
      this.index(np, false);
      this.reconcile(refOf(np));
    }
  }

  /** `<hcp namespace>/<NodePool name>` → NodePool key (how a ConfigMap's label finds its NodePool). */
  private readonly nodePools = new Map<string, string>();
  private index(np: KubeObject, deleted: boolean): void {
    const n = np as NodePool;
    if (!n.spec?.clusterName) return;
    const k = `${hcpNamespace(n.metadata.namespace, n.spec.clusterName)}/${n.metadata.name}`;
    if (deleted) this.nodePools.delete(k);
    else this.nodePools.set(k, refOf(np));
  }

  stop(): void {
    this.off?.();
    for (const q of this.queued.values()) this.o.clock.clearTimeout(q.handle);
    this.queued.clear();
    for (const p of this.pools.values()) if (p.progressTimer !== undefined) this.o.clock.clearTimeout(p.progressTimer);
  }

  /** Makes a NodePool's next rollout fail (InPlace: a node degrades with `message`; Replace: new machines never join). */
  fail(key: string, message = 'failed to rebase: error pulling image: unauthorized'): void {
    this.pool(key).failing = message;
  }

  /** Heals a failing NodePool: InPlace clears the degraded node (the upgrader goes on), Replace's stuck machine joins. */
  heal(key: string): void {
    const p = this.pool(key);
    p.failing = undefined;
    p.inPlaceFailed = undefined;
    for (const m of p.machines) if (m.readyAt === Infinity) m.readyAt = this.o.clock.now();
    this.progress(p);
  }

  view(key: string): PoolView | undefined {
    const p = this.pools.get(key);
    if (!p) return undefined;
    return {
      type: p.type,
      ...(p.target ? { target: { ...p.target } } : {}),
      rolling: this.isRolling(p),
      ...(p.inPlaceFailed ? { failed: p.inPlaceFailed } : {}),
      capiPaused: p.capiPaused,
      machines: p.machines.map((m) => ({ name: m.name, payload: m.payload, ready: this.ready(m) })),
    };
  }

  /** Whether any NodePool's machines are moving. */
  anyRolling(): boolean {
    for (const p of this.pools.values()) if (this.isRolling(p) && !p.inPlaceFailed) return true;
    return false;
  }

  /** The hashes HyperShift computes for a NodePool from the API as it is NOW (not the lagging cache): what a finished rollout reports. */
  hashesNow(np: KubeObject): { config: string; payload: string; version: string } {
    const n = np as NodePool;
    const version = this.o.versionOf(n.spec.release.image);
    const configs = this.machineConfigsOf(n, this.o.server.store.list('v1', 'ConfigMap', hcpNamespace(n.metadata.namespace, n.spec.clusterName)));
    return { ...configHashes(mcoRawConfig(configs), version), version };
  }

  versionOf(release: string): string {
    return this.o.versionOf(release);
  }

  // ---- events ----

  private onWrite(e: WriteEvent): void {
    if (this.writing) return; // our own NodePool writes: the re-reconcile they cause is a no-op
    const k = e.object.kind;
    if (k === 'NodePool') {
      this.index(e.object, e.type === 'DELETED');
      this.enqueue(refOf(e.object), this.o.reconcileDelayMs);
    }
    else if (k === 'HostedCluster') {
      for (const np of this.o.server.store.list(API, 'NodePool', e.object.metadata!.namespace)) if ((np as NodePool).spec?.clusterName === e.object.metadata!.name) this.enqueue(refOf(np), this.o.reconcileDelayMs);
    } else if (k === 'ConfigMap' && (this.isMachineConfig(e.object) || (e.previous && this.isMachineConfig(e.previous)))) {
      // The informer delivers it later; its NodePool is queued when the cache sees it.
      const obj = e.object;
      const type = e.type;
      const deliver = () => {
        this.cacheSet(obj, type !== 'DELETED' && this.isMachineConfig(obj));
        const npName = (obj.metadata?.labels ?? {})[NODEPOOL_LABEL] ?? (e.previous?.metadata?.labels ?? {})[NODEPOOL_LABEL];
        if (!npName) return;
        // getNodePoolNamespacedName: the NodePool whose HCP namespace this is.
        const np = this.nodePools.get(`${obj.metadata!.namespace}/${npName}`);
        if (np) this.enqueue(np, this.o.reconcileDelayMs);
      };
      if (this.o.configMapLagMs <= 0) deliver();
      else this.o.clock.setTimeout(deliver, this.o.configMapLagMs);
    }
  }

  private isMachineConfig(cm: KubeObject): boolean {
    return cm.kind === 'ConfigMap' && cm.metadata?.labels?.[NTO_GENERATED_CONFIG_LABEL] === 'true' && typeof cm.metadata?.labels?.[NODEPOOL_LABEL] === 'string';
  }

  /** A work queue: one pending reconcile per key, at the earliest time asked (an event does not wait behind a requeue for later). */
  private enqueue(key: string, delayMs: number): void {
    const at = this.o.clock.now() + Math.max(0, delayMs);
    const q = this.queued.get(key);
    if (q && q.at <= at) return;
    if (q) this.o.clock.clearTimeout(q.handle);
    const handle = this.o.clock.setTimeout(() => {
      this.queued.delete(key);
      this.reconcile(key);
    }, delayMs);
    this.queued.set(key, { at, handle });
  }

  private pool(key: string): Pool {
    let p = this.pools.get(key);
    if (!p) {
      const np = this.get(key);
      const replicas = Math.max(0, Number(np?.spec.replicas ?? 2));
      p = { key, type: np?.spec.management?.upgradeType === 'InPlace' ? 'InPlace' : 'Replace', replicas, machines: [], machineSeq: 0, capiPaused: false };
      this.pools.set(key, p);
    }
    return p;
  }

  private get(key: string): NodePool | undefined {
    const i = key.indexOf('/');
    return this.o.server.store.get({ apiVersion: API, kind: 'NodePool', namespace: key.slice(0, i), name: key.slice(i + 1) }) as NodePool | undefined;
  }

  private machineConfigsOf(np: NodePool, cms: Iterable<KubeObject>): KubeObject[] {
    const hc = this.o.server.store.get({ apiVersion: API, kind: 'HostedCluster', namespace: np.metadata.namespace, name: np.spec.clusterName });
    const disabled: unknown = hc?.spec?.capabilities?.disabled;
    if (Array.isArray(disabled) && disabled.includes(NODE_TUNING)) return [];
    const ns = hcpNamespace(np.metadata.namespace, np.spec.clusterName);
    return [...cms].filter((c) => c.metadata?.namespace === ns && this.isMachineConfig(c) && c.metadata!.labels![NODEPOOL_LABEL] === np.metadata.name).sort((a, b) => (a.metadata!.name < b.metadata!.name ? -1 : 1));
  }

  // ---- the NodePool controller's reconcile ----

  private reconcile(key: string): void {
    this.reconciles++;
    const np = this.get(key);
    if (!np) {
      const p = this.pools.get(key);
      if (p?.progressTimer !== undefined) this.o.clock.clearTimeout(p.progressTimer);
      this.pools.delete(key);
      return;
    }
    const hc = this.o.server.store.get({ apiVersion: API, kind: 'HostedCluster', namespace: np.metadata.namespace, name: np.spec.clusterName });
    if (!hc) return; // GetHostedClusterByName fails: the reconcile errors out
    const p = this.pool(key);
    const now = this.o.clock.now();
    const version = this.o.versionOf(np.spec.release.image);
    const { config, payload } = configHashes(mcoRawConfig(this.machineConfigsOf(np, this.cache.get(hcpNamespace(np.metadata.namespace, np.spec.clusterName))?.values() ?? [])), version);
    if (p.machines.length === 0 && p.target === undefined) {
      // First sight: the machines run what the NodePool says (it existed before the stand-in).
      p.target = { payload, config, version };
      for (let i = 0; i < p.replicas; i++) p.machines.push({ name: `${np.metadata.name}-${++p.machineSeq}`, payload });
    }
    const annotations = { ...(np.metadata.annotations ?? {}) };
    const status = { ...(np.status ?? {}) };
    if (annotations[CURRENT_CONFIG_ANNOTATION] === undefined && p.target?.payload === payload && !this.isRolling(p)) {
      annotations[CURRENT_CONFIG_ANNOTATION] = config;
      annotations[CURRENT_CONFIG_VERSION_ANNOTATION] = payload;
      status.version = version;
    }
    const conditions = [...(status.conditions ?? [])];
    const set = (c: Condition) => setCondition(conditions, { ...c, observedGeneration: np.metadata.generation as number | undefined }, now);
    const pause = pausedUntilState(np.spec.pausedUntil, now);

    // Signal conditions first (as upstream: before the pause check, written even while paused).
    set(
      pause.paused
        ? { type: RECONCILIATION_ACTIVE, status: 'False', reason: 'ReconciliationPaused', message: goParseBool(np.spec.pausedUntil!) !== undefined ? 'Reconciliation paused until field removed' : `Reconciliation paused until: ${np.spec.pausedUntil}` }
        : { type: RECONCILIATION_ACTIVE, status: 'True', reason: pause.invalid ? 'InvalidPausedUntilValue' : 'ReconciliationActive', message: pause.invalid ? 'Invalid value provided for PausedUntil field' : 'Reconciliation active on resource' },
    );
    const inPlaceOverride = (m: string): { status: 'True' | 'False'; reason: string; message: string } => {
      if (p.type === 'InPlace' && p.inPlaceFailed) return { status: 'False', reason: INPLACE_UPGRADE_FAILED, message: p.inPlaceFailed };
      if (p.type === 'InPlace' && p.inPlaceProgress) return { status: 'True', reason: AS_EXPECTED, message: p.inPlaceProgress };
      return { status: 'True', reason: AS_EXPECTED, message: m };
    };
    if (annotations[CURRENT_CONFIG_ANNOTATION] !== config) set({ type: UPDATING_CONFIG, ...inPlaceOverride(`Updating config in progress. Target config: ${config}`) });
    else set({ type: UPDATING_CONFIG, status: 'False', reason: AS_EXPECTED });
    if (status.version !== version) set({ type: UPDATING_VERSION, ...inPlaceOverride(`Updating version in progress. Target version: ${version}`) });
    else set({ type: UPDATING_VERSION, status: 'False', reason: AS_EXPECTED });
    this.machineConditions(p, set);

    if (pause.paused) {
      p.capiPaused = true;
      if (pause.requeueAfterMs > 0) this.enqueue(key, pause.requeueAfterMs);
    } else {
      p.capiPaused = false;
      if (p.target?.payload !== payload) {
        // A new user-data Secret: propagated to the MachineDeployment / MachineSet.
        p.target = { payload, config, version };
        if (p.type === 'InPlace') {
          p.inPlaceProgress = undefined;
          p.inPlaceFailed = undefined;
        }
      }
      this.progress(p);
      if (p.target && !this.isRolling(p) && !p.inPlaceFailed) {
        // MachineDeploymentComplete / machineSetInPlaceRolloutIsComplete.
        status.version = p.target.version;
        annotations[CURRENT_CONFIG_ANNOTATION] = p.target.config;
        annotations[CURRENT_CONFIG_VERSION_ANNOTATION] = p.target.payload;
        // The conditions follow in the same write (the next reconcile upstream; same outcome).
        if (p.target.config === config) set({ type: UPDATING_CONFIG, status: 'False', reason: AS_EXPECTED });
        if (p.target.version === version) set({ type: UPDATING_VERSION, status: 'False', reason: AS_EXPECTED });
      }
    }
    status.conditions = conditions;
    this.write(np, annotations, status);
  }

  private machineConditions(p: Pool, set: (c: Condition) => void): void {
    const notReady = p.machines.filter((m) => !this.ready(m));
    const ok = notReady.length === 0;
    const msg = ok ? 'All is well' : notReady.map((m) => `Machine ${m.name}: ${m.upgradingTo ? 'Upgrading' : 'WaitingForNodeRef'}\n`).join('');
    set({ type: ALL_MACHINES_READY, status: ok ? 'True' : 'False', reason: ok ? AS_EXPECTED : 'WaitingForNodeRef', message: msg });
    set({ type: ALL_NODES_HEALTHY, status: ok ? 'True' : 'False', reason: ok ? AS_EXPECTED : 'WaitingForNodeRef', message: msg });
    const available = p.machines.filter((m) => this.ready(m)).length;
    set({ type: READY, status: available >= p.replicas ? 'True' : 'False', reason: AS_EXPECTED, message: '' });
  }

  private write(np: NodePool, annotations: Record<string, string>, status: Record<string, unknown>): void {
    const next = { ...np, metadata: { ...np.metadata, annotations }, status };
    this.writing = true;
    try {
      this.o.server.store.put(next); // one read-modify-write, atomic here (the patch helper's merge patch upstream)
    } finally {
      this.writing = false;
    }
  }

  // ---- machines ----

  private ready(m: Machine): boolean {
    return m.readyAt === undefined || m.readyAt <= this.o.clock.now();
  }

  private isRolling(p: Pool): boolean {
    if (!p.target) return false;
    return p.machines.length !== p.replicas || p.machines.some((m) => m.payload !== p.target!.payload || !this.ready(m));
  }

  /** Moves the machines toward the target and schedules the next event; a change is an event on the NodePool's queue (the MachineDeployment / MachineSet watch). */
  private progress(p: Pool): void {
    const sig = (x: Pool) => JSON.stringify([x.machines, x.inPlaceProgress, x.inPlaceFailed]);
    const before = sig(p);
    this.step(p);
    if (sig(p) !== before) this.enqueue(p.key, this.o.reconcileDelayMs);
  }

  private step(p: Pool): void {
    if (p.progressTimer !== undefined) return; // one event at a time
    const t = p.target;
    if (!t) return;
    const now = this.o.clock.now();
    const wake = (at: number) => {
      if (!Number.isFinite(at)) return;
      p.progressTimer = this.o.clock.setTimeout(() => {
        p.progressTimer = undefined;
        this.progress(p);
        this.enqueue(p.key, 0); // the MachineDeployment / MachineSet watch requeues the NodePool
      }, Math.max(0, at - now));
    };
    if (p.type === 'Replace') {
      const booting = p.machines.find((m) => !this.ready(m));
      if (booting) return wake(booting.readyAt!);
      if (p.capiPaused) return; // a paused MachineDeployment makes no machine
      const old = p.machines.filter((m) => m.payload !== t.payload);
      if (p.machines.length > p.replicas && old.length > 0) {
        // The surge machine joined: an old one goes.
        p.machines.splice(p.machines.indexOf(old[0]!), 1);
        return this.step(p);
      }
      if (old.length === 0) return;
      const readyAt = p.failing ? Infinity : now + this.o.machineBootMs;
      p.machines.push({ name: `${p.key.slice(p.key.indexOf('/') + 1)}-${++p.machineSeq}`, payload: t.payload, readyAt });
      return wake(readyAt);
    }
    // InPlace: one node at a time (maxUnavailable 1).
    if (p.inPlaceFailed) return;
    const upgrading = p.machines.find((m) => m.upgradingTo !== undefined);
    if (upgrading) {
      if (!this.ready(upgrading)) return wake(upgrading.readyAt!);
      if (p.failing) {
        p.inPlaceProgress = undefined;
        p.inPlaceFailed = `Node ${upgrading.name} in nodepool degraded: ${p.failing}`;
        upgrading.upgradingTo = undefined;
        return;
      }
      upgrading.payload = upgrading.upgradingTo!;
      upgrading.upgradingTo = undefined;
    }
    const todo = p.machines.filter((m) => m.payload !== t.payload);
    const done = p.machines.length - todo.length;
    if (todo.length === 0) {
      p.inPlaceProgress = undefined;
      return;
    }
    p.inPlaceProgress = `Nodepool update in progress. Target Config version: ${t.payload}. Total Nodes: ${p.machines.length}. Upgraded: ${done}`;
    const next = todo[0]!;
    next.upgradingTo = t.payload;
    next.readyAt = now + this.o.nodeUpgradeMs;
    wake(next.readyAt);
  }
}

function refOf(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/** SetStatusCondition (conditions.go): the transition time moves only when the status does. */
function setCondition(conditions: Condition[], c: Condition, nowMs: number): void {
  const i = conditions.findIndex((x) => x.type === c.type);
  const ts = new Date(nowMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const clean: Condition = { type: c.type, status: c.status, ...(c.reason !== undefined ? { reason: c.reason } : {}), ...(c.message ? { message: c.message } : {}), ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}) };
  if (i < 0) conditions.push({ ...clean, lastTransitionTime: ts });
  else conditions[i] = { ...clean, lastTransitionTime: conditions[i]!.status === c.status ? conditions[i]!.lastTransitionTime : ts };
}

/** A NodePool condition by type. */
export function conditionOf(np: KubeObject | undefined, type: string): Condition | undefined {
  return ((np as NodePool | undefined)?.status?.conditions ?? []).find((c) => c.type === type);
}
