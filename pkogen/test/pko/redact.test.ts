import { Ajv } from 'ajv';
import { readDirToFileMap } from '../../src/core/fs.js';
import { fileMap, toBytes, toText } from '../../src/core/filemap.js';
import { formatFinding } from '../../src/core/errors.js';
import { renderAjvErrors } from '../../src/schema/errors.js';
import { validatePackage } from '../../src/pko/validate.js';
import { validateConfig } from '../../src/pko/config-admission.js';
import { aggregateText } from '../../src/pko/field-errors.js';
import { renderPackage } from '../../src/pko/render.js';
import { toUserError } from '../../src/pko/render-errors.js';
import { runTemplateTests } from '../../src/pko/template-tests.js';
import { configValuesOf, looksSecretPath, redactDiff, redactFor } from '../../src/pko/redact.js';
import { lintRolloutTemplate } from '../../src/rollout/lint.js';
import type { PackageManifest } from '../../src/pko/types.js';
import { mutate, SKELETON } from '../rollout/helpers.js';

const NGINX = '../../shared/reference/pko-packages/nginx';
const SECRET = 'hunter2-Sup3r-s3cret!';
const meta = (name: string) => `metadata:\n  name: ${name}\n  annotations:\n    package-operator.run/phase: deploy\n`;

describe('no secret value in any finding', () => {
  test('schema/format on non-base64 Secret data names the field, not the value', async () => {
    const fm = await readDirToFileMap(NGINX);
    fm.set('secret.yaml', toBytes(`apiVersion: v1\nkind: Secret\n${meta('s')}data:\n  password: "${SECRET}"\n`));
    const fs = await validatePackage(fm);
    const f = fs.find((x) => x.rule === 'schema/format' && x.file === 'secret.yaml');
    expect(f).toMatchObject({ severity: 'error', path: 'data.password', line: 8 });
    expect(f!.message).toMatch(/; got a string \(value not shown\)$/);
    expect(JSON.stringify(fs)).not.toContain(SECRET);
    expect(fs.map(formatFinding).join('\n')).not.toContain('Sup3r');
  });

  test('a wrongly typed Secret field (type error) does not print it either', async () => {
    const fm = await readDirToFileMap(NGINX);
    fm.set('secret.yaml', toBytes(`apiVersion: v1\nkind: Secret\n${meta('s')}stringData:\n  token: [${SECRET}]\nimmutable: "${SECRET}"\n`));
    const fs = await validatePackage(fm);
    expect(fs.filter((x) => x.file === 'secret.yaml' && x.rule.startsWith('schema/')).map((x) => x.path).sort()).toEqual(['immutable', 'stringData.token']);
    expect(JSON.stringify(fs)).not.toContain(SECRET);
  });

  // One schema, one field per keyword that quotes a value.
  const ajv = new Ajv({ allErrors: true, strict: false });
  const validate = ajv.compile({
    type: 'object',
    properties: {
      apiToken: { type: 'string', enum: ['a', 'b'] },
      dbPassword: { type: 'string', pattern: '^x' },
      clientSecret: { const: 'fixed' },
      privateKey: { type: 'integer', maximum: 3 },
      name: { type: 'string', pattern: '^x' },
    },
  });
  const obj = { apiVersion: 'example.com/v1', kind: 'Widget', apiToken: SECRET, dbPassword: SECRET, clientSecret: SECRET, privateKey: 987654, name: 'visible-name' };
  validate(obj);
  const issues = renderAjvErrors(validate.errors ?? [], obj);
  test.each(['apiToken', 'dbPassword', 'clientSecret', 'privateKey'])('%s: enum/pattern/const/maximum message keeps the rule, drops the value', (field) => {
    const i = issues.find((x) => x.path === field)!;
    expect(i).toBeDefined();
    const m = redactFor(obj, i.path, i.message);
    expect(m).toMatch(/\(value not shown\)$/);
    expect(m).not.toContain(SECRET);
    expect(m).not.toContain('987654');
  });
  test('a harmless field keeps its value in the message', () => {
    const i = issues.find((x) => x.path === 'name')!;
    expect(redactFor(obj, i.path, i.message)).toBe('must match the regular expression ^x; got string "visible-name"');
  });
  test('a CEL message (messageExpression) that quotes a secret value elsewhere in the object loses it', () => {
    const m = redactFor(obj, 'spec.name', `name must differ from the token ${SECRET}`);
    expect(m).toBe('name must differ from the token <redacted>');
  });
  test('a CEL message on a Secret quotes no data value', () => {
    const s = { apiVersion: 'v1', kind: 'Secret', data: { 'tls.crt': SECRET } };
    expect(redactFor(s, '', `bad certificate "${SECRET}"`)).toBe('bad certificate "<redacted>"');
  });

  test('config admission errors (k8s field errors) on a secret-looking config field', () => {
    const schema = { type: 'object', properties: { dbPassword: { type: 'string', pattern: '^x' }, mode: { type: 'string', enum: ['a'] }, registryAuth: { type: 'string', enum: ['a'] } } };
    const text = aggregateText(validateConfig({ dbPassword: SECRET, mode: 'zz', registryAuth: SECRET }, schema as never));
    expect(text).toContain(`spec.config.dbPassword: Invalid value: (value not shown): dbPassword in body should match '^x'`);
    expect(text).toContain(`spec.config.registryAuth: Unsupported value: (value not shown)`);
    // No config value is quoted, whatever its key: the field and what was expected are.
    expect(text).toContain('spec.config.mode: Unsupported value: (value not shown): supported values');
    expect(text).not.toContain(SECRET);
  });

  test('a template error prints the context PKO prints, without secret-looking config values', () => {
    const manifest: PackageManifest = {
      apiVersion: 'manifests.package-operator.run/v1alpha1',
      kind: 'PackageManifest',
      metadata: { name: 'pkg' },
      spec: { scopes: ['Namespaced'], phases: [{ name: 'deploy' }], config: { openAPIV3Schema: { type: 'object', properties: { apiToken: { type: 'string' }, region: { type: 'string' } } } } },
    };
    let message = '';
    try {
      renderPackage({
        manifest,
        files: fileMap({ 'cm.yaml.gotmpl': `apiVersion: v1\nkind: ConfigMap\n${meta('c')}data:\n  a: {{ .config.nope.deeper }}\n` }),
        package: { metadata: { name: 'test', namespace: 'ns' } },
        config: { apiToken: SECRET, region: 'eu-west-1' },
      });
    } catch (e) {
      message = toUserError(e).describe();
    }
    expect(message).toMatch(/executing template from cm\.yaml\.gotmpl with context .*apiToken:<redacted>/);
    // every config value is redacted (keys kept), not only secret-looking ones (docs/render.md)
    expect(message).toContain('region:<redacted>');
    expect(message).not.toContain('eu-west-1');
    expect(message).not.toContain(SECRET);
  });

  test('a fixture mismatch on a Secret shows which lines differ, not their values', () => {
    const manifest: PackageManifest = {
      apiVersion: 'manifests.package-operator.run/v1alpha1',
      kind: 'PackageManifest',
      metadata: { name: 'pkg' },
      spec: { scopes: ['Namespaced'], phases: [{ name: 'deploy' }] },
      test: { template: [{ name: 'one', context: { config: {} } }] },
    } as never;
    const secret = (v: string) => `apiVersion: v1\nkind: Secret\n${meta('s')}stringData:\n  apikey: ${v}\n`;
    const files = fileMap({ 'secret.yaml.gotmpl': secret(`{{ "${SECRET}" }}`) });
    const fixtures = fileMap({ 'one/secret.yaml': secret('old-value-4567') });
    const out = runTemplateTests({ manifest, files }, { fixtures } as never);
    expect(out.map((o) => [o.status, [...o.rendered.keys()]])).toEqual([['failed', ['secret.yaml']]]);
    const details = out.flatMap((o) => o.errors.map((e) => e.message)).join('\n');
    expect(details).toContain('stringData');
    expect(details).toMatch(/^-\s+apikey: <redacted>$/m);
    expect(details).toMatch(/^\+\s+apikey: <redacted>$/m);
    expect(details).not.toContain(SECRET);
    expect(details).not.toContain('old-value-4567');
  });

  test('rollout lint: a CRD message about a Secret in a SelectorSyncSet does not quote its data', () => {
    const text = mutate(SKELETON, '    resources:\n', `    resources:\n    - apiVersion: v1\n      kind: Secret\n      metadata:\n        name: s\n        namespace: openshift-acm-policies\n      data:\n        token: "${SECRET}"\n`);
    const schema = (o: Record<string, unknown>) =>
      o.kind === 'Secret' ? [{ path: ['data', 'token'], message: `must be base64; got string ${JSON.stringify(SECRET)}` }] : [];
    const r = lintRolloutTemplate('t.yaml', text, { schema, parameters: { REGISTRY_IMG: 'quay.io/x/y', IMAGE_DIGEST: 'sha256:' + 'a'.repeat(64), IMAGE_TAG: 'abc1234' } });
    const f = r.findings.find((x) => x.message.startsWith('must be base64'));
    expect(f?.message).toBe('must be base64; got a string (value not shown) (CRD Secret)');
    expect(JSON.stringify(r.findings)).not.toContain(SECRET);
  });
});

