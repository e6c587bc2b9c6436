/**
 * simulate tells a finding about what the Template wrote once, with the rows it affects; what
 * belongs to one row (a namespace, a source) stays on that row. Text and JSON.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const DIGEST = 'sha256:' + 'a'.repeat(64);
const classic = (image: string) => `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: example-operator-package
parameters:
- name: REGISTRY_IMG
  required: true
- name: IMAGE_TAG
  required: true
objects:
- apiVersion: hive.openshift.io/v1
  kind: SelectorSyncSet
  metadata:
    name: example-operator
  spec:
    clusterDeploymentSelector:
      matchLabels:
        api.openshift.com/managed: "true"
    resourceApplyMode: Sync
    resources:
    - apiVersion: package-operator.run/v1alpha1
      kind: ClusterPackage
      metadata:
        name: example-operator
      spec:
        image: ${image}
        config:
          pasued: true
`;

let tmp: { dir: string; cleanup: () => void };
let tag: string;
let pinned: string;
let pkg: string;
beforeAll(() => {
  tmp = tempDir('pkogen-repeated-');
  tag = path.join(tmp.dir, 'tag.yaml');
  writeFileSync(tag, classic('${REGISTRY_IMG}:${IMAGE_TAG}'));
  pinned = path.join(tmp.dir, 'pinned.yaml');
  writeFileSync(pinned, classic(`\${REGISTRY_IMG}@${DIGEST}`).replace('- name: IMAGE_TAG\n  required: true\n', ''));
  pkg = path.join(tmp.dir, 'pkg');
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: example-operator\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        pasued: {type: string}\n');
  writeFileSync(path.join(pkg, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-operator\n  annotations:\n    package-operator.run/phase: deploy\n');
});
afterAll(() => tmp.cleanup());

const P = ['-p', 'REGISTRY_IMG=quay.io/a/b', '-p', 'IMAGE_TAG=v1'];

test('text: an image pinned by tag is one K1 warning with the rows it affects, none under the rows', async () => {
  const r = await runCli(['simulate', tag, ...P]);
  expect(r.code).toBe(0);
  const k1 = r.stdout.split('\n').filter((l) => l.includes('[K1]'));
  expect(k1).toEqual([expect.stringMatching(/^warning: .*:26 .*SelectorSyncSet\/example-operator > ClusterPackage\/example-operator: image "quay.io\/a\/b:v1" is pinned by tag: .* \(on 2 of 2 rows\) \[K1\]$/)]);
  const rows = r.stdout.split('\n').filter((l) => l.startsWith('(cluster)'));
  expect(rows.map((l) => l.split('\t').pop())).toEqual(['ok, 1 warning(s) above', 'ok, 1 warning(s) above']);
  expect(r.stdout).toMatch(/: 2 cluster\(s\), 2 valid Package\(s\), 0 error\(s\), 1 warning\(s\)\n$/);
});

test('json: the same finding once, with the count in its message; the totals count it once', async () => {
  const r = await runCli(['simulate', tag, ...P, '-o', 'json']);
  expect(r.code).toBe(0);
  const j = JSON.parse(r.stdout);
  const k1 = j.findings.filter((f: { rule: string }) => f.rule === 'K1');
  expect(k1).toEqual([expect.objectContaining({ severity: 'warning', line: 26, object: 'SelectorSyncSet/example-operator > ClusterPackage/example-operator', message: expect.stringMatching(/pinned by tag.*\(on 2 of 2 rows\)$/) })]);
  expect(j.summary).toEqual({ error: 0, info: 0, warning: 1 });
  expect(j.totals).toMatchObject({ clusters: 2, validPackages: 2, warnings: 1 });
  expect(j.packages.map((p: { object: string }) => p.object)).toEqual(['SelectorSyncSet/example-operator > ClusterPackage/example-operator', 'SelectorSyncSet/example-operator > ClusterPackage/example-operator']);
});

test('a finding the package gives each row alike (its config) is one error with its rows, in text and JSON; every row is not ok', async () => {
  const args = ['simulate', pinned, '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b'];
  const t = await runCli(args);
  expect(t.code).toBe(1);
  const errs = t.stdout.split('\n').filter((l) => l.includes('error:'));
  expect(errs).toEqual([expect.stringMatching(/^error: SelectorSyncSet\/example-operator > ClusterPackage\/example-operator: config: spec\.config\.pasued: Invalid value: \(value not shown\): .* \(on 2 of 2 rows\) \[K1\]$/)]);
  expect(t.stdout.split('\n').filter((l) => l.startsWith('(cluster)')).map((l) => l.split('\t').pop())).toEqual(['not ok: 1 error(s) above', 'not ok: 1 error(s) above']);
  expect(t.stdout).toMatch(/: 2 cluster\(s\), 0 valid Package\(s\), 1 error\(s\), 0 warning\(s\)\n$/);
  const j = JSON.parse((await runCli([...args, '-o', 'json'])).stdout);
  expect(j.findings.filter((f: { severity: string }) => f.severity === 'error')).toEqual([expect.objectContaining({ rule: 'K1', message: expect.stringMatching(/pasued.*\(on 2 of 2 rows\)$/) })]);
  expect(j.totals).toMatchObject({ validPackages: 0, errors: 1 });
});

test('an empty clusterDeploymentSelector (matchLabels indented as its sibling) is one S2 error, lint\'s, with its line', async () => {
  const file = path.join(tmp.dir, 'empty-selector.yaml');
  writeFileSync(file, classic(`\${REGISTRY_IMG}@${DIGEST}`).replace('- name: IMAGE_TAG\n  required: true\n', '').replace('    clusterDeploymentSelector:\n      matchLabels:\n        api.openshift.com/managed: "true"\n', '    clusterDeploymentSelector:\n    matchLabels:\n      api.openshift.com/managed: "true"\n'));
  const r = await runCli(['simulate', file, '-p', 'REGISTRY_IMG=quay.io/a/b']);
  expect(r.code).toBe(1);
  const s2 = r.stdout.split('\n').filter((l) => l.includes('[S2]'));
  expect(s2).toEqual([expect.stringMatching(/^error: .*empty-selector\.yaml:14 objects\[0\]\.spec\.clusterDeploymentSelector: SelectorSyncSet\/example-operator: clusterDeploymentSelector is empty/)]);
});
