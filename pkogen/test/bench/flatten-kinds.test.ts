/**
 * hack/flatten-kinds.mjs (run by `make build` and `npm pack` on dist/src): the compiled table of
 * built-in kinds' validators becomes one ES module with the same exports and the same verdicts
 * and errors for every kind. Checked on a scratch copy compiled from src/, so the test does not
 * depend on what `make build` left in dist/.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { transformSync } from 'esbuild';

const ROOT = process.cwd();
let scratch: string;
let original: string;
let flat: string;

const flatten = (...args: string[]) => {
  const r = spawnSync('node', ['hack/flatten-kinds.mjs', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status, stderr: r.stderr };
};

beforeAll(() => {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  // Inside the checkout: kubernetes-models resolves from its node_modules.
  scratch = mkdtempSync(path.join(ROOT, 'dist', 'flatten-test-'));
  const ts = readFileSync(path.join(ROOT, 'src', 'schema', 'generated', 'builtin-validators.ts'), 'utf8');
  const js = transformSync(ts, { loader: 'ts', format: 'esm' }).code; // what tsc leaves: type imports erased
  original = path.join(scratch, 'original.js');
  flat = path.join(scratch, 'builtin-validators.js');
  writeFileSync(original, js);
  writeFileSync(flat, js);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test('one file, no import of kubernetes-models left; a second run leaves it as it is', () => {
  expect(readFileSync(flat, 'utf8').match(/from ["']kubernetes-models\/_schemas\//g)?.length).toBe(71);
  expect(flatten(flat)).toEqual({ code: 0, stderr: '' });
  const once = readFileSync(flat, 'utf8');
  expect(once).not.toMatch(/^\s*import .* from ["']kubernetes-models/m);
  expect(once.match(/^import .*$/gm)).toEqual(["import { createRequire as __pkogenCreateRequire } from 'node:module'; const require = __pkogenCreateRequire(import.meta.url);"]);
  expect(flatten(flat)).toEqual({ code: 0, stderr: '' });
  expect(readFileSync(flat, 'utf8')).toBe(once);
});

test('the same kinds, verdicts and errors as the 492-module original, for every kind', () => {
  expect(flatten(flat).code).toBe(0);
  // Per kind: an empty object, a wrongly typed one, and one with a bad nested field.
  const script = `
    const [a, b] = await Promise.all(process.argv.slice(1).map((f) => import(f)));
    const samples = [{}, { apiVersion: 1, kind: [], metadata: 'x', spec: { replicas: 'a', template: { spec: { containers: [{ name: 3 }] } } } },
      { apiVersion: 'v1', kind: 'X', metadata: { name: 'n', labels: { a: 1 } }, spec: { ports: [{ port: 'http' }], rules: 'r' }, data: { k: 2 } }];
    const run = (table) => Object.entries(table.BUILTIN_VALIDATORS).map(([id, v]) => [id, samples.map((s) => [v(s), v.errors ?? null])]);
    const ra = JSON.stringify(run(a)); const rb = JSON.stringify(run(b));
    console.log(JSON.stringify({ kinds: Object.keys(a.BUILTIN_VALIDATORS).length, same: ra === rb, failures: (ra.match(/"instancePath"/g) ?? []).length }));
  `;
  // The flat file alone: punycode from npm, not Node's deprecated built-in (DEP0040 from Node 21 on).
  const alone = `
    await import(process.argv[1]);
    console.log(JSON.stringify(process.moduleLoadList.filter((m) => m === 'NativeModule punycode')));
  `;
  const r = spawnSync('node', ['--input-type=module', '-e', script, pathToFileURL(original).href, pathToFileURL(flat).href], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect(r.stderr).toBe('');
  const res = JSON.parse(r.stdout);
  expect(res.same).toBe(true);
  const p = spawnSync('node', ['--input-type=module', '-e', alone, pathToFileURL(flat).href], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  expect({ stderr: p.stderr, punycode: p.stdout }).toEqual({ stderr: '', punycode: '[]\n' });
  expect(res.kinds).toBe(71);
  expect(res.failures).toBeGreaterThan(71); // the samples do fail, with errors to compare
});

test('a file it cannot read as the table: a located error, exit 1; usage error, exit 2', () => {
  const other = path.join(scratch, 'other.js');
  writeFileSync(other, "import { x } from 'kubernetes-models/model';\nexport const y = x;\n");
  const r = flatten(other);
  expect(r.code).toBe(1);
  expect(r.stderr).toBe(`hack/flatten-kinds.mjs: ${other}: no kubernetes-models import in the expected form\n`);
  expect(readFileSync(other, 'utf8')).toBe("import { x } from 'kubernetes-models/model';\nexport const y = x;\n");
  expect(flatten('a', 'b')).toEqual({ code: 2, stderr: 'usage: node hack/flatten-kinds.mjs [FILE]\n' });
});
