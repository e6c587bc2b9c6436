/**
 * The rollout rules as data: the list is complete, documented without drift, and every rule
 * fires on a minimal reproducer (one mutation of the reference skeleton each).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Finding, Severity } from '../../src/core/errors.js';
import { ROLLOUT_RULES, rolloutRuleTable } from '../../src/rollout/rules/index.js';
import * as configurationpolicy from '../../src/rollout/rules/configurationpolicy.js';
import * as pkg from '../../src/rollout/rules/package.js';
import * as placement from '../../src/rollout/rules/placement.js';
import * as policy from '../../src/rollout/rules/policy.js';
import * as selectorsyncset from '../../src/rollout/rules/selectorsyncset.js';
import * as template from '../../src/rollout/rules/template.js';
import type { LintOptions } from '../../src/rollout/lint.js';
import { lint, mutate, SKELETON, MCVW, RAW } from './helpers.js';

const DOC = 'docs/rollout.md';
const BEGIN = '<!-- rollout-rules:begin (generated from ROLLOUT_RULES) -->\n';
const END = '<!-- rollout-rules:end -->';
const RANK: Record<Severity, number> = { info: 0, warning: 1, error: 2 };

/** Inserts `extra` (a YAML list item of the SelectorSyncSet's resources) as its first resource. */
function addResource(text: string, extra: string): string {
  return mutate(text, '    resources:\n', `    resources:\n${extra}`);
}

const POLICY_TEMPLATE_START = '        - objectDefinition:\n            apiVersion: policy.open-cluster-management.io/v1\n            kind: ConfigurationPolicy\n';
const PLACEMENT_RULE_START = '    - apiVersion: apps.open-cluster-management.io/v1\n      kind: PlacementRule\n';
function duplicatePolicyTemplate(text: string): string {
  const a = text.indexOf(POLICY_TEMPLATE_START);
  const b = text.indexOf(PLACEMENT_RULE_START);
  if (a < 0 || b < a) throw new Error('skeleton changed: policy template not found');
  return text.slice(0, b) + text.slice(a, b) + text.slice(b);
}

/** One reproducer per rule: the Template, options, and the finding it must give. */
const REPRODUCERS: Record<string, { text: string; opts?: LintOptions; severity: Severity; message: RegExp }> = {
  T1: { text: mutate(SKELETON, 'kind: Template\n', 'kind: Templat\n'), severity: 'error', message: /kind must be Template/ },
  T2: { text: mutate(SKELETON, 'gitRepoName: example-operator', 'gitRepoName: ${UNDECLARED}'), severity: 'warning', message: /\$\{UNDECLARED\} is not a declared parameter/ },
  T3: { text: SKELETON, severity: 'info', message: /IMAGE_DIGEST is computed by saasherder from REGISTRY_IMG/ },
  T4: { text: 'apiVersion: v1\nkind: Template\nmetadata:\n  name: t\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n    namespace: n\n', severity: 'error', message: /places no Package or ClusterPackage/ },
  S1: { text: mutate(SKELETON, 'resourceApplyMode: Sync', 'resourceApplyMode: Upsert'), severity: 'warning', message: /resourceApplyMode is Upsert/ },
  S2: { text: mutate(SKELETON, 'operator: In\n        values: ["service-cluster"]', 'operator: Is\n        values: ["service-cluster"]'), severity: 'error', message: /operator must be In, NotIn, Exists or DoesNotExist/ },
  S3: { text: mutate(SKELETON, 'values: ["service-cluster"]', 'values: ["management-cluster"]'), severity: 'warning', message: /targets management clusters/ },
  S4: {
    text: mutate(mutate(SKELETON, 'resourceApplyMode: Sync', 'resourceApplyMode: Sync\n    enableResourceTemplates: true'), 'CM-2 Baseline Configuration', "'{{ .x }}'"),
    severity: 'error',
    message: /enableResourceTemplates is true and the resources contain/,
  },
  S5: { text: addResource(SKELETON, '    - apiVersion: v1\n      kind: ConfigMap\n      metadata:\n        name: cm\n'), severity: 'error', message: /ConfigMap is namespaced and has no metadata.namespace/ },
  S6: { text: addResource(SKELETON, '    - apiVersion: v1\n      kind: Namespace\n      metadata:\n        name: openshift-acm-policies\n'), severity: 'warning', message: /do not ship Namespace openshift-acm-policies/ },
  P1: { text: mutate(SKELETON, 'disabled: false ', 'disabled: "no" '), severity: 'error', message: /spec.disabled must be a boolean/ },
  P2: { text: mutate(SKELETON, 'name: hs-mgmt-example-operator            #', 'name: hs-mgmt-example-operator-with-a-much-longer-name #'), severity: 'error', message: /cannot exceed 62 characters/ },
  P3: { text: mutate(SKELETON, 'remediationAction: enforce                 #', 'remediationAction: inform #'), severity: 'warning', message: /effective remediationAction is inform/ },
  P4: { text: duplicatePolicyTemplate(SKELETON), severity: 'error', message: /policy-template names must be unique within a policy/ },
  P5: { text: mutate(SKELETON, 'disabled: false ', 'pruneObjectBehavior: DeleteIfCreated\n        disabled: false '), severity: 'error', message: /unknown field "spec.pruneObjectBehavior" in Policy/ },
  B1: { text: mutate(SKELETON, 'kind: Policy\n        name: hs-mgmt-example-operator', 'kind: Policy\n        name: another-policy'), severity: 'error', message: /Policy "another-policy" is not in this SelectorSyncSet/ },
  B2: { text: mutate(SKELETON, 'management-cluster\n            operator: In', 'management-cluster\n            operator: Equals'), severity: 'error', message: /operator must be In, NotIn/ },
  B3: {
    text: addResource(SKELETON, '    - apiVersion: cluster.open-cluster-management.io/v1beta1\n      kind: Placement\n      metadata:\n        name: pl\n        namespace: openshift-acm-policies\n      spec:\n        predicates: [{requiredClusterSelector: {labelSelector: {matchLabels: {a: b}}}}]\n'),
    severity: 'warning',
    message: /a Placement selects nothing unless a ManagedClusterSetBinding/,
  },
  C1: { text: mutate(SKELETON, 'severity: low', 'severity: lowest'), severity: 'error', message: /severity must be one of/ },
  C2: { text: mutate(SKELETON, 'hosted-control-plane: "true"', 'hosted-control-plane: "false"'), severity: 'error', message: /namespaceSelector does not match HCP namespaces/ },
  C3: { text: mutate(SKELETON, 'pruneObjectBehavior: DeleteIfCreated #', 'pruneObjectBehavior: None #'), severity: 'warning', message: /pruneObjectBehavior is not DeleteIfCreated/ },
  C4: { text: mutate(SKELETON, 'image: quay.io/app-sre/example-operator:${IMAGE_TAG}', "image: '{{ .config.x }}'"), severity: 'error', message: /lacks annotation policy.open-cluster-management.io\/disable-templates/ },
  C5: { text: mutate(SKELETON, 'CM-2 Baseline Configuration', "'CM-2 }} Baseline'"), severity: 'error', message: /template delimiters: "}}" on line 1 closes nothing/ },
  C6: { text: mutate(SKELETON, '                metadataComplianceType: musthave\n', ''), severity: 'warning', message: /mustonlyhave without metadataComplianceType/ },
  K1: { text: mutate(SKELETON, 'image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}:${IMAGE_DIGEST}'), severity: 'error', message: /joins repository and digest with ":"/ },
  K2: { text: SKELETON, opts: { checkPackage: () => [{ path: ['spec', 'config'], message: 'config rejected by the package' }] }, severity: 'error', message: /config rejected by the package/ },
};

