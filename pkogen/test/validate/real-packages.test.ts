/**
 * Regressions from trying pkogen on packages teams ship: each package here is a minimal one we
 * wrote that reproduces a false alarm or a silent skip seen on a real package.
 */
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const MANIFEST_HEAD = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: demo
spec:
  scopes: [Namespaced]
  phases:
  - name: deploy
`;

const meta = (name: string) => `metadata:\n  name: ${name}\n  annotations:\n    package-operator.run/phase: deploy\n`;

let tmp: { dir: string; cleanup: () => void };
beforeAll(() => {
  tmp = tempDir('pkogen-real-');
});
afterAll(() => tmp.cleanup());

function pkg(name: string, files: Record<string, string>): string {
  const dir = path.join(tmp.dir, name);
  rmSync(dir, { recursive: true, force: true });
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
  return dir;
}

async function validate(...args: string[]) {
  const r = await runCli(['validate', ...args, '--output', 'json']);
  const out = JSON.parse(r.stdout) as { ok: boolean; findings: { severity: string; rule: string; message: string; file?: string; path?: string }[] };
  return { code: r.code, ...out };
}

const NULL_DEFAULT = MANIFEST_HEAD + `  config:
    openAPIV3Schema:
      type: object
      properties:
        replicas:
          type: integer
          default: null
        nested:
          type: object
          properties:
            level: {type: string, default: null}
test:
  template:
  - name: t
    context:
      package:
        metadata: {name: demo, namespace: demo-ns}
`;

describe('default: null in the config schema (Go decodes it as "no default")', () => {
  test('validate and tree accept it, like PKO', async () => {
    const dir = pkg('null-default', {
      'manifest.yaml': NULL_DEFAULT,
      'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('c')}data:\n  ns: "{{ .package.metadata.namespace }}"\n`,
      '.test-fixtures/t/cm.yaml': `apiVersion: v1\nkind: ConfigMap\n${meta('c')}data:\n  ns: "demo-ns"\n`,
    });
    const v = await validate(dir, '--strict');
    expect(v.findings).toEqual([]);
    expect(v.code).toBe(0);
    const t = await runCli(['tree', dir]);
    expect(t).toMatchObject({ code: 0, stderr: '' });
    expect(t.stdout).toBe('demo\nPackage demo-ns/demo\n└── Phase deploy\n    └── /v1, Kind=ConfigMap /c\n');
  });
  test('a default of the wrong type is still the PKO error', async () => {
    const dir = pkg('bad-default', { 'manifest.yaml': NULL_DEFAULT.replace('default: null\n        nested', 'default: "three"\n        nested') });
    const v = await validate(dir);
    expect(v.code).toBe(1);
    expect(v.findings.map((f) => f.rule)).toContain('pko/manifest-invalid');
  });
});

