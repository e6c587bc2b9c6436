/**
 * pkogen against Debian's docker-registry, checked by skopeo and umoci: push, pull, labels,
 * digests, the file tree, auth (basic), TLS, and update's lock file.
 */
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sortedPaths, toText } from '../../src/core/filemap.js';
import { scalarString } from '../../src/yaml/emit.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { openOciLayout, pullImage } from '../../src/oci/sources.js';
import { packageFilesFromImage } from '../../src/pko/package-image.js';
import { cleanupRegistry, run, startRegistry, TestRegistry } from './registry-harness.js';
import { copyFixturePackage, pkogen } from './cli-harness.js';


function chmodTreeWritable(dir: string): void {
  chmodSync(dir, 0o755);
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) chmodTreeWritable(p);
    else if (e.isFile()) chmodSync(p, 0o644);
  }
}

function treeOf(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(p, r);
      else if (e.isFile()) out[r] = readFileSync(p, 'utf8');
      else out[r] = `<${statSync(p).isSymbolicLink() ? 'symlink' : 'other'}>`;
    }
  };
  walk(root, '');
  return out;
}

let tmp: string;
let pkgDir: string;
let expectedTree: Record<string, string>;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-reg-'));
  pkgDir = copyFixturePackage('integration-valid-with_config', path.join(tmp, 'pkg'));
  chmodTreeWritable(pkgDir);
  const fm = await readDirToFileMap(pkgDir);
  expectedTree = Object.fromEntries(sortedPaths(fm).map((p) => [p, toText(fm.get(p)!)]));
  expect(Object.keys(expectedTree)).not.toContain('.config.yaml');
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('plain HTTP registry on loopback', () => {
  let reg: TestRegistry;
  beforeAll(async () => (reg = await startRegistry('http')));
  afterAll(() => cleanupRegistry(reg));

  it('pushes; skopeo sees our exact manifest, digest and labels; umoci unpacks the same tree', async () => {
    const ref = `${reg.host}/org/pkg:v1`;
    const r = await pkogen(['build', pkgDir, '-t', ref, '-t', `${reg.host}/org/pkg:latest`, '-t', `${reg.host}/other/pkg:v1`, '--push', '-l', 'org.opencontainers.image.source=https://example.com/x', '-o', 'digest']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const digest = r.stdout.trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);

    const info = JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', `docker://${ref}`]));
    expect(info.Digest).toBe(digest);
    expect(info.Labels).toEqual({ 'org.opencontainers.image.source': 'https://example.com/x' });
    expect(info.Architecture).toBe('amd64');
    expect(info.Os).toBe('linux');
    expect(info.Layers).toHaveLength(1);
    const raw = run('skopeo', ['inspect', '--raw', '--tls-verify=false', `docker://${reg.host}/other/pkg:v1`]);
    expect(JSON.parse(raw).layers[0].digest).toBe(info.Layers[0]);
    const latest = JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', `docker://${reg.host}/org/pkg:latest`]));
    expect(latest.Digest).toBe(digest);

    // skopeo copy into an OCI layout keeps the manifest; our reader reads it back.
    const layout = path.join(tmp, 'skopeo-layout');
    run('skopeo', ['copy', '--src-tls-verify=false', `docker://${ref}`, `oci:${layout}:v1`]);
    const img = await openOciLayout(layout, 'v1');
    expect(img.digest).toBe(digest);
    expect(Object.fromEntries([...packageFilesFromImage(img).files].map(([k, v]) => [k, toText(v)]))).toEqual(expectedTree);

    // umoci unpacks the layout; /package is exactly the package folder without dot-files.
    const bundle = path.join(tmp, 'bundle');
    run('umoci', ['unpack', '--rootless', '--image', `${layout}:v1`, bundle]);
    expect(treeOf(path.join(bundle, 'rootfs'))).toEqual(Object.fromEntries(Object.entries(expectedTree).map(([k, v]) => [`package/${k}`, v])));

    // Our own pull reads the same files back, digests verified.
    const pulled = await pullImage(ref);
    expect(pulled.digest).toBe(digest);
    expect(packageFilesFromImage(pulled).labels).toEqual({ 'org.opencontainers.image.source': 'https://example.com/x' });
  });

  it('writes a docker-archive that skopeo loads with the same layer and labels', async () => {
    const out = path.join(tmp, 'pkg.tar');
    const r = await pkogen(['build', pkgDir, '-t', `${reg.host}/org/archived:v1`, '--output-file', out, '-l', 'a=b']);
    expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Package built successfully!\ndigest: sha256:[0-9a-f]{64}\n$/) });
    const info = JSON.parse(run('skopeo', ['inspect', `docker-archive:${out}`]));
    expect(info.Labels).toEqual({ a: 'b' });
    // skopeo can push it on; our pull of that reads the same package files.
    run('skopeo', ['copy', '--dest-tls-verify=false', `docker-archive:${out}`, `docker://${reg.host}/org/archived:v1`]);
    const pulled = await pullImage(`${reg.host}/org/archived:v1`);
    expect(Object.fromEntries([...packageFilesFromImage(pulled).files].map(([k, v]) => [k, toText(v)]))).toEqual(expectedTree);
  });

  it('pushing the same image again uploads nothing new and gives the same digest', async () => {
    const ref = `${reg.host}/org/again:v1`;
    const a = await pkogen(['build', pkgDir, '-t', ref, '--push', '-o', 'digest']);
    const b = await pkogen(['build', pkgDir, '-t', ref, '--push', '-o', 'digest']);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
    const skip = await pkogen(['build', pkgDir, '-t', ref, '--push', '--skip-if-exists', '-o', 'digest']);
    expect(skip).toMatchObject({ code: 0, stdout: a.stdout });
    expect(skip.stderr).toMatch(/already exists \(sha256:[0-9a-f]{64}\); nothing built or pushed/);
  });

  it('update resolves spec.images to digests, is idempotent, honours PKO_REPOSITORY_HOST', async () => {
    const first = await pkogen(['build', pkgDir, '-t', `${reg.host}/org/app:1.0`, '--push', '-o', 'digest']);
    const dir = path.join(tmp, 'upd');
    copyFixturePackage('test-stub', dir);
    chmodTreeWritable(dir);
    const manifest = readFileSync(path.join(dir, 'manifest.yaml'), 'utf8');
    const withImages = manifest.replace(/^spec:\n/m, `spec:\n  images:\n  - name: app\n    image: ${reg.host}/org/app:1.0\n  - name: other\n    image: quay.io/org/app:1.0\n`);
    expect(withImages).not.toBe(manifest);
    writeFileSync(path.join(dir, 'manifest.yaml'), withImages);
    rmSync(path.join(dir, 'manifest.lock.yaml'), { force: true });
    const env = { PKO_REPOSITORY_HOST: reg.host, SOURCE_DATE_EPOCH: '1700000000' };
    const u1 = await pkogen(['update', dir], env);
    expect(u1).toMatchObject({ code: 0, stdout: 'Package updated successfully!\n', stderr: '' });
    const d = first.stdout.trim();
    expect(readFileSync(path.join(dir, 'manifest.lock.yaml'), 'utf8')).toBe(
      [
        'apiVersion: manifests.package-operator.run/v1alpha1',
        'kind: PackageManifestLock',
        'metadata:',
        '  creationTimestamp: "2023-11-14T22:13:20Z"',
        'spec:',
        '  images:',
        `  - digest: ${d}`,
        `    image: ${scalarString(`${reg.host}/org/app:1.0`)}`,
        '    name: app',
        `  - digest: ${d}`,
        '    image: quay.io/org/app:1.0',
        '    name: other',
        '',
      ].join('\n'),
    );
    const u2 = await pkogen(['update', dir], { PKO_REPOSITORY_HOST: reg.host });
    expect(u2).toMatchObject({ code: 0, stdout: 'Package is already up-to-date\n' });
    // The lock is part of the package: build accepts it.
    expect((await pkogen(['build', dir])).code).toBe(0);
    const missing = await pkogen(['update', dir], { PKO_REPOSITORY_HOST: `${reg.host}`, SOURCE_DATE_EPOCH: '0' });
    expect(missing.code).toBe(0);
    writeFileSync(path.join(dir, 'manifest.yaml'), withImages.replace('org/app:1.0\n  - name: other', 'org/nothere:1\n  - name: other'));
    const nf = await pkogen(['update', dir], { PKO_REPOSITORY_HOST: reg.host });
    expect(nf.code).toBe(1);
    expect(nf.stderr).toMatch(/org\/nothere:1: image not found/);
  });
});

