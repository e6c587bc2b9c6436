import { fileMap } from '../../src/core/filemap.js';
import { validatePackage } from '../../src/pko/validate.js';
import { templateTestRunner } from '../../src/pko/validate-template-tests.js';

// Static files only, so the renderer needs no template engine.
const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: t
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
test:
  template:
  - name: ns
    context:
      package:
        metadata: {name: t, namespace: hcp-ns}
`;
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  a: "1"\n';

describe('template tests through validatePackage', () => {
  test('matching fixtures pass', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'cm.yaml': CM }), {
      templateTests: templateTestRunner({ files: fileMap({ '.test-fixtures/ns/cm.yaml': CM }), root: '/pkg' }),
    });
    expect(fs).toEqual([]);
  });

  test('a fixture mismatch is PKO\'s message with a unified diff', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'cm.yaml': CM }), {
      templateTests: templateTestRunner({ files: fileMap({ '.test-fixtures/ns/cm.yaml': CM.replace('"1"', '"2"') }), root: '/pkg' }),
    });
    expect(fs).toHaveLength(1);
    expect(fs[0].rule).toBe('pko/fixture-mismatch');
    expect(fs[0].message).toMatch(/^File mismatch against fixture in cm.yaml: Testcase "ns"\n--- FIXTURE\/cm.yaml\n\+\+\+ ACTUAL\/cm.yaml\n/);
    expect(fs[0].message).toContain('-  a: "2"\n+  a: "1"');
  });

  test('a missing fixture directory is a warning (PKO would generate it), never written', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'cm.yaml': CM }), { templateTests: templateTestRunner({ files: new Map() }) });
    expect(fs).toEqual([{ severity: 'warning', rule: 'pko/fixtures-missing', message: 'test case "ns" has no .test-fixtures/ns/ directory; kubectl package validate would generate it and pass', file: '.test-fixtures/ns' }]);
  });

  test('a case that fails to render is reported once; the other cases are still compared with their fixtures', async () => {
    const manifest = MANIFEST.replace('test:\n  template:\n', 'test:\n  template:\n  - name: broken\n    context:\n      package:\n        metadata: {name: boom, namespace: hcp-ns}\n');
    const tmpl = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: t\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  a: "{{ if eq .package.metadata.name "boom" }}{{ fail "no" }}{{ end }}1"\n';
    const fs = await validatePackage(fileMap({ 'manifest.yaml': manifest, 't.yaml.gotmpl': tmpl }), {
      templateTests: templateTestRunner({ files: fileMap({ '.test-fixtures/ns/t.yaml': tmpl.replace(/"\{\{.*\}\}1"/, '"2"'), '.test-fixtures/broken/t.yaml': 'x' }), root: '/pkg' }),
    });
    expect(fs.map((f) => f.rule)).toEqual(['pko/render', 'pko/fixture-mismatch']);
    expect(fs[1].message).toContain('Testcase "ns"');
  });

  test('object validators run on rendered objects; the test case namespace drives the scope rule', async () => {
    const bad = CM.replace('name: c\n', 'name: c\n  namespace: other\n').replace('deploy', 'nope');
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'cm.yaml': bad }), { templateTests: templateTestRunner({ files: new Map() }) });
    expect(fs.map((f) => [f.rule, f.message])).toEqual([
      ['pko/phase-not-found', 'Phase name not found in manifest in cm.yaml idx 0'],
      ['scope/foreign-namespace', 'ConfigMap is in namespace "other" but the package is installed in "hcp-ns"; PKO rejects it at install: Must stay within the same namespace.'],
    ]);
  });
});

describe('findings in rendered templates', () => {
  test('name the .gotmpl source with doc and field path, once across test cases', async () => {
    const manifest = MANIFEST.replace('  phases: [{name: deploy}]\n', '  phases: [{name: deploy}, {name: hc, class: hosted-cluster}]\n') +
      '  - name: other\n    context:\n      package:\n        metadata: {name: t2, namespace: hcp-ns}\n';
    const tmpl = 'apiVersion: v1\nkind: Pod\nmetadata:\n  name: {{ .package.metadata.name }}\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  containers:\n  - name: c\n    image: quay.io/x/y@sha256:' + 'a'.repeat(64) + '\n    securityContext:\n      privileged: true\n';
    const fs = await validatePackage(fileMap({ 'manifest.yaml': manifest, 'pod.yaml.gotmpl': tmpl }), { templateTests: templateTestRunner({ files: new Map() }) });
    const priv = fs.filter((f) => f.rule === 'pod-security/privileged');
    expect(priv).toEqual([{ severity: 'warning', rule: 'pod-security/privileged', message: 'container "c" is privileged', file: 'pod.yaml.gotmpl', doc: 0, path: 'spec.containers[0].securityContext.privileged' }]);
  });
});

describe('components in template tests', () => {
  test('a broken rendered document in a component names the component once', async () => {
    const root = MANIFEST.replace('spec:\n', 'spec:\n  components: {}\n').replace(/test:[\s\S]*$/, '');
    const fs = await validatePackage(fileMap({
      'manifest.yaml': root,
      'components/be/manifest.yaml': MANIFEST,
      'components/be/x.yaml.gotmpl': 'apiVersion: v1\nmetadata:\n  name: {{ .package.metadata.name }}\n',
    }), { templateTests: templateTestRunner({ files: new Map() }), schema: false });
    const bad = fs.filter((f) => f.rule === 'pko/invalid-yaml');
    expect(bad).toHaveLength(1);
    expect(bad[0].message).toBe(`component "be": Invalid YAML in x.yaml idx 0: Object 'Kind' is missing in '{"apiVersion":"v1","metadata":{"name":"t"}}'\napiVersion: v1\nmetadata:\n  name: t`);
    expect(bad[0].file).toBe('components/be/x.yaml');
  });
});
