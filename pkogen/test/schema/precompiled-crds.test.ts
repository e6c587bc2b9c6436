/**
 * The bundled CRDs' precompiled validators (src/schema/precompile.ts, written into dist/src by
 * hack/precompile-crds.mjs at `make build`) give what the registry's run-time compilation gives:
 * the same verdict and the same errors (paths, messages, params, schema, parentSchema, data), and
 * the same CEL rule counts, for every served version of every bundled CRD, on objects built from
 * each schema to reach its nested rules (two equal list items: list-map keys; CEL rules all along).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { jest } from '@jest/globals';
import type { ValidateFunction } from 'ajv';
import { newAjv } from '../../src/schema/ajv-setup.js';
import { celCounts } from '../../src/schema/cel.js';
import { crdKey, crdVersionToJsonSchema, type BundledCrd } from '../../src/schema/crd.js';
import { BUNDLED_CRDS } from '../../src/schema/generated/crds.js';
import { OPENSHIFT_CRDS } from '../../src/schema/generated/openshift-crds.js';
import { ownSchemas } from '../../src/schema/objectmeta.js';
import { precompiledCrdSources } from '../../src/schema/precompile.js';

const ROOT = process.cwd();
const ALL: BundledCrd[] = [...BUNDLED_CRDS, ...OPENSHIFT_CRDS];
let scratch: string;
let table: string;
let modules: Map<string, string>;

beforeAll(() => {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  scratch = mkdtempSync(path.join(ROOT, 'dist', 'precompiled-crds-test-'));
  // The modules import the source's formats, listtype and cel (jest maps .js to .ts).
  ({ table, modules } = precompiledCrdSources(ALL, path.relative(path.join(scratch, 'precompiled-crds'), path.join(ROOT, 'src', 'schema')).split(path.sep).join('/')));
  mkdirSync(path.join(scratch, 'precompiled-crds'));
  for (const [f, src] of modules) writeFileSync(path.join(scratch, 'precompiled-crds', f), src);
  writeFileSync(path.join(scratch, 'table.js'), table);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** An instance of a schema reaching every nested property: objects filled, arrays of two equal items. */
function fill(schema: unknown, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 8) return undefined;
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  if (type === 'object' || s.properties) {
    const o: Record<string, unknown> = {};
    for (const [k, p] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
      const v = fill(p, depth + 1);
      if (v !== undefined) o[k] = v;
    }
    return o;
  }
  if (type === 'array') {
    const item = fill(s.items, depth + 1);
    return item === undefined ? [] : [item, structuredClone(item)];
  }
  if (type === 'string') return 'x';
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  return undefined;
}

function runtimeAjv() {
  const a = newAjv({}, { cel: true });
  for (const s of ownSchemas()) a.addSchema(s);
  return a;
}

