/**
 * The built CLI as CI runs it: reproducibility across TZ/umask/mtimes/"days", parity with
 * `buildah bud` of our Containerfile, and scripts/build_deploy.sh pushing once then skipping.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { sortedPaths, toText } from '../../pkogen/src/core/filemap.js';
import { openOciLayout } from '../../pkogen/src/oci/sources.js';
import { packageFilesFromImage } from '../../pkogen/src/pko/package-image.js';
import { layerTar } from '../../pkogen/src/oci/package-image.js';
import { readTar } from '../../pkogen/src/oci/tar.js';
import { SHARED_PACKAGES } from '../../pkogen/test/oci/cli-harness.js';
import { cleanupRegistry, requireTool, run, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';

const SOURCE_ROOT = process.cwd();
/** A private install of the CLI (bin/, scripts/, dist/ compiled from the current sources). */
let ROOT: string;
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-engines-'));
  // The CLI as a user runs it (bin/pkogen.js → dist/), compiled into a private copy so that other
  // suites reading the shared dist/ never see a half-written build.
  ROOT = path.join(tmp, 'install');
  mkdirSync(ROOT);
  for (const f of ['bin', 'scripts', 'builder', 'package.json', 'Containerfile', '.containerignore']) cpSync(path.join(SOURCE_ROOT, f), path.join(ROOT, f), { recursive: true });
  for (const f of ['bin', 'package.json']) cpSync(path.join(SOURCE_ROOT, 'pkogen', f), path.join(ROOT, 'pkogen', f), { recursive: true });
  symlinkSync(path.join(SOURCE_ROOT, 'node_modules'), path.join(ROOT, 'node_modules'));
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', path.join(ROOT, 'pkogen', 'dist')], { cwd: path.join(SOURCE_ROOT, 'pkogen'), stdio: 'pipe' });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function copyWith(name: string, dest: string, mtime: Date, fileMode: number): string {
  cpSync(path.join(SHARED_PACKAGES, name), dest, { recursive: true });
  const walk = (d: string) => {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else chmodSync(p, fileMode);
      utimesSync(p, mtime, mtime);
    }
    utimesSync(d, mtime, mtime);
  };
  walk(dest);
  return dest;
}

function cli(args: string[], env: Record<string, string>, umask = '022'): { code: number; stdout: string; stderr: string } {
  const r = spawnSync('sh', ['-c', `umask ${umask}; exec node pkogen/bin/pkogen.js "$@"`, 'pkogen', ...args], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: tmp, ...env }, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

it('same package, different TZ, umask, file modes, mtimes and day: same digest and same bytes', () => {
  const a = copyWith('integration-valid-with_config', path.join(tmp, 'a'), new Date('1999-12-31T23:59:59Z'), 0o600);
  const b = copyWith('integration-valid-with_config', path.join(tmp, 'b'), new Date('2038-01-19T03:14:07Z'), 0o775);
  const ra = cli(['build', a, '-t', 'example.com/p:1', '--output-file', path.join(tmp, 'a.tar'), '--oci-layout', path.join(tmp, 'a-layout'), '-o', 'digest'], { TZ: 'Pacific/Kiritimati', SOURCE_DATE_EPOCH: '946684799', LC_ALL: 'C' }, '077');
  const rb = cli(['build', b, '-t', 'example.com/p:1', '--output-file', path.join(tmp, 'b.tar'), '--oci-layout', path.join(tmp, 'b-layout'), '-o', 'digest'], { TZ: 'America/Adak', SOURCE_DATE_EPOCH: '2147483647', LC_ALL: 'de_DE.UTF-8' }, '000');
  expect(ra).toMatchObject({ code: 0, stderr: '' });
  expect(rb).toMatchObject({ code: 0, stderr: '' });
  expect(ra.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
  expect(rb.stdout).toBe(ra.stdout);
  expect(Buffer.compare(readFileSync(path.join(tmp, 'a.tar')), readFileSync(path.join(tmp, 'b.tar')))).toBe(0);
  expect(readFileSync(path.join(tmp, 'a-layout', 'index.json'))).toEqual(readFileSync(path.join(tmp, 'b-layout', 'index.json')));
});

it('buildah bud of the Containerfile gives the same /package file tree as pkogen build', async () => {
  requireTool('buildah');
  const ctx = path.join(tmp, 'ctx');
  mkdirSync(ctx);
  cpSync(path.join(ROOT, 'Containerfile'), path.join(ctx, 'Containerfile'));
  cpSync(path.join(ROOT, '.containerignore'), path.join(ctx, '.containerignore'));
  copyWith('integration-valid-with_config', path.join(ctx, 'package'), new Date(), 0o644);
  writeFileSync(path.join(ctx, 'not-in-package.txt'), 'outside');
  const store = ['--root', path.join(tmp, 'bh-root'), '--runroot', path.join(tmp, 'bh-run'), '--storage-driver', 'vfs'];
  run('buildah', [...store, 'bud', '--isolation', 'chroot', '--platform', 'linux/amd64', '-f', path.join(ctx, 'Containerfile'), '-t', 'localhost/pkogen-parity:1', ctx]);
  run('buildah', [...store, 'push', 'localhost/pkogen-parity:1', `oci:${path.join(tmp, 'bh-layout')}:1`]);
  const theirs = await openOciLayout(path.join(tmp, 'bh-layout'), '1');
  // Everything buildah put in the image: only package/ and no dot-file.
  const names = theirs.layers.flatMap((l) => readTar(layerTar(l)).map((e) => e.name));
  expect(names.every((n) => n === 'package' || n.startsWith('package/'))).toBe(true);
  expect(names.some((n) => n.split('/').some((s) => s.startsWith('.')))).toBe(false);

  const r = cli(['build', path.join(ctx, 'package'), '--oci-layout', path.join(tmp, 'our-layout')], {});
  expect(r).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Package built successfully!\ndigest: sha256:[0-9a-f]{64}\n$/) });
  const ours = await openOciLayout(path.join(tmp, 'our-layout'));
  const tree = (img: typeof ours) => {
    const { files } = packageFilesFromImage(img);
    return Object.fromEntries(sortedPaths(files).map((p) => [p, toText(files.get(p)!)]));
  };
  expect(tree(ours)).toEqual(tree(theirs));
  expect(Object.keys(tree(ours))).toEqual(['README.md', 'deployment.yaml.gotmpl', 'manifest.lock.yaml', 'manifest.yaml', 'namespace.template.yaml.gotmpl']);
  expect(theirs.configFile()).toMatchObject({ architecture: 'amd64', os: 'linux' });
});

