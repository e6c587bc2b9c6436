/**
 * The invariant recorder of the fleet rollout scenarios: at EVERY write to the API test server
 * (its write hook, synchronously, in the state that write made) it checks the properties of
 * docs/design/fleet-simulation.md, and collects each violation with the write that caused it.
 *
 *  1. NodePools rolling because of a fleet write ≤ maxConcurrency (and ≤ perHostedCluster per
 *     HostedCluster).
 *  2. Canaries first: no non-canary NodePool starts before every canary succeeded.
 *  3. Halt: after a canary failed, or more than maxFailures failed, no NodePool starts until the
 *     scenario says a human resumed (`resumed()`).
 *  4. Never unpaused (HyperShift's own pausedUntil semantics) while the release is R and the
 *     hand-off carries an image built for R' ≠ R.
 *  5. No pausedUntil the fleet wrote is a boolean true, unparseable, or later than now + maxHoldSeconds.
 *
 * What "rolling because of a fleet write" means, from the API only (no fleet internals): a
 * NodePool STARTS when, at a write, it is not paused and its hand-off content (the ConfigMaps
 * HyperShift selects for it, as they are in the API) differs from the content it last settled on,
 * and the last change of that content was written by the fleet (so the gate's hand-off for a
 * release change counts too). It stays rolling until HyperShift reports, on the NodePool, success
 * (UpdatingConfig False/AsExpected, nodePoolCurrentConfig = the config hash of that content,
 * UpdatingVersion False and status.version = the release's version, Ready, AllMachinesReady and
 * AllNodesHealthy True) or failure (UpdatingConfig or UpdatingVersion reason InplaceUpgradeFailed, or
 * progressDeadlineMs passed since it started). Either ends it; the content becomes its base.
 */
import type { ApiTestServer, KubeObject, WriteEvent } from '../../pkogen/test/kube/api-server.js';
import {
  ALL_MACHINES_READY,
  ALL_NODES_HEALTHY,
  AS_EXPECTED,
  conditionOf,
  CURRENT_CONFIG_ANNOTATION,
  hcpNamespace,
  HyperShiftStandIn,
  INPLACE_UPGRADE_FAILED,
  mcoRawConfig,
  NODE_TUNING,
  NODEPOOL_LABEL,
  NTO_GENERATED_CONFIG_LABEL,
  pausedUntilState,
  READY,
  configHashes,
  SimClock,
  UPDATING_CONFIG,
  UPDATING_VERSION,
} from './hypershift-standin.js';

export interface RecorderOptions {
  server: ApiTestServer;
  clock: SimClock;
  standIn: HyperShiftStandIn;
  /** Identities whose writes are the fleet's (its ServiceAccount; the identity applying its admission patch). */
  fleetWriters: string[];
  maxConcurrency?: number;
  perHostedCluster?: number;
  /** NodePool keys (`ns/name`) in the canary groups. */
  canaries?: Set<string>;
  /** Failures tolerated outside canaries (a canary failure always halts). Undefined: no halt is expected. */
  maxFailures?: number;
  /** A rollout not settled this long after it started counts as failed. */
  progressDeadlineMs?: number;
  maxHoldSeconds?: number;
  /** The release an image was built for (the fake builds know); undefined: not ours, not checked. */
  imageRelease?: (image: string) => string | undefined;
  /** Violations kept (the count goes on). Default 200. */
  keep?: number;
}

export interface Violation {
  property: 1 | 2 | 3 | 4 | 5;
  /** Simulated time. */
  at: string;
  /** The write that caused it: `<user> <type> <Kind> <ns>/<name> rv=<n>`, or `clock` for time passing. */
  write: string;
  message: string;
}

interface Rolling {
  content: string;
  since: number;
  hostedCluster: string;
}

