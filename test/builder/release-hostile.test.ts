/**
 * a hostile release registry must not take the controller down. A hand-written
 * registry on 127.0.0.1 serves a gzip bomb, an oversized image-references, a layer whose bytes
 * do not match its digest, and manifests dripped one byte at a time; the resolver must end each
 * with a clear error, remember the failure with backoff, and keep other releases moving.
 */
import { gzipSync } from 'node:zlib';
import { UserError } from '../../pkogen/src/core/errors.js';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { Blob, Image } from '../../pkogen/src/oci/image.js';
import { MediaType } from '../../pkogen/src/oci/media-types.js';
import { writeTar } from '../../pkogen/src/oci/tar.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { ReleaseResolveError, ReleaseResolver, ResolverClock } from '../../builder/registry/release.js';
import { drip, HostileServer, startHostile } from './hostile-server.js';
import { file, imageReferences, layer } from './fixtures.js';

const D = (c: string) => `sha256:${c.repeat(64)}`;
const enc = new TextEncoder();
const tags = {
  'machine-config-operator': `quay.io/x/mco@${D('c')}`,
  'rhel-coreos': `quay.io/x/rhcos@${D('e')}`,
};

/** A tar header for one regular file of `size` bytes (the data is not included). */
function tarHeader(name: string, size: number): Uint8Array {
  const t = writeTar([{ name, type: 'file', data: new Uint8Array(0) }]).slice(0, 512);
  const sz = size.toString(8).padStart(11, '0');
  t.set(enc.encode(sz + '\0'), 124);
  t.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of t) sum += b;
  t.set(enc.encode(sum.toString(8).padStart(6, '0') + '\0 '), 148);
  return t;
}

function imageOf(layers: Blob[], arch = 'amd64'): Image {
  const config = new Blob(MediaType.OciConfig, enc.encode(JSON.stringify({ architecture: arch, os: 'linux', rootfs: { type: 'layers', diff_ids: [] } })));
  return Image.fromBlobs(config, layers);
}

interface Served {
  manifests: Map<string, Image>;
  blobs: Map<string, Uint8Array>;
  /** Overrides per path: drip, tamper. */
  dripManifests: Set<string>;
}

async function startRegistry(): Promise<HostileServer & { served: Served; add(img: Image): string }> {
  const served: Served = { manifests: new Map(), blobs: new Map(), dripManifests: new Set() };
  const s = await startHostile((req, res, srv) => {
    const url = req.url ?? '';
    if (url === '/v2/') return void res.end('{}');
    let m = /^\/v2\/ocp\/release\/manifests\/(.+)$/.exec(url);
    if (m) {
      const img = served.manifests.get(m[1]);
      if (!img) return void res.writeHead(404).end('{"errors":[{"code":"MANIFEST_UNKNOWN"}]}');
      res.writeHead(200, { 'Content-Type': img.manifestMediaType, 'Docker-Content-Digest': img.digest, 'Content-Length': img.manifest.length });
      if (served.dripManifests.has(m[1])) return drip(res, srv, img.manifest, 20);
      return void res.end(Buffer.from(img.manifest));
    }
    m = /^\/v2\/ocp\/release\/blobs\/(.+)$/.exec(url);
    const b = m && served.blobs.get(m[1]);
    if (!b) return void res.writeHead(404).end('{}');
    res.writeHead(200, { 'Content-Length': b.length });
    res.end(Buffer.from(b));
  });
  return Object.assign(s, {
    served,
    add(img: Image): string {
      served.manifests.set(img.digest, img);
      for (const b of img.blobs()) served.blobs.set(b.digest, b.bytes);
      return img.digest;
    },
  });
}

/** A clock the test moves; its timers fire only when the test says so. */
function fakeClock(): ResolverClock & { advance(ms: number): void; fire(): void; pending(): number } {
  let now = Date.UTC(2026, 10, 25, 0, 0, 0);
  const timers = new Map<number, { at: number; f: () => void }>();
  let id = 0;
  return {
    now: () => now,
    setTimeout: (f, ms) => {
      timers.set(++id, { at: now + ms, f });
      return id;
    },
    clearTimeout: (t) => void timers.delete(t as number),
    advance(ms: number) {
      now += ms;
    },
    fire() {
      for (const [k, t] of [...timers]) {
        timers.delete(k);
        t.f();
      }
    },
    pending: () => timers.size,
  };
}

async function errorOf(p: Promise<unknown>): Promise<UserError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected an error');
}

/** Waits (bounded) until `f` holds. */
async function until(f: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !f(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!f()) throw new Error('condition not reached');
}

