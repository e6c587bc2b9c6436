/**
 * pkogen's one small interface to a Kubernetes API. `@kubernetes/client-node` resolves the
 * kubeconfig (files, exec plugins, in-cluster token) and is imported only when a command opens a
 * connection, so commands that never talk to a cluster do not pay for loading it. Requests are
 * plain REST: lists page with limit/continue, every request has a timeout and a size cap.
 */
import * as fs from 'node:fs';
import * as http from 'node:http';
import * as https from 'node:https';
import * as os from 'node:os';
import * as path from 'node:path';
import { UserError } from '../core/errors.js';

export interface Resource {
  group: string;
  version: string;
  kind: string;
  plural: string;
  namespaced: boolean;
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    creationTimestamp?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: { apiVersion: string; kind: string; name: string; uid: string; controller?: boolean }[];
  };
  [key: string]: unknown;
}

export interface ListOptions {
  /** Omitted: every namespace. */
  namespace?: string;
  labelSelector?: string;
  pageSize?: number;
}

export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: KubeObject;
}

/** What pkogen reads from a cluster. Tests and other callers depend on this, not on client-node. */
export interface KubeReader {
  /** Where it talks to (server URL), for messages. */
  readonly server: string;
  /** The kubeconfig context's namespace, or `default` (as kubectl does). */
  readonly namespace: string;
  /** Every page of a list; `undefined` when the API does not serve this kind (404). */
  list(r: Resource, opts?: ListOptions): Promise<{ items: KubeObject[]; resourceVersion: string } | undefined>;
  get(r: Resource, name: string, namespace?: string): Promise<KubeObject | undefined>;
  /** Streams events after `resourceVersion` until stopped or the server ends the stream (`done`). */
  watch(r: Resource, opts: ListOptions & { resourceVersion?: string }, onEvent: (e: WatchEvent) => void, done: (err: unknown) => void): Promise<{ stop(): void }>;
}

/** A failed API call, with the Kubernetes Status reason and code; never carries a credential. */
export class KubeApiError extends UserError {
  constructor(
    message: string,
    readonly code: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

export interface ConnectOptions {
  kubeconfig?: string;
  context?: string;
  env: NodeJS.ProcessEnv;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 256 << 20;

/** What kubeRequest needs of a client-node KubeConfig (a type only: client-node stays lazily loaded). */
export type KubeConfigLike = Pick<import('@kubernetes/client-node').KubeConfig, 'getCurrentCluster' | 'applyToHTTPSOptions'>;

export interface KubeRequestOptions {
  body?: unknown;
  /** Content-Type of the body (default application/json; merge patches say so). */
  contentType?: string;
  /** Per-request timeout (default 30 s). */
  timeoutMs?: number;
  userAgent?: string;
  /** Largest response accepted (default 256 MiB). */
  maxBytes?: number;
}

/**
 * client-node gives each cluster and user one https.Agent, made without keep-alive: every request
 * then opens its own TCP connection and TLS handshake, which a controller making thousands of
 * requests pays in CPU on both sides. In its place, one keep-alive agent with the same TLS
 * options per client-node agent; its idle connections close after the agent's socket timeout and
 * never keep a process alive (Node unrefs free sockets). Proxy agents are left as they are.
 */
const keepAliveAgents = new WeakMap<https.Agent, https.Agent>();
function keepAliveAgent(agent: https.RequestOptions['agent']): https.RequestOptions['agent'] {
  if (!(agent instanceof https.Agent) || agent.constructor !== https.Agent) return agent;
  let kept = keepAliveAgents.get(agent);
  if (!kept) {
    const options = (agent as https.Agent & { options: https.AgentOptions }).options;
    kept = new https.Agent({ ...options, keepAlive: true });
    keepAliveAgents.set(agent, kept);
  }
  return kept;
}

/**
 * One REST call with the kubeconfig's server, TLS and credentials (client-node applies them,
 * token files and exec plugins included). Resolves the parsed JSON body of a 2xx answer; anything
 * else is a KubeApiError with the Status reason and code, never a credential.
 */
export async function kubeRequest(kc: KubeConfigLike, method: string, p: string, o: KubeRequestOptions = {}): Promise<unknown> {
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new KubeApiError('kubeconfig has no current context or cluster', 0, 'BadConfig');
  const server = cluster.server.replace(/\/$/, '');
  const timeoutMs = o.timeoutMs ?? 30_000;
  const maxBytes = o.maxBytes ?? MAX_RESPONSE_BYTES;
  const url = new URL(server + p);
  const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': o.userAgent ?? 'pkogen' };
  const payload = o.body === undefined ? undefined : Buffer.from(JSON.stringify(o.body));
  if (payload) {
    headers['Content-Type'] = o.contentType ?? 'application/json';
    headers['Content-Length'] = String(payload.length);
  }
  const ro: https.RequestOptions = { method, headers, timeout: timeoutMs };
  await kc.applyToHTTPSOptions(ro);
  ro.agent = keepAliveAgent(ro.agent);
  const mod = url.protocol === 'http:' ? http : https;
  const wrap = (e: unknown) => (e instanceof KubeApiError ? e : new KubeApiError(`${method} ${url.pathname}: cannot reach ${server}: ${firstLine(e)}`, 0, 'NetworkError'));
  return new Promise((resolve, reject) => {
    const req = mod.request(url, ro, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (c: Buffer) => {
        size += c.length;
        if (size > maxBytes) req.destroy(new KubeApiError(`${method} ${url.pathname}: response larger than ${maxBytes} bytes`, 0, 'TooLarge'));
        else chunks.push(c);
      });
      res.on('error', (e) => reject(wrap(e)));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : {};
        } catch {
          parsed = undefined;
        }
        const code = res.statusCode ?? 0;
        if (code >= 200 && code < 300 && parsed !== undefined) return resolve(parsed);
        const st = (parsed ?? {}) as { message?: string; reason?: string };
        reject(new KubeApiError(`${method} ${url.pathname}: ${st.message ?? `HTTP ${code}`} (${server})`, code, st.reason ?? `HTTP${code}`));
      });
    });
    req.on('timeout', () => req.destroy(new KubeApiError(`${method} ${url.pathname}: no answer from ${server} in ${timeoutMs / 1000}s`, 0, 'Timeout')));
    req.on('error', (e) => reject(wrap(e)));
    if (payload) req.write(payload);
    req.end();
  });
}
const MAX_PAGES = 100_000;
const IN_CLUSTER_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

