/**
 * Which well-known kinds are cluster-scoped. The generator needs this before any schema or API
 * server is at hand; CRD-backed kinds can be added by the caller.
 */
const CLUSTER_SCOPED = new Set([
  'Namespace', 'Node', 'PersistentVolume', 'ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition', 'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'admissionregistration.k8s.io/MutatingAdmissionPolicy', 'admissionregistration.k8s.io/MutatingAdmissionPolicyBinding',
  'scheduling.k8s.io/PriorityClass', 'storage.k8s.io/StorageClass', 'storage.k8s.io/CSIDriver', 'storage.k8s.io/CSINode',
  'storage.k8s.io/VolumeAttachment', 'node.k8s.io/RuntimeClass', 'networking.k8s.io/IngressClass',
  'flowcontrol.apiserver.k8s.io/FlowSchema', 'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'certificates.k8s.io/CertificateSigningRequest',
  'machineconfiguration.openshift.io/MachineConfigPool', 'machineconfiguration.openshift.io/MachineConfig',
  'machineconfiguration.openshift.io/MachineOSConfig', 'machineconfiguration.openshift.io/MachineOSBuild',
  'machineconfiguration.openshift.io/ControllerConfig', 'machineconfiguration.openshift.io/KubeletConfig',
  'machineconfiguration.openshift.io/ContainerRuntimeConfig',
  'config.openshift.io/ClusterVersion', 'config.openshift.io/ClusterOperator', 'config.openshift.io/Infrastructure',
  'config.openshift.io/Proxy', 'config.openshift.io/Image', 'security.openshift.io/SecurityContextConstraints',
  'package-operator.run/ClusterPackage', 'package-operator.run/ClusterObjectDeployment', 'package-operator.run/ClusterObjectSet',
  'package-operator.run/ClusterObjectSetPhase', 'package-operator.run/ClusterObjectSlice', 'package-operator.run/ClusterObjectTemplate',
  'package-operator.run/HostedClusterPackage',
  'cluster.open-cluster-management.io/ManagedCluster', 'cluster.open-cluster-management.io/ManagedClusterSet',
  'policy/PodSecurityPolicy', 'hive.openshift.io/SelectorSyncSet', 'hive.openshift.io/ClusterImageSet',
]);

export function groupOf(apiVersion: string): string {
  const i = apiVersion.indexOf('/');
  return i === -1 ? '' : apiVersion.slice(0, i);
}

/** True when the group and kind are a well-known cluster-scoped kind (core group: ''). */
export function isClusterScopedGroupKind(group: string, kind: string): boolean {
  return CLUSTER_SCOPED.has(group ? `${group}/${kind}` : kind);
}

/** True for kinds known to be cluster-scoped; `extra` holds `group/Kind` keys from CRDs. */
export function isClusterScoped(apiVersion: string, kind: string, extra?: ReadonlySet<string>): boolean {
  const g = groupOf(apiVersion);
  const key = g ? `${g}/${kind}` : kind;
  return CLUSTER_SCOPED.has(key) || (extra?.has(key) ?? false);
}
