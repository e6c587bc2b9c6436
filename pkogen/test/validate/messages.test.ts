import { fileMap } from '../../src/core/filemap.js';
import { aggregateText } from '../../src/pko/field-errors.js';
import { packageFilesFromLayers } from '../../src/pko/image-files.js';
import { loadPackage } from '../../src/pko/loader.js';
import { validateLockConsistency } from '../../src/pko/lock-consistency.js';
import { validatePackageManifest } from '../../src/pko/manifest-validation.js';
import { validateObjects } from '../../src/pko/object-validators.js';
import { parseObjects } from '../../src/pko/objects.js';
import type { PackageManifest } from '../../src/pko/types.js';
import { Violation } from '../../src/pko/types.js';
import { validatePackage } from '../../src/pko/validate.js';

const enc = (s: string) => new TextEncoder().encode(s);
const HEAD = 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\n';
const GOOD = `${HEAD}metadata:\n  name: p\nspec:\n  scopes: [Namespaced]\n  phases:\n  - name: deploy\n`;

function empty(): PackageManifest {
  return { apiVersion: '', kind: 'PackageManifest', metadata: {}, spec: { scopes: [], phases: [] } } as unknown as PackageManifest;
}

describe('manifest field errors (PKO packagemanifestvalidation tests)', () => {
  const base = ['metadata.name: Required value', 'spec.scopes: Required value', 'spec.phases: Required value'];
  const cases: [string, (m: PackageManifest) => void, string[]][] = [
    ['empty', () => {}, base],
    ['invalid constraints', (m) => (m.spec.constraints = [{ platformVersion: { name: 'OpenShift', range: 'banana' } }]), [...base, 'spec.constraints[0].platformVersion.range: Invalid value: "banana": improper constraint']],
    ['constraint name and range required', (m) => (m.spec.constraints = [{ platformVersion: { name: '', range: '' } }]), [...base, 'spec.constraints[0].platformVersion.name: Required value', 'spec.constraints[0].platformVersion.range: Required value']],
    ['duplicated phase', (m) => (m.spec.phases = [{ name: 'test' }, { name: 'test' }]), ['metadata.name: Required value', 'spec.scopes: Required value', 'spec.phases[1].name: Invalid value: "test": must be unique']],
    ['openAPI invalid template context', (m) => {
      m.spec.config = { openAPIV3Schema: { type: 'object', required: ['banana'] } };
      m.test = { template: [{ name: 'Invalid', context: {} as never }] };
    }, [...base, 'test.template[0].context.config.banana: Required value']],
    ['empty image', (m) => (m.spec.images = [{ name: '', image: '' }]), [...base, 'spec.images[0].name: Invalid value: "": must be non empty', 'spec.images[0].image: Invalid value: "": must be non empty']],
    ['empty image name', (m) => (m.spec.images = [{ name: '', image: 'nginx:1.23.3' }]), [...base, 'spec.images[0].name: Invalid value: "": must be non empty']],
    ['empty image identifier', (m) => (m.spec.images = [{ name: 'nginx', image: '' }]), [...base, 'spec.images[0].image: Invalid value: "": must be non empty']],
    ['duplicated image name', (m) => (m.spec.images = [{ name: 'nginx', image: 'nginx:1.23.3' }, { name: 'nginx', image: 'nginx:1.22.1' }]), [...base, 'spec.images[1].name: Invalid value: "nginx": must be unique']],
    ['kubeconform missing kubernetesVersion', (m) => (m.test = { kubeconform: { kubernetesVersion: '' } }), [...base, 'test.kubeconform.kubernetesVersion: Required value']],
    ['probes required', (m) => (m.spec.availabilityProbes = [{ selector: {}, probes: [] }]), [...base, 'spec.availabilityProbes[0].probes: Required value']],
    ['test case name', (m) => (m.test = { template: [{ name: '..x', context: {} as never }] }), [...base, 'test.template[0].name: Invalid value: "..x": must not start with \'..\'']],
  ];
  test.each(cases)('%s', (_n, mutate, want) => {
    const m = empty();
    mutate(m);
    expect(validatePackageManifest(m).map((e) => `${e.field}: ${require_body(e)}`)).toEqual(want);
  });
  function require_body(e: Parameters<typeof aggregateText>[0][0]): string {
    return aggregateText([e]).slice(e.field.length + 2);
  }
  test('aggregate format', () => {
    expect(aggregateText(validatePackageManifest(empty()))).toBe('[metadata.name: Required value, spec.scopes: Required value, spec.phases: Required value]');
    const m = empty();
    m.metadata.name = 'x';
    m.spec.phases = [{ name: 'a' }];
    expect(aggregateText(validatePackageManifest(m))).toBe('spec.scopes: Required value');
  });
});

