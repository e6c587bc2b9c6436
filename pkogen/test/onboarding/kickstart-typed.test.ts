/**
 * Kickstart's TypeScript compiles and is typed: test-case contexts as PKO reads them (no
 * `environment`, no `package`, `openShift: null`), every object `satisfies` its kind's type from
 * pkogen/k8s or from the package's own CRDs, so a misspelt field or a wrong type is a tsc error at
 * its line; an object the types refuse but PKO accepts is written untyped, with a warning.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { type FileMap, toBytes, toText } from '../../src/core/filemap.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { placeholderImage, renderScaffold } from '../../src/scaffold/init.js';
import { ROOT } from '../helpers.js';
import { kickstartAndGenerate, renderedObjects, SOURCE_TYPES } from './roundtrip.js';

const tmp = { dir: '' };
beforeAll(() => (tmp.dir = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'))));
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

/** tsc --strict over emitted files, `pkogen` resolved to this checkout's sources: `file:line: message`. */
function typeErrors(dir: string, files: Map<string, string>): string[] {
  const names: string[] = [];
  for (const [p, text] of files) {
    const f = path.join(dir, p);
    mkdirSync(path.dirname(f), { recursive: true });
    writeFileSync(f, text);
    names.push(f);
  }
  const program = ts.createProgram(names, {
    strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], skipLibCheck: true,
    paths: { pkogen: [SOURCE_TYPES.index], 'pkogen/*': [`${SOURCE_TYPES.publicDir}/*`] },
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    return `${d.file ? path.relative(dir, d.file.fileName) : ''}:${pos ? pos.line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`;
  });
}

const lineOf = (text: string, needle: string) => text.split('\n').findIndex((l) => l.includes(needle)) + 1;

const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: widgets
spec:
  scopes: [Cluster]
  phases:
  - name: crds
  - name: deploy
  config:
    openAPIV3Schema:
      type: object
      properties:
        image: {type: string, description: Image}
        enabled: {type: string, description: A flag as a string, default: "false"}
        cmName: {type: string, description: ConfigMap name, default: widgets-config}
test:
  template:
  - name: no-environment
    context:
      package:
        metadata:
          name: widgets
      config:
        image: quay.io/example/widgets:1
        enabled: "true"
  - name: no-package
    context:
      config:
        image: quay.io/example/widgets:1
      environment:
        openShift:
        proxy:
          httpProxy: http://proxy
`;

const CRD = `apiVersion: apiextensions.k8s.io/v1
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
              enabled: {type: boolean}
`;

const DEPLOY = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: widgets
  namespace: widgets
  annotations:
    package-operator.run/phase: deploy
spec:
  replicas: 1
  selector:
    matchLabels: {app: widgets}
  template:
    metadata:
      labels: {app: widgets}
    spec:
      containers:
      - name: main
        image: {{ .config.image }}
---
apiVersion: example.com/v1
kind: Widget
metadata:
  name: {{ .config.cmName }}
  namespace: widgets
  annotations:
    package-operator.run/phase: deploy
spec:
  size: 3
  enabled: {{ .config.enabled }}
---
apiVersion: route.openshift.io/v1
kind: Route
metadata:
  name: widgets
  namespace: widgets
  annotations:
    package-operator.run/phase: deploy
spec:
  to: {kind: Service, name: widgets}
`;

const pkg = (extra: Record<string, string> = {}): FileMap =>
  new Map(Object.entries({ 'manifest.yaml': MANIFEST, 'crd.yaml': CRD, 'deploy.yaml.gotmpl': DEPLOY, ...extra }).map(([p, t]) => [p, toBytes(t)]));

