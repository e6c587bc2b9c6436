/**
 * The one small interface the controller has to a Kubernetes API. `builder/clusters/kubeconfig.ts`
 * resolves the server, TLS and credentials for the forms our pods use (in-cluster token file with
 * refresh, kubeconfig files with tokens, token files or client certificates); anything else (exec
 * plugins, OIDC, proxies) loads @kubernetes/client-node's `KubeConfig`, only then (it costs
 * ~80 MiB of RSS). Requests are plain REST so that the status subresource and paging work the same
 * for built-in kinds and our CRDs; watches are a streamed GET with `watch=true`.
 */
import * as http from 'node:http';
import * as https from 'node:https';
import { inClusterConfig, loadLightKubeConfig, type KubeConfigLike } from './kubeconfig.js';
import type { ObjectMeta as ApiObjectMeta } from '../api/types.js';
// One home for kinds and their REST paths: the library's client (src/kube) reads; this one, the
// controller's, also writes (create, update, status, delete) and watches with client-node's Watch.
import { apiVersionOf, KubeApiError, kubeRequest, resourcePath, type Resource } from 'pkogen/kube';

export { apiVersionOf, KubeApiError, type Resource };

/** The API's ObjectMeta (builder/api/types.ts) plus what the controller reads of any kind. */
export interface ObjectMeta extends ApiObjectMeta {
  namespace?: string;
  deletionTimestamp?: string;
  ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }[];
  finalizers?: string[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [key: string]: unknown;
}

// Failed calls are the library's KubeApiError (Status reason and code).
export const isNotFound = (e: unknown) => e instanceof KubeApiError && e.code === 404;
export const isConflict = (e: unknown) => e instanceof KubeApiError && e.code === 409;
export const isAlreadyExists = (e: unknown) => e instanceof KubeApiError && e.code === 409 && e.reason === 'AlreadyExists';

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject;
}

export interface ListResult {
  items: KubeObject[];
  resourceVersion: string;
}


const MAX_RESPONSE_BYTES = 64 << 20;
const REQUEST_TIMEOUT_MS = 60_000;

/**
 * A watch that receives nothing (not even a bookmark) for this long is ended, and its caller
 * resumes it: it finds a stream the server can no longer end (a half-open connection after a node
 * or load balancer went away), which nothing else would. It must be longer than the longest quiet
 * a healthy watch has: we ask for bookmarks (`allowWatchBookmarks=true`), and kube-apiserver's
 * watch cache sends each such watch one about every `defaultBookmarkFrequency` = 1 minute
 * (kubernetes/kubernetes `staging/src/k8s.io/apiserver/pkg/storage/cacher/cacher.go`; the
 * watcher's next bookmark is now + that period, or 2 s before the watch's deadline, bucketed to
 * ±1 s: `cache_watcher.go` `nextBookmarkTime`, cacher.go `watcherBookmarkTimeBuckets`). 90 s is
 * that minute plus its second of bucketing plus ~29 s for a busy apiserver's dispatch, and stays
 * well under the watches' own `timeoutSeconds` (300 s), so a dead stream is still noticed long
 * before the server's end would have come. It was 30 s (as client-node's Watch), shorter than the
 * bookmark period: every quiet watch was cut and re-opened every 30-60 s (docs/benchmarks.md
 * "Fleet component footprint": 500 watch requests per 40 s at 500 HCP namespaces).
 */
export const WATCH_IDLE_TIMEOUT_MS = 90_000;

/** Told of every object this client wrote, as the API stored it (kind, and its new resourceVersion). */
export type WriteListener = (r: Resource, stored: KubeObject) => void;

export class Kube {
  private readonly writeListeners: WriteListener[] = [];

  /** WATCH_IDLE_TIMEOUT_MS unless given (tests: a short one, so they never wait for the real one). */
  private readonly watchIdleTimeoutMs: number;

  constructor(
    readonly config: KubeConfigLike,
    private readonly userAgent = 'on-cluster-build',
    opts: { watchIdleTimeoutMs?: number } = {},
  ) {
    this.watchIdleTimeoutMs = opts.watchIdleTimeoutMs ?? WATCH_IDLE_TIMEOUT_MS;
  }

