/**
 * PKO's template tests (packagevalidation/templatevalidation.go): render every `test.template`
 * case and compare with `.test-fixtures/<case>/` — raw rendered text, missing fixture directory =
 * generate, PKO's messages, `diff -u` output. Components first (prefix `component "<n>": `), then root.
 */
import { type FileMap, equalBytes, toBytes, toText } from '../core/filemap.js';
import { renderPackage, type RenderRequest, type RenderResult, isObjectFile, isTemplateFile } from './render.js';
import type { LoadedPackage, PackageManifestTestCaseTemplate } from './types.js';
import { Violation, ViolationReason } from './types.js';
import { unifiedDiff } from './unified-diff.js';
import { redactDiff } from './redact.js';
import { loadPackage } from './loader.js';

export const FIXTURES_DIR = '.test-fixtures';

/** The request a test case makes (PKO: test case package/config/environment, static images). */
export function testCaseRequest(pkg: Pick<LoadedPackage, 'manifest' | 'files' | 'manifestLock'>, tc: PackageManifestTestCaseTemplate, component?: string): RenderRequest {
  const c = tc.context ?? ({} as PackageManifestTestCaseTemplate['context']);
  return {
    manifest: pkg.manifest,
    lock: pkg.manifestLock,
    files: pkg.files,
    package: { metadata: { name: c.package?.metadata?.name ?? '', namespace: c.package?.metadata?.namespace ?? '', labels: c.package?.metadata?.labels ?? null, annotations: c.package?.metadata?.annotations ?? null }, image: c.package?.image },
    config: (c.config as Record<string, unknown> | undefined) ?? {},
    environment: c.environment ?? null,
    component,
  };
}

/**
 * The fixture files of one rendered test case, keyed by rendered path: raw text of every YAML
 * output (static or templated), or only its surviving documents (joined by `\n---\n`, plus `\n`)
 * when CEL dropped some; nothing for excluded, fully filtered or blank outputs.
 */
