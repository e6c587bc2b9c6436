/**
 * Built-in API versions Kubernetes no longer serves (kubernetes.io deprecation guide).
 * kubernetes-models still ships their schemas; an object using one would be rejected by any
 * cluster pkogen targets (OpenShift 4.14+ = Kubernetes 1.27+), so the registry reports it.
 * Keys: "apiVersion" (whole group version) or "apiVersion/Kind".
 */
const REMOVED: Record<string, string> = {
  'extensions/v1beta1': '1.16', // Ingress there lasted until 1.22, see below
  'extensions/v1beta1/Ingress': '1.22',
  'apps/v1beta1': '1.16',
  'apps/v1beta2': '1.16',
  'admissionregistration.k8s.io/v1beta1': '1.22',
  'apiextensions.k8s.io/v1beta1': '1.22',
  'apiregistration.k8s.io/v1beta1': '1.22',
  'authentication.k8s.io/v1beta1': '1.22',
  'authorization.k8s.io/v1beta1': '1.22',
  'certificates.k8s.io/v1beta1': '1.22',
  'coordination.k8s.io/v1beta1': '1.22',
  'networking.k8s.io/v1beta1': '1.22',
  'rbac.authorization.k8s.io/v1beta1': '1.22',
  'scheduling.k8s.io/v1beta1': '1.22',
  'storage.k8s.io/v1beta1': '1.22',
  'storage.k8s.io/v1beta1/CSIStorageCapacity': '1.27',
  'batch/v1beta1': '1.25',
  'discovery.k8s.io/v1beta1': '1.25',
  'events.k8s.io/v1beta1': '1.25',
  'autoscaling/v2beta1': '1.25',
  'policy/v1beta1': '1.25',
  'node.k8s.io/v1beta1': '1.25',
  'flowcontrol.apiserver.k8s.io/v1beta1': '1.26',
  'autoscaling/v2beta2': '1.26',
  'flowcontrol.apiserver.k8s.io/v1beta2': '1.29',
  'flowcontrol.apiserver.k8s.io/v1beta3': '1.32',
};

/** Where each removed kind lives now (absent: the kind is gone, e.g. PodSecurityPolicy). */
const REPLACEMENT: Record<string, string> = {
  Deployment: 'apps/v1', DaemonSet: 'apps/v1', ReplicaSet: 'apps/v1', StatefulSet: 'apps/v1', ControllerRevision: 'apps/v1',
  Ingress: 'networking.k8s.io/v1', IngressClass: 'networking.k8s.io/v1', NetworkPolicy: 'networking.k8s.io/v1',
  MutatingWebhookConfiguration: 'admissionregistration.k8s.io/v1', ValidatingWebhookConfiguration: 'admissionregistration.k8s.io/v1',
  CustomResourceDefinition: 'apiextensions.k8s.io/v1', APIService: 'apiregistration.k8s.io/v1',
  TokenReview: 'authentication.k8s.io/v1', SubjectAccessReview: 'authorization.k8s.io/v1',
  LocalSubjectAccessReview: 'authorization.k8s.io/v1', SelfSubjectAccessReview: 'authorization.k8s.io/v1',
  SelfSubjectRulesReview: 'authorization.k8s.io/v1', CertificateSigningRequest: 'certificates.k8s.io/v1',
  Lease: 'coordination.k8s.io/v1', ClusterRole: 'rbac.authorization.k8s.io/v1', ClusterRoleBinding: 'rbac.authorization.k8s.io/v1',
  Role: 'rbac.authorization.k8s.io/v1', RoleBinding: 'rbac.authorization.k8s.io/v1', PriorityClass: 'scheduling.k8s.io/v1',
  StorageClass: 'storage.k8s.io/v1', CSIDriver: 'storage.k8s.io/v1', CSINode: 'storage.k8s.io/v1', VolumeAttachment: 'storage.k8s.io/v1',
  CSIStorageCapacity: 'storage.k8s.io/v1', CronJob: 'batch/v1', EndpointSlice: 'discovery.k8s.io/v1', Event: 'events.k8s.io/v1',
  HorizontalPodAutoscaler: 'autoscaling/v2', PodDisruptionBudget: 'policy/v1', Eviction: 'policy/v1', RuntimeClass: 'node.k8s.io/v1',
  FlowSchema: 'flowcontrol.apiserver.k8s.io/v1', PriorityLevelConfiguration: 'flowcontrol.apiserver.k8s.io/v1',
  Scale: 'autoscaling/v1',
};

/** A message when apiVersion/kind is no longer served by Kubernetes, else undefined. */
export function removedApiMessage(apiVersion: string, kind: string): string | undefined {
  const since = REMOVED[`${apiVersion}/${kind}`] ?? REMOVED[apiVersion];
  if (!since) return undefined;
  const to = REPLACEMENT[kind];
  return `${kind} ${apiVersion} is no longer served since Kubernetes ${since}; ${to ? `use apiVersion ${to}` : `the kind was removed`}`;
}
