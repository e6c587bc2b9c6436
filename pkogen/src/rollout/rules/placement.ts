/** Placement rules (B1–B3): PlacementBinding, PlacementRule, Placement and ManagedClusterSetBinding (rollout reference §4.2–4.4). */
import { MANAGEMENT_CLUSTER_LABEL } from '../generate.js';
import { isEmptySelector, matchesSelector } from '../selectors.js';
import type { Path } from '../source.js';
import { checkSelectorOperators, isObj, selectorKeys, type LintContext, type Obj, type ResourcesByKind, type RolloutRule } from './context.js';

export const B1: RolloutRule = {
  id: 'B1',
  severity: 'error',
  summary: 'PlacementBinding: `placementRef`/`subjects` top-level and pointing at objects of this SelectorSyncSet in its namespace; every Policy bound',
  docs: 'rollout reference §4.2: an unbound Policy is never propagated',
};
export const B2: RolloutRule = {
  id: 'B2',
  severity: 'error',
  summary: 'PlacementRule/Placement selectors: an empty one selects every cluster, hosted clusters included; `clusterConditions` flaps',
  docs: 'rollout reference §4.3 and §4.4: hosted clusters have no Package CRD',
};
export const B3: RolloutRule = {
  id: 'B3',
  severity: 'error',
  summary: 'a Placement needs a ManagedClusterSetBinding in its namespace, named after its cluster set',
  docs: 'rollout reference §4.4: a Placement selects nothing unless a ManagedClusterSet is bound to its namespace',
};

export const PLACEMENT_RULES: readonly RolloutRule[] = [B1, B2, B3];

/** Placement, ManagedClusterSetBinding and PlacementBinding objects: their fields (the rest is checkBindings). */
export function checkPlacementFields(ctx: LintContext, o: Obj, path: Path, chain: string): void {
  ctx.fields(o, path, chain, o.kind === 'PlacementBinding' ? B1 : B3);
}

export function checkPlacementRule(ctx: LintContext, pr: Obj, path: Path, chain: string): void {
  ctx.fields(pr, path, chain, B2);
  const spec = isObj(pr.spec) ? pr.spec : {};
  const clusters = Array.isArray(spec.clusters) && spec.clusters.length > 0;
  if (!clusters && isEmptySelector(spec.clusterSelector)) {
    ctx.report('error', B2, [...path, 'spec', 'clusterSelector'], `PlacementRule has no clusterSelector and no clusters${spec.clusterSelector === null ? ' (the key is there but empty: check indentation)' : ''}: it selects every ManagedCluster, hosted clusters included (they have no Package CRD)`, chain);
  } else if (!clusters) {
    const sel = spec.clusterSelector as Obj;
    checkSelectorOperators(ctx, sel, [...path, 'spec', 'clusterSelector'], chain, B2);
    try {
      if (!matchesSelector(sel, { [MANAGEMENT_CLUSTER_LABEL]: 'true' })) {
        ctx.report('info', B2, [...path, 'spec', 'clusterSelector'], `the clusterSelector does not select ${MANAGEMENT_CLUSTER_LABEL}: "true" (management clusters); fine if this policy is meant for other clusters`, chain);
      }
    } catch {
      // operator errors are reported above
    }
    if (selectorKeys(sel).some((k) => k.startsWith('cluster.open-cluster-management.io/clusterset'))) {
      ctx.report('warning', B2, [...path, 'spec', 'clusterSelector'], 'selecting by ManagedClusterSet label picks a cluster set, not the management clusters', chain);
    }
  }
  if (spec.clusterConditions !== undefined) {
    ctx.report('warning', B2, [...path, 'spec', 'clusterConditions'], 'clusterConditions makes the decision flap with cluster health (and with pruning deletes Packages); the fleet templates dropped it', chain);
  }
}

