/**
 * `on-cluster-build webhook`: the HTTPS server the hosted cluster's kube-apiserver calls (it runs
 * in the HCP namespace; a ValidatingWebhookConfiguration in the package points at it).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BUILD_KIND, CONFIG_KIND, WEBHOOK_PATHS } from '../api/types.js';
import { BadReviewError, decideAdmission, readAdmissionReview, type ServedKind } from './validate.js';

export { WEBHOOK_PATHS };

const KIND_BY_PATH: Record<string, ServedKind> = {
  [WEBHOOK_PATHS.nodePoolOSConfigs]: CONFIG_KIND,
  [WEBHOOK_PATHS.nodePoolOSBuilds]: BUILD_KIND,
};

/** The API server sends at most ~3 MiB of object (etcd's 1.5 MiB twice, for old and new). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;

export interface WebhookServerOptions {
  port: number;
  host?: string;
  certFile: string;
  keyFile: string;
  controllerUsername: string;
  /** One JSON object per line: a decision, a certificate reload, a failure. Never object content. */
  log?: (line: object) => void;
  /** How often the certificate files are checked for rotation (default 10 s). */
  certPollMs?: number;
}

export interface WebhookServer {
  port: number;
  close(): Promise<void>;
}

interface KeyPair {
  cert: Buffer;
  key: Buffer;
  digest: string;
}

async function readKeyPair(certFile: string, keyFile: string): Promise<KeyPair> {
  const [cert, key] = await Promise.all([readFile(certFile), readFile(keyFile)]);
  const digest = createHash('sha256').update(cert).update('\0').update(key).digest('hex');
  return { cert, key, digest };
}

function send(res: ServerResponse, status: number, body: string, type = 'text/plain; charset=utf-8'): void {
  if (res.headersSent) return;
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

/** Reads the body up to MAX_BODY_BYTES; undefined when it was too large (413 already sent). */
function readBody(req: IncomingMessage, res: ServerResponse): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const tooLarge = (): void => {
      res.setHeader('connection', 'close');
      send(res, 413, `request body exceeds ${MAX_BODY_BYTES} bytes (3 MiB)\n`);
      req.resume(); // drain without keeping anything
      resolve(undefined);
    };
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > MAX_BODY_BYTES) return tooLarge();
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    req.on('data', (c: Buffer) => {
      if (over) return;
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        over = true;
        chunks.length = 0;
        tooLarge();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => {
      if (!over) resolve(Buffer.concat(chunks));
    });
    req.on('error', reject);
  });
}

export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const log = opts.log ?? ((line: object) => process.stdout.write(JSON.stringify(line) + '\n'));
  let current: KeyPair;
  try {
    current = await readKeyPair(opts.certFile, opts.keyFile);
  } catch (e) {
    throw new Error(`cannot read the serving certificate (${opts.certFile}, ${opts.keyFile}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = (req.url ?? '/').split('?')[0]!;
    if (url === '/healthz' || url === '/readyz') return send(res, 200, 'ok\n');
    const kind = KIND_BY_PATH[url];
    if (!kind) return send(res, 404, `no webhook at ${JSON.stringify(url.slice(0, 100))}; paths: ${Object.values(WEBHOOK_PATHS).join(', ')}\n`);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, 405, 'a webhook takes POST with an AdmissionReview\n');
    }
    const body = await readBody(req, res);
    if (body === undefined) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return send(res, 400, 'request body is not valid JSON (an admission.k8s.io/v1 AdmissionReview)\n');
    }
    let review;
    try {
      review = readAdmissionReview(parsed, kind);
    } catch (e) {
      if (e instanceof BadReviewError) return send(res, 400, `${e.message}\n`);
      throw e;
    }
    const d = decideAdmission(review, { controllerUsername: opts.controllerUsername });
    const r = review.request;
    const meta = (r.object ?? r.oldObject) as { metadata?: { name?: unknown } } | undefined;
    log({
      msg: 'admission',
      uid: r.uid,
      kind,
      name: typeof r.name === 'string' && r.name ? r.name : typeof meta?.metadata?.name === 'string' ? meta.metadata.name : '',
      operation: r.operation,
      allowed: d.allowed,
      ...(d.allowed ? {} : { reason: d.reason, fields: d.fields }),
    });
    send(res, 200, JSON.stringify(d.review), 'application/json');
  };

  const server = https.createServer({ cert: current.cert, key: current.key, minVersion: 'TLSv1.2' }, (req, res) => {
    handle(req, res).catch((e: Error) => {
      // A bug, not bad input: say so without echoing the request.
      log({ msg: 'internal error', error: e.name, path: (req.url ?? '').slice(0, 100) });
      send(res, 500, 'internal error\n');
    });
  });
  // Bounded time per request; the API server's own webhook timeout is at most 30 s.
  server.requestTimeout = 30_000;
  server.headersTimeout = 10_000;
  server.keepAliveTimeout = 5_000;
  server.on('tlsClientError', () => {
    /* a client that fails the handshake is its own problem; the server keeps serving */
  });

  // service-ca rewrites the Secret (a symlink swap in the volume); polling the content catches it
  // where fs.watch would miss the swap. A half-written pair fails to load and is retried.
  const reload = async (): Promise<void> => {
    let next: KeyPair;
    try {
      next = await readKeyPair(opts.certFile, opts.keyFile);
    } catch {
      return;
    }
    if (next.digest === current.digest) return;
    try {
      server.setSecureContext({ cert: next.cert, key: next.key, minVersion: 'TLSv1.2' });
      current = next;
      log({ msg: 'serving certificate reloaded' });
    } catch (e) {
      log({ msg: 'serving certificate not reloaded, keeping the previous one', error: (e as Error).message.split('\n')[0]?.slice(0, 200) });
    }
  };
  let reloading = false;
  const timer = setInterval(() => {
    if (reloading) return;
    reloading = true;
    void reload().finally(() => (reloading = false));
  }, opts.certPollMs ?? 10_000);
  timer.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host ?? '0.0.0.0', () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e: NodeJS.ErrnoException) => {
    clearInterval(timer);
    throw new Error(`cannot listen on ${opts.host ?? '0.0.0.0'}:${opts.port}: ${e.code ?? e.message}`);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : opts.port;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