describe('schemas: CRDs shipped in the package, kinds without a schema', () => {
  const crd = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
  annotations:
    package-operator.run/phase: crds
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`;
  const manifest = MANIFEST_HEAD.replace('[Namespaced]', '[Cluster]').replace('  - name: deploy\n', '  - name: crds\n  - name: deploy\n');
  const widget = (size: string) => `apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n  namespace: demo\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  size: ${size}\n`;

  test('a package that ships its CRD and CRs of it is strict-clean', async () => {
    const v = await validate(pkg('crd-ok', { 'manifest.yaml': manifest, 'crd.yaml': crd, 'widget.yaml': widget('3') }), '--strict');
    expect(v.findings).toEqual([]);
    expect(v.code).toBe(0);
  });
  test('and its CRs are checked against it', async () => {
    const v = await validate(pkg('crd-bad', { 'manifest.yaml': manifest, 'crd.yaml': crd, 'widget.yaml': widget('big') }));
    expect(v.findings).toEqual([expect.objectContaining({ severity: 'error', rule: 'schema/type', file: 'widget.yaml', path: 'spec.size' })]);
  });
  test('a kind with no schema is a named warning that --strict does not promote', async () => {
    const sm = `apiVersion: acme.example.org/v1\nkind: Gadget\nmetadata:\n  name: g\n  namespace: demo\n  annotations:\n    package-operator.run/phase: deploy\n`;
    const v = await validate(pkg('unknown-kind', { 'manifest.yaml': manifest, 'gadget.yaml': sm }), '--strict');
    expect(v.findings).toEqual([expect.objectContaining({ severity: 'warning', rule: 'schema/unknown-kind', file: 'gadget.yaml' })]);
    expect(v.findings[0].message).toContain('acme.example.org/v1 Gadget');
    expect(v.code).toBe(0);
  });
});

describe('no silent skip', () => {
  const manifest = MANIFEST_HEAD + `  config:
    openAPIV3Schema:
      type: object
      properties:
        name: {type: string, default: from-default}
`;
  test('templates without test cases are rendered with the schema defaults, with a warning', async () => {
    const dir = pkg('untested', {
      'manifest.yaml': manifest,
      'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('{{ .config.name }}')}dta:\n  a: "1"\n`,
    });
    const v = await validate(dir);
    expect(v.findings.map((f) => [f.severity, f.rule, f.file])).toEqual([
      ['warning', 'package/no-test-cases', 'manifest.yaml'],
      ['error', 'schema/additionalProperties', 'cm.yaml.gotmpl'],
    ]);
    expect(v.findings[0].message).toContain('schema defaults');
    // Before, nothing was rendered and --strict said the package was fine.
    expect(v.code).toBe(1);
  });
  test('--config FILE renders them with that config instead', async () => {
    const dir = pkg('untested-config', {
      'manifest.yaml': manifest,
      'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('{{ .config.name }}')}`,
    });
    const cfg = path.join(tmp.dir, 'bad-name.yaml');
    writeFileSync(cfg, 'name: Not_A_Name\n');
    const v = await validate(dir, '--config', cfg);
    expect(v.findings[0].message).toContain('--config file');
    expect(v.findings.some((f) => f.file === 'cm.yaml.gotmpl' && f.path === 'metadata.name')).toBe(true);
  });
  test('a render that needs config nobody gave is a warning naming the field', async () => {
    const dir = pkg('untested-required', {
      'manifest.yaml': manifest.replace('name: {type: string, default: from-default}', 'name: {type: string}\n      required: [name]'),
      'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('{{ .config.name }}')}`,
    });
    const v = await validate(dir);
    expect(v.code).toBe(0);
    const f = v.findings.find((x) => x.rule === 'package/untested-render-failed');
    expect(f?.severity).toBe('warning');
    expect(f?.message).toContain('spec.config.name');
  });
  test('a skipped symlink is a warning naming it', async () => {
    const dir = pkg('symlink', { 'manifest.yaml': MANIFEST_HEAD, 'shared/cm.yaml': `apiVersion: v1\nkind: ConfigMap\n${meta('c')}` });
    symlinkSync(path.join(dir, 'shared/cm.yaml'), path.join(dir, 'linked.yaml'));
    const v = await validate(dir);
    expect(v.findings).toEqual([expect.objectContaining({ severity: 'warning', rule: 'package/symlink-skipped', file: 'linked.yaml' })]);
    expect(v.code).toBe(0);
    expect((await validate(dir, '--strict')).code).toBe(1);
  });
});

describe('severity policy: beyond-PKO rules are warnings, --strict promotes them', () => {
  test('a workload PKO installs, without the restricted fields (restricted-v2 SCC fills them), passes plain validate', async () => {
    const dir = pkg('pod-security', {
      'manifest.yaml': MANIFEST_HEAD.replace('  - name: deploy\n', '  - name: deploy\n  - name: hc\n    class: hosted-cluster\n'),
      'deploy.yaml': `apiVersion: apps/v1\nkind: Deployment\n${meta('d')}spec:\n  selector:\n    matchLabels: {app: d}\n  template:\n    metadata:\n      labels: {app: d}\n    spec:\n      containers:\n      - name: c\n        image: quay.io/x/y@sha256:${'a'.repeat(64)}\n`,
    });
    const v = await validate(dir);
    expect(v.findings.length).toBeGreaterThan(0);
    expect(v.findings.every((f) => f.severity === 'warning' && f.rule.startsWith('pod-security/'))).toBe(true);
    expect(v.code).toBe(0);
    expect((await validate(dir, '--strict')).code).toBe(1);
  });
});

