/**
 * What the controller reaches on the management network (release payloads, the image check in
 * the tenant's push registry) is decided here: never loopback, link-local (cloud metadata
 * included), private, shared (CGNAT), unspecified, multicast, broadcast or reserved addresses,
 * nor cluster-internal names (`localhost`, `*.svc`, `*.cluster.local`, single labels), unless an
 * allow-list entry from the provider's config names the host or the address (a mirror registry).
 *
 * Checked when connecting, not before: `NetGuard` is a `ConnectPolicy` for src/oci/http.ts. Its
 * `lookup` resolves the name once, refuses the connection if any answer is refused, and gives
 * the socket exactly the addresses it checked, so a name that answers differently the second
 * time (DNS rebinding) cannot slip past. Address literals never reach `lookup`: `checkUrl`
 * refuses them before a socket exists, and `checkAddress` checks every connected socket's peer.
 * Every redirect hop and token realm is a new request, so it is checked again.
 */
import * as dns from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ConnectPolicy, ConnectPolicyError } from 'pkogen/oci';

export type AddressKind =
  | 'public'
  | 'loopback'
  | 'link-local'
  | 'private'
  | 'shared'
  | 'unspecified'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

const KIND_TEXT: Record<AddressKind, string> = {
  public: 'a public address',
  loopback: 'a loopback address',
  'link-local': 'a link-local address (cloud metadata lives there)',
  private: 'a private address',
  shared: 'a shared (CGNAT, 100.64.0.0/10) address',
  unspecified: 'the unspecified address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  reserved: 'a reserved address',
};

/** One IP address as bytes: 4 for IPv4, 16 for IPv6. */
export type IpBytes = number[];

/**
 * An IPv4 address in any form the C library's `inet_aton` and the WHATWG URL parser accept:
 * one to four parts, each decimal, octal (`0` prefix) or hex (`0x` prefix), the last filling
 * the remaining bytes (`127.1`, `2130706433`, `0x7f.0.0.1`, `0177.0.0.1`); a trailing dot is
 * allowed. Undefined when it is not one.
 */
export function parseIPv4Loose(s: string): IpBytes | undefined {
  let t = s;
  if (t.endsWith('.') && t.length > 1) t = t.slice(0, -1);
  const parts = t.split('.');
  if (parts.length < 1 || parts.length > 4) return undefined;
  const nums: number[] = [];
  for (const p of parts) {
    let n: number;
    if (/^0[xX][0-9a-fA-F]*$/.test(p)) n = p.length === 2 ? 0 : parseInt(p.slice(2), 16);
    else if (/^0[0-7]+$/.test(p)) n = parseInt(p.slice(1), 8);
    else if (/^(0|[1-9][0-9]*)$/.test(p)) n = parseInt(p, 10);
    else return undefined;
    if (!Number.isFinite(n)) return undefined;
    nums.push(n);
  }
  const last = nums.pop()!;
  if (nums.some((n) => n > 255)) return undefined;
  const rest = 4 - nums.length;
  if (last >= 256 ** rest) return undefined;
  const out = [...nums];
  for (let i = rest - 1; i >= 0; i--) out.push(Math.floor(last / 256 ** i) % 256);
  return out;
}

/** True when a host would be taken as an IPv4 number by a URL parser (its last label is numeric). */
function looksNumeric(host: string): boolean {
  const labels = host.replace(/\.$/, '').split('.');
  const last = labels[labels.length - 1];
  return /^(0[xX][0-9a-fA-F]*|[0-9]+)$/.test(last);
}

