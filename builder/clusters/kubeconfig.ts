/**
 * The kubeconfig forms the controller and the token-minter meet, resolved without
 * `@kubernetes/client-node`: loading that library costs ~80 MiB of RSS (it imports its whole
 * generated API, ~2,700 model modules, even for `KubeConfig` alone), more than the rest of the
 * controller together (docs/benchmarks.md "Controller footprint").
 *
 * Handled here: the pod's in-cluster identity (KUBERNETES_SERVICE_HOST/PORT, the ServiceAccount
 * token and CA files), and kubeconfig files whose current context's cluster has `server`,
 * `certificate-authority(-data)`, `insecure-skip-tls-verify`, `tls-server-name`, and whose user has
 * `token`, `tokenFile` or the `tokenFile` auth-provider (what token-minter writes), client
 * certificates (`client-certificate(-data)`, `client-key(-data)`: HyperShift's admin kubeconfig) or
 * `username`/`password`. Token and CA files are re-read at most once a minute, as client-node does,
 * so a rotated ServiceAccount token is picked up. Anything else (exec plugins, other
 * auth-providers, `proxy-url`) is `undefined` from `loadLight…`, and the caller loads client-node
 * for it (`Kube.load`).
 */
import { readFileSync } from 'node:fs';
import type * as https from 'node:https';
import { isIPv6 } from 'node:net';
import { load as loadYaml } from 'js-yaml';

/** What `kubeRequest` (pkogen/kube) and `Kube` need of a kubeconfig: client-node's KubeConfig has the same two methods. */
export interface KubeConfigLike {
  getCurrentCluster(): { name: string; server: string; caData?: string; caFile?: string; skipTLSVerify: boolean; tlsServerName?: string } | null;
  applyToHTTPSOptions(opts: https.RequestOptions): Promise<void>;
}

const SA_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';
const REREAD_MS = 60_000;

/** A file re-read at most every REREAD_MS (a projected token rotates; the kubelet rewrites it). */
function cachedFile(file: string, now: () => number = Date.now): () => string {
  let value: string | undefined;
  let at = 0;
  return () => {
    if (value === undefined || now() - at >= REREAD_MS) {
      value = readFileSync(file, 'utf8');
      at = now();
    }
    return value;
  };
}

interface Cluster {
  name: string;
  server: string;
  caData?: string;
  caFile?: string;
  skipTLSVerify: boolean;
  tlsServerName?: string;
}

interface Auth {
  token?: () => string;
  cert?: string | Buffer;
  key?: string | Buffer;
  basic?: string;
}

export class LightKubeConfig implements KubeConfigLike {
  private readonly ca?: () => string;

  constructor(
    private readonly cluster: Cluster,
    private readonly auth: Auth,
  ) {
    if (cluster.caData) {
      const pem = Buffer.from(cluster.caData, 'base64').toString('utf8');
      this.ca = () => pem;
    } else if (cluster.caFile) this.ca = cachedFile(cluster.caFile);
  }

  getCurrentCluster(): Cluster {
    return { ...this.cluster };
  }

  async applyToHTTPSOptions(opts: https.RequestOptions): Promise<void> {
    if (this.ca) opts.ca = this.ca();
    if (this.cluster.skipTLSVerify) opts.rejectUnauthorized = false;
    if (this.cluster.tlsServerName) opts.servername = this.cluster.tlsServerName;
    if (this.auth.cert) opts.cert = this.auth.cert;
    if (this.auth.key) opts.key = this.auth.key;
    const headers = { ...((opts.headers as Record<string, string> | undefined) ?? {}) };
    if (this.auth.token) headers.Authorization = `Bearer ${this.auth.token().trim()}`;
    if (this.auth.basic) opts.auth = this.auth.basic;
    opts.headers = headers;
  }
}

/** The pod's ServiceAccount, as client-go's rest.InClusterConfig (and client-node's loadFromCluster). */
export function inClusterConfig(env: NodeJS.ProcessEnv = process.env, dir = SA_DIR): LightKubeConfig {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) throw new Error('not in a cluster: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set');
  const scheme = port === '80' || port === '8080' || port === '8001' ? 'http' : 'https';
  return new LightKubeConfig({ name: 'inCluster', server: `${scheme}://${isIPv6(host) ? `[${host}]` : host}:${port}`, caFile: `${dir}/ca.crt`, skipTLSVerify: false }, { token: cachedFile(`${dir}/token`) });
}

type Named<T> = { name?: string } & T;
type Doc = {
  'current-context'?: string;
  contexts?: Named<{ context?: { cluster?: string; user?: string } }>[];
  clusters?: Named<{ cluster?: Record<string, unknown> }>[];
  users?: Named<{ user?: Record<string, unknown> }>[];
};

/**
 * The current context of a kubeconfig file, or `undefined` when it needs what only client-node
 * does (exec plugins, auth-providers other than tokenFile, proxies). Relative file paths are
 * relative to the kubeconfig's directory, as kubectl has them.
 */
export function loadLightKubeConfig(file: string): LightKubeConfig | undefined {
  const doc = (loadYaml(readFileSync(file, 'utf8')) ?? {}) as Doc;
  const dir = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
  const rel = (p: unknown) => (typeof p !== 'string' || !p ? undefined : p.startsWith('/') ? p : dir + p);
  const ctxName = doc['current-context'];
  const ctx = doc.contexts?.find((c) => c.name === ctxName)?.context ?? (doc.contexts?.length === 1 ? doc.contexts[0]!.context : undefined);
  const c = doc.clusters?.find((x) => x.name === ctx?.cluster)?.cluster;
  const u = doc.users?.find((x) => x.name === ctx?.user)?.user ?? {};
  if (!c || typeof c.server !== 'string') throw new Error(`${file}: the current context has no cluster with a server`);
  if (c['proxy-url'] !== undefined || u.exec !== undefined) return undefined;
  const provider = u['auth-provider'] as { name?: string; config?: { tokenFile?: string } } | undefined;
  if (provider && provider.name !== 'tokenFile') return undefined;
  const tokenFile = rel(u.tokenFile) ?? rel(provider?.config?.tokenFile);
  const auth: Auth = {};
  if (typeof u.token === 'string' && u.token) {
    const t = u.token;
    auth.token = () => t;
  } else if (tokenFile) auth.token = cachedFile(tokenFile);
  const pem = (data: unknown, path: unknown) => (typeof data === 'string' && data ? Buffer.from(data, 'base64') : rel(path) ? readFileSync(rel(path)!) : undefined);
  auth.cert = pem(u['client-certificate-data'], u['client-certificate']);
  auth.key = pem(u['client-key-data'], u['client-key']);
  if (typeof u.username === 'string' && u.username) auth.basic = `${u.username}:${typeof u.password === 'string' ? u.password : ''}`;
  return new LightKubeConfig(
    {
      name: ctx?.cluster ?? 'cluster',
      server: c.server,
      skipTLSVerify: c['insecure-skip-tls-verify'] === true,
      ...(typeof c['certificate-authority-data'] === 'string' && c['certificate-authority-data'] ? { caData: c['certificate-authority-data'] } : rel(c['certificate-authority']) ? { caFile: rel(c['certificate-authority'])! } : {}),
      ...(typeof c['tls-server-name'] === 'string' ? { tlsServerName: c['tls-server-name'] } : {}),
    },
    auth,
  );
}
