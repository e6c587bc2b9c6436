/**
 * The one small interface the controller has to a Kubernetes API, on @kubernetes/client-node:
 * `KubeConfig` resolves the server, TLS and credentials (in-cluster token file with refresh,
 * kubeconfig files, exec plugins), `Watch` streams events. Requests are plain REST so that the
 * status subresource and paging work the same for built-in kinds and our CRDs.
 */
import { KubeConfig, Watch } from '@kubernetes/client-node';
import type { ObjectMeta as ApiObjectMeta } from './api/types.js';
// One home for kinds and their REST paths: the library's client (src/kube) reads; this one, the
// controller's, also writes (create, update, status, delete) and watches with client-node's Watch.
import { apiVersionOf, KubeApiError, kubeRequest, resourcePath, type Resource } from 'pkogen/kube';

export { apiVersionOf, type Resource };

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

export class Kube {
  private readonly watcher: Watch;

  constructor(
    readonly config: KubeConfig,
    private readonly userAgent = 'on-cluster-build',
  ) {
    this.watcher = new Watch(config);
  }

  /** Kubeconfig from a file (the hosted cluster) or, without one, the pod's in-cluster identity. */
  static load(kubeconfigPath?: string): Kube {
    const kc = new KubeConfig();
    if (kubeconfigPath) kc.loadFromFile(kubeconfigPath);
    else kc.loadFromCluster();
    return new Kube(kc);
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
    return (await this.request('POST', this.path(r, obj.metadata.namespace), obj)) as T;
  }

  async update<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return (await this.request('PUT', this.path(r, obj.metadata.namespace, obj.metadata.name), obj)) as T;
  }

  async updateStatus<T extends KubeObject>(r: Resource, obj: T): Promise<T> {
    return (await this.request('PUT', this.path(r, obj.metadata.namespace, obj.metadata.name, 'status'), obj)) as T;
  }

  async mergePatch<T extends KubeObject>(r: Resource, name: string, namespace: string | undefined, patch: unknown, subresource?: string): Promise<T> {
    return (await this.request('PATCH', this.path(r, namespace, name, subresource), patch, 'application/merge-patch+json')) as T;
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
    const ctrl = await this.watcher.watch(
      this.path(r, opts.namespace),
      { allowWatchBookmarks: true, resourceVersion: opts.resourceVersion, labelSelector: opts.labelSelector, timeoutSeconds: 300 },
      (type: string, object: KubeObject) => onEvent({ type: type as WatchEvent['type'], object }),
      done,
    );
    return { stop: () => ctrl.abort() };
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
  // Management cluster, HCP namespace: what HyperShift and Cluster API say about each NodePool.
  machineDeployments: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineDeployment', plural: 'machinedeployments', namespaced: true },
  machineSets: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'MachineSet', plural: 'machinesets', namespaced: true },
  machines: { group: 'cluster.x-k8s.io', version: 'v1beta1', kind: 'Machine', plural: 'machines', namespaced: true },
  hostedControlPlanes: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true },
} satisfies Record<string, Resource>;
