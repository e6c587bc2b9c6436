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
 * A Role in the fleet component's own namespace (`--namespace`), nothing cluster-wide:
 * - leases get/create/update: leader election (one replica runs the gate; builder/controller/leader.ts);
 * - jobs get/create: one provider-layer build Job per build key (builder/fleet/provider-build.ts);
 *   never update or delete (the Job's TTL/owner is the package's concern, a finished Job is the record);
 * - pods list: the build pod's termination message carries the pushed digest (and a failure's tail);
 * - configmaps create: the build's Containerfile volume (owned by its Job);
 * - secrets get/create: read the push Secret (`--push-secret-name`); create the build's credentials
 *   volume (owned by its Job). The namespace holds only the fleet component's own objects.
 */
export const FLEET_NAMESPACE_RULES: readonly PolicyRule[] = [
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'create', 'update'] },
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'create'] },
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
  { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'create'] },
];
