/**
 * `/metrics` on its own port, the way HyperShift's control-plane components are scraped on a
 * management cluster: HTTPS with a serving certificate, and the scraper proves who it is with a
 * client certificate (HyperShift's `metrics-client` Secret in the HCP namespace, CN
 * `system:serviceaccount:hypershift:prometheus`, signed by the hosted cluster's client CA). The
 * server asks for a client certificate, accepts only one that chains to `--metrics-client-ca`,
 * and serves only the subjects (CN) it is told to (`--metrics-allowed-clients`). Nothing else is
 * served; no request body is read; every answer is bounded. Decision and evidence:
 * docs/design/observability.md, "Who may scrape".
 */
import * as https from 'node:https';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import type { FlagSpec, FlagValues } from '../flags.js';

export interface MetricsServerOptions {
  port: number;
  host?: string;
  certFile: string;
  keyFile: string;
  /** PEM bundle of the CAs a scraper's client certificate must chain to. */
  clientCAFile: string;
  /** Subjects (certificate CN) allowed to scrape. */
  allowedClients: string[];
  /** The exposition text and its content type (a `Metrics` registry). */
  render: () => Promise<{ text: string; contentType: string }>;
  /** How often the files are re-read for rotation (default 10 s). */
  reloadMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

interface Material {
  cert: Buffer;
  key: Buffer;
  ca: Buffer;
  digest: string;
}

async function readMaterial(o: MetricsServerOptions): Promise<Material> {
  const [cert, key, ca] = await Promise.all([readFile(o.certFile), readFile(o.keyFile), readFile(o.clientCAFile)]);
  return { cert, key, ca, digest: createHash('sha256').update(cert).update(key).update(ca).digest('hex') };
}

const TIMEOUT_MS = 10_000;

export async function startMetricsServer(o: MetricsServerOptions): Promise<MetricsServer> {
  if (o.allowedClients.length === 0) throw new Error('metrics: no allowed client named (--metrics-allowed-clients): nobody could scrape');
  const log = o.log ?? (() => {});
  let current: Material;
  try {
    current = await readMaterial(o);
  } catch (e) {
    throw new Error(`metrics: cannot read the serving certificate, key or client CA (${o.certFile}, ${o.keyFile}, ${o.clientCAFile}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  const allowed = new Set(o.allowedClients);
  const context = (m: Material) => ({ cert: m.cert, key: m.key, ca: m.ca, requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' as const });

  const send = (res: ServerResponse, code: number, body: string, type = 'text/plain; charset=utf-8') => {
    res.writeHead(code, { 'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': 'no-store' }).end(body);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const socket = req.socket as TLSSocket;
    const peer = socket.getPeerCertificate();
    const cn = peer && typeof peer.subject?.CN === 'string' ? peer.subject.CN : undefined;
    if (!socket.authorized || !cn) return send(res, 401, 'a client certificate signed by the metrics client CA is required\n');
    if (!allowed.has(cn)) return send(res, 403, 'this client may not read metrics\n');
    const url = (req.url ?? '/').split('?')[0];
    if (url !== '/metrics') return send(res, 404, 'only /metrics is served here\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('allow', 'GET, HEAD');
      return send(res, 405, 'GET /metrics\n');
    }
    const r = await o.render();
    send(res, 200, r.text, r.contentType);
  };

  const server = https.createServer({ ...context(current), handshakeTimeout: TIMEOUT_MS }, (req, res) => {
    handle(req, res).catch((e: Error) => {
      log('metrics: internal error', { error: e.name });
      send(res, 500, 'internal error\n');
    });
  });
  server.headersTimeout = TIMEOUT_MS;
  server.requestTimeout = TIMEOUT_MS;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = 16;
  server.on('connection', (s: Socket) => s.setTimeout(TIMEOUT_MS, () => s.destroy()));
  server.on('tlsClientError', () => {
    /* a scraper without an acceptable certificate: refused in the handshake */
  });

  // service-ca and HyperShift rotate these Secrets in place: re-read, swap when changed and valid.
  let reloading = false;
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = true;
    readMaterial(o)
      .then((next) => {
        if (next.digest === current.digest) return;
        server.setSecureContext(context(next));
        current = next;
        log('metrics: certificates reloaded');
      })
      .catch(() => {
        /* half-written: retried next time, the previous material stays */
      })
      .finally(() => (reloading = false));
  }, o.reloadMs ?? 10_000);
  timer.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.port, o.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e: NodeJS.ErrnoException) => {
    clearInterval(timer);
    throw new Error(`metrics: cannot listen on ${o.host ?? '0.0.0.0'}:${o.port}: ${e.code ?? e.message}`);
  });
  const a = server.address();
  return {
    port: typeof a === 'object' && a ? a.port : o.port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** HyperShift's scraper identity: the `metrics-client` certificate's subject (pki/sa.go ReconcileMetricsSAClientCertSecret). */
export const HYPERSHIFT_SCRAPER = 'system:serviceaccount:hypershift:prometheus';
export const METRICS_PORT = 9443;
/** The HCP namespace's client CA bundle (HyperShift's `client-ca` ConfigMap, key ca.crt: it includes the signer of `metrics-client`), as the package mounts it. */
/**
 * The management cluster's platform Prometheus presents the `metrics-client-certs` client
 * certificate (OpenShift enhancement monitoring/client-cert-scraping; its subject is checked on a
 * real cluster, docs/design/observability.md).
 */
export const PLATFORM_SCRAPER = 'system:serviceaccount:openshift-monitoring:prometheus-k8s';
export const PLATFORM_CLIENT_CA = '/var/run/metrics-client-ca/client-ca.crt';
export const HCP_CLIENT_CA = '/var/run/metrics-client-ca/ca.crt';

/** The metrics flags every long-running process takes. */
export function metricsFlags(defaults: { allowedClients: string; clientCA: string; port?: number }): FlagSpec[] {
  return [
    { name: 'metrics-port', type: 'int', default: 0, description: `HTTPS port of /metrics (client certificate required); 0: not served (the package sets ${defaults.port ?? METRICS_PORT})` },
    { name: 'metrics-cert-dir', type: 'string', default: '/var/run/metrics-serving-cert', description: 'directory with tls.crt and tls.key of the /metrics server (service-ca writes them)' },
    { name: 'metrics-client-ca', type: 'string', default: defaults.clientCA, description: "PEM file of the CAs a scraper's client certificate must chain to" },
    { name: 'metrics-allowed-clients', type: 'string', default: defaults.allowedClients, description: 'comma-separated certificate subjects (CN) allowed to read /metrics' },
  ];
}

/** Starts /metrics from the flags (none when --metrics-port=0). `host`: tests bind 127.0.0.1. */
export function serveMetrics(flags: FlagValues, render: MetricsServerOptions['render'], log: MetricsServerOptions['log'], host?: string): Promise<MetricsServer | undefined> {
  const port = Number(flags['metrics-port']);
  if (!port) return Promise.resolve(undefined);
  // No client CA (an optional ConfigMap not made yet): nobody could be authorized, so nothing is served.
  if (!existsSync(String(flags['metrics-client-ca']))) {
    log?.('metrics not served: no client CA to authorize scrapers with', { file: String(flags['metrics-client-ca']) });
    return Promise.resolve(undefined);
  }
  const dir = String(flags['metrics-cert-dir']);
  return startMetricsServer({
    port,
    certFile: `${dir}/tls.crt`,
    keyFile: `${dir}/tls.key`,
    clientCAFile: String(flags['metrics-client-ca']),
    allowedClients: String(flags['metrics-allowed-clients']).split(',').map((s) => s.trim()).filter((s) => s),
    render,
    log,
    ...(host ? { host } : {}),
  });
}
