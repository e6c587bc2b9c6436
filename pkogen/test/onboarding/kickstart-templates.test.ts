/**
 * Kickstart of templated packages: minimal reproducers of what mattered in real packages
 * (managed-cluster-validating-webhooks' config/package, route-monitor-operator's deploy_pko),
 * written for this test, not copied.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { toBytes, type FileMap } from '../../src/core/filemap.js';
import { kickstart } from '../../src/kickstart/convert.js';
import { splitTemplateFile } from '../../src/kickstart/templated.js';
import { sampleValue } from '../../src/kickstart/testcase.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage } from '../../src/pko/render.js';
import { testCaseRequest } from '../../src/pko/template-tests.js';
import type { PackageManifestTestCaseTemplate } from '../../src/pko/types.js';
import { semanticObject } from '../../src/status/diff.js';
import { ROOT } from '../helpers.js';
import { kickstartAndGenerate } from './roundtrip.js';

const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: webhook
spec:
  scopes: [Namespaced]
  phases:
  - name: config
  - name: deploy
  - name: webhooks
    class: hosted-cluster
  config:
    openAPIV3Schema:
      type: object
      required: [image, replicas, mode, ca, endpoint]
      properties:
        image: {type: string, description: image}
        replicas: {type: integer, minimum: 2, description: replicas}
        mode: {type: string, enum: [strict, lax], description: mode}
        ca: {type: string, description: CA}
        endpoint: {type: string, format: uri, description: endpoint}
        debug: {type: boolean, default: false, description: debug}
`;

// One file, several documents: most convert; the one with {{ if }} over lines stays text.
const RESOURCES = `---
apiVersion: v1
kind: ConfigMap
metadata:
  annotations:
    package-operator.run/phase: config
  name: settings
data:
  mode: '{{ .config.mode }}'
  settings.yaml: |
    endpoint: {{ .config.endpoint }}
    debug: {{ .config.debug }}
status: {}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  annotations:
    package-operator.run/phase: deploy
  name: webhook-{{ .config.mode }}
  creationTimestamp: null
spec:
  replicas: {{ .config.replicas }}
  selector:
    matchLabels: {app: webhook}
  template:
    metadata:
      labels: {app: webhook}
    spec:
      automountServiceAccountToken: {{ .config.debug }}
      containers:
      - name: webhook
        image: '{{ .config.image }}'
        args:
        - --namespace={{.package.metadata.namespace}}
        - {{ .package.metadata.namespace }}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  annotations:
    package-operator.run/phase: webhooks
  name: webhook-{{ .package.metadata.namespace }}
webhooks:
- name: check.example.com
  admissionReviewVersions: [v1]
  sideEffects: None
  clientConfig:
    caBundle: '{{ .config.ca | b64enc }}'
    url: https://webhook.{{.package.metadata.namespace}}.svc/check
  rules:
{{- if eq .config.mode "strict" }}
  - apiGroups: ["*"]
    apiVersions: ["*"]
    operations: [CREATE, UPDATE]
    resources: ["*"]
{{- else }}
  - apiGroups: [""]
    apiVersions: [v1]
    operations: [CREATE]
    resources: [pods]
{{- end }}
`;

const files = (): FileMap =>
  new Map([
    ['manifest.yaml', toBytes(MANIFEST)],
    ['resources.yaml.gotmpl', toBytes(RESOURCES)],
    ['Dockerfile.pko', toBytes('FROM scratch\nADD . /package\n')],
  ]);

const tmp = { dir: '' };
beforeAll(() => (tmp.dir = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'))));
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

/** Objects rendered under one test case, as the API server would keep them (nulls dropped, keys sorted). */
function render(fm: FileMap, tc: PackageManifestTestCaseTemplate): string[] {
  const pkg = loadPackage(new Map([...fm].filter(([p]) => !p.split('/').some((s) => s.startsWith('.')))));
  return renderPackage(testCaseRequest(pkg, tc))
    .objects.map((o) => JSON.stringify(semanticObject(o.object)))
    .sort();
}