/** An IPv6 address (optionally in brackets, with a zone), as 16 bytes; undefined when not one. */
export function parseIPv6(s: string): IpBytes | undefined {
  let t = s.startsWith('[') && s.endsWith(']') ? s.slice(1, -1) : s;
  const pct = t.indexOf('%');
  if (pct >= 0) t = t.slice(0, pct);
  if (isIP(t) !== 6) return undefined;
  // A dotted IPv4 tail (::ffff:127.0.0.1) becomes two groups.
  const lastColon = t.lastIndexOf(':');
  const tail = t.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = parseIPv4Loose(tail);
    if (!v4) return undefined;
    t = `${t.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const halves = t.split('::');
  if (halves.length > 2) return undefined;
  const groups = (x: string) => (x === '' ? [] : x.split(':').map((g) => parseInt(g, 16)));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  const all = halves.length === 2 ? [...head, ...new Array(8 - head.length - rest.length).fill(0), ...rest] : head;
  if (all.length !== 8 || all.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return undefined;
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** An address literal in any accepted form, as bytes (IPv4 loose forms included). */
export function parseIp(s: string): IpBytes | undefined {
  if (s.includes(':') || s.startsWith('[')) return parseIPv6(s);
  return parseIPv4Loose(s);
}

export function formatIp(b: IpBytes): string {
  if (b.length === 4) return b.join('.');
  const g: string[] = [];
  for (let i = 0; i < 16; i += 2) g.push(((b[i] << 8) | b[i + 1]).toString(16));
  return g.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

const inV4 = (b: IpBytes, net: IpBytes, bits: number) => prefixMatch(b, net, bits);

function prefixMatch(b: IpBytes, net: IpBytes, bits: number): boolean {
  if (b.length !== net.length) return false;
  for (let i = 0; i < bits; i++) {
    const byte = i >> 3;
    const mask = 0x80 >> (i & 7);
    if ((b[byte] & mask) !== (net[byte] & mask)) return false;
  }
  return true;
}

function classifyV4(b: IpBytes): AddressKind {
  if (inV4(b, [0, 0, 0, 0], 8)) return 'unspecified'; // "this network"; 0.0.0.0 connects to the host itself
  if (inV4(b, [127, 0, 0, 0], 8)) return 'loopback';
  if (inV4(b, [169, 254, 0, 0], 16)) return 'link-local';
  if (inV4(b, [10, 0, 0, 0], 8) || inV4(b, [172, 16, 0, 0], 12) || inV4(b, [192, 168, 0, 0], 16)) return 'private';
  if (inV4(b, [100, 64, 0, 0], 10)) return 'shared';
  if (inV4(b, [192, 0, 0, 0], 24)) return 'reserved'; // IETF protocol assignments
  if (inV4(b, [198, 18, 0, 0], 15)) return 'reserved'; // benchmarking
  if (inV4(b, [224, 0, 0, 0], 4)) return 'multicast';
  if (b.every((x) => x === 255)) return 'broadcast';
  if (inV4(b, [240, 0, 0, 0], 4)) return 'reserved';
  return 'public';
}

/**
 * What kind of address this is. IPv6 forms that carry an IPv4 address (IPv4-mapped
 * `::ffff:a.b.c.d`, the deprecated IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`) are judged
 * by that IPv4 address.
 */
export function classifyAddress(b: IpBytes): AddressKind {
  if (b.length === 4) return classifyV4(b);
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  if (zero(0, 16)) return 'unspecified';
  if (zero(0, 15) && b[15] === 1) return 'loopback';
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return classifyV4(b.slice(12));
  if (zero(0, 12)) return classifyV4(b.slice(12));
  if (prefixMatch(b, [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], 96)) return classifyV4(b.slice(12));
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0x80) return 'link-local';
  if ((b[0] & 0xfe) === 0xfc) return 'private';
  if (b[0] === 0xff) return 'multicast';
  if (b[0] === 0xfe && (b[1] & 0xc0) === 0xc0) return 'private'; // deprecated site-local fec0::/10
  return 'public';
}

/** Names that only mean something inside a cluster or on this host. */
export function internalNameReason(host: string): string | undefined {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost')) return 'a name for this host';
  if (h.endsWith('.svc') || h.endsWith('.cluster.local') || h === 'cluster.local') return 'a cluster-internal name';
  if (!h.includes('.')) return 'a single-label name (the cluster resolves it through its search domains)';
  return undefined;
}

export interface AllowEntry {
  raw: string;
  host?: string;
  /** `*.example.com` matches sub-names only. */
  suffix?: string;
  net?: { bytes: IpBytes; bits: number };
  port?: number;
}

/**
 * Parses allow-list entries: `10.0.0.0/8`, `fd00::/8`, `10.1.2.3`, `[fd00::1]`, `mirror.example`,
 * `*.mirror.example`, each optionally with `:port` (IPv6 in brackets) to allow that port only.
 */
