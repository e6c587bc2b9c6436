/**
 * The network guard: address forms Node accepts, ranges, names, the allow-list, connect-time
 * checks (DNS rebinding, mixed answers) and registry redirects to internal hosts, against
 * hostile registries on 127.0.0.1.
 */
import * as net from 'node:net';
import { UserError } from '../../pkogen/src/core/errors.js';
import { ConnectPolicyError } from '../../pkogen/src/oci/http.js';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { classifyAddress, NetGuard, parseAllowEntry, parseIp, parseIPv4Loose, parseIPv6, Resolver } from '../../builder/registry/net-guard.js';
import { HostileServer, startHostile } from './hostile-server.js';

const kind = (s: string) => classifyAddress(parseIp(s)!);

describe('address forms', () => {
  it.each([
    ['127.0.0.1', [127, 0, 0, 1]],
    ['127.1', [127, 0, 0, 1]],
    ['2130706433', [127, 0, 0, 1]],
    ['0x7f000001', [127, 0, 0, 1]],
    ['0x7f.1', [127, 0, 0, 1]],
    ['0177.0.0.1', [127, 0, 0, 1]],
    ['0177.0.1', [127, 0, 0, 1]],
    ['10.0.258', [10, 0, 1, 2]],
    ['169.254.43518', [169, 254, 169, 254]],
    ['0xa9fea9fe', [169, 254, 169, 254]],
    ['127.0.0.1.', [127, 0, 0, 1]],
    ['0', [0, 0, 0, 0]],
  ])('IPv4 %s', (s, bytes) => {
    expect(parseIPv4Loose(s)).toEqual(bytes);
  });

  it('every IPv4 form here is one the WHATWG URL parser (what http.request is given) also reads', () => {
    for (const s of ['127.1', '2130706433', '0x7f000001', '0x7f.1', '0177.0.0.1', '10.0.258', '0xa9fea9fe']) {
      expect(parseIPv4Loose(new URL(`http://${s}/`).hostname)).toEqual(parseIPv4Loose(s));
    }
  });

  it.each(['256.0.0.1', '1.2.3.4.5', '4294967296', '08.0.0.1', '1..1', 'a.b.c.d', '', '0x', '1.2.3.0x1g'])('not IPv4: %s', (s) => {
    // '0x' alone is 0 for WHATWG; as a whole host it is taken as an address (0.0.0.0).
    if (s === '0x') expect(parseIPv4Loose(s)).toEqual([0, 0, 0, 0]);
    else expect(parseIPv4Loose(s)).toBeUndefined();
  });

  it('IPv6 forms', () => {
    expect(parseIPv6('::1')).toEqual([...new Array(15).fill(0), 1]);
    expect(parseIPv6('[::ffff:127.0.0.1]')).toEqual([...new Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIPv6('::ffff:7f00:1')).toEqual([...new Array(10).fill(0), 0xff, 0xff, 127, 0, 0, 1]);
    expect(parseIPv6('fe80::1%eth0')).toEqual([0xfe, 0x80, ...new Array(13).fill(0), 1]);
    expect(parseIPv6('2001:db8::')).toEqual([0x20, 0x01, 0x0d, 0xb8, ...new Array(12).fill(0)]);
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8]);
    expect(parseIPv6('1::2::3')).toBeUndefined();
    expect(parseIPv6('127.0.0.1')).toBeUndefined();
  });
});

