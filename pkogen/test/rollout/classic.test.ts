/**
 * Classic (non-HyperShift) rollouts, as most OSD/ROSA operator repos ship them: a SelectorSyncSet
 * that carries a ClusterPackage directly. And the lint false errors found on real Templates.
 * Every Template here is a minimal one written for the test.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';
import { buildRolloutTemplate, emitRolloutTemplate, RolloutOptionsError } from '../../src/rollout/generate.js';
import { errors, has, lint } from './helpers.js';

const DIGEST = 'sha256:' + 'a'.repeat(64);

function classic(opts: { image?: string; selector?: string; config?: string; kind?: string; namespace?: string } = {}): string {
  const selector = opts.selector ?? '      matchLabels:\n        api.openshift.com/managed: "true"\n';
  return `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: example-operator-package
parameters:
- name: REGISTRY_IMG
  required: true
- name: IMAGE_DIGEST
  required: true
- name: LOG_LEVEL
  value: info
objects:
- apiVersion: hive.openshift.io/v1
  kind: SelectorSyncSet
  metadata:
    name: example-operator
  spec:
    clusterDeploymentSelector:
${selector}    resourceApplyMode: Sync
    resources:
    - apiVersion: package-operator.run/v1alpha1
      kind: ${opts.kind ?? 'ClusterPackage'}
      metadata:
        name: example-operator
${opts.namespace ? `        namespace: ${opts.namespace}\n` : ''}      spec:
        image: ${opts.image ?? '${REGISTRY_IMG}@${IMAGE_DIGEST}'}
        config:
${opts.config ?? '          logLevel: ${LOG_LEVEL}\n'}`;
}

const P = { parameters: { REGISTRY_IMG: 'quay.io/app-sre/example-operator-package' } };

describe('lint-rollout: a SelectorSyncSet carrying a ClusterPackage', () => {
  test('the well-formed classic Template lints clean', () => {
    expect(lint(classic(), P).filter((f) => f.severity !== 'info')).toEqual([]);
  });
  test('K1 image joined with ":" before the digest is an error (it passed with 0 errors before)', () => {
    const f = has(lint(classic({ image: '${REGISTRY_IMG}:${IMAGE_DIGEST}' }), P), 'error', 'K1', /joins repository and digest with ":"/);
    expect(f.path).toBe('objects[0].spec.resources[0].spec.image');
    expect(f.object).toBe('SelectorSyncSet/example-operator > ClusterPackage/example-operator');
  });
  test('K1 an image pinned by tag is a warning', () => {
    const t = classic({ image: '${REGISTRY_IMG}:${IMAGE_TAG}' }).replace('- name: LOG_LEVEL', '- name: IMAGE_TAG\n  required: true\n- name: LOG_LEVEL');
    has(lint(t, P), 'warning', 'K1', /pinned by tag/);
  });
  test('K1 the ClusterPackage against its CRD', () => {
    has(lint(classic({ config: '          logLevel: ${LOG_LEVEL}\n        pasued: true\n' }), P), 'error', 'K1', /pasued/);
  });
  test('T2 an unused parameter', () => {
    has(lint(classic().replace('- name: LOG_LEVEL', '- name: UNUSED\n- name: LOG_LEVEL'), P), 'warning', 'T2', /UNUSED is declared but never used/);
  });
  test('S2 an empty selector from bad indentation', () => {
    has(lint(classic({ selector: '    matchLabels:\n      api.openshift.com/managed: "true"\n' }), P), 'error', 'S2', /clusterDeploymentSelector is empty/);
  });
  test('S5 a Package without namespace lands in default', () => {
    has(lint(classic({ kind: 'Package' }), P), 'error', 'S5', /Package is namespaced and has no metadata.namespace/);
    expect(errors(lint(classic({ kind: 'Package', namespace: 'example-operator' }), P))).toEqual([]);
  });
});

describe('lint-rollout false errors found on real Templates', () => {
  const sss = (spec: string) => `apiVersion: v1
kind: Template
metadata:
  name: t
objects:
- apiVersion: hive.openshift.io/v1
  kind: SelectorSyncSet
  metadata:
    name: s
  spec:
    clusterDeploymentSelector:
      matchLabels:
        api.openshift.com/managed: "true"
    resourceApplyMode: Sync
${spec}`;
  test('a SelectorSyncSet with only patches or only secretMappings is valid for hive (all three optional), but places no package (T4)', () => {
    const t4 = [expect.objectContaining({ severity: 'error', rule: 'T4', message: expect.stringMatching(/places no Package or ClusterPackage/) })];
    const patches = sss('    patches:\n    - apiVersion: v1\n      kind: ConfigMap\n      name: c\n      namespace: openshift-config\n      patch: \'{"data":{"a":"b"}}\'\n');
    expect(lint(patches).filter((f) => f.severity !== 'info')).toEqual(t4);
    const secrets = sss('    secretMappings:\n    - sourceRef:\n        name: a\n        namespace: b\n      targetRef:\n        name: a\n        namespace: c\n');
    expect(lint(secrets).filter((f) => f.severity !== 'info')).toEqual(t4);
  });
  test('resources that is not a list is still an error; a SelectorSyncSet with nothing is a warning', () => {
    has(lint(sss('    resources: {}\n')), 'error', 'S1', /resources must be a list/);
    has(lint(sss('')), 'warning', 'S1', /syncs nothing/);
  });
  test('a Template emptied on purpose is a warning, not an error', () => {
    const fs = lint('apiVersion: v1\nkind: Template\nmetadata:\n  name: t\nobjects: []\n');
    expect(fs).toEqual([expect.objectContaining({ severity: 'warning', rule: 'T1', message: expect.stringMatching(/deploys nothing/) })]);
  });
  test('a ClusterPackage at top level (applied directly) is info, and still checked', () => {
    const t = 'apiVersion: v1\nkind: Template\nmetadata:\n  name: t\nobjects:\n- apiVersion: package-operator.run/v1alpha1\n  kind: ClusterPackage\n  metadata:\n    name: p\n  spec:\n    image: quay.io/x/p:latest\n';
    const fs = lint(t);
    has(fs, 'info', 'S1', /managedResourceTypes/);
    has(fs, 'warning', 'K1', /pinned by tag/);
    expect(errors(fs)).toEqual([]);
  });
});

describe('generate: delivery ClusterPackage (the classic form)', () => {
  test('emits a SelectorSyncSet carrying the ClusterPackage, and it lints clean', () => {
    const text = emitRolloutTemplate({ packageName: 'example-operator', delivery: 'ClusterPackage', config: [{ parameter: 'LOG_LEVEL', configKey: 'logLevel', optional: true, value: 'info' }] });
    const fs = lint(text, P);
    expect(fs.filter((f) => f.severity !== 'info')).toEqual([]);
    const t = buildRolloutTemplate({ packageName: 'example-operator', delivery: 'ClusterPackage' }) as { objects: { spec: { resources: { kind: string; spec: { image: string } }[]; clusterDeploymentSelector: unknown } }[] };
    expect(t.objects[0].spec.resources.map((r) => r.kind)).toEqual(['ClusterPackage']);
    expect(t.objects[0].spec.resources[0].spec.image).toBe('${REGISTRY_IMG}@${IMAGE_DIGEST}');
    expect(t.objects[0].spec.clusterDeploymentSelector).toEqual({ matchExpressions: [{ key: 'api.openshift.com/managed', operator: 'In', values: ['true'] }] });
  });
  test('refuses an empty selector and sources', () => {
    expect(() => buildRolloutTemplate({ packageName: 'p', delivery: 'ClusterPackage', managedOnly: false })).toThrow(RolloutOptionsError);
    expect(() => buildRolloutTemplate({ packageName: 'p', delivery: 'ClusterPackage', sources: [{ configKey: 'ca', apiVersion: 'v1', kind: 'ConfigMap', name: 'c', dataKey: 'k' }] })).toThrow(/sources/);
  });
});

describe('CLI: --package checks scope and config (K2); simulate installs one ClusterPackage per selected cluster', () => {
  let tmp: { dir: string; cleanup: () => void };
  let pkg: string;
  let tpl: string;
  beforeAll(() => {
    tmp = tempDir('pkogen-classic-');
    pkg = path.join(tmp.dir, 'pkg');
    mkdirSync(pkg);
    writeFileSync(path.join(pkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: example-operator\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        logLevel: {type: string, enum: [debug, info]}\n');
    writeFileSync(path.join(pkg, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-operator\n  annotations:\n    package-operator.run/phase: deploy\n');
    tpl = path.join(tmp.dir, 'classic.yaml');
    writeFileSync(tpl, classic());
  });
  afterAll(() => tmp.cleanup());

  test('lint-rollout --package: config against the package schema', async () => {
    const ok = await runCli(['lint-rollout', tpl, '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b']);
    expect(ok.code).toBe(0);
    const bad = await runCli(['lint-rollout', tpl, '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', 'LOG_LEVEL=trace']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('objects[0].spec.resources[0].spec.config: SelectorSyncSet/example-operator > ClusterPackage/example-operator: config: spec.config.logLevel: Unsupported value: (value not shown)');
    expect(bad.stdout).toContain('[K2]');
  });
  test('lint-rollout --package: a Namespaced-only package cannot be a ClusterPackage', async () => {
    const nsPkg = path.join(tmp.dir, 'nspkg');
    rmSync(nsPkg, { recursive: true, force: true });
    mkdirSync(nsPkg);
    writeFileSync(path.join(nsPkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: x\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n');
    const r = await runCli(['lint-rollout', tpl, '--package', nsPkg, '-p', 'REGISTRY_IMG=quay.io/a/b']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/ClusterPackage unsupported scope: the package manifest does not list scope Cluster/);
  });
  test('simulate: one row per selected cluster, config checked, findings printed once', async () => {
    const args = ['simulate', tpl, '--hcp-namespaces', '1', '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`];
    const ok = await runCli(args);
    expect(ok.code).toBe(0);
    const rows = ok.stdout.split('\n').filter((l) => l.startsWith('(cluster)'));
    expect(rows.map((r) => r.split('\t').slice(0, 4))).toEqual([
      ['(cluster)', 'sc-01', 'SelectorSyncSet', 'example-operator'],
      ['(cluster)', 'mc-01', 'SelectorSyncSet', 'example-operator'],
    ]);
    const bad = await runCli([...args, '-p', 'LOG_LEVEL=trace']);
    expect(bad.code).toBe(1);
    // The config is the Template's: one finding with the rows it affects, each row not ok.
    expect(bad.stdout).toContain('error: SelectorSyncSet/example-operator > ClusterPackage/example-operator: config: spec.config.logLevel: Unsupported value: (value not shown): supported values: "debug", "info" (on 2 of 2 rows) [K1]');
    expect(bad.stdout).not.toContain('  error: config:');
    for (const row of bad.stdout.split('\n').filter((l) => l.startsWith('(cluster)'))) expect(row).toMatch(/not ok: 1 error\(s\) above$/);
    expect(bad.stdout).toMatch(/2 cluster\(s\), 0 valid Package\(s\), 1 error\(s\)/);
  });
  test('simulate: a classic SelectorSyncSet needs no --hcp-namespaces and counts clusters', async () => {
    const r = await runCli(['simulate', tpl, '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/: 2 cluster\(s\), 2 valid Package\(s\), 0 error\(s\)/);
    expect(r.stdout).not.toMatch(/namespace\(s\)/);
  });
  test('simulate and lint-rollout: a bare ClusterPackage at the Template\'s top level is installed on the SaaS target cluster', async () => {
    const bare = path.join(tmp.dir, 'bare.yaml');
    writeFileSync(bare, `apiVersion: template.openshift.io/v1\nkind: Template\nmetadata:\n  name: bare\nparameters:\n- name: REGISTRY_IMG\n  required: true\n- name: IMAGE_DIGEST\n  required: true\nobjects:\n- apiVersion: package-operator.run/v1alpha1\n  kind: ClusterPackage\n  metadata:\n    name: example-operator\n  spec:\n    image: \${REGISTRY_IMG}@\${IMAGE_DIGEST}\n`);
    const sim = await runCli(['simulate', bare, '--hcp-namespaces', '2', '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`]);
    expect(sim.code).toBe(0);
    expect(sim.stdout.split('\n').filter((l) => l.startsWith('(cluster)')).map((l) => l.split('\t').slice(0, 4))).toEqual([['(cluster)', '(saas target)', 'Template', 'example-operator']]);
    expect(sim.stdout).toMatch(/: 1 cluster\(s\), 1 valid Package\(s\), 0 error\(s\)/);
    const lintR = await runCli(['lint-rollout', bare, '-p', 'REGISTRY_IMG=quay.io/a/b']);
    expect(lintR.code).toBe(0);
  });
  test('simulate and lint-rollout exit 1 when the Template places no Package or ClusterPackage', async () => {
    const none = path.join(tmp.dir, 'none.yaml');
    writeFileSync(none, classic().replace('kind: ClusterPackage', 'kind: ConfigMap').replace('apiVersion: package-operator.run/v1alpha1', 'apiVersion: v1'));
    const sim = await runCli(['simulate', none, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`]);
    expect(sim.code).toBe(1);
    expect(sim.stdout).toMatch(/error: .*the Template places no Package or ClusterPackage.* \[T4\]/);
    expect(sim.stdout).toMatch(/: 0 namespace\(s\), 0 valid Package\(s\), [1-9]\d* error\(s\)/);
    const lintR = await runCli(['lint-rollout', none, '-p', 'REGISTRY_IMG=quay.io/a/b']);
    expect(lintR.code).toBe(1);
    expect(lintR.stdout).toMatch(/places no Package or ClusterPackage.*\[T4\]/);
    // Placed nowhere in the fleet: the selector matches no cluster.
    writeFileSync(none, classic({ selector: '      matchLabels:\n        nobody: "here"\n' }));
    const nowhere = await runCli(['simulate', none, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`]);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stdout).toMatch(/error: no Package or ClusterPackage is placed anywhere in the fleet.*\[T4\]/);
  });
  test('simulate: a package finding is printed once, and no row says ok while the summary counts it', async () => {
    const broken = path.join(tmp.dir, 'broken');
    rmSync(broken, { recursive: true, force: true });
    mkdirSync(broken);
    writeFileSync(path.join(broken, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: example-operator\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n');
    writeFileSync(path.join(broken, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-operator\n');
    const r = await runCli(['simulate', tpl, '--hcp-namespaces', '1', '--package', broken, '-p', 'REGISTRY_IMG=quay.io/a/b', '-p', `IMAGE_DIGEST=${DIGEST}`]);
    expect(r.code).toBe(1);
    expect(r.stdout).not.toMatch(/error: .*error: /);
    expect(r.stdout).not.toMatch(/\[pko\/[a-z-]+\] \[pko/);
    const line = r.stdout.split('\n').find((l) => l.includes('Missing package-operator.run/phase Annotation'));
    expect(line).toMatch(/^error: .*ns\.yaml.*\[pko\/missing-phase-annotation\]$/);
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('(cluster)'));
    expect(rows.length).toBe(2);
    for (const row of rows) expect(row).toMatch(/not ok: 1 error\(s\) above$/);
    expect(r.stdout).toMatch(/0 valid Package\(s\), 1 error\(s\)/);
  });
});

describe('generate: delivery PolicyClusterPackage (a ClusterPackage on every management cluster through ACM)', () => {
  const opts = { packageName: 'example-operator', delivery: 'PolicyClusterPackage' as const, config: [{ parameter: 'LOG_LEVEL', configKey: 'logLevel', optional: true, value: 'info' }, { parameter: 'SCRIPT', configKey: 'script' }] };
  type Obj = Record<string, any>;
  const sssOf = () => (buildRolloutTemplate(opts) as Obj).objects[0] as Obj;
  test('the per-HCP chain (SelectorSyncSet on the hubs, Policy placed on management clusters) ending in one ClusterPackage, without a namespaceSelector, ACM templating off; it lints clean', () => {
    const sss = sssOf();
    expect(sss.spec.clusterDeploymentSelector.matchExpressions).toContainEqual({ key: 'ext-hypershift.openshift.io/cluster-type', operator: 'In', values: ['service-cluster'] });
    expect(sss.spec.resources.map((r: Obj) => r.kind)).toEqual(['Policy', 'PlacementRule', 'PlacementBinding']);
    expect(sss.spec.resources[1].spec.clusterSelector).toEqual({ matchExpressions: [{ key: 'hypershift.open-cluster-management.io/management-cluster', operator: 'In', values: ['true'] }] });
    const cp = sss.spec.resources[0].spec['policy-templates'][0].objectDefinition;
    expect(cp.kind).toBe('ConfigurationPolicy');
    expect(cp.spec.namespaceSelector).toBeUndefined();
    expect(cp.spec.pruneObjectBehavior).toBe('DeleteIfCreated');
    expect(cp.metadata.annotations).toEqual({ 'policy.open-cluster-management.io/disable-templates': 'true' });
    const od = cp.spec['object-templates'][0].objectDefinition;
    expect(od).toEqual({ apiVersion: 'package-operator.run/v1alpha1', kind: 'ClusterPackage', metadata: { name: 'example-operator' }, spec: { image: '${REGISTRY_IMG}@${IMAGE_DIGEST}', config: { logLevel: '${LOG_LEVEL}', script: '${SCRIPT}' } } });
    expect(lint(emitRolloutTemplate(opts), { parameters: { ...P.parameters, SCRIPT: 'echo {{ not a template }}' } }).filter((f) => f.severity !== 'info')).toEqual([]);
  });
  test('refuses what a ClusterPackage applied as written cannot do: sources, an optional key without a value; and clusterLabels (placement picks the clusters)', () => {
    expect(() => buildRolloutTemplate({ ...opts, sources: [{ configKey: 'ca', apiVersion: 'v1', kind: 'ConfigMap', name: 'c', dataKey: 'k' }] })).toThrow(/PolicyClusterPackage cannot read per-namespace sources/);
    expect(() => buildRolloutTemplate({ ...opts, config: [{ parameter: 'TIER', configKey: 'tier', optional: true }] })).toThrow(/cannot leave tier out/);
    expect(() => buildRolloutTemplate({ ...opts, clusterLabels: { a: 'b' } })).toThrow(/clusterLabels applies only to delivery ClusterPackage/);
  });
  test('lint: a ClusterPackage in a ConfigurationPolicy is checked as one (image, CRD)', () => {
    const text = emitRolloutTemplate(opts).replace('image: ${REGISTRY_IMG}@${IMAGE_DIGEST}', 'image: ${REGISTRY_IMG}:${IMAGE_DIGEST}');
    has(lint(text, { parameters: { ...P.parameters, SCRIPT: 'x' } }), 'error', 'K1', /joins repository and digest with ":"/);
  });
  describe('CLI: lint-rollout --package and simulate: one ClusterPackage per management cluster, none on hubs or hosted clusters', () => {
    let tmp: { dir: string; cleanup: () => void };
    let pkg: string;
    let tpl: string;
    beforeAll(() => {
      tmp = tempDir('pkogen-policy-clusterpackage-');
      pkg = path.join(tmp.dir, 'pkg');
      mkdirSync(pkg);
      writeFileSync(path.join(pkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: example-operator\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        logLevel: {type: string, enum: [debug, info]}\n        script: {type: string}\n');
      writeFileSync(path.join(pkg, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example-operator\n  annotations:\n    package-operator.run/phase: deploy\n');
      tpl = path.join(tmp.dir, 'policy.yaml');
      writeFileSync(tpl, emitRolloutTemplate(opts));
    });
    afterAll(() => tmp.cleanup());
    const params = ['-p', 'REGISTRY_IMG=quay.io/a/b', '-p', 'SCRIPT=echo hi'];
    test('lint-rollout --package: the ClusterPackage against the package (scope, config)', async () => {
      expect((await runCli(['lint-rollout', tpl, '--package', pkg, ...params])).code).toBe(0);
      const bad = await runCli(['lint-rollout', tpl, '--package', pkg, ...params, '-p', 'LOG_LEVEL=trace']);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain('ConfigurationPolicy/hs-mgmt-example-operator > ClusterPackage/example-operator: config: spec.config.logLevel: Unsupported value: (value not shown)');
      expect(bad.stdout).toContain('[K2]');
    });
    test('simulate: the ClusterPackage lands once on the management cluster, from the hub', async () => {
      const ok = await runCli(['simulate', tpl, '--hcp-namespaces', '2', '--package', pkg, ...params, '-p', `IMAGE_DIGEST=${DIGEST}`, '-o', 'json']);
      expect(ok.code).toBe(0);
      const r = JSON.parse(ok.stdout);
      expect(r.packages.map((p: Obj) => [p.serviceCluster, p.managementCluster, p.namespace, p.via, p.package.name])).toEqual([['sc-01', 'mc-01', '', 'Package', 'example-operator']]);
      expect(r.totals).toMatchObject({ validPackages: 1, errors: 0 });
      const bad = await runCli(['simulate', tpl, '--hcp-namespaces', '1', '--package', pkg, ...params, '-p', `IMAGE_DIGEST=${DIGEST}`, '-p', 'LOG_LEVEL=trace']);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain('error: config: spec.config.logLevel: Unsupported value: (value not shown)');
    });
  });
});
