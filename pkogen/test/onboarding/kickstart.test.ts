import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { readDirToFileMap } from '../../src/core/fs.js';
import { toBytes } from '../../src/core/filemap.js';
import { UserError } from '../../src/core/errors.js';
import { kickstart } from '../../src/kickstart/convert.js';
import { emitResources } from '../../src/kickstart/emit.js';
import { PHASE_ANNOTATION } from '../../src/pko/types.js';
import { loadPackage } from '../../src/pko/loader.js';
import { parseAllYaml11 } from '../../src/yaml/parse.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { ROOT, runCli, SHARED } from '../helpers.js';
import { kickstartAndGenerate, renderedObjects } from './roundtrip.js';

const PKO = path.join(SHARED, 'reference', 'pko-packages');
const packages = readdirSync(PKO, { withFileTypes: true })
  .filter((e) => e.isDirectory() && e.name !== 'invalid')
  .map((e) => e.name)
  .sort();

/** Packages kickstart refuses, and the reason it gives: features the package model cannot express (none left among PKO's test packages). */
const REFUSED: Record<string, RegExp> = {};

// Emitted modules run through jest's TypeScript transform, which only treats files under the
// project (tsconfig's include) as ES modules: so the scratch directory lives in test/onboarding/.
const tmp = { dir: '' };
beforeAll(() => (tmp.dir = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'))));
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

describe('kickstart round trip over PKO test packages', () => {
  it('covers every reference package', () => {
    expect(packages.length).toBeGreaterThanOrEqual(8);
  });

  it.each(packages)('%s', async (name) => {
    const files = await readDirToFileMap(path.join(PKO, name));
    const src = { name, files, isDirectory: true };
    if (REFUSED[name]) {
      await expect(kickstart([src])).rejects.toThrow(REFUSED[name]);
      return;
    }
    const rt = await kickstartAndGenerate([src], path.join(tmp.dir, name));
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    // Every object typed: none of PKO's test packages has a field the types refuse.
    expect(rt.untypedWarnings).toEqual([]);
    const before = renderedObjects(files, rt.result.definition.testCases);
    expect(Object.keys(before).length).toBeGreaterThan(0);
    expect(renderedObjects(rt.pkg)).toEqual(before);
    // Filters, components and kubeconform are carried into the manifest as they were.
    const manifestOf = (fm: Map<string, Uint8Array>) => loadPackage(new Map([...fm].filter(([p]) => !p.split('/').some((x) => x.startsWith('.'))))).manifest;
    const [a, b] = [manifestOf(files), manifestOf(rt.pkg)];
    expect([b.spec.filter, b.spec.components, b.test?.kubeconform]).toEqual([a.spec.filter, a.spec.components ?? undefined, a.test?.kubeconform]);
    if (a.spec.components !== undefined) expect([...rt.pkg.keys()].filter((p) => p.startsWith('components/') && !p.includes('/.'))).toEqual([...files.keys()].filter((p) => p.startsWith('components/') && !p.includes('/.')).sort());
  });

  it('carries spec.filter, spec.components and test.kubeconform (PKO test packages that use them)', () => {
    expect(packages).toEqual(expect.arrayContaining(['test-stub-cel', 'test-stub-multi', 'remote-phase-component']));
  });

  it('never carries build files (Dockerfile.pko, Containerfile, Makefile, .dockerignore) into the package', async () => {
    const files = await readDirToFileMap(path.join(PKO, 'nginx'));
    for (const f of ['Dockerfile.pko', 'Containerfile', 'Makefile', '.dockerignore', 'build/app.Dockerfile']) files.set(f, new TextEncoder().encode('FROM scratch\n'));
    const r = await kickstart([{ name: 'nginx', files, isDirectory: true }]);
    const carried = Object.keys(r.definition.files ?? {});
    expect(carried.filter((f) => /Dockerfile|Containerfile|Makefile|ignore/.test(f))).toEqual([]);
    expect(r.warnings.filter((w) => w.includes('not carried: a build file')).map((w) => w.split(':')[0]).sort()).toEqual(['.dockerignore', 'Containerfile', 'Dockerfile.pko', 'Makefile', 'build/app.Dockerfile']);
  });

  it('refuses an invalid package with PKO\'s reason, naming the file', async () => {
    const files = await readDirToFileMap(path.join(PKO, 'invalid', 'missing_phase_annotation'));
    const err = await kickstart([{ name: 'bad', files, isDirectory: true }]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as UserError).describe()).toBe('bad/deployment.yaml: cannot kickstart this package: document 0: Deployment test: phase annotation missing or not a declared phase');
  });
});

const MANIFESTS = {
  'ns.yaml': 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: demo\n',
  'crd.yaml': `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`,
  'rbac.yaml': `apiVersion: v1
kind: ServiceAccount
metadata: {name: widget-operator, namespace: demo}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: widget-operator}
rules:
- apiGroups: [example.com]
  resources: [widgets]
  verbs: [get, list, watch]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: widget-operator, namespace: demo}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: widget-operator}
subjects:
- {kind: ServiceAccount, name: widget-operator, namespace: demo}
`,
  'deploy.yaml': `apiVersion: apps/v1
kind: Deployment
metadata:
  name: widget-operator
  namespace: demo
  uid: 0b0e1c1e-0000-0000-0000-000000000000
  resourceVersion: "42"
spec:
  selector:
    matchLabels: {app: widget-operator}
  template:
    metadata:
      labels: {app: widget-operator}
    spec:
      serviceAccountName: widget-operator
      containers:
      - name: manager
        image: quay.io/example/widget-operator:v1
        args: ["--leader-elect", "--zap-log-level=info"]
        ports: [{containerPort: 8443, name: https}]
status:
  replicas: 1
---
apiVersion: v1
kind: Service
metadata: {name: widget-operator, namespace: demo}
spec:
  selector: {app: widget-operator}
  ports: [{port: 443, targetPort: https, name: https}]
`,
  'secret.yaml': 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds, namespace: demo}\nstringData: {password: hunter2-do-not-copy}\n',
};

