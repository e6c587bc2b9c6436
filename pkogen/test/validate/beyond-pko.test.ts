import { readDirToFileMap } from '../../src/core/fs.js';
import { toBytes, toText, type FileMap } from '../../src/core/filemap.js';
import type { Finding } from '../../src/core/errors.js';
import { validatePackage } from '../../src/pko/validate.js';
import { conditionMapProblems } from '../../src/pko/checks/annotation-values.js';
import { secretKindOf } from '../../src/pko/checks/secret-material.js';

const NGINX = '../../shared/reference/pko-packages/nginx';

/** nginx (Namespaced-only, static objects) with one broken object per rule, each in its own file. */
async function broken(): Promise<FileMap> {
  const fm = await readDirToFileMap(NGINX);
  const manifest = toText(fm.get('manifest.yaml')!)
    .replace('  phases:\n  - name: deploy\n', '  phases:\n  - name: deploy\n  - name: hc\n    class: hosted-cluster\n  - name: later\n    class: hosted-clustr\n  phase:\n  - name: typo\n');
  fm.set('manifest.yaml', toBytes(manifest));
  const meta = (name: string, extra = '') => `metadata:\n  name: ${name}\n  annotations:\n    package-operator.run/phase: deploy\n${extra}`;
  fm.set('ns.yaml', toBytes(`apiVersion: v1\nkind: Namespace\n${meta('other')}`));
  fm.set('foreign.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\n${meta('f')}  namespace: kube-system\n`));
  fm.set('collision.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\n${meta('c')}    package-operator.run/collision-protection: Always\n`));
  fm.set('condmap.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\n${meta('m')}    package-operator.run/condition-map: |\n      Available => Ready\n`));
  fm.set('webhook.yaml', toBytes('apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: w\n  annotations:\n    package-operator.run/phase: hc\nwebhooks: []\n'));
  fm.set('pod.yaml', toBytes(`apiVersion: apps/v1\nkind: DaemonSet\n${meta('d')}spec:\n  template:\n    spec:\n      hostNetwork: true\n      containers:\n      - name: c\n        image: quay.io/x/y:latest\n        securityContext:\n          privileged: true\n        env:\n        - name: DB_PASSWORD\n          value: hunter2hunter2\n`));
  fm.set('rbac.yaml', toBytes(`apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\n${meta('r')}rules:\n- apiGroups: [""]\n  resources: ["*"]\n  verbs: [get, escalate]\n`));
  fm.set('secret-cm.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\n${meta('s')}data:\n  key.pem: |\n    -----BEGIN RSA PRIVATE KEY-----\n    MIIEabc\n    -----END RSA PRIVATE KEY-----\n`));
  fm.set('dupkey.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\n${meta('k')}data:\n  a: "1"\n  a: "2"\n`));
  fm.set('secret.yaml', toBytes(`apiVersion: v1\nkind: Secret\n${meta('sec')}stringData:\n  token: abc123secretvalue\n`));
  fm.set('typo.yaml', toBytes(`apiVersion: v1\nkind: Service\n${meta('t')}spec:\n  selector:\n    app: x\n  prots:\n  - port: 80\n`));
  fm.set('widget.yaml', toBytes(`apiVersion: example.com/v1\nkind: Widget\n${meta('w')}`));
  return fm;
}

function find(fs: Finding[], rule: string, file: string): Finding {
  const f = fs.find((x) => x.rule === rule && x.file === file);
  if (!f) throw new Error(`no ${rule} finding in ${file}; got:\n${fs.map((x) => `${x.rule} ${x.file}`).join('\n')}`);
  return f;
}

describe('checks beyond PKO, each located', () => {
  let fs: Finding[];
  beforeAll(async () => {
    fs = await validatePackage(await broken());
  });

  test('PKO itself accepts the broken copy (all of these pass kubectl package validate)', () => {
    expect(fs.filter((f) => f.rule.startsWith('pko/'))).toEqual([]);
  });
  test('cluster-scoped object in a Namespaced package', () => {
    expect(find(fs, 'scope/cluster-scoped-in-namespaced-package', 'ns.yaml')).toMatchObject({ severity: 'error', doc: 0, path: 'kind', line: 2 });
  });
  test('object pinned to another namespace', () => {
    expect(find(fs, 'scope/fixed-namespace', 'foreign.yaml')).toMatchObject({ severity: 'warning', path: 'metadata.namespace', line: 7 });
  });
  test('collision-protection value', () => {
    const f = find(fs, 'collision-protection', 'collision.yaml');
    expect(f).toMatchObject({ severity: 'error', path: 'metadata.annotations["package-operator.run/collision-protection"]', line: 7 });
    expect(f.message).toContain('Prevent, IfNoController, None');
  });
  test('condition-map destination without prefix', () => {
    expect(find(fs, 'condition-map', 'condmap.yaml')).toMatchObject({ severity: 'error', line: 7 });
  });
  test('misspelt manifest key and unknown phase class', () => {
    expect(find(fs, 'manifest/unknown-key', 'manifest.yaml')).toMatchObject({ severity: 'warning', path: 'spec.phase', line: 14 });
    expect(find(fs, 'manifest/phase-class', 'manifest.yaml')).toMatchObject({ severity: 'warning', path: 'spec.phases[2].class', line: 13 });
  });
  test('hosted-cluster webhook without a gated backend', () => {
    expect(find(fs, 'hosted-cluster/webhook-ungated', 'webhook.yaml')).toMatchObject({ severity: 'warning', path: 'webhooks', line: 7 });
  });
  test('pod security, image pinning and env secret', () => {
    expect(find(fs, 'pod-security/host-namespaces', 'pod.yaml')).toMatchObject({ severity: 'warning', path: 'spec.template.spec.hostNetwork', line: 10 });
    expect(find(fs, 'pod-security/privileged', 'pod.yaml')).toMatchObject({ path: 'spec.template.spec.containers[0].securityContext.privileged', line: 15 });
    expect(find(fs, 'image/not-pinned', 'pod.yaml')).toMatchObject({ severity: 'warning', line: 13 });
    const s = find(fs, 'secret/literal', 'pod.yaml');
    expect(s).toMatchObject({ severity: 'warning', path: 'spec.template.spec.containers[0].env[0].value', line: 18 });
    expect(s.message).not.toContain('hunter2');
  });
  test('RBAC wildcard and escalation verb', () => {
    expect(find(fs, 'rbac/wildcard', 'rbac.yaml')).toMatchObject({ path: 'rules[0].resources', line: 9 });
    expect(find(fs, 'rbac/escalation-verb', 'rbac.yaml')).toMatchObject({ path: 'rules[0].verbs', line: 10 });
  });
  test('private key in a ConfigMap, value never echoed', () => {
    const f = find(fs, 'secret/literal', 'secret-cm.yaml');
    expect(f).toMatchObject({ path: 'data["key.pem"]', line: 8 });
    expect(JSON.stringify(fs)).not.toContain('MIIEabc');
  });
  test('strict schema: unknown field is an error at its line, unknown kind a warning', () => {
    const f = find(fs, 'schema/additionalProperties', 'typo.yaml');
    expect(f).toMatchObject({ severity: 'error', path: 'spec.prots', line: 10 });
    expect(f.message).toContain('prots');
    expect(find(fs, 'schema/unknown-kind', 'widget.yaml')).toMatchObject({ severity: 'warning', path: 'kind', line: 2 });
  });
  test('a Secret with values in the package is a warning, value not shown', () => {
    const f = find(fs, 'secret/in-package', 'secret.yaml');
    expect(f).toMatchObject({ severity: 'warning', path: 'stringData.token', line: 8 });
    expect(JSON.stringify(fs)).not.toContain('abc123secretvalue');
  });
  test('an env var named like a credential that holds the path where one is mounted is no finding; a literal beside it is', async () => {
    const fm = await broken();
    fm.set('pod.yaml', toBytes(`apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  template:\n    spec:\n      containers:\n      - name: c\n        env:\n        - name: AWS_WEB_IDENTITY_TOKEN_FILE\n          value: /var/run/secrets/openshift/serviceaccount/token\n        - name: API_TOKEN\n          value: abcdefgh12345678\n`));
    const out = (await validatePackage(fm)).filter((f) => f.rule === 'secret/literal' && f.file === 'pod.yaml');
    expect(out.map((f) => f.path)).toEqual(['spec.template.spec.containers[0].env[1].value']);
  });
  test('duplicate key', () => {
    expect(find(fs, 'yaml/duplicate-key', 'dupkey.yaml')).toMatchObject({ severity: 'warning', line: 9 });
  });
  test('the same document in two files: each its own findings at its own lines; a different object of the kind its own', async () => {
    const fm = await broken();
    const dep = (name: string, typo: boolean) =>
      `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  ${typo ? 'replicaz' : 'replicas'}: 1\n  selector: {}\n  selector: {}\n`;
    fm.set('same-a.yaml', toBytes(dep('same', true)));
    fm.set('same-b.yaml', toBytes(`apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    package-operator.run/phase: deploy\n---\n${dep('same', true)}`));
    fm.set('same-c.yaml', toBytes(dep('same', false)));
    const out = (await validatePackage(fm)).filter((f) => f.file?.startsWith('same-'));
    const at = (rule: string) => out.filter((f) => f.rule === rule).map((f) => `${f.file}:${f.line}`).sort();
    expect(at('schema/additionalProperties')).toEqual(['same-a.yaml:8', 'same-b.yaml:15']);
    expect(at('yaml/duplicate-key')).toEqual(['same-a.yaml:10', 'same-b.yaml:17', 'same-c.yaml:10']);
  });
  test('a gated backend silences the webhook warning', async () => {
    const fm = await broken();
    fm.set('backend.yaml', toBytes('apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: b\n  annotations:\n    package-operator.run/phase: deploy\n'));
    const out = await validatePackage(fm);
    expect(out.some((f) => f.rule === 'hosted-cluster/webhook-ungated')).toBe(false);
  });
});

describe('rule helpers', () => {
  test.each([
    ['Available => my.domain/Ready', []],
    ['Available => Ready', ['line 1: destinationType "Ready" must be a prefixed condition type like "my.domain/Ready"']],
    ['Available', ['line 1: expected 2 part mapping got 1']],
    [' => a.b/C', ["line 1: sourceType can't be empty"]],
  ] as [string, string[]][])('condition-map %j', (v, want) => expect(conditionMapProblems(v)).toEqual(want));
  test.each([
    ['-----BEGIN PRIVATE KEY-----', 'a PEM private key'],
    ['AKIAABCDEFGHIJKLMNOP', 'an AWS access key id'],
    ['password: s3cr3tv4lue', 'a password assignment'],
    ['password: {{ .config.pw }}', undefined],
    ['just text', undefined],
    // every pattern, behind the literal each match needs (case-insensitive where the pattern is)
    ['-----BEGIN RSA PRIVATE KEY-----\nMIIE', 'a PEM private key'],
    ['x ASIAABCDEFGHIJKLMNOP y', 'an AWS access key id'],
    ['ghp_' + 'a'.repeat(36), 'a GitHub token'],
    ['xoxb-1234567890-abc', 'a Slack token'],
    ['eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.c2lnbmF0dXJlXzEy', 'a JSON Web Token'],
    ['{"auths":{"quay.io":{"auth":"dXNlcjpwYXNzd29yZA=="}}}', 'a pull secret (auths with credentials)'],
    ['PassWord=hunter2hunter2', 'a password assignment'],
    ['Client-Secret: abcdefgh12', 'a password assignment'],
    ['API_KEY = 0123456789abcdef', 'a password assignment'],
    ['TOKEN: zzzzzzzzzz', 'a password assignment'],
    ['the token is short', undefined],
    ['ghost_town and ASIA and eyJ alone', undefined],
  ] as [string, string | undefined][])('secret kind of %j', (v, want) => expect(secretKindOf(v)).toBe(want));
});
