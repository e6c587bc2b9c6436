/**
 * The consumer test (issue 13, item 6; issue 15's "init, then make package and make test"): pack
 * pkogen as npm would publish it, scaffold a project with `pkogen init` that depends on the
 * tarball, install it (dependencies come from the npm registry, once), then run the scaffold's
 * `make package` and `make test` (tsc --strict, generate, verify, validate --strict) and check that
 * a misspelt field in an imported CRD type fails the build.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { NODE_MODULES, ROOT, runCli, SHARED, tempDir } from '../helpers.js';

/** Generous: npm pack compiles pkogen, npm install fetches its dependencies once. */
const LONG = 15 * 60 * 1000;

function spawn(cmd: string, args: string[], cwd: string, timeoutMin = 8) {
  // prefer-offline: pkogen's dependencies come from npm's cache once the first install fetched them.
  return spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMin * 60 * 1000, env: { ...process.env, npm_config_update_notifier: 'false', npm_config_prefer_offline: 'true' } });
}

function run(cmd: string, args: string[], cwd: string, timeoutMin = 8): { code: number; out: string } {
  const r = spawn(cmd, args, cwd, timeoutMin);
  return { code: r.status ?? -1, out: `${r.stdout ?? ''}${r.stderr ?? ''}` };
}

let tmp: ReturnType<typeof tempDir>;
let tarball = '';
let files: string[] = [];
let project = '';
/** Where the tarball is installed the way a user installs pkogen (npm install ./pkogen-X.tgz). */
let installer = '';

beforeAll(async () => {
  tmp = tempDir('pkogen-consumer-');
  // Pack a copy: prepack compiles into its own dist/, never into the checkout's, which other
  // suites running at the same time execute.
  const stage = path.join(tmp.dir, 'stage');
  mkdirSync(stage);
  for (const f of ['package.json', 'README.md', 'bin', 'src', 'hack', 'templates', 'tsconfig.json', 'tsconfig.lib.json', 'tsconfig.cli.json']) cpSync(path.join(ROOT, f), path.join(stage, f), { recursive: true });
  symlinkSync(NODE_MODULES, path.join(stage, 'node_modules'));
  const pack = spawn('npm', ['pack', '--json', '--pack-destination', tmp.dir], stage);
  if (pack.status !== 0) throw new Error(`npm pack failed:\n${pack.stdout}${pack.stderr}`);
  // stdout: the prepack script's output (if any), then the JSON report.
  const info = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('\n[') + 1));
  tarball = path.join(tmp.dir, info[0].filename);
  files = info[0].files.map((f: { path: string }) => f.path);
  installer = path.join(tmp.dir, 'installer');
  mkdirSync(installer);
  writeFileSync(path.join(installer, 'package.json'), '{"name":"installer","version":"1.0.0","private":true}\n');
  const tool = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], installer, 10);
  if (tool.code !== 0) throw new Error(`npm install of the tarball failed:\n${tool.out}`);
  project = path.join(tmp.dir, 'consumer');
  // The installed pkogen's init, without --pkogen: the scaffold depends on the tarball it came from.
  const init = run(path.join(installer, 'node_modules', '.bin', 'pkogen'), ['init', project, '--name', 'consumer', '--hypershift', '--image-in', 'config', '--image', 'quay.io/example/consumer@sha256:' + 'b'.repeat(64)], tmp.dir);
  if (init.code !== 0) throw new Error(init.out);
  const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline'], project, 10);
  if (install.code !== 0) throw new Error(`npm install failed:\n${install.out}`);
}, LONG);
afterAll(() => tmp?.cleanup());

