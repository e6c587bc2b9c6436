/**
 * `on-cluster-build webhook`: the HTTPS server the hosted cluster's kube-apiserver calls (it runs
 * in the HCP namespace; a ValidatingWebhookConfiguration in the package points at it).
 */
import type { AdmissionTelemetry } from '../metrics/admission.js';
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { BUILD_KIND, CONFIG_KIND, WEBHOOK_PATHS } from '../api/types.js';
import { BadReviewError, decideAdmission, readAdmissionReview, type ServedKind } from './validate.js';
import { parsePullKeys, pushTargetCoveredByKeys } from '../registry/push-target.js';

export { WEBHOOK_PATHS };

const KIND_BY_PATH: Record<string, ServedKind> = {
  [WEBHOOK_PATHS.nodePoolOSConfigs]: CONFIG_KIND,
  [WEBHOOK_PATHS.nodePoolOSBuilds]: BUILD_KIND,
};

/** The API server sends at most ~3 MiB of object (etcd's 1.5 MiB twice, for old and new). */
export const MAX_BODY_BYTES = 3 * 1024 * 1024;
/**
 * Request bytes buffered at once across all requests: four largest-possible reviews. Everything
 * past it is refused with 429 before it is read, so N stalled bodies cost at most this much.
 */
export const MAX_BYTES_IN_FLIGHT = 12 * 1024 * 1024;
/** A body must arrive within this (the API server gives our webhooks 5 s per call). */
export const BODY_TIMEOUT_MS = 10_000;
/** Connections served at once; the kube-apiserver keeps a few alive per replica. */
export const MAX_CONNECTIONS = 256;
/** Field paths named in one log line at most. */
const MAX_LOGGED_FIELDS = 10;

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
  /** Largest request body (default MAX_BODY_BYTES); larger is 413. */
  maxBodyBytes?: number;
  /** Request bytes buffered across all requests at once (default MAX_BYTES_IN_FLIGHT); past it, 429. */
  maxBytesInFlight?: number;
  /** A body not complete this long after its headers is dropped with 408 (default BODY_TIMEOUT_MS). */
  bodyTimeoutMs?: number;
  /** Headers must arrive within this (default 5 s); also the request timeout's check interval. */
  headersTimeoutMs?: number;
  /** The push-target rule (validate.ts RuleOptions.pushTarget): builder/registry/push-target.ts's pushTargetProblem with the provider's allow-list. */
  pushTarget?: (spec: string) => string | undefined;
  /** `--tenant-layer=Disabled`: NodePoolOSConfigs are refused (builder/policy/layers.ts). */
  tenantLayerDisabled?: boolean;
  /**
   * The published pull keys (`PULL_KEYS_CONFIGMAP` mounted as a volume): a config whose new push
   * target no key covers is refused. Re-read every `certPollMs`. Missing, unreadable or over its
   * bounds: the check is not made and the config is admitted (fail open, logged: the
   * controller refuses it in status, docs/design/hand-off.md "Image nodes can pull at first boot").
   */
  pullKeysFile?: string;
  /** Requests, denials, errors and decision time (builder/metrics/admission.ts). */
  telemetry?: AdmissionTelemetry;
}

/** What the server holds and has refused, for tests and the bench (never object content). */
export interface WebhookStats {
  /** Request body bytes reserved now (declared lengths, or chunks received without one). */
  bytesInFlight: number;
  /** The most ever reserved at once. */
  peakBytesInFlight: number;
  /** Requests refused because the in-flight budget was spent (429). */
  refusedBusy: number;
  /** Requests refused for a body over the per-request cap (413). */
  refusedTooLarge: number;
  /** Bodies dropped because they did not arrive in time (408). */
  timedOut: number;
  /** Admission decisions made. */
  decisions: number;
}

