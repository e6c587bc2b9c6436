/**
 * Rollout parameters carry the package config schema's types and optionality end to end:
 * generate writes integers and booleans as `${{X}}` (oc process yields JSON values), an optional
 * parameter's key is left out when its value is empty, and lint-rollout --package reports where
 * simulate --package would fail (it checked only what simulate checks per namespace before).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';
import { mutate } from './helpers.js';
import { emitRolloutTemplate, type ConfigParameter } from '../../src/rollout/generate.js';

const DIGEST = 'sha256:' + 'a'.repeat(64);
const MANIFEST = `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: typed
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      required: [replicas, debug, level]
      properties:
        replicas: {type: integer, minimum: 1}
        debug: {type: boolean}
        level: {type: string, enum: [info, debug]}
        tier: {type: string, enum: [small, large]}
`;
const CM = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: typed\n  annotations:\n    package-operator.run/phase: deploy\ndata: {}\n';

const PARAMS: ConfigParameter[] = [
  { parameter: 'REPLICAS', configKey: 'replicas', type: 'integer' },
  { parameter: 'DEBUG', configKey: 'debug', type: 'boolean' },
  { parameter: 'LEVEL', configKey: 'level' },
  { parameter: 'TIER', configKey: 'tier', optional: true },
];

let tmp: ReturnType<typeof tempDir>;
let pkg = '';
beforeAll(() => {
  tmp = tempDir('pkogen-typed-');
  pkg = path.join(tmp.dir, 'pkg');
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), MANIFEST);
  writeFileSync(path.join(pkg, 'cm.yaml'), CM);
});
afterAll(() => tmp.cleanup());

function write(name: string, text: string): string {
  const f = path.join(tmp.dir, name);
  writeFileSync(f, text);
  return f;
}

const SET = ['-p', 'REGISTRY_IMG=quay.io/a/typed', '-p', `IMAGE_DIGEST=${DIGEST}`, '-p', 'IMAGE_TAG=abc1234', '-p', 'REPLICAS=3', '-p', 'DEBUG=true', '-p', 'LEVEL=info'];

describe('typed rollout parameters', () => {
  test.each([
    ['ObjectTemplate (a source)', { sources: [{ configKey: 'serviceCA', apiVersion: 'v1', kind: 'ConfigMap', name: 'openshift-service-ca.crt', dataKey: 'service-ca.crt', optional: true }] }],
    ['Package', {}],
  ])('generate → lint-rollout and simulate agree: valid in every namespace, with and without the optional key (%s)', async (_, extra) => {
    const tpl = write('ok.yaml', emitRolloutTemplate({ packageName: 'typed', config: PARAMS, ...extra }));
    const schemaWithCA = MANIFEST.replace('        tier:', '        serviceCA: {type: string}\n        tier:');
    writeFileSync(path.join(pkg, 'manifest.yaml'), 'sources' in extra ? schemaWithCA : MANIFEST);
    for (const more of [[], ['-p', 'TIER=large']]) {
      const lint = await runCli(['lint-rollout', tpl, '--package', pkg, ...SET, ...more]);
      expect({ code: lint.code, errors: lint.stdout.split('\n').filter((l) => /^(error|warning)/.test(l)) }).toEqual({ code: 0, errors: [] });
      const sim = await runCli(['simulate', tpl, '--hcp-namespaces', '3', '--package', pkg, ...SET, ...more]);
      expect({ code: sim.code, out: sim.code ? sim.stdout + sim.stderr : '' }).toEqual({ code: 0, out: '' });
      expect(sim.stdout).toMatch(/3 namespace\(s\), 3 valid Package\(s\), 0 error\(s\)/);
    }
  });

  test('the old forms (a quoted integer and boolean, an optional key written as "") are errors of lint-rollout where simulate fails', async () => {
    // What generate wrote before: `${X}` for every key, and `tier: ${TIER}` with `value: ""`.
    const typed = emitRolloutTemplate({ packageName: 'typed', config: PARAMS.filter((p) => !p.optional) });
    const old = mutate(mutate(mutate(mutate(typed, /replicas: ["']?\$\{\{REPLICAS\}\}["']?/, 'replicas: ${REPLICAS}'), /debug: ["']?\$\{\{DEBUG\}\}["']?/, 'debug: ${DEBUG}'), /(\n( +)replicas: \$\{REPLICAS\}\n)/, '$1$2tier: ${TIER}\n'), /\n  - name: LEVEL\n/, '\n  - name: TIER\n    required: false\n    value: ""\n  - name: LEVEL\n');
    const tpl = write('old.yaml', old);
    const lint = await runCli(['lint-rollout', tpl, '--package', pkg, ...SET]);
    expect(lint.code).toBe(1);
    const k2 = lint.stdout.split('\n').filter((l) => l.includes('[K2]')).map((l) => l.replace(/^.*Package\/typed: /, ''));
    expect(k2).toEqual([
      'config: spec.config.debug: Invalid value: (value not shown): debug in body must be of type boolean: "string" [K2]',
      'config: spec.config.replicas: Invalid value: (value not shown): replicas in body must be of type integer: "string" [K2]',
      'config: spec.config.tier: Unsupported value: (value not shown): supported values: "small", "large" [K2]',
    ]);
    const sim = await runCli(['simulate', tpl, '--hcp-namespaces', '1', '--package', pkg, ...SET]);
    expect(sim.code).toBe(1);
    expect(sim.stdout).toMatch(/1 namespace\(s\), 0 valid Package\(s\), 3 error\(s\)/);
  });

  test('lint-rollout checks the Package an ObjectTemplate renders to against the package (it did not before)', async () => {
    const text = emitRolloutTemplate({ packageName: 'typed', config: PARAMS, sources: [{ configKey: 'serviceCA', apiVersion: 'v1', kind: 'ConfigMap', name: 'openshift-service-ca.crt', dataKey: 'service-ca.crt', optional: true }] });
    const tpl = write('quoted.yaml', mutate(text, 'replicas: ${REPLICAS}', 'replicas: "${REPLICAS}"'));
    writeFileSync(path.join(pkg, 'manifest.yaml'), MANIFEST.replace('        tier:', '        serviceCA: {type: string}\n        tier:'));
    const lint = await runCli(['lint-rollout', tpl, '--package', pkg, ...SET]);
    expect(lint.code).toBe(1);
    expect(lint.stdout).toMatch(/error: .*spec\.template: .*Package\/typed \(rendered\): config: spec\.config\.replicas: Invalid value: \(value not shown\).*\[K2\]/);
    const sim = await runCli(['simulate', tpl, '--hcp-namespaces', '1', '--package', pkg, ...SET]);
    expect(sim.code).toBe(1);
  });

  test('a parameter the SaaS file sets (a placeholder in lint) is not held against the schema: no false error', async () => {
    const tpl = write('ph.yaml', emitRolloutTemplate({ packageName: 'typed', config: PARAMS }));
    writeFileSync(path.join(pkg, 'manifest.yaml'), MANIFEST);
    const lint = await runCli(['lint-rollout', tpl, '--package', pkg, '-p', 'REGISTRY_IMG=quay.io/a/typed']);
    expect(lint.stdout.split('\n').filter((l) => /^(error|warning)/.test(l))).toEqual([]);
    expect(lint.code).toBe(0);
  });

  test('types and optionality come from the config schema; contradictions are refused', () => {
    const schema = { required: ['replicas', 'debug', 'level'], properties: { replicas: { type: 'integer' }, debug: { type: 'boolean' }, level: { type: 'string' }, tier: { type: 'string' } } };
    const untyped = PARAMS.map(({ parameter, configKey }) => ({ parameter, configKey }));
    expect(emitRolloutTemplate({ packageName: 'typed', config: untyped, configSchema: schema })).toBe(emitRolloutTemplate({ packageName: 'typed', config: PARAMS }));
    expect(() => emitRolloutTemplate({ packageName: 'typed', config: [{ parameter: 'LEVEL', configKey: 'level', optional: true }], configSchema: schema })).toThrow(/optional, but the config schema requires level/);
    expect(() => emitRolloutTemplate({ packageName: 'typed', delivery: 'ClusterPackage', config: [{ parameter: 'TIER', configKey: 'tier', optional: true }] })).toThrow(/cannot leave tier out/);
  });
});