describe('config schema rules (§2.2)', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['nullable root', { type: 'object', nullable: true }, 'spec.config.openAPIV3Schema.nullable: Forbidden: nullable cannot be true at the root'],
    ['type null', { type: 'object', properties: { a: { type: 'null' } } }, 'spec.config.openAPIV3Schema.properties[a].type: Forbidden: type cannot be set to null, use nullable as an alternative'],
    ['bad type', { type: 'object', properties: { a: { type: 'str' } } }, 'spec.config.openAPIV3Schema.properties[a].type: Unsupported value: "str": supported values: "array", "boolean", "integer", "number", "object", "string"'],
    ['uniqueItems', { type: 'object', properties: { a: { type: 'array', items: { type: 'string' }, uniqueItems: true } } }, 'spec.config.openAPIV3Schema.properties[a].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime complexity becomes quadratic'],
    ['additionalProperties with properties', { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: { type: 'string' } }, 'spec.config.openAPIV3Schema.additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive'],
    ['preserve-unknown false', { type: 'object', 'x-kubernetes-preserve-unknown-fields': false }, 'spec.config.openAPIV3Schema.x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined'],
    ['$ref', { type: 'object', properties: { a: { $ref: '#/x', type: 'string' } } }, 'spec.config.openAPIV3Schema.properties[a].$ref: Forbidden: $ref is not supported'],
    ['patternProperties', { type: 'object', patternProperties: { x: { type: 'string' } } }, 'spec.config.openAPIV3Schema.patternProperties: Forbidden: patternProperties is not supported'],
    ['items array', { type: 'object', properties: { a: { type: 'array', items: [{ type: 'string' }] } } }, 'spec.config.openAPIV3Schema.properties[a].items: Forbidden: items must be a schema object and not an array'],
    ['structural: untyped property', { type: 'object', properties: { a: { description: 'x' } } }, 'spec.config.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields'],
    ['default in metadata', { type: 'object', properties: { metadata: { type: 'object', default: {} } } }, 'spec.config.openAPIV3Schema.properties[metadata].default: Forbidden: must not be set in top-level metadata'],
    ['default of wrong type', { type: 'object', properties: { a: { type: 'integer', default: 'x' } } }, 'spec.config.openAPIV3Schema.properties[a].default: Invalid value: "x": default in body must be of type integer: "string"'],
  ];
  test.each(cases)('%s', (_n, schema, want) => {
    const m = empty();
    m.metadata.name = 'x';
    m.spec.scopes = ['Cluster'];
    m.spec.phases = [{ name: 'a' }];
    m.spec.config = { openAPIV3Schema: schema };
    expect(validatePackageManifest(m).map((e) => aggregateText([e]))).toContain(want);
  });
});

describe('loader structure violations', () => {
  const cases: [string, Record<string, string>, string][] = [
    ['no manifest', { 'a.yaml': 'x: 1' }, 'PackageManifest not found: searched at manifest.yaml and manifest.yml'],
    ['both manifests', { 'manifest.yaml': GOOD, 'manifest.yml': GOOD }, 'PackageManifest present multiple times'],
    ['both locks', { 'manifest.yaml': GOOD, 'manifest.lock.yaml': '', 'manifest.lock.yml': '' }, 'PackageManifestLock present multiple times'],
    ['wrong kind', { 'manifest.yaml': 'apiVersion: banana/v3\nkind: Bread\n' }, 'unknown GVK in manifest.yaml: GroupKind must be PackageManifest.manifests.package-operator.run, is: Bread.banana'],
    ['core kind', { 'manifest.yaml': 'apiVersion: v1\nkind: ConfigMap\n' }, 'unknown GVK in manifest.yaml: GroupKind must be PackageManifest.manifests.package-operator.run, is: ConfigMap'],
    ['unknown version', { 'manifest.yaml': 'apiVersion: manifests.package-operator.run/v500\nkind: PackageManifest\n' }, 'unknown GVK in manifest.yaml: unknown version v500, supported versions: v1alpha1'],
    ['invalid yaml', { 'manifest.yaml': '"' }, 'Invalid YAML in manifest.yaml: '],
    ['wrong type', { 'manifest.yaml': `${HEAD}metadata:\n  name: p\nspec:\n  scopes: Namespaced\n` }, 'Invalid YAML in manifest.yaml: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal string into Go struct field PackageManifestSpec.spec.scopes of type []v1alpha1.PackageManifestScope'],
    ['file in components dir', { 'manifest.yaml': GOOD + '  components: {}\n', 'components/banana.txt': 'bread' }, 'The components directory may only contain folders and dot files in components/banana.txt'],
    ['nested multi-component', { 'manifest.yaml': GOOD.replace('spec:\n', 'spec:\n  components: {}\n'), 'components/backend/manifest.yaml': GOOD.replace('spec:\n', 'spec:\n  components: {}\n') }, 'Nesting multi-component packages not allowed [backend]'],
    ['component without manifest', { 'manifest.yaml': GOOD.replace('spec:\n', 'spec:\n  components: {}\n'), 'components/backend/x.yaml': 'a: 1' }, 'PackageManifest not found: searched at manifest.yaml and manifest.yml'],
  ];
  test.each(cases)('%s', (_n, files, want) => {
    let msg = '';
    try {
      loadPackage(fileMap(files));
    } catch (e) {
      expect(e).toBeInstanceOf(Violation);
      msg = (e as Error).message;
    }
    expect(msg.startsWith(want)).toBe(true);
  });

  test('lenient decoding: unknown keys ignored, keys case-insensitive, component name from directory', () => {
    const pkg = loadPackage(fileMap({
      'manifest.yaml': `${HEAD}metadata:\n  name: root\nspec:\n  Scopes: [Cluster]\n  phases: [{name: a}]\n  bogus: 1\n  components: {}\n`,
      'components/backend/manifest.yaml': GOOD,
      'components/backend/d.yaml': 'kind: X',
    }));
    expect(pkg.manifest.spec.scopes).toEqual(['Cluster']);
    expect(pkg.components!.backend.manifest.metadata.name).toBe('backend');
    expect([...pkg.components!.backend.files.keys()]).toEqual(['d.yaml']);
    expect(pkg.files.size).toBe(0);
  });
});

