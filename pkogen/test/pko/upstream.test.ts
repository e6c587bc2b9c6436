/**
 * Every package of Package Operator's repository at the commit we track (34 vendored directories
 * with a manifest, plus the two its build generates from `manifest.yaml.tpl`), tried as a PKO user
 * would: validate verdicts, every test case's render against PKO's own fixtures byte for byte, and
 * every `kubectl package tree` expectation of PKO's Go tests. The data is PKO's, vendored unchanged
 * (test/pko/upstream/NOTICE); the expectations are quoted in test/pko/upstream/expected.json with
 * the PKO file that states each. A new mismatch fails here.
 */
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { readDirToFileMap } from '../../src/core/fs.js';
import { loadPackage } from '../../src/pko/loader.js';
import { readFixtureTree } from '../../src/pko/fixtures-dir.js';
import { FIXTURES_DIR, runTemplateTests } from '../../src/pko/template-tests.js';
import type { LoadedPackage } from '../../src/pko/types.js';
import { runCli, tempDir } from '../helpers.js';
import { buildGeneratedPackages, PKO_COMMIT, UPSTREAM, vendoredPackageDirs } from './upstream-packages.js';

interface Verdict { pko: string; source: string; generated?: boolean; pkogen?: { rules: string[]; why: string } }
interface TreeCase { source: string; args: string[]; code: number; stdout?: string; stdoutSays?: string[]; stderrSays?: string[] }
const EXPECTED = JSON.parse(readFileSync(path.join(UPSTREAM, 'expected.json'), 'utf8')) as {
  commit: string;
  validate: Record<string, Verdict | string>;
  tree: { output: TreeCase[]; errors: TreeCase[] };
};
const VERDICTS = Object.entries(EXPECTED.validate).filter((e): e is [string, Verdict] => !e[0].startsWith('_'));

/** PKO's own test fixtures that no longer match what their test cases render (PKO fails them too). */
const STALE_FIXTURES = new Set(['cmd/kubectl-package/treecmd/testdata namespace-scope', 'cmd/kubectl-package/treecmd/testdata cluster-scope']);

let tmp: { dir: string; cleanup: () => void };
let dirs: Record<string, string>;
beforeAll(() => {
  tmp = tempDir('pkogen-upstream-');
  dirs = Object.fromEntries(vendoredPackageDirs().map((d) => [d, path.join(UPSTREAM, d)]));
  Object.assign(dirs, buildGeneratedPackages(tmp.dir));
});
afterAll(() => tmp.cleanup());

test('the vendored set is every package directory of PKO at the tracked commit', () => {
  expect(EXPECTED.commit).toBe(PKO_COMMIT);
  expect(vendoredPackageDirs()).toHaveLength(34);
  expect(Object.keys(dirs).sort()).toEqual(VERDICTS.map(([d]) => d).sort());
  expect(VERDICTS).toHaveLength(36);
});

/** `gbytes.Say` in order: each regex must match after the previous match. */
function says(text: string, regexes: string[]): string | undefined {
  let rest = text;
  for (const r of regexes) {
    const m = new RegExp(r).exec(rest);
    if (!m) return r;
    rest = rest.slice(m.index + m[0].length);
  }
  return undefined;
}

describe('validate: the verdict of kubectl package validate on each package', () => {
  test.each(VERDICTS)('%s', async (dir, v) => {
    const r = await runCli(['validate', dirs[dir], '-o', 'json']);
    const report = JSON.parse(r.stdout) as { ok: boolean; findings: { severity: string; rule: string; message: string }[] };
    const errors = report.findings.filter((f) => f.severity === 'error');
    const stricter = new Set(v.pkogen?.rules ?? []);
    const pkoErrors = errors.filter((f) => !stricter.has(f.rule));
    if (v.pko === 'ok') {
      expect(pkoErrors).toEqual([]);
      // a documented stricter finding is still reported (and is the only error)
      for (const rule of stricter) expect(errors.map((f) => f.rule)).toContain(rule);
      if (stricter.size === 0) {
        expect(r.code).toBe(0);
        expect((await runCli(['validate', dirs[dir]])).stdout).toMatch(/Package validated successfully!\n$/);
      }
    } else {
      expect(r.code).toBe(1);
      expect(pkoErrors.map((f) => f.message).join('\n')).toContain(v.pko);
    }
  });
});

describe('fixtures: every test case renders byte for byte what PKO wrote into .test-fixtures', () => {
  const cases: string[] = [];
  test('51 fresh test cases, each identical', async () => {
    for (const [dir] of VERDICTS) {
      let pkg: LoadedPackage;
      try {
        pkg = loadPackage(await readDirToFileMap(dirs[dir]));
      } catch {
        continue; // PKO's loader refuses it too (see the validate verdicts)
      }
      const tree = await readFixtureTree(dirs[dir]);
      const parts: [string, LoadedPackage][] = [...Object.entries(pkg.components ?? {}).map(([n, c]) => [`components/${n}/`, c] as [string, LoadedPackage]), ['', pkg]];
      for (const [prefix, p] of parts) {
        const root = `${prefix}${FIXTURES_DIR}/`;
        const fixtures = new Map([...tree.files].filter(([k]) => k.startsWith(root)).map(([k, b]) => [k.slice(root.length), b]));
        const linked = new Set([...tree.linked].filter((k) => k.startsWith(root)).map((k) => k.slice(root.length)));
        for (const o of runTemplateTests(p, { fixtures, linked })) {
          if (o.status === 'generated') continue; // no fixtures: PKO would write them
          const name = `${dir} ${prefix}${o.name}`;
          if (STALE_FIXTURES.has(name)) {
            expect(o.status).toBe('failed');
            continue;
          }
          expect({ name, errors: o.errors.map((e) => e.message) }).toEqual({ name, errors: [] });
          cases.push(name);
        }
      }
    }
    expect(cases).toHaveLength(51);
  });
});

describe('tree: every kubectl package tree expectation of PKO\'s tests', () => {
  const sub = (a: string) => a.replaceAll('{U}', UPSTREAM);
  test.each(EXPECTED.tree.output.map((c) => [c.source, c] as const))('%s', async (_s, c) => {
    const r = await runCli(['tree', ...c.args.map(sub)]);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: c.code, stderr: '' });
    if (c.stdout !== undefined) expect(r.stdout).toBe(c.stdout);
    if (c.stdoutSays) expect(says(r.stdout, c.stdoutSays)).toBeUndefined();
  });
  test.each(EXPECTED.tree.errors.map((c) => [c.source, c] as const))('%s', async (_s, c) => {
    // relative paths (dne, "") resolve in an empty directory, as in PKO's test directories
    const r = await runCli(['tree', ...c.args.map(sub)], { cwd: tmp.dir });
    expect(r.code).toBe(c.code);
    expect(r.stdout).toBe('');
    expect(r.stderr).not.toBe('');
    if (c.stderrSays) expect(says(r.stderr, c.stderrSays)).toBeUndefined();
  });
});
