/**
 * ConfigurationPolicy rules (C1–C6): the CRD, the namespace fan-out, pruning, ACM's templating
 * and compliance types (rollout reference §5 and §6).
 */
import { balance } from '../delimiters.js';
import { COMPLIANCE, EVALUATION_INTERVAL, METADATA_COMPLIANCE, OBJECT_TEMPLATE_ITEM_FIELDS, PRUNE, REMEDIATION, SEVERITY } from '../fields.js';
import { DISABLE_TEMPLATES_ANNOTATION, HCP_NAMESPACE_LABEL } from '../generate.js';
import { globMatch, isEmptySelector, matchesSelector } from '../selectors.js';
import type { Path } from '../source.js';
import { isObj, objName, str, type LintContext, type Obj, type RolloutRule } from './context.js';

export const C1: RolloutRule = {
  id: 'C1',
  severity: 'error',
  summary: 'ConfigurationPolicy CRD: enums, `evaluationInterval` durations, exactly one of `object-templates` / `object-templates-raw`, object-template fields',
  docs: 'rollout reference §5: the CRD and strict field validation',
};
export const C2: RolloutRule = {
  id: 'C2',
  severity: 'error',
  summary: 'Package fan-out: no `metadata.namespace`, a namespaceSelector matching HCP namespaces by label, `include` globs matching OSD/ROSA names, `metadata.name` set',
  docs: 'rollout reference §5.2: config-policy-controller determineDesiredObjects',
};
export const C3: RolloutRule = {
  id: 'C3',
  severity: 'warning',
  summary: 'pruning: `pruneObjectBehavior` DeleteIfCreated (or DeleteAll)',
  docs: 'rollout reference §5.4: otherwise removing the policy leaves the Packages running',
};
export const C4: RolloutRule = {
  id: 'C4',
  severity: 'error',
  summary: '`{{` in an objectDefinition needs `disable-templates: "true"` on the ConfigurationPolicy',
  docs: 'rollout reference §6 and §10 (MCVW 004f0b3): ACM executes every template it finds',
};
export const C5: RolloutRule = {
  id: 'C5',
  severity: 'error',
  summary: '`object-templates-raw` traps (no `disable-templates`, PKO `{{ .config }}` escaped) and `{{`/`}}` balance in every string of a hub resource',
  docs: 'rollout reference §6.2: object-templates-raw',
};
export const C6: RolloutRule = {
  id: 'C6',
  severity: 'warning',
  summary: 'compliance types: `mustonlyhave` without `metadataComplianceType`, `mustnothave` on a Package or ObjectTemplate',
  docs: 'rollout reference §5.1: complianceType semantics',
};

export const CONFIGURATIONPOLICY_RULES: readonly RolloutRule[] = [C1, C2, C3, C4, C5, C6];

/** An OSD/ROSA HCP namespace name, for checking include globs (rollout reference §1). */
const SAMPLE_HCP_NAMESPACE = 'ocm-production-24o19ba52km496nvegb629918l9gbnvu-my-cluster';

