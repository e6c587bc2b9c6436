/**
 * The registry-side check of a built image before hand-off: against Debian's docker-registry
 * (basic auth) for what a real registry answers, and against hand-written hostile registries on
 * 127.0.0.1 for an oversized manifest, bytes that do not match the digest, and a manifest
 * dripped one byte at a time.
 */
import * as http from 'node:http';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { Blob, Image } from '../../pkogen/src/oci/image.js';
import { MediaType } from '../../pkogen/src/oci/media-types.js';
import { parseReference } from '../../pkogen/src/oci/reference.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { verifyBuiltImage, VerifyBuiltImageOptions } from '../../builder/registry/image-check.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { cleanupRegistry, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { drip, HostileServer, startHostile } from './hostile-server.js';
import { file, layer } from './fixtures.js';

const enc = new TextEncoder();

function image(layers: Blob[], arch = 'amd64'): Image {
  const config = new Blob(MediaType.OciConfig, enc.encode(JSON.stringify({ architecture: arch, os: 'linux', rootfs: { type: 'layers', diff_ids: [] } })));
  return Image.fromBlobs(config, layers);
}

const L1 = layer([file('usr/lib/os-release', 'ID=rhcos\n')]);
const L2 = layer([file('usr/bin/rpm-ostree', 'x')]);
const L3 = layer([file('usr/bin/tool', 'built')]);
const L9 = layer([file('usr/bin/other', 'not the base')]);

let reg: TestRegistry;
let guard: NetGuard;
const creds = async () => ({ username: reg.user, password: reg.password });
const at = (repo: string, digest: string) => `${reg.host}/${repo}@${digest}`;
const d: Record<string, string> = {};

function putIndex(repo: string, tag: string, entries: { image: Image; arch: string }[]): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaType.OciIndex,
      manifests: entries.map(({ image: i, arch }) => ({ mediaType: MediaType.OciManifest, digest: i.digest, size: i.manifest.length, platform: { architecture: arch, os: 'linux' } })),
    }),
  );
  return new Promise((resolve, reject) => {
    const auth = `Basic ${Buffer.from(`${reg.user}:${reg.password}`).toString('base64')}`;
    const req = http.request({ host: '127.0.0.1', port: reg.port, method: 'PUT', path: `/v2/${repo}/manifests/${tag}`, headers: { 'Content-Type': MediaType.OciIndex, Authorization: auth } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 201 ? resolve(sha256Digest(body)) : reject(new Error(`HTTP ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  reg = await startRegistry('basic');
  guard = new NetGuard({ allow: [reg.host] });
  const c = new RegistryClient({ credentials: creds });
  try {
    const put = async (name: string, img: Image, ref: string) => {
      await c.push(img, [parseReference(`${reg.host}/${ref}`)]);
      d[name] = img.digest;
    };
    await put('base', image([L1, L2]), 'ocp/rhcos:base');
    const baseArm = image([L1, L2], 'arm64');
    await put('baseArm', baseArm, 'ocp/rhcos:base-arm64');
    d.baseIndex = await putIndex('ocp/rhcos', 'multi', [
      { image: image([L1, L2]), arch: 'amd64' },
      { image: baseArm, arch: 'arm64' },
    ]);
    await put('built', image([L1, L2, L3]), 'tenant/os:build-1');
    await put('builtArm', image([L1, L2, L3], 'arm64'), 'tenant/os:build-arm');
    await put('stranger', image([L9, L3]), 'tenant/os:build-2');
    await put('short', image([L1]), 'tenant/os:build-3');
    d.builtIndex = await putIndex('tenant/os', 'build-multi', [{ image: image([L1, L2, L3], 'arm64'), arch: 'arm64' }]);
  } finally {
    c.close();
  }
});

afterAll(async () => {
  await cleanupRegistry(reg);
});

const opts = (o: Partial<VerifyBuiltImageOptions>): VerifyBuiltImageOptions => ({
  pushRef: at('tenant/os', d.built),
  arch: 'amd64',
  baseImageRef: at('ocp/rhcos', d.base),
  credentials: creds,
  connectPolicy: guard,
  ...o,
});

describe('verifyBuiltImage against a registry', () => {
  it('an image built FROM the base, for the architecture, at that digest: Verified', async () => {
    expect(await verifyBuiltImage(opts({}))).toEqual({
      ok: true,
      reason: 'Verified',
      message: `${at('tenant/os', d.built)}: linux/amd64, 3 layers on its base's 2`,
      manifestDigest: d.built,
      layers: 3,
      baseLayers: 2,
    });
    // The base by its multi-arch index: the arch's manifest is compared.
    expect((await verifyBuiltImage(opts({ baseImageRef: at('ocp/rhcos', d.baseIndex) }))).reason).toBe('Verified');
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.builtArm), arch: 'arm64', baseImageRef: at('ocp/rhcos', d.baseIndex) }))).reason).toBe('Verified');
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.builtIndex), arch: 'arm64', baseImageRef: at('ocp/rhcos', d.baseIndex) }))).reason).toBe('Verified');
  });

  it('a digest the registry does not have: NotFound', async () => {
    const missing = `sha256:${'0'.repeat(64)}`;
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', missing) }))).toEqual({
      ok: false,
      reason: 'NotFound',
      message: `${at('tenant/os', missing)}: the registry has no manifest with this digest`,
    });
  });

  it('another architecture: WrongArchitecture, from the config or from the index', async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.builtArm) }))).toEqual({
      ok: false,
      reason: 'WrongArchitecture',
      message: `${at('tenant/os', d.builtArm)}: it is a linux/arm64 image; the NodePool is linux/amd64`,
    });
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.builtIndex) }))).toEqual({
      ok: false,
      reason: 'WrongArchitecture',
      message: `${at('tenant/os', d.builtIndex)}: the image index has no linux/amd64 entry (it has linux/arm64)`,
    });
  });

  it('layers that do not begin with the base: NotFromBase', async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.stranger) }))).toEqual({
      ok: false,
      reason: 'NotFromBase',
      message: `${at('tenant/os', d.stranger)}: layer 0 is ${L9.digest}, the base image ${at('ocp/rhcos', d.base)} has ${L1.digest} there`,
    });
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.short) }))).reason).toBe('NotFromBase');
  });

  it('references not by digest, wrong credentials, an unreadable base: typed, and no secret in the message', async () => {
    expect((await verifyBuiltImage(opts({ pushRef: `${reg.host}/tenant/os:build-1` }))).reason).toBe('InvalidReference');
    const bad = await verifyBuiltImage(opts({ credentials: async () => ({ username: reg.user, password: 'not-the-password-123' }) }));
    expect(bad.reason).toBe('Unauthorized');
    expect(bad.message).not.toContain('not-the-password-123');
    expect(bad.message).not.toContain(reg.password!);
    const noBase = await verifyBuiltImage(opts({ baseImageRef: at('ocp/rhcos', `sha256:${'1'.repeat(64)}`) }));
    expect(noBase.reason).toBe('BaseUnavailable');
  });

  it('the push registry is the tenant\'s: the guard refuses it on loopback unless allow-listed', async () => {
    const r = await verifyBuiltImage(opts({ connectPolicy: undefined }));
    expect(r).toEqual({ ok: false, reason: 'Refused', message: `checking ${at('tenant/os', d.built)}: refusing to connect to 127.0.0.1 port ${reg.port}: a loopback address, not on the allow-list` });
  });
});

