/**
 * `pkogen push`: an image already built (OCI layout or docker archive) goes to a real
 * docker-registry unchanged (same digest as built, readable by skopeo), blobs the registry has are
 * not sent again, a corrupted layer is refused before any tag is written, and bad usage exits 2.
 */
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
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
  const r = await pkogen(['push', '--oci-layout', bad, `${reg.host}/push/bad:v1`]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/digest mismatch|DIGEST_INVALID|digest did not match/i);
  expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
  const tags = run('sh', ['-c', `skopeo list-tags --tls-verify=false docker://${reg.host}/push/bad 2>&1 || true`]);
  expect(tags).not.toMatch(/"v1"/);
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