export function checkConfigurationPolicy(ctx: LintContext, cp: Obj, path: Path, chain: string): void {
  ctx.fields(cp, path, chain, C1);
  if (cp.apiVersion !== 'policy.open-cluster-management.io/v1') ctx.report('error', C1, [...path, 'apiVersion'], `apiVersion must be policy.open-cluster-management.io/v1`, chain);
  const md = isObj(cp.metadata) ? cp.metadata : {};
  if (!str(md.name)) ctx.report('error', C1, [...path, 'metadata', 'name'], 'metadata.name is missing', chain);
  const annotations = isObj(md.annotations) ? md.annotations : {};
  const disableTemplates = annotations[DISABLE_TEMPLATES_ANNOTATION] === 'true';
  const spec = cp.spec;
  if (!isObj(spec)) {
    ctx.report('error', C1, [...path, 'spec'], 'spec is missing', chain);
    return;
  }
  const sp = [...path, 'spec'];
  const enumCheck = (field: string, allowed: string[]) => {
    if (spec[field] !== undefined && !allowed.includes(String(spec[field]))) ctx.report('error', C1, [...sp, field], `${field} must be one of ${allowed.join(', ')}, not ${JSON.stringify(spec[field])}`, chain);
  };
  enumCheck('remediationAction', REMEDIATION);
  enumCheck('severity', SEVERITY);
  enumCheck('pruneObjectBehavior', PRUNE);
  if (isObj(spec.evaluationInterval)) {
    for (const k of ['compliant', 'noncompliant']) {
      const v = spec.evaluationInterval[k];
      if (v !== undefined && !(typeof v === 'string' && EVALUATION_INTERVAL.test(v))) ctx.report('error', C1, [...sp, 'evaluationInterval', k], `evaluationInterval.${k} ${JSON.stringify(v)} is not a duration like 2m, 45s, never or watch`, chain);
    }
  }
  if (spec.pruneObjectBehavior !== 'DeleteIfCreated' && spec.pruneObjectBehavior !== 'DeleteAll') {
    ctx.report('warning', C3, sp, 'pruneObjectBehavior is not DeleteIfCreated: removing the policy leaves what it created behind (a Package keeps running in every HCP namespace)', chain);
  }
  const hasOT = spec['object-templates'] !== undefined && spec['object-templates'] !== null;
  const hasRaw = spec['object-templates-raw'] !== undefined && spec['object-templates-raw'] !== null;
  if (hasOT && hasRaw) ctx.report('error', C1, sp, 'spec may only contain one of object-templates and object-templates-raw', chain);
  if (!hasOT && !hasRaw) {
    const why = 'object-templates' in spec ? ' (object-templates is there but empty: check its indentation)' : '';
    ctx.report('error', C1, sp, `spec needs object-templates or object-templates-raw${why}`, chain);
    return;
  }
  if (hasRaw) {
    checkRaw(ctx, spec['object-templates-raw'], [...sp, 'object-templates-raw'], chain, disableTemplates);
    return;
  }
  const ots = spec['object-templates'];
  if (!Array.isArray(ots) || ots.length === 0) {
    ctx.report('error', C1, [...sp, 'object-templates'], 'object-templates must be a non-empty list', chain);
    return;
  }
  ots.forEach((ot, i) => {
    const op: Path = [...sp, 'object-templates', i];
    if (!isObj(ot)) {
      ctx.report('error', C1, op, 'an object template must be a mapping', chain);
      return;
    }
    for (const k of Object.keys(ot)) if (!OBJECT_TEMPLATE_ITEM_FIELDS.includes(k)) ctx.report('error', C1, [...op, k], `unknown field "${k}" in an object template`, chain);
    if (!COMPLIANCE.includes(String(ot.complianceType))) ctx.report('error', C1, [...op, 'complianceType'], `complianceType must be one of musthave, mustonlyhave, mustnothave (any documented casing), not ${JSON.stringify(ot.complianceType)}`, chain);
    if (ot.metadataComplianceType !== undefined && !METADATA_COMPLIANCE.includes(String(ot.metadataComplianceType))) ctx.report('error', C1, [...op, 'metadataComplianceType'], 'metadataComplianceType must be musthave or mustonlyhave', chain);
    const od = ot.objectDefinition;
    if (!isObj(od)) {
      ctx.report('error', C1, [...op, 'objectDefinition'], 'objectDefinition is missing', chain);
      return;
    }
    const ct = String(ot.complianceType).toLowerCase();
    if (ct === 'mustonlyhave' && ot.metadataComplianceType === undefined) ctx.report('warning', C6, [...op, 'metadataComplianceType'], 'mustonlyhave without metadataComplianceType: musthave fights every controller that adds labels or annotations', chain);
    const odp: Path = [...op, 'objectDefinition'];
    const ochain = `${chain} > ${objName(od)}`;
    if (ct === 'mustnothave' && (od.kind === 'Package' || od.kind === 'ObjectTemplate')) ctx.report('warning', C6, [...op, 'complianceType'], `mustnothave deletes the ${String(od.kind)} in every selected namespace`, ochain);
    if (ct === 'mustnothave' && od.kind === 'ClusterPackage') ctx.report('warning', C6, [...op, 'complianceType'], 'mustnothave deletes the ClusterPackage on every placed cluster', ochain);
    // Cluster-scoped: config-policy-controller places it once and ignores the namespaceSelector.
    if (od.kind === 'ClusterPackage' && isObj(od.metadata) && od.metadata.namespace !== undefined) ctx.report('warning', C2, [...odp, 'metadata', 'namespace'], 'a ClusterPackage is cluster-scoped: metadata.namespace is ignored', ochain);
    // ACM executes any {{ }} in an objectDefinition unless templates are disabled.
    if (JSON.stringify(od).includes('{{') && !disableTemplates) {
      ctx.report('error', C4, [...path, 'metadata', 'annotations'], `the objectDefinition contains {{ }} (${od.kind === 'ObjectTemplate' ? 'PKO template' : 'template text'}) and the ConfigurationPolicy lacks annotation ${DISABLE_TEMPLATES_ANNOTATION}: "true": ACM would execute it`, ochain);
    }
    if (od.kind === 'Package' || od.kind === 'ObjectTemplate') checkFanOut(ctx, od, odp, ochain, spec.namespaceSelector, [...sp, 'namespaceSelector']);
    ctx.visit('object-template', od, odp, ochain);
  });
}

