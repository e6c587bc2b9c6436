/**
 * Scope rules PKO enforces only at install (ObjectSet preflight) for a namespaced Package:
 * objects outside a classed phase must be namespaced and stay in the Package's namespace.
 */
import type { Finding } from '../../core/errors.js';
import { gvkOf } from '../object-validators.js';
import { CheckContext, objectFinding, phaseClass, phaseOf, ScopeLookup } from './context.js';

/** Well-known cluster-scoped kinds, used when no schema registry is at hand. */
const CLUSTER_SCOPED = new Set([
  '/Namespace', '/Node', '/PersistentVolume', '/ComponentStatus',
  'rbac.authorization.k8s.io/ClusterRole', 'rbac.authorization.k8s.io/ClusterRoleBinding',
  'apiextensions.k8s.io/CustomResourceDefinition', 'apiregistration.k8s.io/APIService',
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/MutatingWebhookConfiguration',
  'admissionregistration.k8s.io/ValidatingAdmissionPolicy', 'admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding',
  'storage.k8s.io/StorageClass', 'storage.k8s.io/CSIDriver', 'storage.k8s.io/CSINode', 'storage.k8s.io/VolumeAttachment',
  'scheduling.k8s.io/PriorityClass', 'node.k8s.io/RuntimeClass', 'policy/PodSecurityPolicy',
  'networking.k8s.io/IngressClass', 'flowcontrol.apiserver.k8s.io/FlowSchema', 'flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration',
  'certificates.k8s.io/CertificateSigningRequest',
  'package-operator.run/ClusterPackage', 'package-operator.run/ClusterObjectDeployment', 'package-operator.run/ClusterObjectSet',
  'package-operator.run/ClusterObjectSetPhase', 'package-operator.run/ClusterObjectSlice', 'package-operator.run/ClusterObjectTemplate',
  'package-operator.run/HostedClusterPackage',
  'config.openshift.io/ClusterVersion', 'config.openshift.io/Proxy', 'config.openshift.io/Infrastructure',
  'machineconfiguration.openshift.io/MachineConfig', 'machineconfiguration.openshift.io/MachineConfigPool',
  'machineconfiguration.openshift.io/MachineOSConfig', 'machineconfiguration.openshift.io/MachineOSBuild',
  'security.openshift.io/SecurityContextConstraints', 'hive.openshift.io/SelectorSyncSet', 'hive.openshift.io/ClusterImageSet',
  'cluster.open-cluster-management.io/ManagedClusterSet',
]);

export const builtinScopeOf: ScopeLookup = (group, _version, kind) => (CLUSTER_SCOPED.has(`${group}/${kind}`) ? 'Cluster' : undefined);

export function checkScope(ctx: CheckContext): Finding[] {
  const scopes = ctx.manifest.spec.scopes ?? [];
  if (!(scopes.includes('Namespaced') && !scopes.includes('Cluster'))) return [];
  const out: Finding[] = [];
  const lookup = (g: string, v: string, k: string) => ctx.scopeOf?.(g, v, k) ?? builtinScopeOf(g, v, k);
  for (const ref of ctx.objects) {
    const phase = phaseOf(ref);
    if (phaseClass(ctx.manifest, phase)) continue; // classed phases are applied elsewhere (e.g. the hosted cluster)
    const g = gvkOf(ref.object);
    const gk = g.group ? `${g.kind}.${g.group}` : g.kind;
    if (lookup(g.group, g.version, g.kind) === 'Cluster') {
      out.push(objectFinding(ctx, ref, 'error', 'scope/cluster-scoped-in-namespaced-package',
        `${gk} is cluster-scoped but the package is Namespaced-only and phase "${phase}" has no class; PKO rejects it at install: Must be namespaced scoped when part of an non-cluster-scoped API.`, 'kind'));
      continue;
    }
    const ns = ref.object.metadata?.namespace;
    if (typeof ns === 'string' && ns !== '') {
      if (ctx.packageNamespace !== undefined && ns !== ctx.packageNamespace) {
        out.push(objectFinding(ctx, ref, 'error', 'scope/foreign-namespace',
          `${gk} is in namespace "${ns}" but the package is installed in "${ctx.packageNamespace}"; PKO rejects it at install: Must stay within the same namespace.`, 'metadata.namespace'));
      } else if (ctx.packageNamespace === undefined) {
        out.push(objectFinding(ctx, ref, 'warning', 'scope/fixed-namespace',
          `${gk} has a fixed namespace "${ns}" in a Namespaced package: it installs only into that namespace (PKO: Must stay within the same namespace.)`, 'metadata.namespace'));
      }
    }
  }
  return out;
}
