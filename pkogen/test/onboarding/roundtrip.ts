/**
 * The round-trip harness: kickstart → emitted TypeScript → `generate` (the emitted module's
 * default export, run from source) → render each test case, compared with rendering the input.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FileMap } from '../../src/core/filemap.js';
import { kickstart, type KickstartResult, type KickstartSource } from '../../src/kickstart/convert.js';
import { emitResources } from '../../src/kickstart/emit.js';
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
}

export async function kickstartAndGenerate(sources: KickstartSource[], outDir: string, opts: Parameters<typeof kickstart>[1] = {}): Promise<RoundTrip> {
  const result = await kickstart(sources, opts);
  const files = emitResources(result.definition, { origin: 'test', relaxRules: result.relaxRules });
  mkdirSync(outDir, { recursive: true });
  for (const [p, text] of files) writeFileSync(path.join(outDir, p), text);
  const mod = (await import(pathToFileURL(path.join(outDir, 'resources.ts')).href)) as { default: () => Promise<GeneratedOutput> };
  const output = await mod.default();
  return { result, sources: files, output, pkg: output.directories.package };
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