test('one module per served version, and a loader for each in the table', () => {
  const keys = ALL.flatMap((c) => c.versions.filter((v) => v.served).map((v) => crdKey(c, v.name)));
  expect(modules.size).toBe(keys.length);
  expect(keys.length).toBeGreaterThan(50);
  for (const k of keys) expect(table).toContain(`${JSON.stringify(k)}: () => import(`);
  // Deterministic: the same sources again.
  const again = precompiledCrdSources(ALL, '../x');
  expect(again.table).toBe(table);
  expect([...again.modules.values()].map((m) => m.replaceAll("'../x/", "'IMPORT/"))).toEqual([...modules.values()].map((m) => m.replace(/'[^']*\/(formats|listtype|cel)\.js'/g, "'IMPORT/$1.js'")));
});

test('hack/precompile-crds.mjs: a tree without the compiled sources is a located error, exit 1; usage error, exit 2', () => {
  const run = (...args: string[]) => {
    const r = spawnSync('node', ['hack/precompile-crds.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, stderr: r.stderr };
  };
  const missing = path.join(scratch, 'no-tree');
  expect(run(missing)).toEqual({ code: 1, stderr: expect.stringMatching(new RegExp(`^hack/precompile-crds\\.mjs: ${missing.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: Cannot find module .*precompile\\.js'.*\n$`)) });
  expect(run('a', 'b')).toEqual({ code: 2, stderr: 'usage: node hack/precompile-crds.mjs [TREE]\n' });
});

test('every precompiled validator gives the verdicts, errors and CEL counts of the run-time compilation', async () => {
  const ajv = runtimeAjv();
  let i = 0;
  const differ: string[] = [];
  let failures = 0;
  let celRuns = 0;
  for (const crd of ALL) {
    for (const v of crd.versions) {
      if (!v.served) continue;
      const key = crdKey(crd, v.name);
      const { schema } = crdVersionToJsonSchema(crd, v.name, v.schema, `crd:${key}`, 'subdomain');
      const compiled: ValidateFunction = ajv.compile(schema);
      const pre = (await import(pathToFileURL(path.join(scratch, 'precompiled-crds', `${i++}.js`)).href)).validate as ValidateFunction;
      const [group, version] = [crd.group, v.name];
      const full = { ...(fill(schema) as object), apiVersion: `${group}/${version}`, kind: crd.kind, metadata: { name: 'x', labels: { 'a/b/c': 'bad value!' } } };
      const samples: unknown[] = [full, { apiVersion: `${group}/${version}`, kind: crd.kind, metadata: { name: 'x' }, spec: 'not an object', extra: 1 }, {}];
      for (const [n, sample] of samples.entries()) {
        const run = (f: ValidateFunction) => {
          const before = celCounts();
          const ok = f(structuredClone(sample));
          const after = celCounts();
          return JSON.stringify({ ok, errors: f.errors ?? null, cel: [after.evaluated - before.evaluated, after.skipped - before.skipped] });
        };
        const a = run(compiled);
        const b = run(pre);
        if (a !== b) differ.push(`${key} sample ${n}`);
        failures += (JSON.parse(a).errors ?? []).length;
        celRuns += JSON.parse(a).cel[0] + JSON.parse(a).cel[1];
      }
    }
  }
  expect(differ).toEqual([]);
  // The samples do reach errors and CEL rules, so the comparison compares something.
  expect(failures).toBeGreaterThan(500);
  expect(celRuns).toBeGreaterThan(100);
});

test('the registry validates a bundled CRD object with its precompiled validator, never compiling; not a replaced CRD or without CEL', async () => {
  // ajv's compiler throws here: only the precompiled validators can validate.
  jest.unstable_mockModule('../../src/schema/precompiled-crds.js', () => import(pathToFileURL(path.join(scratch, 'table.js')).href));
  jest.unstable_mockModule('../../src/schema/ajv-loader.js', () => ({
    loadAjv: async () => undefined,
    ajvFactory: () => () => {
      throw new Error('ajv compiler used');
    },
  }));
  const { createSchemaRegistry } = await import('../../src/schema/registry.js');
  const bad = { apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', metadata: { name: 'p' }, spec: { image: 3, bogus: true } };
  const reg = createSchemaRegistry();
  await reg.prepare!([bad]);
  const res = reg.validate(bad);
  expect(res.known).toBe(true);
  expect(res.issues.map((i) => i.path)).toEqual(expect.arrayContaining(['spec.image']));
  expect(reg.notes('package-operator.run/v1alpha1', 'Package')).toEqual({ droppedPatterns: [], celRules: expect.any(Number) });
  // Not prepared for this kind: compiled, which throws here (as UserError of the compile).
  expect(() => reg.validate({ apiVersion: 'hive.openshift.io/v1', kind: 'SelectorSyncSet', metadata: { name: 's' }, spec: {} })).toThrow(/ajv compiler used/);
  // CEL off: the precompiled validators evaluate CEL, so they are not used.
  const noCel = createSchemaRegistry({ cel: false });
  await noCel.prepare!([bad]);
  expect(() => noCel.validate(bad)).toThrow(/ajv compiler used/);
  // A package's own CRD of the same group/kind replaces the bundled one and its validator.
  const own = createSchemaRegistry();
  own.addPackageCrds([{ source: 'own.yaml', group: 'package-operator.run', kind: 'Package', plural: 'packages', scope: 'Namespaced', versions: [{ name: 'v1alpha1', served: true, schema: { type: 'object' } }] }]);
  await own.prepare!([bad]);
  expect(() => own.validate(bad)).toThrow(/ajv compiler used/);
});

test('prepareRolloutSchemas (lint-rollout and simulate call it) loads the precompiled validators of every kind a Template nests', async () => {
  // Same mocks as above (registered in this file): ajv's compiler throws, the table is the scratch one.
  const { prepareRolloutSchemas, rolloutSchemaValidator } = await import('../../src/rollout/schema.js');
  const sub = { apiVersion: 'operators.coreos.com/v1alpha1', kind: 'Subscription', metadata: { name: 's', namespace: 'n' }, spec: { name: 'op', source: 'c', sourceNamespace: 'n', channel: 3 } };
  const validate = rolloutSchemaValidator();
  // Not a kind a rollout is made of: without preparing, it would be compiled.
  expect(() => validate(sub)).toThrow(/ajv compiler used/);
  const template = ['apiVersion: template.openshift.io/v1', 'kind: Template', 'objects:', '- apiVersion: hive.openshift.io/v1', '  kind: SelectorSyncSet', '  spec:', '    resources:', `    - ${JSON.stringify(sub)}`, ''].join('\n');
  await prepareRolloutSchemas('t.yaml', template);
  const problems = validate(sub);
  expect(problems?.map((p) => p.path.join('.'))).toEqual(['spec.channel']);
  // Text that does not parse loads nothing and does not throw.
  await expect(prepareRolloutSchemas('bad.yaml', 'a: [')).resolves.toBeUndefined();
});
