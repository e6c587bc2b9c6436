/** Small helpers the API test server's own tests share: raw HTTPS requests, Status checks, waiting. */
import * as https from 'node:https';
import type { ApiTestServer } from './api-server.js';

export interface RawResponse {
  status: number;
  body: any;
  text: string;
}

/** One HTTPS request to the server, trusting its CA; `token` undefined sends no Authorization header. */
export function raw(server: ApiTestServer, method: string, path: string, opts: { token?: string; body?: string | Buffer; contentType?: string } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    if (opts.body !== undefined) headers['content-type'] = opts.contentType ?? 'application/json';
    const req = https.request(`${server.url}${path}`, { method, ca: server.caPem, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown;
        try {
          body = JSON.parse(text);
        } catch {
          body = undefined;
        }
        resolve({ status: res.statusCode ?? 0, body, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    if (opts.body !== undefined) req.write(opts.body);
    req.end();
  });
}

/** The Kubernetes Status inside a client-node ApiException (its body is the response text). */
export async function statusOf(p: Promise<unknown>): Promise<{ code: number; reason?: string; message?: string; kind?: string }> {
  try {
    await p;
  } catch (e) {
    const err = e as { code?: number; body?: unknown };
    if (typeof err.code !== 'number') throw e;
    const body = typeof err.body === 'string' ? JSON.parse(err.body) : (err.body ?? {});
    return { ...(body as object), code: err.code };
  }
  throw new Error('expected the request to fail, but it succeeded');
}

/** Polls until `check` returns a value (not undefined); fails after ~10 s so a broken server cannot hang jest. */
export async function eventually<T>(check: () => T | undefined, what: string): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const v = check();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`gave up waiting for ${what}`);
}
