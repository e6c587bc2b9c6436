/** Real templates, generated templates, the mistakes of §11 and bad input. */
import { readdirSync, readFileSync } from 'node:fs';
import { buildRolloutTemplate, emitRolloutTemplate, RolloutOptionsError, RolloutTemplateOptions } from '../../src/rollout/generate.js';
import { lintRolloutTemplate } from '../../src/rollout/lint.js';
import { errors, has, lint, MCVW, mutate, ON_CLUSTER_BUILD, REF_DIR, SKELETON } from './helpers.js';


describe('real templates', () => {
  const files = readdirSync(REF_DIR).filter((f) => /\.(ya?ml|tmpl)$/.test(f)).sort();
  test('the reference folder has the six templates', () => expect(files.length).toBe(6));
  test.each(files)('%s lints with no error', (f) => {
    const fs = lint(readFileSync(`${REF_DIR}/${f}`, 'utf8'));
    expect(errors(fs)).toEqual([]);
  });
});

describe('generated templates', () => {
  test('our bundle: no error, no warning; ObjectTemplate with service CA source and disable-templates', () => {
    const text = emitRolloutTemplate(ON_CLUSTER_BUILD);
    expect(lint(text).filter((f) => f.severity !== 'info')).toEqual([]);
    expect(text).toContain('policy.open-cluster-management.io/disable-templates: "true"');
    expect(text).toContain("key: .data['service-ca\\.crt']");
    expect(text).toContain('image: ${REGISTRY_IMG}@${IMAGE_DIGEST}');
    expect(text).toContain('serviceCA: {{ .config.serviceCA | toJson }}');
    expect(text).toContain('image: "${ON_CLUSTER_BUILD_IMAGE}"');
    expect(emitRolloutTemplate(ON_CLUSTER_BUILD)).toBe(text); // deterministic
  });
  test.each<[string, Partial<RolloutTemplateOptions>]>([
    ['plain Package, no sources', { sources: [] }],
    ['Placement + ManagedClusterSetBinding', { placement: 'Placement' }],
    ['HostedClusterPackage, rolling', { sources: [], delivery: 'HostedClusterPackage', strategy: { rollingUpgrade: { maxUnavailable: 2 } } }],
    ['HostedClusterPackage, instant', { sources: [], delivery: 'HostedClusterPackage' }],
    ['FedRAMP excluded, not managed-only', { excludeFedramp: true, managedOnly: false }],
  ])('%s lints with no error and no warning', (_n, extra) => {
    const fs = lint(emitRolloutTemplate({ ...ON_CLUSTER_BUILD, ...extra }));
    expect(fs.filter((f) => f.severity !== 'info')).toEqual([]);
  });
  test('no disable-templates annotation when nothing is templated', () => {
    // Required parameters only: an optional key is templated (left out of the config when empty).
    expect(emitRolloutTemplate({ ...ON_CLUSTER_BUILD, sources: [], config: (ON_CLUSTER_BUILD.config ?? []).filter((c) => !c.optional) })).not.toContain('disable-templates');
  });
  test('options are checked: name budget, duplicate keys, sources with HostedClusterPackage', () => {
    expect(() => buildRolloutTemplate({ packageName: 'x', policyName: 'a'.repeat(41) })).toThrow(/limit is 40/);
    expect(() => buildRolloutTemplate({ packageName: 'x', config: [{ parameter: 'A', configKey: 'k' }, { parameter: 'B', configKey: 'k' }] })).toThrow(/mapped twice/);
    expect(() => buildRolloutTemplate({ ...ON_CLUSTER_BUILD, delivery: 'HostedClusterPackage' })).toThrow(RolloutOptionsError);
    expect(() => buildRolloutTemplate({ packageName: 'Bad_Name' })).toThrow(/DNS-1123/);
    expect(() => buildRolloutTemplate({ packageName: 'x', config: [{ parameter: 'IMAGE_TAG', configKey: 'k' }] })).toThrow(/declared twice/);
  });
});