export function parseAllowEntry(raw: string, index = 0): AllowEntry {
  const s = raw.trim();
  // Entries are config: errors name the entry's place in the list, not its value.
  const where = `allow-list entry ${index}`;
  let host = s;
  let port: number | undefined;
  const bracket = /^\[([^\]]+)\](?:\/(\d+))?(?::(\d+))?$/.exec(s);
  let bits: number | undefined;
  if (bracket) {
    host = bracket[1];
    if (bracket[2] !== undefined) bits = Number(bracket[2]);
    if (bracket[3] !== undefined) port = Number(bracket[3]);
  } else if (!s.includes('::') && (s.match(/:/g) ?? []).length === 1) {
    const i = s.lastIndexOf(':');
    host = s.slice(0, i);
    port = Number(s.slice(i + 1));
    if (!/^\d+$/.test(s.slice(i + 1))) throw new Error(`${where}: the port is not a number`);
  }
  const slash = host.indexOf('/');
  if (slash >= 0) {
    bits = Number(host.slice(slash + 1));
    host = host.slice(0, slash);
    if (!/^\d+$/.test(String(bits))) throw new Error(`${where}: the prefix length is not a number`);
  }
  if (port !== undefined && (!Number.isInteger(port) || port < 1 || port > 65535)) throw new Error(`${where}: port out of range`);
  const ip = isIP(host) ? parseIp(host) : undefined;
  if (ip) {
    const max = ip.length * 8;
    const b = bits ?? max;
    if (!Number.isInteger(b) || b < 0 || b > max) throw new Error(`${where}: prefix length out of range`);
    return { raw: s, net: { bytes: ip, bits: b }, ...(port !== undefined ? { port } : {}) };
  }
  if (bits !== undefined) throw new Error(`${where}: a prefix length needs an IP address`);
  const name = host.toLowerCase().replace(/\.$/, '');
  if (!/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(name)) throw new Error(`${where}: not a host name, address or CIDR`);
  if (name.startsWith('*.')) return { raw: s, suffix: name.slice(1), ...(port !== undefined ? { port } : {}) };
  return { raw: s, host: name, ...(port !== undefined ? { port } : {}) };
}

/** `absolute`: resolve the name as given, without search domains (the default for names not on the allow-list). */
export type Resolver = (hostname: string, o?: { absolute: boolean }) => Promise<{ address: string; family: number }[]>;

export interface NetGuardOptions {
  /** Hosts, addresses and CIDRs the provider allows although they are internal (a mirror registry). */
  allow?: string[];
  /**
   * How names are resolved (tests inject one). The default asks the system resolver for the
   * name made absolute (a trailing dot), so the cluster's search domains cannot turn a public
   * looking name into a Service of the HCP namespace; allow-listed names are resolved as given.
   */
  resolve?: Resolver;
}

function portOf(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}

const defaultResolver: Resolver = async (hostname, o = { absolute: true }) => {
  const name = !o.absolute || hostname.endsWith('.') ? hostname : `${hostname}.`;
  return dns.promises.lookup(name, { all: true, verbatim: true });
};

/** The guard: a ConnectPolicy that refuses internal destinations not on the allow-list. */
export class NetGuard implements ConnectPolicy {
  readonly allow: AllowEntry[];
  private readonly resolve: Resolver;

  constructor(opts: NetGuardOptions = {}) {
    this.allow = (opts.allow ?? []).map((e, i) => parseAllowEntry(e, i));
    this.resolve = opts.resolve ?? defaultResolver;
  }

  /** `port` undefined (not known): only entries without a port count. */
  private nameAllowed(host: string, port: number | undefined): boolean {
    const h = host.toLowerCase().replace(/\.$/, '');
    return this.allow.some((e) => (e.port === undefined || e.port === port) && (e.host === h || (e.suffix !== undefined && h.endsWith(e.suffix))));
  }

  private addressAllowed(b: IpBytes, port: number | undefined): boolean {
    const mapped = b.length === 16 && b.slice(0, 10).every((x) => x === 0) && b[10] === 0xff && b[11] === 0xff ? b.slice(12) : undefined;
    return this.allow.some(
      (e) => e.net && (e.port === undefined || e.port === port) && (prefixMatch(b, e.net.bytes, e.net.bits) || (mapped !== undefined && prefixMatch(mapped, e.net.bytes, e.net.bits))),
    );
  }

