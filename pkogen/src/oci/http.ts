/**
 * The one HTTP seam of the registry client: node:http(s) with keep-alive, a body size ceiling,
 * no automatic redirects (the client decides what crosses origins), and three clocks: a connect
 * timeout, a stall timeout (no byte for N ms) and the command's overall deadline.
 */
import type * as Http from 'node:http';
import type * as Https from 'node:https';
import type { LookupFunction } from 'node:net';
import { nodeHttp, nodeHttps, nodeTls } from '../core/builtins.js';
import { UserError } from '../core/errors.js';

// node:http loads with the first transport and https/tls with its first https request, not with
// this module: `pkogen build` reaches it (Deadline, through the registry options) without sending
// anything.

/**
 * A request body sent as it is produced (a layer streamed from disk): exactly `length` bytes from
 * `chunks()`, which starts over at every call (a retry sends it again). An error it throws ends
 * the request unfinished and is what the request rejects with.
 */
export interface StreamBody {
  length: number;
  chunks(): AsyncIterable<Uint8Array>;
}

export interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: Uint8Array | StreamBody;
  /** Largest response body accepted (default 64 MiB); with `sink`, the most bytes passed to it. */
  maxBody?: number;
  /**
   * Where a 2xx body goes as it arrives, instead of being kept: the response resolves with an
   * empty `body`. Other statuses are buffered as usual (error documents are small).
   */
  sink?: BodySink;
}

/**
 * Takes a response body chunk by chunk. Answering `'stop'` ends the download there (the
 * connection is dropped and the response resolves with `stopped: true`); a promise pauses the
 * socket until it settles; throwing (or rejecting) fails the request with that error, as is.
 */
export type BodySink = (chunk: Uint8Array) => void | 'stop' | Promise<void | 'stop'>;

export interface HttpResponse {
  status: number;
  headers: Http.IncomingHttpHeaders;
  body: Uint8Array;
  /** The sink asked to stop before the body's end. */
  stopped?: boolean;
}

/**
 * Who a transport may connect to, decided when it connects (not before): `checkUrl` refuses a
 * request before any socket is opened (an address literal or a name that is never allowed),
 * `lookupFor(url)` is given to every socket (resolve, check each answer, hand back only checked
 * addresses, so the address connected to is the one checked), and `checkAddress` sees every new
 * socket's peer once connected. Refusals are ConnectPolicyErrors and are never retried.
 */
export interface ConnectPolicy {
  checkUrl(url: URL): void;
  lookupFor(url: URL): LookupFunction;
  checkAddress(address: string, url: URL): void;
}

/** A connection the ConnectPolicy refused. */
export class ConnectPolicyError extends UserError {
  readonly code = 'EBLOCKED';
}

export type Transport = (req: HttpRequest) => Promise<HttpResponse>;

/** A network failure (no HTTP answer): worth retrying. */
export class NetworkError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The end of a whole command's network work: every request stops when it passes, and retries
 * are not started after it. Shared by every client a command creates.
 */
export class Deadline {
  private end?: number;
  /** The clock starts at `start`, or at the first question asked of it (the first request). */
  constructor(
    readonly ms: number,
    start?: number,
    /** The clock (tests inject one; default Date.now). */
    private readonly now: () => number = Date.now,
  ) {
    if (start !== undefined) this.end = start + ms;
  }
  remaining(): number {
    this.end ??= this.now() + this.ms;
    return Math.max(0, this.end - this.now());
  }
  expired(): boolean {
    return this.remaining() === 0;
  }
  /** `--timeout`'s value as a user gave it, for messages. */
  describe(): string {
    return formatMs(this.ms);
  }
}