describe('object validators', () => {
  const m = { spec: { phases: [{ name: 'deploy' }], scopes: ['Cluster'] } } as unknown as PackageManifest;
  test('PKO unit-test texts', () => {
    const { objects } = parseObjects(fileMap({ 'test.yaml': 'kind: A\napiVersion: v1\n---\nkind: A\napiVersion: v1\nmetadata:\n  annotations:\n    package-operator.run/phase: something\n---\nkind: B\napiVersion: v1\nmetadata:\n  annotations:\n    package-operator.run/phase: deploy\n' }));
    expect(validateObjects(objects, m).map((v) => v.message)).toEqual([
      'Duplicate Object in test.yaml idx 1',
      'Missing package-operator.run/phase Annotation in test.yaml idx 0',
      'Phase name not found in manifest in test.yaml idx 1',
    ]);
  });
  test('GVK not set', () => {
    const { objects } = parseObjects(fileMap({ 'a.yaml': 'kind: A\nmetadata:\n  annotations:\n    package-operator.run/phase: deploy\n' }));
    expect(validateObjects(objects, m).map((v) => v.message)).toEqual(['GroupVersionKind not set in a.yaml idx 0']);
  });
  test('labels invalid', () => {
    const { objects } = parseObjects(fileMap({ 'a.yaml': 'apiVersion: v1\nkind: A\nmetadata:\n  labels:\n    "-bad-": x\n  annotations:\n    package-operator.run/phase: deploy\n' }));
    expect(validateObjects(objects, m).map((v) => v.message)).toEqual([
      `Labels invalid in a.yaml idx 0: metadata.labels: Invalid value: "-bad-": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')`,
    ]);
  });
  test('PKO file rules: _ files and non-yaml ignored, cutset trim, empty docs dropped', () => {
    const { objects, violations } = parseObjects(fileMap({ '_h.yaml': 'x', 'r.md': 'x', 'a.yml': '---\n\n---\nkind: A\n---\nnull\n---\n# c\n---\n' }));
    expect(violations).toEqual([]);
    expect(objects.map((o) => [o.path, o.index, o.doc])).toEqual([['a.yml', 0, 0]]);
  });
  test('component prefix', async () => {
    const fs = await validatePackage(fileMap({
      'manifest.yaml': GOOD.replace('spec:\n', 'spec:\n  components: {}\n'),
      'components/backend/manifest.yaml': GOOD,
      'components/backend/deployment.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    package-operator.run/phase: nope\n',
    }));
    expect(fs.filter((f) => f.rule.startsWith('pko/')).map((f) => [f.message, f.file])).toEqual([
      ['component "backend": Phase name not found in manifest in deployment.yaml idx 0', 'components/backend/deployment.yaml'],
    ]);
  });
});

