/**
 * `pkogen push`: an image already built (OCI layout or docker archive) goes to a real
 * docker-registry unchanged (same digest as built, readable by skopeo), blobs the registry has are
 * not sent again, a corrupted layer is refused before any tag is written, and bad usage exits 2.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { createCipheriv } from 'node:crypto';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { copyFixturePackage, pkogen } from './cli-harness.js';
import { cleanupRegistry, run, startProxy, startRegistry, TestProxy, TestRegistry } from './registry-harness.js';

let reg: TestRegistry;
let proxy: TestProxy | undefined;
let tmp: string;
let layout: string;
let archive: string;
let digest: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-push-'));
  const pkg = copyFixturePackage('test-stub', path.join(tmp, 'pkg'));
  layout = path.join(tmp, 'layout');
  archive = path.join(tmp, 'image.tar');
  const built = await pkogen(['build', pkg, '-t', 'localhost/push/src:v1', '--oci-layout', layout, '--output-file', archive, '-o', 'digest']);
  expect(built).toMatchObject({ code: 0 });
  digest = built.stdout.trim();
  reg = await startRegistry('http');
});
afterAll(async () => {
  await cleanupRegistry(reg);
  rmSync(tmp, { recursive: true, force: true });
});
afterEach(async () => {
  await proxy?.close();
  proxy = undefined;
});

const inspect = (ref: string) => JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', `docker://${ref}`])) as { Digest: string };

it('pushes an OCI layout unchanged: the digest pkogen build printed, to every tag', async () => {
  const r = await pkogen(['push', '--oci-layout', layout, `${reg.host}/push/layout:v1`, `${reg.host}/push/layout:latest`, '-o', 'digest']);
  expect(r).toEqual({ code: 0, stdout: `${digest}\n`, stderr: '' });
  expect(inspect(`${reg.host}/push/layout:v1`).Digest).toBe(digest);
  expect(inspect(`${reg.host}/push/layout:latest`).Digest).toBe(digest);
});

it('sends no blob the registry already has (HEAD first), and says so', async () => {
  proxy = await startProxy(reg.port, () => 'pass');
  const first = await pkogen(['push', '--oci-layout', layout, `${proxy.host}/push/again:v1`]);
  expect(first.stdout).toBe(`Pushed ${digest} (2 blobs uploaded, 0 already present, 0 mounted)\n`);
  // The two blobs go up concurrently; the registry is pinged once for both.
  expect(proxy.log.filter((l) => l === 'GET /v2/')).toHaveLength(1);
  const before = proxy.log.length;
  const second = await pkogen(['push', '--oci-layout', layout, `${proxy.host}/push/again:v2`]);
  expect(second.stdout).toBe(`Pushed ${digest} (0 blobs uploaded, 2 already present, 0 mounted)\n`);
  expect(proxy.log.slice(before).some((l) => /^(POST|PUT) \/v2\/push\/again\/blobs\//.test(l))).toBe(false);
});

it('pushes a docker archive (the Docker manifest it holds, same config and layer)', async () => {
  const r = await pkogen(['push', '--archive', archive, '--image', 'localhost/push/src:v1', `${reg.host}/push/archive:v1`, '-o', 'digest']);
  expect(r.code).toBe(0);
  expect(inspect(`${reg.host}/push/archive:v1`).Digest).toBe(r.stdout.trim());
});

it('refuses a layout whose layer does not match its digest, and writes no tag', async () => {
  const bad = path.join(tmp, 'bad-layout');
  run('cp', ['-r', layout, bad]);
  const blobs = path.join(bad, 'blobs', 'sha256');
  // the layer is the largest blob; flip its last byte (same size, other digest)
  const layer = readdirSync(blobs).map((f) => path.join(blobs, f)).sort((a, b) => statSync(b).size - statSync(a).size)[0]!;
  const bytes = readFileSync(layer);
  bytes[bytes.length - 1] ^= 0xff;
  writeFileSync(layer, bytes);
  // Through a proxy that records every layer PUT whose body arrived whole.
  const layerSize = bytes.length;
  const whole: string[] = [];
  proxy = await startProxy(reg.port, (req, body) => {
    if (req.method === 'PUT' && body.length === layerSize) whole.push(req.url ?? '');
    return 'pass';
  });
  const r = await pkogen(['push', '--oci-layout', bad, `${proxy.host}/push/bad:v1`]);
  expect(r.code).toBe(1);
  expect(whole).toEqual([]);
  // Ours, not the registry's: the layer is hashed while it streams and its last slice is held back
  // until the digest matched, so the registry never received the whole wrong layer.
  expect(r.stderr).toMatch(new RegExp(`invalid image: ${bad}/blobs/sha256/[0-9a-f]{64}: digest mismatch: expected sha256:`));
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  const tags = run('sh', ['-c', `skopeo list-tags --tls-verify=false docker://${reg.host}/push/bad 2>&1 || true`]);
  expect(tags).not.toMatch(/"v1"/);
});

it('streams a layout layer of several read slices from disk, and from its start again when the upload is retried', async () => {
  // 5 MiB of incompressible bytes: the layer is five 1 MiB slices and more.
  const pkg = copyFixturePackage('test-stub', path.join(tmp, 'big-pkg'));
  writeFileSync(path.join(pkg, 'noise.bin'), createCipheriv('aes-128-ctr', Buffer.alloc(16, 3), Buffer.alloc(16, 0)).update(Buffer.alloc(5 << 20)));
  const bigLayout = path.join(tmp, 'big-layout');
  const built = await pkogen(['build', pkg, '-t', 'localhost/push/big:v1', '--oci-layout', bigLayout, '-o', 'digest']);
  expect(built.code).toBe(0);
  const blobs = path.join(bigLayout, 'blobs', 'sha256');
  const layerSize = Math.max(...readdirSync(blobs).map((f) => statSync(path.join(blobs, f)).size));
  expect(layerSize).toBeGreaterThan(5 << 20);
  const puts: number[] = [];
  proxy = await startProxy(reg.port, (req, body) => {
    if (req.method !== 'PUT' || !/\/blobs\/uploads\//.test(req.url ?? '') || body.length !== layerSize) return 'pass';
    puts.push(body.length);
    return puts.length === 1 ? { status: 500, body: '{"errors":[{"code":"UNKNOWN","message":"injected"}]}' } : 'pass';
  });
  const r = await pkogen(['push', '--oci-layout', bigLayout, `${proxy.host}/push/big:v1`, '-o', 'digest']);
  expect(r).toEqual({ code: 0, stdout: built.stdout, stderr: expect.stringMatching(/HTTP 500.*retrying/) });
  expect(puts).toEqual([layerSize, layerSize]);
  expect(inspect(`${reg.host}/push/big:v1`).Digest).toBe(built.stdout.trim());
});

it('bad usage exits 2 with a clear message', async () => {
  expect(await pkogen(['push', `${reg.host}/push/x:v1`])).toMatchObject({ code: 2, stderr: expect.stringMatching(/give exactly one of --oci-layout DIR and --archive FILE/) });
  expect(await pkogen(['push', '--oci-layout', layout, '--archive', archive, `${reg.host}/push/x:v1`])).toMatchObject({ code: 2 });
  expect(await pkogen(['push', '--oci-layout', layout])).toMatchObject({ code: 2 });
  expect(await pkogen(['push', '--oci-layout', layout, `${reg.host}/push/x@sha256:${'0'.repeat(64)}`])).toMatchObject({
    code: 2,
    stderr: expect.stringMatching(/give a tag/),
  });
  const missing = await pkogen(['push', '--oci-layout', path.join(tmp, 'nope'), `${reg.host}/push/x:v1`]);
  expect(missing.code).toBe(1);
  expect(missing.stderr).toMatch(/not an OCI layout/);
});