/** The references between the ACM objects of one SelectorSyncSet. */
export function checkBindings(ctx: LintContext, byKind: ResourcesByKind, sssChain: string): void {
  const find = (kind: string, name: unknown, ns: string | undefined) => (byKind.get(kind) ?? []).find((x) => x.name === name && x.ns === ns);
  const bound = new Set<string>();
  for (const b of byKind.get('PlacementBinding') ?? []) {
    const chain = `${sssChain} > PlacementBinding/${b.name}`;
    const spec = isObj(b.obj.spec) ? b.obj.spec : undefined;
    const ref = b.obj.placementRef ?? spec?.placementRef;
    const subjects = b.obj.subjects ?? spec?.subjects;
    if (spec && (spec.placementRef !== undefined || spec.subjects !== undefined)) {
      ctx.report('error', B1, [...b.path, 'spec'], 'placementRef and subjects are top-level fields of a PlacementBinding, not under spec', chain);
    }
    if (!isObj(ref)) ctx.report('error', B1, [...b.path, 'placementRef'], 'placementRef is required', chain);
    else {
      const kind = ref.kind;
      const groupOk = (kind === 'PlacementRule' && ref.apiGroup === 'apps.open-cluster-management.io') || (kind === 'Placement' && ref.apiGroup === 'cluster.open-cluster-management.io');
      if (!groupOk) ctx.report('error', B1, [...b.path, 'placementRef'], 'placementRef must be {apiGroup: apps.open-cluster-management.io, kind: PlacementRule} or {apiGroup: cluster.open-cluster-management.io, kind: Placement}', chain);
      else if (!find(String(kind), ref.name, b.ns)) ctx.report('error', B1, [...b.path, 'placementRef', 'name'], `${String(kind)} ${JSON.stringify(ref.name)} is not in this SelectorSyncSet in namespace ${b.ns ?? '(none)'}`, chain);
    }
    if (!Array.isArray(subjects) || subjects.length === 0) ctx.report('error', B1, [...b.path, 'subjects'], 'subjects must be a non-empty list', chain);
    else subjects.forEach((s, i) => {
      const sp: Path = [...b.path, 'subjects', i];
      if (!isObj(s) || s.apiGroup !== 'policy.open-cluster-management.io' || (s.kind !== 'Policy' && s.kind !== 'PolicySet')) {
        ctx.report('error', B1, sp, 'a subject is {apiGroup: policy.open-cluster-management.io, kind: Policy|PolicySet, name}', chain);
        return;
      }
      if (!find(String(s.kind), s.name, b.ns)) ctx.report('error', B1, [...sp, 'name'], `${String(s.kind)} ${JSON.stringify(s.name)} is not in this SelectorSyncSet in namespace ${b.ns ?? '(none)'}`, chain);
      else bound.add(`${String(s.kind)}/${String(s.name)}`);
    });
  }
  for (const p of byKind.get('Policy') ?? []) {
    if (!bound.has(`Policy/${p.name}`)) ctx.report('error', B1, p.path, `Policy ${p.name} is not bound by any PlacementBinding in this SelectorSyncSet: it is never propagated`, `${sssChain} > Policy/${p.name}`);
  }
  for (const pl of byKind.get('Placement') ?? []) {
    const chain = `${sssChain} > Placement/${pl.name}`;
    const sets = isObj(pl.obj.spec) && Array.isArray(pl.obj.spec.clusterSets) ? pl.obj.spec.clusterSets.map(String) : [];
    const bindings = (byKind.get('ManagedClusterSetBinding') ?? []).filter((x) => x.ns === pl.ns);
    if (bindings.length === 0) ctx.report('warning', B3, pl.path, `a Placement selects nothing unless a ManagedClusterSetBinding binds a cluster set to namespace ${pl.ns ?? '(none)'}; none is in this SelectorSyncSet`, chain);
    for (const s of sets) if (bindings.length > 0 && !bindings.some((x) => x.name === s)) ctx.report('warning', B3, [...pl.path, 'spec', 'clusterSets'], `cluster set ${s} has no ManagedClusterSetBinding here`, chain);
    const preds = isObj(pl.obj.spec) && Array.isArray(pl.obj.spec.predicates) ? pl.obj.spec.predicates : [];
    if (preds.length === 0) ctx.report('error', B2, [...pl.path, 'spec', 'predicates'], 'Placement without predicates selects every cluster of its sets, hosted clusters included', chain);
  }
  for (const b of byKind.get('ManagedClusterSetBinding') ?? []) {
    const cs = isObj(b.obj.spec) ? b.obj.spec.clusterSet : undefined;
    if (cs !== b.name) ctx.report('error', B3, [...b.path, 'spec', 'clusterSet'], `a ManagedClusterSetBinding's metadata.name must equal spec.clusterSet (${JSON.stringify(b.name)} vs ${JSON.stringify(cs)})`, `${sssChain} > ManagedClusterSetBinding/${b.name}`);
  }
}
