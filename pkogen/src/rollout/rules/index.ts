/** Every rule `lint-rollout` reports, as data (docs/rollout.md's rule table is generated from it). */
import type { RolloutRule } from './context.js';
import { CONFIGURATIONPOLICY_RULES } from './configurationpolicy.js';
import { PACKAGE_RULES } from './package.js';
import { PLACEMENT_RULES } from './placement.js';
import { POLICY_RULES } from './policy.js';
import { SELECTORSYNCSET_RULES } from './selectorsyncset.js';
import { TEMPLATE_RULES } from './template.js';

export type { RolloutRule } from './context.js';

/** In the order of the rollout reference §10: Template, SelectorSyncSet, Policy, placement, ConfigurationPolicy, PKO. */
export const ROLLOUT_RULES: readonly RolloutRule[] = [
  ...TEMPLATE_RULES,
  ...SELECTORSYNCSET_RULES,
  ...POLICY_RULES,
  ...PLACEMENT_RULES,
  ...CONFIGURATIONPOLICY_RULES,
  ...PACKAGE_RULES,
];

/** The Markdown rule table of docs/rollout.md. */
export function rolloutRuleTable(rules: readonly RolloutRule[] = ROLLOUT_RULES): string {
  const rows = rules.map((r) => `| ${r.id} | ${r.severity} | ${r.summary} | ${r.docs} |`);
  return ['| rule | at most | checks | why |', '| --- | --- | --- | --- |', ...rows].join('\n') + '\n';
}