describe('lock consistency', () => {
  const withImages = `${GOOD}  images:\n  - name: web\n    image: nginx:1\n`;
  const lock = (images: string) => `apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifestLock\nspec:\n  images:\n${images}`;
  test.each([
    ['no lock', {}, ['Missing image in manifest.lock.yaml, but using PackageManifest.spec.images. Try running: kubectl package update in manifest.lock.yaml']],
    ['missing name', { 'manifest.lock.yaml': lock('  - {name: other, image: x, digest: sha256:a}\n') }, ['Missing image in manifest.lock.yaml, but using PackageManifest.spec.images. Try running: kubectl package update: web', 'Image specified in manifest does not match with lockfile. Try running: kubectl package update: other']],
    ['different image', { 'manifest.lock.yaml': lock('  - {name: web, image: nginx:2, digest: sha256:a}\n') }, ['Image specified in manifest does not match with lockfile. Try running: kubectl package update: "web": "nginx:1" vs "nginx:2"']],
    ['consistent', { 'manifest.lock.yaml': lock('  - {name: web, image: nginx:1, digest: sha256:a}\n') }, []],
  ] as [string, Record<string, string>, string[]][])('%s', (_n, extra, want) => {
    expect(validateLockConsistency(loadPackage(fileMap({ 'manifest.yaml': withImages, ...extra }))).map((v) => v.message)).toEqual(want);
  });
});

describe('image file rules (§1.2)', () => {
  test('only package/, dot segments skipped, .. ignored, later layers override', () => {
    const fm = packageFilesFromLayers([
      [{ name: 'package/manifest.yaml', data: enc('a') }, { name: 'package/.hidden/x', data: enc('h') }, { name: 'etc/passwd', data: enc('p') }],
      [{ name: 'package/../../etc/shadow', data: enc('s') }, { name: 'package/manifest.yaml', data: enc('b') }, { name: 'package/d', data: undefined }, { name: './package/x.yaml', data: enc('x') }],
    ]);
    expect([...fm.entries()].map(([k, v]) => [k, new TextDecoder().decode(v)])).toEqual([['manifest.yaml', 'b'], ['x.yaml', 'x']]);
  });
  test('empty image', () => {
    expect(() => packageFilesFromLayers([[{ name: 'other/x', data: enc('x') }]])).toThrow('Package image contains no files. Might be corrupted.');
  });
});

describe('more reasons and places', () => {
  test('loadComponent: not enabled, not found, root only', async () => {
    const { loadComponent } = await import('../../src/pko/loader.js');
    expect(() => loadComponent(fileMap({ 'manifest.yaml': GOOD }), 'x')).toThrow(/^Components not enabled$/);
    const multi = fileMap({ 'manifest.yaml': GOOD.replace('spec:\n', 'spec:\n  components: {}\n'), 'components/backend/manifest.yaml': GOOD });
    expect(() => loadComponent(multi, 'foobar')).toThrow(/^Component not found \[foobar\]$/);
    expect(loadComponent(multi, '').components).toBeUndefined();
    expect(loadComponent(multi, 'backend').manifest.metadata.name).toBe('backend');
  });

  test('lock field errors are located in the lock file', async () => {
    const fs = await validatePackage(fileMap({
      'manifest.yaml': GOOD,
      'manifest.lock.yaml': 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifestLock\nspec:\n  images:\n  - name: a\n    image: x\n',
    }), { schema: false });
    expect(fs.filter((f) => f.rule === 'pko/lock-invalid')).toEqual([
      { severity: 'error', rule: 'pko/lock-invalid', message: 'spec.images[0].digest: Invalid value: "": must be non empty', file: 'manifest.lock.yaml', path: 'spec.images[0].digest', line: 5 },
    ]);
  });

  test('doc counts YAML documents while PKO\'s idx counts objects', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': GOOD, 'a.yaml': 'kind: A\napiVersion: v1\nmetadata:\n  annotations:\n    package-operator.run/phase: deploy\n---\n---\nkind: B\napiVersion: v1\n' }), { schema: false });
    expect(fs.filter((f) => f.rule.startsWith('pko/'))).toEqual([
      { severity: 'error', rule: 'pko/missing-phase-annotation', message: 'Missing package-operator.run/phase Annotation in a.yaml idx 1', file: 'a.yaml', doc: 2, line: 8 },
    ]);
  });

  test('test-case config is checked without defaults (required + default still required)', () => {
    const m = empty();
    m.metadata.name = 'x';
    m.spec.scopes = ['Cluster'];
    m.spec.phases = [{ name: 'a' }];
    m.spec.config = { openAPIV3Schema: { type: 'object', required: ['img'], properties: { img: { type: 'string', default: 'd' }, n: { type: 'integer' } } } };
    m.test = { template: [{ name: 'c', context: { config: { n: 'x' } } as never }] };
    expect(validatePackageManifest(m).map((e) => aggregateText([e]))).toEqual([
      'test.template[0].context.config.img: Required value',
      'test.template[0].context.config.n: Invalid value: (value not shown): n in body must be of type integer: "string"',
    ]);
  });
});
