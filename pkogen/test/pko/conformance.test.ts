/**
 * Every PKO reference package with `.test-fixtures/` (made by PKO itself) must render
 * byte-identical: the root package and each component, every test case.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { type FileMap, toText } from '../../src/core/filemap.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { loadPackage } from '../../src/pko/loader.js';
import { FIXTURES_DIR, generateFixtures, runTemplateTests } from '../../src/pko/template-tests.js';
import type { LoadedPackage } from '../../src/pko/types.js';

const ROOT = path.resolve('../../shared/reference/pko-packages');

function fixturePackages(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const abs = path.join(dir, e.name);
      if (e.name === FIXTURES_DIR) out.push(path.relative(ROOT, dir));
      else if (!e.name.startsWith('.')) walk(abs);
    }
  };
  walk(ROOT);
  return out.sort();
}

async function readFixtures(dir: string): Promise<FileMap> {
  const fdir = path.join(dir, FIXTURES_DIR);
  if (!fs.existsSync(fdir)) return new Map();
  return readDirToFileMap(fdir, { skipDotFiles: false });
}

/**
 * remote-phase-component's fixtures show `index .images "remote-phase-manager"` as the static
 * image although its manifest declares no `spec.images`: upstream builds this package from
 * `manifest.yaml.tpl` and its fixtures were made from the built manifest, which carries that
 * image. PKO's test context only maps declared images (generateStaticImages), so we declare it
 * here, and check below that without it the output is Go's `<no value>`.
 */
const BUILD_TIME_IMAGES: Record<string, { name: string; image: string }[]> = {
  'remote-phase-component': [{ name: 'remote-phase-manager', image: 'quay.io/package-operator/remote-phase-manager' }],
};

async function load(rel: string): Promise<{ pkg: LoadedPackage; component?: string; dir: string }> {
  const r = await loadRaw(rel);
  const extra = BUILD_TIME_IMAGES[rel];
  if (extra) r.pkg.manifest.spec.images = [...(r.pkg.manifest.spec.images ?? []), ...extra];
  return r;
}

async function loadRaw(rel: string): Promise<{ pkg: LoadedPackage; component?: string; dir: string }> {
  const parts = rel.split('/');
  const ci = parts.lastIndexOf('components');
  if (ci > 0 && ci === parts.length - 2) {
    const rootDir = path.join(ROOT, ...parts.slice(0, ci));
    const root = loadPackage(await readDirToFileMap(rootDir));
    const name = parts[ci + 1];
    return { pkg: root.components![name], component: name, dir: path.join(ROOT, rel) };
  }
  return { pkg: loadPackage(await readDirToFileMap(path.join(ROOT, rel))), dir: path.join(ROOT, rel) };
}

const packages = fixturePackages();

test('the reference set has the fixture-bearing packages we expect', () => {
  expect(packages).toEqual(
    expect.arrayContaining(['test-stub', 'test-stub-cel', 'test-stub-multi', 'test-stub-multi/components/backend', 'test-stub-multi/components/frontend', 'validate-testdata-cel', 'remote-phase-component']),
  );
});

describe.each(packages)('%s', (rel) => {
  test('every test case matches its PKO-made fixtures byte for byte', async () => {
    const { pkg, component, dir } = await load(rel);
    const fixtures = await readFixtures(dir);
    const outcomes = runTemplateTests(pkg, { fixtures, component, fixtureRoot: path.join(dir, FIXTURES_DIR) });
    expect(outcomes.length).toBeGreaterThan(0);
    for (const o of outcomes) {
      expect({ name: o.name, errors: o.errors.map((e) => e.message) }).toEqual({ name: o.name, errors: [] });
      expect(o.status).toBe('passed');
    }
  });

  test('fixture generation reproduces the fixture tree exactly', async () => {
    const { pkg, dir } = await load(rel);
    const want = await readFixtures(dir);
    const got = generateFixtures({ ...pkg, components: undefined });
    const gotRel = new Map([...got].map(([p, b]) => [p.slice(FIXTURES_DIR.length + 1), toText(b)]));
    const wantRel = new Map([...want].map(([p, b]) => [p, toText(b)]));
    expect(Object.fromEntries(gotRel)).toEqual(Object.fromEntries(wantRel));
  });
});

test('without a declared image, index .images yields Go\'s <no value> (what PKO itself does)', async () => {
  const { pkg } = await loadRaw('remote-phase-component');
  const out = generateFixtures({ ...pkg, components: undefined });
  const text = toText(out.get('.test-fixtures/namespace-scope/package-operator-remote-phase-manager.Deployment.yaml')!);
  expect(text).toContain('image: <no value>');
});
