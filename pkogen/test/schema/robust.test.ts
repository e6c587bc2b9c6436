import fc from 'fast-check';
import { createSchemaRegistry } from '../../src/schema/registry.js';

const registry = createSchemaRegistry();

const GVKS: [string, string][] = [
  ['apps/v1', 'Deployment'], ['v1', 'ConfigMap'], ['v1', 'Service'], ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['package-operator.run/v1alpha1', 'Package'], ['package-operator.run/v1alpha1', 'ObjectSet'],
  ['policy.open-cluster-management.io/v1', 'ConfigurationPolicy'], ['machineconfiguration.openshift.io/v1', 'MachineOSConfig'],
  ['package-operator.run/v1alpha1', 'HostedClusterPackage'], ['example.com/v1', 'Unknown'],
];

// Values shaped like YAML output: scalars, arrays and maps, keys including real field names.
const key = fc.oneof(fc.constantFrom('spec', 'metadata', 'name', 'labels', 'template', 'containers', 'image', 'phases', 'objects', 'object', 'static', 'partition', 'order', 'config', 'apiVersion', 'kind', '0', 'a.b/c', ''), fc.string({ maxLength: 6 }));
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null), fc.boolean(), fc.integer(), fc.double({ noNaN: true }), fc.string({ maxLength: 8 }),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(key, tie('value'), { maxKeys: 4 }),
  ),
}));

test('validate never throws and every issue is well formed (random objects, fixed seed)', () => {
  fc.assert(
    fc.property(fc.constantFrom(...GVKS), fc.dictionary(key, value, { maxKeys: 5 }), ([apiVersion, kind], rest) => {
      const obj = { ...rest, apiVersion, kind };
      const r = registry.validate(obj);
      expect(typeof r.known).toBe('boolean');
      for (const i of r.issues) {
        expect(typeof i.path).toBe('string');
        expect(i.message.length).toBeGreaterThan(0);
      }
      // Same input, same answer.
      expect(registry.validate(obj)).toEqual(r);
    }),
    { seed: 20261122, numRuns: 400 },
  );
});

test('non-object inputs are not-known results, not exceptions', () => {
  for (const v of [null, undefined, 1, 'x', [], [{ apiVersion: 'v1', kind: 'ConfigMap' }]]) {
    expect(registry.validate(v).known).toBe(false);
  }
  expect(registry.validate({ apiVersion: 'v1', kind: 'ConfigMap', metadata: 'x' }).issues.length).toBeGreaterThan(0);
  expect(registry.validate({ apiVersion: 7, kind: ['x'] }).issues.map((i) => i.path)).toEqual(['apiVersion', 'kind']);
});

test('YAML alias cycles and deep nesting give an issue, not a stack overflow', () => {
  const crdSchema: Record<string, unknown> = { type: 'object' };
  crdSchema.properties = { self: crdSchema }; // JSONSchemaProps is recursive in the field tree
  const crd = {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
    spec: { group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets' }, versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: crdSchema } }] },
  };
  expect(registry.validate(crd)).toMatchObject({ known: true, source: 'builtin', issues: [{ keyword: 'depth' }] });
  const hcp: Record<string, unknown> = { apiVersion: 'package-operator.run/v1alpha1', kind: 'HostedClusterPackage', metadata: { name: 'x' } };
  const order: Record<string, unknown> = {};
  order.static = [order];
  hcp.spec = { strategy: { instant: {} }, template: { spec: { image: 'x' } }, partition: { labelKey: 'k', order } };
  expect(() => registry.validate(hcp)).not.toThrow();
});
