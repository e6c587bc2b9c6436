/**
 * No config value (and no value whose key looks secret) in any output format (text, json, github, junit) of the
 * commands that check config: validate (a test case's config), lint-rollout and simulate (a
 * parameter that lands in the Package config), with the value failing the schema, so that every
 * message that could quote it is produced.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';
import { emitRolloutTemplate } from '../../src/rollout/generate.js';

const PLANTED = 'PLANTED-s3cr3t-9f8e7d';
/** A value under a key that does not look secret: config values are never printed at all (as `status`). */
const PLANTED_PLAIN = 'PLANTED-plain-4b3a2c';
const DIGEST = 'sha256:' + 'a'.repeat(64);
const tmp = tempDir('pkogen-secrets-');
afterAll(() => tmp.cleanup());

const pkg = path.join(tmp.dir, 'pkg');
/** A package whose template fails with a message that quotes a config value. */
const failing = path.join(tmp.dir, 'failing');
/** A package whose rendered object carries a config value its schema rejects (a label value with a space). */
const labelled = path.join(tmp.dir, 'labelled');
const PLANTED_LABEL = 'PLANTED label-7e6f';
const tpl = path.join(tmp.dir, 'rollout.yaml');
beforeAll(() => {
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: sec
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      properties:
        apiToken: {type: string, minLength: 64, pattern: '^[a-f0-9]+$', description: token}
        level: {type: string, enum: [info, debug]}
        region: {type: string, enum: [eu, us], description: region}
test:
  template:
  - name: default
    context:
      package: {metadata: {name: sec, namespace: ns}}
      config: {apiToken: ${JSON.stringify(PLANTED)}, level: info, region: ${JSON.stringify(PLANTED_PLAIN)}}
`);
  writeFileSync(path.join(pkg, 'cm.yaml.gotmpl'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sec\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  level: {{ .config.level }}\n');
  mkdirSync(failing);
  writeFileSync(path.join(failing, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: failing
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      properties:
        region: {type: string, description: region}
test:
  template:
  - name: default
    context:
      package: {metadata: {name: failing, namespace: ns}}
      config: {region: ${JSON.stringify(PLANTED_PLAIN)}}
`);
  writeFileSync(path.join(failing, 'cm.yaml.gotmpl'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: f\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  region: {{ fail (printf "no such region %s" .config.region) }}\n');
  mkdirSync(labelled);
  writeFileSync(path.join(labelled, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: labelled
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      properties:
        team: {type: string, description: team}
test:
  template:
  - name: default
    context:
      package: {metadata: {name: labelled, namespace: ns}}
      config: {team: ${JSON.stringify(PLANTED_LABEL)}}
`);
  writeFileSync(path.join(labelled, 'cm.yaml.gotmpl'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: l\n  labels:\n    team: {{ .config.team | quote }}\n  annotations:\n    package-operator.run/phase: deploy\n');
  writeFileSync(tpl, emitRolloutTemplate({ packageName: 'sec', config: [{ parameter: 'API_TOKEN', configKey: 'apiToken' }, { parameter: 'LEVEL', configKey: 'level' }, { parameter: 'REGION', configKey: 'region' }] }));
});

const P = ['-p', 'REGISTRY_IMG=quay.io/a/sec', '-p', `IMAGE_DIGEST=${DIGEST}`, '-p', 'IMAGE_TAG=abc1234', '-p', `API_TOKEN=${PLANTED}`, '-p', 'LEVEL=info', '-p', `REGION=${PLANTED_PLAIN}`];

describe.each(['text', 'json', 'github', 'junit'])('-o %s', (format) => {
  test.each([
    ['validate', () => ['validate', pkg, '--strict']],
    ['lint-rollout', () => ['lint-rollout', tpl, '--package', pkg, ...P]],
    ['simulate', () => ['simulate', tpl, '--hcp-namespaces', '2', '--package', pkg, ...P]],
    ['validate (a template error quoting a config value)', () => ['validate', failing]],
    ['validate (a rendered object with a config value its schema rejects)', () => ['validate', labelled]],
  ])('%s fails on the planted value and never prints it', async (_, args) => {
    const r = await runCli([...args(), '-o', format]);
    if (process.env.SHOW_OUT) console.log(r.stdout + r.stderr);
    expect(r.code).toBe(1);
    // The failure is about the token (so the message that could have quoted it was produced).
    const about = { [failing]: /no such region (<|&lt;)redacted/, [labelled]: /labels/ }[args()[1]] ?? /apiToken/;
    expect(r.stdout + r.stderr).toMatch(about);
    // And about the plain key, whose field error names the field but not the value.
    if (args()[1] !== labelled) expect(r.stdout + r.stderr).toMatch(/region/);
    expect(r.stdout + r.stderr).not.toContain(PLANTED);
    expect(r.stdout + r.stderr).not.toContain('PLANTED');
    expect(r.stdout + r.stderr).not.toContain('s3cr3t');
  });
});

test('render: a template error quoting a config value prints the marker instead', async () => {
  const r = await runCli(['render', failing, '--test-case', 'default']);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/no such region <redacted>/);
  expect(r.stdout + r.stderr).not.toContain('PLANTED');
});

test('diff: a changed field that carries a config value prints the marker instead, in text and json', async () => {
  const side = (dir: string, greeting: string) => {
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: greet
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      properties:
        region: {type: string, description: region}
test:
  template:
  - name: default
    context:
      package: {metadata: {name: greet, namespace: ns}}
      config: {region: ${JSON.stringify(PLANTED_PLAIN)}}
`);
    writeFileSync(path.join(dir, 'cm.yaml.gotmpl'), `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: g\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n  greeting: ${greeting} {{ .config.region }}\n`);
  };
  const a = path.join(tmp.dir, 'greet-a');
  const b = path.join(tmp.dir, 'greet-b');
  side(a, 'hello');
  side(b, 'goodbye');
  for (const format of ['text', 'json']) {
    const r = await runCli(['diff', a, b, '-o', format]);
    expect(r.code).toBe(1);
    // The change is shown (so the value could have been printed), its config value is not.
    expect(r.stdout).toMatch(/goodbye <redacted>/);
    expect(r.stdout + r.stderr).not.toContain('PLANTED');
  }
});
