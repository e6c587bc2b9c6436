import { BUNDLED_CRDS } from '../../src/schema/generated/crds.js';
import { OPENSHIFT_CRDS } from '../../src/schema/generated/openshift-crds.js';
import { CRD_SCOPES } from '../../src/schema/generated/crd-scopes.js';
import { isClusterScoped, scopeOf } from '../../src/schema/scope.js';
import { createSchemaRegistry } from '../../src/schema/registry.js';
import { builtinScopeOf } from '../../src/pko/checks/scope.js';

/** The one scope table: generation, the PKO checks and the schema registry must agree. */
describe('scope table', () => {
  it('is generated from the bundled CRDs (regenerate: node hack/gen-schema-data.mjs)', () => {
    const fromCrds = Object.fromEntries([...BUNDLED_CRDS, ...OPENSHIFT_CRDS].map((c) => [`${c.group}/${c.kind}`, c.scope]));
    expect(CRD_SCOPES).toEqual(fromCrds);
  });

  it('answers from the CRDs, the built-in table, and the caller’s own CRDs first', () => {
    expect(scopeOf('package-operator.run/v1alpha1', 'ClusterPackage')).toBe('Cluster');
    expect(scopeOf('package-operator.run/v1alpha1', 'Package')).toBe('Namespaced');
    expect(scopeOf('config.openshift.io/v1', 'ImagePolicy')).toBe('Namespaced');
    expect(scopeOf('v1', 'Namespace')).toBe('Cluster');
    expect(scopeOf('v1', 'ConfigMap')).toBe('Namespaced');
    expect(scopeOf('rbac.authorization.k8s.io/v1', 'ClusterRole')).toBe('Cluster');
    expect(scopeOf('example.com/v1', 'Widget')).toBeUndefined();
    expect(scopeOf('example.com/v1', 'Widget', new Map([['example.com/Widget', 'Cluster']]))).toBe('Cluster');
    expect(scopeOf('example.com/v1', 'Widget', undefined, true)).toBe('Namespaced');
    expect(isClusterScoped('example.com/v1', 'Widget', new Set(['example.com/Widget']))).toBe(true);
  });

  it('generate, validate and the registry give the same answer for every kind either knows', () => {
    const registry = createSchemaRegistry();
    const kinds: [string, string][] = [
      ...[...BUNDLED_CRDS, ...OPENSHIFT_CRDS].map((c): [string, string] => [`${c.group}/${c.versions[0]!.name}`, c.kind]),
      ['v1', 'Namespace'], ['v1', 'Secret'], ['apps/v1', 'Deployment'], ['scheduling.k8s.io/v1', 'PriorityClass'],
      ['machineconfiguration.openshift.io/v1', 'MachineConfig'], ['hive.openshift.io/v1', 'ClusterImageSet'],
    ];
    const disagreements: string[] = [];
    for (const [apiVersion, kind] of kinds) {
      const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') as [string, string] : ['', apiVersion];
      const fromRegistry = registry.scopeOf(apiVersion, kind);
      const fromChecks = builtinScopeOf(group, version, kind);
      const generateSaysCluster = isClusterScoped(apiVersion, kind);
      if (fromRegistry !== fromChecks || generateSaysCluster !== (fromRegistry === 'Cluster')) {
        disagreements.push(`${apiVersion} ${kind}: registry ${fromRegistry}, checks ${fromChecks}, generate cluster=${generateSaysCluster}`);
      }
    }
    expect(disagreements).toEqual([]);
  });
});