describe('§11 mistakes seen in a template', () => {
  test('#1 SSS on management clusters', () => {
    has(lint(mutate(SKELETON, 'values: ["service-cluster"]', 'values: ["management-cluster"]')), 'warning', 'S3', /targets management clusters/);
  });
  test('#2 Policy in openshift-operator-lifecycle-manager named hs-mgmt-route-monitor-operator (36 + 30 = 66)', () => {
    const t = SKELETON.replace(/namespace: openshift-acm-policies/g, 'namespace: openshift-operator-lifecycle-manager').replace(/hs-mgmt-example-operator\b/g, 'hs-mgmt-route-monitor-operator');
    has(lint(t), 'error', 'P2', /= 66/);
  });
  test('#3 PlacementBinding without namespace, Policy in namespace "policies"', () => {
    const t = mutate(mutate(SKELETON, /        name: binding-hs-mgmt-example-operator\n        namespace: openshift-acm-policies\n/, '        name: binding-hs-mgmt-example-operator\n'), /        name: hs-mgmt-example-operator  .*\n        namespace: openshift-acm-policies\n/, '        name: hs-mgmt-example-operator\n        namespace: policies\n');
    const fs = lint(t);
    has(fs, 'error', 'S5', /PlacementBinding is namespaced and has no metadata.namespace/);
    has(fs, 'warning', 'S5', /Policy in namespace policies/);
    has(fs, 'error', 'B1', /not in this SelectorSyncSet in namespace/);
  });
  test('#4 ${REGISTRY_IMG}:${IMAGE_DIGEST}', () => {
    has(lint(mutate(MCVW, 'image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}:${IMAGE_DIGEST}')), 'error', 'K1', /joins repository and digest/);
  });
  test('#5 matchLabels directly under the ConfigurationPolicy spec', () => {
    const t = mutate(SKELETON, /              namespaceSelector: .*\n                matchLabels:\n/, '              matchLabels:\n');
    const fs = lint(t.replace('                  hypershift.openshift.io/hosted-control-plane: "true"\n', '                hypershift.openshift.io/hosted-control-plane: "true"\n'));
    has(fs, 'error', 'C1', /unknown field "spec.matchLabels" in ConfigurationPolicy/);
    has(fs, 'error', 'C2', /namespaceSelector is empty/);
  });
  test('#6 include ["clusters-*"]', () => {
    const t = mutate(SKELETON, /              namespaceSelector: .*\n/, '              namespaceSelector:\n                include: ["clusters-*"]\n');
    has(lint(t), 'error', 'C2', /matches no OSD\/ROSA HCP namespace/);
  });
  test('#7 selecting by ClusterSet label', () => {
    const t = mutate(SKELETON, '          - key: hypershift.open-cluster-management.io/management-cluster\n            operator: In\n            values: ["true"]', '          - key: cluster.open-cluster-management.io/clusterset\n            operator: In\n            values: ["hypershift"]');
    has(lint(t), 'warning', 'B2', /cluster set, not the management clusters/);
  });
  test('#8 olm_pko_migration indentation: matchLabels as a sibling of clusterDeploymentSelector', () => {
    const t = mutate(SKELETON, /    clusterDeploymentSelector:\n      matchExpressions:\n      - key: ext-hypershift.openshift.io\/cluster-type\n        operator: In\n        values: \["service-cluster"\]\n      - key: api.openshift.com\/managed\n        operator: In\n        values: \["true"\]\n/, '    clusterDeploymentSelector:\n    matchLabels:\n      ext-hypershift.openshift.io/cluster-type: service-cluster\n');
    const fs = lint(t);
    const f = has(fs, 'error', 'S2', /key is there but empty: check the indentation/);
    expect(f.line).toBe(28);
    has(fs, 'error', 'S1', /unknown field "spec.matchLabels" in SelectorSyncSet/);
  });
  test('#8 object-templates emptied', () => {
    const t = mutate(SKELETON, '              object-templates:\n', '              object-templates:\n              objectTemplates:\n');
    has(lint(t), 'error', 'C1', /object-templates is there but empty/);
  });
  test('#9 pruneObjectBehavior on the Policy instead of the ConfigurationPolicy', () => {
    const t = mutate(mutate(SKELETON, /              pruneObjectBehavior: DeleteIfCreated .*\n/, ''), '        disabled: false ', '        pruneObjectBehavior: DeleteIfCreated\n        disabled: false ');
    const fs = lint(t);
    has(fs, 'error', 'P5', /unknown field "spec.pruneObjectBehavior" in Policy/);
    has(fs, 'warning', 'C3', /leaves what it created behind/);
  });
  test('#11 PKO {{ }} evaluated by ACM', () => {
    has(lint(mutate(MCVW, /                    annotations:\n                      policy.open-cluster-management.io\/disable-templates: "true"\n/, '')), 'error', 'C4', /ACM would execute it/);
  });
  test('#15 an object that is not a SelectorSyncSet: applied only if managedResourceTypes lists it (unverifiable here, so info)', () => {
    const t = SKELETON + '- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: x\n    namespace: y\n';
    has(lint(t), 'info', 'S1', /applied only if the SaaS file lists ConfigMap in managedResourceTypes/);
  });
  test('#16 a tag-pinned package image', () => {
    has(lint(readFileSync(`${REF_DIR}/route-monitor-operator-hs.yaml`, 'utf8')), 'warning', 'K1', /re-pushed tag is never picked up/);
  });
});

