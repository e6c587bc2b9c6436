/** `pkogen diff` between two commits of our own package: every verdict class. */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { OUR_PACKAGE, tempDir } from '../helpers.js';
import { diffRenders, formatDiffText } from '../../src/status/diff.js';
import type { RenderResult } from '../../src/pko/render.js';
import type { PackageManifest } from '../../src/pko/types.js';

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: { HOME: '/nonexistent' }, cwd };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('pkogen diff', () => {
  const tmp = tempDir('pkogen-diff-');
  const repo = tmp.dir;
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.email=t@example.com', '-c', 'user.name=t', '-c', 'commit.gpgsign=false', ...a], { cwd: repo, stdio: 'pipe' });
  const edit = (f: string, from: string | RegExp, to: string) => {
    const p = path.join(repo, 'package', f);
    const before = readFileSync(p, 'utf8');
    const after = before.replace(from, to);
    expect(after).not.toBe(before);
    writeFileSync(p, after);
  };

  beforeAll(() => {
    cpSync(OUR_PACKAGE, path.join(repo, 'package'), { recursive: true });
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'one');
    // Every kind of change a rollout can carry:
    rmSync(path.join(repo, 'package', 'deploy', 'on-cluster-build-webhook.PodDisruptionBudget.yaml'));
    edit('rbac/on-cluster-build-webhook.ServiceAccount.yaml', 'package-operator.run/phase: rbac', 'package-operator.run/phase: deploy');
    edit('deploy/on-cluster-build-webhook.Deployment.yaml.gotmpl', /matchLabels:\n(\s+)app: on-cluster-build-webhook\n/, 'matchLabels:\n$1app: on-cluster-build-webhook\n$1tier: webhook\n');
    edit('deploy/on-cluster-build-webhook.Deployment.yaml.gotmpl', "image: '{{ .config.image }}'", "image: 'quay.io/example/webhook@sha256:{{ repeat 64 \"a\" }}'");
    edit('manifest.yaml', /required:\n(\s+)- image\n/, 'required:\n$1- image\n$1- region\n');
    edit('manifest.yaml', /properties:\n(\s+)buildActiveDeadlineSeconds:/, 'properties:\n$1region:\n$1  type: string\n$1buildActiveDeadlineSeconds:');
    edit('rbac/on-cluster-build-controller.Role.yaml', /verbs:/, 'verbs:\n      - deletecollection');
    git('add', '-A');
    git('commit', '-qm', 'two');
  });
  afterAll(() => tmp.cleanup());

  it('shows each verdict class with the fields that change per object; exit 1', async () => {
    const r = await run(['diff', 'git:HEAD~1', 'git:HEAD'], repo);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('changed ServiceAccount on-cluster-build-webhook\n  phase-changed: phase "rbac" → "deploy": the object is applied (and waited for) at another point of the rollout\n  ~ metadata.annotations.package-operator.run/phase: "rbac" → "deploy"\n');
    expect(r.stdout).toContain('  + spec.selector.matchLabels.tier: "webhook"\n');
    expect(r.stdout).toMatch(/ {2}~ spec\.template\.spec\.containers\[name=webhook\]\.image: "\S+" → "quay\.io\/example\/webhook@sha256:a{64}"\n/);
    // An inserted list element is one addition, not a shifted list.
    expect(r.stdout).toMatch(/changed rbac\.authorization\.k8s\.io\/Role \S+\n {2}changed: updated in place\n {2}\+ rules\[0\]\.verbs\[0\]: "deletecollection"\n\n/);
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^\d+ object\(s\) differ: 0 added, \d+ removed, \d+ changed(, in \d+ of \d+ test cases)?(; \d+ package change\(s\))?$/);
  });

  it('--text: a unified diff of the rendered text per object (the old output); exit 1', async () => {
    const r = await run(['diff', 'git:HEAD~1', 'git:HEAD', '--text'], repo);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('package: required-config: config key region is newly required and has no default: every existing Package without it becomes Invalid\n');
    expect(r.stdout).toContain('removed policy/PodDisruptionBudget on-cluster-build-webhook\n  removed: object removed from phase "deploy": PKO deletes it from the cluster\n--- OLD/policy/PodDisruptionBudget/');
    expect(r.stdout).toContain('changed ServiceAccount ');
    expect(r.stdout).toContain('  phase-changed: phase "rbac" → "deploy"');
    expect(r.stdout).toContain('  immutable-field: spec.selector is immutable: the update will be refused and the rollout will fail\n');
    expect(r.stdout).toMatch(/ {2}images-changed: spec\.template\.spec\.containers\[0\]\.image \S+ → quay\.io\/example\/webhook@sha256:a{64}\n/);
    expect(r.stdout).toMatch(/changed rbac\.authorization\.k8s\.io\/Role \S+\n {2}changed: updated in place\n--- OLD\/rbac\.authorization\.k8s\.io\/Role\/\S+\n\+\+\+ NEW\/[^\n]+\n@@ [^\n]+ @@\n/);
    expect(r.stdout).toContain('+      - deletecollection\n');
    expect(r.stdout.trimEnd().split('\n').pop()).toMatch(/^\d+ object\(s\) differ: 0 added, \d+ removed, \d+ changed(, in \d+ of \d+ test cases)?(; \d+ package change\(s\))?$/);
  });

  it('JSON names the classes; a directory side and the same commit give no difference (exit 0)', async () => {
    const j = await run(['diff', 'git:HEAD~1:package', path.join(repo, 'package'), '-o', 'json'], repo);
    expect(j.code).toBe(1);
    const d = JSON.parse(j.stdout);
    const classes = new Set([...d.package, ...d.objects.flatMap((o: { verdicts: unknown[] }) => o.verdicts)].map((v: { class: string }) => v.class));
    expect([...classes].sort()).toEqual(['changed', 'images-changed', 'immutable-field', 'phase-changed', 'removed', 'required-config']);
    const same = await run(['diff', 'git:HEAD', 'package'], repo);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^no difference in rendered objects( \(\d+ test cases\))?\n$/);
  });

  it('bad sides are clear errors', async () => {
    const r = await run(['diff', 'git:nope', 'package'], repo);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: git:nope:package: /);
    const r2 = await run(['diff', 'missing-dir', 'package'], repo);
    expect(r2.stderr).toBe('error: missing-dir: no such directory, and not an image reference, git:REF[:PATH] or live:NS/NAME\n');
    const r3 = await run(['diff', 'package'], repo);
    expect(r3.code).toBe(2);
    const r4 = await run(['diff', 'package', 'package', '--test-case', 'nope'], repo);
    expect(r4.stderr).toMatch(/^error: manifest\.yaml: package: no test case "nope" in test\.template\n$/);
  });
});