describe('scripts/build_deploy.sh', () => {
  let reg: TestRegistry;
  beforeAll(async () => (reg = await startRegistry('basic')));
  afterAll(() => cleanupRegistry(reg));

  it('pushes :<commit> and :latest once, then skips while the commit tag exists', () => {
    const pkg = copyWith('test-stub', path.join(tmp, 'deploy-pkg'), new Date(), 0o644);
    // The on-cluster-build image needs a container engine and a Node.js base image from a registry
    // this machine cannot reach: a stand-in engine records what build_deploy.sh asks of it.
    const engineLog = path.join(tmp, 'engine.log');
    const engine = path.join(tmp, 'fake-engine');
    writeFileSync(engine, '#!/bin/sh\necho "$@" >> "$FAKE_ENGINE_LOG"\nif [ "$1" = push ]; then while [ $# -gt 0 ]; do [ "$1" = --digestfile ] && printf "sha256:%064d" 7 > "$2"; shift; done; fi\nexit 0\n', { mode: 0o755 });
    const env = {
      CONTAINER_ENGINE: engine,
      FAKE_ENGINE_LOG: engineLog,
      PATH: process.env.PATH!,
      HOME: tmp,
      IMAGE_REGISTRY: reg.host,
      IMAGE_REPOSITORY: 'ci',
      IMAGE_NAME: 'pkg-hs-package',
      PACKAGE_DIR: pkg,
      QUAY_USER: reg.user!,
      QUAY_TOKEN: reg.password!,
    };
    // The script takes the tag from the checkout it lives in: make the private install one.
    execFileSync('git', ['init', '-q'], { cwd: ROOT });
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: ROOT });
    const tag = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
    const first = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env, encoding: 'utf8' });
    expect(first.stderr).not.toContain(reg.password!);
    expect(first.status).toBe(0);
    const digest = first.stdout.trim();
    expect(digest).toMatch(/^sha256:[0-9a-f]{64}$/);
    const calls = readFileSync(engineLog, 'utf8').trim().split('\n');
    expect(calls[0]).toBe(`build --platform=linux/amd64 -f builder/Containerfile -t ${reg.host}/ci/on-cluster-build:${tag} --ignorefile builder/Containerfile.dockerignore .`);
    expect(calls[1]).toMatch(new RegExp(`^push --authfile \\S+ --tls-verify=false --digestfile \\S+ ${reg.host.replace(/\./g, '\\.')}/ci/on-cluster-build:${tag}$`));
    expect(first.stderr).toContain(`ON_CLUSTER_BUILD_IMAGE=${reg.host}/ci/on-cluster-build@sha256:${'0'.repeat(63)}7`);
    expect(readFileSync(engineLog, 'utf8')).not.toContain(reg.password!);
    const creds = ['--tls-verify=false', '--creds', `${reg.user}:${reg.password}`];
    for (const t of [tag, 'latest']) expect(JSON.parse(run('skopeo', ['inspect', ...creds, `docker://${reg.host}/ci/pkg-hs-package:${t}`])).Digest).toBe(digest);

    // A changed package under the same commit must not move the deployed tag.
    writeFileSync(path.join(pkg, 'extra.yaml'), 'changed: true\n');
    const second = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env, encoding: 'utf8' });
    expect(second.status).toBe(0);
    expect(second.stdout.trim()).toBe(digest);
    expect(second.stderr).toMatch(/already exists \(sha256:[0-9a-f]{64}\); nothing built or pushed/);
    expect(second.stderr).not.toContain(reg.password!);
    expect(JSON.parse(run('skopeo', ['inspect', ...creds, `docker://${reg.host}/ci/pkg-hs-package:latest`])).Digest).toBe(digest);

    const noCreds = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env: { ...env, QUAY_TOKEN: '', QUAY_USER: '', IMAGE_TAG: 'other' }, encoding: 'utf8' });
    expect(noCreds.status).toBe(1);
    expect(noCreds.stderr).toMatch(/authentication required/);
  });

  it('without PACKAGE_DIR ships both packages, package/ and package-fleet/, each under its own metadata.name, and prints both', () => {
    // The checkout's two generated packages (stand-ins with their own names): package/ is the
    // per-HCP package, package-fleet/ the fleet component's ClusterPackage.
    const names = { package: 'stub-hcp-package', 'package-fleet': 'stub-fleet-package' } as const;
    for (const [dir, name] of Object.entries(names)) {
      const d = copyWith('test-stub', path.join(ROOT, dir), new Date(), 0o644);
      writeFileSync(path.join(d, 'manifest.yaml'), readFileSync(path.join(d, 'manifest.yaml'), 'utf8').replace(/^  name: test-stub$/m, `  name: ${name}`));
    }
    try {
      if (!readdirSync(ROOT).includes('.git')) {
        execFileSync('git', ['init', '-q'], { cwd: ROOT });
        execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '--allow-empty', '-m', 'x'], { cwd: ROOT });
      }
      const tag = execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
      const env = { PATH: process.env.PATH!, HOME: tmp, IMAGE_REGISTRY: reg.host, IMAGE_REPOSITORY: 'both', SKIP_BUILDER_IMAGE: 'true', QUAY_USER: reg.user!, QUAY_TOKEN: reg.password! };
      const r = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env, encoding: 'utf8' });
      expect(r.stderr).not.toContain(reg.password!);
      expect(r.status).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines.map((l) => l.replace(/@sha256:[0-9a-f]{64}$/, ''))).toEqual([`${reg.host}/both/${names.package}`, `${reg.host}/both/${names['package-fleet']}`]);
      const creds = ['--tls-verify=false', '--creds', `${reg.user}:${reg.password}`];
      // Both images are in the registry, :<commit> and :latest, at the printed digests; they differ.
      for (const line of lines) {
        const [repo, digest] = line.split('@');
        for (const t of [tag, 'latest']) expect(JSON.parse(run('skopeo', ['inspect', ...creds, `docker://${repo}:${t}`])).Digest).toBe(digest);
      }
      expect(lines[0]!.split('@')[1]).not.toBe(lines[1]!.split('@')[1]);
      expect(r.stderr).toContain(`from package-fleet`);
      // Again: both exist, neither is rebuilt, the same digests.
      const again = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env, encoding: 'utf8' });
      expect(again.status).toBe(0);
      expect(again.stdout.trim().split('\n')).toEqual(lines);
      expect(again.stderr.match(/already exists \(sha256:[0-9a-f]{64}\); nothing built or pushed/g)).toHaveLength(2);
      // No fleet package in the checkout: nothing is shipped as if it were complete.
      rmSync(path.join(ROOT, 'package-fleet'), { recursive: true, force: true });
      const missing = spawnSync(path.join(ROOT, 'scripts/build_deploy.sh'), [], { env: { ...env, IMAGE_TAG: 'no-fleet' }, encoding: 'utf8' });
      expect(missing.status).toBe(1);
      expect(missing.stderr).toContain('no package manifest in package-fleet');
    } finally {
      for (const dir of Object.keys(names)) rmSync(path.join(ROOT, dir), { recursive: true, force: true });
    }
  });
});
