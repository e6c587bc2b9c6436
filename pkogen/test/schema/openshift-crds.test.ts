/** The bundled schemas of kinds OpenShift packages ship (hack/openshift-crds.json → generated). */
import { readFileSync } from 'node:fs';
import { createSchemaRegistry } from '../../src/schema/registry.js';
import { OPENSHIFT_CRDS } from '../../src/schema/generated/openshift-crds.js';

const registry = createSchemaRegistry();
const meta = { name: 'x', namespace: 'ns' };

describe('bundled OpenShift CRDs', () => {
  test('every kind the issue names is known, with its source pinned to a commit', () => {
    const kinds = [
      ['monitoring.coreos.com/v1', 'ServiceMonitor'], ['monitoring.coreos.com/v1', 'PrometheusRule'], ['monitoring.coreos.com/v1', 'PodMonitor'],
      ['route.openshift.io/v1', 'Route'], ['security.openshift.io/v1', 'SecurityContextConstraints'],
      ['cloudcredential.openshift.io/v1', 'CredentialsRequest'], ['config.openshift.io/v1', 'ClusterVersion'], ['config.openshift.io/v1', 'Proxy'],
      ['operators.coreos.com/v1alpha1', 'Subscription'], ['operators.coreos.com/v1', 'OperatorGroup'], ['operators.coreos.com/v1alpha1', 'CatalogSource'],
    ];
    for (const [av, k] of kinds) expect(`${av} ${k} ${registry.knows(av, k)}`).toBe(`${av} ${k} true`);
    for (const c of OPENSHIFT_CRDS) expect(c.source).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}:\S+\.yaml$/);
  });
  test('the pins in hack/openshift-crds.json are what the generated file says', () => {
    const lock = JSON.parse(readFileSync('hack/openshift-crds.json', 'utf8')) as { sources: { repo: string; commit: string; paths: string[] }[] };
    const listed = lock.sources.flatMap((s) => s.paths.map((p) => `${s.repo}@${s.commit}:${p}`)).sort();
    expect([...new Set(OPENSHIFT_CRDS.map((c) => c.source))].sort()).toEqual(listed);
  });
  test('a ServiceMonitor with a misspelt field is an error at its path; a good one is clean', () => {
    const sm = (endpoint: Record<string, unknown>) => ({ apiVersion: 'monitoring.coreos.com/v1', kind: 'ServiceMonitor', metadata: meta, spec: { selector: { matchLabels: { app: 'x' } }, endpoints: [endpoint] } });
    expect(registry.validate(sm({ port: 'metrics', interval: '30s' })).issues).toEqual([]);
    const r = registry.validate(sm({ port: 'metrics', intervall: '30s' }));
    expect(r.issues).toEqual([expect.objectContaining({ path: 'spec.endpoints[0].intervall', keyword: 'additionalProperties' })]);
  });
  test('a Route and an SCC', () => {
    expect(registry.validate({ apiVersion: 'route.openshift.io/v1', kind: 'Route', metadata: meta, spec: { to: { kind: 'Service', name: 's' }, tls: { termination: 'edge' } } }).issues).toEqual([]);
    const bad = registry.validate({ apiVersion: 'route.openshift.io/v1', kind: 'Route', metadata: meta, spec: { to: { kind: 'Service', name: 's' }, tls: { termination: 'edgy' } } });
    expect(bad.issues.map((i) => i.path)).toContain('spec.tls.termination');
    expect(registry.scopeOf('security.openshift.io/v1', 'SecurityContextConstraints')).toBe('Cluster');
  });
  test('status is left open (a package never writes it), everything else is strict', () => {
    const r = registry.validate({ apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', metadata: meta, spec: { name: 'op', source: 'cs', sourceNamespace: 'openshift-marketplace', channle: 'stable' }, status: { anything: 1 } });
    expect(r.issues.map((i) => i.path)).toEqual(['spec.channle']);
  });
});
