/**
 * The one scope table: is a kind cluster-scoped or namespaced? Generation (src/model), the PKO
 * checks (src/pko), the schema registry and the rollout linter all ask here, so they cannot
 * disagree. CRD-backed kinds come from the bundled CRDs' `spec.scope` (generated:
 * ./generated/crd-scopes.ts); a package's own CRDs and `--crd` files are added by the caller.
 */
import { CRD_SCOPES } from './generated/crd-scopes.js';
import type { Scope } from './types.js';

/**
 * Cluster-scoped kinds that no bundled CRD describes: Kubernetes built-ins (API discovery,
 * `namespaced: false`) and OpenShift/ACM/Hive kinds a HyperShift package commonly ships. Keyed
 * by "group/Kind" (group "" = core) so every served version of a group agrees.
 */
const CLUSTER_SCOPED = new Set<string>([
  '/Namespace', '/Node', '/PersistentVolume', '/ComponentStatus',
  'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy',
  'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'apiextensions.k8s.io/CustomResourceDefinition',
  'apiregistration.k8s.io/APIService',
  'authentication.k8s.io/TokenReview', 'authentication.k8s.io/SelfSubjectReview',
  'authorization.k8s.io/SubjectAccessReview', 'authorization.k8s.io/SelfSubjectAccessReview',
  'authorization.k8s.io/SelfSubjectRulesReview',
  'certificates.k8s.io/CertificateSigningRequest', 'certificates.k8s.io/ClusterTrustBundle',
  'flowcontrol.apiserver.k8s.io/FlowSchema', 'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'internal.apiserver.k8s.io/StorageVersion',
  'networking.k8s.io/IngressClass', 'networking.k8s.io/IPAddress', 'networking.k8s.io/ServiceCIDR',
  'node.k8s.io/RuntimeClass',
  'policy/PodSecurityPolicy',
  'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding',
  'resource.k8s.io/DeviceClass', 'resource.k8s.io/ResourceSlice', 'resource.k8s.io/DeviceTaintRule',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/StorageClass', 'storage.k8s.io/CSIDriver', 'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment', 'storage.k8s.io/VolumeAttributesClass',
  'storagemigration.k8s.io/StorageVersionMigration',
  // OpenShift, ACM and Hive kinds without a bundled CRD.
  'machineconfiguration.openshift.io/MachineConfig', 'machineconfiguration.openshift.io/MachineConfigPool',
  'machineconfiguration.openshift.io/KubeletConfig', 'machineconfiguration.openshift.io/ContainerRuntimeConfig',
  'machineconfiguration.openshift.io/ControllerConfig',
  'operator.openshift.io/Console',
  'user.openshift.io/Group', 'user.openshift.io/User',
  'project.openshift.io/Project', 'quota.openshift.io/ClusterResourceQuota',
  'imageregistry.operator.openshift.io/Config',
  'cluster.open-cluster-management.io/ManagedCluster', 'cluster.open-cluster-management.io/ManagedClusterSet',
  'hive.openshift.io/ClusterImageSet',
]);

/** Built-in groups whose kinds not listed above are namespaced. */
const NAMESPACED_GROUPS = new Set<string>([
  '', 'apps', 'batch', 'autoscaling', 'policy', 'networking.k8s.io', 'rbac.authorization.k8s.io',
  'coordination.k8s.io', 'discovery.k8s.io', 'events.k8s.io', 'storage.k8s.io', 'scheduling.k8s.io',
  'admissionregistration.k8s.io', 'apiextensions.k8s.io', 'apiregistration.k8s.io', 'certificates.k8s.io',
  'node.k8s.io', 'resource.k8s.io', 'flowcontrol.apiserver.k8s.io', 'authentication.k8s.io', 'authorization.k8s.io',
]);

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i < 0 ? '' : apiVersion.slice(0, i);
}

/**
 * Scope of a group and kind from the tables: `extra` ("group/Kind" → scope, e.g. from a package's
 * CRDs) first, then the bundled CRDs, then the built-in table; `namespacedIfUnlisted` says the
 * caller knows the kind is built in (so an unlisted one is namespaced). undefined = unknown.
 */
export function scopeOfGroupKind(group: string, kind: string, extra?: ReadonlyMap<string, Scope>, namespacedIfUnlisted = false): Scope | undefined {
  const key = `${group}/${kind}`;
  const found = extra?.get(key) ?? (Object.prototype.hasOwnProperty.call(CRD_SCOPES, key) ? CRD_SCOPES[key] : undefined);
  if (found) return found;
  if (CLUSTER_SCOPED.has(key)) return 'Cluster';
  if (namespacedIfUnlisted || NAMESPACED_GROUPS.has(group)) return 'Namespaced';
  return undefined;
}

/** Scope of a kind by apiVersion; see scopeOfGroupKind. */
export function scopeOf(apiVersion: string, kind: string, extra?: ReadonlyMap<string, Scope>, namespacedIfUnlisted = false): Scope | undefined {
  return scopeOfGroupKind(groupOf(apiVersion), kind, extra, namespacedIfUnlisted);
}

/** True for kinds known to be cluster-scoped; `extra` holds `group/Kind` keys of cluster-scoped CRDs. */
export function isClusterScoped(apiVersion: string, kind: string, extra?: ReadonlySet<string>): boolean {
  return (extra?.has(`${groupOf(apiVersion)}/${kind}`) ?? false) || scopeOf(apiVersion, kind) === 'Cluster';
}