export class InvariantRecorder {
  readonly violations: Violation[] = [];
  violationCount = 0;
  /** Every start and end, in order (`start ns/name`, `succeeded ns/name`, `failed ns/name`). */
  readonly log: string[] = [];
  maxRolling = 0;
  starts = 0;
  private readonly rolling = new Map<string, Rolling>();
  /** NodePool key → the hand-off content it settled on (or had at the start). */
  private readonly base = new Map<string, string>();
  /** NodePool key → whether the last change of its hand-off content was the fleet's. */
  private readonly lastByFleet = new Map<string, boolean>();
  private readonly succeeded = new Set<string>();
  /** Property 4 as last told per NodePool (a state is told once, not at every later write). */
  private readonly told4 = new Map<string, string>();
  private failures = 0;
  private canaryFailed = false;
  private halted = false;
  private off?: () => void;
  private current = 'setup';

  constructor(private readonly o: RecorderOptions) {}

  start(): void {
    for (const np of this.o.server.store.list('hypershift.openshift.io/v1beta1', 'NodePool')) {
      this.index(np);
      this.base.set(keyOf(np), this.contentOf(np));
    }
    this.off = this.o.server.onWrite((e) => this.onWrite(e));
  }

  stop(): void {
    this.off?.();
  }

  /** A human resumed a halted rollout with our command: starts are allowed again (and failures count afresh). */
  resumed(): void {
    this.halted = false;
    this.canaryFailed = false;
    this.failures = 0;
  }

  /** A new rollout begins (a new layer, a rollback): canaries must succeed again before others start; halts and failures count afresh. */
  newRollout(): void {
    this.succeeded.clear();
    this.resumed();
  }

  get isHalted(): boolean {
    return this.halted;
  }

  rollingNow(): string[] {
    return [...this.rolling.keys()].sort();
  }

  /** Checks what time alone changes (a pausedUntil expiring, a deadline passing): call after advancing the clock. */
  tick(): void {
    this.current = 'clock';
    // Only time-bound states change without a write: an RFC3339 hold, a rollout's deadline.
    for (const np of this.o.server.store.list('hypershift.openshift.io/v1beta1', 'NodePool')) {
      const v = (np as any).spec?.pausedUntil;
      if (this.rolling.has(keyOf(np)) || (typeof v === 'string' && pausedUntilState(v, 0).requeueAfterMs !== 0)) this.check(np);
    }
  }

  /** A one-line summary per property (tests print it on failure). */
  summary(): string {
    const by = new Map<number, number>();
    for (const v of this.violations) by.set(v.property, (by.get(v.property) ?? 0) + 1);
    return `${this.violationCount} violations (${[...by].map(([p, n]) => `P${p}: ${n}${n === this.o.keep ? '+' : ''}`).join(', ') || 'none'}); max rolling ${this.maxRolling}; starts ${this.starts}`;
  }

  // ---- per write ----

  private onWrite(e: WriteEvent): void {
    const md = e.object.metadata ?? {};
    this.current = `${e.user ?? '(store)'} ${e.type} ${e.object.kind} ${md.namespace ?? ''}/${md.name ?? ''} rv=${md.resourceVersion ?? ''}`;
    const byFleet = e.user !== undefined && this.o.fleetWriters.includes(e.user);
    const store = this.o.server.store;
    if (e.object.kind === 'NodePool') {
      if (e.type !== 'DELETED') {
        this.index(e.object);
        this.checkPausedUntilWrite(e, byFleet);
        this.check(e.object);
      } else this.rolling.delete(keyOf(e.object));
    } else if (e.object.kind === 'ConfigMap') {
      const labelled = (o?: KubeObject) => o?.metadata?.labels?.[NTO_GENERATED_CONFIG_LABEL] === 'true' ? o.metadata.labels[NODEPOOL_LABEL] : undefined;
      const npName = labelled(e.object) ?? labelled(e.previous);
      if (!npName || (e.type === 'MODIFIED' && e.previous?.data?.config === e.object.data?.config && labelled(e.previous) === labelled(e.object))) return;
      const k = this.nodePools.get(`${md.namespace}/${npName}`);
      const np = k === undefined ? undefined : this.getNodePool(k);
      if (k !== undefined && np) {
        this.lastByFleet.set(k, byFleet);
        if (!byFleet && !this.rolling.has(k)) this.base.set(k, this.contentOf(np)); // not ours: its new content is the NodePool's own
        this.check(np);
      }
    } else if (e.object.kind === 'HostedCluster') {
      for (const np of store.list('hypershift.openshift.io/v1beta1', 'NodePool', md.namespace)) if ((np as any).spec?.clusterName === md.name) this.check(np);
    }
  }

