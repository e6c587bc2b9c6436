import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readDirToFileMap } from '../../src/core/fs.js';
import { toText } from '../../src/core/filemap.js';
import { ROOT, runCli } from '../helpers.js';

const DIGEST_IMAGE = 'quay.io/example/demo@sha256:' + 'a'.repeat(64);

// The scaffold's resources.ts runs through jest's TypeScript transform, which only treats files
// inside the project as ES modules: so the scratch directory lives in test/onboarding/.
const tmp = { dir: '' };
beforeAll(() => (tmp.dir = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'))));
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

async function scaffold(name: string, flags: string[]): Promise<string> {
  const dir = path.join(tmp.dir, name);
  const r = await runCli(['init', dir, '--name', name, '--pkogen', '^0.1.0', ...flags]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  return dir;
}

/** `make package` then `make test`, in-process: generate from the scaffold's own module, validate strictly. */
async function packageAndValidate(dir: string): Promise<string[]> {
  const gen = await runCli(['generate', 'resources/resources.ts'], { cwd: dir });
  // No warning at all (a ClusterPackage's Namespace is no longer held against HyperShift's scope rule).
  expect(gen.stderr).toBe('');
  expect(gen.code).toBe(0);
  const verify = await runCli(['verify', 'resources/resources.ts'], { cwd: dir });
  expect(verify.code).toBe(0);
  const validate = await runCli(['validate', 'package', '--strict'], { cwd: dir });
  expect(validate.stderr).toBe('');
  return validate.stdout.split('\n').filter((l) => /^(error|warning):/.test(l));
}

describe('pkogen init', () => {
  it('scaffolds a HyperShift package: golden files', async () => {
    const dir = await scaffold('demo', ['--hypershift', '--image-in', 'config', '--image', DIGEST_IMAGE]);
    const files = await readDirToFileMap(dir, { skipDotFiles: false });
    expect([...files.keys()]).toEqual([
      '.ci/run',
      '.containerignore',
      '.gitignore',
      'Containerfile',
      'Makefile',
      'README.md',
      'package.json',
      'resources/resources.ts',
      'scripts/build_deploy.sh',
      'tsconfig.json',
    ]);
    for (const [p, b] of files) expect(toText(b)).toMatchSnapshot(p);
    expect(statSync(path.join(dir, 'scripts/build_deploy.sh')).mode & 0o111).toBe(0o111);
    expect(statSync(path.join(dir, '.ci/run')).mode & 0o111).toBe(0o111);
  });

  it('the HyperShift scaffold generates a package and a rollout template that validate strictly', async () => {
    const dir = await scaffold('hcp', ['--hypershift', '--image-in', 'config', '--image', DIGEST_IMAGE]);
    expect(await packageAndValidate(dir)).toEqual([]);
    const manifest = readFileSync(path.join(dir, 'package', 'manifest.yaml'), 'utf8');
    expect(manifest).toMatch(/- name: hosted-cluster\n\s+class: hosted-cluster/);
    expect(readdirSync(path.join(dir, 'hack'))).toEqual(['hcp.SelectorSyncSet.yaml.tmpl']);
    expect(readdirSync(path.join(dir, 'package', '.test-fixtures'))).toEqual(['default']);
  });

  it.each([
    ['classic-ns', ['--classic', '--scope', 'Namespaced', '--image-in', 'images']],
    ['classic-cluster', ['--classic', '--scope', 'Cluster', '--image-in', 'config']],
    ['classic-cluster-images', ['--classic', '--scope', 'Cluster', '--image-in', 'images']],
    ['hcp-images', ['--hypershift', '--image-in', 'images']],
    ['hcp-config', ['--hypershift', '--image-in', 'config']],
  ])('the %s scaffold with the default image generates a package that validates strictly', async (name, flags) => {
    const dir = await scaffold(name, flags);
    expect(await packageAndValidate(dir)).toEqual([]);
    expect(readFileSync(path.join(dir, 'package', 'manifest.yaml'), 'utf8')).toMatch(name.startsWith('classic-cluster') ? /scopes:\n\s+- Cluster\n/ : /scopes:\n\s+- Namespaced\n/);
    // The placeholder image is pinned by digest (validate --strict refuses an unpinned one).
    expect(readFileSync(path.join(dir, 'resources', 'resources.ts'), 'utf8')).toContain(`quay.io/example/${name}@sha256:${'0'.repeat(64)}`);
  });

  it('with --image-in images, init writes manifest.lock.yaml for a digest and generate keeps it', async () => {
    const dir = await scaffold('locked', ['--classic', '--scope', 'Namespaced', '--image-in', 'images', '--image', DIGEST_IMAGE]);
    const lock = readFileSync(path.join(dir, 'package', 'manifest.lock.yaml'), 'utf8');
    expect(lock).toMatch(new RegExp(`kind: PackageManifestLock\n[^]*- digest: sha256:${'a'.repeat(64)}\n\\s+image: ${DIGEST_IMAGE.replace(/[.]/g, '\\.')}\n\\s+name: main\n`));
    expect(await packageAndValidate(dir)).toEqual([]);
    // A second generate (and verify) keeps it unchanged.
    expect((await runCli(['generate', 'resources/resources.ts'], { cwd: dir })).code).toBe(0);
    expect(readFileSync(path.join(dir, 'package', 'manifest.lock.yaml'), 'utf8')).toBe(lock);
    expect(await runCli(['verify', 'resources/resources.ts'], { cwd: dir })).toMatchObject({ code: 0 });
  });

  it('with --image-in images and a tag, the lock is left to pkogen update, and validate says so', async () => {
    const dir = await scaffold('tagged', ['--classic', '--scope', 'Namespaced', '--image-in', 'images', '--image', 'quay.io/example/app:v1']);
    const findings = await packageAndValidate(dir);
    expect(findings).toEqual([expect.stringMatching(/^error: manifest\.lock\.yaml: Missing image in manifest\.lock\.yaml.*Try running: kubectl package update.*\[pko\/lockfile-missing\]$/)]);
    const out = await runCli(['init', path.join(tmp.dir, 'tagged2'), '--classic', '--scope', 'Namespaced', '--image-in', 'images', '--image', 'quay.io/example/app:v1', '--pkogen', '^0.1.0']);
    expect(out.stdout).toMatch(/then pkogen update package/);
  });

  it('refuses a non-empty directory unless --force, and never prompts without a terminal', async () => {
    const dir = path.join(tmp.dir, 'busy');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'notes.txt'), 'mine\n');
    expect(await runCli(['init', dir])).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/busy: directory is not empty \(use --force/) });
    // No TTY in tests (io.prompt undefined): defaults apply, the user's own file stays.
    const forced = await runCli(['init', dir, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toMatch(/package busy \(HyperShift, Namespaced, image in config; pkogen file:\//);
    expect(readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('mine\n');
  });

  it('asks for missing values on a terminal', async () => {
    const asked: string[] = [];
    const answers = ['tty-pkg', 'no', 'Cluster', 'images', ''];
    const { main } = await import('../../src/cli/main.js');
    let out = '';
    const code = await main(['init', path.join(tmp.dir, 'asked')], {
      stdout: (t) => void (out += t),
      stderr: () => undefined,
      env: {},
      cwd: ROOT,
      prompt: async (q) => (asked.push(q), answers.shift() ?? ''),
    });
    expect(code).toBe(0);
    expect(asked).toHaveLength(5);
    expect(out).toMatch(/package tty-pkg \(classic, Cluster, image in spec\.images; pkogen /);
    expect(readFileSync(path.join(tmp.dir, 'asked', 'resources', 'resources.ts'), 'utf8')).toContain(`images: [{ name: 'main', image: 'quay.io/example/tty-pkg@sha256:${'0'.repeat(64)}' }]`);
  });

  it('refuses a DIR whose name is not a package name instead of renaming it (no terminal)', async () => {
    const dir = path.join(tmp.dir, 'Bad_Name');
    const r = await runCli(['init', dir]);
    expect(r).toEqual({ code: 2, stdout: '', stderr: `pkogen: init: the package name would be DIR's name "Bad_Name", which is not a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 53 characters; pass --name NAME (for example --name bad-name)\n` });
    expect(() => statSync(dir)).toThrow();
    expect((await runCli(['init', dir, '--name', 'bad-name', '--pkogen', '^0.1.0'])).code).toBe(0);
  });

  it('on a terminal, a DIR name that is not a package name is said so, with the suggested name as the default', async () => {
    const { main } = await import('../../src/cli/main.js');
    let err = '';
    let out = '';
    const dir = path.join(tmp.dir, 'Bad_Name2');
    const code = await main(['init', dir, '--classic', '--scope', 'Cluster', '--image-in', 'config', '--pkogen', '^0.1.0'], { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd: ROOT, prompt: async () => '' });
    expect({ code, err }).toEqual({ code: 0, err: `DIR's name "Bad_Name2" is not a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 53 characters; suggested package name: bad-name2\n` });
    expect(out).toMatch(/for package bad-name2 /);
  });

  it('Ctrl+D at a prompt is a usage error naming the question, and nothing is written', async () => {
    const { main } = await import('../../src/cli/main.js');
    const { PromptEnded } = await import('../../src/cli/io.js');
    let err = '';
    const dir = path.join(tmp.dir, 'eof');
    const code = await main(['init', dir], { stdout: () => undefined, stderr: (t) => void (err += t), env: {}, cwd: ROOT, prompt: async () => { throw new PromptEnded(); } });
    expect({ code, err }).toEqual({ code: 2, err: 'pkogen: init: input ended before an answer to "Package name" (nothing was written)\n' });
    expect(() => statSync(dir)).toThrow();
  });

  it('usage errors exit 2', async () => {
    expect((await runCli(['init', path.join(tmp.dir, 'x1'), '--name', 'Bad_Name'])).code).toBe(2);
    expect((await runCli(['init', path.join(tmp.dir, 'x2'), '--hypershift', '--scope', 'Cluster'])).stderr).toMatch(/scope must be Namespaced/);
    expect((await runCli(['init', path.join(tmp.dir, 'x3'), '--image-in', 'env'])).code).toBe(2);
    expect((await runCli(['init', path.join(tmp.dir, 'x4'), '--image', "a'b"])).code).toBe(2);
  });
});
