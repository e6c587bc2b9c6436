/**
 * Where tenant builds run in the hosted cluster (docs/design.md "The build pod"): the build
 * namespace, the build pods' ServiceAccount and its permission to use OpenShift's `anyuid` SCC in
 * that namespace only, and the low PriorityClass of build pods. Nothing else: the controller
 * creates each build's Job, ConfigMap and Secret there through its hosted-cluster client.
 */
import type { PackageObject } from 'pkogen';
import { BUILD_NAMESPACE, BUILD_PRIORITY_CLASS, BUILD_SCC, BUILD_SERVICE_ACCOUNT } from '../builder/controller/build-job.js';

const labels = { app: 'on-cluster-build-builder' };

/** Below every pod without a class (0): builds are scheduled last and evicted first; they never preempt. */
export const BUILD_PRIORITY_VALUE = -100;

/**
 * Pod Security level of the build namespace. The build pod is "baseline" (uid 1000, privilege
 * escalation for newuidmap, two default capabilities, no seccomp field because anyuid refuses one)
 * and not "restricted"; enforce, audit and warn all say baseline, and OpenShift's label
 * synchroniser is told to leave them alone.
 */
export const BUILD_POD_SECURITY_LEVEL = 'baseline';

export function buildNamespace(): PackageObject[] {
  return [
    {
      phase: 'hosted-api',
      object: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: BUILD_NAMESPACE,
          labels: {
            ...labels,
            'pod-security.kubernetes.io/enforce': BUILD_POD_SECURITY_LEVEL,
            'pod-security.kubernetes.io/audit': BUILD_POD_SECURITY_LEVEL,
            'pod-security.kubernetes.io/warn': BUILD_POD_SECURITY_LEVEL,
            'security.openshift.io/scc.podSecurityLabelSync': 'false',
            'openshift.io/cluster-monitoring': 'false',
          },
        },
      },
    },
    {
      phase: 'hosted-api',
      object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: BUILD_SERVICE_ACCOUNT, namespace: BUILD_NAMESPACE, labels }, automountServiceAccountToken: false },
    },
    {
      // The ClusterRole OpenShift ships for every default SCC (verb `use` on that SCC only), bound
      // in this namespace only: the build ServiceAccount may use anyuid here and nowhere else.
      phase: 'hosted-api',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `${BUILD_SERVICE_ACCOUNT}-scc-${BUILD_SCC}`, namespace: BUILD_NAMESPACE, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `system:openshift:scc:${BUILD_SCC}` },
        subjects: [{ kind: 'ServiceAccount', name: BUILD_SERVICE_ACCOUNT, namespace: BUILD_NAMESPACE }],
      },
    },
    {
      phase: 'hosted-api',
      object: {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: BUILD_PRIORITY_CLASS, labels },
        value: BUILD_PRIORITY_VALUE,
        preemptionPolicy: 'Never',
        globalDefault: false,
        description: 'OS image builds of on-cluster-build: scheduled after and evicted before workloads, never preempting them.',
      },
    },
  ];
}
