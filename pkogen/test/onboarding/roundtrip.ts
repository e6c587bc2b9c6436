/**
 * The round-trip harness: kickstart → emitted TypeScript → `generate` (the emitted module's
 * default export, run from source) → render each test case, compared with rendering the input.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileMap } from '../../src/core/filemap.js';
import { kickstart, type KickstartResult, type KickstartSource } from '../../src/kickstart/convert.js';
import { emitTypedResources } from '../../src/kickstart/typecheck.js';
import { ROOT } from '../helpers.js';
import type { GeneratedOutput } from '../../src/model/bundle.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage } from '../../src/pko/render.js';
import { goJson } from '../../src/pko/objects.js';
import { testCaseRequest } from '../../src/pko/template-tests.js';
import type { PackageManifestTestCaseTemplate } from '../../src/pko/types.js';

export interface RoundTrip {
  result: KickstartResult;
  sources: Map<string, string>;
  output: GeneratedOutput;
  pkg: FileMap;
  /** Objects kickstart wrote without their type because they did not type-check. */
  untypedWarnings: string[];
}

/**
 * pkogen's declarations as an install has them (`pkogen` → dist/src/index.d.ts, `pkogen/k8s` →
 * dist/src/public/k8s.d.ts): `tsc -b` writes them (the suite runs after a build). Declarations, not
 * the sources: a program over the sources would type-check all of pkogen each time.
 */
export const SOURCE_TYPES = { index: path.join(ROOT, 'dist', 'src', 'index.d.ts'), publicDir: path.join(ROOT, 'dist', 'src', 'public') };

export async function kickstartAndGenerate(sources: KickstartSource[], outDir: string, opts: Parameters<typeof kickstart>[1] = {}): Promise<RoundTrip> {
  const result = await kickstart(sources, opts);
  // As the CLI does: emitted, then type-checked against pkogen's own sources.
  const { files, untypedWarnings } = emitTypedResources(result.definition, { origin: 'test', relaxRules: result.relaxRules }, SOURCE_TYPES, path.join(outDir, '.check'));
  for (const [p, text] of files) {
    mkdirSync(path.dirname(path.join(outDir, p)), { recursive: true });
    writeFileSync(path.join(outDir, p), text);
  }
  const mod = (await import(pathToFileURL(path.join(outDir, 'resources.ts')).href)) as { default: () => Promise<GeneratedOutput> };
  const output = await mod.default();
  return { result, sources: files, output, pkg: output.directories.package, untypedWarnings };
}

/** Rendered objects per test case, each as Go-style JSON (sorted keys), sorted. */
export function renderedObjects(all: FileMap, fallback?: PackageManifestTestCaseTemplate[]): Record<string, string[]> {
  // As PKO imports a directory: dot-files (the generated .test-fixtures/) are not package files.
  const files: FileMap = new Map([...all].filter(([p]) => !p.split('/').some((s) => s.startsWith('.'))));
  const pkg = loadPackage(files);
  const out: Record<string, string[]> = {};
  // A package without test cases is rendered under the given ones (the kickstarted package's).
  const cases = pkg.manifest.test?.template?.length ? pkg.manifest.test.template : fallback?.length ? fallback : [{ name: 'default', context: { package: { metadata: { name: 'test', namespace: 'test' } }, environment: {} } }];
  for (const tc of cases) {
    out[tc.name] = renderPackage(testCaseRequest(pkg, tc)).objects.map((o) => goJson(o.object)).sort();
  }
  return out;
}