describe('kickstart of a templated package', () => {
  it('turns template documents into objects with the expressions in place, and renders the same objects', async () => {
    const rt = await kickstartAndGenerate([{ name: 'pkg', files: files(), isDirectory: true }], path.join(tmp.dir, 'templated'));
    const def = rt.result.definition;
    expect(def.objects.map((o) => `${o.phase}:${o.object.kind}`)).toEqual(['config:ConfigMap', 'deploy:Deployment']);
    // The document with {{ if }} spanning lines stays text, alone, with a located note.
    expect(Object.keys(def.files ?? {})).toEqual(['resources.templated.yaml.gotmpl']);
    expect(def.files!['resources.templated.yaml.gotmpl']).toMatch(/^apiVersion: admissionregistration/);
    expect(rt.result.warnings).toContainEqual(expect.stringMatching(/^resources\.yaml\.gotmpl:\d+: document 2 \(ValidatingWebhookConfiguration\): kept as template text: \{\{ if \}\} at line \d+$/));
    // No build file, no empty-phase warning: every declared phase is used.
    expect(rt.result.warnings.join('\n')).toMatch(/Dockerfile\.pko: not carried/);
    expect([...rt.pkg.keys()].filter((p) => /Dockerfile/.test(p))).toEqual([]);
    const ts = rt.sources.get('phase-deploy.ts')!;
    expect(ts).toContain("replicas: templateNumber('.config.replicas')");
    expect(ts).toContain("automountServiceAccountToken: templateBoolean('.config.debug')");
    expect(ts).toContain("name: 'webhook-{{ .config.mode }}'");
    expect(ts).toContain("templateText('{{ .package.metadata.namespace }}')");
    expect(ts).toContain("image: '{{ .config.image }}'");
    expect(rt.sources.get('phase-config.ts')).toContain('templateText(`|\nendpoint: {{ .config.endpoint }}');
    // A test case from the schema's required keys, satisfying it.
    expect(def.testCases).toEqual([
      {
        name: 'kickstart',
        context: {
          package: { metadata: { name: 'webhook', namespace: 'webhook' } },
          config: { image: `quay.io/example/webhook@sha256:${'0'.repeat(64)}`, replicas: 2, mode: 'strict', ca: 'example', endpoint: 'https://example.com/' },
          environment: { kubernetes: { version: 'v1.31.4' } },
        },
      },
    ]);
    expect(rt.output.findings.filter((f) => f.severity !== 'info').map((f) => f.rule)).toEqual([]);
    // Same objects as the original under that test case (the original had none: given the same context).
    const tc = def.testCases![0];
    expect(render(rt.pkg, tc)).toEqual(render(files(), tc));
    expect(render(rt.pkg, tc)).toHaveLength(3);
  });

  it('keeps a file whole when a control action spans documents or it sets variables, and says where', () => {
    const spans = splitTemplateFile('{{ range .config.names }}\n---\nkind: ConfigMap\n{{ end }}\n');
    expect(spans.whole).toEqual({ reason: 'a control action ({{ if }}, {{ range }}, {{ with }}) spans documents', line: 1 });
    const vars = splitTemplateFile('a: 1\n{{ $ns := .package.metadata.namespace }}\n---\nb: 2\n');
    expect(vars.whole).toEqual({ reason: 'the file sets a template variable its documents may use', line: 2 });
    const comment = splitTemplateFile('a: 1\n# {{ .config.x }}\n');
    expect(comment.docs[0]).toMatchObject({ kind: 'template', reason: 'an action in a comment at line 2' });
  });

  it('samples values the schema accepts and names what it cannot be sure of', () => {
    expect(sampleValue({ type: 'object', required: ['a', 'b', 'c', 'd', 'e'], properties: { a: { type: 'string', pattern: '^[0-9]+$' }, b: { type: 'integer', minimum: 5, maximum: 9 }, c: { type: 'string', format: 'date-time' }, d: { type: 'array', minItems: 1, items: { type: 'boolean' } }, e: { type: 'string', pattern: '^zz[q]{3}$' } } })).toEqual({
      value: { a: '0', b: 5, c: '2024-01-01T00:00:00Z', d: [false], e: 'example' },
      unsure: ['e'],
    });
  });

  it('a package without test cases whose template uses an optional key with no default gets a test case that renders', async () => {
    const manifest = 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: op\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        image: {type: string, default: null}\n        level: {type: string, default: info}\n        unused: {type: string}\n';
    const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: op\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  image: '{{ .config.image }}'\n  level: '{{ .config.level }}'\n";
    const src: FileMap = new Map([['manifest.yaml', toBytes(manifest)], ['cm.yaml.gotmpl', toBytes(cm)]]);
    const r = await kickstart([{ name: 'op', files: src, isDirectory: true }]);
    const tc = r.definition.testCases![0];
    expect(tc.context?.config).toEqual({ image: 'quay.io/example/op@sha256:' + '0'.repeat(64) });
    expect(render(src, tc)).toHaveLength(1);
  });

  it('never ships build files in the package it generates', async () => {
    const r = await kickstart([{ name: 'pkg', files: files(), isDirectory: true }]);
    expect(Object.keys(r.definition.files ?? {}).some((f) => /Dockerfile/.test(f))).toBe(false);
  });
});

