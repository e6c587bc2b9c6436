/** SelectorSyncSet rules (S1–S6): what hive does with the SelectorSyncSet and its resources (rollout reference §3). */
import { scopeOf } from '../../schema/scope.js';
import { ACM_POLICY_NAMESPACE, CLUSTER_TYPE_LABEL } from '../generate.js';
import { isEmptySelector, matchesSelector } from '../selectors.js';
import type { Path } from '../source.js';
import { checkSelectorOperators, isObj, objName, selectorKeys, str, type LintContext, type Obj, type ResourcesByKind, type RolloutRule } from './context.js';

export const S1: RolloutRule = {
  id: 'S1',
  severity: 'error',
  summary: 'SSS against the hive CRD, `resourceApplyMode` Sync; `resources`, `patches`, `secretMappings` all optional (hive\'s `SyncSetCommonSpec`), none at all is a warning; objects other than SSS are info (applied only if the SaaS file\'s `managedResourceTypes` lists them, which the Template cannot show), and a top-level (Cluster)Package still gets K1',
  docs: 'rollout reference §3 (hive CRD and webhook) and §11 #15 (saasherder keeps only managedResourceTypes)',
};
export const S2: RolloutRule = {
  id: 'S2',
  severity: 'error',
  summary: '`clusterDeploymentSelector` empty (e.g. indentation) ⇒ every ClusterDeployment; selector operators',
  docs: 'rollout reference §3: hive applies a SelectorSyncSet with an empty selector to every ClusterDeployment',
};
export const S3: RolloutRule = {
  id: 'S3',
  // An error only in simulate: a fleet shows the SelectorSyncSet landing on a cluster that is no ACM hub.
  severity: 'error',
  summary: 'Policies go to service clusters; suggests `managed` / `fedramp` selectors (simulate: applied to a cluster that is no ACM hub is an error)',
  docs: 'rollout reference §1 (topology: ACM hubs are the service clusters) and §10',
};
export const S4: RolloutRule = {
  id: 'S4',
  severity: 'error',
  summary: '`enableResourceTemplates` with `{{` in resources',
  docs: 'rollout reference §3: hive would execute the ACM/PKO templates itself',
};
export const S5: RolloutRule = {
  id: 'S5',
  severity: 'error',
  summary: 'apiVersion/kind/name; namespaced kinds need a namespace; ACM kinds in `openshift-acm-policies`',
  docs: 'rollout reference §3: hive applies a namespaced object without a namespace into "default"',
};
export const S6: RolloutRule = {
  id: 'S6',
  severity: 'warning',
  summary: 'no `Namespace openshift-acm-policies`',
  docs: "rollout reference §10: managed-cluster-config's Sync SelectorSyncSet owns that Namespace",
};

export const SELECTORSYNCSET_RULES: readonly RolloutRule[] = [S1, S2, S3, S4, S5, S6];

const ACM_KINDS = new Set(['Policy', 'PlacementRule', 'PlacementBinding', 'Placement', 'ManagedClusterSetBinding', 'PolicySet']);