  /** Kubeconfig from a file (the hosted cluster) or, without one, the pod's in-cluster identity. */
  static async load(kubeconfigPath?: string): Promise<Kube> {
    if (!kubeconfigPath) return new Kube(inClusterConfig());
    const light = loadLightKubeConfig(kubeconfigPath);
    if (light) return new Kube(light);
    // Exec plugins, other auth-providers, proxies: client-node's KubeConfig, loaded only for them.
    const { KubeConfig } = await import('@kubernetes/client-node');
    const kc = new KubeConfig();
    kc.loadFromFile(kubeconfigPath);
    return new Kube(kc);
  }

  /**
   * Registers a listener for this client's own writes (create, update, status, patch), so a
   * controller can tell its own writes from others' when their watch events come back.
   */
  onWrite(listener: WriteListener): () => void {
    this.writeListeners.push(listener);
    return () => {
      const i = this.writeListeners.indexOf(listener);
      if (i >= 0) this.writeListeners.splice(i, 1);
    };
  }

  private wrote<T extends KubeObject>(r: Resource, stored: T): T {
    if (stored && typeof stored === 'object' && stored.metadata) for (const l of this.writeListeners) l(r, stored);
    return stored;
  }

  path(r: Resource, namespace?: string, name?: string, subresource?: string): string {
    const p = resourcePath(r, namespace, name);
    return subresource ? `${p}/${subresource}` : p;
  }

  async get<T extends KubeObject = KubeObject>(r: Resource, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return (await this.request('GET', this.path(r, namespace, name))) as T;
    } catch (e) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Lists every page (`limit`/`continue`), so large namespaces never come back truncated. */
  /**
   * `keep` sees each item as its page arrives and returns what to retain (or undefined to drop
   * it), so a large list never holds more than one page of full objects.
   */
  async list(r: Resource, opts: { namespace?: string; labelSelector?: string; pageSize?: number; keep?: (o: KubeObject) => KubeObject | undefined } = {}): Promise<ListResult> {
    const items: KubeObject[] = [];
    let cont: string | undefined;
    let resourceVersion = '';
    for (let page = 0; page < 10_000; page++) {
      const q = new URLSearchParams();
      q.set('limit', String(opts.pageSize ?? 500));
      if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
      if (cont) q.set('continue', cont);
      const res = (await this.request('GET', `${this.path(r, opts.namespace)}?${q}`)) as {
        items?: KubeObject[];
        metadata?: { continue?: string; resourceVersion?: string };
      };
      for (const it of res.items ?? []) {
        const o: KubeObject = { apiVersion: apiVersionOf(r), kind: r.kind, ...it };
        const kept = opts.keep ? opts.keep(o) : o;
        if (kept) items.push(kept);
      }
      resourceVersion = res.metadata?.resourceVersion ?? resourceVersion;
      cont = res.metadata?.continue || undefined;
      if (!cont) break;
    }
    return { items, resourceVersion };
  }

