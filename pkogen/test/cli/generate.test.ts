import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readDirToFileMap } from '../../src/core/fs.js';
import { fileMapDigest } from '../../src/core/filemap.js';
import { REPO, ROOT, runBuiltCli, runCli, tempDir } from '../helpers.js';

const BUNDLE = path.join(REPO, 'dist', 'resources', 'resources.js');

describe('pkogen CLI basics', () => {
  it('prints help and exits 0', async () => {
    const r = await runCli(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^pkogen: generate, validate, build and ship/);
    for (const c of ['generate', 'verify', 'render', 'tree', 'validate', 'build', 'update', 'lint-rollout', 'simulate']) expect(r.stdout).toContain(`  ${c} `);
  });

  it.each(['generate', 'verify'])('%s --help exits 0 with usage', async (c) => {
    const r = await runCli([c, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: pkogen ${c}`));
  });

  it.each([
    [['nope'], /unknown command "nope"/],
    [['generate'], /generate: missing MODULE/],
    [['generate', 'a', 'b'], /generate: unexpected argument "b"/],
    [['verify', '--frobnicate', 'x'], /verify: unknown option --frobnicate \(run 'pkogen verify --help'\)/],
    [['validate', 'pkg', '--strcit'], /^pkogen: validate: unknown option --strcit; did you mean --strict\? \(run 'pkogen validate --help'\)\n$/],
    [['generate', 'x', '--roto=dir'], /generate: unknown option --roto; did you mean --root\?/],
    [['valdiate', 'pkg'], /^pkogen: unknown command "valdiate"; did you mean 'validate'\? \(run 'pkogen --help'\)\n$/],
    [['lint', 'x'], /unknown command "lint"; did you mean 'lint-rollout'\?/],
    [['frobnicate'], /^pkogen: unknown command "frobnicate" \(run 'pkogen --help'\)\n$/],
  ])('bad usage %j exits 2 with one line', async (args, msg) => {
    const r = await runCli(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg as RegExp);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a missing bundle module is a located user error, exit 1, no stack', async () => {
    const r = await runCli(['generate', 'does/not/exist.js']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: does\/not\/exist.js: cannot load bundle module/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('generate and verify', () => {
  it('writes the package, and verify names a hand-edited, an added and a removed file', async () => {
    const t = tempDir();
    try {
      expect((await runCli(['generate', BUNDLE, '--root', t.dir])).code).toBe(0);
      expect((await runCli(['verify', BUNDLE, '--root', t.dir])).code).toBe(0);
      const edited = path.join(t.dir, 'package/rbac/on-cluster-build-controller.Role.yaml');
      writeFileSync(edited, readFileSync(edited, 'utf8').replace('watch', 'watch\n      - escalate'));
      writeFileSync(path.join(t.dir, 'package/extra.yaml'), 'a: 1\n');
      const removed = path.join(t.dir, 'package/manifest.yaml');
      cpSync(removed, removed + '.bak');
      const r = await runCli(['verify', BUNDLE, '--root', t.dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('drift: package/rbac/on-cluster-build-controller.Role.yaml: differs from the generated file');
      expect(r.stderr).toContain('drift: package/extra.yaml: not generated');
      expect(r.stderr).toContain('drift: package/manifest.yaml.bak: not generated');
      // Below the list, what differs in each edited file.
      expect(r.stderr).toMatch(/\n--- generated\/package\/rbac\/on-cluster-build-controller\.Role\.yaml\n\+\+\+ committed\/package\/rbac\/on-cluster-build-controller\.Role\.yaml\n@@ [^\n]+ @@\n(?:[ +-][^\n]*\n)*\+      - escalate\n/);
    } finally {
      t.cleanup();
    }
  });

  it('every file under the committed package/ is checked, fixtures included', async () => {
    const r = await runCli(['verify', BUNDLE], { cwd: REPO });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('a failed generation leaves the previous package untouched', async () => {
    const t = tempDir();
    try {
      expect((await runCli(['generate', BUNDLE, '--root', t.dir])).code).toBe(0);
      const before = fileMapDigest(await readDirToFileMap(path.join(t.dir, 'package'), { skipDotFiles: false }));
      const bad = path.join(t.dir, 'bad-bundle.mjs');
      writeFileSync(
        bad,
        `export default async () => ({ directories: { package: new Map([['manifest.yaml', new Uint8Array([1])]]) }, files: {}, findings: [{ severity: 'error', rule: 'x', message: 'broken', file: 'manifest.yaml' }] });\n`,
      );
      const r = await runCli(['generate', bad, '--root', t.dir]);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('error: manifest.yaml: broken [x]');
      expect(r.stderr).toContain('nothing was written');
      const throwing = path.join(t.dir, 'throwing-bundle.mjs');
      writeFileSync(throwing, `export default async () => { throw new Error('boom'); };\n`);
      const r2 = await runCli(['generate', throwing, '--root', t.dir]);
      expect(r2.code).toBe(1);
      expect(r2.stderr).toMatch(/bundle failed: boom/);
      const after = fileMapDigest(await readDirToFileMap(path.join(t.dir, 'package'), { skipDotFiles: false }));
      expect(after).toBe(before);
      expect(existsSync(path.join(t.dir, 'package', 'manifest.yaml'))).toBe(true);
    } finally {
      t.cleanup();
    }
  });

  it('a write that fails half-way leaves the target as it was', async () => {
    const t = tempDir();
    try {
      expect((await runCli(['generate', BUNDLE, '--root', t.dir])).code).toBe(0);
      const before = fileMapDigest(await readDirToFileMap(path.join(t.dir, 'package'), { skipDotFiles: false }));
      const bad = path.join(t.dir, 'escaping-bundle.mjs');
      writeFileSync(
        bad,
        `const e = new TextEncoder();\nexport default async () => ({ directories: { package: new Map([['a.yaml', e.encode('a: 1\\n')], ['../escape.yaml', e.encode('x')]]) }, files: {}, findings: [] });\n`,
      );
      const r = await runCli(['generate', bad, '--root', t.dir]);
      expect(r.code).toBe(1);
      // Refused before any write now (the bundle's return value is checked); the writer's own guard stays.
      expect(r.stderr).toMatch(/directories\["package"\] key "\.\.\/escape\.yaml": not a relative path/);
      expect(fileMapDigest(await readDirToFileMap(path.join(t.dir, 'package'), { skipDotFiles: false }))).toBe(before);
      expect(existsSync(path.join(t.dir, 'escape.yaml'))).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it('output is identical under another TZ, umask, locale and file mtimes', async () => {
    const a = tempDir();
    const b = tempDir();
    try {
      const r1 = runBuiltCli(['generate', BUNDLE, '--root', a.dir], { env: { TZ: 'UTC', LC_ALL: 'POSIX' }, umask: '022' });
      expect(r1.stderr).toBe('');
      // Stale files with odd mtimes and modes in the target must not leak into the result.
      mkdirSync(path.join(b.dir, 'package'), { recursive: true });
      writeFileSync(path.join(b.dir, 'package', 'stale.yaml'), 'x: 1\n');
      utimesSync(path.join(b.dir, 'package', 'stale.yaml'), new Date('1999-01-01'), new Date('1999-01-01'));
      const r2 = runBuiltCli(['generate', BUNDLE, '--root', b.dir], { env: { TZ: 'Pacific/Kiritimati', LC_ALL: 'C.UTF-8', LANG: 'C.UTF-8' }, umask: '077' });
      expect(r2.stderr).toBe('');
      const fa = await readDirToFileMap(path.join(a.dir, 'package'), { skipDotFiles: false });
      const fb = await readDirToFileMap(path.join(b.dir, 'package'), { skipDotFiles: false });
      expect([...fb.keys()]).toEqual([...fa.keys()]);
      expect(fileMapDigest(fb)).toBe(fileMapDigest(fa));
      for (const p of fa.keys()) expect(statSync(path.join(b.dir, 'package', p)).mode & 0o777).toBe(0o644);
      // And a second generation changes no byte.
      chmodSync(path.join(a.dir, 'package', 'manifest.yaml'), 0o600);
      runBuiltCli(['generate', BUNDLE, '--root', a.dir]);
      expect(fileMapDigest(await readDirToFileMap(path.join(a.dir, 'package'), { skipDotFiles: false }))).toBe(fileMapDigest(fa));
    } finally {
      a.cleanup();
      b.cleanup();
    }
  });
});
