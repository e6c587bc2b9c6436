/**
 * Faults between pkogen and a real docker-registry, injected by a 127.0.0.1 proxy: transient
 * 503/429 and dropped connections (retried), the registry dying mid-push (error, no tag),
 * a bearer-token challenge (anonymous and denied), and a registry lying about digests.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pullImage } from '../../src/oci/sources.js';
import { copyFixturePackage, pkogen } from './cli-harness.js';
import { cleanupRegistry, ProxyHook, run, startProxy, startRegistry, TestProxy, TestRegistry } from './registry-harness.js';

let reg: TestRegistry;
let proxy: TestProxy | undefined;
let pkgDir: string;
let tmp: string;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-faults-'));
  pkgDir = copyFixturePackage('test-stub', path.join(tmp, 'pkg'));
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

const isBlobPost = (m?: string, u?: string) => m === 'POST' && /\/blobs\/uploads\//.test(u ?? '');
const isBlobPut = (m?: string, u?: string) => m === 'PUT' && /\/blobs\/uploads\/.*digest=/.test(u ?? '');
const isManifestPut = (m?: string, u?: string) => m === 'PUT' && /\/manifests\//.test(u ?? '');

it('retries 503, 429 and a dropped connection, then succeeds', async () => {
  let posts = 0;
  let puts = 0;
  let manifests = 0;
  proxy = await startProxy(reg.port, (req) => {
    if (isBlobPost(req.method, req.url) && posts++ < 2) return { status: 503, body: '{"errors":[{"code":"UNAVAILABLE","message":"try later"}]}' };
    if (isBlobPut(req.method, req.url) && puts++ === 0) return 'drop';
    if (isManifestPut(req.method, req.url) && manifests++ === 0) return { status: 429, headers: { 'Retry-After': '0' } };
    return 'pass';
  });
  const ref = `${proxy.host}/faults/retry:v1`;
  const r = await pkogen(['build', pkgDir, '-t', ref, '--push', '-o', 'digest']);
  expect(r.code).toBe(0);
  const warnings = r.stderr.trim().split('\n');
  expect(warnings).toHaveLength(4);
  expect(r.stderr).toMatch(/HTTP 503 \(UNAVAILABLE: try later\); retrying/);
  expect(r.stderr).toMatch(/HTTP 429; retrying/);
  const info = JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', `docker://${reg.host}/faults/retry:v1`]));
  expect(info.Digest).toBe(r.stdout.trim());
});

it('gives up with a clear error when the registry dies mid-push, and leaves no tag', async () => {
  let killed = false;
  proxy = await startProxy(reg.port, (req) => {
    if (!killed && isBlobPut(req.method, req.url)) {
      killed = true;
      void reg.stop();
      return 'drop';
    }
    return 'pass';
  });
  const r = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/dead:v1`, '--push']);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/error: uploading blob sha256:[0-9a-f]+ to .*faults\/dead: .*\(gave up after 5 attempts\)/);
  expect(proxy.log.some((l) => l.includes('/manifests/'))).toBe(false);
  await reg.start();
  expect(() => run('skopeo', ['inspect', '--tls-verify=false', `docker://${reg.host}/faults/dead:v1`])).toThrow(/manifest unknown|not found/i);
});

it('follows a bearer challenge (anonymous token), sends the token, and reports a denied token request', async () => {
  const scopes: string[] = [];
  let deny = false;
  proxy = await startProxy(reg.port, (req) => {
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/token') {
      scopes.push(...url.searchParams.getAll('scope'));
      if (deny) return { status: 401, body: '{"details":"nope"}' };
      return { status: 200, body: JSON.stringify({ access_token: 'tok-123' }) };
    }
    if (req.headers.authorization !== 'Bearer tok-123')
      return { status: 401, headers: { 'WWW-Authenticate': `Bearer realm="http://${proxy!.host}/token",service="test-registry"` }, body: '{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}' };
    return 'pass';
  });
  const ok = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/bearer:v1`, '--push']);
  expect(ok).toMatchObject({ code: 0, stderr: '' });
  expect(scopes).toContain('repository:faults/bearer:pull,push');
  const pulled = await pullImage(`${proxy.host}/faults/bearer:v1`);
  expect(pulled.layers).toHaveLength(1);
  expect(scopes).toContain('repository:faults/bearer:pull');

  deny = true;
  const authFile = path.join(tmp, 'auth.json');
  writeFileSync(authFile, JSON.stringify({ auths: { [proxy.host]: { auth: Buffer.from('me:hunter2-secret').toString('base64') } } }));
  const denied = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/bearer:v2`, '--push'], { REGISTRY_AUTH_FILE: authFile });
  expect(denied.code).toBe(1);
  expect(denied.stderr).toMatch(/token request denied \(HTTP 401\); check your credentials/);
  expect(denied.stderr).not.toContain('hunter2');
});

it('refuses to tag when the registry lies about a blob, and reports a wrong manifest digest', async () => {
  let lie = false;
  proxy = await startProxy(
    reg.port,
    () => 'pass',
    (req, res) => {
      if (lie && req.method === 'HEAD' && /\/blobs\/sha256:/.test(req.url!) && res.status === 200 && /faults\/liar\//.test(req.url!)) res.headers['content-length'] = '1';
      if (isBlobPut(req.method, req.url) && /faults\/liar2\//.test(req.url!)) res.headers['docker-content-digest'] = `sha256:${'1'.repeat(64)}`;
      if (isManifestPut(req.method, req.url) && /faults\/wrongdigest\//.test(req.url!)) res.headers['docker-content-digest'] = `sha256:${'0'.repeat(64)}`;
    },
  );
  expect((await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/liar:v0`, '--push'])).code).toBe(0);
  lie = true;
  const liar = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/liar:v1`, '--push']);
  expect(liar.code).toBe(1);
  expect(liar.stderr).toMatch(/reports blob sha256:[0-9a-f]+ with size 1/);
  expect(proxy.log.some((l) => l.includes('faults/liar/manifests/v1'))).toBe(false);

  const liar2 = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/liar2:v1`, '--push']);
  expect(liar2.code).toBe(1);
  expect(liar2.stderr).toMatch(/registry stored digest sha256:1{64}, expected sha256:/);
  expect(proxy.log.some((l) => l.includes('faults/liar2/manifests'))).toBe(false);

  const wrong = await pkogen(['build', pkgDir, '-t', `${proxy.host}/faults/wrongdigest:v1`, '--push']);
  expect(wrong.code).toBe(1);
  expect(wrong.stderr).toMatch(/registry reports digest sha256:0{64}, expected sha256:/);
});

it('pull rejects a blob whose bytes do not match its digest', async () => {
  const ok = await pkogen(['build', pkgDir, '-t', `${reg.host}/faults/corrupt:v1`, '--push']);
  expect(ok.code).toBe(0);
  proxy = await startProxy(
    reg.port,
    () => 'pass',
    (req, res) => {
      if (req.method === 'GET' && /\/blobs\/sha256:/.test(req.url!) && res.body.length > 0) res.body[res.body.length - 1] ^= 0xff;
    },
  );
  await expect(pullImage(`${proxy.host}/faults/corrupt:v1`, { attempts: 1 })).rejects.toThrow(/digest mismatch: expected sha256:/);
});

it('mounts blobs across repositories pushed in one call instead of uploading them again', async () => {
  proxy = await startProxy(reg.port, () => 'pass');
  const r = await pkogen(['build', pkgDir, '-t', `${proxy.host}/mnt/a:v1`, '-t', `${proxy.host}/mnt/b:v1`, '--push', '-o', 'digest']);
  expect(r).toMatchObject({ code: 0, stderr: '' });
  const toB = proxy.log.filter((l) => l.includes('/v2/mnt/b/'));
  expect(toB.filter((l) => /^POST \/v2\/mnt\/b\/blobs\/uploads\/\?mount=sha256%3A[0-9a-f]{64}&from=mnt%2Fa$/.test(l))).toHaveLength(2);
  expect(toB.some((l) => l.startsWith('PUT /v2/mnt/b/blobs/'))).toBe(false);
  expect(JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', `docker://${reg.host}/mnt/b:v1`])).Digest).toBe(r.stdout.trim());
});

it('follows blob redirects to storage without sending registry credentials there', async () => {
  const ok = await pkogen(['build', pkgDir, '-t', `${reg.host}/faults/redirect:v1`, '--push']);
  expect(ok.code).toBe(0);
  const seenAuth: (string | undefined)[] = [];
  const storage = await startProxy(reg.port, (req) => {
    seenAuth.push(req.headers.authorization);
    return 'pass';
  });
  try {
    proxy = await startProxy(reg.port, (req): ReturnType<ProxyHook> => {
      if (req.url!.startsWith('/token?')) return { status: 200, body: '{"token":"tok-xyz"}' };
      if (req.headers.authorization !== 'Bearer tok-xyz')
        return { status: 401, headers: { 'WWW-Authenticate': `Bearer realm="http://${proxy!.host}/token",service="s"` } };
      if (req.method === 'GET' && /\/blobs\/sha256:/.test(req.url!)) return { status: 307, headers: { Location: `http://${storage.host}${req.url}` } };
      return 'pass';
    });
    const img = await pullImage(`${proxy.host}/faults/redirect:v1`);
    expect(img.layers).toHaveLength(1);
    expect(seenAuth).toHaveLength(2);
    expect(seenAuth.every((a) => a === undefined)).toBe(true);
  } finally {
    await storage.close();
  }
});