describe('diff compares objects, not text', () => {
  const pkgFiles = (cm: string) => ({
    'manifest.yaml': 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: p\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        level: {type: string}\ntest:\n  template:\n  - name: default\n    context:\n      package: {metadata: {name: p, namespace: ns}}\n      config: {level: info}\n',
    'cm.yaml.gotmpl': cm,
  });
  const tmp = tempDir('pkogen-diff-sem-');
  afterAll(() => tmp.cleanup());
  const write = (name: string, files: Record<string, string>) => {
    const d = path.join(tmp.dir, name);
    mkdirSync(d);
    for (const [f, t] of Object.entries(files)) writeFileSync(path.join(d, f), t);
    return d;
  };
  const A = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  level: {{ .config.level }}\n  replicas: "3"\n';
  // Same object: other key order, quoting and indentation, and a defaulted null.
  const B = 'kind: ConfigMap\napiVersion: "v1"\nmetadata:\n    creationTimestamp: null\n    annotations: {"package-operator.run/phase": deploy}\n    name: \'cm\'\ndata: {replicas: \'3\', level: "{{ .config.level }}"}\n';

  it('key order, scalar style, indentation and creationTimestamp: null are no change; --text still sees them', async () => {
    const [a, b] = [write('a', pkgFiles(A)), write('b', pkgFiles(B))];
    const r = await run(['diff', a, b], tmp.dir);
    expect(r).toEqual({ code: 0, stdout: 'no difference in rendered objects\n', stderr: '' });
    const t = await run(['diff', a, b, '--text'], tmp.dir);
    expect(t.code).toBe(1);
    expect(t.stdout).toContain('--- OLD/ConfigMap/cm\n');
  });

  it('both sides render with NEW\'s test case context: a changed test-case config is no change of the package', async () => {
    const a = write('c', pkgFiles(A));
    const files = pkgFiles(A);
    const b = write('d', { ...files, 'manifest.yaml': files['manifest.yaml'].replace('config: {level: info}', 'config: {level: debug}') });
    expect(await run(['diff', a, b], tmp.dir)).toEqual({ code: 0, stdout: 'no difference in rendered objects\n', stderr: '' });
  });
});

