/**
 * The bundled CLI (hack/bundle.mjs, what bin/pkogen.js runs after `make build`) behaves like the
 * source: it finds its package.json, validates, reports bad input with the file, builds an image
 * and keeps the exit codes. Bundled here from src/ into a scratch folder, so the test does not
 * depend on what `make build` left in dist/.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.cwd();
const FIXTURES = path.resolve(ROOT, '..', 'shared', 'reference', 'pko-packages');

let scratch: string;
let out: string;
let entry: string;

function cli(...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const code = `const { main } = await import(${JSON.stringify(entry)}); process.exitCode = await main(process.argv.slice(1));`;
  const r = spawnSync('node', ['--input-type=module', '-e', code, '--', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

beforeAll(() => {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  scratch = mkdtempSync(path.join(ROOT, 'dist', 'bundle-test-'));
  const r = spawnSync('node', ['hack/bundle.mjs', 'src/cli/main.ts', path.relative(ROOT, scratch)], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  expect(r.stderr).toBe('');
  expect(r.status).toBe(0);
  entry = pathToFileURL(path.join(scratch, 'pkogen.mjs')).href;
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
});

test('lint-rollout: the synchronous schema validator sees every built-in kind (all loaded up front)', () => {
  const r = cli('lint-rollout', path.join(ROOT, 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl'));
  expect(r.stderr).not.toContain('internal error');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain('0 error(s)');
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
  const meta = JSON.parse(readFileSync(path.join(scratch, 'meta.json'), 'utf8')) as Meta;
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
