import { readFileSync } from 'node:fs';
import { readDirToFileMap } from '../../src/core/fs.js';
import { validatePackage } from '../../src/pko/validate.js';
import { readFixtureDirs } from '../../src/pko/fixtures-dir.js';
import { templateTestRunner } from '../../src/pko/validate-template-tests.js';

const ROOT = '../../shared/reference/pko-packages';
/**
 * remote-phase-component's fixtures were made upstream from its built manifest, which declares
 * the image `remote-phase-manager`; the copy here declares none, so PKO's test context (images
 * = declared ones only, generateStaticImages) renders `index .images "remote-phase-manager"` as
 * Go's `<no value>`. Those two lines are the only difference we accept, and we check that.
 */
function onlyUndeclaredImageDiff(message: string): boolean {
  const changed = message.split('\n').filter((l) => /^[-+]/.test(l) && !/^(---|\+\+\+) /.test(l));
  return changed.length === 2 && /^-\s+image: registry\.package-operator\.run\/static-image$/.test(changed[0]) && /^\+\s+image: <no value>$/.test(changed[1]);
}

const expected = JSON.parse(readFileSync(`${ROOT}/expected.json`, 'utf8')) as Record<string, { ok: boolean; error?: string }>;

describe("PKO's own packages give kubectl package validate's answer", () => {
  for (const [name, exp] of Object.entries(expected)) {
    test(name, async () => {
      const dir = `${ROOT}/${name}`;
      const fm = await readDirToFileMap(dir);
      // as `pkogen validate DIR` runs it: template tests against the PKO-made fixtures
      const findings = await validatePackage(fm, { templateTests: templateTestRunner({ files: await readFixtureDirs(dir), root: dir }) });
      let pko = findings.filter((f) => f.rule.startsWith('pko/') && f.severity === 'error');
      if (name === 'remote-phase-component') {
        expect(pko.length).toBe(2);
        pko = pko.filter((f) => !(f.rule === 'pko/fixture-mismatch' && onlyUndeclaredImageDiff(f.message)));
      }
      if (exp.ok) {
        expect(pko.map((f) => f.message)).toEqual([]);
        // every fixture was compared (none missing, none generated)
        expect(findings.filter((f) => f.rule === 'pko/fixtures-missing')).toEqual([]);
      } else {
        expect(pko.map((f) => f.message).join('\n')).toContain(exp.error);
      }
    });
  }

  test('missing phase annotation is located at its file, document and line', async () => {
    const fm = await readDirToFileMap(`${ROOT}/invalid/missing_phase_annotation`);
    const f = (await validatePackage(fm)).find((x) => x.rule === 'pko/missing-phase-annotation')!;
    expect(f).toMatchObject({ file: 'deployment.yaml', doc: 0, line: 1, message: 'Missing package-operator.run/phase Annotation in deployment.yaml idx 0' });
  });

  test('missing kind gives the JSON of the document and the document text', async () => {
    const fm = await readDirToFileMap(`${ROOT}/invalid/missing_resource_gvk`);
    const f = (await validatePackage(fm)).find((x) => x.rule === 'pko/invalid-yaml')!;
    expect(f.message.startsWith(`Invalid YAML in deployment.yaml idx 0: Object 'Kind' is missing in '{"apiVersion":"apps/v1","kind":null,"metadata":{"annotations":{"package-operator.run/phase":"deploy"},"labels":{"app":"test"},"name":"test"}`)).toBe(true);
    expect(f.message).toContain('\napiVersion: apps/v1\nkind:\n');
  });

  test('every PKO-made fixture is reproduced and compared (test cases × components)', async () => {
    const dir = `${ROOT}/test-stub-multi`;
    const { runPackageTemplateTests } = await import('../../src/pko/validate-template-tests.js');
    const { loadPackage } = await import('../../src/pko/loader.js');
    const pkg = loadPackage(await readDirToFileMap(dir));
    const fixtures = { files: await readFixtureDirs(dir), root: dir };
    const root = runPackageTemplateTests(pkg, '', fixtures);
    const backend = runPackageTemplateTests(pkg.components!.backend, 'backend', fixtures);
    expect([root.findings, backend.findings]).toEqual([[], []]);
    expect(root.rendered.map((r) => r.testCase)).toEqual(['namespace-scope', 'cluster-scope']);
    expect(backend.rendered[0].objects.map((o) => o.object.kind)).toEqual(['Deployment']);
  });

  test('a changed fixture is PKO\'s mismatch, prefixed for a component', async () => {
    const dir = `${ROOT}/test-stub-multi`;
    const files = await readFixtureDirs(dir);
    const key = 'components/backend/.test-fixtures/namespace-scope/deployment.yaml';
    files.set(key, new TextEncoder().encode(new TextDecoder().decode(files.get(key)!).replace('replicas: 2', 'replicas: 9')));
    const fs = await validatePackage(await readDirToFileMap(dir), { templateTests: templateTestRunner({ files, root: dir }) });
    const f = fs.filter((x) => x.rule === 'pko/fixture-mismatch');
    expect(f).toHaveLength(1);
    expect(f[0].message).toMatch(/^component "backend": File mismatch against fixture in deployment.yaml: Testcase "namespace-scope"\n--- FIXTURE\/deployment.yaml\n\+\+\+ ACTUAL\/deployment.yaml\n/);
    expect(f[0].message).toContain('-  replicas: 9\n+  replicas: 2');
    expect(f[0].file).toBe('components/backend/deployment.yaml');
  });

  test('bad manifest: field error located at the manifest', async () => {
    const fm = await readDirToFileMap(`${ROOT}/invalid/bad_manifest`);
    const f = (await validatePackage(fm)).filter((x) => x.rule === 'pko/manifest-invalid');
    expect(f).toEqual([{ severity: 'error', rule: 'pko/manifest-invalid', message: 'spec.scopes: Required value', file: 'manifest.yaml', path: 'spec.scopes', line: 5 }]);
  });
});