describe('diff per test case', () => {
  const tmp = tempDir('pkogen-diff-cases-');
  afterAll(() => tmp.cleanup());
  const manifest = (cases: string) =>
    `apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: p\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        mode: {type: string}\ntest:\n  template:\n${cases}`;
  const tc = (name: string, mode: string) => `  - name: ${name}\n    context:\n      package: {metadata: {name: p, namespace: ns}}\n      config: {mode: ${mode}}\n`;
  const write = (name: string, files: Record<string, string>) => {
    const d = path.join(tmp.dir, name);
    mkdirSync(d);
    for (const [f, t] of Object.entries(files)) writeFileSync(path.join(d, f), t);
    return d;
  };
  // OLD and NEW agree on "lax" and differ on "strict": only a second test case shows it.
  const OLD = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations: {package-operator.run/phase: deploy}\ndata:\n  strict: {{ if eq .config.mode "strict" }}"yes"{{ else }}"no"{{ end }}\n';
  const NEW = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations: {package-operator.run/phase: deploy}\ndata:\n  strict: "no"\n';

  it('renders every test case of NEW on both sides and names the case that differs', async () => {
    const a = write('old', { 'manifest.yaml': manifest(tc('lax', 'lax') + tc('strict', 'strict')), 'cm.yaml.gotmpl': OLD });
    const b = write('new', { 'manifest.yaml': manifest(tc('lax', 'lax') + tc('strict', 'strict')), 'cm.yaml.gotmpl': NEW });
    const r = await run(['diff', a, b], tmp.dir);
    expect(r).toEqual({
      code: 1,
      stderr: '',
      stdout: 'test case "lax": no difference\ntest case "strict":\nchanged ConfigMap cm\n  changed: updated in place\n  ~ data.strict: "yes" → "no"\n\n1 object(s) differ: 0 added, 0 removed, 1 changed, in 1 of 2 test cases\n',
    });
    const j = JSON.parse((await run(['diff', a, b, '-o', 'json'], tmp.dir)).stdout);
    expect(j.result?.testCases ?? j.testCases).toEqual(['lax', 'strict']);
    const only = await run(['diff', a, b, '--test-case', 'lax'], tmp.dir);
    expect(only).toEqual({ code: 0, stdout: 'no difference in rendered objects\n', stderr: '' });
    const same = await run(['diff', b, b], tmp.dir);
    expect(same).toEqual({ code: 0, stdout: 'no difference in rendered objects (2 test cases)\n', stderr: '' });
  });
});

