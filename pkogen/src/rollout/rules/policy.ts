/** ACM Policy rules (P1–P5): what the Policy CRD, the propagator and template-sync accept (rollout reference §4.1). */
import { REMEDIATION } from '../fields.js';
import { POLICY_NAME_BUDGET } from '../generate.js';
import { formatPath, type Path } from '../source.js';
import { isObj, objName, str, type LintContext, type Obj, type RolloutRule } from './context.js';

export const P1: RolloutRule = {
  id: 'P1',
  severity: 'error',
  summary: 'Policy CRD: `spec.disabled` a boolean, `remediationAction` enum, a non-empty `policy-templates` list of `objectDefinition`s',
  docs: 'rollout reference §4.1: the Policy CRD requires spec.disabled',
};
export const P2: RolloutRule = {
  id: 'P2',
  severity: 'error',
  summary: 'name budget: namespace + name at most 62 characters',
  docs: "rollout reference §4.1: the propagator's webhook refuses a longer combined name",
};
export const P3: RolloutRule = {
  id: 'P3',
  severity: 'error',
  summary: 'remediation: the Policy\'s or every ConfigurationPolicy\'s `remediationAction` set; an effective `inform` is a warning',
  docs: 'rollout reference §4.1 and §5: with inform, ACM reports the Package missing and never creates it',
};
export const P4: RolloutRule = {
  id: 'P4',
  severity: 'error',
  summary: 'unique template names: kind/name within a Policy, ConfigurationPolicy names across Policies',
  docs: 'rollout reference §10: template-sync puts every ConfigurationPolicy in the same managed cluster namespace',
};
export const P5: RolloutRule = {
  id: 'P5',
  severity: 'error',
  summary: 'unknown fields in a Policy and its policy templates (e.g. `spec.pruneObjectBehavior` on the Policy)',
  docs: 'rollout reference §11: the API server rejects them with strict field validation, older ones drop them',
};

export const POLICY_RULES: readonly RolloutRule[] = [P1, P2, P3, P4, P5];

const POLICY_TEMPLATE_FIELDS = ['objectDefinition', 'extraDependencies', 'ignorePending'];

export function checkPolicy(ctx: LintContext, p: Obj, path: Path, chain: string): void {
  ctx.fields(p, path, chain, P5);
  const md = isObj(p.metadata) ? p.metadata : {};
  const name = str(md.name);
  const ns = str(md.namespace);
  // Counted in runes, like utf8.RuneCount.
  if (name && ns && [...name].length + [...ns].length > POLICY_NAME_BUDGET) {
    ctx.report('error', P2, [...path, 'metadata', 'name'], `the combined length of the policy namespace and name cannot exceed ${POLICY_NAME_BUDGET} characters: ${ns} (${[...ns].length}) + ${name} (${[...name].length}) = ${[...ns].length + [...name].length}`, chain);
  }
  const spec = p.spec;
  if (!isObj(spec)) {
    ctx.report('error', P1, [...path, 'spec'], 'spec is missing', chain);
    return;
  }
  if (typeof spec.disabled !== 'boolean') ctx.report('error', P1, [...path, 'spec', 'disabled'], spec.disabled === undefined ? 'spec.disabled is required by the Policy CRD' : 'spec.disabled must be a boolean', chain);
  if (spec.remediationAction !== undefined && !REMEDIATION.includes(String(spec.remediationAction))) {
    ctx.report('error', P1, [...path, 'spec', 'remediationAction'], `remediationAction must be one of ${REMEDIATION.join(', ')}`, chain);
  }
  const templates = spec['policy-templates'];
  if (!Array.isArray(templates) || templates.length === 0) {
    ctx.report('error', P1, [...path, 'spec', 'policy-templates'], 'policy-templates must be a non-empty list', chain);
    return;
  }
  const seen = new Map<string, number>();
  let allCfgSetRemediation = true;
  const effective: string[] = [];
  templates.forEach((t, i) => {
    const tp: Path = [...path, 'spec', 'policy-templates', i];
    if (!isObj(t) || !isObj(t.objectDefinition)) {
      ctx.report('error', P1, tp, 'a policy template needs objectDefinition', chain);
      allCfgSetRemediation = false;
      return;
    }
    for (const k of Object.keys(t)) if (!POLICY_TEMPLATE_FIELDS.includes(k)) ctx.report('error', P5, [...tp, k], `unknown field "${k}" in a policy template`, chain);
    const od = t.objectDefinition;
    const odPath = [...tp, 'objectDefinition'];
    const key = `${String(od.kind)}/${String(isObj(od.metadata) ? od.metadata.name : '')}`;
    if (seen.has(key)) ctx.report('error', P4, odPath, `All policy-template names must be unique within a policy: ${key} also at policy-templates[${seen.get(key)}]`, chain);
    else seen.set(key, i);
    if (od.kind === 'ConfigurationPolicy') {
      const cname = str(isObj(od.metadata) ? od.metadata.name : undefined);
      if (cname) {
        const first = ctx.cfgPolicyNames.get(cname);
        if (first !== undefined && first !== formatPath(path)) {
          ctx.report('error', P4, [...odPath, 'metadata', 'name'], `Template name must be unique: ConfigurationPolicy ${cname} is also in the Policy at ${first}; both land in the same managed cluster namespace`, chain);
        } else ctx.cfgPolicyNames.set(cname, formatPath(path));
      }
      const cra = isObj(od.spec) ? od.spec.remediationAction : undefined;
      if (cra === undefined) allCfgSetRemediation = false;
      effective.push(String(spec.remediationAction ?? cra ?? 'inform'));
    }
    ctx.visit('policy-template', od, odPath, `${chain} > ${objName(od)}`);
  });
  if (spec.remediationAction === undefined && !allCfgSetRemediation) {
    ctx.report('error', P3, [...path, 'spec', 'remediationAction'], 'RemediationAction field of the policy and policy template cannot both be unset', chain);
  } else if (effective.some((e) => e.toLowerCase() !== 'enforce')) {
    ctx.report('warning', P3, [...path, 'spec', 'remediationAction'], 'the effective remediationAction is inform: ACM reports the Package missing but never creates it', chain);
  }
}
