/** One broken template per rule of docs/rollout-reference.md §10, each caught with its message. */
import { errors, has, lint, MCVW, mutate, RAW, SKELETON } from './helpers.js';

const S = SKELETON;

describe('baseline', () => {
  test('the skeleton lints with no error and no warning', () => {
    const fs = lint(S);
    expect(fs.filter((f) => f.severity !== 'info')).toEqual([]);
  });
});

describe('T rules (the Template)', () => {
  test('T1 kind and apiVersion', () => {
    const fs = lint(mutate(mutate(S, 'kind: Template', 'kind: Templates'), 'apiVersion: template.openshift.io/v1 ', 'apiVersion: v2 '));
    has(fs, 'error', 'T1', /kind must be Template/);
    has(fs, 'error', 'T1', /apiVersion must be v1 or template.openshift.io\/v1/);
  });
  test('T1 parameter names: pattern and duplicates, located on the parameter', () => {
    const t = mutate(S, '- name: IMAGE_TAG ', '- name: IMAGE-TAG\n  required: true\n- name: REGISTRY_IMG ');
    const fs = lint(t);
    expect(has(fs, 'error', 'T1', /must match \[a-zA-Z0-9_\]\+/).line).toBe(15);
    expect(has(fs, 'error', 'T1', /REGISTRY_IMG is declared twice/).path).toBe('parameters[3].name');
  });
  test('T2 undeclared ${X} is a warning located at its use; declared-but-unused is a warning', () => {
    const t = mutate(mutate(S, 'managed.openshift.io/gitRepoName: example-operator', 'managed.openshift.io/gitRepoName: ${REPO_NAME}'), '- name: IMAGE_TAG ', '- name: UNUSED\n- name: IMAGE_TAG ');
    const fs = lint(t);
    const f = has(fs, 'warning', 'T2', /\$\{REPO_NAME\} is not a declared parameter/);
    expect(f.path).toBe('objects[0].metadata.labels["managed.openshift.io/gitRepoName"]');
    expect(f.line).toBe(25);
    has(fs, 'warning', 'T2', /parameter UNUSED is declared but never used/);
  });
  test('T3 IMAGE_DIGEST needs REGISTRY_IMG from the SaaS file (info), and not when given', () => {
    has(lint(S), 'info', 'T3', /SaaS resourceTemplate must set REGISTRY_IMG/);
    expect(lint(S, { parameters: { REGISTRY_IMG: 'quay.io/app-sre/x' } }).filter((f) => f.rule === 'T3')).toEqual([]);
  });
});