describe('ROLLOUT_RULES', () => {
  test('ids are unique and every rule a family exports is listed', () => {
    const ids = ROLLOUT_RULES.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    const exported = [template, selectorsyncset, policy, placement, configurationpolicy, pkg]
      .flatMap((m) => Object.values(m))
      .filter((v): v is { id: string } => typeof v === 'object' && v !== null && !Array.isArray(v) && 'id' in v && 'severity' in v && 'docs' in v);
    expect(exported.length).toBe(ROLLOUT_RULES.length);
    for (const r of exported) expect(ROLLOUT_RULES).toContain(r);
    for (const r of ROLLOUT_RULES) {
      for (const field of [r.summary, r.docs]) {
        expect(field.trim()).not.toBe('');
        expect(field).not.toContain('|'); // it would split the table cell
      }
    }
  });

  test(`${DOC}'s rule table is the one generated from the list`, () => {
    const doc = readFileSync(DOC, 'utf8');
    const a = doc.indexOf(BEGIN);
    const b = doc.indexOf(END);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(b).toBeGreaterThan(a);
    const want = rolloutRuleTable();
    if (process.env.UPDATE_RULE_DOCS === '1') writeFileSync(DOC, doc.slice(0, a + BEGIN.length) + want + doc.slice(b));
    else expect(doc.slice(a + BEGIN.length, b)).toBe(want);
  });

  test('every finding in src/rollout names its rule by value (no id typed as a string), at most at its severity', () => {
    const byId = new Map(ROLLOUT_RULES.map((r) => [r.id, r]));
    const dir = 'src/rollout';
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    let checked = 0;
    for (const f of files) {
      const src = readFileSync(`${dir}/${f}`, 'utf8');
      expect(`${f}: ${src.match(/rule: ['"][^'"]*['"]/)?.[0] ?? 'none'}`).toBe(`${f}: none`);
      // simulate's findings: literal severity next to the rule value.
      for (const m of src.matchAll(/severity: '(error|warning|info)', rule: ([A-Z]\d)\.id/g)) {
        const rule = byId.get(m[2]);
        expect(rule).toBeDefined();
        expect(RANK[m[1] as Severity]).toBeLessThanOrEqual(RANK[rule!.severity]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });

  test('every rule has a reproducer, and only listed rules are reported', () => {
    expect(Object.keys(REPRODUCERS).sort()).toEqual(ROLLOUT_RULES.map((r) => r.id).sort());
  });

  test.each(Object.entries(REPRODUCERS))('%s fires on its reproducer', (id, r) => {
    const fs = lint(r.text, r.opts);
    const hit = fs.find((f) => f.rule === id && f.severity === r.severity && r.message.test(f.message));
    if (!hit) throw new Error(`no ${r.severity} ${id} ${r.message}; got:\n${fs.map((f) => `${f.severity} ${f.rule} ${f.path} ${f.message}`).join('\n')}`);
    expect(hit.line).toBeGreaterThan(0);
  });

  test('no finding is more severe than its rule says, and every finding names a listed rule', () => {
    const byId = new Map(ROLLOUT_RULES.map((r) => [r.id, r]));
    const all: Finding[] = [SKELETON, MCVW, RAW, ...Object.values(REPRODUCERS).map((r) => r.text)].flatMap((t) => lint(t, { checkPackage: REPRODUCERS.K2.opts!.checkPackage }));
    expect(all.length).toBeGreaterThan(50);
    for (const f of all) {
      const rule = byId.get(f.rule);
      expect(rule).toBeDefined();
      if (RANK[f.severity] > RANK[rule!.severity]) throw new Error(`${f.rule} is at most ${rule!.severity} but reported ${f.severity}: ${f.message}`);
    }
  });
});
