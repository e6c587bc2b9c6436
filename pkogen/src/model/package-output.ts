/**
 * The usual body of a bundle module's default export: build the package, add the template-test
 * fixtures, and hand `pkogen generate` one directory plus any extra files. Bundles that need more
 * (a rollout Template, other files) add them to the result.
 */
import { toBytes, type FileMap } from '../core/filemap.js';
import { packageFixtures } from '../pko/template-tests.js';
import { toUserError } from '../pko/render-errors.js';
import { buildPackage } from './build-package.js';
import type { GeneratedOutput } from './bundle.js';
import type { CheckOptions } from './checks.js';
import type { PackageDefinition } from './package.js';

export interface PackageOutputOptions extends CheckOptions {
  /** Directory of the package, relative to the project root (default `package`). */
  dir?: string;
  /** Single generated files next to the package (path relative to the root → text). */
  files?: Record<string, string>;
  /**
   * Generation-check rules reported as warnings instead of errors. For packages brought in by
   * `pkogen kickstart`, which PKO accepts but which do not yet follow pkogen's house rules.
   */
  relaxRules?: string[];
}

export async function packageOutput(def: PackageDefinition, opts: PackageOutputOptions = {}): Promise<GeneratedOutput> {
  const { dir = 'package', files: extra = {}, relaxRules = [], ...checks } = opts;
  const pkg = await buildPackage(def, checks);
  const relaxed = new Set(relaxRules);
  pkg.findings = pkg.findings.map((f) => (f.severity === 'error' && f.rule !== undefined && relaxed.has(f.rule) ? { ...f, severity: 'warning' as const } : f));
  const files: FileMap = new Map(pkg.files);
  // Fixtures only for a package that passed its checks: rendering a broken one would only repeat the finding.
  if (!pkg.findings.some((f) => f.severity === 'error')) {
    let fixtures: FileMap;
    try {
      fixtures = packageFixtures(pkg.files);
    } catch (e) {
      throw toUserError(e);
    }
    for (const [p, b] of fixtures) files.set(p, b);
  }
  const sorted: FileMap = new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const single: Record<string, Uint8Array> = {};
  for (const [p, text] of Object.entries(extra)) single[p] = toBytes(text);
  return { directories: { [dir]: sorted }, files: single, findings: pkg.findings };
}