describe('pkogen as an installed package', () => {
  it('ships the library, its declarations, the CLI (bundled too) and the templates, and nothing of ours', () => {
    expect(files).toEqual(expect.arrayContaining(['package.json', 'README.md', 'bin/pkogen.js', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', 'dist/bundle/pkogen.mjs', 'dist/bundle/cjs/main.cjs', 'templates/init/resources/resources.ts.hbs', 'templates/init/dot-gitignore.hbs']));
    expect(files.filter((f) => /^(src|test|resources|builder|package|hack|docs)\//.test(f) || f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    // The ES bundle and the command table; no code cache (made for one Node version), no other
    // CommonJS bundle (they run only with a cache) and no esbuild metafile.
    expect(files.filter((f) => f.startsWith('dist/') && !f.startsWith('dist/src/') && !/^dist\/bundle\/(pkogen\.mjs|chunks\/[\w-]+\.mjs|cjs\/main\.cjs)$/.test(f))).toEqual([]);
    expect(files.filter((f) => f.startsWith('dist/bundle/chunks/')).length).toBeGreaterThan(10);
  });

  it('the installed CLI runs from the bundle (help and version from the command table alone)', () => {
    const check = (...args: string[]) => {
      const r = spawnSync('node_modules/.bin/pkogen', args, { cwd: project, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: 'check' } });
      return { code: r.status, stderr: r.stderr };
    };
    expect(check('--version')).toEqual({ code: 0, stderr: 'pkogen: main.cjs used\n' });
    // A command (its help here) comes from the ES bundle: without a code cache, the CommonJS path is not taken.
    expect(check('validate', '--help')).toEqual({ code: 0, stderr: 'pkogen: ES bundle used\n' });
  });

  it('the scaffold passes make package and make test, typed and strict, with pkogen --version', () => {
    expect(run('node_modules/.bin/pkogen', ['--version'], project).out).toBe(`pkogen ${JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version}\n`);
    const pkg = run('make', ['package'], project);
    expect({ code: pkg.code, out: pkg.code ? pkg.out : '' }).toEqual({ code: 0, out: '' });
    const test = run('make', ['test'], project);
    expect({ code: test.code, out: test.code ? test.out : '' }).toEqual({ code: 0, out: '' });
    expect(readFileSync(path.join(project, 'package', 'manifest.yaml'), 'utf8')).toMatch(/name: consumer/);
  }, LONG);

  it('init run from the installed tarball makes the scaffold depend on that tarball', () => {
    expect(JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).dependencies).toEqual({ pkogen: `file:${tarball}` });
  });

  // Every kind of scaffold, with no flag beyond init's (the default, digest-pinned image): its own
  // make package, make test and .ci/run pass.
  it.each([
    ['hcp-images', ['--hypershift', '--image-in', 'images']],
    ['classic-ns-images', ['--classic', '--scope', 'Namespaced', '--image-in', 'images']],
    ['classic-cluster-config', ['--classic', '--scope', 'Cluster', '--image-in', 'config']],
  ])('the %s scaffold passes make package, make test and .ci/run out of the box', (name, flags) => {
    const dir = path.join(tmp.dir, name);
    const init = run(path.join(installer, 'node_modules', '.bin', 'pkogen'), ['init', dir, ...flags], tmp.dir);
    expect(init).toEqual({ code: 0, out: expect.stringContaining(`pkogen file:${tarball})`) });
    for (const step of [['make', 'package'], ['make', 'test'], ['./.ci/run']]) {
      const r = run(step[0], step.slice(1), dir, 10);
      expect({ step: step.join(' '), code: r.code, out: r.code ? r.out : '' }).toEqual({ step: step.join(' '), code: 0, out: '' });
    }
    expect(readFileSync(path.join(dir, 'package', 'manifest.yaml'), 'utf8')).toMatch(new RegExp(`name: ${name}\\n`));
  }, LONG);

  it('sub-path exports (pkogen/model, /hypershift, /pko, /oci, /rollout) compile strict and load at run time', () => {
    const mod = path.join(project, 'resources', 'subpaths.ts');
    writeFileSync(mod, [
      "import { emitDocument, type KubeObject } from 'pkogen/model';",
      "import { hcpDeployment, withPriorityClass } from 'pkogen/hypershift';",
      "import { MANIFEST_API_VERSION } from 'pkogen/pko';",
      "import { buildPackageImage, packageFilesFromImage } from 'pkogen/oci';",
      "import { lintRolloutTemplate } from 'pkogen/rollout';",
      "const d: KubeObject = withPriorityClass(hcpDeployment({ name: 'w', replicas: 1, serviceAccountName: 'w', automountServiceAccountToken: false, managementKasAccess: false,",
      "  containers: [{ name: 'c', image: 'i', resources: { requests: { cpu: '1m', memory: '1Mi' }, limits: { memory: '2Mi' } } }] }), 'p');",
      "const files = new Map([['manifest.yaml', new TextEncoder().encode(`apiVersion: ${MANIFEST_API_VERSION}\\n`)]]);",
      "const back = packageFilesFromImage(buildPackageImage(files)).files;",
      "console.log(typeof lintRolloutTemplate, [...back.keys()].join(','), emitDocument(d).includes('priorityClassName: p'));",
      '',
    ].join('\n'));
    expect(run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], project)).toEqual({ code: 0, out: '' });
    const js = path.join(project, 'subpaths.mjs');
    const built = run('node_modules/.bin/tsc', ['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022', '--types', 'node', '--strict', '--skipLibCheck', '--outDir', path.join(project, 'out-subpaths'), mod], project);
    expect(built).toEqual({ code: 0, out: '' });
    writeFileSync(js, `import './out-subpaths/subpaths.js';\n`);
    expect(run('node', [js], project)).toEqual({ code: 0, out: 'function manifest.yaml true\n' });
  }, LONG);

  it('pkogen/k8s types a Deployment: a misspelt field fails tsc on its line, nothing is loaded at run time', () => {
    const mod = path.join(project, 'resources', 'typed.ts');
    const good = [
      "import type { Deployment } from 'pkogen/k8s';",
      "import { templateNumber } from 'pkogen/model';",
      "export const d: Deployment = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'w' }, spec: {",
      "  replicas: templateNumber('.config.replicas'), selector: { matchLabels: { app: 'w' } },",
      "  template: { metadata: { labels: { app: 'w' } }, spec: {",
      "    containers: [{ name: 'w', image: 'i' }] } } } };",
      '',
    ].join('\n');
    writeFileSync(mod, good);
    expect(run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], project)).toEqual({ code: 0, out: '' });
    writeFileSync(mod, good.replace('containers:', 'containres:'));
    const bad = run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], project);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/resources\/typed\.ts\(6,\d+\): error TS\d+: .*'containres' does not exist in type 'PodSpec'/);
    writeFileSync(mod, good);
    // The sub-path's module is empty at run time.
    expect(readFileSync(path.join(project, 'node_modules', 'pkogen', 'dist', 'src', 'public', 'k8s.js'), 'utf8').trim()).toBe('export {};');
  }, LONG);

  it('imported CRD types make a misspelt field a compile error in the consumer', () => {
    // import needs ts-morph, an optional peer dependency: first the message, then with it added.
    const without = run('node_modules/.bin/pkogen', ['import', '--bundled', 'Package', '--output-dir', 'resources/imports'], project);
    expect(without).toEqual({ code: 1, out: expect.stringContaining('pkogen import needs ts-morph, an optional dependency of pkogen that is not installed: npm install --save-dev ts-morph@27') });
    expect(run('npm', ['install', '--save-dev', '--no-audit', '--no-fund', '--prefer-offline', 'ts-morph@27'], project, 10).code).toBe(0);
    const imp = run('node_modules/.bin/pkogen', ['import', '--bundled', 'Package', '--output-dir', 'resources/imports'], project);
    expect(imp).toEqual({ code: 0, out: expect.stringMatching(/^imported 1 CRDs into resources\/imports\/package-operator\.run_v1alpha1\.ts\n$/) });
    const mod = path.join(project, 'resources', 'extra.ts');
    const good = "import { packageOf } from './imports/package-operator.run_v1alpha1.js';\nexport const p = packageOf({ metadata: { name: 'x' }, spec: { image: 'quay.io/x/y:1' } });\n";
    writeFileSync(mod, good);
    expect(run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], project)).toEqual({ code: 0, out: '' });
    writeFileSync(mod, good.replace('image:', 'imgae:'));
    const bad = run('node_modules/.bin/tsc', ['-p', 'tsconfig.json', '--noEmit'], project);
    expect(bad.code).not.toBe(0);
    expect(bad.out).toMatch(/resources\/extra\.ts\(2,\d+\): error TS\d+: .*'imgae' does not exist in type 'PackageSpec'/);
  }, LONG);
});