describe('what looks secret', () => {
  test.each([
    ['spec.config.dbPassword', true],
    ['data[".dockerconfigjson"]', true],
    ['spec.template.spec.containers[0].env[1].value', false],
    ['spec.imagePullSecrets[0].name', false],
    ['spec.volumes[0].secret.secretName', false],
    ['spec.config.apiToken', true],
    ['auths', true],
    ['spec.tolerations[0].key', false],
  ])('%s → %s', (p, want) => expect(looksSecretPath(p)).toBe(want));

  test('a diff of a file without a Secret keeps harmless lines', () => {
    const d = '--- a\n+++ b\n@@ -1 +1 @@\n-  replicas: 1\n+  replicas: 2\n-  password: abcdefgh\n';
    expect(redactDiff(d, 'kind: ConfigMap\n')).toBe('--- a\n+++ b\n@@ -1 +1 @@\n-  replicas: 1\n+  replicas: 2\n-  password: <redacted>\n');
  });
});

describe('configValuesOf', () => {
  it('leaves booleans (and strings spelling one) out: no secret, and `served: true` is in every CRD', () => {
    expect(configValuesOf({ a: true, b: 'false', c: 'hunter22', d: ['TRUE', 'xyz1'] })).toEqual(['hunter22', 'xyz1']);
  });
});
