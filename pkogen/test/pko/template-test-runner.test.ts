import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readDirToFileMap } from '../../src/core/fs.js';
import { dirTemplateTestRunner } from '../../src/pko/template-test-runner.js';
import { validatePackage } from '../../src/pko/validate.js';

const REF = path.resolve('../../shared/reference/pko-packages');

function copyDir(src: string, dst: string): void {
  fs.cpSync(src, dst, { recursive: true });
  const fix = (p: string) => {
    fs.chmodSync(p, fs.statSync(p).isDirectory() ? 0o755 : 0o644);
    if (fs.statSync(p).isDirectory()) for (const e of fs.readdirSync(p)) fix(path.join(p, e));
  };
  fix(dst);
}

describe('template tests inside validatePackage', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pkogen-tt-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a PKO reference package passes', async () => {
    const pkgDir = path.join(dir, 'p');
    copyDir(path.join(REF, 'test-stub-multi'), pkgDir);
    const findings = await validatePackage(await readDirToFileMap(pkgDir), { templateTests: dirTemplateTestRunner(pkgDir), pkoOnly: true });
    expect(findings.filter((f) => f.severity === 'error')).toEqual([]);
  });

  test('a changed template is a fixture mismatch with a diff -u body', async () => {
    const pkgDir = path.join(dir, 'p');
    copyDir(path.join(REF, 'test-stub'), pkgDir);
    const f = path.join(pkgDir, 'deployment.yaml.gotmpl');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('replicas: 2', 'replicas: 3'));
    const findings = await validatePackage(await readDirToFileMap(pkgDir), { templateTests: dirTemplateTestRunner(pkgDir), pkoOnly: true });
    const msgs = findings.map((x) => x.message);
    expect(msgs).toContainEqual(
      expect.stringContaining('File mismatch against fixture in deployment.yaml: Testcase "namespace-scope"\n--- FIXTURE/deployment.yaml\n+++ ACTUAL/deployment.yaml\n@@ -11,7 +11,7 @@'),
    );
    expect(msgs.join('\n')).toContain('-  replicas: 2\n+  replicas: 3');
  });

  test('missing fixture directories are generated, then pass', async () => {
    const pkgDir = path.join(dir, 'p');
    copyDir(path.join(REF, 'test-stub-cel'), pkgDir);
    fs.rmSync(path.join(pkgDir, '.test-fixtures'), { recursive: true });
    const run = async () => validatePackage(await readDirToFileMap(pkgDir), { templateTests: dirTemplateTestRunner(pkgDir), pkoOnly: true });
    expect((await run()).filter((f) => f.severity === 'error')).toEqual([]);
    for (const c of ['cluster-scope', 'namespace-scope']) {
      const want = path.join(REF, 'test-stub-cel/.test-fixtures', c);
      for (const f of fs.readdirSync(want)) expect(fs.readFileSync(path.join(pkgDir, '.test-fixtures', c, f), 'utf8')).toBe(fs.readFileSync(path.join(want, f), 'utf8'));
      expect(fs.readdirSync(path.join(pkgDir, '.test-fixtures', c)).sort()).toEqual(fs.readdirSync(want).sort());
    }
    expect((await run()).filter((f) => f.severity === 'error')).toEqual([]);
  });

  test('a stray fixture file is reported', async () => {
    const pkgDir = path.join(dir, 'p');
    copyDir(path.join(REF, 'test-stub'), pkgDir);
    fs.writeFileSync(path.join(pkgDir, '.test-fixtures/namespace-scope/extra.yaml'), 'x: 1\n');
    const findings = await validatePackage(await readDirToFileMap(pkgDir), { templateTests: dirTemplateTestRunner(pkgDir), pkoOnly: true });
    expect(findings.map((f) => f.message)).toContainEqual(expect.stringContaining('file extra.yaml should not exist, filtered or empty after template render'));
  });
});
