/**
 * Exactly the calls the controller makes, per side. The package's Roles are generated from these
 * tables, and the end-to-end test records every request the controller sends to the API test
 * servers and checks that each one is granted here and each grant here is used.
 */
import { GROUP as API_GROUP } from './api/types.js';

export interface PolicyRule {
  apiGroups: readonly string[];
  resources: readonly string[];
  verbs: readonly string[];
  resourceNames?: readonly string[];
}

export const LEASE_NAME = 'on-cluster-build-controller';

/** Management cluster, the HCP namespace only (a Role). */
export const MANAGEMENT_RULES: readonly PolicyRule[] = [
  // Token Secrets and the pull secret are read from lists; build credentials are created.
  { apiGroups: [''], resources: ['secrets'], verbs: ['list', 'watch', 'create'] },
  // Build Containerfiles and the hand-off ConfigMaps.
  { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'create', 'update', 'delete'] },
  { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  // Termination messages carry the pushed digest.
  { apiGroups: [''], resources: ['pods'], verbs: ['list', 'watch'] },
  { apiGroups: [''], resources: ['events'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
  { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [LEASE_NAME], verbs: ['get', 'update'] },
];

/** Hosted cluster, cluster-wide (a ClusterRole): the user-facing API and its status. */
export const HOSTED_RULES: readonly PolicyRule[] = [
  { apiGroups: [API_GROUP], resources: ['nodepoolosconfigs'], verbs: ['list', 'watch'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosconfigs/status'], verbs: ['update'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosbuilds'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
  { apiGroups: [API_GROUP], resources: ['nodepoolosbuilds/status'], verbs: ['update'] },
];

/** Hosted cluster, the namespace users keep registry Secrets in (a Role there). */
export const HOSTED_NAMESPACE_RULES: readonly PolicyRule[] = [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }];