  /** `<hcp namespace>/<NodePool name>` → NodePool key. */
  private readonly nodePools = new Map<string, string>();
  private index(np: KubeObject): void {
    const c = (np as any).spec?.clusterName;
    if (typeof c === 'string') this.nodePools.set(`${hcpNamespace(np.metadata!.namespace, c)}/${np.metadata!.name}`, keyOf(np));
  }
  private getNodePool(k: string): KubeObject | undefined {
    const i = k.indexOf('/');
    return this.o.server.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', namespace: k.slice(0, i), name: k.slice(i + 1) });
  }

  /** Property 5, on the write that set the value. */
  private checkPausedUntilWrite(e: WriteEvent, byFleet: boolean): void {
    if (!byFleet) return;
    const v = (e.object as any).spec?.pausedUntil as string | undefined;
    const before = (e.previous as any)?.spec?.pausedUntil as string | undefined;
    if (v == null || v === before) return;
    const now = this.o.clock.now();
    const s = pausedUntilState(v, now);
    const t = Date.parse(v);
    if (s.invalid) this.violate(5, `${keyOf(e.object)}: pausedUntil ${JSON.stringify(v)} is neither a boolean nor RFC3339: HyperShift treats it as not paused`);
    else if (s.paused && s.requeueAfterMs === 0) this.violate(5, `${keyOf(e.object)}: pausedUntil ${JSON.stringify(v)} holds until someone removes it`);
    else if (this.o.maxHoldSeconds !== undefined && Number.isFinite(t) && t > now + this.o.maxHoldSeconds * 1000) this.violate(5, `${keyOf(e.object)}: pausedUntil ${v} is later than now + ${this.o.maxHoldSeconds}s`);
  }

  /** Properties 1-4 for one NodePool in the state the current write left it. */
  private check(np: KubeObject): void {
    const k = keyOf(np);
    const n = np as KubeObject & { spec: { clusterName: string; release: { image: string }; pausedUntil?: string } };
    const now = this.o.clock.now();
    const paused = pausedUntilState(n.spec.pausedUntil, now).paused;
    const content = this.contentOf(np);

    // 4: never unpaused on (R, image built for R' ≠ R); told once per such state.
    let wrong: string | undefined;
    if (!paused && this.o.imageRelease) {
      for (const image of imagesIn(content)) {
        const built = this.o.imageRelease(image);
        if (built !== undefined && built !== n.spec.release.image) wrong = `${k}: not paused on release ${n.spec.release.image} with a hand-off image built for ${built}`;
      }
    }
    if (wrong !== undefined && this.told4.get(k) !== wrong) this.violate(4, wrong);
    if (wrong === undefined) this.told4.delete(k);
    else this.told4.set(k, wrong);

    // End of a rollout: success or failure, as HyperShift reports it on the NodePool.
    const r = this.rolling.get(k);
    if (r) {
      const failedReason = conditionOf(np, UPDATING_CONFIG)?.reason === INPLACE_UPGRADE_FAILED || conditionOf(np, UPDATING_VERSION)?.reason === INPLACE_UPGRADE_FAILED;
      const late = this.o.progressDeadlineMs !== undefined && now - r.since > this.o.progressDeadlineMs;
      if (this.succeededOn(np, r.content)) this.end(k, r, 'succeeded');
      else if (failedReason || late) this.end(k, r, 'failed');
      else if (content !== r.content && this.lastByFleet.get(k)) r.content = content; // the target moved (a newer write of ours)
    }
    if (this.rolling.has(k) || paused) return;
    const base = this.base.get(k) ?? '';
    if (content === base || !this.lastByFleet.get(k)) return;
    // A start.
    const hostedCluster = `${n.metadata!.namespace}/${n.spec.clusterName}`;
    if (this.halted) this.violate(3, `${k} started after the rollout halted (${this.canaryFailed ? 'a canary failed' : `${this.failures} failures > maxFailures ${this.o.maxFailures}`})`);
    const canaries = this.o.canaries;
    if (canaries && canaries.size > 0 && !canaries.has(k)) {
      const pending = [...canaries].filter((c) => !this.succeeded.has(c));
      if (pending.length > 0) this.violate(2, `${k} (not a canary) started before every canary succeeded (${pending.length} pending, e.g. ${pending[0]})`);
    }
    this.rolling.set(k, { content, since: now, hostedCluster });
    this.starts++;
    this.log.push(`start ${k}`);
    this.maxRolling = Math.max(this.maxRolling, this.rolling.size);
    if (this.o.maxConcurrency !== undefined && this.rolling.size > this.o.maxConcurrency) this.violate(1, `${this.rolling.size} NodePools rolling because of the fleet > maxConcurrency ${this.o.maxConcurrency} (${k} started)`);
    if (this.o.perHostedCluster !== undefined) {
      const inCluster = [...this.rolling.values()].filter((x) => x.hostedCluster === hostedCluster).length;
      if (inCluster > this.o.perHostedCluster) this.violate(1, `${inCluster} NodePools of HostedCluster ${hostedCluster} rolling > ${this.o.perHostedCluster}`);
    }
  }