export interface WebhookServer {
  port: number;
  stats(): WebhookStats;
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

/** The request-body budget shared by every request of one server. */
class BodyBudget {
  inFlight = 0;
  peak = 0;
  constructor(readonly max: number) {}
  take(n: number): boolean {
    if (this.inFlight + n > this.max) return false;
    this.inFlight += n;
    if (this.inFlight > this.peak) this.peak = this.inFlight;
    return true;
  }
  give(n: number): void {
    this.inFlight -= n;
  }
}

/** Ends a refused request: the answer, then the connection, so no unread body is kept. */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, body: string, extra: Record<string, string> = {}): void {
  for (const [k, v] of Object.entries(extra)) res.setHeader(k, v);
  res.setHeader('connection', 'close');
  send(res, status, body);
  res.once('finish', () => req.socket.destroy());
  // A client that stops reading must not hold the socket either.
  setTimeout(() => req.socket.destroy(), 1000).unref();
}

interface BodyLimits {
  maxBody: number;
  budget: BodyBudget;
  timeoutMs: number;
  stats: WebhookStats;
}

/**
 * Reads the body within the per-request cap, the server-wide in-flight budget and the body
 * deadline; undefined when it was refused (the answer is already sent). A declared length is
 * reserved before a byte is read; a chunked body reserves as it arrives.
 */
function readBody(req: IncomingMessage, res: ServerResponse, l: BodyLimits): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    let reserved = 0;
    let done = false;
    const chunks: Buffer[] = [];
    const finish = (v: Buffer | undefined): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      l.budget.give(reserved);
      reserved = 0;
      chunks.length = 0;
      req.removeListener('data', onData);
      resolve(v);
    };
    const tooLarge = (): void => {
      l.stats.refusedTooLarge++;
      refuse(req, res, 413, `request body exceeds ${l.maxBody} bytes${l.maxBody % 2 ** 20 === 0 ? ` (${l.maxBody / 2 ** 20} MiB)` : ''}\n`);
      finish(undefined);
    };
    const busy = (): void => {
      l.stats.refusedBusy++;
      refuse(req, res, 429, 'too many request bytes in flight; retry\n', { 'retry-after': '1' });
      finish(undefined);
    };
    const timer = setTimeout(() => {
      l.stats.timedOut++;
      refuse(req, res, 408, `request body not received within ${l.timeoutMs} ms\n`);
      finish(undefined);
    }, l.timeoutMs);
    const declaredHeader = req.headers['content-length'];
    const declared = declaredHeader === undefined ? undefined : Number(declaredHeader);
    if (declared !== undefined && Number.isFinite(declared)) {
      if (declared > l.maxBody) return tooLarge();
      if (!l.budget.take(declared)) return busy();
      reserved = declared;
    }
    let size = 0;
    const onData = (c: Buffer): void => {
      if (done) return;
      size += c.length;
      if (size > l.maxBody) return tooLarge();
      if (size > reserved) {
        // Chunked (or longer than declared, which the parser refuses anyway): reserve as it comes.
        if (!l.budget.take(size - reserved)) return busy();
        reserved = size;
      }
      chunks.push(c);
    };
    req.on('data', onData);
    req.once('end', () => {
      if (!done) finish(Buffer.concat(chunks));
    });
    req.once('error', () => finish(undefined));
    req.once('close', () => {
      if (!done && !req.complete) finish(undefined);
    });
  });
}

const clipLog = (v: unknown, n: number): string => (typeof v === 'string' ? (v.length > n ? `${v.slice(0, n)}...` : v) : '');

/**
 * One admission endpoint of an admission server: it gets the parsed JSON body (an AdmissionReview
 * not yet checked) and answers the review to send with the line to log, or throws BadReviewError
 * for a malformed review (400, fail closed: the API server applies the webhook's failurePolicy).
 */
export type AdmissionHandler = (parsed: unknown, started: number) => { review: object; log: object };

export interface AdmissionServerOptions extends Omit<WebhookServerOptions, 'controllerUsername' | 'pushTarget' | 'tenantLayerDisabled' | 'pullKeysFile'> {
  /** path → handler; anything else is 404. */
  handlers: Record<string, AdmissionHandler>;
  /** Runs on each certificate poll (the HCP webhook re-reads its pull keys there). */
  onPoll?: () => Promise<void>;
}

