import { mkdtempSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const REF = path.resolve('../../shared/reference/pko-packages');

async function run(args: string[], cwd = process.cwd()): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd };
  const code = await main(['validate', ...args], io);
  return { code, out, err };
}

describe('pkogen validate', () => {
  let tmp: string;
  beforeAll(() => {
    tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-validate-'));
  });
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  test('a valid package exits 0 with PKO\'s success line', async () => {
    const r = await run([`${REF}/test-stub`]);
    expect(r).toEqual({ code: 0, out: 'Package validated successfully!\n', err: '' });
  });

  test('PKO violation: exit 1, one line with file, doc and PKO text', async () => {
    const r = await run([`${REF}/invalid/missing_phase_annotation`]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('error: deployment.yaml:1 doc 0: Missing package-operator.run/phase Annotation in deployment.yaml idx 0 [pko/missing-phase-annotation]\nwarning: deployment.yaml:19 doc 0 spec.template.spec.containers[0].image: container \"test\" image test is not pinned by digest (@sha256:…) [image/not-pinned]\nvalidation failed: 1 error(s), 1 warning(s)\n');
  });

  test('json output lists every finding with severity, in the common report shape', async () => {
    const r = await run([`${REF}/invalid/bad_manifest`, '-o', 'json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.out);
    expect(j).toMatchObject({ command: 'validate', subject: `${REF}/invalid/bad_manifest`, ok: false, summary: { error: 1, warning: 0, info: 0 } });
    expect(j.findings).toEqual([{ severity: 'error', rule: 'pko/manifest-invalid', message: 'spec.scopes: Required value', file: 'manifest.yaml', path: 'spec.scopes', line: 5 }]);
  });

  test('warnings alone exit 0 with PKO\'s success line after them (PKO accepts the package), and 1 with --strict', async () => {
    const dir = path.join(tmp, 'warn');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: w\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n  phaseses: []\n');
    const r1 = await run([dir]);
    expect(r1.code).toBe(0);
    expect(r1.out).toBe('warning: manifest.yaml:8 spec.phaseses: unknown key spec.phaseses is ignored by PKO (misspelt?) [manifest/unknown-key]\nPackage validated successfully!\n');
    const strict = await run([dir, '--strict']);
    expect(strict.code).toBe(1);
    expect(strict.out).not.toContain('Package validated successfully!');
  });

  test('--crd teaches the scope of a custom kind', async () => {
    const dir = path.join(tmp, 'crd');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: c\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n');
    writeFileSync(path.join(dir, 'w.yaml'), 'apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  annotations:\n    package-operator.run/phase: deploy\n');
    const crd = path.join(tmp, 'widget-crd.yaml');
    writeFileSync(crd, 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: widgets.example.com\nspec:\n  group: example.com\n  scope: Cluster\n  names: {kind: Widget, plural: widgets}\n  versions: []\n');
    expect((await run([dir])).code).toBe(0);
    const r = await run([dir, '--crd', crd]);
    expect(r.code).toBe(1);
    expect(r.out).toContain('w.yaml:2 doc 0 kind: Widget.example.com is cluster-scoped');
  });

  test.each([
    [[], 'pkogen: validate: missing DIR (or --pull REF, --oci-layout DIR, --archive FILE)\n'],
    [['a', '--archive', 'b'], 'pkogen: validate: give exactly one of DIR, --pull, --oci-layout, --archive\n'],
    [['a', '--output', 'xml'], 'pkogen: validate: -o takes a format (text, json, github, junit, tap), got "xml"\n'],
    [['--bogus'], "pkogen: validate: unknown option --bogus (run 'pkogen validate --help')\n"],
  ] as [string[], string][])('usage error %j exits 2 with one line', async (args, err) => {
    const r = await run(args);
    expect(r.code).toBe(2);
    expect(r.err.split('\n').length).toBe(2);
    expect(r.err).toBe(err);
  });

  test('a missing --crd file is a one-line error, exit 1', async () => {
    const r = await run([`${REF}/nginx`, '--crd', path.join(tmp, 'no-such-crd.yaml')]);
    expect(r.code).toBe(1);
    expect(r.err.split('\n').length).toBe(2);
    expect(r.err).toContain('no-such-crd.yaml');
  });

  test('a missing directory is a located user error, exit 1', async () => {
    const r = await run([path.join(tmp, 'nope')]);
    expect(r.code).toBe(1);
    expect(r.err).toBe(`error: ${path.join(tmp, 'nope')}: no such directory\n`);
  });
});