describe('kickstart from plain manifests', () => {
  const sources = () => [{ name: 'deploy', files: new Map(Object.entries(MANIFESTS).map(([p, t]) => [p, toBytes(t)])), isDirectory: true }];

  it('puts objects into the phases kubectl package kickstart uses and renders them unchanged', async () => {
    const rt = await kickstartAndGenerate(sources(), path.join(tmp.dir, 'manifests'), { name: 'widgets' });
    const phaseOf = Object.fromEntries(rt.result.definition.objects.map((o) => [`${o.object.kind}/${o.object.metadata.name}`, o.phase]));
    expect(phaseOf).toEqual({
      'Namespace/demo': 'namespaces',
      'ServiceAccount/widget-operator': 'rbac',
      'ClusterRole/widget-operator': 'rbac',
      'RoleBinding/widget-operator': 'rbac',
      'CustomResourceDefinition/widgets.example.com': 'crds',
      'Deployment/widget-operator': 'deploy',
      'Service/widget-operator': 'deploy',
    });
    expect(rt.result.definition.phases.map((p) => p.name)).toEqual(['namespaces', 'rbac', 'crds', 'deploy']);
    expect(rt.result.definition.scopes).toEqual(['Cluster', 'Namespaced']);
    expect(rt.result.definition.availabilityProbes?.map((p) => p.selector.kind?.kind)).toEqual(['CustomResourceDefinition', 'Deployment']);
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);

    // Every input object (less the refused Secret and server-set fields) comes out of the render, with its phase.
    const expected = Object.entries(MANIFESTS)
      .filter(([p]) => p !== 'secret.yaml')
      .flatMap(([p, t]) => parseAllYaml11(t, p) as Record<string, any>[])
      .map((o) => {
        const { status: _s, ...rest } = o;
        const { uid: _u, resourceVersion: _r, ...metadata } = o.metadata;
        return { ...rest, metadata: { ...metadata, annotations: { [PHASE_ANNOTATION]: phaseOf[`${o.kind}/${o.metadata.name}`] } } };
      });
    const rendered = renderedObjects(rt.pkg).default.map((j) => JSON.parse(j));
    expect(rendered).toHaveLength(expected.length);
    expect(rendered).toEqual(expect.arrayContaining(expected));
  });

  it('refuses a Secret with data, names it, and never copies the value', async () => {
    const r = await kickstart(sources());
    expect(r.notConverted).toEqual([expect.objectContaining({ file: 'deploy/secret.yaml', doc: 0, object: 'Secret creds', reason: expect.stringMatching(/Secret with data is not copied/) })]);
    const all = [...emitResources(r.definition, { origin: 'x' }).values()].join('\n');
    expect(all).not.toContain('hunter2');
    expect(r.warnings.join('\n')).toMatch(/Deployment widget-operator: dropped server-set uid, resourceVersion, status/);
  });

  it('takes the objects of an OpenShift Template and Lists, and reports bad documents with their place', async () => {
    const tpl = `apiVersion: template.openshift.io/v1
kind: Template
metadata: {name: t}
parameters: [{name: IMAGE}]
objects:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: a}, data: {image: "\${IMAGE}"}}
---
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: b}}
---
kind: ConfigMap
metadata: {name: c}
`;
    const r = await kickstart([{ name: 'tpl.yaml', files: new Map([['tpl.yaml', toBytes(tpl)]]), isDirectory: false }]);
    expect(r.definition.objects.map((o) => o.object.metadata.name)).toEqual(['a', 'b']);
    expect(r.notConverted).toEqual([{ file: 'tpl.yaml', doc: 2, object: 'ConfigMap c', reason: 'missing apiVersion' }]);
    expect(r.warnings.join('\n')).toMatch(/Template parameters \(1\) are not converted/);
  });

  it('gives the same TypeScript for the same input', async () => {
    const a = emitResources((await kickstart(sources())).definition, { origin: 'x' });
    const b = emitResources((await kickstart(sources())).definition, { origin: 'x' });
    expect([...a]).toEqual([...b]);
    expect(a.get('phase-deploy.ts')).toMatch(/^export const deployObjects: PackageObject\[\] = \[$/m);
  });

  it('CLI: writes resources/, lists what it left out, exits 1 for it', async () => {
    const dir = path.join(tmp.dir, 'cli');
    const src = path.join(SHARED, 'reference', 'pko-packages', 'nginx');
    const ok = await runCli(['kickstart', src, '--output-dir', path.join(dir, 'resources')]);
    // PKO's nginx example pins its image by tag (nginx:1.14.2): the one finding, baselined.
    expect(ok.stderr).toMatch(/^note: baselined \[image\/not-pinned\] package\/deployment\.yaml\.gotmpl doc 0 spec\.template\.spec\.containers\[0\]\.image: the original has it too; [^\n]*\n$/);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/kickstarted a PKO package: \d+ converted, 0 not converted/);
    const again = await runCli(['kickstart', src, '--output-dir', path.join(dir, 'resources')]);
    expect(again).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(/directory is not empty \(use --force/) });
    const usage = await runCli(['kickstart', src, '--scope', 'Galaxy']);
    expect(usage.code).toBe(2);
    const missing = await runCli(['kickstart', path.join(dir, 'nope')], { cwd: dir });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/nope: no such file or directory/);
  });
});
