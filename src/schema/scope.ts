import type { Scope } from './types.js';

/**
 * Cluster-scoped built-in kinds (Kubernetes API discovery, plus the OpenShift kinds a HyperShift
 * package commonly ships). Every other built-in kind is namespaced. Keyed by "group/Kind"
 * (group "" = core) so every served version of a group agrees.
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
  'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding',
  'resource.k8s.io/DeviceClass', 'resource.k8s.io/ResourceSlice', 'resource.k8s.io/DeviceTaintRule',
  'scheduling.k8s.io/PriorityClass',
  'storage.k8s.io/StorageClass', 'storage.k8s.io/CSIDriver', 'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment', 'storage.k8s.io/VolumeAttributesClass',
  'storagemigration.k8s.io/StorageVersionMigration',
  // OpenShift (no schema bundled; scope still matters for PKO phases and namespace checks).
  'config.openshift.io/ClusterVersion', 'config.openshift.io/ClusterOperator', 'config.openshift.io/Infrastructure',
  'config.openshift.io/Network', 'config.openshift.io/Proxy', 'config.openshift.io/Image', 'config.openshift.io/OAuth',
  'config.openshift.io/APIServer', 'config.openshift.io/FeatureGate', 'config.openshift.io/DNS', 'config.openshift.io/Ingress',
  'machineconfiguration.openshift.io/MachineConfig', 'machineconfiguration.openshift.io/MachineConfigPool',
  'machineconfiguration.openshift.io/KubeletConfig', 'machineconfiguration.openshift.io/ContainerRuntimeConfig',
  'security.openshift.io/SecurityContextConstraints',
  'operator.openshift.io/Console',
  'user.openshift.io/Group', 'user.openshift.io/User',
  'project.openshift.io/Project', 'quota.openshift.io/ClusterResourceQuota',
  'imageregistry.operator.openshift.io/Config',
]);

/** Namespaced built-in groups we know of (kinds in them not listed above are namespaced). */
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

/** Scope of a built-in kind from the table; undefined for groups we know nothing about. */
export function builtinScope(apiVersion: string, kind: string, isBuiltinKind: boolean): Scope | undefined {
  const group = groupOf(apiVersion);
  if (CLUSTER_SCOPED.has(`${group}/${kind}`)) return 'Cluster';
  if (isBuiltinKind || NAMESPACED_GROUPS.has(group)) return 'Namespaced';
  return undefined;
}
