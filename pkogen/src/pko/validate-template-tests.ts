/**
 * PKO's TemplateTestValidator for `validate <dir>`, built on the renderer: per test case, render
 * (errors are violations), run the default object validators on every rendered object (before CEL
 * filtering, as PKO does), then compare with `.test-fixtures/<case>/` when the case passed.
 * Fixtures are read-only here: a missing fixture directory is reported, never written.
 */
import { configValuesOf, redactValues } from './redact.js';
import type { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';
import { validateObjects } from './object-validators.js';
import { RenderError, renderPackage, type RenderResult } from './render.js';
import { FIXTURES_DIR, runTemplateTests, testCaseRequest } from './template-tests.js';
import { LoadedPackage, Violation } from './types.js';
import { objectViolationFinding, violationFinding, type RenderedTestCase, type TemplateTestRunner } from './validate.js';

export interface FixtureSource {
  /** Fixture files relative to the package root: `[components/<n>/].test-fixtures/<case>/<path>`. */
  files: FileMap;
  /** Absolute package directory, for PKO's "not found in fixtures folder" message. */
  root?: string;
  /** Paths of `files` read through a symbolic link (fixtures-dir.ts): never "should not exist". */
  linked?: Set<string>;
  /** Fixture symlinks not followed (outside the package, loops): one warning each. */
  skipped?: { path: string; reason: string }[];
  /** Test case directories present, empty ones too (fixtures-dir.ts). */
  caseDirs?: Set<string>;
}

export interface TemplateTestReport {
  findings: Finding[];
  rendered: RenderedTestCase[];
  /** Test cases without a fixture directory (PKO would generate them). */
  missingFixtures: string[];
  /** Their fixtures as PKO generates them: case name → files (relative to `.test-fixtures/<case>/`). */
  generatedFixtures: Map<string, FileMap>;
}

function asFinding(e: unknown, component: string): Finding {
  if (e instanceof Violation) return violationFinding(e, component);
  if (e instanceof RenderError) {
    const f: Finding = { severity: 'error', rule: 'pko/render', message: e.message };
    if (e.file) f.file = (component ? `components/${component}/` : '') + e.file;
    if (e.doc !== undefined) f.doc = e.doc;
    if (e.line !== undefined) f.line = e.line;
    if (e.line !== undefined && e.column !== undefined) f.column = e.column;
    return f;
  }
  throw e;
}

export function runPackageTemplateTests(pkg: LoadedPackage, component: string, fixtures: FixtureSource): TemplateTestReport {
  const dir = (component ? `components/${component}/` : '') + `${FIXTURES_DIR}/`;
  const own: FileMap = new Map();
  for (const [p, b] of fixtures.files) if (p.startsWith(dir)) own.set(p.slice(dir.length), b);
  const linked = new Set([...(fixtures.linked ?? [])].filter((p) => p.startsWith(dir)).map((p) => p.slice(dir.length)));
  const caseDirs = fixtures.caseDirs && new Set([...fixtures.caseDirs].filter((p) => p.startsWith(dir)).map((p) => p.slice(dir.length)));
  const findings: Finding[] = [];
  const rendered: RenderedTestCase[] = [];
  const failedCases = new Set<string>();
  // Each case is rendered once: the fixture comparison below reads the same results.
  const results: (RenderResult | null)[] = [];
  for (const tc of pkg.manifest.test?.template ?? []) {
    let result: RenderResult | null = null;
    try {
      const r = (result = renderPackage(testCaseRequest(pkg, tc, component || undefined)));
      const vs = validateObjects(r.allObjects, pkg.manifest);
      if (vs.length) {
        findings.push(...vs.map((v) => objectViolationFinding(v, component, r.allObjects)));
        failedCases.add(tc.name);
      }
      rendered.push({ component, testCase: tc.name, namespace: tc.context?.package?.metadata?.namespace ?? '', objects: r.objects });
    } catch (e) {
      findings.push(asFinding(e, component));
      failedCases.add(tc.name);
    }
    results.push(result);
  }
  const missingFixtures: string[] = [];
  const generatedFixtures = new Map<string, FileMap>();
  if (failedCases.size < (pkg.manifest.test?.template ?? []).length) {
    let outcomes: ReturnType<typeof runTemplateTests>;
    try {
      outcomes = runTemplateTests(pkg, { fixtures: own, linked, caseDirs, fixtureRoot: fixtures.root ? `${fixtures.root}/${dir.slice(0, -1)}` : undefined, rendered: results });
    } catch (e) {
      outcomes = [];
      findings.push(asFinding(e, component));
    }
    for (const o of outcomes) {
      if (failedCases.has(o.name)) continue;
      if (o.status === 'generated') {
        missingFixtures.push(o.name);
        generatedFixtures.set(o.name, o.rendered);
      }
      findings.push(...o.errors.map((v) => violationFinding(v, component)));
    }
  }
  for (const s of fixtures.skipped ?? []) {
    if (!s.path.startsWith(dir)) continue;
    findings.push({ severity: 'warning', rule: 'fixtures/symlink-not-followed', message: `${component ? `component "${component}": ` : ''}symbolic link in the fixtures not followed: ${s.reason} (kubectl package follows it)`, file: s.path });
  }
  for (const m of missingFixtures) {
    findings.push({ severity: 'warning', rule: 'pko/fixtures-missing', message: `${component ? `component "${component}": ` : ''}test case "${m}" has no ${dir}${m}/ directory; kubectl package validate would generate it and pass`, file: `${dir}${m}` });
  }
  // The test cases' config values never reach a message (object validators quote the values they reject, fixture diffs show rendered text).
  const values = (pkg.manifest.test?.template ?? []).flatMap((tc) => configValuesOf(tc.context?.config));
  const shown = values.length ? findings.map((f) => ({ ...f, message: redactValues(f.message, values) })) : findings;
  return { findings: shown, rendered, missingFixtures, generatedFixtures };
}

/** A TemplateTestRunner for validatePackage, over fixtures read from the package directory. */
export function templateTestRunner(fixtures: FixtureSource): TemplateTestRunner {
  return async (pkg, component) => {
    const r = runPackageTemplateTests(pkg, component, fixtures);
    return { findings: r.findings, rendered: r.rendered };
  };
}

export interface UntestedRenderOptions {
  /** Config to render with (`--config FILE`); default `{}`, completed by the schema defaults. */
  config?: Record<string, unknown>;
}

/** The case name reported for a render made without a test case (never a fixture directory). */
export const DEFAULTS_CASE = '(schema defaults)';

/**
 * A package (or component) with templates and no `test.template` case is never rendered by PKO's
 * validate, so nothing in its templates would be checked. Render it once with the config's schema
 * defaults (or the given config) so the object rules run, and say so; a failed render is a
 * warning, since the config that would make it succeed is unknown.
 */
export function renderUntestedTemplates(pkg: LoadedPackage, component: string, opts: UntestedRenderOptions = {}): TemplateTestReport {
  const prefix = component ? `component "${component}": ` : '';
  const configText = opts.config ? 'the --config file' : 'the config schema defaults';
  const findings: Finding[] = [{
    severity: 'warning',
    rule: 'package/no-test-cases',
    message: `${prefix}templates but no test.template case: PKO validates none of them; rendered once with ${configText} instead. Add a test.template case (with .test-fixtures) so every change is checked`,
    file: (component ? `components/${component}/` : '') + 'manifest.yaml',
    path: 'test.template',
  }];
  const rendered: RenderedTestCase[] = [];
  const scopes = pkg.manifest.spec.scopes ?? [];
  // Like `kubectl package tree`: placeholder metadata; Cluster scope when the package only supports it.
  const namespace = scopes.includes('Namespaced') || scopes.length === 0 ? 'namespace' : '';
  try {
    const r = renderPackage({
      manifest: pkg.manifest,
      lock: pkg.manifestLock,
      files: pkg.files,
      package: { metadata: { name: 'name', namespace } },
      config: opts.config ?? {},
      environment: null,
      rejectInvalidConfig: true,
      component: component || undefined,
    });
    findings.push(...validateObjects(r.allObjects, pkg.manifest).map((v) => objectViolationFinding(v, component, r.allObjects)));
    rendered.push({ component, testCase: DEFAULTS_CASE, namespace: '', objects: r.objects });
  } catch (e) {
    const f = asFinding(e, component);
    findings.push({ ...f, severity: 'warning', rule: 'package/untested-render-failed', message: `${f.message} (rendering with ${configText}; pass --config FILE or add a test.template case)` });
  }
  return { findings, rendered, missingFixtures: [], generatedFixtures: new Map() };
}