describe('address ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.1.2', 'loopback'],
    ['2130706433', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['0xa9fea9fe', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf::1', 'link-local'],
    ['fd00:ec2::254', 'private'],
    ['fc00::1', 'private'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['::ffff:10.1.2.3', 'private'],
    ['100.64.0.1', 'shared'],
    ['100.127.255.255', 'shared'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['::', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['8.8.8.8', 'public'],
    ['172.32.0.1', 'public'],
    ['100.128.0.1', 'public'],
    ['2001:4860:4860::8888', 'public'],
    ['fec0::1', 'private'],
  ])('%s is %s', (s, k) => {
    expect(kind(s)).toBe(k);
  });
});

describe('names and the allow-list', () => {
  const g = new NetGuard({ allow: ['mirror.corp.example', '*.registry.corp.example', '10.20.0.0/16', '[fd00::5]:5000', '192.168.7.7:8443'] });

  it.each([
    ['localhost', 'a name for this host'],
    ['registry.localhost', 'a name for this host'],
    ['kube-apiserver', 'a single-label name'],
    ['image-registry.openshift-image-registry.svc', 'a cluster-internal name'],
    ['kube-apiserver.clusters-x.svc.cluster.local.', 'a cluster-internal name'],
    ['127.0.0.1', 'a loopback address'],
    ['2130706433', 'a loopback address'],
    ['0x7f.1', 'a loopback address'],
    ['[::ffff:169.254.169.254]', 'a link-local address'],
    ['169.254.169.254', 'link-local'],
    ['1.2.3.999', 'ends like an IPv4 number'],
  ])('%s is refused (%s)', (host, why) => {
    expect(g.hostProblem(host, 443)).toContain(why);
  });

  it('public names and addresses, and allow-listed ones, pass', () => {
    expect(g.hostProblem('quay.io', 443)).toBeUndefined();
    expect(g.hostProblem('8.8.8.8', 443)).toBeUndefined();
    expect(g.hostProblem('mirror.corp.example', 443)).toBeUndefined();
    expect(g.hostProblem('a.registry.corp.example', 443)).toBeUndefined();
    expect(g.hostProblem('registry.corp.example', 443)).toBeUndefined(); // not internal by name
    expect(g.addressProblem('10.20.3.4', 'x.example', 443)).toBeUndefined();
    expect(g.addressProblem('::ffff:10.20.3.4', 'x.example', 443)).toBeUndefined();
    expect(g.addressProblem('10.21.3.4', 'x.example', 443)).toContain('a private address');
    // A name on the allow-list may resolve to internal addresses: that is what it is for.
    expect(g.addressProblem('10.99.0.1', 'mirror.corp.example', 443)).toBeUndefined();
  });

  it('an entry with a port allows that port only', () => {
    expect(g.addressProblem('fd00::5', 'fd00::5', 5000)).toBeUndefined();
    expect(g.addressProblem('fd00::5', 'fd00::5', 22)).toBe('refusing to connect to fd00::5 port 22: a private address, not on the allow-list');
    expect(g.hostProblem('192.168.7.7', 8443)).toBeUndefined();
    expect(g.hostProblem('192.168.7.7', 6443)).toContain('a private address');
  });

  it('bad entries are refused with the entry named', () => {
    expect(() => parseAllowEntry('10.0.0.0/33')).toThrow('allow-list entry 0: prefix length out of range');
    expect(() => new NetGuard({ allow: ['quay.io', 'secret.example/99'] })).toThrow(/^allow-list entry 1: a prefix length needs an IP address$/);
    expect(() => parseAllowEntry('mirror:http')).toThrow('the port is not a number');
    expect(() => parseAllowEntry('a b')).toThrow('not a host name, address or CIDR');
    expect(() => parseAllowEntry('mirror.example/8')).toThrow('a prefix length needs an IP address');
    expect(parseAllowEntry('[fd00::]/8')).toEqual({ raw: '[fd00::]/8', net: { bytes: parseIp('fd00::'), bits: 8 } });
  });
});

function lookupOnce(g: NetGuard, host: string, all = true): Promise<unknown> {
  return new Promise((resolve, reject) => g.lookup(host, { all }, (e: Error | null, a: unknown) => (e ? reject(e) : resolve(a))));
}

describe('connect-time lookup', () => {
  it('checks every answer: one internal answer among public ones refuses the name', async () => {
    const g = new NetGuard({ resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '169.254.169.254', family: 4 }] });
    await expect(lookupOnce(g, 'mixed.example')).rejects.toThrow('refusing to connect to mixed.example (169.254.169.254): a link-local address');
  });

  it('answers only the checked addresses, in both callback forms', async () => {
    const g = new NetGuard({ resolve: async () => [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }] });
    expect(await lookupOnce(g, 'ok.example')).toEqual([{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }]);
    const one = await new Promise((r) => g.lookup('ok.example', { family: 6 }, (_e, a, f) => r([a, f])));
    expect(one).toEqual(['2606:2800:220:1::1', 6]);
  });

  it('DNS rebinding: each connection is checked on the answer it connects to', async () => {
    // The name answers a public address first and loopback afterwards.
    let calls = 0;
    const resolve: Resolver = async () => (++calls === 1 ? [{ address: '93.184.216.34', family: 4 }] : [{ address: '127.0.0.1', family: 4 }]);
    const g = new NetGuard({ resolve });
    await expect(lookupOnce(g, 'rebind.example')).resolves.toEqual([{ address: '93.184.216.34', family: 4 }]);
    await expect(lookupOnce(g, 'rebind.example')).rejects.toThrow(ConnectPolicyError);
    expect(calls).toBe(2);
  });

  it('a socket given the guard never connects to a name that resolves to loopback', async () => {
    const server = await startHostile((_q, r) => r.end('x'));
    try {
      const g = new NetGuard({ resolve: async () => [{ address: '127.0.0.1', family: 4 }] });
      const err = await new Promise<Error>((resolve) => {
        const s = net.connect({ host: 'innocent.example', port: server.port, lookup: g.lookup });
        s.on('connect', () => resolve(new Error('connected')));
        s.on('error', resolve);
      });
      expect(err).toBeInstanceOf(ConnectPolicyError);
      expect(err.message).toBe(`refusing to connect to innocent.example (127.0.0.1): a loopback address, not on the allow-list`);
      expect(server.connections).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('registry redirects through the guard', () => {
  const blob = new TextEncoder().encode('layer bytes');
  const d = { mediaType: 'application/octet-stream', digest: sha256Digest(blob), size: blob.length };
  let target: HostileServer;
  let registry: HostileServer;
  let redirectTo = '';

  beforeAll(async () => {
    target = await startHostile((_q, r) => r.end(Buffer.from(blob)));
    registry = await startHostile((q, r) => {
      if (q.url === '/v2/') return void r.end('{}');
      r.writeHead(307, { Location: redirectTo.replace('PORT', String(target.port)) });
      r.end();
    });
  });
  afterAll(async () => {
    await registry.close();
    await target.close();
  });

  const fetchVia = async (allow: string[], to: string, resolve?: Resolver) => {
    redirectTo = to;
    const c = new RegistryClient({ connectPolicy: new NetGuard({ allow, resolve }), attempts: 1, insecure: true });
    try {
      return await c.blob({ registry: registry.host, repository: 'ocp/release' }, d);
    } finally {
      c.close();
    }
  };

  it('control: with the internal host allowed, the redirect is followed', async () => {
    const before = target.connections;
    const b = await fetchVia(['127.0.0.1'], 'http://127.0.0.1:PORT/blob');
    expect(new TextDecoder().decode(b.bytes)).toBe('layer bytes');
    expect(target.connections).toBe(before + 1);
  });

  it.each([
    ['an address literal', 'http://127.0.0.1:PORT/blob', `refusing to connect to 127.0.0.1 port PORT: a loopback address, not on the allow-list`],
    ['a decimal IPv4 literal', 'http://2130706433:PORT/blob', `refusing to connect to 127.0.0.1 port PORT: a loopback address, not on the allow-list`],
    ['an IPv4-mapped IPv6 literal', 'http://[::ffff:127.0.0.1]:PORT/blob', `refusing to connect to ::ffff:7f00:1 port PORT: a loopback address, not on the allow-list`],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', 'refusing to connect to 169.254.169.254 port 80: a link-local address (cloud metadata lives there), not on the allow-list'],
    ['a Service name', 'https://kube-apiserver.clusters-x.svc:6443/', 'refusing to connect to kube-apiserver.clusters-x.svc port 6443: a cluster-internal name, not on the allow-list'],
    ['a name resolving to loopback', 'http://internal.example:PORT/blob', `refusing to connect to internal.example (127.0.0.1) port PORT: a loopback address, not on the allow-list`],
  ])('a redirect to %s is refused when only the first hop is allowed', async (_what, to, message) => {
    const before = target.connections;
    const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
    let err: unknown;
    try {
      await fetchVia([`127.0.0.1:${registry.port}`], to, resolve);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(message.replace('PORT', String(target.port)));
    expect(target.connections).toBe(before);
  });

  it('the registry itself is refused when not allowed (loopback)', async () => {
    await expect(fetchVia([], 'http://127.0.0.1:PORT/blob')).rejects.toThrow(`refusing to connect to 127.0.0.1 port ${registry.port}: a loopback address, not on the allow-list`);
  });
});