describe('S rules (SelectorSyncSet)', () => {
  test('S1 resourceApplyMode', () => {
    has(lint(mutate(S, 'resourceApplyMode: Sync', 'resourceApplyMode: Replace')), 'error', 'S1', /resourceApplyMode must be Upsert or Sync/);
    has(lint(mutate(S, 'resourceApplyMode: Sync', 'resourceApplyMode: Upsert')), 'warning', 'S1', /use Sync/);
  });
  test('S2 an empty clusterDeploymentSelector selects every ClusterDeployment', () => {
    const fs = lint(mutate(S, /    clusterDeploymentSelector:\n/, '    clusterDeploymentSelector: {}\n    xx:\n'));
    has(fs, 'error', 'S2', /clusterDeploymentSelector is empty/);
  });
  test('S3 a Policy-carrying SSS aimed at management clusters', () => {
    const fs = lint(mutate(S, 'values: ["service-cluster"]', 'values: ["management-cluster"]'));
    has(fs, 'warning', 'S3', /targets management clusters/);
    expect(errors(fs)).toEqual([]);
  });
  test('S4 enableResourceTemplates with {{ }} in the resources', () => {
    const fs = lint(mutate(MCVW, '      resourceApplyMode: Sync', '      resourceApplyMode: Sync\n      enableResourceTemplates: true'));
    has(fs, 'error', 'S4', /hive would execute/);
  });
  test('S5 a namespaced resource without namespace lands in default', () => {
    const fs = lint(mutate(S, /        name: placement-hs-mgmt-example-operator\n        namespace: openshift-acm-policies\n/, '        name: placement-hs-mgmt-example-operator\n'));
    const f = has(fs, 'error', 'S5', /PlacementRule is namespaced and has no metadata.namespace/);
    expect(f.object).toBe('SelectorSyncSet/example-operator-hs-policy > PlacementRule/placement-hs-mgmt-example-operator');
  });
  test('S6 shipping the openshift-acm-policies Namespace', () => {
    const fs = lint(mutate(S, '    resources:\n', '    resources:\n    - apiVersion: v1\n      kind: Namespace\n      metadata:\n        name: openshift-acm-policies\n'));
    has(fs, 'warning', 'S6', /managed-cluster-config's Sync SelectorSyncSet owns it/);
  });
});

describe('P rules (Policy)', () => {
  test('P1 spec.disabled is required', () => {
    has(lint(mutate(S, /        disabled: false .*\n/, '')), 'error', 'P1', /spec.disabled is required/);
  });
  test('P2 namespace + name > 62', () => {
    const long = 'hs-mgmt-a-rather-long-example-operator-name'; // 43 chars
    const t = S.replace(/name: hs-mgmt-example-operator\b/g, `name: ${long}`);
    const f = has(lint(t), 'error', 'P2', /cannot exceed 62 characters: openshift-acm-policies \(22\) \+ hs-mgmt-a-rather-long-example-operator-name \(43\) = 65/);
    expect(f.line).toBe(41);
  });
  test('P3 remediationAction unset on both Policy and ConfigurationPolicy', () => {
    const t = mutate(mutate(S, /        remediationAction: enforce .*\n/, ''), /              remediationAction: enforce\n/, '');
    has(lint(t), 'error', 'P3', /cannot both be unset/);
  });
  test('P3 inform is a warning', () => {
    has(lint(mutate(S, /        remediationAction: enforce /, '        remediationAction: inform ')), 'warning', 'P3', /never creates it/);
  });
  test('P4 duplicate policy-template names', () => {
    const block = S.slice(S.indexOf('        - objectDefinition:'), S.indexOf('    - apiVersion: apps.open-cluster-management.io/v1'));
    const t = mutate(S, block, block + block);
    has(lint(t), 'error', 'P4', /must be unique within a policy/);
  });
  test('P5 unknown field on the Policy (pruneObjectBehavior belongs to the ConfigurationPolicy)', () => {
    const f = has(lint(mutate(S, '        disabled: false ', '        pruneObjectBehavior: DeleteIfCreated\n        disabled: false ')), 'error', 'P5', /unknown field "spec.pruneObjectBehavior"/);
    expect(f.line).toBe(48);
  });
});

describe('B rules (placement)', () => {
  test('B1 binding subject that does not exist, unbound Policy', () => {
    const fs = lint(mutate(S, /        name: hs-mgmt-example-operator\n$/, '        name: hs-mgmt-example-operatr\n'));
    has(fs, 'error', 'B1', /Policy "hs-mgmt-example-operatr" is not in this SelectorSyncSet/);
    has(fs, 'error', 'B1', /is not bound by any PlacementBinding/);
  });
  test('B1 placementRef under spec', () => {
    const t = mutate(S, '      placementRef:                                # top-level, not under spec\n', '      spec:\n       placementRef:\n').replace(/(      spec:\n       placementRef:\n)        apiGroup/, '$1         apiGroup');
    const fs = lint(t.replace('        kind: PlacementRule\n        name: placement-hs-mgmt-example-operator\n      subjects', '         kind: PlacementRule\n         name: placement-hs-mgmt-example-operator\n      subjects'));
    has(fs, 'error', 'B1', /top-level fields of a PlacementBinding, not under spec/);
  });
  test('B2 PlacementRule with an emptied clusterSelector selects every ManagedCluster', () => {
    const t = mutate(S, /        clusterSelector: .*\n          matchExpressions:/, '        clusterSelector:\n        matchExpressions:');
    const fs = lint(t);
    has(fs, 'error', 'B2', /no clusterSelector.*indentation.*selects every ManagedCluster, hosted clusters included/);
  });
  test('B2 clusterConditions is a warning', () => {
    const t = mutate(S, /        clusterSelector: .*\n/, '        clusterConditions:\n        - type: ManagedClusterConditionAvailable\n          status: "True"\n        clusterSelector:\n');
    has(lint(t), 'warning', 'B2', /clusterConditions/);
  });
});

describe('C rules (ConfigurationPolicy)', () => {
  test('C1 evaluationInterval pattern and enums', () => {
    const fs = lint(mutate(mutate(S, 'compliant: 2m', 'compliant: 2 minutes'), 'severity: low', 'severity: urgent'));
    has(fs, 'error', 'C1', /evaluationInterval.compliant "2 minutes"/);
    has(fs, 'error', 'C1', /severity must be one of/);
  });
  test('C1 both object-templates and object-templates-raw', () => {
    const t = mutate(S, '              object-templates:\n', '              object-templates-raw: "[]"\n              object-templates:\n');
    has(lint(t), 'error', 'C1', /only contain one of object-templates and object-templates-raw/);
  });
  test('C2 Package with a namespace', () => {
    const t = mutate(S, /                    name: example-operator .*\n/, '                    name: example-operator\n                    namespace: ocm-production-x\n');
    has(lint(t), 'error', 'C2', /namespaceSelector is ignored/);
  });
  test('C2 empty namespaceSelector', () => {
    const t = mutate(S, /              namespaceSelector: .*\n                matchLabels:\n                  hypershift.openshift.io\/hosted-control-plane: "true"\n/, '              namespaceSelector: {}\n');
    has(lint(t), 'error', 'C2', /namespaceSelector is empty/);
  });
  test('C3 no pruneObjectBehavior', () => {
    has(lint(mutate(S, /              pruneObjectBehavior: DeleteIfCreated .*\n/, '')), 'warning', 'C3', /leaves what it created behind/);
  });
  test('C4 PKO template without disable-templates', () => {
    const t = mutate(MCVW, /                    annotations:\n                      policy.open-cluster-management.io\/disable-templates: "true"\n/, '');
    has(lint(t), 'error', 'C4', /ACM would execute it/);
  });
  test('C5 object-templates-raw with disable-templates', () => {
    const t = mutate(RAW, '              name: hs-mgmt-example-operator-raw\n            spec:', '              name: hs-mgmt-example-operator-raw\n              annotations:\n                policy.open-cluster-management.io/disable-templates: "true"\n            spec:');
    has(lint(t), 'error', 'C5', /never parsed/);
  });
  test('C5 unescaped PKO expression and unbalanced delimiters in raw', () => {
    const t = mutate(RAW, '                      image: ${REGISTRY_IMG}@${IMAGE_DIGEST}\n', '                      image: ${REGISTRY_IMG}@${IMAGE_DIGEST}\n                      config: {{ toJson .config }}\n');
    has(lint(t), 'error', 'C5', /unescaped/);
    const u = mutate(RAW, '{{- end }}\n                {{- end }}', '{{- end }}\n                {{- end }');
    has(lint(u), 'error', 'C5', /never closed/);
  });
  test('C6 mustonlyhave without metadataComplianceType; mustnothave on a Package', () => {
    has(lint(mutate(S, /                metadataComplianceType: musthave\n/, '')), 'warning', 'C6', /fights every controller/);
    has(lint(mutate(S, 'complianceType: mustonlyhave', 'complianceType: mustnothave')), 'warning', 'C6', /deletes the Package/);
  });
});

describe('K1 (the Package)', () => {
  test('repo:sha256 instead of repo@sha256', () => {
    const f = has(lint(mutate(S, 'image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}:${IMAGE_DIGEST}')), 'error', 'K1', /joins repository and digest with ":"/);
    expect(f.line).toBe(75);
  });
  test('a tag-pinned image is a warning; no tag is an error', () => {
    has(lint(mutate(S, 'image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}:${IMAGE_TAG}')), 'warning', 'K1', /pinned by tag/);
    has(lint(mutate(S, 'image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}')), 'error', 'K1', /neither tag nor digest/);
  });
  test('Package spec checked against the Package CRD (unknown field)', () => {
    const f = has(lint(mutate(S, '                    config:\n', '                    imagePullPolicy: Always\n                    config:\n')), 'error', 'K1', /unknown field "spec.imagePullPolicy"/);
    expect(f.line).toBe(76);
  });
  test('the CRD registry catches what the rule table does not (enum inside namespaceSelector)', () => {
    const t = mutate(S, '                  hypershift.openshift.io/hosted-control-plane: "true"\n', '                  hypershift.openshift.io/hosted-control-plane: "true"\n                terminatingInclusion: Sometimes\n');
    const f = has(lint(t), 'error', 'C1', /must be one of "IfMatch", "Never", "Default"; got string "Sometimes" \(CRD ConfigurationPolicy\)/);
    expect(f.path).toBe('objects[0].spec.resources[0].spec.policy-templates[0].objectDefinition.spec.namespaceSelector.terminatingInclusion');
    expect(f.line).toBe(66);
  });
  test('the ObjectTemplate is rendered with sample sources: template errors and bad YAML are located on spec.template', () => {
    const f = has(lint(mutate(MCVW, '.config | toJson }}', '.config | toJsn }}')), 'error', 'K1', /PKO cannot render the ObjectTemplate.*toJsn/);
    expect(f.path).toMatch(/objectDefinition\.spec\.template$/);
    has(lint(mutate(MCVW, 'name: validation-webhooks\n                              spec:', 'name: [validation-webhooks\n                              spec:')), 'error', 'K1', /rendered ObjectTemplate is not valid YAML/);
  });
  test('a root field other than .config/.environment is found in the parse tree, not by its spelling', () => {
    const f = has(lint(mutate(MCVW, '.config | toJson }}', '.cfg | toJson }}')), 'warning', 'K1', /rendered with \.config and \.environment only; \.cfg renders as <no value>/);
    expect(f.path).toMatch(/objectDefinition\.spec\.template$/);
    // Inside range, dot is the element: .name is no root read; nor is .nope inside a comment.
    const ranged = mutate(MCVW, '.config | toJson }}', '.config | toJson }}{{/* .nope */}}{{ range .config.list }}{{ .name }}{{ end }}');
    expect(lint(ranged).filter((x) => /renders as <no value>/.test(x.message))).toEqual([]);
  });
  test('the rendered Package is checked against the Package CRD', () => {
    has(lint(mutate(MCVW, '                                image: ${REGISTRY_IMG}@${IMAGE_DIGEST}\n', '                                image: ${REGISTRY_IMG}@${IMAGE_DIGEST}\n                                pause: true\n')), 'error', 'K1', /rendered Package .*pause/);
  });
});
