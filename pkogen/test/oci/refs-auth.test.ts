import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parseChallenge } from '../../src/oci/auth.js';
import { authFiles, execHelper, lookupCredential } from '../../src/oci/credentials.js';
import { formatReference, isLoopbackRegistry, parseReference } from '../../src/oci/reference.js';
import { copyFixturePackage, pkogen } from './cli-harness.js';

describe('references (go-containerregistry rules)', () => {
  it.each([
    ['nginx', 'index.docker.io/library/nginx:latest'],
    ['nginx:1.23.3', 'index.docker.io/library/nginx:1.23.3'],
    ['docker.io/org/x:1', 'index.docker.io/org/x:1'],
    ['quay.io/a/b:v1', 'quay.io/a/b:v1'],
    ['localhost/p', 'localhost/p:latest'],
    ['127.0.0.1:5000/a/b/c:t', '127.0.0.1:5000/a/b/c:t'],
    [`quay.io/a/b@sha256:${'a'.repeat(64)}`, `quay.io/a/b@sha256:${'a'.repeat(64)}`],
  ])('%s → %s', (input, want) => expect(formatReference(parseReference(input))).toBe(want));

  it.each([
    ['quay.io/a/b:bad tag', /tag can only contain/],
    ['quay.io/A/b:1', /repository can only contain/],
    ['quay.io/a/b@sha256:abc', /unsupported digest/],
    ['', /empty/],
    [`quay.io/a:${'t'.repeat(129)}`, /tag can only contain/],
  ])('rejects %j', (input, re) => expect(() => parseReference(input)).toThrow(re));

  it('knows loopback hosts', () => {
    expect(['localhost:5000', '127.0.0.1:1', '[::1]:5000', 'localhost'].map(isLoopbackRegistry)).toEqual([true, true, true, true]);
    expect(['quay.io', '10.0.0.1:5000', 'localhost.example.com'].map(isLoopbackRegistry)).toEqual([false, false, false]);
  });
});

describe('WWW-Authenticate', () => {
  it('parses bearer and basic challenges', () => {
    expect(parseChallenge('Bearer realm="https://auth.example/token",service="registry.example",scope="repository:org/pkg:pull,push"')).toEqual({
      scheme: 'bearer',
      params: { realm: 'https://auth.example/token', service: 'registry.example', scope: 'repository:org/pkg:pull,push' },
    });
    expect(parseChallenge('Basic realm="basic-realm"')).toEqual({ scheme: 'basic', params: { realm: 'basic-realm' } });
    expect(parseChallenge('Negotiate xyz')).toBeUndefined();
    expect(parseChallenge(undefined)).toBeUndefined();
  });
});

