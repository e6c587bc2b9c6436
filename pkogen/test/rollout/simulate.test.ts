import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { defaultFleet, hcpNamespaceNames } from '../../src/rollout/fleet.js';
import { emitRolloutTemplate } from '../../src/rollout/generate.js';
import { packageChecker } from '../../src/rollout/package-check.js';
import { renderObjectTemplateText, renderWithPko } from '../../src/rollout/pko-render.js';
import { rolloutSchemaValidator } from '../../src/rollout/schema.js';
import { simulateRollout } from '../../src/rollout/simulate.js';
import { mutate, ON_CLUSTER_BUILD, REF_DIR, SKELETON } from './helpers.js';

const D1 = 'quay.io/app-sre/on-cluster-build@sha256:' + 'a'.repeat(64);
const PARAMS = {
  REGISTRY_IMG: 'quay.io/app-sre/on-cluster-build-hs-package',
  ON_CLUSTER_BUILD_IMAGE: D1,
};

let pkgDir: string;
beforeAll(() => {
  // A static (template-free) package whose config schema mirrors what the rollout passes.
  pkgDir = mkdtempSync(path.join(tmpdir(), 'pkogen-sim-'));
  writeFileSync(path.join(pkgDir, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: on-cluster-build
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      required: [image]
      properties:
        image: {type: string, pattern: '@sha256:[0-9a-f]{64}$'}
        serviceCA: {type: string}
`);
  writeFileSync(path.join(pkgDir, 'cm.yaml'), `apiVersion: v1
kind: ConfigMap
metadata:
  name: ocb
  annotations:
    package-operator.run/phase: deploy
data: {a: b}
`);
});
afterAll(() => rmSync(pkgDir, { recursive: true, force: true }));

function run(text: string, params: Record<string, string>, n = 3, withPackage = false) {
  return (async () => {
    const renderPackage = withPackage ? packageChecker(await readDirToFileMap(pkgDir), renderWithPko) : undefined;
    return simulateRollout('t.yaml', text, {
      parameters: params,
      fleet: defaultFleet(hcpNamespaceNames(n)),
      schema: rolloutSchemaValidator(),
      renderTemplate: renderObjectTemplateText,
      renderPackage,
    });
  })();
}

describe('simulate', () => {
  test('addon-operator: SSS → sc-01 → mc-01 → one Package per HCP namespace, nothing else selected', async () => {
    const text = readFileSync(`${REF_DIR}/addon-operator-hs.yaml`, 'utf8');
    const r = await run(text, { REGISTRY_IMG: 'quay.io/app-sre/addon-operator-package' });
    expect(r.findings).toEqual([]);
    expect(r.hops).toEqual([{ selectorSyncSet: 'addon-operator-hypershift', serviceClusters: ['sc-01'], policies: [{ policy: 'addon-operator-hypershift', hub: 'sc-01', managedClusters: ['mc-01'] }] }]);
    expect(r.packages.map((p) => p.namespace)).toEqual(hcpNamespaceNames(3));
    for (const p of r.packages) {
      expect(p.findings).toEqual([]);
      expect(p.package?.image).toMatch(/^quay\.io\/app-sre\/addon-operator-package@sha256:[0-9a-f]{64}$/);
    }
  });

  test('generated template (Package form) with the package: 3 valid Packages with the deploy-supplied config', async () => {
    const r = await run(emitRolloutTemplate({ ...ON_CLUSTER_BUILD, sources: [] }), PARAMS, 3, true);
    expect(r.lint.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(r.findings).toEqual([]);
    expect(r.packages).toHaveLength(3);
    for (const p of r.packages) {
      expect(p.findings).toEqual([]);
      expect(p.rendered).toEqual({ objects: 1 });
      expect(p.package?.config).toEqual({ image: D1, tenantLayerDefault: 'Disabled' });
    }
  });

  test('generated template (ObjectTemplate form, our bundle): 3 namespaces → 3 valid Packages with the service CA', async () => {
    const r = await run(emitRolloutTemplate(ON_CLUSTER_BUILD), PARAMS, 3, true);
    expect(r.lint.findings.filter((f) => f.severity !== 'info')).toEqual([]);
    expect(r.findings).toEqual([]);
    expect(r.packages.map((p) => [p.namespace, p.via])).toEqual(hcpNamespaceNames(3).map((n) => [n, 'ObjectTemplate']));
    for (const p of r.packages) {
      expect(p.findings).toEqual([]);
      expect(p.rendered).toEqual({ objects: 1 });
      expect(p.package?.image).toMatch(/^quay\.io\/app-sre\/on-cluster-build-hs-package@sha256:[0-9a-f]{64}$/);
      expect(p.package?.config).toMatchObject({ image: D1 });
      expect(p.package?.config.serviceCA).toMatch(/^-----BEGIN CERTIFICATE-----\n.+\n-----END CERTIFICATE-----\n$/);
    }
  });

  test('namespaces that render the same ObjectTemplate text get equal Packages, each its own objects', async () => {
    const r = await run(emitRolloutTemplate(ON_CLUSTER_BUILD), PARAMS, 3);
    const [a, b, c] = r.packages.map((p) => p.package!.config);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
    expect(b).not.toBe(a);
    expect(c).not.toBe(b);
  });

  test('MCVW: PKO merge/dict/toJson in the ObjectTemplate, service CA under .serviceca', async () => {
    const text = readFileSync(`${REF_DIR}/mcvw-hs.SelectorSyncSet.yaml.tmpl`, 'utf8');
    const r = await run(text, { REGISTRY_IMG: 'quay.io/app-sre/managed-cluster-validating-webhooks-hs-package', OPERATOR_IMAGE: 'quay.io/app-sre/managed-cluster-validating-webhooks' }, 2);
    expect(r.findings).toEqual([]);
    expect(r.packages).toHaveLength(2);
    for (const p of r.packages) {
      expect(p.package?.name).toBe('validation-webhooks');
      expect(p.package?.config.image).toBe('quay.io/app-sre/managed-cluster-validating-webhooks:0123456');
      expect(typeof p.package?.config.serviceca).toBe('string');
    }
  });

  test('a source the namespace lacks: PKO cannot render, located on the ObjectTemplate', async () => {
    const fleet = defaultFleet(hcpNamespaceNames(1));
    fleet.clusterDeployments[0].managedClusters![0].namespaces.at(-1)!.objects = [];
    const r = simulateRollout('t.yaml', emitRolloutTemplate(ON_CLUSTER_BUILD), { parameters: PARAMS, fleet, renderTemplate: renderObjectTemplateText });
    expect(r.packages[0].findings[0].message).toMatch(/source ConfigMap .*openshift-service-ca.crt not found/);
    expect(r.packages[0].findings[0].object).toMatch(/> ObjectTemplate\/on-cluster-build$/);
  });

  test('a config value the package rejects is an error in every namespace', async () => {
    const r = await run(emitRolloutTemplate({ ...ON_CLUSTER_BUILD, sources: [] }), { ...PARAMS, ON_CLUSTER_BUILD_IMAGE: 'quay.io/app-sre/on-cluster-build:latest' }, 2, true);
    expect(r.packages).toHaveLength(2);
    for (const p of r.packages) expect(p.findings.map((f) => f.message).join('\n')).toMatch(/config: spec.config.image/);
  });

  test('HostedClusterPackage delivery: one Package per hosted cluster namespace', async () => {
    const r = await run(emitRolloutTemplate({ ...ON_CLUSTER_BUILD, sources: [], delivery: 'HostedClusterPackage' }), PARAMS, 2, true);
    expect(r.packages.map((p) => [p.via, p.namespace, p.package?.name])).toEqual(hcpNamespaceNames(2).map((n) => ['HostedClusterPackage', n, 'on-cluster-build']));
    for (const p of r.packages) expect(p.findings).toEqual([]);
  });

  test('a missing required parameter stops processing with a finding, like oc process', async () => {
    const r = await run(emitRolloutTemplate(ON_CLUSTER_BUILD), { REGISTRY_IMG: 'quay.io/x' });
    expect(r.findings.map((f) => f.message)).toContain('parameter ON_CLUSTER_BUILD_IMAGE is required and must be specified (give it with -p)');
    expect(r.packages).toEqual([]);
  });

  test('an emptied clusterSelector places the Policy on the hosted cluster too', async () => {
    const t = mutate(SKELETON, /        clusterSelector: .*\n          matchExpressions:\n          - key: hypershift.open-cluster-management.io\/management-cluster\n            operator: In\n            values: \["true"\]\n/, '        clusterSelector:\n');
    const r = await run(t, { REGISTRY_IMG: 'quay.io/x' });
    expect(r.hops[0].policies[0].managedClusters).toEqual(['hc-01', 'mc-01']);
    expect(r.findings.some((f) => f.rule === 'B2' && /hosted cluster hc-01/.test(f.message))).toBe(true);
  });

  test('an include glob that misses OSD names: NonCompliant, no Package', async () => {
    const t = mutate(SKELETON, /              namespaceSelector: .*\n                matchLabels:\n                  hypershift.openshift.io\/hosted-control-plane: "true"\n/, '              namespaceSelector:\n                include: ["clusters-*"]\n');
    const r = await run(t, { REGISTRY_IMG: 'quay.io/x' });
    expect(r.packages).toEqual([]);
    expect(r.findings.find((f) => f.rule === 'C2')?.message).toMatch(/has no namespace specified from the policy namespaceSelector/);
  });

  test('an SSS aimed at management clusters reaches no hub', async () => {
    const r = await run(mutate(SKELETON, 'values: ["service-cluster"]', 'values: ["management-cluster"]'), { REGISTRY_IMG: 'quay.io/x' });
    expect(r.hops[0].serviceClusters).toEqual(['mc-01']);
    expect(r.findings.find((f) => f.rule === 'S3')?.message).toMatch(/not an ACM hub/);
    expect(r.packages).toEqual([]);
  });
});

describe('pkogen simulate / lint-rollout CLI', () => {
  function io() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), env: {}, cwd: process.cwd() } };
  }
  test('lint-rollout exit codes and json', async () => {
    const a = io();
    expect(await main(['lint-rollout', `${REF_DIR}/addon-operator-hs.yaml`, '--output', 'json'], a.io)).toBe(0);
    const j = JSON.parse(a.out.join(''));
    expect(j.summary.error).toBe(0);
    const b = io();
    expect(await main(['lint-rollout', '/nonexistent.yaml'], b.io)).toBe(1);
    expect(b.err.join('')).toMatch(/cannot read the template: ENOENT/);
    const c = io();
    expect(await main(['lint-rollout'], c.io)).toBe(2);
  });
  test('simulate prints one line per namespace; json has the packages', async () => {
    const a = io();
    const code = await main(['simulate', `${REF_DIR}/addon-operator-hs.yaml`, '-p', 'REGISTRY_IMG=quay.io/app-sre/addon-operator-package', '--hcp-namespaces', 'ocm-staging-abc-one,ocm-staging-abc-two'], a.io);
    expect(code).toBe(0);
    const text = a.out.join('');
    expect(text).toMatch(/^ocm-staging-abc-one\tmc-01\tPackage\taddon-operator\t/m);
    expect(text).toMatch(/2 namespace\(s\), 2 valid Package\(s\), 0 error\(s\)/);
    const b = io();
    await main(['simulate', `${REF_DIR}/addon-operator-hs.yaml`, '-p', 'REGISTRY_IMG=quay.io/x', '--hcp-namespaces', '4', '-o', 'json'], b.io);
    expect(JSON.parse(b.out.join('')).packages).toHaveLength(4);
    const c = io();
    expect(await main(['simulate', `${REF_DIR}/addon-operator-hs.yaml`], c.io)).toBe(2);
  });
});

describe('simulate --environment', () => {
  function io() {
    const out: string[] = [];
    const err: string[] = [];
    return { out, err, io: { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), env: {}, cwd: process.cwd() } };
  }
  test('a fleet file: two hubs, the FedRAMP one excluded; a terminating HCP namespace is reported, not installed', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-env-'));
    try {
      const envFile = path.join(dir, 'env.yaml');
      writeFileSync(envFile, `environment:
  kubernetes: {version: v1.31.0}
  openShift: {version: 4.18.0}
fleet:
  clusterDeployments:
  - name: sc-a
    namespace: uhc-sc-a
    labels: {ext-hypershift.openshift.io/cluster-type: service-cluster, api.openshift.com/managed: "true"}
    managedClusters:
    - name: mc-a
      labels: {hypershift.open-cluster-management.io/management-cluster: "true"}
      namespaces:
      - {name: ocm-production-aaa-one, labels: {hypershift.openshift.io/hosted-control-plane: "true"}, hostedCluster: {name: one, namespace: ocm-production-aaa}}
      - {name: ocm-production-aaa-two, terminating: true, labels: {hypershift.openshift.io/hosted-control-plane: "true"}, hostedCluster: {name: two, namespace: ocm-production-aaa}}
  - name: sc-b
    namespace: uhc-sc-b
    labels: {ext-hypershift.openshift.io/cluster-type: service-cluster, api.openshift.com/managed: "true", api.openshift.com/fedramp: "true"}
    managedClusters: []
`);
      const tmpl = path.join(dir, 't.yaml');
      writeFileSync(tmpl, emitRolloutTemplate({ ...ON_CLUSTER_BUILD, sources: [], excludeFedramp: true }));
      const a = io();
      const args = ['simulate', tmpl, '--environment', envFile, '-o', 'json', ...Object.entries(PARAMS).flatMap(([k, v]) => ['-p', `${k}=${v}`])];
      expect(await main(args, a.io)).toBe(0);
      const j = JSON.parse(a.out.join(''));
      expect(j.hops[0].serviceClusters).toEqual(['sc-a']);
      expect(j.packages.map((p: { namespace: string; package?: unknown }) => [p.namespace, p.package !== undefined])).toEqual([['ocm-production-aaa-one', true], ['ocm-production-aaa-two', false]]);
      // Each namespace's findings are at the top level once, the namespace ending the object chain.
      expect(j.findings.filter((f: { object?: string }) => f.object?.endsWith('namespace/ocm-production-aaa-two')).map((f: { message: string }) => f.message).join('\n')).toMatch(/is terminating/);
      expect(j.packages[1].findings).toBeUndefined();
      const b = io();
      writeFileSync(envFile, 'fleet: {clusterDeployments: []}\nextra: 1\n');
      expect(await main(['simulate', tmpl, '--environment', envFile], b.io)).toBe(1);
      expect(b.err.join('')).toMatch(/env\.yaml extra: unknown key "extra"/);
      const c = io();
      writeFileSync(envFile, 'fleet: [\n');
      expect(await main(['simulate', tmpl, '--environment', envFile], c.io)).toBe(1);
      expect(c.err.join('')).toMatch(/env\.yaml:\d+:\d+: invalid YAML/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('simulate object-templates-raw (ACM lookup over the management cluster)', () => {
  const RAW_TEXT = readFileSync(`${REF_DIR}/synthesized-object-templates-raw-variant.yaml`, 'utf8');
  test('one Package per live HCP namespace; terminating and non-HCP namespaces skipped by the template itself', () => {
    const fleet = defaultFleet(hcpNamespaceNames(3));
    const mc = fleet.clusterDeployments[0].managedClusters![0];
    mc.namespaces.find((n) => n.name === hcpNamespaceNames(3)[1])!.terminating = true;
    const r = simulateRollout('raw.yaml', RAW_TEXT, { parameters: { REGISTRY_IMG: 'quay.io/x' }, fleet, schema: rolloutSchemaValidator() });
    expect(r.findings).toEqual([]);
    expect(r.packages.map((p) => p.namespace)).toEqual([hcpNamespaceNames(3)[0], hcpNamespaceNames(3)[2]]);
    for (const p of r.packages) expect(p.findings).toEqual([]);
  });
  test('no HCP namespace: an empty list (Compliant), reported as a warning; nothing placed at all is an error (T4)', () => {
    const r = simulateRollout('raw.yaml', RAW_TEXT, { parameters: { REGISTRY_IMG: 'quay.io/x' }, fleet: defaultFleet([]) });
    expect(r.packages).toEqual([]);
    expect(r.findings.map((f) => `${f.severity} ${f.rule}: ${f.message}`)).toEqual([expect.stringMatching(/^warning C2: .*yields no object template/), expect.stringMatching(/^error T4: no Package or ClusterPackage is placed anywhere in the fleet/)]);
  });
  test('disable-templates on a raw policy yields nothing (§6.2 trap a)', () => {
    const t = mutate(RAW_TEXT, '              name: hs-mgmt-example-operator-raw\n            spec:', '              name: hs-mgmt-example-operator-raw\n              annotations:\n                policy.open-cluster-management.io/disable-templates: "true"\n            spec:');
    const r = simulateRollout('raw.yaml', t, { parameters: { REGISTRY_IMG: 'quay.io/x' }, fleet: defaultFleet(hcpNamespaceNames(2)) });
    expect(r.packages).toEqual([]);
    expect(r.findings.some((f) => f.rule === 'C5' && /yields nothing/.test(f.message))).toBe(true);
  });
  test('label selector strings as lookup takes them', async () => {
    const { parseLabelSelector } = await import('../../src/rollout/acm-templates.js');
    expect(parseLabelSelector('a=b,c!=d, e in (x, y),f,!g')).toEqual([
      { key: 'a', operator: 'In', values: ['b'] },
      { key: 'c', operator: 'NotIn', values: ['d'] },
      { key: 'e', operator: 'In', values: ['x', 'y'] },
      { key: 'f', operator: 'Exists', values: [] },
      { key: 'g', operator: 'DoesNotExist', values: [] },
    ]);
    expect(() => parseLabelSelector('a b c')).toThrow(/unable to parse requirement/);
  });
});

describe('end to end with our own package (package/)', () => {
  test('the generated rollout of on-cluster-build yields 3 valid, rendered Packages', async () => {
    const renderPackage = packageChecker(await readDirToFileMap('../package'), renderWithPko);
    const r = simulateRollout('hack/on-cluster-build.SelectorSyncSet.yaml.tmpl', emitRolloutTemplate(ON_CLUSTER_BUILD), {
      parameters: PARAMS,
      fleet: defaultFleet(hcpNamespaceNames(3)),
      schema: rolloutSchemaValidator(),
      renderTemplate: renderObjectTemplateText,
      renderPackage,
    });
    expect(r.findings).toEqual([]);
    expect(r.packages).toHaveLength(3);
    for (const p of r.packages) {
      expect(p.findings).toEqual([]);
      expect(p.rendered!.objects).toBeGreaterThan(5);
    }
  });
});