  async create<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.wrote(r, (await this.request('POST', this.path(r, obj.metadata.namespace), obj)) as T);
  }

  async update<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.wrote(r, (await this.request('PUT', this.path(r, obj.metadata.namespace, obj.metadata.name), obj)) as T);
  }

  async updateStatus<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return this.wrote(r, (await this.request('PUT', this.path(r, obj.metadata.namespace, obj.metadata.name, 'status'), obj)) as T);
  }

  async mergePatch<T extends KubeObject>(r: Resource, name: string, namespace: string | undefined, patch: unknown, subresource?: string): Promise<T> {
    return this.wrote(r, (await this.request('PATCH', this.path(r, namespace, name, subresource), patch, 'application/merge-patch+json')) as T);
  }

  /** Deletes; a missing object is not an error (the goal is reached). Dependents go in the background. */
  async delete(r: Resource, name: string, namespace?: string): Promise<void> {
    try {
      await this.request('DELETE', this.path(r, namespace, name), { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' });
    } catch (e) {
      if (!isNotFound(e)) throw e;
    }
  }

  /** Streams events from `resourceVersion`; resolves with a handle that stops it. `done` gets the reason it ended. */
  async watch(
    r: Resource,
    opts: { namespace?: string; labelSelector?: string; resourceVersion?: string },
    onEvent: (e: WatchEvent) => void,
    done: (err: unknown) => void,
  ): Promise<{ stop(): void }> {
    const cluster = this.config.getCurrentCluster();
    if (!cluster) throw new KubeApiError('kubeconfig has no current context or cluster', 0, 'BadConfig');
    const q = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', timeoutSeconds: '300' });
    if (opts.resourceVersion) q.set('resourceVersion', opts.resourceVersion);
    if (opts.labelSelector) q.set('labelSelector', opts.labelSelector);
    const url = new URL(`${cluster.server.replace(/\/$/, '')}${this.path(r, opts.namespace)}?${q}`);
    const ro: https.RequestOptions = { method: 'GET', headers: { Accept: 'application/json', 'User-Agent': this.userAgent } };
    await this.config.applyToHTTPSOptions(ro);
    let ended = false;
    let timer: NodeJS.Timeout | undefined;
    const end = (err: unknown) => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      req.destroy();
      done(err);
    };
    const idle = () => {
      clearTimeout(timer);
      timer = setTimeout(() => end(new Error(`watch ${url.pathname}: nothing received for ${this.watchIdleTimeoutMs / 1000} s`)), this.watchIdleTimeoutMs);
      timer.unref();
    };
    const req = (url.protocol === 'http:' ? http : https).request(url, ro, (res) => {
      if (res.statusCode !== 200) {
        res.resume();
        const e = new KubeApiError(`watch ${url.pathname}: HTTP ${res.statusCode} ${http.STATUS_CODES[res.statusCode ?? 0] ?? ''}`.trim(), res.statusCode ?? 0, 'WatchFailed');
        return end(e);
      }
      idle();
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        idle();
        buf += chunk;
        if (buf.length > MAX_RESPONSE_BYTES) return end(new KubeApiError(`watch ${url.pathname}: one event larger than ${MAX_RESPONSE_BYTES} bytes`, 0, 'TooLarge'));
        let nl: number;
        while ((nl = buf.indexOf('\n')) >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (!line.trim()) continue;
          let ev: { type?: string; object?: KubeObject };
          try {
            ev = JSON.parse(line) as typeof ev;
          } catch {
            continue; // as client-node: a line that is not JSON is skipped
          }
          if (ev.type && ev.object) onEvent({ type: ev.type as WatchEvent['type'], object: ev.object });
        }
      });
      res.on('error', end);
      res.on('close', () => end(null));
      res.on('end', () => end(null));
    });
    req.on('error', end);
    idle();
    req.end();
    return { stop: () => end(null) };
  }

  /** A raw call, for subresources such as serviceaccounts/token. */
  request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<unknown> {
    return kubeRequest(this.config, method, path, { body, contentType, timeoutMs: REQUEST_TIMEOUT_MS, userAgent: this.userAgent, maxBytes: MAX_RESPONSE_BYTES });
  }
}

/** The kinds the controller touches, in one table (the package's Roles are derived from what it calls). */
export const RESOURCES = {
  secrets: { group: '', version: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true },
  configMaps: { group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true },
  pods: { group: '', version: 'v1', kind: 'Pod', plural: 'pods', namespaced: true },
  events: { group: '', version: 'v1', kind: 'Event', plural: 'events', namespaced: true },
  jobs: { group: 'batch', version: 'v1', kind: 'Job', plural: 'jobs', namespaced: true },
  leases: { group: 'coordination.k8s.io', version: 'v1', kind: 'Lease', plural: 'leases', namespaced: true },
  serviceAccountTokens: { group: '', version: 'v1', kind: 'TokenRequest', plural: 'serviceaccounts', namespaced: true },
  // Hosted cluster: where builds may run.
  nodes: { group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false },
  namespaces: { group: '', version: 'v1', kind: 'Namespace', plural: 'namespaces', namespaced: false },
  // Management cluster, HCP namespace: what HyperShift and Cluster API say about each NodePool.
  machineDeployments: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineDeployment', plural: 'machinedeployments', namespaced: true },
  machineSets: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineSet', plural: 'machinesets', namespaced: true },
  machines: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine', plural: 'machines', namespaced: true },
  hostedControlPlanes: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true },
} satisfies Record<string, Resource>;
