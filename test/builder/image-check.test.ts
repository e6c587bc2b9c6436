/**
 * The registry-side check of a built image before hand-off: against Debian's docker-registry
 * (basic auth) for what a real registry answers (the base found by blob digests, or by diff_ids
 * when the push recompressed its layers; squashed, foreign and malformed images refused), and
 * against hand-written hostile registries on 127.0.0.1 for an oversized manifest, bytes that do
 * not match the digest, and a manifest dripped one byte at a time. test/builder/
 * build-pod-registries.test.ts runs a real buildah push to another registry than the base's.
 */
import * as http from 'node:http';
import { gunzipSync, gzipSync } from 'node:zlib';
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

/** The uncompressed digest of a gzip layer: what its config's rootfs.diff_ids entry claims. */
const diffId = (l: Blob) => sha256Digest(gunzipSync(l.bytes));

/** An image whose config lists `diffIds` (default: the true ones); `pad` bytes of padding make a large config. */
function image(layers: Blob[], arch = 'amd64', o: { diffIds?: unknown[]; pad?: number } = {}): Image {
  const cfg = { architecture: arch, os: 'linux', rootfs: { type: 'layers', diff_ids: o.diffIds ?? layers.map(diffId) }, ...(o.pad ? { comment: 'x'.repeat(o.pad) } : {}) };
  return Image.fromBlobs(new Blob(MediaType.OciConfig, enc.encode(JSON.stringify(cfg))), layers);
}

