/** pkogen's scope rule is HyperShift's: it applies to packages PKO installs into a namespace only. */
import { buildPackage, type PackageDefinition } from '../../src/index.js';

const def = (scopes: ('Namespaced' | 'Cluster')[], phases: PackageDefinition['phases']): PackageDefinition => ({
  name: 'p',
  scopes,
  phases,
  availabilityProbes: [],
  objects: [
    { phase: phases[0].name, object: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'p' } } },
    { phase: phases[0].name, object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'p' }, rules: [] } },
  ],
});
const scopeFindings = async (d: PackageDefinition) => (await buildPackage(d)).findings.filter((f) => f.rule === 'scope').map((f) => f.message);

describe('scope rule', () => {
  test('a Namespaced-only (HyperShift) package: cluster-scoped objects only in a hosted-cluster phase', async () => {
    expect(await scopeFindings(def(['Namespaced'], [{ name: 'deploy' }]))).toEqual([
      'Namespace p: cluster-scoped object in phase "deploy", which has no class; only a hosted-cluster phase may hold it',
      'ClusterRole p: cluster-scoped object in phase "deploy", which has no class; only a hosted-cluster phase may hold it',
    ]);
    expect(await scopeFindings(def(['Namespaced'], [{ name: 'hc', class: 'hosted-cluster' }]))).toEqual([]);
  });

  test('a package PKO may install cluster-wide (a ClusterPackage) holds them in any phase: no finding, no relaxRules needed', async () => {
    expect(await scopeFindings(def(['Cluster'], [{ name: 'deploy' }]))).toEqual([]);
    expect(await scopeFindings(def(['Cluster', 'Namespaced'], [{ name: 'deploy' }]))).toEqual([]);
  });
});
