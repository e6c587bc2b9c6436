/**
 * The transport's additive seams: a body sink (streamed 2xx bodies, early stop, back-pressure,
 * its own errors kept as they are), a connect policy (refused before any socket, never retried),
 * and a Deadline on an injected clock. Against node:http servers on 127.0.0.1.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UserError } from '../../src/core/errors.js';
import { ConnectPolicy, ConnectPolicyError, Deadline, nodeTransport } from '../../src/oci/http.js';
import { RegistryClient } from '../../src/oci/registry-client.js';

let server: http.Server;
let port = 0;
let connections = 0;
const big = Buffer.alloc(1 << 20, 5);

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/missing') return void res.writeHead(404).end('{"errors":[{"code":"NOT_FOUND","message":"nope"}]}');
    res.writeHead(200, { 'Content-Length': big.length });
    // Written in pieces so a client that stops early leaves some unsent.
    let i = 0;
    const next = () => {
      while (i < big.length) {
        const ok = res.write(big.subarray(i, i + 16384));
        i += 16384;
        if (!ok) return void res.once('drain', next);
      }
      res.end();
    };
    next();
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

describe('body sink', () => {
  it('gets every byte of a 2xx body, which is then not kept', async () => {
    const t = nodeTransport();
    let n = 0;
    const res = await t.send({ method: 'GET', url: new URL(`http://127.0.0.1:${port}/blob`), sink: (c) => void (n += c.length) });
    t.close();
    expect([res.status, res.body.length, res.stopped, n]).toEqual([200, 0, undefined, big.length]);
  });

  it("'stop' ends the download early; a promise pauses it", async () => {
    const t = nodeTransport();
    let n = 0;
    const res = await t.send({
      method: 'GET',
      url: new URL(`http://127.0.0.1:${port}/blob`),
      sink: async (c) => {
        n += c.length;
        await new Promise((r) => setImmediate(r));
        return n >= 64 << 10 ? 'stop' : undefined;
      },
    });
    t.close();
    expect(res.stopped).toBe(true);
    expect(n).toBeGreaterThanOrEqual(64 << 10);
    expect(n).toBeLessThan(big.length);
  });

  it("the sink's own error fails the request as it is", async () => {
    const t = nodeTransport();
    const err = new UserError('the consumer says no');
    await expect(
      t.send({
        method: 'GET',
        url: new URL(`http://127.0.0.1:${port}/blob`),
        sink: () => {
          throw err;
        },
      }),
    ).rejects.toBe(err);
    t.close();
  });

  it('an error status is buffered, not streamed', async () => {
    const t = nodeTransport();
    let called = false;
    const res = await t.send({ method: 'GET', url: new URL(`http://127.0.0.1:${port}/missing`), sink: () => void (called = true) });
    t.close();
    expect([res.status, called]).toEqual([404, false]);
    expect(new TextDecoder().decode(res.body)).toContain('NOT_FOUND');
  });
});

describe('connect policy', () => {
  const refuseAll: ConnectPolicy = {
    checkUrl: (u) => {
      throw new ConnectPolicyError(`no to ${u.host}`);
    },
    lookupFor: () => () => {
      throw new Error('not reached');
    },
    checkAddress: () => {},
  };

  it('is asked before any socket, and the registry client does not retry its refusal', async () => {
    const before = connections;
    let sleeps = 0;
    const c = new RegistryClient({ connectPolicy: refuseAll, sleep: async () => void sleeps++ });
    await expect(c.exists({ registry: `127.0.0.1:${port}`, repository: 'a/b', tag: 't' })).rejects.toThrow(`no to 127.0.0.1:${port}`);
    c.close();
    expect([connections - before, sleeps]).toEqual([0, 0]);
  });

  it('checkAddress sees the connected peer and can refuse it', async () => {
    const seen: string[] = [];
    const t = nodeTransport({
      connectPolicy: {
        checkUrl: () => {},
        // Answers in the form asked for (`all` with Node's happy-eyeballs connect).
        lookupFor: () => (_h, o, cb) =>
          (o as { all?: boolean }).all
            ? (cb as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address: '127.0.0.1', family: 4 }])
            : (cb as (e: null, a: string, f: number) => void)(null, '127.0.0.1', 4),
        checkAddress: (a) => {
          seen.push(a);
          throw new ConnectPolicyError(`peer ${a} refused`);
        },
      },
    });
    await expect(t.send({ method: 'GET', url: new URL(`http://registry.example:${port}/blob`) })).rejects.toThrow('peer 127.0.0.1 refused');
    t.close();
    expect(seen).toEqual(['127.0.0.1']);
  });
});

describe('Deadline with an injected clock', () => {
  it('counts from its start on that clock', () => {
    let now = 1000;
    const d = new Deadline(500, now, () => now);
    expect(d.remaining()).toBe(500);
    now = 1400;
    expect([d.remaining(), d.expired()]).toEqual([100, false]);
    now = 1600;
    expect([d.remaining(), d.expired()]).toEqual([0, true]);
  });
});
