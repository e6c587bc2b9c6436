/**
 * The bundled CLI (hack/bundle.mjs, what bin/pkogen.js runs after `make build`) behaves like the
 * source: it finds its package.json, validates, reports bad input with the file, builds an image
 * and keeps the exit codes. Bundled here from src/ into a scratch folder, so the test does not
 * depend on what `make build` left in dist/. The scratch folder is laid out like the checkout
 * (bin/pkogen.js copied, dist/bundle/) so that the code-cache path of bin/pkogen.js (the CommonJS
 * validate/build/push/simulate bundles, caches from hack/code-cache.mjs) runs here too and is compared with the
 * ES bundle.
 */
import { execFile, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cleanupRegistry, startRegistry } from '../oci/registry-harness.js';

const ROOT = process.cwd();
const FIXTURES = path.resolve(ROOT, '..', '..', 'shared', 'reference', 'pko-packages');

let scratch: string;
let bundleDir: string;
let out: string;
let entry: string;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const code = `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(process.argv.slice(1));`;
  const r = spawnSync('node', ['--input-type=module', '-e', code, '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The scratch copy of bin/pkogen.js, as a user runs it; PKOGEN_CODE_CACHE=check reports the path. */
function bin(mode: string, ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync('node', [path.join(scratch, 'bin', 'pkogen.js'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: mode } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function binAsync(mode: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return binAsyncWith([], mode, ...args);
}

function binAsyncWith(nodeArgs: string[], mode: string, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...nodeArgs, path.join(scratch, 'bin', 'pkogen.js'), ...args], { cwd: ROOT, timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: mode } }, (err, stdout, stderr) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  scratch = mkdtempSync(path.join(ROOT, 'dist', 'bundle-test-'));
  bundleDir = path.join(scratch, 'dist', 'bundle');
  const r = spawnSync('node', ['hack/bundle.mjs', 'src/cli/main.ts', path.relative(ROOT, bundleDir)], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  entry = pathToFileURL(path.join(bundleDir, 'pkogen.mjs')).href;
  mkdirSync(path.join(scratch, 'bin'));
  for (const f of ['pkogen.js', 'package.json']) copyFileSync(path.join(ROOT, 'bin', f), path.join(scratch, 'bin', f));
  const c = spawnSync('node', ['hack/code-cache.mjs', path.join(scratch, 'bin', 'pkogen.js'), path.join(FIXTURES, 'nginx')], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(c.stderr).toBe('');
  expect(c.status).toBe(0);
  out = mkdtempSync(path.join(tmpdir(), 'pkogen-bundle-test-'));
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (out) rmSync(out, { recursive: true, force: true });
});

test('--version reads pkogen’s own package.json from the bundle’s location', () => {
  const version = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version as string;
  expect(cli('--version')).toEqual({ code: 0, stdout: `pkogen ${version}\n`, stderr: '' });
});

test('validate: a valid package passes, a broken one fails with the file and exit 1', () => {
  const ok = cli('validate', path.join(FIXTURES, 'nginx'));
  expect(ok.stderr).toBe('');
  expect(ok.code).toBe(0);
  const bad = cli('validate', path.join(FIXTURES, 'invalid', 'missing_phase_annotation'));
  expect(bad.code).toBe(1);
  expect(bad.stdout + bad.stderr).toContain('deployment.yaml');
  expect(bad.stdout + bad.stderr).not.toContain('    at ');
});

test('validate: metadata is checked by the precompiled ObjectMeta validator, with the field and line', () => {
  const pkg = path.join(out, 'bad-name');
  cpSync(path.join(FIXTURES, 'nginx'), pkg, { recursive: true });
  const cm = path.join(pkg, 'configmap.yaml');
  writeFileSync(cm, readFileSync(cm, 'utf8').replace('name: nginx-v1', 'name: Bad_Name'));
  const r = cli('validate', pkg);
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toMatch(/configmap\.yaml.*:4\b.*metadata\.name.*must be a lowercase RFC 1123 subdomain/);
});

test('validate: an object a shipped CRD describes is checked against it (ajv loaded on demand)', () => {
  const pkg = path.join(out, 'with-crd');
  cpSync(path.join(FIXTURES, 'nginx'), pkg, { recursive: true });
  writeFileSync(
    path.join(pkg, 'crd.yaml'),
    `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    package-operator.run/phase: deploy
spec:
  group: example.com
  scope: Namespaced
  names:
    kind: Widget
    plural: widgets
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
`,
  );
  writeFileSync(path.join(pkg, 'widget.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  size: big\n');
  const r = cli('validate', pkg);
  expect(r.stdout + r.stderr).not.toContain('internal error');
  expect(r.code).toBe(1);
  expect(r.stdout + r.stderr).toMatch(/widget\.yaml.*spec\.size.*integer/);
  // The same through bin/pkogen.js's code-cache path (ajv inlined in the CommonJS file).
  const viaCache = bin('check', 'validate', pkg);
  expect(viaCache.stderr).toContain('pkogen: validate.cjs code cache used\n');
  expect({ code: viaCache.code, stdout: viaCache.stdout, stderr: viaCache.stderr.replace('pkogen: validate.cjs code cache used\n', '') }).toEqual(r);
});

test('validate: a bundled CRD’s object is checked by its precompiled validator on the code-cache path (cjs/crds), as the ES bundle checks it', () => {
  const pkg = path.join(out, 'with-service-monitor');
  cpSync(path.join(FIXTURES, 'nginx'), pkg, { recursive: true });
  const monitor = (port: string) =>
    `apiVersion: monitoring.coreos.com/v1\nkind: ServiceMonitor\nmetadata:\n  name: nginx\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  selector:\n    matchLabels:\n      app: nginx\n  endpoints:\n  - port: ${port}\n    interval: 30s\n`;
  // A preload that lists, at exit, the precompiled CRD factories required during the run.
  const preload = path.join(out, 'crds-required.cjs');
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, 'crds: ' + Object.keys(require.cache).filter((f) => /[\\\\/]cjs[\\\\/]crds[\\\\/]/.test(f)).map((f) => require('node:path').basename(f)).join(' ') + '\\n'));\n");
  for (const [port, code] of [['metrics', 0], ['[1, 2]', 1]] as const) {
    writeFileSync(path.join(pkg, 'monitor.yaml'), monitor(port));
    const es = cli('validate', pkg);
    expect(es.code).toBe(code);
    const r = spawnSync('node', ['-r', preload, path.join(scratch, 'bin', 'pkogen.js'), 'validate', pkg], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: 'check' } });
    expect(r.stderr).toMatch(/^pkogen: validate\.cjs code cache used\ncrds: \d+\.cjs\n$/);
    expect({ code: r.status, stdout: r.stdout }).toEqual({ code, stdout: es.stdout });
    if (code === 1) expect(r.stdout).toMatch(/monitor\.yaml.*spec\.endpoints/);
  }
});

test('validate: a built-in kind is checked by its kubernetes-models validator on the code-cache path (cjs/kinds, with their own code caches), as the ES bundle checks it', () => {
  const pkg = path.join(out, 'with-service');
  cpSync(path.join(FIXTURES, 'nginx'), pkg, { recursive: true });
  const service = (port: string) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  ports:\n  - port: ${port}\n`;
  // A preload that lists, at exit, the kinds' validator files loaded during the run: through their
  // code cache (vm.Script, the kinds the cache-making run met: the fixture's) or required.
  const preload = path.join(out, 'kinds-loaded.cjs');
  writeFileSync(
    preload,
    [
      "const vm = require('node:vm'); const path = require('node:path'); const compiled = [];",
      "vm.Script = class extends vm.Script { constructor(src, o) { super(src, o); if (/[\\\\/]kinds[\\\\/]/.test(o.filename)) compiled.push(path.basename(o.filename) + (o.cachedData ? '' : ' (no cache)')); } };",
      "const list = (xs) => xs.sort().join(' ');",
      "process.on('exit', () => require('node:fs').writeSync(2, 'cached: ' + list(compiled) + '\\nrequired: ' + list(Object.keys(require.cache).filter((f) => /[\\\\/]cjs[\\\\/]kinds[\\\\/]/.test(f)).map((f) => path.basename(f))) + '\\n'));",
      '',
    ].join('\n'),
  );
  for (const [port, code] of [['80', 0], ['http', 1]] as const) {
    writeFileSync(path.join(pkg, 'service.yaml'), service(port));
    const es = cli('validate', pkg);
    expect(es.code).toBe(code);
    const r = spawnSync('node', ['-r', preload, path.join(scratch, 'bin', 'pkogen.js'), 'validate', pkg], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: 'check' } });
    // Only the package's kinds: ConfigMap and Deployment (in the fixture the caches were made with), Service.
    // The apimachinery types (ObjectMeta…) every kind uses: one shared file, loaded with the first kind.
    expect(r.stderr).toBe('pkogen: validate.cjs code cache used\ncached: IoK8sApiAppsV1Deployment.cjs IoK8sApiCoreV1ConfigMap.cjs _apimachinery.cjs\nrequired: IoK8sApiCoreV1Service.cjs\n');
    expect({ code: r.status, stdout: r.stdout }).toEqual({ code, stdout: es.stdout });
    if (code === 1) expect(r.stdout).toMatch(/service\.yaml:9 .*spec\.ports\[0\]\.port: must be integer/);
  }
  // An embedded ObjectMeta is checked by the shared apimachinery validators on the code-cache path,
  // as by kubernetes-models' own in the ES bundle: a managedFields entry's operation must be a string.
  writeFileSync(path.join(pkg, 'service.yaml'), service('80'));
  writeFileSync(
    path.join(pkg, 'embedded.yaml'),
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: embedded\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  selector:\n    matchLabels:\n      app: e\n  template:\n    metadata:\n      labels:\n        app: e\n      managedFields:\n      - operation: 5\n    spec:\n      containers:\n      - name: c\n        image: nginx:1.14.2\n',
  );
  const es = cli('validate', pkg);
  const viaCache = bin('check', 'validate', pkg);
  expect(es.code).toBe(1);
  expect(es.stdout).toMatch(/embedded\.yaml:16 .*spec\.template\.metadata\.managedFields\[0\]\.operation: must be string/);
  expect({ code: viaCache.code, stdout: viaCache.stdout }).toEqual({ code: es.code, stdout: es.stdout });
});

test('the kinds of the CommonJS bundles share one copy of the apimachinery validators (no kind file has its own ObjectMeta)', () => {
  const kinds = path.join(scratch, 'dist', 'bundle', 'cjs', 'kinds');
  const files = readdirSync(kinds).filter((f) => f.endsWith('.cjs'));
  expect(files).toContain('_apimachinery.cjs');
  // Only ObjectMeta's validator checks a managedFields property (the instance path it reports).
  const marker = '"/managedFields"';
  expect(readFileSync(path.join(kinds, '_apimachinery.cjs'), 'utf8')).toContain(marker);
  const withOwnCopy = files.filter((f) => f !== '_apimachinery.cjs' && readFileSync(path.join(kinds, f), 'utf8').includes(marker));
  expect(withOwnCopy).toEqual([]);
  expect(files.length).toBeGreaterThan(60);
});

test('validate: unknown fields of a built-in kind are found through the field shapes (read lazily in the bundles), at any depth, on both paths', () => {
  const pkg = path.join(out, 'unknown-fields');
  cpSync(path.join(FIXTURES, 'nginx'), pkg, { recursive: true });
  writeFileSync(
    path.join(pkg, 'service.yaml'),
    'apiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  sessionAffinityConfig:\n    clientIP:\n      timeoutSecondz: 10\n  ports:\n  - port: 80\n    portt: 81\n',
  );
  const es = cli('validate', pkg);
  const viaCache = bin('check', 'validate', pkg);
  expect(es.code).toBe(1);
  expect(es.stdout).toMatch(/service\.yaml:10 .*spec\.sessionAffinityConfig\.clientIP\.timeoutSecondz/);
  expect(es.stdout).toMatch(/service\.yaml:13 .*spec\.ports\[0\]\.portt/);
  expect({ ...viaCache, stderr: viaCache.stderr.replace('pkogen: validate.cjs code cache used\n', '') }).toEqual(es);
});

test('lint-rollout: the synchronous schema validator sees every built-in kind (all loaded up front)', () => {
  const r = cli('lint-rollout', path.join(ROOT, '..', 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl'));
  expect(r.stderr).not.toContain('internal error');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('0 error(s)');
});

test('lint-rollout: a built-in kind a Template nests is validated by the bundle, also when a parameter names it', () => {
  // The bundled CLI loads a built-in kind's validator only for the kinds prepareRolloutSchemas
  // finds in the text; a kind from a parameter is known only after processing (everything loaded).
  const template = (kind: string) =>
    `apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: t\nparameters:\n  - name: KIND\n    required: true\nobjects:\n  - apiVersion: hive.openshift.io/v1\n    kind: SelectorSyncSet\n    metadata:\n      name: s\n    spec:\n      clusterDeploymentSelector:\n        matchLabels:\n          a: b\n      resourceApplyMode: Sync\n      resources:\n        - apiVersion: v1\n          kind: ${kind}\n          metadata:\n            name: x\n            namespace: y\n          data:\n            a: 1\n`;
  for (const kind of ['ConfigMap', '${KIND}']) {
    const file = path.join(out, 'nested-kind.yaml');
    writeFileSync(file, template(kind));
    const r = cli('lint-rollout', file, '-p', 'KIND=ConfigMap');
    expect({ kind, internal: (r.stdout + r.stderr).includes('internal error') }).toEqual({ kind, internal: false });
    expect(r.stdout).toMatch(/resources\[0\]\.data\.a.*must be string/);
  }
});

test('build writes a docker-archive tar', () => {
  const tar = path.join(out, 'x.tar');
  const r = cli('build', path.join(FIXTURES, 'nginx'), '-t', 'localhost/bundle-test:1', '--output-file', tar);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(existsSync(tar)).toBe(true);
});

test('usage errors keep exit 2', () => {
  const r = cli('no-such-command');
  expect(r.code).toBe(2);
  expect(r.stderr).toContain('unknown command');
});

type Meta = { outputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[]; inputs: Record<string, unknown> }> };

/** The chunks a command loads before it runs (static imports from its chunk). */
function chunksLoadedBy(command: string): { meta: Meta; chunks: Set<string> } {
  const meta = JSON.parse(readFileSync(path.join(bundleDir, 'meta.json'), 'utf8')) as Meta;
  const start = Object.keys(meta.outputs).find((k) => new RegExp(`/chunks/${command}-[A-Z0-9]+\\.mjs$`).test(k));
  expect(start).toBeDefined();
  const seen = new Set<string>();
  const queue = [start!];
  while (queue.length > 0) {
    const k = queue.pop()!;
    if (seen.has(k)) continue;
    seen.add(k);
    for (const i of meta.outputs[k].imports) if (i.kind !== 'dynamic-import' && meta.outputs[i.path]) queue.push(i.path);
  }
  return { meta, chunks: seen };
}

/** Node built-ins those chunks import statically. */
function builtinsImportedBy(command: string): Set<string> {
  const { meta, chunks } = chunksLoadedBy(command);
  const out = new Set<string>();
  for (const k of chunks) for (const i of meta.outputs[k].imports) if (i.kind !== 'dynamic-import' && !meta.outputs[i.path]) out.add(i.path.startsWith('node:') ? i.path : `node:${i.path}`);
  return out;
}

/** npm packages in the chunks a command loads before it runs. */
function packagesLoadedBy(command: string): Set<string> {
  const { meta, chunks: seen } = chunksLoadedBy(command);
  const pkgs = new Set<string>();
  for (const k of seen) for (const input of Object.keys(meta.outputs[k].inputs)) {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input);
    if (m) pkgs.add(m[1]);
  }
  return pkgs;
}

test('a command loads only the libraries it uses', () => {
  // build: PKO's rules and the template engine; no schemas, no full YAML parsers, no regex engine
  // until a template calls a regex function.
  const build = packagesLoadedBy('build');
  for (const p of ['kubernetes-models', 'ajv', 'js-yaml', 'yaml', 're2js', '@bufbuild/cel', '@kubernetes/client-node']) expect({ p, loaded: build.has(p) }).toEqual({ p, loaded: false });
  // …nor Node's network modules (loaded by the registry transport, for --push only)
  const buildImports = builtinsImportedBy('build');
  for (const b of ['node:http', 'node:https', 'node:tls', 'node:net', 'node:child_process']) expect({ b, imported: buildImports.has(b) }).toEqual({ b, imported: false });
  // validate: a kind's validator (kubernetes-models) once the package has that kind, ajv once an
  // object needs a CRD's schema compiled (both by SchemaRegistry.prepare); no CEL or cluster client.
  const validate = packagesLoadedBy('validate');
  expect(validate.has('ajv-formats')).toBe(true);
  for (const p of ['kubernetes-models', 'ajv', 'js-yaml', 'yaml', '@bufbuild/cel', '@kubernetes/client-node']) expect({ p, loaded: validate.has(p) }).toEqual({ p, loaded: false });
});

test('the draft-2019 formats that parse (iri, idn-email…) load their parsers on first use, with the same answers', () => {
  // The bundles' lazy table (hack/esbuild-options.mjs), bundled here with the parsers left
  // external so that require.cache shows when each one loads.
  const script = `
    import { build } from 'esbuild';
    import { createRequire } from 'node:module';
    import { lazyDraft2019Formats } from './hack/esbuild-options.mjs';
    const outfile = ${JSON.stringify(path.join(scratch, 'lazy-formats.cjs'))};
    await build({ stdin: { contents: "module.exports = require('ajv-formats-draft2019/formats/index.js');", resolveDir: process.cwd() }, bundle: true, platform: 'node', format: 'cjs', outfile, logLevel: 'error',
      alias: { punycode: 'punycode/' }, external: ['uri-js', 'smtp-address-parser', 'schemes', 'punycode/'], plugins: [lazyDraft2019Formats] });
    const require = createRequire(import.meta.url);
    const parsers = () => Object.keys(require.cache).filter((f) => /node_modules[\\/](uri-js|smtp-address-parser|schemes|punycode)[\\/]/.test(f)).length;
    const lazy = require(outfile);
    const atStart = parsers();
    const original = require('ajv-formats-draft2019/formats/index.js');
    const values = ['https://example.com/a?b#c', 'mailto:a@example.com', 'not an iri', '//x/y', 'a@b.example', 'ünïcode@exämple.com', 'bad@@x', 'xn--bcher-kva.example', 'exämple.com', '-bad-.com', 'P1D', 'PT', ''];
    const same = Object.keys(original).every((k) => values.every((v) => {
      const f = original[k], g = lazy[k];
      return typeof f === 'function' ? f(v) === g(v) : f.test(v) === g.test(v);
    }));
    console.log(JSON.stringify({ atStart, after: parsers(), same, keys: Object.keys(lazy) }));
  `;
  const r = spawnSync('node', ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  const got = JSON.parse(r.stdout);
  expect(got.atStart).toBe(0);
  expect(got.after).toBeGreaterThan(0);
  expect(got.same).toBe(true);
  expect(got.keys).toEqual(['iri', 'duration', 'idn-email', 'idn-hostname', 'iri-reference']);
});

/** A `node -r` preload that prints the Node built-ins loaded by the end of the run, and its reader. */
function builtinsPreload(): string {
  const preload = path.join(out, 'builtins.cjs');
  // write(2), not process.stderr: building that stream would load net itself.
  writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, 'builtins: ' + process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')).map((m) => m.slice(13)).join(' ') + '\\n'));\n");
  return preload;
}
const builtinsIn = (stderr: string) => new Set(/builtins: (.*)\n/.exec(stderr)![1].split(' '));

test('Node built-ins each command loads (process.moduleLoadList at exit): none it does not use', () => {
  const preload = builtinsPreload();
  const loaded = (...args: string[]) => {
    const r = spawnSync('node', ['-r', preload, path.join(scratch, 'bin', 'pkogen.js'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    return builtinsIn(r.stderr);
  };
  const nginx = path.join(FIXTURES, 'nginx');
  // validate of a folder: no hashing (crypto ~5 ms to load), no image (zlib), no network, and no
  // stdout stream (net): output goes out with write(2).
  const validate = loaded('validate', nginx);
  for (const m of ['crypto', 'zlib', 'http', 'https', 'tls', 'net', 'child_process']) expect({ m, loaded: validate.has(m) }).toEqual({ m, loaded: false });
  // build hashes and compresses; it sends nothing.
  const build = loaded('build', nginx, '-t', 'localhost/bundle-test:1', '--output-file', path.join(out, 'builtins.tar'));
  expect(build.has('crypto') && build.has('zlib')).toBe(true);
  // …and writes its output synchronously: fs/promises would bring readline with it.
  for (const m of ['http', 'https', 'tls', 'net', 'child_process', 'internal/fs/promises', 'internal/readline/interface']) expect({ m, loaded: build.has(m) }).toEqual({ m, loaded: false });
  const help = loaded('--help');
  for (const m of ['crypto', 'zlib', 'http', 'net', 'vm']) expect({ m, loaded: help.has(m) }).toEqual({ m, loaded: false });
  // lint-rollout loads every built-in kind's validator; their idn-hostname format takes punycode
  // from npm, not Node's deprecated built-in (a DEP0040 warning on stderr from Node 21 on).
  const lint = loaded('lint-rollout', path.join(ROOT, '..', 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl'));
  expect({ m: 'punycode', loaded: lint.has('punycode') }).toEqual({ m: 'punycode', loaded: false });
});

test('help, version and an unknown command come from main.cjs (the command table alone), as the ES bundle gives them', () => {
  // main.cjs holds main.ts and what it imports statically (suggest.ts: did-you-mean for an unknown
  // command; terminal.ts: the colour of an error line), no command and no npm package.
  const meta = JSON.parse(readFileSync(path.join(bundleDir, 'cjs', 'main.meta.json'), 'utf8')) as { inputs: Record<string, unknown> };
  expect(Object.keys(meta.inputs).map((f) => path.basename(f)).sort()).toEqual(['errors.ts', 'io.ts', 'main.ts', 'package-root.ts', 'suggest.ts', 'terminal.ts']);
  for (const args of [['--help'], ['-h'], ['help'], ['--version'], ['version'], [], ['nope'], ['--nope']]) {
    const viaMain = bin('check', ...args);
    expect(viaMain.stderr).toMatch(/^pkogen: main\.cjs used\n/);
    expect({ args, ...viaMain, stderr: viaMain.stderr.replace(/^pkogen: main\.cjs used\n/, '') }).toEqual({ args, ...cli(...args) });
  }
  // A command's own --help still loads that command (from the ES bundle).
  expect(bin('check', 'tree', '--help')).toEqual({ ...cli('tree', '--help'), stderr: 'pkogen: ES bundle used\n' });
  expect(bin('check', 'tree', '--help').stdout).toMatch(/^Usage: pkogen tree/);
});

describe('bin/pkogen.js runs validate, build, push and simulate from the CommonJS bundle and its code cache', () => {
  const USED = /pkogen: (validate|build|push|simulate)\.cjs code cache used\n/;

  test('make build leaves one cache per command, for this Node', () => {
    const caches = readdirSync(path.join(bundleDir, 'cjs')).filter((f) => f.endsWith('.cache')).sort();
    expect(caches).toEqual(['build', 'push', 'simulate', 'validate'].map((c) => `${c}.cjs.${process.version}-${process.arch}.cache`));
  });

  test('simulate: same report and exit code as the ES bundle (text and JSON), with and without a package', () => {
    const rollout = path.join(ROOT, '..', 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl');
    const digest = `sha256:${'a'.repeat(64)}`;
    const params = ['REGISTRY_IMG=quay.io/x/pkg', `IMAGE_DIGEST=${digest}`, 'IMAGE_TAG=abc1234', `ON_CLUSTER_BUILD_IMAGE=quay.io/x/img@${digest}`].flatMap((p) => ['-p', p]);
    for (const extra of [[], ['--package', path.join(FIXTURES, 'nginx')], ['-o', 'json', '--package', path.join(ROOT, '..', 'package')]]) {
      const args = ['simulate', rollout, ...params, '--hcp-namespaces', '5', ...extra];
      const viaCache = bin('check', ...args);
      expect(viaCache.stderr).toMatch(USED);
      const es = cli(...args);
      expect({ extra, code: viaCache.code, stdout: viaCache.stdout, stderr: viaCache.stderr.replace(USED, '') }).toEqual({ extra, ...es });
      expect(es.stdout).toMatch(extra.includes('json') ? /"namespaces": 5,/ : /: 5 namespace\(s\), 5 valid Package/);
    }
  });

  test('simulate of a plain Template never loads js-yaml (the Template is one block document)', () => {
    const preload = path.join(out, 'js-yaml-loaded.cjs');
    writeFileSync(preload, "process.on('exit', () => require('node:fs').writeSync(2, 'js-yaml: ' + Object.keys(require.cache).some((f) => /[\\\\/]js-yaml[\\\\/]/.test(f)) + '\\n'));\n");
    const rollout = path.join(ROOT, '..', 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl');
    const digest = `sha256:${'a'.repeat(64)}`;
    const params = ['REGISTRY_IMG=quay.io/x/pkg', `IMAGE_DIGEST=${digest}`, 'IMAGE_TAG=abc1234', `ON_CLUSTER_BUILD_IMAGE=quay.io/x/img@${digest}`].flatMap((p) => ['-p', p]);
    const r = spawnSync('node', ['-r', preload, path.join(scratch, 'bin', 'pkogen.js'), 'simulate', rollout, ...params, '--hcp-namespaces', '3'], { cwd: ROOT, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PKOGEN_CODE_CACHE: 'check' } });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: 'pkogen: simulate.cjs code cache used\njs-yaml: false\n' });
  });

  test('validate: same report and exit code as the ES bundle, good and bad packages', () => {
    const bad = path.join(FIXTURES, 'invalid', 'missing_phase_annotation');
    for (const [pkg, code] of [[path.join(FIXTURES, 'nginx'), 0], [bad, 1]] as const) {
      const viaCache = bin('check', 'validate', pkg, '-o', 'json');
      expect(viaCache.stderr).toMatch(USED);
      const es = cli('validate', pkg, '-o', 'json');
      expect({ code: viaCache.code, stdout: viaCache.stdout, stderr: viaCache.stderr.replace(USED, '') }).toEqual({ ...es, code });
    }
  });

  test('build: the same image bytes as the ES bundle', () => {
    const a = path.join(out, 'cjs.tar');
    const b = path.join(out, 'es.tar');
    const viaCache = bin('check', 'build', path.join(FIXTURES, 'nginx'), '-t', 'localhost/bundle-test:1', '--output-file', a);
    expect(viaCache.stderr).toMatch(USED);
    expect(viaCache.code).toBe(0);
    expect(cli('build', path.join(FIXTURES, 'nginx'), '-t', 'localhost/bundle-test:1', '--output-file', b).code).toBe(0);
    expect(readFileSync(a).equals(readFileSync(b))).toBe(true);
  });

  test('push: the image build wrote, to a real registry (docker-registry), with the digest build printed', async () => {
    const layout = path.join(out, 'push-layout');
    const built = bin('check', 'build', path.join(FIXTURES, 'nginx'), '-t', 'localhost/bundle-test:1', '--oci-layout', layout, '-o', 'digest');
    expect(built.code).toBe(0);
    const reg = await startRegistry('http');
    try {
      // spawnSync would block the registry (this process): the CLI runs asynchronously here.
      const pushed = await binAsync('check', 'push', '--oci-layout', layout, `${reg.host}/bundle/push:v1`, '-o', 'digest');
      expect(pushed).toEqual({ code: 0, stdout: built.stdout, stderr: 'pkogen: push.cjs code cache used\n' });
      // A plain-HTTP local registry: https and tls are never loaded (they come with the first https request).
      const again = await binAsyncWith(['-r', builtinsPreload()], 'check', 'push', '--oci-layout', layout, `${reg.host}/bundle/push:v3`);
      expect(again.code).toBe(0);
      const builtins = builtinsIn(again.stderr);
      expect(builtins.has('http')).toBe(true);
      for (const m of ['https', 'tls', '_tls_wrap']) expect({ m, loaded: builtins.has(m) }).toEqual({ m, loaded: false });
      const missing = await binAsync('check', 'push', '--oci-layout', path.join(out, 'nope'), `${reg.host}/bundle/push:v2`);
      expect({ ...missing, stderr: missing.stderr.replace(USED, '') }).toEqual(cli('push', '--oci-layout', path.join(out, 'nope'), `${reg.host}/bundle/push:v2`));
      expect(missing.code).toBe(1);
    } finally {
      await cleanupRegistry(reg);
    }
  });

  test('the ES bundle runs when the cache is off, older than its bundle, or the command has none', () => {
    const nginx = path.join(FIXTURES, 'nginx');
    const es = cli('validate', nginx);
    expect(es.code).toBe(0);
    expect(bin('0', 'validate', nginx)).toEqual(es);
    expect(bin('check', 'tree', '--help').stderr).toBe('pkogen: ES bundle used\n');
    const cache = path.join(bundleDir, 'cjs', `validate.cjs.${process.version}-${process.arch}.cache`);
    const { atime, mtime } = statSync(cache);
    utimesSync(cache, new Date(0), new Date(0));
    try {
      expect(bin('check', 'validate', nginx)).toEqual({ ...es, stderr: 'pkogen: ES bundle used\n' });
    } finally {
      utimesSync(cache, atime, mtime);
    }
    expect(bin('check', 'validate', nginx).stderr).toMatch(USED);
  });
});