/** The same tar in another gzip stream, as buildah writes a base layer it pushes to another registry. */
function recompressed(l: Blob): Blob {
  const r = new Blob(MediaType.OciLayerGzip, gzipSync(gunzipSync(l.bytes), { level: 1 }));
  expect(r.digest).not.toBe(l.digest);
  return r;
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
/** Config blob sizes of what beforeAll pushed. */
const configSize: Record<string, number> = {};

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
      configSize[name] = img.config.size;
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
    // Pushed to another registry: the base's layers recompressed, the same content.
    await put('recompressed', image([recompressed(L1), recompressed(L2), L3]), 'tenant/os:build-4');
    // `buildah bud --squash`: base and build in one layer.
    await put('squashed', image([layer([file('usr/lib/os-release', 'ID=rhcos\n'), file('usr/bin/rpm-ostree', 'x'), file('usr/bin/tool', 'built')])]), 'tenant/os:build-5');
    // diff_ids that leave a layer unclaimed: one short, and none at all (a naive image producer).
    await put('shortClaims', image([recompressed(L1), L2, L3], 'amd64', { diffIds: [diffId(L1), diffId(L2)] }), 'tenant/os:build-6');
    await put('noClaims', image([L1, L2, L3], 'amd64', { diffIds: [] }), 'tenant/os:build-7');
    await put('badClaim', image([recompressed(L1), L2, L3], 'amd64', { diffIds: [diffId(L1), 'sha512:abc', diffId(L3)] }), 'tenant/os:build-8');
    // A config over the 4 MiB default cap.
    await put('bigConfig', image([recompressed(L1), L2, L3], 'amd64', { pad: (4 << 20) + 1 }), 'tenant/os:build-9');
    // Over pkogen/oci's 8 MiB ceiling for configs.
    await put('hugeConfig', image([recompressed(L1), L2, L3], 'amd64', { pad: (8 << 20) + 1 }), 'tenant/os:build-10');
    // A base whose config claims nothing: the blobs must match, content cannot be compared.
    await put('baseNoClaims', image([L1, L2], 'amd64', { diffIds: [] }), 'ocp/rhcos:no-claims');
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
      baseMatch: 'blobs',
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

  it("the base's layers recompressed (a push to another registry): Verified by content, the config's diff_ids", async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.recompressed) }))).toEqual({
      ok: true,
      reason: 'Verified',
      message: `${at('tenant/os', d.recompressed)}: linux/amd64, 3 layers on its base's 2 (the same content in recompressed blobs)`,
      manifestDigest: d.recompressed,
      layers: 3,
      baseLayers: 2,
      baseMatch: 'diffIds',
    });
    // The base by its index too (its arch's config is compared).
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.recompressed), baseImageRef: at('ocp/rhcos', d.baseIndex) }))).reason).toBe('Verified');
  });

  const why = "an image built FROM another base, or with --squash (which merges the base's layers into its own: refused, since nothing would show the base any more)";

  it('layers that do not begin with the base: NotFromBase, by content', async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.stranger) }))).toEqual({
      ok: false,
      reason: 'NotFromBase',
      message: `${at('tenant/os', d.stranger)}: the content of its layer 0 is ${diffId(L9)}, the base image ${at('ocp/rhcos', d.base)} has ${diffId(L1)} there (rootfs.diff_ids): ${why}`,
    });
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.short) }))).toEqual({
      ok: false,
      reason: 'NotFromBase',
      message: `${at('tenant/os', d.short)}: it has 1 layer, fewer than the 2 of its base image ${at('ocp/rhcos', d.base)}: ${why}`,
    });
  });

  it('a squashed build (base and build merged into one layer): refused by design, saying why', async () => {
    const r = await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.squashed) }));
    expect(r).toEqual({ ok: false, reason: 'NotFromBase', message: `${at('tenant/os', d.squashed)}: it has 1 layer, fewer than the 2 of its base image ${at('ocp/rhcos', d.base)}: ${why}` });
  });

  it("a layer its config's diff_ids do not claim: LayerCountMismatch; a claim that is not a sha256 digest: Invalid", async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.shortClaims) }))).toEqual({
      ok: false,
      reason: 'LayerCountMismatch',
      message: `${at('tenant/os', d.shortClaims)}: its manifest has 3 layers but its config lists 2 diff_ids`,
    });
    // Even with the base's very blobs: a node would not check an unclaimed layer's content.
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.noClaims) }))).reason).toBe('LayerCountMismatch');
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.badClaim) }))).toEqual({
      ok: false,
      reason: 'Invalid',
      message: `${at('tenant/os', d.badClaim)}: its config's rootfs.diff_ids[1] is not a sha256:<64 hex> digest`,
    });
  });

  it('a config over the cap (4 MiB by default, never above pkogen/oci\'s 8 MiB): TooLarge; more layers than allowed: TooLarge', async () => {
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.bigConfig) }))).toEqual({
      ok: false,
      reason: 'TooLarge',
      message: `${at('tenant/os', d.bigConfig)}: its config is ${configSize.bigConfig} bytes, more than the 4194304 allowed`,
    });
    expect((await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.bigConfig), maxConfigBytes: 6 << 20 }))).reason).toBe('Verified');
    // A cap above pkogen/oci's ceiling (8 MiB) is held at the ceiling.
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.hugeConfig), maxConfigBytes: 1 << 30 }))).toEqual({
      ok: false,
      reason: 'TooLarge',
      message: `${at('tenant/os', d.hugeConfig)}: its config is ${configSize.hugeConfig} bytes, more than the 8388608 allowed`,
    });
    expect(await verifyBuiltImage(opts({ maxLayers: 2 }))).toEqual({ ok: false, reason: 'TooLarge', message: `${at('tenant/os', d.built)}: it has 3 layers, more than the 2 allowed` });
  });

  it('a base whose config claims no diff_ids: its blobs must match, content cannot be compared (BaseUnavailable)', async () => {
    expect((await verifyBuiltImage(opts({ baseImageRef: at('ocp/rhcos', d.baseNoClaims) }))).reason).toBe('Verified');
    expect(await verifyBuiltImage(opts({ pushRef: at('tenant/os', d.recompressed), baseImageRef: at('ocp/rhcos', d.baseNoClaims) }))).toEqual({
      ok: false,
      reason: 'BaseUnavailable',
      message: `the base image ${at('ocp/rhcos', d.baseNoClaims)}: its manifest has 2 layers but its config lists 0 diff_ids`,
    });
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

  it("a config the manifest says is larger than the cap: TooLarge, and the config blob is never requested", async () => {
    const cfg = { mediaType: MediaType.OciConfig, digest: `sha256:${'c'.repeat(64)}`, size: 9 << 20 };
    const manifest = Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType: MediaType.OciManifest, config: cfg, layers: [L1.descriptor()] }));
    const digest = sha256Digest(manifest);
    behaviour = (res) => {
      res.writeHead(200, { 'Content-Type': MediaType.OciManifest });
      res.end(manifest);
    };
    const seen = h.log.length;
    const r = await verifyBuiltImage(hopts({ pushRef: `${h.host}/tenant/os@${digest}`, maxConfigBytes: 1 << 30 }));
    expect(r).toEqual({ ok: false, reason: 'TooLarge', message: `${h.host}/tenant/os@${digest}: its config is ${9 << 20} bytes, more than the 8388608 allowed` });
    expect(h.log.slice(seen).filter((l) => l.includes('/blobs/'))).toEqual([]);
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