describe("kubectl-package's flag names", () => {
  const dir = () => pkg('flags', {
    'manifest.yaml': MANIFEST_HEAD + `  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        name: {type: string, default: d}\ntest:\n  template:\n  - name: one\n    context:\n      package:\n        metadata: {name: p, namespace: ns1}\n      config: {name: from-case}\n`,
    'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('{{ .config.name }}')}`,
  });
  test('tree --config-testcase and --config-path', async () => {
    const d = dir();
    expect((await runCli(['tree', d, '--config-testcase', 'one'])).stdout).toContain('Kind=ConfigMap /from-case');
    const cfg = path.join(tmp.dir, 'cfg.yaml');
    writeFileSync(cfg, 'name: from-file\n');
    expect((await runCli(['tree', d, '--config-path', cfg])).stdout).toContain('Kind=ConfigMap /from-file');
    const both = await runCli(['tree', d, '--config-path', cfg, '--config', cfg]);
    expect(both).toMatchObject({ code: 2, stderr: expect.stringContaining('not both') });
  });
  test('tree --component on a package without components is PKO\'s error', async () => {
    const r = await runCli(['tree', dir(), '--component', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/components/i);
  });
  test('validate REF --pull (the switch form) needs a reference', async () => {
    const r = await runCli(['validate', '--pull']);
    expect(r).toMatchObject({ code: 2, stderr: expect.stringContaining('--pull needs an image reference') });
  });
});

describe('revision safety (warnings)', () => {
  const job = (name: string, spec: string) => `apiVersion: batch/v1\nkind: Job\n${meta(name)}spec:\n${spec}  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: quay.io/x/y@sha256:${'a'.repeat(64)}\n`;
  const rules = (v: { findings: { rule: string; file?: string }[] }) => v.findings.filter((f) => f.rule.startsWith('revision/')).map((f) => `${f.rule} ${f.file}`).sort();

  test('a Job with a fixed name, a TTL and no deadline', async () => {
    const v = await validate(pkg('job-bad', { 'manifest.yaml': MANIFEST_HEAD, 'job.yaml': job('migrate', '  ttlSecondsAfterFinished: 100\n') }));
    expect(rules(v)).toEqual(['revision/job-fixed-name job.yaml', 'revision/job-no-deadline job.yaml', 'revision/job-ttl job.yaml']);
    expect(v.findings.find((f) => f.rule === 'revision/job-ttl')).toMatchObject({ severity: 'warning', path: 'spec.ttlSecondsAfterFinished' });
    expect(v.code).toBe(0);
  });
  test('a Job named per revision from a template, with a deadline, is fine', async () => {
    const manifest = MANIFEST_HEAD + '  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        rev: {type: string, default: r1}\n';
    const v = await validate(pkg('job-ok', { 'manifest.yaml': manifest, 'job.yaml.gotmpl': job('migrate-{{ .config.rev }}', '  activeDeadlineSeconds: 600\n') }));
    expect(rules(v)).toEqual([]);
  });
  test('a platform Namespace without IfNoController; with it, none', async () => {
    const ns = (ann: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-example-operator\n  annotations:\n    package-operator.run/phase: deploy\n${ann}`;
    const manifest = MANIFEST_HEAD.replace('[Namespaced]', '[Cluster]');
    const v = await validate(pkg('adopt', { 'manifest.yaml': manifest, 'ns.yaml': ns('') }));
    expect(rules(v)).toEqual(['revision/adoption ns.yaml']);
    expect(v.findings[0].message).toContain('IfNoController');
    const ok = await validate(pkg('adopt-ok', { 'manifest.yaml': manifest, 'ns.yaml': ns('    package-operator.run/collision-protection: IfNoController\n') }));
    expect(rules(ok)).toEqual([]);
  });
  test('a cleanup Job that deletes an object of the package', async () => {
    const cleanup = job('cleanup', '  activeDeadlineSeconds: 60\n').replace('        image:', '        command: ["/bin/sh", "-c", "oc delete configmap example-config -n x"]\n        image:');
    const v = await validate(pkg('cleanup', {
      'manifest.yaml': MANIFEST_HEAD,
      'job.yaml': cleanup,
      'cm.yaml': `apiVersion: v1\nkind: ConfigMap\n${meta('example-config')}`,
    }));
    expect(rules(v)).toEqual(['revision/cleanup-deletes-package-object job.yaml', 'revision/job-fixed-name job.yaml']);
    expect(v.findings.find((f) => f.rule === 'revision/cleanup-deletes-package-object')?.message).toContain('ConfigMap "example-config"');
    const other = await validate(pkg('cleanup-other', { 'manifest.yaml': MANIFEST_HEAD, 'job.yaml': cleanup.replace('example-config', 'leftover-from-olm') }));
    expect(rules(other)).toEqual(['revision/job-fixed-name job.yaml']);
  });
  test('deleting an OLM Subscription named like the package\'s Deployment is not deleting the Deployment', async () => {
    const olm = job('cleanup', '  activeDeadlineSeconds: 60\n').replace('        image:', '        command: ["sh", "-c", "oc -n ns delete subscription.operators.coreos.com example-operator --ignore-not-found=true || true; oc delete deployments.apps/example-operator -n other"]\n        image:');
    const files = { 'manifest.yaml': MANIFEST_HEAD, 'job.yaml': olm, 'deploy.yaml': `apiVersion: v1\nkind: ServiceAccount\n${meta('example-operator')}` };
    expect(rules(await validate(pkg('cleanup-olm', files)))).toEqual(['revision/job-fixed-name job.yaml']);
    const dep = `apiVersion: apps/v1\nkind: Deployment\n${meta('example-operator')}spec:\n  selector:\n    matchLabels: {a: b}\n  template:\n    metadata:\n      labels: {a: b}\n    spec:\n      containers:\n      - name: c\n        image: quay.io/x/y@sha256:${'a'.repeat(64)}\n`;
    expect(rules(await validate(pkg('cleanup-olm-dep', { ...files, 'deploy.yaml': dep })))).toEqual(['revision/cleanup-deletes-package-object job.yaml', 'revision/job-fixed-name job.yaml']);
  });
});
