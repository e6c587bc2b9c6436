/**
 * Where build pods run (docs/design/build-pod.md "The build pod"): the build namespace, the build pods'
 * ServiceAccount and its permission to use OpenShift's `anyuid` SCC in that namespace only, and
 * the low PriorityClass of build pods. Nothing else: the controller (tenant builds, in the hosted
 * cluster) or the fleet component (provider builds, on the management cluster) creates each
 * build's Job, ConfigMap and Secret there.
 *
 * `buildNamespaceObjects` is the one definition of that place; the per-HCP package puts it in the
 * hosted cluster (`buildNamespace()`, namespace `BUILD_NAMESPACE`), the fleet package on the
 * management cluster (resources/fleet/objects.ts, namespace `FLEET_BUILD_NAMESPACE`). Both admit
 * exactly the pod `buildJob` (builder/controller/build-job.ts) makes.
 */
import type { PackageObject } from 'pkogen';
import { BUILD_NAMESPACE, BUILD_PRIORITY_CLASS, BUILD_SCC, BUILD_SERVICE_ACCOUNT } from '../builder/controller/build-job.js';

const labels = { app: 'on-cluster-build-builder' };

/** Below every pod without a class (0): builds are scheduled last and evicted first; they never preempt. */
export const BUILD_PRIORITY_VALUE = -100;

/**
 * Pod Security level of a build namespace: the lowest that admits the build pod. The build pod is
 * "baseline" (uid 1000, privilege escalation for newuidmap, two default capabilities kept, no
 * seccomp field because anyuid refuses one) and not "restricted", which forbids exactly three of
 * its fields: `allowPrivilegeEscalation: true` (restricted: must be false), a `capabilities.drop`
 * without `ALL`, and no seccompProfile (restricted: RuntimeDefault or Localhost required). Baseline
 * forbids none of them: it allows the default capabilities and an unset seccomp profile
 * (kubernetes/pod-security-admission `policy/check_*`, docs/design/build-pod.md E7). Enforce, audit and warn
 * all say baseline, and OpenShift's label synchroniser is told to leave them alone.
 */
export const BUILD_POD_SECURITY_LEVEL = 'baseline';

/** The ClusterRole OpenShift ships for every default SCC: verb `use` on that SCC only (docs/design/build-pod.md E3). */
export const sccClusterRole = (scc: string) => `system:openshift:scc:${scc}`;

export interface BuildNamespaceOptions {
  namespace: string;
  /** The package phase of the Namespace and of the PriorityClass (cluster-scoped), and of the rest (ServiceAccount, SCC binding). */
  phases: { namespace: string; rest: string };
  labels?: Record<string, string>;
}

export function buildNamespaceObjects(o: BuildNamespaceOptions): PackageObject[] {
  const l = o.labels ?? labels;
  return [
    {
      phase: o.phases.namespace,
      object: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: o.namespace,
          labels: {
            ...l,
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
      // The build needs no API token: its digest comes back as the termination message.
      phase: o.phases.rest,
      object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: BUILD_SERVICE_ACCOUNT, namespace: o.namespace, labels: l }, automountServiceAccountToken: false },
    },
    {
      // The ClusterRole OpenShift ships for every default SCC (verb `use` on that SCC only), bound
      // in this namespace only: the build ServiceAccount may use anyuid here and nowhere else.
      phase: o.phases.rest,
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `${BUILD_SERVICE_ACCOUNT}-scc-${BUILD_SCC}`, namespace: o.namespace, labels: l },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: sccClusterRole(BUILD_SCC) },
        subjects: [{ kind: 'ServiceAccount', name: BUILD_SERVICE_ACCOUNT, namespace: o.namespace }],
      },
    },
    {
      phase: o.phases.namespace,
      object: {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name: BUILD_PRIORITY_CLASS, labels: l },
        value: BUILD_PRIORITY_VALUE,
        preemptionPolicy: 'Never',
        globalDefault: false,
        description: 'OS image builds of on-cluster-build: scheduled after and evicted before workloads, never preempting them.',
      },
    },
  ];
}

/** The tenant builds' namespace in the hosted cluster (the per-HCP package's `hosted-api` phase). */
export function buildNamespace(): PackageObject[] {
  return buildNamespaceObjects({ namespace: BUILD_NAMESPACE, phases: { namespace: 'hosted-api', rest: 'hosted-api' } });
}