/** The validating webhook of the HCP namespace: NodePoolOSConfigs and NodePoolOSBuilds. */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const log = opts.log ?? ((line: object) => process.stdout.write(JSON.stringify(line) + '\n'));
  // The pull keys: a Set for the lookup, or undefined (not known: admit). Never a credential.
  let pullKeys: Set<string> | undefined;
  let pullKeysText: string | undefined;
  let pullKeysLoaded = false;
  const loadPullKeys = async (): Promise<void> => {
    if (!opts.pullKeysFile) return;
    let text: string | undefined;
    try {
      text = await readFile(opts.pullKeysFile, 'utf8');
    } catch {
      text = undefined;
    }
    if (pullKeysLoaded && text === pullKeysText) return;
    pullKeysLoaded = true;
    pullKeysText = text;
    const keys = text === undefined ? undefined : parsePullKeys(text);
    pullKeys = keys ? new Set(keys) : undefined;
    log({ msg: pullKeys ? 'pull keys loaded' : 'pull keys unavailable: push targets are not checked against the pull secret here', ...(pullKeys ? { keys: pullKeys.size } : {}) });
  };
  await loadPullKeys();
  const pushTargetPullable = opts.pullKeysFile
    ? (spec: string): string | undefined => {
        if (!pullKeys) return undefined;
        const r = pushTargetCoveredByKeys(spec, pullKeys, "the HostedCluster's pull secret");
        return r.covered ? undefined : r.reason;
      }
    : undefined;
  const handlers: Record<string, AdmissionHandler> = {};
  for (const [path, kind] of Object.entries(KIND_BY_PATH)) {
    handlers[path] = (parsed, started) => {
      const review = readAdmissionReview(parsed, kind);
      const d = decideAdmission(review, { controllerUsername: opts.controllerUsername, pushTarget: opts.pushTarget, tenantLayerDisabled: opts.tenantLayerDisabled === true, ...(pushTargetPullable ? { pushTargetPullable } : {}) });
      const r = review.request;
      const meta = (r.object ?? r.oldObject) as { metadata?: { name?: unknown } } | undefined;
      // Bounded: names and uids clipped, at most MAX_LOGGED_FIELDS field paths (each clipped).
      const fields = d.fields.slice(0, MAX_LOGGED_FIELDS).map((f) => clipLog(f, 120));
      return {
        review: d.review,
        log: {
          msg: 'admission',
          uid: clipLog(r.uid, 128),
          kind,
          name: clipLog(typeof r.name === 'string' && r.name ? r.name : meta?.metadata?.name, 253),
          ...(r.subResource ? { subResource: clipLog(r.subResource, 32) } : {}),
          operation: r.operation,
          allowed: d.allowed,
          ...(d.allowed ? {} : { reason: d.reason, fields, ...(d.fields.length > fields.length ? { moreFields: d.fields.length - fields.length } : {}) }),
          // Headers received to answer ready (body read, parsed, decided): the webhook's own share of the call.
          ms: Math.round((performance.now() - started) * 100) / 100,
        },
      };
    };
  }
  return startAdmissionServer({ ...opts, handlers, onPoll: loadPullKeys });
}

/**
 * The bounded HTTPS admission server (body cap, in-flight budget, timeouts, certificate reload,
 * /healthz and /readyz): one home for the HCP namespace's validating webhook and the fleet
 * component's mutating one (builder/fleet/webhook.ts).
 */