describe('credentials', () => {
  let tmp: string;
  beforeAll(() => (tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-creds-'))));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const noHelper = async () => undefined;

  it('searches REGISTRY_AUTH_FILE, XDG_RUNTIME_DIR, then DOCKER_CONFIG/~/.docker', () => {
    expect(authFiles({ env: { REGISTRY_AUTH_FILE: '/a.json', XDG_RUNTIME_DIR: '/run/u' }, home: '/h' })).toEqual(['/a.json', '/run/u/containers/auth.json', '/h/.docker/config.json']);
    expect(authFiles({ env: { DOCKER_CONFIG: '/d' }, home: '/h' })).toEqual(['/d/config.json']);
  });

  it('matches hosts exactly (scheme and /v1/ ignored), prefers the most specific repository key', async () => {
    const f = path.join(tmp, 'auth.json');
    writeFileSync(
      f,
      JSON.stringify({
        auths: {
          'https://quay.io': { auth: b64('host:pw1') },
          'quay.io/org': { auth: b64('org:pw2') },
          'https://index.docker.io/v1/': { auth: b64('hub:pw3') },
          'quay.io.evil.com': { auth: b64('evil:pw4') },
        },
      }),
    );
    expect(await lookupCredential('quay.io', 'org/pkg', [f], noHelper)).toEqual({ username: 'org', password: 'pw2' });
    expect(await lookupCredential('quay.io', 'other/pkg', [f], noHelper)).toEqual({ username: 'host', password: 'pw1' });
    expect(await lookupCredential('index.docker.io', 'library/nginx', [f], noHelper)).toEqual({ username: 'hub', password: 'pw3' });
    expect(await lookupCredential('quay.io.evil', 'x', [f], noHelper)).toBeUndefined();
    expect(await lookupCredential('evil.com', 'x', [f], noHelper)).toBeUndefined();
  });

  it('uses credHelpers and credsStore through a real helper program; identity tokens too', async () => {
    const bin = path.join(tmp, 'bin');
    mkdirSync(bin, { recursive: true });
    const helper = path.join(bin, 'docker-credential-fake');
    writeFileSync(helper, '#!/bin/sh\nread h\ncase "$h" in\n  reg.example) echo \'{"Username":"u","Secret":"s"}\';;\n  tok.example) echo \'{"Username":"<token>","Secret":"refresh"}\';;\n  *) echo "credentials not found in native keychain"; exit 1;;\nesac\n');
    chmodSync(helper, 0o755);
    const f = path.join(tmp, 'config.json');
    writeFileSync(f, JSON.stringify({ credsStore: 'fake', credHelpers: { 'tok.example': 'fake' } }));
    const run = execHelper({ PATH: `${bin}:${process.env.PATH}` });
    expect(await lookupCredential('reg.example', 'a', [f], run)).toEqual({ username: 'u', password: 's' });
    expect(await lookupCredential('tok.example', 'a', [f], run)).toEqual({ identityToken: 'refresh' });
    expect(await lookupCredential('none.example', 'a', [f], run)).toBeUndefined();
    writeFileSync(f, JSON.stringify({ credsStore: 'missing' }));
    await expect(lookupCredential('reg.example', 'a', [f], run)).rejects.toThrow(/docker-credential-missing not found in PATH/);
  });

  it('reports a broken credentials file by name', async () => {
    const f = path.join(tmp, 'broken.json');
    writeFileSync(f, '{nope');
    await expect(lookupCredential('quay.io', 'a', [f], noHelper)).rejects.toThrow(/not valid JSON/);
  });
});

describe('build and update usage and input errors', () => {
  it.each([
    [['build', 'x', '--push'], 2, /arguments invalid: output or push is requested but no tags are set/],
    [['build', 'x', '--output-file', 'a.tar'], 2, /arguments invalid: output or push is requested but no tags are set/],
    [['build', 'x', '-o', 'a.tar'], 2, /^pkogen: build: -o takes a format \(text, json, digest\); to write the archive use --output-file a\.tar$/m],
    [['build', 'x', '-t', 'quay.io/a/b:bad tag'], 2, /invalid tag specified as parameter quay.io\/a\/b:bad tag: tag can only contain/],
    [['build', 'x', '-t', 'q.io/a:1', '-l', 'k='], 2, /parsing label "k", value is empty/],
    [['build', 'x', '-o', 'xml'], 2, /build: -o takes a format \(text, json, digest\), got "xml"/],
    [['build', 'x', '--output-format', 'digest'], 2, /build: --output-format is now -o \(text, json, digest\): -o digest/],
    [['build', 'x', '--skip-if-exists'], 2, /--skip-if-exists needs --push/],
    [['build'], 2, /missing DIR/],
    [['update'], 2, /missing DIR/],
  ])('%j → exit %d', async (args, code, re) => {
    const r = await pkogen(args as string[]);
    expect(r.code).toBe(code);
    expect(r.stderr).toMatch(re);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('validates the package first with PKO\'s validator: PKO messages, the file named, nothing written', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-badpkg-'));
    const out = path.join(dir, '..', `${path.basename(dir)}.tar`);
    const build = () => pkogen(['build', dir, '-t', 'example.com/x:1', '--output-file', out]);
    const tail = `error: ${dir}: not a valid package; no image built\n`;
    expect(await build()).toMatchObject({ code: 1, stderr: `error: PackageManifest not found: searched at manifest.yaml and manifest.yml [pko/package-manifest-not-found]\n${tail}` });
    writeFileSync(path.join(dir, 'manifest.yaml'), 'apiVersion: v1\nkind: ConfigMap\n');
    expect((await build()).stderr).toMatch(/unknown GVK in manifest.yaml: GroupKind must be PackageManifest.manifests.package-operator.run, is: ConfigMap/);
    writeFileSync(path.join(dir, 'manifest.yaml'), 'a: [\n');
    expect((await build()).stderr).toMatch(/Invalid YAML in manifest.yaml/);
    writeFileSync(path.join(dir, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: x\nspec:\n  phases:\n  - name: deploy\n');
    const r = await build();
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`error: ${dir}/manifest.yaml:5 spec.scopes: spec.scopes: Required value [pko/manifest-invalid]`);
    expect(existsSync(out)).toBe(false);
    rmSync(dir, { recursive: true, force: true });
    const fixture = copyFixturePackage('build-testdata-with-lock');
    expect(await pkogen(['build', fixture])).toMatchObject({ code: 0, stdout: expect.stringMatching(/^Package built successfully!\ndigest: sha256:[0-9a-f]{64}\n$/) });
  });
});

describe('build warnings', () => {
  it('shows validation warnings (fixtures PKO would generate) on stderr, builds, and writes no fixtures', async () => {
    const dir = copyFixturePackage('integration-valid-with_config');
    chmodSync(dir, 0o755);
    rmSync(path.join(dir, '.test-fixtures'), { recursive: true, force: true });
    const r = await pkogen(['build', dir, '-o', 'digest']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^sha256:[0-9a-f]{64}\n$/);
    expect(r.stderr).toMatch(/^warning: .*\.test-fixtures\/.*has no \.test-fixtures\/.* directory.*\[pko\/fixtures-missing\]$/m);
    expect(existsSync(path.join(dir, '.test-fixtures'))).toBe(false);
  });
});

describe('token realm', () => {
  it('never sends credentials to a plain-HTTP token realm unless HTTP is allowed', async () => {
    const { fetchBearerToken } = await import('../../src/oci/auth.js');
    let called = false;
    const send = async () => {
      called = true;
      return { status: 200, headers: {}, body: new TextEncoder().encode('{"token":"t"}') };
    };
    const ch = { scheme: 'bearer' as const, params: { realm: 'http://auth.example/token', service: 's' } };
    await expect(fetchBearerToken(send, ch, ['repository:a:pull'], { username: 'u', password: 'p' }, 'quay.io', false)).rejects.toThrow(/plain-HTTP token realm auth.example; refusing/);
    expect(called).toBe(false);
    await expect(fetchBearerToken(send, ch, ['repository:a:pull'], { username: 'u', password: 'p' }, 'quay.io', true)).resolves.toBe('t');
  });
});
