/** Template and parameter rules (T1–T3): what `oc process` and saasherder do with the Template (rollout reference §2). */
import { parameterUses, readParameters, type SaasFill, type TemplateParameter } from '../process.js';
import { isObj, type LintContext, type RolloutRule } from './context.js';

export const T1: RolloutRule = {
  id: 'T1',
  severity: 'error',
  summary: 'kind/apiVersion, parameter names `[a-zA-Z0-9_]+` and unique, required parameters have values; `objects` a list (empty: a warning, a Template retired on purpose)',
  docs: 'rollout reference §2 and §10: oc process refuses such a Template',
};
export const T2: RolloutRule = {
  id: 'T2',
  severity: 'warning',
  summary: '`${X}` used but not declared (left verbatim by oc), declared but unused, values the SaaS must give, `-p` values the Template does not declare',
  docs: 'rollout reference §2: oc process leaves an undeclared `${X}` verbatim and drops unknown parameters',
};
export const T3: RolloutRule = {
  id: 'T3',
  severity: 'error',
  summary: '`IMAGE_DIGEST`/`REPO_DIGEST` need `REGISTRY_IMG` from the SaaS file; saasherder\'s parameter values must be computable',
  docs: 'rollout reference §2 and §9: saasherder computes the digest from REGISTRY_IMG:IMAGE_TAG',
};

export const T4: RolloutRule = {
  id: 'T4',
  severity: 'error',
  summary: 'the Template places a Package or ClusterPackage somewhere (top level, in a SelectorSyncSet, or through a Policy\'s object templates); simulate: at least one is placed in the fleet',
  docs: 'a rollout Template that installs no package deploys nothing and reports success everywhere',
};

export const TEMPLATE_RULES: readonly RolloutRule[] = [T1, T2, T3, T4];

const PLACER_KINDS = new Set(['Package', 'ClusterPackage', 'ObjectTemplate', 'HostedClusterPackage']);
const RAW_PLACER = /\bkind:\s*["']?(?:Cluster)?Package\b|\bkind:\s*["']?(?:ObjectTemplate|HostedClusterPackage)\b/;

/** True when the processed objects hold, at any depth, a PKO object that installs a package (or raw object templates naming one). */
export function placesPackage(v: unknown): boolean {
  if (typeof v === 'string') return RAW_PLACER.test(v);
  if (Array.isArray(v)) return v.some(placesPackage);
  if (!isObj(v)) return false;
  if (typeof v.kind === 'string' && PLACER_KINDS.has(v.kind) && typeof v.apiVersion === 'string' && v.apiVersion.startsWith('package-operator.run/')) return true;
  return Object.values(v).some(placesPackage);
}

const PARAM_NAME = /^[a-zA-Z0-9_]+$/;

/** Parameters SaaS files may give that no Template needs to declare (saasherder sets them). */
const SAASHERDER_PARAMETERS = new Set(['REGISTRY_IMG', 'COMMIT_SHA', 'IMAGE_TAG']);

/** The Template itself, before processing; returns its raw objects, or undefined when there is nothing to walk. */
export function checkTemplate(ctx: LintContext): unknown[] | undefined {
  const v = ctx.template.value;
  if (!isObj(v)) {
    ctx.report('error', T1, [], 'a Template must be a YAML mapping');
    return undefined;
  }
  if (v.kind !== 'Template') ctx.report('error', T1, ['kind'], `kind must be Template, not ${JSON.stringify(v.kind)}`);
  if (v.apiVersion !== 'v1' && v.apiVersion !== 'template.openshift.io/v1') ctx.report('error', T1, ['apiVersion'], `apiVersion must be v1 or template.openshift.io/v1, not ${JSON.stringify(v.apiVersion)}`);
  if (v.parameters !== undefined && v.parameters !== null && !Array.isArray(v.parameters)) ctx.report('error', T1, ['parameters'], 'parameters must be a list');
  const seen = new Map<string, number>();
  (Array.isArray(v.parameters) ? v.parameters : []).forEach((p, i) => {
    if (!isObj(p) || typeof p.name !== 'string') {
      ctx.report('error', T1, ['parameters', i], 'a parameter needs a name');
      return;
    }
    if (!PARAM_NAME.test(p.name)) ctx.report('error', T1, ['parameters', i, 'name'], `parameter name ${JSON.stringify(p.name)} must match [a-zA-Z0-9_]+`);
    if (seen.has(p.name)) ctx.report('error', T1, ['parameters', i, 'name'], `parameter ${p.name} is declared twice (first at parameters[${seen.get(p.name)}])`);
    else seen.set(p.name, i);
    if (p.generate !== undefined && p.generate !== 'expression') ctx.report('error', T1, ['parameters', i, 'generate'], `generate must be "expression", not ${JSON.stringify(p.generate)}`);
  });
  if (v.objects !== undefined && v.objects !== null && !Array.isArray(v.objects)) {
    ctx.report('error', T1, ['objects'], 'objects must be a list');
    return undefined;
  }
  if (!Array.isArray(v.objects) || v.objects.length === 0) {
    // A Template emptied on purpose (a rollout being retired) is valid for oc process.
    ctx.report('warning', T1, ['objects'], 'objects is empty: this Template deploys nothing');
    return undefined;
  }
  // Used vs declared, on the unprocessed objects.
  const declared = readParameters(v);
  const declaredNames = new Set(declared.map((p) => p.name));
  const uses = parameterUses(v.objects, ['objects']);
  const used = new Set(uses.map((u) => u.name));
  const undeclaredSeen = new Set<string>();
  for (const u of uses) {
    if (declaredNames.has(u.name) || undeclaredSeen.has(u.name)) continue;
    undeclaredSeen.add(u.name);
    ctx.report('warning', T2, u.path, `\${${u.name}} is not a declared parameter: oc process leaves it verbatim`);
  }
  for (const p of declared) {
    if (!used.has(p.name)) ctx.report('warning', T2, ['parameters', p.index], `parameter ${p.name} is declared but never used`);
  }
  return v.objects;
}

/** The values saasherder fills in: what could not be computed, and what the SaaS file must give. */
export function checkParameterValues(ctx: LintContext, declared: TemplateParameter[], fill: SaasFill, given: Record<string, string>): void {
  for (const p of fill.problems) ctx.report('error', T3, p.path, p.message);
  const digestParam = declared.find((p) => p.name === 'IMAGE_DIGEST' || p.name === 'REPO_DIGEST');
  if (digestParam && fill.origin.REGISTRY_IMG === 'placeholder') {
    ctx.report('info', T3, ['parameters', digestParam.index], `${digestParam.name} is computed by saasherder from REGISTRY_IMG:IMAGE_TAG: the SaaS resourceTemplate must set REGISTRY_IMG and its imagePatterns must cover it`);
  }
  for (const p of declared) {
    if (fill.origin[p.name] === 'placeholder' && p.name !== 'REGISTRY_IMG') {
      ctx.report('info', T2, ['parameters', p.index], `parameter ${p.name} is required and has no value here: the SaaS file must set it (linted with ${JSON.stringify(fill.values[p.name])})`);
    }
  }
  const declaredNames = new Set(declared.map((p) => p.name));
  for (const k of Object.keys(given).sort()) {
    // oc process --ignore-unknown-parameters: a SaaS parameter the Template does not declare is dropped.
    if (!declaredNames.has(k) && !SAASHERDER_PARAMETERS.has(k)) ctx.report('info', T2, ['parameters'], `-p ${k} is not a parameter of this Template: oc process ignores it`);
  }
}
