import { readFileSync } from 'node:fs';
import { readDirToFileMap } from '../../src/core/fs.js';
import { validatePackage } from '../../src/pko/validate.js';

const ROOT = '../shared/reference/pko-packages';
const expected = JSON.parse(readFileSync(`${ROOT}/expected.json`, 'utf8')) as Record<string, { ok: boolean; error?: string }>;

describe("PKO's own packages give kubectl package validate's answer", () => {
  for (const [name, exp] of Object.entries(expected)) {
    test(name, async () => {
      const fm = await readDirToFileMap(`${ROOT}/${name}`);
      const findings = await validatePackage(fm);
      const pko = findings.filter((f) => f.rule.startsWith('pko/') && f.severity === 'error');
      if (exp.ok) {
        expect(pko.map((f) => f.message)).toEqual([]);
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

  test('bad manifest: field error located at the manifest', async () => {
    const fm = await readDirToFileMap(`${ROOT}/invalid/bad_manifest`);
    const f = (await validatePackage(fm)).filter((x) => x.rule === 'pko/manifest-invalid');
    expect(f).toEqual([{ severity: 'error', rule: 'pko/manifest-invalid', message: 'spec.scopes: Required value', file: 'manifest.yaml', path: 'spec.scopes', line: 5 }]);
  });
});