  private end(k: string, r: Rolling, how: 'succeeded' | 'failed'): void {
    this.rolling.delete(k);
    this.base.set(k, r.content);
    this.log.push(`${how} ${k}`);
    if (how === 'succeeded') {
      this.succeeded.add(k);
      return;
    }
    this.succeeded.delete(k);
    if (this.o.canaries?.has(k)) this.canaryFailed = true;
    else this.failures++;
    if (this.canaryFailed || (this.o.maxFailures !== undefined && this.failures > this.o.maxFailures)) this.halted = true;
  }

  /** HyperShift says the NodePool runs `content` on its release, and is healthy. */
  private succeededOn(np: KubeObject, content: string): boolean {
    const n = np as KubeObject & { spec: { release: { image: string } }; status?: { version?: string } };
    const version = this.o.standIn.versionOf(n.spec.release.image);
    const { config } = configHashes(content, version);
    const is = (type: string, status: string, reason?: string) => {
      const c = conditionOf(np, type);
      return c?.status === status && (reason === undefined || c.reason === reason);
    };
    return (
      np.metadata?.annotations?.[CURRENT_CONFIG_ANNOTATION] === config &&
      is(UPDATING_CONFIG, 'False', AS_EXPECTED) &&
      is(UPDATING_VERSION, 'False') &&
      n.status?.version === version &&
      is(READY, 'True') &&
      is(ALL_MACHINES_READY, 'True') &&
      is(ALL_NODES_HEALTHY, 'True')
    );
  }

  /** The machine config HyperShift would select for the NodePool, from the API as it is (the stand-in's selection rules). */
  private contentOf(np: KubeObject): string {
    const n = np as KubeObject & { spec: { clusterName: string } };
    const hc = this.o.server.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', namespace: n.metadata!.namespace, name: n.spec.clusterName });
    if (((hc?.spec?.capabilities?.disabled ?? []) as string[]).includes(NODE_TUNING)) return '';
    const ns = hcpNamespace(n.metadata!.namespace, n.spec.clusterName);
    const cms = this.o.server.store.list('v1', 'ConfigMap', ns).filter((c) => c.metadata?.labels?.[NTO_GENERATED_CONFIG_LABEL] === 'true' && c.metadata.labels[NODEPOOL_LABEL] === n.metadata!.name);
    return mcoRawConfig(cms);
  }

  private violate(property: Violation['property'], message: string): void {
    this.violationCount++;
    if (this.violations.length < (this.o.keep ?? 200)) this.violations.push({ property, at: new Date(this.o.clock.now()).toISOString(), write: this.current, message });
  }
}

function keyOf(o: KubeObject): string {
  return `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`;
}

/** Every osImageURL in a machine config (the hand-off's MachineConfig; any other that sets one). */
function imagesIn(content: string): string[] {
  const out: string[] = [];
  for (const m of content.matchAll(/"?osImageURL"?\s*:\s*"?([^"\s,}]+)"?/g)) out.push(m[1]!);
  return out;
}