describe('verifyBuiltImage against hostile registries', () => {
  let h: HostileServer;
  let behaviour: (res: http.ServerResponse, s: HostileServer) => void = () => {};
  const served = image([L1, L2, L3]);
  beforeAll(async () => {
    h = await startHostile((req, res, s) => {
      if (req.url === '/v2/') return void res.end('{}');
      behaviour(res, s);
    });
  });
  afterAll(async () => {
    await h.close();
  });
  const hopts = (o: Partial<VerifyBuiltImageOptions>): VerifyBuiltImageOptions => ({
    pushRef: `${h.host}/tenant/os@${served.digest}`,
    arch: 'amd64',
    baseImageRef: at('ocp/rhcos', d.base),
    credentials: creds,
    connectPolicy: new NetGuard({ allow: [reg.host, h.host] }),
    sleep: async () => {},
    ...o,
  });

  it('a manifest bigger than the cap: TooLarge, after reading no more than the cap', async () => {
    const big = Buffer.alloc(3 << 20, 0x20);
    behaviour = (res) => {
      res.writeHead(200, { 'Content-Type': MediaType.OciManifest });
      res.end(big);
    };
    const r = await verifyBuiltImage(hopts({ maxManifestBytes: 1 << 20 }));
    expect(r.reason).toBe('TooLarge');
    expect(r.message).toMatch(/larger than 1048576 bytes/);
  });

  it('bytes that do not hash to the digest: DigestMismatch', async () => {
    behaviour = (res) => {
      res.writeHead(200, { 'Content-Type': MediaType.OciManifest });
      res.end(Buffer.from(image([L9]).manifest));
    };
    const r = await verifyBuiltImage(hopts({}));
    expect(r.reason).toBe('DigestMismatch');
  });

  it('a manifest dripped a byte at a time: Timeout at the deadline (injected clock)', async () => {
    let fire: (() => void) | undefined;
    let now = 0;
    const clock = { now: () => now, setTimeout: (f: () => void) => ((fire = f), 1), clearTimeout: () => {} };
    behaviour = (res, s) => {
      res.writeHead(200, { 'Content-Type': MediaType.OciManifest });
      drip(res, s, served.manifest, 20);
    };
    const seen = h.log.length;
    const p = verifyBuiltImage(hopts({ clock, timeoutMs: 60_000 }));
    for (let i = 0; i < 200 && !h.log.slice(seen).some((l) => l.includes('/manifests/')); i++) await new Promise((r) => setTimeout(r, 10));
    now += 60_000;
    fire!();
    expect(await p).toEqual({ ok: false, reason: 'Timeout', message: `checking ${h.host}/tenant/os@${served.digest}: no answer within 1m` });
  });

  it('a manifest dripped a byte at a time with a small real deadline: Timeout', async () => {
    behaviour = (res, s) => {
      res.writeHead(200, { 'Content-Type': MediaType.OciManifest });
      drip(res, s, served.manifest, 20);
    };
    const r = await verifyBuiltImage(hopts({ timeoutMs: 250 }));
    expect(r.reason).toBe('Timeout');
  });
});