  /** Why connecting to this address (reached as `host`) is refused; undefined when allowed. */
  addressProblem(address: string, host: string, port: number | undefined): string | undefined {
    const b = parseIp(address);
    if (!b) return `${host} resolved to ${JSON.stringify(address)}, which is not an IP address`;
    const kind = classifyAddress(b);
    if (kind === 'public' || this.nameAllowed(host, port) || this.addressAllowed(b, port)) return undefined;
    const shown = formatIp(b);
    const via = shown === host.replace(/^\[|\]$/g, '') ? shown : `${host} (${shown})`;
    return `refusing to connect to ${via}${port === undefined ? '' : ` port ${port}`}: ${KIND_TEXT[kind]}, not on the allow-list`;
  }

  /** Why this host (a name or an address literal, as a URL carries it) is refused before any lookup. */
  hostProblem(host: string, port: number | undefined): string | undefined {
    const bare = host.startsWith('[') ? host.slice(1, -1) : host;
    const ip = parseIp(bare);
    if (ip) return this.addressProblem(bare, bare, port);
    if (looksNumeric(bare)) return `refusing to connect to ${JSON.stringify(host)}: it ends like an IPv4 number but is not a valid one`;
    if (this.nameAllowed(bare, port)) return undefined;
    const why = internalNameReason(bare);
    return why ? `refusing to connect to ${bare}${port === undefined ? '' : ` port ${port}`}: ${why}, not on the allow-list` : undefined;
  }

  checkUrl(url: URL): void {
    const p = this.hostProblem(url.hostname, portOf(url));
    if (p) throw new ConnectPolicyError(p);
  }

  checkAddress(address: string, url: URL): void {
    const p = this.addressProblem(address, url.hostname.replace(/^\[|\]$/g, ''), portOf(url));
    if (p) throw new ConnectPolicyError(p);
  }

  /**
   * Resolves `host` once and checks every answer (one refused answer refuses the name: a
   * resolver mixing a public and an internal address gets nothing); returns the checked answers.
   */
  async resolveChecked(host: string, port?: number): Promise<{ address: string; family: number }[]> {
    const p = this.hostProblem(host, port);
    if (p) throw new ConnectPolicyError(p);
    if (isIP(host)) return [{ address: host, family: isIP(host) }];
    // A name the provider allow-listed resolves as the provider expects (search domains included).
    const answers = await this.resolve(host, { absolute: !this.nameAllowed(host, port) });
    if (!answers.length) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    for (const a of answers) {
      const q = this.addressProblem(a.address, host, port);
      if (q) throw new ConnectPolicyError(q);
    }
    return answers.map((a) => ({ address: a.address, family: a.family }));
  }

  /**
   * A lookup function for sockets to `url`'s host and port: the socket connects to what it
   * answers, and it answers only addresses checked for that port.
   */
  lookupFor(url: URL): LookupFunction {
    return this.lookupOnPort(portOf(url));
  }

  /** For a bare net.connect: without a port, entries bound to a port do not count. */
  readonly lookup: LookupFunction = this.lookupOnPort(undefined);

  private lookupOnPort(port: number | undefined): LookupFunction {
    return (hostname, options, callback) => {
      const opts = (typeof options === 'number' ? { family: options } : (options ?? {})) as { family?: number | string; all?: boolean };
      const family = opts.family === 'IPv4' ? 4 : opts.family === 'IPv6' ? 6 : Number(opts.family ?? 0) || 0;
      this.resolveChecked(hostname, port).then(
        (got) => {
          const wanted = family ? got.filter((a) => a.family === family) : got;
          if (!wanted.length) return (callback as (e: NodeJS.ErrnoException) => void)(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
          if (opts.all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, wanted);
          else (callback as (e: null, a: string, f: number) => void)(null, wanted[0].address, wanted[0].family);
        },
        (e: NodeJS.ErrnoException) => (callback as (e: NodeJS.ErrnoException) => void)(e),
      );
    };
  }
}
