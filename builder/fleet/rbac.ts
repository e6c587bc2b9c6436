/**
 * The fleet component's rights (docs/design.md "The fleet component", RBAC). One process per
 * management cluster; NodePools live in HostedCluster namespaces it cannot name in advance, so
 * its NodePool rule is a ClusterRole rule, and it is the least that holds and releases a
 * NodePool: get/list/watch to see releases change, patch for `spec.pausedUntil` and the gate's
 * own annotations and label. No create, update or delete: it never replaces a NodePool whole and
 * never makes or removes one.
 *
 * The hand-off ConfigMaps are in HCP namespaces. That right is NOT cluster-wide: each per-HCP
 * package binds HANDOFF_RULES to the fleet ServiceAccount in its own HCP namespace, so the fleet
 * component can write ConfigMaps only where our package is installed.
 */
import type { PolicyRule } from '../rbac.js';

export const FLEET_CLUSTER_RULES: readonly PolicyRule[] = [
  { apiGroups: ['hypershift.openshift.io'], resources: ['nodepools'], verbs: ['get', 'list', 'watch', 'patch'] },
];

/** Bound per HCP namespace by the per-HCP package (a Role and a RoleBinding to the fleet ServiceAccount). */
export const HANDOFF_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'update'] },
];

/**
 * The Secret (in the fleet namespace) with push credentials to the provider's repository: made by
 * the provider, never by a package or a Template (`--push-secret-name` defaults to it).
 */
export const PUSH_SECRET_NAME = 'provider-push';
/** The Lease the fleet replicas elect their leader with. */
export const FLEET_LEASE_NAME = 'on-cluster-build-fleet';

/**
 * The fleet namespace only (a Role): what a leader-elected process that runs provider builds as
 * Jobs and reads its push credentials needs. Added by the packaging branch (issue 27) for the
 * fleet package's Role; the entry point's own needs are reconciled with these at merge.
 */
export const FLEET_NAMESPACE_RULES: readonly PolicyRule[] = [
  // Provider-layer builds run as Jobs here (never in an HCP namespace or a hosted cluster): create
  // one per build key, watch it to completion, delete past the history limit.
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  // The push credentials, by name: read to look a build's tag up in the provider's repository
  // (the build Job mounts the Secret itself; mounting needs no right of ours).
  { apiGroups: [''], resources: ['secrets'], resourceNames: [PUSH_SECRET_NAME], verbs: ['get'] },
  // Leader election: RBAC cannot name an object that create makes, so create is unnamed; reading
  // and renewing are limited to our Lease.
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [FLEET_LEASE_NAME], verbs: ['get', 'update'] },
  // Events for a hold, a timeout and a failed build, recorded in our own namespace.
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];