export async function startAdmissionServer(opts: AdmissionServerOptions): Promise<WebhookServer> {
  const log = opts.log ?? ((line: object) => process.stdout.write(JSON.stringify(line) + '\n'));
  let current: KeyPair;
  try {
    current = await readKeyPair(opts.certFile, opts.keyFile);
  } catch (e) {
    throw new Error(`cannot read the serving certificate (${opts.certFile}, ${opts.keyFile}): ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }

  const stats: WebhookStats = { bytesInFlight: 0, peakBytesInFlight: 0, refusedBusy: 0, refusedTooLarge: 0, timedOut: 0, decisions: 0 };
  const budget = new BodyBudget(opts.maxBytesInFlight ?? MAX_BYTES_IN_FLIGHT);
  const limits: BodyLimits = { maxBody: opts.maxBodyBytes ?? MAX_BODY_BYTES, budget, timeoutMs: opts.bodyTimeoutMs ?? BODY_TIMEOUT_MS, stats };
  const headersTimeout = opts.headersTimeoutMs ?? 5_000;

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const started = performance.now();
    const url = (req.url ?? '/').split('?')[0]!;
    if (url === '/healthz' || url === '/readyz') return send(res, 200, 'ok\n');
    const handler = Object.prototype.hasOwnProperty.call(opts.handlers, url) ? opts.handlers[url] : undefined;
    if (!handler) return send(res, 404, `no webhook at ${JSON.stringify(url.slice(0, 100))}; paths: ${Object.keys(opts.handlers).join(', ')}\n`);
    if (req.method !== 'POST') {
      res.setHeader('allow', 'POST');
      return send(res, 405, 'a webhook takes POST with an AdmissionReview\n');
    }
    const before = { ...stats };
    const body = await readBody(req, res, limits);
    if (body === undefined) return void opts.telemetry?.errored(stats.refusedBusy > before.refusedBusy ? 'Busy' : stats.refusedTooLarge > before.refusedTooLarge ? 'TooLarge' : stats.timedOut > before.timedOut ? 'Timeout' : 'BadRequest');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      opts.telemetry?.errored('BadRequest');
      return send(res, 400, 'request body is not valid JSON (an admission.k8s.io/v1 AdmissionReview)\n');
    }
    let answer;
    try {
      answer = handler(parsed, started);
    } catch (e) {
      if (e instanceof BadReviewError) {
        opts.telemetry?.errored('BadRequest');
        return send(res, 400, `${e.message}\n`);
      }
      throw e;
    }
    stats.decisions++;
    log(answer.log);
    const d = answer.log as { kind?: string; allowed?: boolean; reason?: string };
    opts.telemetry?.decided(d.kind ?? 'Other', d.allowed === true, d.reason, (performance.now() - started) / 1000);
    send(res, 200, JSON.stringify(answer.review), 'application/json');
  };

  const server = https.createServer({
    cert: current.cert,
    key: current.key,
    minVersion: 'TLSv1.2',
    // A TLS handshake must finish as fast as headers must arrive (Node's default is 120 s).
    handshakeTimeout: headersTimeout,
    // Node checks headersTimeout/requestTimeout on this interval (default 30 s): check as often as the shorter one.
    connectionsCheckingInterval: Math.max(100, Math.min(headersTimeout, limits.timeoutMs) / 2),
  } as https.ServerOptions, (req, res) => {
    handle(req, res).catch((e: Error) => {
      // A bug, not bad input: say so without echoing the request.
      log({ msg: 'internal error', error: e.name, path: (req.url ?? '').slice(0, 100) });
      opts.telemetry?.errored('Internal');
      send(res, 500, 'internal error\n');
    });
  });
  // Bounded time per request: headers, then the whole request (the body deadline above is the
  // tighter, per-request one); idle keep-alive connections close after 5 s.
  server.headersTimeout = headersTimeout;
  server.requestTimeout = headersTimeout + limits.timeoutMs;
  server.keepAliveTimeout = 5_000;
  server.maxConnections = MAX_CONNECTIONS;
  // A connection that sends nothing at all (no TLS handshake) is dropped too.
  server.on('connection', (socket: Socket) => socket.setTimeout(headersTimeout + limits.timeoutMs, () => socket.destroy()));
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
    void Promise.all([reload(), opts.onPoll?.()]).finally(() => (reloading = false));
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
    stats: () => ({ ...stats, bytesInFlight: budget.inFlight, peakBytesInFlight: budget.peak }),
    close: () =>
      new Promise<void>((resolve) => {
        clearInterval(timer);
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
