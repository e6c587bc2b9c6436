/**
 * PKO's TemplateTestValidator for a package directory, in the shape `validatePackage` takes
 * (`ValidateOptions.templateTests`): fixtures are read from `<dir>[/components/<c>]/.test-fixtures/`
 * (dot-directories are not part of the package FileMap); a missing `<case>` directory is
 * generated like PKO does, unless `generateMissing` is false.
 */
import * as path from 'node:path';
import type { FileMap } from '../core/filemap.js';
import { writeFileMapAtomic } from '../core/fs.js';
import { readFixtureTree } from './fixtures-dir.js';
import { RenderError } from './render.js';
import { FIXTURES_DIR, runTemplateTests } from './template-tests.js';
import type { LoadedPackage } from './types.js';
import { Violation, ViolationReason } from './types.js';
import { violationFinding, type RenderedTestCase, type TemplateTestRunner } from './validate.js';
import { CelEvalError } from './cel.js';

export interface DirTemplateTestOptions {
  /** Write fixtures for test cases without a fixture directory (PKO's behaviour). Default true. */
  generateMissing?: boolean;
}

export function dirTemplateTestRunner(packageDir: string, opts: DirTemplateTestOptions = {}): TemplateTestRunner {
  return async (pkg: LoadedPackage, component: string) => {
    const base = component ? path.join(packageDir, 'components', component) : packageDir;
    const fixtureRoot = path.join(base, FIXTURES_DIR);
    // The same reading as validate's (fixtures-dir.ts): in-package links followed, as PKO follows them.
    const tree = await readFixtureTree(packageDir);
    const own = `${component ? `components/${component}/` : ''}${FIXTURES_DIR}/`;
    const under = <T extends string>(ks: Iterable<T>) => [...ks].filter((k) => k.startsWith(own)).map((k) => k.slice(own.length));
    const fixtures: FileMap = new Map(under(tree.files.keys()).map((k) => [k, tree.files.get(own + k)!]));
    const linked = new Set(under(tree.linked));
    const caseDirs = new Set(under(tree.caseDirs));
    const violations: Violation[] = [];
    const rendered: RenderedTestCase[] = [];
    let outcomes;
    try {
      outcomes = runTemplateTests(pkg, { fixtures, linked, caseDirs, fixtureRoot, component: component || undefined });
    } catch (e) {
      if (e instanceof Violation) return { findings: [violationFinding(e, component)], rendered };
      if (e instanceof RenderError || e instanceof CelEvalError) {
        return { findings: [violationFinding(new Violation({ reason: ViolationReason.Unknown, details: e.message }), component)], rendered };
      }
      throw e;
    }
    for (const o of outcomes) {
      violations.push(...o.errors);
      if (o.status === 'generated' && opts.generateMissing !== false) await writeFileMapAtomic(path.join(fixtureRoot, o.name), o.rendered);
      const tc = (pkg.manifest.test?.template ?? []).find((t) => t.name === o.name)!;
      rendered.push({ component, testCase: o.name, namespace: tc.context?.package?.metadata?.namespace ?? '', objects: o.result.allObjects });
    }
    return { findings: violations.map((v) => violationFinding(v, component)), rendered };
  };
}
