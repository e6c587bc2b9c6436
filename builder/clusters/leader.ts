/**
 * Leader election on a coordination.k8s.io/v1 Lease in the controller's own namespace, with
 * optimistic concurrency (resourceVersion) like client-go's leaderelection. Timings default to
 * library-go's HA values (137 s lease, 107 s renew deadline, 26 s retry), the ones upstream's
 * machine-os-builder uses (shared/docs/on-cluster-builds.md §1.1).
 */
import { isAlreadyExists, isConflict, Kube, KubeObject, RESOURCES } from './kube.js';

export interface LeaderOptions {
  namespace: string;
  name: string;
  identity: string;
  leaseDurationSeconds: number;
  renewDeadlineSeconds: number;
  retryPeriodSeconds: number;
  now?: () => Date;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

const microTime = (d: Date) => d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');

export const abortableSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(t);
      resolve();
    };
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

export class LeaderElector {
  private readonly now: () => Date;
  private readonly sleep: (ms: number, signal: AbortSignal) => Promise<void>;

  constructor(
    private readonly kube: Kube,
    private readonly o: LeaderOptions,
  ) {
    this.now = o.now ?? (() => new Date());
    this.sleep = o.sleep ?? abortableSleep;
  }

  /** One attempt to acquire or renew; true when this identity holds the Lease afterwards. */
  async tryAcquireOrRenew(): Promise<boolean> {
    const now = this.now();
    const existing = await this.kube.get<KubeObject & { spec?: LeaseSpec }>(RESOURCES.leases, this.o.name, this.o.namespace);
    if (!existing) {
      try {
        await this.kube.create(RESOURCES.leases, {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.o.name, namespace: this.o.namespace },
          spec: { holderIdentity: this.o.identity, leaseDurationSeconds: this.o.leaseDurationSeconds, acquireTime: microTime(now), renewTime: microTime(now), leaseTransitions: 0 },
        });
        return true;
      } catch (e) {
        if (isAlreadyExists(e)) return false;
        throw e;
      }
    }
    const spec = existing.spec ?? {};
    const held = spec.holderIdentity && spec.holderIdentity !== this.o.identity;
    const renewed = spec.renewTime ? Date.parse(spec.renewTime) : 0;
    const duration = (spec.leaseDurationSeconds ?? this.o.leaseDurationSeconds) * 1000;
    if (held && renewed + duration > now.getTime()) return false;
    const mine = spec.holderIdentity === this.o.identity;
    const next: LeaseSpec = {
      ...spec,
      holderIdentity: this.o.identity,
      leaseDurationSeconds: this.o.leaseDurationSeconds,
      renewTime: microTime(now),
      acquireTime: mine ? spec.acquireTime : microTime(now),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (mine ? 0 : 1),
    };
    try {
      await this.kube.update(RESOURCES.leases, { ...existing, spec: next });
      return true;
    } catch (e) {
      if (isConflict(e)) return false;
      throw e;
    }
  }

  /**
   * Waits until leading, runs `lead` with a signal that aborts when leadership is lost (no
   * renewal within the renew deadline) or `stop` aborts. Resolves when `lead` returns.
   */
  async run(stop: AbortSignal, lead: (signal: AbortSignal) => Promise<void>): Promise<'stopped' | 'lost'> {
    while (!stop.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (e) {
        this.o.log?.('lease request failed', { error: (e as Error).message });
      }
      if (ok) break;
      await this.sleep(this.o.retryPeriodSeconds * 1000, stop);
    }
    if (stop.aborted) return 'stopped';
    this.o.log?.('became leader', { lease: `${this.o.namespace}/${this.o.name}`, identity: this.o.identity });
    const leading = new AbortController();
    const onStop = () => leading.abort();
    stop.addEventListener('abort', onStop, { once: true });
    let lost = false;
    const renewLoop = (async () => {
      let lastRenew = this.now().getTime();
      while (!leading.signal.aborted) {
        await this.sleep(this.o.retryPeriodSeconds * 1000, leading.signal);
        if (leading.signal.aborted) break;
        try {
          if (await this.tryAcquireOrRenew()) lastRenew = this.now().getTime();
          else {
            lost = true;
            break;
          }
        } catch (e) {
          this.o.log?.('lease renewal failed', { error: (e as Error).message });
        }
        if (this.now().getTime() - lastRenew > this.o.renewDeadlineSeconds * 1000) {
          lost = true;
          break;
        }
      }
      if (lost) {
        this.o.log?.('leadership lost', { lease: `${this.o.namespace}/${this.o.name}` });
        leading.abort();
      }
    })();
    try {
      await lead(leading.signal);
    } finally {
      leading.abort();
      stop.removeEventListener('abort', onStop);
      await renewLoop;
    }
    return lost ? 'lost' : 'stopped';
  }
}
