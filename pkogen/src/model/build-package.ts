import { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';
import { checkDefinition, CheckOptions } from './checks.js';
import type { PackageDefinition } from './package.js';
import { synthesize } from './synthesize.js';

export interface BuiltPackage {
  files: FileMap;
  findings: Finding[];
}

/** Synthesizes a package and runs the generation checks on it. */
export async function buildPackage(def: PackageDefinition, opts: CheckOptions = {}): Promise<BuiltPackage> {
  const files = synthesize(def);
  const findings = checkDefinition(def, files, opts);
  return { files, findings };
}
