/**
 * The fleet component's rights (docs/design/fleet.md "The fleet component", RBAC). One process per
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
import type { PolicyRule } from '../policy/rbac.js';
/** The rollout state's ConfigMap (builder/fleet/rollout/state.ts; a constant here so the package reads it without the client). */
export const ROLLOUT_CONFIGMAP = 'on-cluster-build-fleet-rollout';

/** The fleet component's own namespace (the package's; `--namespace` comes from the pod's). */
export const FLEET_NAMESPACE = 'on-cluster-build-fleet';

export const FLEET_CLUSTER_RULES: readonly PolicyRule[] = [
  { apiGroups: ['hypershift.openshift.io'], resources: ['nodepools'], verbs: ['get', 'list', 'watch', 'patch'] },
  // Read only: a control plane's release change starts the provider builds its NodePools will
  // need (builder/fleet/run.ts pre-builds), and its spec.capabilities say whether HyperShift
  // reads hand-offs at all (builder/fleet/preconditions.ts); HCP namespaces are not known in advance.
  { apiGroups: ['hypershift.openshift.io'], resources: ['hostedcontrolplanes'], verbs: ['list', 'watch'] },
  // Read only, labels kept: the rollout policy's canaries are HostedClusters selected by the
  // labels the provider sets (builder/fleet/rollout/).
  { apiGroups: ['hypershift.openshift.io'], resources: ['hostedclusters'], verbs: ['list', 'watch'] },
  // Read only: a provider build for an architecture runs only on a management Node of it
  // (builder/fleet/preconditions.ts): without one, its NodePools are never held or handed off.
  { apiGroups: [''], resources: ['nodes'], verbs: ['list'] },
  // Its own Namespace, by name: the owner of the provider-images ConfigMaps it writes in HCP
  // namespaces (a cluster-scoped owner may own namespaced objects), so uninstalling the fleet
  // package removes them and tenant builds stop waiting for a provider layer no one builds.
  { apiGroups: [''], resources: ['namespaces'], resourceNames: [FLEET_NAMESPACE], verbs: ['get'] },
  // Events (builder/metrics/events.ts) on the NodePools it holds and releases, in their namespaces, and on the rollout ConfigMap.
  { apiGroups: [''], resources: ['events'], verbs: ['create', 'patch'] },
];

/**
 * Bound per HCP namespace by the per-HCP package (a Role and a RoleBinding to the fleet
 * ServiceAccount): read and watch hand-offs; update them (a new release's image, the
 * wanted-release); create a provider-only hand-off for a NodePool that has none, and the
 * provider-images ConfigMap (the tenant layer's FROM). No delete: the per-HCP controller removes
 * hand-offs. RBAC cannot narrow which ConfigMaps: the fleet package's ValidatingAdmissionPolicies
 * do (resources/fleet/objects.ts HANDOFF_POLICY, CREATE_POLICY).
 */
export const HANDOFF_RULES: readonly PolicyRule[] = [
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch', 'create', 'update'] },
];

/**
 * The Secret (in the fleet namespace) with push credentials to the provider's repository: made by
 * the provider, never by a package or a Template (`--push-secret-name` defaults to it).
 */
export const PUSH_SECRET_NAME = 'provider-push';
/** The Lease the fleet replicas elect their leader with (builder/fleet/main.ts). */
export const FLEET_LEASE_NAME = 'on-cluster-build-fleet';

/**
 * The namespace provider builds run in (`--build-namespace`), created by the fleet package
 * (resources/fleet/objects.ts) with what the build pod needs and the fleet namespace has not: Pod
 * Security "baseline", the build ServiceAccount bound to the anyuid SCC, the build PriorityClass.
 * Not the fleet namespace: that one stays "restricted" for the fleet's own pods.
 */
export const FLEET_BUILD_NAMESPACE = 'on-cluster-build-fleet-builds';

/**
 * A Role in the fleet component's own namespace (`--namespace`), nothing cluster-wide: leader
 * election and the push credentials. Its builds are in the build namespace (FLEET_BUILD_NAMESPACE_RULES).
 */
export const FLEET_NAMESPACE_RULES: readonly PolicyRule[] = [
  // Leader election (one replica runs the gate; builder/clusters/leader.ts): RBAC cannot name an
  // object that create makes, so create is unnamed; reading and renewing are limited to our Lease.
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [FLEET_LEASE_NAME], verbs: ['get', 'update'] },
  // The push credentials, by name: to look a build's tag up in the provider's repository, and to
  // copy them into a build's credentials Secret. Made by the provider, never by us.
  { apiGroups: [''], resources: ['secrets'], resourceNames: [PUSH_SECRET_NAME], verbs: ['get'] },
  // The rollout state and the human's commands (builder/fleet/rollout/state.ts): one ConfigMap,
  // watched by label; create is unnamed (RBAC cannot name what create makes).
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list', 'watch', 'create'] },
  { apiGroups: [''], resources: ['configmaps'], resourceNames: [ROLLOUT_CONFIGMAP], verbs: ['get', 'update'] },
];

/**
 * A Role in the build namespace (`--build-namespace`, FLEET_BUILD_NAMESPACE): what running a
 * provider-layer build as a Job takes, nothing else. The namespace holds only build objects.
 */
export const FLEET_BUILD_NAMESPACE_RULES: readonly PolicyRule[] = [
  // One provider-layer build Job per build key (builder/fleet/provider-build.ts); never update or
  // delete: a finished Job is the build's record (owner references clean its volumes up).
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'create'] },
  // The build pod's termination message carries the pushed digest (and a failure's tail).
  { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
  // The build's Containerfile volume (owned by its Job).
  { apiGroups: [''], resources: ['configmaps'], verbs: ['create'] },
  // The build's credentials volume (owned by its Job): RBAC cannot name what create makes. No get:
  // the fleet never reads a Secret here back.
  { apiGroups: [''], resources: ['secrets'], verbs: ['create'] },
];