/** 1500 → "1.5s", 120000 → "2m0s"-like short forms, for messages. */
export function formatMs(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${+(ms / 1000).toFixed(3)}s`;
  const m = Math.floor(ms / 60_000);
  const rest = ms - m * 60_000;
  return rest ? `${m}m${+(rest / 1000).toFixed(3)}s` : `${m}m`;
}

export interface NodeTransportOptions {
  /** Extra trusted CA certificates (PEM), on top of Node's defaults. */
  ca?: string | Buffer;
  /** Skip TLS certificate verification (only with --insecure). */
  insecureSkipVerify?: boolean;
  /** Longest wait for a TCP (and TLS) connection (default 30 s). */
  connectTimeoutMs?: number;
  /** Longest time without a byte in either direction once connected (default 60 s). */
  stallTimeoutMs?: number;
  /** @deprecated the old name of stallTimeoutMs. */
  timeoutMs?: number;
  /** The whole command's deadline: a request in flight is cut when it passes. */
  deadline?: Deadline;
  /** Which hosts and addresses may be connected to (default: any). */
  connectPolicy?: ConnectPolicy;
}

/** Resolves at the request's next 'drain' or its 'close', whichever comes first. */
function drainOrClose(r: Http.ClientRequest): Promise<void> {
  return new Promise((go) => {
    const f = () => {
      r.off('drain', f);
      r.off('close', f);
      go();
    };
    r.on('drain', f);
    r.on('close', f);
  });
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
export const DEFAULT_STALL_TIMEOUT_MS = 60_000;

export interface ClosableTransport {
  send: Transport;
  close(): void;
}

export function nodeTransport(opts: NodeTransportOptions = {}): ClosableTransport {
  const http = nodeHttp();
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  // https and tls (and the agent's CA list) with the first https request: a plain-HTTP local
  // registry never needs them (~3 ms to load).
  let https: ReturnType<typeof nodeHttps> | undefined;
  let httpsAgent: Https.Agent | undefined;
  const secure = () => {
    https ??= nodeHttps();
    httpsAgent ??= new https.Agent({
      keepAlive: true,
      maxSockets: 8,
      rejectUnauthorized: !opts.insecureSkipVerify,
      // Node replaces (not extends) the default roots when `ca` is set: add them back.
      ...(opts.ca ? { ca: [...nodeTls().rootCertificates, String(opts.ca)] } : {}),
    });
    return { mod: https, agent: httpsAgent };
  };
  const stallMs = opts.stallTimeoutMs ?? opts.timeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
  const connectMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
  const deadline = opts.deadline;
  const policy = opts.connectPolicy;
  const send: Transport = (req) =>
    new Promise((resolve, reject) => {
      if (deadline?.expired()) return reject(new NetworkError(`the ${deadline.describe()} timeout for this command has passed`, 'EDEADLINE'));
      if (policy) {
        try {
          policy.checkUrl(req.url);
        } catch (e) {
          return reject(e);
        }
      }
      const isHttps = req.url.protocol === 'https:';
      const { mod, agent } = isHttps ? secure() : { mod: http, agent: httpAgent };
      const headers: Record<string, string> = { 'User-Agent': 'pkogen', ...(req.headers ?? {}) };
      if (req.body) headers['Content-Length'] = String(req.body.length);
      else if (req.method === 'PUT' || req.method === 'POST' || req.method === 'PATCH') headers['Content-Length'] = '0';
      const timers: NodeJS.Timeout[] = [];
      let settled = false;
      const done = <T>(f: (v: T) => void) => (v: T) => {
        if (settled) return;
        settled = true;
        for (const t of timers) clearTimeout(t);
        f(v);
      };
      const ok = done(resolve);
      const fail = done((e: NetworkError) => reject(e));
      const failWith = done((e: unknown) => reject(e));
      // A timeout reports itself first (so a later 'aborted' cannot take its place), then cuts.
      const cut = (message: string, code: string) => {
        fail(new NetworkError(message, code));
        r.destroy();
      };
      const r = mod.request(req.url, { method: req.method, headers, agent, ...(policy ? { lookup: policy.lookupFor(req.url) } : {}) }, (res) => {
        const max = req.maxBody ?? 64 * 1024 * 1024;
        const chunks: Buffer[] = [];
        let n = 0;
        const status = res.statusCode ?? 0;
        const sink = req.sink && status >= 200 && status < 300 ? req.sink : undefined;
        const stop = () => {
          ok({ status, headers: res.headers, body: new Uint8Array(0), stopped: true });
          res.destroy();
        };
        res.on('data', (c: Buffer) => {
          if (settled) return;
          n += c.length;
          if (n > max) {
            // Reported before the cut, so the 'close' that destroying causes cannot take its place.
            fail(new NetworkError(`response from ${req.url.host} larger than ${max} bytes`, 'ETOOBIG'));
            res.destroy();
            return;
          }
          if (!sink) return void chunks.push(c);
          let out: ReturnType<BodySink>;
          try {
            out = sink(new Uint8Array(c.buffer, c.byteOffset, c.byteLength));
          } catch (e) {
            failWith(e);
            return void res.destroy();
          }
          if (out === 'stop') return stop();
          if (out instanceof Promise) {
            res.pause();
            out.then(
              (v) => (v === 'stop' ? stop() : settled ? undefined : res.resume()),
              (e: unknown) => {
                failWith(e);
                res.destroy();
              },
            );
          }
        });
        res.on('end', () => ok({ status, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
        res.on('error', (e) => fail(new NetworkError(e.message, (e as NodeJS.ErrnoException).code)));
        res.on('aborted', () => fail(new NetworkError('connection closed mid-response', 'ECONNRESET')));
        res.on('close', () => {
          if (!res.complete) fail(new NetworkError('connection closed mid-response', 'ECONNRESET'));
        });
      });
      r.on('socket', (sock) => {
        const s = sock as import('node:net').Socket & { connecting?: boolean };
        // A reused keep-alive socket is already connected: only new ones get the connect timer.
        if (s.connecting) {
          const t = setTimeout(() => cut(`no connection to ${req.url.host} within ${formatMs(connectMs)} (connect timeout)`, 'ECONNTIMEOUT'), connectMs);
          timers.push(t);
          s.once(isHttps ? 'secureConnect' : 'connect', () => clearTimeout(t));
          // The peer of every new socket, whichever way it was reached (an address literal skips lookup).
          if (policy)
            s.once('connect', () => {
              try {
                policy.checkAddress(s.remoteAddress ?? '', req.url);
              } catch (e) {
                failWith(e);
                s.destroy();
              }
            });
        }
      });
      // Socket idle time: no byte sent or received for stallMs, before or during the response.
      r.setTimeout(stallMs, () => cut(`no data from ${req.url.host} for ${formatMs(stallMs)} (stall timeout)`, 'ESTALL'));
      if (deadline) timers.push(setTimeout(() => cut(`the ${deadline.describe()} timeout for this command has passed`, 'EDEADLINE'), deadline.remaining()));
      r.on('error', (e) => (e instanceof ConnectPolicyError ? failWith(e) : fail(new NetworkError(e.message, (e as NodeJS.ErrnoException).code))));
      const body = req.body;
      if (body === undefined || body instanceof Uint8Array) {
        r.end(body ? Buffer.from(body.buffer, body.byteOffset, body.byteLength) : undefined);
        return;
      }
      // Written as produced, waiting for 'drain' when the socket is behind; the body's own error
      // (a file that changed, a digest mismatch) rejects the request as it is and cuts it.
      void (async () => {
        let sent = 0;
        for await (const c of body.chunks()) {
          // Answered (or failed) before the body was done, e.g. a 401: the rest is not sent and the
          // half-written request's connection is not reused.
          if (settled) return void r.destroy();
          sent += c.length;
          if (sent > body.length) throw new Error(`internal error: request body longer than its ${body.length} bytes`);
          if (!r.write(c)) await drainOrClose(r);
        }
        if (sent !== body.length) throw new Error(`internal error: request body of ${sent} bytes, ${body.length} announced`);
        r.end();
      })().catch((e: unknown) => {
        failWith(e);
        r.destroy();
      });
    });
  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent?.destroy();
    },
  };
}
