/**
 * The one HTTP seam of the registry client: node:http(s) with keep-alive, a timeout, a body size
 * ceiling, and no automatic redirects (the client decides what crosses origins).
 */
import * as http from 'node:http';
import * as https from 'node:https';
import * as tls from 'node:tls';

export interface HttpRequest {
  method: string;
  url: URL;
  headers?: Record<string, string>;
  body?: Uint8Array;
  /** Largest response body accepted (default 64 MiB). */
  maxBody?: number;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Uint8Array;
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

export interface NodeTransportOptions {
  /** Extra trusted CA certificates (PEM), on top of Node's defaults. */
  ca?: string | Buffer;
  /** Skip TLS certificate verification (only with --insecure). */
  insecureSkipVerify?: boolean;
  timeoutMs?: number;
}

export interface ClosableTransport {
  send: Transport;
  close(): void;
}

export function nodeTransport(opts: NodeTransportOptions = {}): ClosableTransport {
  const httpAgent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const httpsAgent = new https.Agent({
    keepAlive: true,
    maxSockets: 8,
    rejectUnauthorized: !opts.insecureSkipVerify,
    // Node replaces (not extends) the default roots when `ca` is set: add them back.
    ...(opts.ca ? { ca: [...tls.rootCertificates, String(opts.ca)] } : {}),
  });
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const send: Transport = (req) =>
    new Promise((resolve, reject) => {
      const isHttps = req.url.protocol === 'https:';
      const mod = isHttps ? https : http;
      const headers: Record<string, string> = { 'User-Agent': 'pkogen', ...(req.headers ?? {}) };
      if (req.body) headers['Content-Length'] = String(req.body.length);
      else if (req.method === 'PUT' || req.method === 'POST' || req.method === 'PATCH') headers['Content-Length'] = '0';
      const r = mod.request(req.url, { method: req.method, headers, agent: isHttps ? httpsAgent : httpAgent }, (res) => {
        const max = req.maxBody ?? 64 * 1024 * 1024;
        const chunks: Buffer[] = [];
        let n = 0;
        res.on('data', (c: Buffer) => {
          n += c.length;
          if (n > max) {
            res.destroy();
            reject(new NetworkError(`response from ${req.url.host} larger than ${max} bytes`, 'ETOOBIG'));
            return;
          }
          chunks.push(c);
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: new Uint8Array(Buffer.concat(chunks)) }));
        res.on('error', (e) => reject(new NetworkError(e.message, (e as NodeJS.ErrnoException).code)));
        res.on('aborted', () => reject(new NetworkError('connection closed mid-response', 'ECONNRESET')));
      });
      r.setTimeout(timeoutMs, () => r.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'ETIMEDOUT' })));
      r.on('error', (e) => reject(new NetworkError(e.message, (e as NodeJS.ErrnoException).code)));
      r.end(req.body ? Buffer.from(req.body.buffer, req.body.byteOffset, req.body.byteLength) : undefined);
    });
  return {
    send,
    close() {
      httpAgent.destroy();
      httpsAgent.destroy();
    },
  };
}