/**
 * Kubeconfig resolution as kubectl does it: `--kubeconfig`, else `KUBECONFIG` (a path-separated
 * list, merged; the first file to set a name or the current context wins), else `~/.kube/config`,
 * else in-cluster when running in a pod. `--context` picks a context.
 */
export async function connect(opts: ConnectOptions): Promise<KubeReader> {
  let clientNode: typeof import('@kubernetes/client-node');
  try {
    clientNode = await import('@kubernetes/client-node');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    throw new UserError('talking to a cluster needs @kubernetes/client-node, an optional dependency of pkogen that is not installed: npm install @kubernetes/client-node@2');
  }
  const { KubeConfig, Watch } = clientNode;
  const kc = new KubeConfig();
  const load = (file: string, into = kc) => {
    try {
      into.loadFromFile(file);
    } catch (e) {
      throw new UserError(`cannot load kubeconfig: ${firstLine(e)}`, { file });
    }
  };
  const envList = (opts.env.KUBECONFIG ?? '').split(path.delimiter).filter((f) => f !== '');
  const home = opts.env.HOME ?? os.homedir();
  const defaultFile = path.join(home, '.kube', 'config');
  if (opts.kubeconfig !== undefined) {
    load(opts.kubeconfig);
  } else if (envList.length > 0) {
    const existing = envList.filter((f) => fs.existsSync(f));
    if (existing.length === 0) throw new UserError(`no file of KUBECONFIG exists (${envList.join(path.delimiter)})`);
    load(existing[0]);
    for (const f of existing.slice(1)) {
      const more = new KubeConfig();
      load(f, more);
      // kubectl's merge: the first file to define a name (or the current context) wins.
      // client-node's mergeConfig throws on duplicate names instead, so merge by hand.
      if (!kc.currentContext && more.currentContext) kc.currentContext = more.currentContext;
      for (const c of more.clusters) if (!kc.clusters.some((x) => x.name === c.name)) kc.addCluster(c);
      for (const u of more.users) if (!kc.users.some((x) => x.name === u.name)) kc.addUser(u);
      for (const c of more.contexts) if (!kc.contexts.some((x) => x.name === c.name)) kc.addContext(c);
    }
  } else if (fs.existsSync(defaultFile)) {
    load(defaultFile);
  } else if (opts.env.KUBERNETES_SERVICE_HOST && fs.existsSync(IN_CLUSTER_TOKEN)) {
    // No kubeconfig anywhere: the pod's service account, as kubectl falls back to.
    kc.loadFromCluster();
  } else {
    throw new UserError('no kubeconfig: give --kubeconfig FILE or set KUBECONFIG');
  }
  if (opts.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === opts.context)) {
      throw new UserError(`context ${JSON.stringify(opts.context)} not found in kubeconfig (have: ${kc.getContexts().map((c) => c.name).join(', ') || 'none'})`);
    }
    kc.setCurrentContext(opts.context);
  }
  const cluster = kc.getCurrentCluster();
  if (!cluster) throw new UserError('kubeconfig has no current context or cluster');
  const ctx = kc.getContextObject(kc.getCurrentContext());
  const namespace = ctx?.namespace || 'default';
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const server = cluster.server.replace(/\/$/, '');
  const watcher = new Watch(kc);

  const request = (p: string) => kubeRequest(kc, 'GET', p, { timeoutMs, userAgent: 'pkogen' });

  return {
    server,
    namespace,
    async list(r, lo = {}) {
      const items: KubeObject[] = [];
      let cont: string | undefined;
      let resourceVersion = '';
      for (let page = 0; page < MAX_PAGES; page++) {
        const q = new URLSearchParams();
        q.set('limit', String(lo.pageSize ?? 500));
        if (lo.labelSelector) q.set('labelSelector', lo.labelSelector);
        if (cont) q.set('continue', cont);
        let res: { items?: KubeObject[]; metadata?: { continue?: string; resourceVersion?: string } };
        try {
          res = (await request(`${resourcePath(r, lo.namespace)}?${q}`)) as typeof res;
        } catch (e) {
          // A kind whose CRD is not installed: the API has no such path.
          if (e instanceof KubeApiError && e.code === 404 && page === 0) return undefined;
          throw e;
        }
        for (const it of res.items ?? []) items.push({ ...it, apiVersion: apiVersionOf(r), kind: r.kind });
        resourceVersion = res.metadata?.resourceVersion ?? resourceVersion;
        cont = res.metadata?.continue || undefined;
        if (!cont) break;
      }
      return { items, resourceVersion };
    },
    async get(r, name, namespace) {
      try {
        const o = (await request(resourcePath(r, namespace, name))) as KubeObject;
        return { ...o, apiVersion: apiVersionOf(r), kind: r.kind };
      } catch (e) {
        if (e instanceof KubeApiError && e.code === 404) return undefined;
        throw e;
      }
    },
    async watch(r, wo, onEvent, done) {
      const ctrl = await watcher.watch(
        resourcePath(r, wo.namespace),
        { allowWatchBookmarks: true, resourceVersion: wo.resourceVersion, labelSelector: wo.labelSelector, timeoutSeconds: 300 },
        (type: string, object: KubeObject) => onEvent({ type: type as WatchEvent['type'], object }),
        done,
      );
      return { stop: () => ctrl.abort() };
    },
  };
}

export const apiVersionOf = (r: Resource) => (r.group ? `${r.group}/${r.version}` : r.version);

export function resourcePath(r: Resource, namespace?: string, name?: string): string {
  let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
  p += `/${r.plural}`;
  if (name) p += `/${encodeURIComponent(name)}`;
  return p;
}

function firstLine(e: unknown): string {
  return String((e as Error)?.message ?? e).split('\n')[0];
}

const pko = (kind: string, plural: string, namespaced: boolean): Resource => ({ group: 'package-operator.run', version: 'v1alpha1', kind, plural, namespaced });

/** The PKO kinds `pkogen status` reads. */
export const PKO = {
  packages: pko('Package', 'packages', true),
  objectDeployments: pko('ObjectDeployment', 'objectdeployments', true),
  objectSets: pko('ObjectSet', 'objectsets', true),
  objectSetPhases: pko('ObjectSetPhase', 'objectsetphases', true),
  clusterPackages: pko('ClusterPackage', 'clusterpackages', false),
  hostedClusterPackages: pko('HostedClusterPackage', 'hostedclusterpackages', false),
} satisfies Record<string, Resource>;
