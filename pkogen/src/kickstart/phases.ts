/**
 * Phases for plain manifests, as `kubectl package kickstart` assigns them (PKO
 * internal/packages/internal/packagekickstart/presets/phases.go): a table of group/kinds per
 * well-known phase, in a fixed order, anything else in `other`. One deliberate difference:
 * upstream lists RBAC's binding kind as "RoleRolebinding", so RoleBindings fall into `other`
 * there; here they go to `rbac` with the Roles they bind.
 */
import { groupOf } from '../schema/scope.js';

export const ORDERED_PHASES = ['namespaces', 'policies', 'rbac', 'crds', 'storage', 'deploy', 'publish', 'other'] as const;
export type KickstartPhase = (typeof ORDERED_PHASES)[number];

const TABLE: Record<Exclude<KickstartPhase, 'other'>, string[]> = {
  namespaces: ['/Namespace'],
  policies: ['/ResourceQuota', '/LimitRange', 'scheduling.k8s.io/PriorityClass', 'networking.k8s.io/NetworkPolicy', 'autoscaling/HorizontalPodAutoscaler', 'policy/PodDisruptionBudget'],
  rbac: [
    '/ServiceAccount',
    'rbac.authorization.k8s.io/Role',
    'rbac.authorization.k8s.io/RoleBinding',
    'rbac.authorization.k8s.io/ClusterRole',
    'rbac.authorization.k8s.io/ClusterRoleBinding',
  ],
  crds: ['apiextensions.k8s.io/CustomResourceDefinition'],
  storage: ['/PersistentVolume', '/PersistentVolumeClaim', 'storage.k8s.io/StorageClass'],
  deploy: ['apps/Deployment', 'apps/DaemonSet', 'apps/StatefulSet', '/ReplicaSet', '/Pod', 'batch/Job', 'batch/CronJob', '/Service', '/Secret', '/ConfigMap'],
  publish: [
    'networking.k8s.io/Ingress',
    'apiregistration.k8s.io/APIService',
    'route.openshift.io/Route',
    'admissionregistration.k8s.io/MutatingWebhookConfiguration',
    'admissionregistration.k8s.io/ValidatingWebhookConfiguration',
  ],
};

const BY_GROUP_KIND = new Map<string, KickstartPhase>();
for (const [phase, gks] of Object.entries(TABLE)) for (const gk of gks) BY_GROUP_KIND.set(gk, phase as KickstartPhase);

export function phaseFor(apiVersion: string, kind: string): KickstartPhase {
  return BY_GROUP_KIND.get(`${groupOf(apiVersion)}/${kind}`) ?? 'other';
}