/** Checks a SelectorSyncSet and visits each of its resources; returns them by kind. */
export function checkSelectorSyncSet(ctx: LintContext, sss: Obj, path: Path): ResourcesByKind {
  const chain = objName(sss);
  const byKind: ResourcesByKind = new Map();
  if (sss.apiVersion !== 'hive.openshift.io/v1') ctx.report('error', S1, [...path, 'apiVersion'], `apiVersion must be hive.openshift.io/v1, not ${JSON.stringify(sss.apiVersion)}`, chain);
  ctx.name(sss, path, chain, S1);
  ctx.fields(sss, path, chain, S1);
  const spec = sss.spec;
  if (!isObj(spec)) {
    ctx.report('error', S1, [...path, 'spec'], 'spec is missing', chain);
    return byKind;
  }
  const mode = spec.resourceApplyMode;
  if (mode !== undefined && mode !== 'Upsert' && mode !== 'Sync') ctx.report('error', S1, [...path, 'spec', 'resourceApplyMode'], `resourceApplyMode must be Upsert or Sync, not ${JSON.stringify(mode)} (hive webhook)`, chain);
  else if (mode !== 'Sync') ctx.report('warning', S1, [...path, 'spec', 'resourceApplyMode'], 'resourceApplyMode is Upsert: resources removed from the list stay on the hub; use Sync', chain);
  if (spec.applyBehavior !== undefined && !['', 'Apply', 'CreateOnly', 'CreateOrUpdate'].includes(String(spec.applyBehavior))) {
    ctx.report('error', S1, [...path, 'spec', 'applyBehavior'], `applyBehavior must be one of Apply, CreateOnly, CreateOrUpdate`, chain);
  }
  const cds = spec.clusterDeploymentSelector;
  if (isEmptySelector(cds)) {
    const why = cds === null ? ' (the key is there but empty: check the indentation of matchLabels/matchExpressions)' : '';
    ctx.report('error', S2, [...path, 'spec', 'clusterDeploymentSelector'], `clusterDeploymentSelector is empty${why}: hive applies this SelectorSyncSet to every ClusterDeployment on the shard`, chain);
  } else {
    checkSelectorOperators(ctx, cds, [...path, 'spec', 'clusterDeploymentSelector'], chain, S2);
  }
  const resources = Array.isArray(spec.resources) ? spec.resources : [];
  // Hive: resources, patches and secretMappings are all optional (SyncSetCommonSpec).
  const present = (k: string) => spec[k] !== undefined && spec[k] !== null;
  if (present('resources') && !Array.isArray(spec.resources)) ctx.report('error', S1, [...path, 'spec', 'resources'], 'resources must be a list', chain);
  else if (!present('resources') && !present('patches') && !present('secretMappings')) {
    ctx.report('warning', S1, [...path, 'spec'], 'the SelectorSyncSet has no resources, patches or secretMappings: it syncs nothing', chain);
  }
  const carriesPolicies = resources.some((r) => isObj(r) && r.kind === 'Policy');
  if (carriesPolicies && !isEmptySelector(cds)) serviceClusterTarget(ctx, cds as Obj, [...path, 'spec', 'clusterDeploymentSelector'], chain);
  if (spec.enableResourceTemplates === true && JSON.stringify(resources).includes('{{')) {
    ctx.report('error', S4, [...path, 'spec', 'enableResourceTemplates'], 'enableResourceTemplates is true and the resources contain {{ }}: hive would execute the ACM/PKO templates itself', chain);
  }
  resources.forEach((r, j) => {
    const rp: Path = [...path, 'spec', 'resources', j];
    if (!isObj(r)) {
      ctx.report('error', S5, rp, 'a resource must be a mapping', chain);
      return;
    }
    const rchain = `${chain} > ${objName(r)}`;
    if (typeof r.apiVersion !== 'string' || r.apiVersion === '') ctx.report('error', S5, [...rp, 'apiVersion'], 'apiVersion is missing', rchain);
    if (typeof r.kind !== 'string' || r.kind === '') {
      ctx.report('error', S5, [...rp, 'kind'], 'kind is missing', rchain);
      return;
    }
    const name = ctx.name(r, rp, rchain, S5);
    const md = isObj(r.metadata) ? r.metadata : {};
    const ns = str(md.namespace);
    // The one scope table (bundled CRDs and built-ins); an unknown kind is not judged.
    const scope = typeof r.apiVersion === 'string' && r.apiVersion !== '' ? scopeOf(r.apiVersion, r.kind) : undefined;
    if (scope === 'Namespaced' && !ns) {
      ctx.report('error', S5, [...rp, 'metadata'], `${r.kind} is namespaced and has no metadata.namespace: hive applies it into "default"`, rchain);
    }
    if (ns && scope === 'Cluster') ctx.report('warning', S5, [...rp, 'metadata', 'namespace'], `${r.kind} is cluster-scoped; metadata.namespace is ignored`, rchain);
    if (ACM_KINDS.has(r.kind) && ns && ns !== ACM_POLICY_NAMESPACE) {
      ctx.report('warning', S5, [...rp, 'metadata', 'namespace'], `${r.kind} in namespace ${ns}: the hubs' policy namespace is ${ACM_POLICY_NAMESPACE} (created by managed-cluster-config); another namespace may not exist there`, rchain);
    }
    if (r.kind === 'Namespace' && name === ACM_POLICY_NAMESPACE) {
      ctx.report('warning', S6, rp, `do not ship Namespace ${ACM_POLICY_NAMESPACE}: managed-cluster-config's Sync SelectorSyncSet owns it`, rchain);
    }
    if (name) {
      const list = byKind.get(r.kind) ?? [];
      list.push({ obj: r, path: rp, name, ns });
      byKind.set(r.kind, list);
    }
    ctx.visit('sss-resource', r, rp, rchain);
  });
  return byKind;
}

/** An object the Template carries beside the SelectorSyncSets (§11 #15). */
export function checkTopLevelObject(ctx: LintContext, o: Obj, path: Path): void {
  // saasherder keeps only managedResourceTypes. Whether this SaaS file lists the kind is not in
  // the Template (Templates applied directly to a cluster carry a ClusterPackage or ConfigMap at
  // top level on purpose), so this is advice, not a defect.
  ctx.report('info', S1, path, `${objName(o)} is applied only if the SaaS file lists ${String(o.kind)} in managedResourceTypes (HyperShift Policy rollouts list only SelectorSyncSet)`);
}

function serviceClusterTarget(ctx: LintContext, sel: Obj, path: Path, chain: string): void {
  const probe = (type: string, extra: Record<string, string> = {}): boolean => {
    try {
      return matchesSelector(sel, { [CLUSTER_TYPE_LABEL]: type, 'api.openshift.com/managed': 'true', ...extra });
    } catch {
      return false;
    }
  };
  if (!probe('service-cluster')) {
    const hitsMgmt = probe('management-cluster') || probe('management-cluster-v2');
    ctx.report(
      'warning',
      S3,
      path,
      hitsMgmt
        ? 'this SelectorSyncSet carries ACM Policies but targets management clusters: Policies belong on the ACM hubs, the service clusters (ext-hypershift.openshift.io/cluster-type In [service-cluster])'
        : 'this SelectorSyncSet carries ACM Policies but does not select service clusters (ext-hypershift.openshift.io/cluster-type In [service-cluster])',
      chain,
    );
    return;
  }
  const keys = new Set<string>(selectorKeys(sel));
  if (!keys.has('api.openshift.com/managed')) ctx.report('info', S3, path, 'consider api.openshift.com/managed In ["true"] to keep the rollout to OSD-managed service clusters', chain);
  if (!keys.has('api.openshift.com/fedramp')) ctx.report('info', S3, path, 'consider api.openshift.com/fedramp NotIn ["true"] unless this is meant for FedRAMP', chain);
}
