/**
 * PKO's TemplateTestValidator for `validate <dir>`, built on the renderer: per test case, render
 * (errors are violations), run the default object validators on every rendered object (before CEL
 * filtering, as PKO does), then compare with `.test-fixtures/<case>/` when the case passed.
 * Fixtures are read-only here: a missing fixture directory is reported, never written.
 */
import type { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';
import { validateObjects } from './object-validators.js';
import { RenderError, renderPackage } from './render.js';
import { FIXTURES_DIR, runTemplateTests, testCaseRequest } from './template-tests.js';
import { buildTemplateSet, TemplateExecError } from './template-runner.js';
import { LoadedPackage, Violation } from './types.js';
import { objectViolationFinding, violationFinding, type RenderedTestCase, type TemplateTestRunner } from './validate.js';

/** Whether the Go template engine is part of this build (the renderer needs it for `.gotmpl`). */
export function templateEngineAvailable(): boolean {
  try {
    buildTemplateSet([], () => ({}) as never);
    return true;
  } catch (e) {
    return !(e instanceof TemplateExecError && /not merged/.test(e.message));
  }
}

export interface FixtureSource {
  /** Fixture files relative to the package root: `[components/<n>/].test-fixtures/<case>/<path>`. */
  files: FileMap;
  /** Absolute package directory, for PKO's "not found in fixtures folder" message. */
  root?: string;
}

export interface TemplateTestReport {
  findings: Finding[];
  rendered: RenderedTestCase[];
  /** Test cases without a fixture directory (PKO would generate them). */
  missingFixtures: string[];
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
  const findings: Finding[] = [];
  const rendered: RenderedTestCase[] = [];
  const failedCases = new Set<string>();
  for (const tc of pkg.manifest.test?.template ?? []) {
    try {
      const r = renderPackage(testCaseRequest(pkg, tc, component || undefined));
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
  }
  const missingFixtures: string[] = [];
  if (failedCases.size < (pkg.manifest.test?.template ?? []).length) {
    let outcomes: ReturnType<typeof runTemplateTests>;
    try {
      outcomes = runTemplateTests(pkg, { fixtures: own, fixtureRoot: fixtures.root ? `${fixtures.root}/${dir.slice(0, -1)}` : undefined });
    } catch (e) {
      outcomes = [];
      findings.push(asFinding(e, component));
    }
    for (const o of outcomes) {
      if (failedCases.has(o.name)) continue;
      if (o.status === 'generated') missingFixtures.push(o.name);
      findings.push(...o.errors.map((v) => violationFinding(v, component)));
    }
  }
  for (const m of missingFixtures) {
    findings.push({ severity: 'warning', rule: 'pko/fixtures-missing', message: `${component ? `component "${component}": ` : ''}test case "${m}" has no ${dir}${m}/ directory; kubectl package validate would generate it and pass`, file: `${dir}${m}` });
  }
  return { findings, rendered, missingFixtures };
}

/** A TemplateTestRunner for validatePackage, over fixtures read from the package directory. */
export function templateTestRunner(fixtures: FixtureSource): TemplateTestRunner {
  return async (pkg, component) => {
    const r = runPackageTemplateTests(pkg, component, fixtures);
    return { findings: r.findings, rendered: r.rendered };
  };
}