let reg: Awaited<ReturnType<typeof startRegistry>>;
const spec = (digest: string) => `${reg.host}/ocp/release@${digest}`;
const ok = () => imageOf([layer([{ name: 'release-manifests', type: 'dir' }, file('release-manifests/image-references', imageReferences('4.20.1', tags))])]);

beforeAll(async () => {
  reg = await startRegistry();
});
afterAll(async () => {
  await reg?.close();
});

describe('a hostile release payload', () => {
  it('a gzip bomb is cut at the decompressed budget, streamed, never held', async () => {
    // 64 MiB of zeros inside one tar entry, gzipped to about 64 KiB; no image-references.
    const bomb = new Blob(MediaType.OciLayerGzip, gzipSync(Buffer.concat([tarHeader('big', 64 << 20), Buffer.alloc(64 << 20)])));
    expect(bomb.size).toBeLessThan(128 << 10);
    const digest = reg.add(imageOf([bomb]));
    const e = await errorOf(new ReleaseResolver({ maxUncompressedBytes: 8 << 20 }).resolve(spec(digest)));
    expect(e.message).toBe(`release ${spec(digest)}: its layers decompress to more than 8388608 bytes before release-manifests/image-references; refusing it`);
  });

  it('image-references larger than the document cap is refused without reading it', async () => {
    const big = imageReferences('4.20.1', { ...tags, filler: `quay.io/x/${'a'.repeat(5000)}@${D('1')}` });
    const digest = reg.add(imageOf([layer([file('release-manifests/image-references', big)])]));
    const e = await errorOf(new ReleaseResolver({ maxDocumentBytes: 4096 }).resolve(spec(digest)));
    expect(e.message).toBe(`release ${spec(digest)}: layer ${imageOf([layer([file('release-manifests/image-references', big)])]).layers[0].digest}: release-manifests/image-references is ${enc.encode(big).length} bytes, more than the 4096 allowed`);
  });

  it('decompression stops at the file: a layer that goes on for 16 MiB after it is read with a 64 KiB budget', async () => {
    const rest = Buffer.alloc(16 << 20, 7);
    const tar = writeTar([file('release-manifests/image-references', imageReferences('4.20.1', tags)), { name: 'padding', type: 'file', data: rest }]);
    const digest = reg.add(imageOf([new Blob(MediaType.OciLayerGzip, gzipSync(tar))]));
    // maxBytes (the old single budget, now the compressed one): the compressed layer is about 16 KiB.
    const r = await new ReleaseResolver({ maxUncompressedBytes: 64 << 10, maxBytes: 1 << 20 }).resolve(spec(digest));
    expect(r.baseOSImage).toBe(tags['rhel-coreos']);
  });

  it('the layer digest is still checked: bytes that are not the layer are refused', async () => {
    const good = ok();
    const digest = reg.add(good);
    const tampered = layer([file('release-manifests/image-references', imageReferences('4.20.1', { ...tags, 'rhel-coreos': `evil.example/x@${D('f')}` }))]);
    // Same length is not needed: the registry answers the descriptor's digest with other bytes.
    reg.served.blobs.set(good.layers[0].digest, tampered.bytes);
    const e = await errorOf(new ReleaseResolver().resolve(spec(digest)));
    expect(e.message).toMatch(new RegExp(`^release ${spec(digest).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: fetching blob ${good.layers[0].digest} .*: (got \\d+ bytes, manifest says \\d+|digest mismatch)`));
    reg.served.blobs.set(good.layers[0].digest, good.layers[0].bytes);
  });

  it('a failure is cached with exponential backoff: no request until it expires, then one try', async () => {
    const clock = fakeClock();
    const digest = reg.add(imageOf([layer([file('release-manifests/other', 'x')])]));
    const r = new ReleaseResolver({ clock, failureBackoffMs: 10_000, maxFailureBackoffMs: 30_000 });
    const first = await errorOf(r.resolve(spec(digest)));
    expect(first.message).toBe(`release ${spec(digest)}: the image has no file release-manifests/image-references; is it a release payload?`);
    const seen = reg.log.length;
    const again = await errorOf(r.resolve(spec(digest)));
    expect(again).toBeInstanceOf(ReleaseResolveError);
    expect(again.message).toBe(`release ${spec(digest)}: the image has no file release-manifests/image-references; is it a release payload? (failed 1 time; not tried again before 2026-11-25T00:00:10Z)`);
    expect(reg.log.length).toBe(seen);
    clock.advance(9_000);
    expect((await errorOf(r.resolve(spec(digest)))).message).toMatch(/\(failed 1 time; not tried again before 2026-11-25T00:00:10Z\)$/);
    expect(reg.log.length).toBe(seen);
    clock.advance(1_000);
    await errorOf(r.resolve(spec(digest)));
    expect(reg.log.length).toBeGreaterThan(seen);
    expect((await errorOf(r.resolve(spec(digest)))).message).toMatch(/\(failed 2 times; not tried again before 2026-11-25T00:00:30Z\)$/);
    clock.advance(20_000);
    await errorOf(r.resolve(spec(digest)));
    // Capped at 30 s.
    expect((await errorOf(r.resolve(spec(digest)))).message).toMatch(/\(failed 3 times; not tried again before 2026-11-25T00:01:00Z\)$/);
    // Another pull secret is another key: tried at once (an admin who fixed the secret is not made to wait).
    const before = reg.log.length;
    await errorOf(r.resolve(spec(digest), '{"auths":{}}'));
    expect(reg.log.length).toBeGreaterThan(before);
  });

  it('a registry that drips the manifest is cut by the per-resolve deadline, while other releases resolve', async () => {
    const clock = fakeClock();
    const slow = reg.add(imageOf([layer([file('release-manifests/image-references', imageReferences('4.20.9', tags))])]));
    reg.served.dripManifests.add(slow);
    const fast = reg.add(ok());
    const r = new ReleaseResolver({ clock, resolveTimeoutMs: 60_000 });
    const seen = reg.log.length;
    const a1 = r.resolve(spec(slow));
    const a2 = r.resolve(spec(slow), undefined, { arch: 'amd64' });
    // One in-flight resolve per key: both callers share it.
    expect(a2).toBe(a1);
    const aErr = errorOf(a1);
    await until(() => reg.log.slice(seen).some((l) => l.includes(`/manifests/${slow}`)));
    // The dripping release does not hold up another one.
    const b = await r.resolve(spec(fast));
    expect(b.baseOSImage).toBe(tags['rhel-coreos']);
    expect(reg.log.slice(seen).filter((l) => l.includes(`/manifests/${slow}`))).toHaveLength(1);
    // The slow one's deadline passes.
    clock.advance(60_000);
    clock.fire();
    const e = await aErr;
    expect(e.message).toBe(`release ${spec(slow)}: no result within 1m (the deadline of one release lookup)`);
    expect((await errorOf(r.resolve(spec(slow)))).message).toMatch(/\(failed 1 time; not tried again before 2026-11-25T00:01:10Z\)$/);
    reg.served.dripManifests.delete(slow);
  });

  it('with the real clock and a small budget, a drip ends in an error', async () => {
    const slow = reg.add(imageOf([layer([file('release-manifests/image-references', imageReferences('4.20.8', tags))])]));
    reg.served.dripManifests.add(slow);
    const e = await errorOf(new ReleaseResolver({ resolveTimeoutMs: 300 }).resolve(spec(slow)));
    expect(e.message).toMatch(new RegExp(`^release ${spec(slow).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: (no result within 300ms|.*the 300ms timeout)`));
    reg.served.dripManifests.delete(slow);
  });

  it('poll never waits: resolving, then ready, with onSettled told', async () => {
    const digest = reg.add(ok());
    const settled: boolean[] = [];
    const r = new ReleaseResolver({ onSettled: (_rel, okay) => settled.push(okay) });
    expect(r.poll(spec(digest))).toEqual({ state: 'resolving' });
    expect(r.poll(spec(digest))).toEqual({ state: 'resolving' });
    await until(() => settled.length > 0);
    expect(settled).toEqual([true]);
    const s = r.poll(spec(digest));
    expect(s.state).toBe('ready');
    expect(s.state === 'ready' && s.images.baseOSImage).toBe(tags['rhel-coreos']);
  });

  it('through the network guard: a release on loopback is refused unless allow-listed', async () => {
    const digest = reg.add(ok());
    const e = await errorOf(new ReleaseResolver({ connectPolicy: new NetGuard() }).resolve(spec(digest)));
    expect(e.message).toBe(`release ${spec(digest)}: refusing to connect to 127.0.0.1 port ${reg.port}: a loopback address, not on the allow-list`);
    const r = await new ReleaseResolver({ connectPolicy: new NetGuard({ allow: [`127.0.0.1:${reg.port}`] }) }).resolve(spec(digest));
    expect(r.baseOSImage).toBe(tags['rhel-coreos']);
  });
});

describe('the digest of every layer used', () => {
  it('is what the descriptor says', () => {
    const img = ok();
    expect(img.layers[0].digest).toBe(sha256Digest(img.layers[0].bytes));
  });
});
