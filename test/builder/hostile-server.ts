/**
 * Hand-written hostile registries for the network-guard, release and image-check tests: plain
 * node:http on 127.0.0.1 only, every connection counted, every timer and socket owned by the
 * server so `close()` ends all of it.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HostileServer {
  port: number;
  host: string;
  /** TCP connections accepted so far. */
  connections: number;
  /** Requests seen, as `METHOD /path`. */
  log: string[];
  close(): Promise<void>;
  /** Timers the handler starts (slow drips); cleared on close. */
  timers: Set<NodeJS.Timeout>;
}

export async function startHostile(handler: (req: http.IncomingMessage, res: http.ServerResponse, s: HostileServer) => void): Promise<HostileServer> {
  const s: HostileServer = { port: 0, host: '', connections: 0, log: [], timers: new Set(), close: async () => {} };
  const server = http.createServer((req, res) => {
    s.log.push(`${req.method} ${req.url}`);
    handler(req, res, s);
  });
  server.on('connection', () => s.connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  s.port = (server.address() as AddressInfo).port;
  s.host = `127.0.0.1:${s.port}`;
  s.close = () =>
    new Promise<void>((r) => {
      for (const t of s.timers) clearInterval(t);
      s.timers.clear();
      server.closeAllConnections();
      server.close(() => r());
    });
  return s;
}

/**
 * Writes `body` one byte every `everyMs` (at most `maxBytes` bytes, then ends): a registry that
 * keeps a connection busy without ever finishing in time.
 */
export function drip(res: http.ServerResponse, s: HostileServer, body: Uint8Array, everyMs: number, maxBytes = 1000): void {
  let i = 0;
  const t = setInterval(() => {
    if (res.destroyed || i >= Math.min(body.length, maxBytes)) {
      clearInterval(t);
      s.timers.delete(t);
      if (!res.destroyed) res.end();
      return;
    }
    res.write(Buffer.from([body[i++]]));
  }, everyMs);
  s.timers.add(t);
}