export function fixtureFiles(result: RenderResult): FileMap {
  const out: FileMap = new Map();
  const byPath = new Map<string, number>();
  const kept = new Map<string, string[]>();
  for (const o of result.allObjects) byPath.set(o.path, (byPath.get(o.path) ?? 0) + 1);
  for (const o of result.objects) {
    const l = kept.get(o.path) ?? [];
    l.push(o.text);
    kept.set(o.path, l);
  }
  for (const [p, bytes] of [...result.files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (isTemplateFile(p) || !(p.endsWith('.yaml') || p.endsWith('.yml'))) continue;
    if (result.excludedPaths.has(p)) continue;
    const text = toText(bytes);
    if (text.trim() === '') continue;
    const total = byPath.get(p) ?? 0;
    const survivors = kept.get(p) ?? [];
    if (total > 0 && survivors.length === 0) continue;
    if (survivors.length < total) out.set(p, toBytes(survivors.join('\n---\n') + '\n'));
    else out.set(p, bytes);
  }
  return out;
}

/** Rendered paths with at least one surviving object (what PKO compares against fixtures). */
function objectPaths(result: RenderResult): string[] {
  return [...new Set(result.objects.map((o) => o.path))].filter(isObjectFile);
}

export interface TestCaseOutcome {
  name: string;
  /** `generated` when the fixture directory was missing. */
  status: 'passed' | 'failed' | 'generated';
  errors: Violation[];
  /** Fixture files as this render produces them (paths relative to the case dir). */
  rendered: FileMap;
  result: RenderResult;
}

export interface TemplateTestOptions {
  /** Fixtures present on disk, relative to the package's `.test-fixtures/` (e.g. `namespace-scope/deployment.yaml`). */
  fixtures: FileMap;
  /** Absolute-ish fixture root for messages (PKO prints the absolute fixture path). */
  fixtureRoot?: string;
  component?: string;
  /** Fixture paths reached through a symbolic link: PKO's fixture listing does not descend into links. */
  linked?: Set<string>;
  /** Names of the case directories present, empty ones too (otherwise: those holding a file). */
  caseDirs?: Set<string>;
  /**
   * The test cases already rendered with `testCaseRequest(pkg, case, component)`, by position in
   * `test.template`: the result is used instead of rendering the case again; `null` = the case
   * failed to render and was reported by the caller (no outcome for it).
   */
  rendered?: readonly (RenderResult | null)[];
}

/** Runs one package's (or component's) test cases against its fixtures. */
export function runTemplateTests(pkg: Pick<LoadedPackage, 'manifest' | 'files' | 'manifestLock'>, opts: TemplateTestOptions): TestCaseOutcome[] {
  const outcomes: TestCaseOutcome[] = [];
  for (const [i, tc] of (pkg.manifest.test?.template ?? []).entries()) {
    const given = opts.rendered?.[i];
    if (given === null) continue;
    const result = given ?? renderPackage(testCaseRequest(pkg, tc, opts.component));
    const rendered = fixtureFiles(result);
    const caseDir = `${tc.name}/`;
    const present = [...opts.fixtures.keys()].filter((p) => p.startsWith(caseDir));
    if (present.length === 0 && !hasDir(opts.fixtures, tc.name) && !opts.caseDirs?.has(tc.name)) {
      outcomes.push({ name: tc.name, status: 'generated', errors: [], rendered, result });
      continue;
    }
    const errors: Violation[] = [];
    const withObjects = new Set(objectPaths(result));
    for (const f of present.sort()) {
      const rel = f.slice(caseDir.length);
      // PKO returns these two as plain errors (no violation reason in the text)
      if (!withObjects.has(rel) && !opts.linked?.has(f)) errors.push(new Violation({ reason: `file ${rel} should not exist, filtered or empty after template render` }));
    }
    for (const p of [...withObjects].sort()) {
      const fixture = opts.fixtures.get(caseDir + p);
      if (!fixture) {
        const root = opts.fixtureRoot ? `${opts.fixtureRoot}/` : '';
        errors.push(new Violation({ reason: `file ${root}${caseDir}${p} not found in fixtures folder` }));
        break; // PKO returns here: a missing fixture aborts the test case
      }
      const actual = rendered.get(p) ?? new Uint8Array();
      if (!equalBytes(fixture, actual)) {
        const base = p.slice(p.lastIndexOf('/') + 1);
        errors.push(
          new Violation({
            reason: ViolationReason.FixtureMismatch,
            path: p,
            component: opts.component,
            // PKO TrimSpaces diff's output
            // Redacted: a Secret's (or a password field's) value must not reach a finding.
            details: `Testcase "${tc.name}"\n${redactDiff(unifiedDiff(base, toText(fixture), toText(actual)).trim(), toText(fixture) + '\n' + toText(actual))}`,
          }),
        );
      }
    }
    outcomes.push({ name: tc.name, status: errors.length ? 'failed' : 'passed', errors, rendered, result });
  }
  return outcomes;
}

function hasDir(fixtures: FileMap, name: string): boolean {
  for (const k of fixtures.keys()) if (k.startsWith(name + '/')) return true;
  return false;
}

/**
 * The generator's entry point: the complete `.test-fixtures/` tree of a package (and of its
 * components, under `components/<name>/.test-fixtures/`), as PKO would generate it, keyed by path
 * relative to the package root. Throws RenderError/Violation like PKO when a test case fails to render.
 */
export function generateFixtures(pkg: Pick<LoadedPackage, 'manifest' | 'files' | 'manifestLock' | 'components'>): FileMap {
  const out: FileMap = new Map();
  return generateFixturesFor(pkg, undefined);
}

function generateFixturesFor(pkg: Pick<LoadedPackage, 'manifest' | 'files' | 'manifestLock' | 'components'>, component: string | undefined): FileMap {
  const out: FileMap = new Map();
  for (const [name, comp] of Object.entries(pkg.components ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))) {
    for (const [p, b] of generateFixturesFor({ ...comp, components: undefined }, name)) out.set(`components/${name}/${p}`, b);
  }
  for (const tc of pkg.manifest.test?.template ?? []) {
    const result = renderPackage(testCaseRequest(pkg, tc, component));
    for (const [p, b] of fixtureFiles(result)) out.set(`${FIXTURES_DIR}/${tc.name}/${p}`, b);
  }
  return out;
}

/**
 * `generateFixtures` from a package's files (manifest included, as the generator synthesizes
 * them): loads with PKO's structural loader, then renders every test case of the root and of
 * each component. Returned paths are relative to the package root:
 * `.test-fixtures/<case>/<file>` and `components/<name>/.test-fixtures/<case>/<file>`.
 * Throws Violation / RenderError (see render-errors.ts `toUserError`) when PKO would fail.
 */
export function packageFixtures(files: FileMap): FileMap {
  return generateFixtures(loadPackage(files));
}
