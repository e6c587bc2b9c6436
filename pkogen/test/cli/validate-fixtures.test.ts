/**
 * `pkogen validate DIR` writes the fixtures of a test case that has none, as
 * `kubectl package validate` does (PKO e03279db, internal/packages/internal/packagevalidation/
 * templatevalidation.go: runTestCase → renderTemplateFiles when .test-fixtures/<case> does not
 * exist), and says so; the next run compares against them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: fx
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
test:
  template:
  - name: one
    context:
      package:
        metadata: {name: fx, namespace: fx-ns}
`;
const CM = `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    package-operator.run/phase: deploy
data:
  ns: "{{ .package.metadata.namespace }}"
`;

describe('validate writes missing fixtures, as kubectl package validate does', () => {
  it('generates .test-fixtures/<case>/, reports it, passes; the next run checks against it', async () => {
    const t = tempDir('pkogen-fx-');
    try {
      const dir = path.join(t.dir, 'pkg');
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'manifest.yaml'), MANIFEST);
      writeFileSync(path.join(dir, 'cm.yaml.gotmpl'), CM);
      const first = await runCli(['validate', dir]);
      expect(first.code).toBe(0);
      expect(first.stdout).toMatch(/info: .*test case "one" had no \.test-fixtures\/one\/ directory: generated it, as kubectl package validate does.*\[pko\/fixtures-missing\]/);
      expect(first.stdout).toContain('Package validated successfully!');
      const fixture = path.join(dir, '.test-fixtures', 'one', 'cm.yaml');
      expect(existsSync(fixture)).toBe(true);
      expect(readFileSync(fixture, 'utf8')).toContain('ns: "fx-ns"');

      const second = await runCli(['validate', dir, '--strict']);
      expect(second.stderr).toBe('');
      expect(second.code).toBe(0);

      writeFileSync(fixture, readFileSync(fixture, 'utf8').replace('fx-ns', 'other'));
      const third = await runCli(['validate', dir]);
      expect(third.code).toBe(1);
      expect(third.stdout + third.stderr).toMatch(/File mismatch against fixture/);
    } finally {
      t.cleanup();
    }
  });
});

describe('validate --strict that fails on warnings says so', () => {
  it('prints a summary line naming --strict', async () => {
    const t = tempDir('pkogen-strict-');
    try {
      const dir = path.join(t.dir, 'pkg');
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'manifest.yaml'), MANIFEST.replace(/test:[\s\S]*$/, '').replace('[Namespaced]', '[Cluster]'));
      // A Job without activeDeadlineSeconds and with a fixed name: two warnings, no error.
      writeFileSync(path.join(dir, 'job.yaml'), `apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  namespace: default\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: a\n        image: quay.io/a/b@sha256:${'a'.repeat(64)}\n`);
      const plain = await runCli(['validate', dir]);
      expect(plain.code).toBe(0);
      const strict = await runCli(['validate', dir, '--strict']);
      expect(strict.code).toBe(1);
      expect(strict.stdout).toMatch(/\nvalidation failed: 0 error\(s\), [1-9]\d* warning\(s\) \(--strict: warnings fail\)\n$/);
    } finally {
      t.cleanup();
    }
  });
});