describe('bad input is a located finding, never a crash', () => {
  test('malformed YAML', () => {
    const r = lintRolloutTemplate('bad.yaml', 'apiVersion: v1\nkind: Template\nobjects:\n  - a: [1, 2\n');
    expect(r.findings).toHaveLength(1);
    expect(r.findings[0]).toMatchObject({ severity: 'error', file: 'bad.yaml', line: expect.any(Number) });
    expect(r.findings[0].message).toMatch(/invalid YAML/);
  });
  test('empty file, a list, several documents', () => {
    expect(lintRolloutTemplate('e.yaml', '').findings[0].message).toMatch(/no YAML document/);
    expect(lintRolloutTemplate('l.yaml', '- a\n').findings[0].message).toMatch(/must be a YAML mapping/);
    expect(lintRolloutTemplate('m.yaml', 'a: 1\n---\nb: 2\n').findings[0].message).toMatch(/2 YAML documents/);
  });
  test('missing required parameter given as empty, unused given ones ignored', () => {
    const fs = lint(SKELETON, { parameters: { REGISTRY_IMG: 'quay.io/x', NOT_DECLARED: 'y' } });
    expect(errors(fs)).toEqual([]);
    has(fs, 'info', 'T2', /-p NOT_DECLARED is not a parameter of this Template: oc process ignores it/);
  });
  test('{{ unbalanced across template layers (ObjectTemplate text inside the Policy)', () => {
    const t = mutate(MCVW, '.config | toJson }}', '.config | toJson }');
    const f = has(lint(t), 'error', 'C5', /never closed/);
    expect(f.path).toMatch(/objectDefinition\.spec\.template$/);
    expect(f.line).toBeGreaterThan(70);
  });
  test('names too long and not DNS', () => {
    const t = mutate(SKELETON, 'name: example-operator-hs-policy\n', `name: ${'x'.repeat(254)}\n`);
    has(lint(t), 'error', 'S1', /not a DNS-1123 subdomain/);
  });
  test('wrong shapes everywhere do not crash', () => {
    for (const t of [
      'apiVersion: v1\nkind: Template\nobjects: 3\n',
      'apiVersion: v1\nkind: Template\nparameters: {a: 1}\nobjects:\n- 1\n- kind: SelectorSyncSet\n',
      'apiVersion: v1\nkind: Template\nobjects:\n- apiVersion: hive.openshift.io/v1\n  kind: SelectorSyncSet\n  metadata: {name: x}\n  spec: {resources: [1, {kind: Policy}, {apiVersion: x, kind: Policy, metadata: {name: p, namespace: openshift-acm-policies}, spec: {policy-templates: [{objectDefinition: {kind: ConfigurationPolicy, spec: {object-templates: [{objectDefinition: 5}]}}}]}}]}\n',
    ]) {
      const r = lintRolloutTemplate('w.yaml', t);
      expect(errors(r.findings).length).toBeGreaterThan(0);
    }
  });
});

describe('as generation checks', () => {
  test('asFindings keeps errors and warnings as core Findings with their place', async () => {
    const { asFindings } = await import('../../src/rollout/lint.js');
    const r = lintRolloutTemplate('hack/x.yaml', mutate(SKELETON, 'resourceApplyMode: Sync', 'resourceApplyMode: Upsert'));
    const fs = asFindings(r.findings);
    expect(fs).toEqual([expect.objectContaining({ severity: 'warning', rule: 'rollout/S1', file: 'hack/x.yaml', path: 'objects[0].spec.resourceApplyMode', line: 36 })]);
  });
});
