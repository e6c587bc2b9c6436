/**
 * Symbolic links in `.test-fixtures/`: followed as PKO's template test follows them (`os.Stat` and
 * `diff` on the fixture path), but only inside the package directory and never in a loop.
 */
import { lstatSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { readFixtureTree } from '../../src/pko/fixtures-dir.js';
import { runCli, tempDir } from '../helpers.js';

const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: demo
spec:
  scopes: [Namespaced]
  phases:
  - name: deploy
test:
  template:
  - name: t
    context:
      package:
        metadata: {name: demo, namespace: demo-ns}
`;
const CM = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  annotations:\n    package-operator.run/phase: deploy\n`;

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir('pkogen-fixture-links-');
});
afterAll(() => tmp.cleanup());

/** A package whose static `shared/cm.yaml` is also the fixture, reached through `.test-fixtures/t/shared`. */
function pkg(name: string, link: string): string {
  const dir = path.join(tmp.dir, name);
  mkdirSync(path.join(dir, 'shared'), { recursive: true });
  mkdirSync(path.join(dir, '.test-fixtures', 't'), { recursive: true });
  writeFileSync(path.join(dir, 'manifest.yaml'), MANIFEST);
  writeFileSync(path.join(dir, 'shared', 'cm.yaml'), CM('a'));
  symlinkSync(link, path.join(dir, '.test-fixtures', 't', 'shared'));
  return dir;
}

async function validate(dir: string) {
  const r = await runCli(['validate', dir, '-o', 'json']);
  return { code: r.code, ...(JSON.parse(r.stdout) as { findings: { severity: string; rule: string; message: string; file?: string }[] }) };
}

test('a fixture directory linked inside the package is followed (PKO\'s own package does this)', async () => {
  const dir = pkg('inside', '../../shared');
  const v = await validate(dir);
  expect(v.findings).toEqual([]);
  expect(v.code).toBe(0);
  const tree = await readFixtureTree(dir);
  expect([...tree.files.keys()]).toEqual(['.test-fixtures/t/shared/cm.yaml']);
  expect([...tree.linked]).toEqual(['.test-fixtures/t/shared/cm.yaml']);
});

test('a linked file that is not rendered is not "should not exist": PKO\'s fixture listing skips links', async () => {
  const dir = pkg('extra', '../../shared');
  writeFileSync(path.join(dir, 'shared', 'README.txt'), 'not yaml\n');
  writeFileSync(path.join(dir, 'shared', '_notes.yaml'), 'x: 1\n');
  expect((await validate(dir)).findings).toEqual([]);
  // the same stray file as a plain fixture file is PKO's error
  writeFileSync(path.join(dir, '.test-fixtures', 't', 'stray.yaml'), CM('s'));
  expect((await validate(dir)).findings.map((f) => f.message)).toEqual(['file stray.yaml should not exist, filtered or empty after template render']);
});

test('a link out of the package directory is not followed, and says so', async () => {
  const outside = path.join(tmp.dir, 'outside');
  mkdirSync(outside, { recursive: true });
  writeFileSync(path.join(outside, 'cm.yaml'), CM('a'));
  const dir = pkg('escape', outside);
  const v = await validate(dir);
  expect(v.code).toBe(1);
  expect(v.findings).toEqual([
    expect.objectContaining({ severity: 'error', message: expect.stringMatching(/^file .*\/escape\/\.test-fixtures\/t\/shared\/cm\.yaml not found in fixtures folder$/) }),
    { severity: 'warning', rule: 'fixtures/symlink-not-followed', message: 'symbolic link in the fixtures not followed: its target is outside the package directory (kubectl package follows it)', file: '.test-fixtures/t/shared' },
  ]);
  expect((await readFixtureTree(dir)).files.size).toBe(0);
});

test('a link loop is not followed and ends', async () => {
  const dir = pkg('loop', '../../shared');
  symlinkSync('..', path.join(dir, 'shared', 'up'));
  symlinkSync('../..', path.join(dir, '.test-fixtures', 't', 'root'));
  const tree = await readFixtureTree(dir);
  expect([...tree.files.keys()]).toEqual(['.test-fixtures/t/shared/cm.yaml']);
  expect(tree.skipped).toEqual([
    { path: '.test-fixtures/t/root', reason: 'it leads back into a directory it is in (a loop)' },
    { path: '.test-fixtures/t/shared/up', reason: 'it leads back into a directory it is in (a loop)' },
  ]);
  const self = path.join(dir, '.test-fixtures', 't', 'self');
  symlinkSync('self', self);
  expect((await readFixtureTree(dir)).skipped).toContainEqual({ path: '.test-fixtures/t/self', reason: 'a symbolic link loop' });
});

test('the library runner (dirTemplateTestRunner) reads fixtures the same way', async () => {
  const { dirTemplateTestRunner } = await import('../../src/pko/template-test-runner.js');
  const { validatePackage } = await import('../../src/pko/validate.js');
  const { readDirToFileMap } = await import('../../src/core/fs.js');
  const dir = pkg('runner', '../../shared');
  expect(await validatePackage(await readDirToFileMap(dir), { templateTests: dirTemplateTestRunner(dir), pkoOnly: true })).toEqual([]);
  // the case directory was found, so nothing was generated over it: the link is still there
  expect(lstatSync(path.join(dir, '.test-fixtures', 't', 'shared')).isSymbolicLink()).toBe(true);
});