describe('kickstart --parametrize (plain manifests, as kubectl package kickstart)', () => {
  const MANIFESTS = `apiVersion: v1
kind: Namespace
metadata: {name: demo}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: demo}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "quay.io/example/web@sha256:${'1'.repeat(64)}"}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: web}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: view}
subjects: [{kind: ServiceAccount, name: default, namespace: demo}]
`;
  const src = () => [{ name: 'all.yaml', files: new Map([['all.yaml', toBytes(MANIFESTS)]]), isDirectory: false }];

  it('turns namespaces, replicas and node selectors into config with upstream\'s keys; defaults render the input', async () => {
    const rt = await kickstartAndGenerate(src(), path.join(tmp.dir, 'param'), { name: 'web', parametrize: ['namespaces', 'replicas', 'nodeselectors'] });
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(rt.sources.get('phase-deploy.ts')).toContain(`replicas: templateNumber('index .config "deployments" "demo" "web" "replicas"')`);
    expect(rt.sources.get('phase-deploy.ts')).toContain(`nodeSelector: templateObject('index .config "deployments" "demo" "web" "nodeSelector" | toJson')`);
    const schema = rt.result.definition.config!;
    expect(Object.keys(schema.properties!)).toEqual(['namespace', 'namespaces', 'deployments']);
    const pkg = new Map([...rt.pkg].filter(([p]) => !p.startsWith('.')));
    const tc = (config: Record<string, unknown>): PackageManifestTestCaseTemplate => ({ name: 't', context: { package: { metadata: { name: 'web', namespace: 'web' } }, config, environment: {} } });
    const objs = (config: Record<string, unknown>) => Object.fromEntries(render(pkg, tc(config)).map((j) => JSON.parse(j)).map((o) => [o.kind, o]));
    const plain = objs({});
    expect(plain.Namespace.metadata.name).toBe('demo');
    expect(plain.Deployment.metadata.namespace).toBe('demo');
    expect(plain.Deployment.spec.replicas).toBe(3);
    expect(plain.ClusterRoleBinding.subjects[0].namespace).toBe('demo');
    const moved = objs({ namespace: 'other', deployments: { demo: { web: { replicas: 5, nodeSelector: { disk: 'ssd' } } } } });
    expect([moved.Namespace.metadata.name, moved.Deployment.metadata.namespace, moved.ClusterRoleBinding.subjects[0].namespace]).toEqual(['other', 'other', 'other']);
    expect(moved.Deployment.spec.replicas).toBe(5);
    expect(moved.Deployment.spec.template.spec.nodeSelector).toEqual({ disk: 'ssd' });
  });

  const WITH_LISTS = `apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: demo}
spec:
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      tolerations: [{key: infra, operator: Exists, effect: NoSchedule}]
      containers:
        - name: api
          image: "quay.io/example/api@sha256:${'2'.repeat(64)}"
          env: [{name: MODE, value: "prod"}]
          resources: {requests: {cpu: 100m, memory: 64Mi}}
        - name: side
          image: "quay.io/example/side@sha256:${'3'.repeat(64)}"
`;
  const listSrc = () => [{ name: 'api.yaml', files: new Map([['api.yaml', toBytes(WITH_LISTS)]]), isDirectory: false }];
  const deploymentOf = (rt: Awaited<ReturnType<typeof kickstartAndGenerate>>, config: Record<string, unknown>) => {
    const pkg = new Map([...rt.pkg].filter(([p]) => !p.startsWith('.')));
    const tc: PackageManifestTestCaseTemplate = { name: 't', context: { package: { metadata: { name: 'api', namespace: 'api' } }, config, environment: {} } };
    return render(pkg, tc).map((j) => JSON.parse(j)).find((o) => o.kind === 'Deployment');
  };

  it('tolerations: the input\'s list, then config.deployments.NS.NAME.tolerations appended (upstream\'s MergeBlock)', async () => {
    const rt = await kickstartAndGenerate(listSrc(), path.join(tmp.dir, 'param-tol'), { name: 'api', parametrize: ['tolerations'] });
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(rt.sources.get('phase-deploy.ts')).toContain(`tolerations: templateObject('concat (fromJson "[{`);
    expect(rt.sources.get('phase-deploy.ts')).toContain(`(index .config "deployments" "demo" "api" "tolerations") | toJson')`);
    const tol = rt.result.definition.config!.properties!.deployments.properties!.demo.properties!.api.properties!.tolerations;
    expect(tol).toMatchObject({ type: 'array', default: [], items: { type: 'object', properties: { tolerationSeconds: { type: 'integer', format: 'int64' } } } });
    const input = [{ key: 'infra', operator: 'Exists', effect: 'NoSchedule' }];
    expect(deploymentOf(rt, {}).spec.template.spec.tolerations).toEqual(input);
    const extra = { key: 'gpu', operator: 'Equal', value: 'yes', effect: 'NoExecute' };
    expect(deploymentOf(rt, { deployments: { demo: { api: { tolerations: [extra] } } } }).spec.template.spec.tolerations).toEqual([...input, extra]);
  });

  it('resources: each container\'s resources from config.deployments.NS.NAME.containers.C.resources, default the input\'s', async () => {
    const rt = await kickstartAndGenerate(listSrc(), path.join(tmp.dir, 'param-res'), { name: 'api', parametrize: ['resources'] });
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    expect(rt.sources.get('phase-deploy.ts')).toContain(`resources: templateObject('index .config "deployments" "demo" "api" "containers" "api" "resources" | toJson')`);
    const containers = rt.result.definition.config!.properties!.deployments.properties!.demo.properties!.api.properties!.containers.properties!;
    expect(containers.api.properties!.resources.default).toEqual({ requests: { cpu: '100m', memory: '64Mi' } });
    expect(containers.side.properties!.resources.default).toEqual({});
    expect(containers.api.properties!.resources.properties!.limits.additionalProperties).toMatchObject({ 'x-kubernetes-int-or-string': true });
    const plain = deploymentOf(rt, {}).spec.template.spec.containers;
    expect(plain.map((c: { resources: unknown }) => c.resources)).toEqual([{ requests: { cpu: '100m', memory: '64Mi' } }, {}]);
    const set = deploymentOf(rt, { deployments: { demo: { api: { containers: { side: { resources: { limits: { memory: '1Gi' } } } } } } } }).spec.template.spec.containers;
    expect(set[1].resources).toEqual({ limits: { memory: '1Gi' } });
    expect(set[0].resources).toEqual({ requests: { cpu: '100m', memory: '64Mi' } });
  });

  it('env: each container\'s env, then config.deployments.NS.NAME.containers.C.env appended', async () => {
    const rt = await kickstartAndGenerate(listSrc(), path.join(tmp.dir, 'param-env'), { name: 'api', parametrize: ['env'] });
    expect(rt.output.findings.filter((f) => f.severity === 'error')).toEqual([]);
    const env = rt.result.definition.config!.properties!.deployments.properties!.demo.properties!.api.properties!.containers.properties!.api.properties!.env;
    expect(env).toMatchObject({ type: 'array', default: [], items: { properties: { valueFrom: { properties: { secretKeyRef: { required: ['key'] } } } } } });
    expect(deploymentOf(rt, {}).spec.template.spec.containers.map((c: { env: unknown }) => c.env)).toEqual([[{ name: 'MODE', value: 'prod' }], []]);
    const set = deploymentOf(rt, { deployments: { demo: { api: { containers: { api: { env: [{ name: 'DEBUG', value: '1' }] } } } } } }).spec.template.spec.containers;
    expect(set[0].env).toEqual([{ name: 'MODE', value: 'prod' }, { name: 'DEBUG', value: '1' }]);
  });

  it('refuses what it does not do yet, and a PKO package directory', async () => {
    const { runCli } = await import('../helpers.js');
    expect(await runCli(['kickstart', 'x.yaml', '-p', 'images'])).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/--parametrize images is not supported yet \(supported: namespaces, replicas, nodeselectors, tolerations, resources, env\)/) });
    expect(await runCli(['kickstart', 'x.yaml', '-p', 'all'])).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/--parametrize all is not supported yet/) });
    expect(await runCli(['kickstart', 'x.yaml', '-p', 'replicaz'])).toEqual({ code: 2, stdout: '', stderr: expect.stringMatching(/--parametrize takes namespaces, replicas, /) });
    await expect(kickstart([{ name: 'pkg', files: files(), isDirectory: true }], { parametrize: ['replicas'] })).rejects.toThrow(/--parametrize applies to plain manifests/);
  });
});