describe('a lean install: pkogen alone in an empty directory', () => {
  let dir = '';
  beforeAll(() => {
    dir = path.join(tmp.dir, 'lean');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'package.json'), '{"name":"lean","private":true}\n');
    const install = run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball], dir, 10);
    if (install.code !== 0) throw new Error(`npm install failed:\n${install.out}`);
  }, LONG);

  it('has no TypeScript compiler, ts-morph or Kubernetes client', () => {
    for (const p of ['typescript', 'ts-morph', '@ts-morph/common', '@kubernetes/client-node']) expect({ p, installed: existsSync(path.join(dir, 'node_modules', p)) }).toEqual({ p, installed: false });
  });

  it('validate, build, render, tree, lint-rollout and simulate work without them', () => {
    const pkg = path.join(dir, 'pkg');
    cpSync(path.join(SHARED, 'reference', 'pko-packages', 'integration-valid-with_config'), pkg, { recursive: true });
    const pkogen = (...args: string[]) => run('node_modules/.bin/pkogen', args, dir);
    expect(pkogen('validate', 'pkg')).toEqual({ code: 0, out: expect.stringContaining('Package validated successfully!') });
    expect(pkogen('build', 'pkg', '-t', 'localhost/lean:1', '--output-file', 'lean.tar', '-o', 'digest')).toEqual({ code: 0, out: expect.stringMatching(/^sha256:[0-9a-f]{64}\n$/) });
    expect(readFileSync(path.join(pkg, 'manifest.yaml'), 'utf8')).toContain('- name: namespace-scope');
    expect(pkogen('render', 'pkg', '--test-case', 'namespace-scope')).toEqual({ code: 0, out: expect.stringContaining('kind: ') });
    expect(pkogen('tree', 'pkg').code).toBe(0);
    const template = path.join(SHARED, 'reference', 'rollout-templates', 'mcvw-hs.SelectorSyncSet.yaml.tmpl');
    expect(pkogen('lint-rollout', template).code).not.toBe(2);
    expect(pkogen('lint-rollout', template).out).not.toMatch(/internal error|Cannot find (module|package)/);
    const sim = pkogen('simulate', template, '-p', 'REGISTRY_IMG=quay.io/x/y', '-p', 'IMAGE_TAG=abc1234', '--hcp-namespaces', '2');
    expect(sim.out).not.toMatch(/internal error|Cannot find (module|package)/);
  }, LONG);

  it('kickstart and status say how to add what they need', () => {
    const kick = run('node_modules/.bin/pkogen', ['kickstart', path.join(SHARED, 'reference', 'pko-packages', 'nginx'), '--output-dir', 'kicked'], dir);
    expect(kick).toEqual({ code: 1, out: expect.stringContaining('pkogen kickstart needs ts-morph, an optional dependency of pkogen that is not installed: npm install --save-dev ts-morph@27') });
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n');
    const status = run('node_modules/.bin/pkogen', ['status', '-A', '--kubeconfig', kubeconfig], dir);
    expect(status).toEqual({ code: 1, out: expect.stringContaining('needs @kubernetes/client-node, an optional dependency of pkogen that is not installed: npm install @kubernetes/client-node@2') });
  }, LONG);
});