describe('kickstart output compiles and is typed', () => {
  it('compiles with test cases that have no environment, no package, openShift: null', async () => {
    const dir = path.join(tmp.dir, 'contexts');
    const rt = await kickstartAndGenerate([{ name: 'widgets', files: pkg(), isDirectory: true }], dir);
    expect(rt.result.definition.testCases?.map((t) => t.name)).toEqual(['no-environment', 'no-package']);
    expect(typeErrors(path.join(tmp.dir, 'contexts-tsc'), rt.sources)).toEqual([]);
    expect(rt.untypedWarnings).toEqual([]);
  });

  it('renders an unquoted string-config action as PKO does (a "true" string reads as a boolean), and keeps metadata.name a string', async () => {
    const files = pkg();
    const rt = await kickstartAndGenerate([{ name: 'widgets', files, isDirectory: true }], path.join(tmp.dir, 'render'));
    expect(renderedObjects(rt.pkg)).toEqual(renderedObjects(files));
    const phase = rt.sources.get('phase-deploy.ts')!;
    expect(phase).toContain("enabled: templateText('{{ .config.enabled }}')");
    expect(phase).toContain("name: '{{ .config.cmName }}'");
  });

  it('types every object: built-in and OpenShift kinds from pkogen/k8s, custom resources from the package CRDs', async () => {
    const rt = await kickstartAndGenerate([{ name: 'widgets', files: pkg(), isDirectory: true }], path.join(tmp.dir, 'typed'));
    const phase = rt.sources.get('phase-deploy.ts')!;
    expect(phase).toContain('import type * as k8s from "pkogen/k8s";');
    expect(phase).toContain('import type * as exampleV1Types from "./imports/example.com_v1.js";');
    expect(phase).toMatch(/} satisfies k8s\.Deployment,/);
    expect(phase).toMatch(/} satisfies exampleV1Types\.Widget,/);
    expect(phase).toMatch(/} satisfies k8s\.routeV1\.Route,/);
    expect(rt.sources.get('phase-crds.ts')).toMatch(/} satisfies k8s\.CustomResourceDefinition,/);
    expect([...rt.sources.keys()]).toContain('imports/example.com_v1.ts');
  });

  it.each([
    ['a misspelt container field', 'containers: [', 'containres: [', "'containres' does not exist"],
    ['a wrong type in a Deployment', 'replicas: 1,', "replicas: 'one',", "Type 'string' is not assignable to type 'number'"],
    ['a misspelt field of the package\'s own custom resource', 'size: 3,', 'sizee: 3,', "'sizee' does not exist"],
    ['a misspelt field of an OpenShift kind', 'to: {', 'too: {', "'too' does not exist"],
  ])('%s is a tsc error at its line', async (_what, from, to, message) => {
    const rt = await kickstartAndGenerate([{ name: 'widgets', files: pkg(), isDirectory: true }], path.join(tmp.dir, `edit-${to.replace(/\W/g, '')}`));
    const sources = new Map(rt.sources);
    const phase = sources.get('phase-deploy.ts')!;
    expect(phase).toContain(from);
    const edited = phase.replace(from, to);
    sources.set('phase-deploy.ts', edited);
    const errors = typeErrors(path.join(tmp.dir, `tsc-${to.replace(/\W/g, '')}`), sources);
    expect(errors).toEqual([expect.stringContaining(`phase-deploy.ts:${lineOf(edited, to)}: `)]);
    expect(errors[0]).toContain(message);
  });

  it('writes an object the types refuse but PKO accepts without its type, with a located warning, and it compiles', async () => {
    // A quoted number where the Deployment wants one: PKO renders it (validate flags it), the types do not take it.
    const files = pkg({ 'deploy.yaml.gotmpl': DEPLOY.replace('replicas: 1', 'replicas: "1"') });
    const rt = await kickstartAndGenerate([{ name: 'widgets', files, isDirectory: true }], path.join(tmp.dir, 'untyped'));
    expect(rt.untypedWarnings).toEqual([expect.stringMatching(/^phase-deploy\.ts:\d+: Deployment widgets: written without its type \(k8s\.Deployment\): Type 'string' is not assignable to type 'number'; the original has it/)]);
    const phase = rt.sources.get('phase-deploy.ts')!;
    expect(phase).not.toMatch(/satisfies k8s\.Deployment/);
    expect(phase).toMatch(/satisfies exampleV1Types\.Widget/);
    expect(typeErrors(path.join(tmp.dir, 'untyped-tsc'), rt.sources)).toEqual([]);
  });
});