/** How config-policy-controller places a namespaced object (§5.2). */
function checkFanOut(ctx: LintContext, od: Obj, path: Path, chain: string, sel: unknown, selPath: Path): void {
  const md = isObj(od.metadata) ? od.metadata : {};
  if (!str(md.name)) ctx.report('error', C2, [...path, 'metadata', 'name'], `${String(od.kind)} needs metadata.name`, chain);
  if (md.namespace !== undefined) {
    ctx.report('error', C2, [...path, 'metadata', 'namespace'], `${String(od.kind)} has metadata.namespace: the namespaceSelector is ignored and only that namespace gets it`, chain);
    return;
  }
  if (!isObj(sel) || (isEmptySelector(sel) && !(Array.isArray(sel.include) && sel.include.length > 0))) {
    ctx.report('error', C2, selPath, `namespaceSelector is empty${sel === null ? ' (the key is there but empty: check indentation)' : ''}: no namespace is selected and the policy is NonCompliant ("has no namespace specified from the policy namespaceSelector")`, chain);
    return;
  }
  const ml = isObj(sel.matchLabels) ? sel.matchLabels : {};
  const exprs = Array.isArray(sel.matchExpressions) ? sel.matchExpressions.filter(isObj) : [];
  const byLabel = ml[HCP_NAMESPACE_LABEL] !== undefined || exprs.some((e) => e.key === HCP_NAMESPACE_LABEL);
  if (!byLabel) {
    ctx.report('warning', C2, selPath, `namespaceSelector does not use the label ${HCP_NAMESPACE_LABEL}: "true" that HyperShift puts on every control-plane namespace`, chain);
  } else {
    try {
      if (!matchesSelector({ matchLabels: ml, matchExpressions: exprs as never }, { [HCP_NAMESPACE_LABEL]: 'true' })) {
        ctx.report('error', C2, selPath, `namespaceSelector does not match HCP namespaces (label ${HCP_NAMESPACE_LABEL}: "true")`, chain);
      } else if (ml[HCP_NAMESPACE_LABEL] === undefined && exprs.some((e) => e.key === HCP_NAMESPACE_LABEL && e.operator === 'Exists')) {
        ctx.report('warning', C2, selPath, `${HCP_NAMESPACE_LABEL} Exists also matches non-namespace uses of the key; match the value "true"`, chain);
      }
    } catch (e) {
      ctx.report('error', C2, selPath, (e as Error).message, chain);
    }
  }
  if (Array.isArray(sel.include) && sel.include.length > 0) {
    const inc = sel.include.map(String);
    if (!inc.some((p) => globMatch(p, SAMPLE_HCP_NAMESPACE))) {
      ctx.report('error', C2, [...selPath, 'include'], `include ${JSON.stringify(inc)} matches no OSD/ROSA HCP namespace (they are named ocm-<env>-<cluster id>-<name>, e.g. ${SAMPLE_HCP_NAMESPACE})`, chain);
    }
  }
}

/** `object-templates-raw` (§6.2). */
function checkRaw(ctx: LintContext, raw: unknown, path: Path, chain: string, disableTemplates: boolean): void {
  if (typeof raw !== 'string') {
    ctx.report('error', C1, path, 'object-templates-raw must be a string', chain);
    return;
  }
  if (disableTemplates) {
    ctx.report('error', C5, path, `object-templates-raw with ${DISABLE_TEMPLATES_ANNOTATION}: "true": the raw string is never parsed, zero objects are created and the policy reports Compliant`, chain);
  }
  const bal = balance(raw);
  if (bal) ctx.report('error', C5, path, `object-templates-raw: ${bal}`, chain);
  // Inside range, "." is the Namespace: an unescaped PKO expression renders as null.
  for (const m of raw.matchAll(/\{\{-?\s*(?:toJson\s+|toYaml\s+)?\.config\b/g)) {
    ctx.report('error', C5, path, `object-templates-raw contains the PKO expression ${JSON.stringify(m[0] + '…')} unescaped: ACM evaluates it (to null) before PKO sees it; write {{ \`{{ … }}\` }}`, chain);
    break;
  }
  if (!/hosted-control-plane/.test(raw)) ctx.report('warning', C2, path, `object-templates-raw does not look up namespaces by ${HCP_NAMESPACE_LABEL}=true`, chain);
}

/** `{{`/`}}` balance of every string in a hub resource (the layers nest: oc, hive, ACM, PKO). */
export function checkDelimiters(ctx: LintContext, v: unknown, path: Path, chain: string): void {
  const visit = (x: unknown, p: Path) => {
    if (typeof x === 'string') {
      if (p[p.length - 1] === 'object-templates-raw') return; // checked by checkRaw
      const b = balance(x);
      if (b) ctx.report('error', C5, p, `template delimiters: ${b}`, chain);
    } else if (Array.isArray(x)) x.forEach((y, i) => visit(y, [...p, i]));
    else if (isObj(x)) for (const [k, y] of Object.entries(x)) visit(y, [...p, k]);
  };
  visit(v, path);
}
