/**
 * PKO's TemplateTestValidator for a package directory, in the shape `validatePackage` takes
 * (`ValidateOptions.templateTests`): fixtures are read from `<dir>[/components/<c>]/.test-fixtures/`
 * (dot-directories are not part of the package FileMap); a missing `<case>` directory is
 * generated like PKO does, unless `generateMissing` is false.
 */
import * as path from 'node:path';
import { promises as fsp } from 'node:fs';
import type { FileMap } from '../core/filemap.js';
import { readDirToFileMap, writeFileMapAtomic } from '../core/fs.js';
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

async function readFixtures(dir: string): Promise<FileMap> {
  try {
    await fsp.access(dir);
  } catch {
    return new Map();
  }
  return readDirToFileMap(dir, { skipDotFiles: false });
}

export function dirTemplateTestRunner(packageDir: string, opts: DirTemplateTestOptions = {}): TemplateTestRunner {
  return async (pkg: LoadedPackage, component: string) => {
    const base = component ? path.join(packageDir, 'components', component) : packageDir;
    const fixtureRoot = path.join(base, FIXTURES_DIR);
    const fixtures = await readFixtures(fixtureRoot);
    const violations: Violation[] = [];
    const rendered: RenderedTestCase[] = [];
    let outcomes;
    try {
      outcomes = runTemplateTests(pkg, { fixtures, fixtureRoot, component: component || undefined });
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