describe('diff verdicts on single objects', () => {
  const render = (...objs: Record<string, unknown>[]) =>
    ({ objects: objs.map((object, i) => ({ path: `o${i}.yaml`, index: 0, doc: 0, line: 1, text: JSON.stringify(object, null, 2), object, phase: 'deploy' })) }) as unknown as RenderResult;
  const manifest = { metadata: { name: 'p' }, spec: { phases: [{ name: 'deploy' }], scopes: ['Namespaced'] } } as unknown as PackageManifest;

  it('never prints Secret values, but sees that they changed', () => {
    const secret = (v: string, immutable = false) => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, ...(immutable ? { immutable } : {}), stringData: { token: v } });
    const d = diffRenders(render(secret('old-secret-value', true)), render(secret('new-secret-value', true)), manifest, manifest);
    const text = formatDiffText(d);
    expect(d.objects.map((o) => o.verdicts.map((v) => v.class))).toEqual([['immutable-field']]);
    expect(text).toContain('Secret is immutable: stringData cannot change');
    expect(text).not.toMatch(/old-secret-value|new-secret-value/);
  });

  it('Service clusterIP and Job template are immutable; a new required key with a default is not a finding', () => {
    const svc = (ip: string) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc' }, spec: { clusterIP: ip } });
    const job = (cmd: string) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, spec: { template: { spec: { containers: [{ name: 'c', image: 'x', command: [cmd] }] } } } });
    const withDefault = { ...manifest, spec: { ...manifest.spec, config: { openAPIV3Schema: { type: 'object', required: ['a'], properties: { a: { type: 'string', default: 'x' } } } } } } as unknown as PackageManifest;
    const d = diffRenders(render(svc('10.0.0.1'), job('a')), render(svc('10.0.0.2'), job('b')), manifest, withDefault);
    expect(d.package).toEqual([]);
    expect(d.objects.flatMap((o) => o.verdicts.map((v) => v.message))).toEqual([
      'spec.clusterIP is immutable (10.0.0.1 → 10.0.0.2)',
      'spec.template is immutable: the update will be refused and the rollout will fail',
    ]);
  });
});

describe('pkogen diff: manifest-only changes', () => {
  const pkg = (dir: string, probes: string, required: boolean) => {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: p
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  availabilityProbes:
  - selector: {kind: {group: apps, kind: Deployment}}
    probes:
    - condition: {type: ${probes}, status: "True"}
  config:
    openAPIV3Schema:
      type: object
${required ? '      required: [level]\n' : ''}      properties:
        level: {type: string}
test:
  template:
  - name: a
    context: {package: {metadata: {name: p, namespace: a}}, config: {level: x}}
  - name: b
    context: {package: {metadata: {name: p, namespace: b}}, config: {level: x}}
`);
    writeFileSync(path.join(dir, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    package-operator.run/phase: deploy\n');
  };
  it('reports a change of availabilityProbes alone, and prints no empty per-case heading', async () => {
    const t = tempDir('pkogen-diff-manifest-');
    try {
      pkg(path.join(t.dir, 'old'), 'Available', false);
      pkg(path.join(t.dir, 'probes'), 'Ready', false);
      const probes = await run(['diff', 'old', 'probes'], t.dir);
      expect(probes.code).toBe(1);
      expect(probes.stdout).toContain('package: changed: spec.availabilityProbes changed');
      pkg(path.join(t.dir, 'required'), 'Available', true);
      const req = await run(['diff', 'old', 'required'], t.dir);
      expect(req.code).toBe(1);
      expect(req.stdout).toBe('package: required-config: config key level is newly required and has no default: every existing Package without it becomes Invalid\n\ntest case "a": no difference\ntest case "b": no difference\n0 object(s) differ: 0 added, 0 removed, 0 changed, in 0 of 2 test cases; 1 package change(s)\n');
      // No test case and a required key: the render needs a config, and the error says how to give it.
      const bare = path.join(t.dir, 'bare');
      pkg(bare, 'Available', true);
      const m = readFileSync(path.join(bare, 'manifest.yaml'), 'utf8');
      writeFileSync(path.join(bare, 'manifest.yaml'), m.slice(0, m.indexOf('test:')));
      const none = await run(['diff', 'bare', 'bare'], t.dir);
      expect(none).toMatchObject({ code: 1, stdout: '' });
      expect(none.stderr).toMatch(/^error: bare: .*spec\.config\.level: Required value \(the package has no test case to render with: give its config with --config FILE\)\n$/);
      writeFileSync(path.join(t.dir, 'cfg.yaml'), 'level: x\n');
      expect(await run(['diff', 'bare', 'bare', '--config', 'cfg.yaml'], t.dir)).toMatchObject({ code: 0, stdout: 'no difference in rendered objects\n' });
      const same = await run(['diff', 'old', 'old'], t.dir);
      expect(same).toMatchObject({ code: 0, stdout: 'no difference in rendered objects (2 test cases)\n' });
    } finally {
      t.cleanup();
    }
  });
});