describe('the init scaffold is typed', () => {
  const scaffold = async (o: { hypershift: boolean; scope: 'Namespaced' | 'Cluster' }): Promise<Map<string, string>> => {
    const templates = await readDirToFileMap(path.join(ROOT, 'templates', 'init'), { skipDotFiles: false });
    const out = renderScaffold(templates, { name: 'demo', scope: o.scope, hypershift: o.hypershift, imageIn: 'config', image: placeholderImage('demo'), pkogenSpec: '^0.1.0' });
    return new Map([['resources/resources.ts', toText(out.get('resources/resources.ts')!)]]);
  };

  it.each([
    ['HyperShift', { hypershift: true, scope: 'Namespaced' as const }],
    ['classic, cluster-scoped', { hypershift: false, scope: 'Cluster' as const }],
  ])('%s: compiles, and a misspelt container field beside the image is a tsc error at its line', async (name, o) => {
    const files = await scaffold(o);
    const dir = path.join(tmp.dir, `init-${name.replace(/\W/g, '')}`);
    expect(typeErrors(dir, files)).toEqual([]);
    const text = files.get('resources/resources.ts')!;
    const edited = text.replace("name: 'main',", "name: 'main',\n              imagePullPolicyy: 'Always',");
    expect(edited).not.toBe(text);
    const errors = typeErrors(`${dir}-edited`, new Map([['resources/resources.ts', edited]]));
    expect(errors).toEqual([expect.stringContaining(`resources/resources.ts:${lineOf(edited, 'imagePullPolicyy')}: `)]);
    expect(errors[0]).toContain("'imagePullPolicyy' does not exist");
  });
});

describe('kickstart of a package with spec.dependencies and spec.repositories', () => {
  const D = 'sha256:' + 'b'.repeat(64);
  const files = (): FileMap =>
    new Map(
      Object.entries({
        'manifest.yaml': `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: withdeps
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  repositories:
  - image: quay.io/example/repo:v1
  dependencies:
  - image:
      name: dep
      package: dep-pkg
      range: ">=1.0.0"
test:
  template:
  - name: default
    context:
      package:
        metadata: {name: withdeps, namespace: withdeps}
`,
        'manifest.lock.yaml': `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifestLock
metadata:
  creationTimestamp: "2026-01-01T00:00:00Z"
spec:
  dependencies:
  - name: dep
    image: quay.io/example/dep-pkg@${D}
    digest: ${D}
    version: 1.0.0
`,
        'cm.yaml.gotmpl': `apiVersion: v1
kind: ConfigMap
metadata:
  name: cm
  annotations:
    package-operator.run/phase: deploy
data:
  dep: "{{ index .dependencies "dep" }}"
`,
      }).map(([p, t]) => [p, toBytes(t)]),
    );

  it('carries them into the manifest (and the lock file as it is), and renders the same objects', async () => {
    const src = files();
    const rt = await kickstartAndGenerate([{ name: 'withdeps', files: src, isDirectory: true }], path.join(tmp.dir, 'deps'));
    expect(rt.result.definition.dependencies).toEqual([{ image: { name: 'dep', package: 'dep-pkg', range: '>=1.0.0' } }]);
    expect(rt.result.definition.repositories).toEqual([{ image: 'quay.io/example/repo:v1' }]);
    const manifest = toText(rt.pkg.get('manifest.yaml')!);
    expect(manifest).toMatch(/repositories:\n +- image: quay\.io\/example\/repo:v1\n/);
    expect(manifest).toMatch(/dependencies:\n +- image:\n +name: dep\n +package: dep-pkg\n +range: ">=1\.0\.0"\n/);
    expect(rt.pkg.get('manifest.lock.yaml')).toEqual(src.get('manifest.lock.yaml'));
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(renderedObjects(rt.pkg)).toEqual(renderedObjects(src));
    expect(typeErrors(path.join(tmp.dir, 'deps-tsc'), rt.sources)).toEqual([]);
  });
});
