/**
 * Exactly the calls the controller makes, per side. The package's Roles are generated from these
 * tables, and the end-to-end test records every request the controller sends to the API test
 * servers and checks that each one is granted here and each grant here is used.
 *
 * Nothing of a tenant build is on the management side: the controller only reads there (token
 * Secrets, Cluster API objects, the HostedControlPlane) and writes its hand-off ConfigMap and its
 * Lease. Builds are created in the hosted cluster's data plane, in `BUILD_NAMESPACE`.
 */
import { BUILD_ARCHES } from '../hypershift/nodepool-facts.js';
import { BUILD_NAMESPACE, ENTITLEMENT_SECRET, GROUP as API_GROUP, HOSTED_NAMESPACE, HOSTED_PULL_SECRET, YUM_REPOS_CONFIGMAP } from '../api/types.js';

export interface PolicyRule {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
  resourceNames?: readonly string[];
}

export const LEASE_NAME = 'on-cluster-build-controller';

/** Management cluster, the HCP namespace only (a Role). */
export const MANAGEMENT_RULES: readonly PolicyRule[] = [
  // Token Secrets (`token-<nodepool>-<config hash>`: names cannot be known in advance, so no
  // resourceNames) and the pull secret. Read only; only the fields needed are kept.
  { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch'] },
  // The hand-off ConfigMaps.
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update', 'delete'] },
  // Architecture and taints of each NodePool (HyperShift and Cluster API write these).
  { apiGroups: ['cluster.x-k8s.io'], resources: ['machinedeployments', 'machinesets'], verbs: ['list', 'watch'] },
  { apiGroups: ['cluster.x-k8s.io'], resources: ['machines'], verbs: ['list', 'watch'] },
  // Registry mirrors and capabilities.
  { apiGroups: ['hypershift.openshift.io'], resources: ['hostedcontrolplanes'], verbs: ['list', 'watch'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [LEASE_NAME], verbs: ['get', 'update'] },
];

/** Hosted cluster, cluster-wide (a ClusterRole): the user-facing API and its status; where builds may run. */
export const HOSTED_RULES: readonly PolicyRule[] = [
  { apiGroups: [API_GROUP], resources: ['nodepoolosconfigs'], verbs: ['list', 'watch'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosconfigs/status'], verbs: ['update'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosbuilds'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosbuilds/status'], verbs: ['update'] },
  { apiGroups: [''], resources: ['nodes'], verbs: ['list', 'watch'] },
];

/**
 * Hosted cluster, the namespace users keep registry Secrets in (a Role there): those Secrets and
 * `etc-pki-rpm-gpg` by the names configs give; the repository definitions ConfigMap by its name.
 */
export const HOSTED_NAMESPACE_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
  { apiGroups: [''], resources: ['configmaps'], resourceNames: [YUM_REPOS_CONFIGMAP], verbs: ['get'] },
];

/** Hosted cluster, the build namespace (a Role there): each build's Job, ConfigMap and Secret. */
export const HOSTED_BUILD_RULES: readonly PolicyRule[] = [
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: ['create'] },
  // Termination messages carry the pushed digest (checked in the registry before any use).
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
];

/** Hosted cluster, `openshift-config`: the hosted cluster's own pull secret, by name only. */
export const HOSTED_PULL_SECRET_RULES: readonly PolicyRule[] = [{ apiGroups: [''], resources: ['secrets'], resourceNames: [HOSTED_PULL_SECRET.name], verbs: ['get'] }];

/**
 * Hosted cluster, `openshift-config-managed`: the RHEL entitlement Secrets insights-operator
 * writes (`etc-pki-entitlement`, `etc-pki-entitlement-<arch>`), by name only, `get` only.
 */
export const HOSTED_ENTITLEMENT_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['secrets'], resourceNames: [ENTITLEMENT_SECRET.name, ...BUILD_ARCHES.map((a) => `${ENTITLEMENT_SECRET.name}-${a}`)], verbs: ['get'] },
];

/**
 * Hosted cluster, `default` (a Role there): Events about our cluster-scoped records
 * (NodePoolOSConfig, NodePoolOSBuild) go to `default`, where client-go's recorder puts Events of
 * cluster-scoped objects; created, then patched when the same Event repeats
 * (builder/metrics/events.ts). Not in HOSTED_NAMESPACED_RULES: only the running process writes
 * Events (a Reconciler given no recorder writes none).
 */
export const EVENTS_NAMESPACE = 'default';
export const HOSTED_EVENT_RULES: readonly PolicyRule[] = [{ apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] }];

/** Every hosted-cluster Role by namespace (for the package and the tests). */
export const HOSTED_NAMESPACED_RULES: Readonly<Record<string, readonly PolicyRule[]>> = {
  [HOSTED_NAMESPACE]: HOSTED_NAMESPACE_RULES,
  [BUILD_NAMESPACE]: HOSTED_BUILD_RULES,
  [HOSTED_PULL_SECRET.namespace]: HOSTED_PULL_SECRET_RULES,
  [ENTITLEMENT_SECRET.namespace]: HOSTED_ENTITLEMENT_RULES,
};