describe('registry with htpasswd basic auth', () => {
  let reg: TestRegistry;
  beforeAll(async () => (reg = await startRegistry('basic')));
  afterAll(() => cleanupRegistry(reg));

  it('refuses without credentials, pushes with REGISTRY_AUTH_FILE, never prints the password', async () => {
    const ref = `${reg.host}/secure/pkg:v1`;
    const anon = await pkogen(['build', pkgDir, '-t', ref, '--push']);
    expect(anon.code).toBe(1);
    expect(anon.stderr).toMatch(/authentication required/);

    const badAuth = path.join(tmp, 'bad-auth.json');
    writeFileSync(badAuth, JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`${reg.user}:wrong-password`).toString('base64') } } }));
    const bad = await pkogen(['build', pkgDir, '-t', ref, '--push'], { REGISTRY_AUTH_FILE: badAuth });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/unauthorized \(HTTP 401\)/);
    expect(bad.stderr).not.toContain('wrong-password');

    const ok = await pkogen(['build', pkgDir, '-t', ref, '--push', '-o', 'digest'], { REGISTRY_AUTH_FILE: reg.authFile });
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout + ok.stderr).not.toContain(reg.password!);
    const info = JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', '--creds', `${reg.user}:${reg.password}`, `docker://${ref}`]));
    expect(info.Digest).toBe(ok.stdout.trim());
  });

  it('finds credentials in $XDG_RUNTIME_DIR/containers/auth.json and in a docker credential helper', async () => {
    const xdg = mkdtempSync(path.join(tmp, 'xdg-'));
    run('mkdir', ['-p', path.join(xdg, 'containers')]);
    writeFileSync(path.join(xdg, 'containers', 'auth.json'), readFileSync(reg.authFile!));
    const a = await pkogen(['build', pkgDir, '-t', `${reg.host}/secure/xdg:v1`, '--push'], { XDG_RUNTIME_DIR: xdg });
    expect(a).toMatchObject({ code: 0, stderr: '' });

    // A real helper program on PATH, as docker-credential-<name> get.
    const bin = mkdtempSync(path.join(tmp, 'bin-'));
    const helper = path.join(bin, 'docker-credential-pkogentest');
    writeFileSync(helper, `#!/bin/sh\nread host\nif [ "$host" = "${reg.host}" ]; then printf '{"ServerURL":"%s","Username":"${reg.user}","Secret":"${reg.password}"}' "$host"; else echo "credentials not found in native keychain"; exit 1; fi\n`);
    chmodSync(helper, 0o755);
    const dockerDir = mkdtempSync(path.join(tmp, 'docker-'));
    writeFileSync(path.join(dockerDir, 'config.json'), JSON.stringify({ credHelpers: { [reg.host]: 'pkogentest' } }));
    const b = await pkogen(['build', pkgDir, '-t', `${reg.host}/secure/helper:v1`, '--push'], { DOCKER_CONFIG: dockerDir, PATH: `${bin}:${process.env.PATH}` });
    expect(b).toMatchObject({ code: 0, stderr: '' });
  });
});

describe('TLS registry with a throwaway CA', () => {
  let reg: TestRegistry;
  beforeAll(async () => (reg = await startRegistry('tls')));
  afterAll(() => cleanupRegistry(reg));

  it('rejects an untrusted certificate, trusts NODE_EXTRA_CA_CERTS, and --insecure skips verification', async () => {
    const ref = `${reg.host}/tls/pkg:v1`;
    const untrusted = await pkogen(['build', pkgDir, '-t', ref, '--push']);
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/TLS certificate not trusted/);
    const ok = await pkogen(['build', pkgDir, '-t', ref, '--push', '-o', 'digest'], { NODE_EXTRA_CA_CERTS: reg.caFile });
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    const info = JSON.parse(run('skopeo', ['inspect', '--cert-dir', reg.certDir!, `docker://${ref}`]));
    expect(info.Digest).toBe(ok.stdout.trim());
    const insecure = await pkogen(['build', pkgDir, '-t', `${reg.host}/tls/insecure:v1`, '--push', '--insecure']);
    expect(insecure.code).toBe(0);
    const pulled = await pullImage(ref, { ca: readFileSync(reg.caFile!, 'utf8') });
    expect(pulled.digest).toBe(ok.stdout.trim());
  });
});
