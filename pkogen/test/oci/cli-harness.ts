import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import { SHARED } from '../helpers.js';

export const SHARED_PACKAGES = path.join(SHARED, 'reference', 'pko-packages');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs pkogen in-process with a clean environment (no real credential files). */
export async function pkogen(args: string[], env: Record<string, string | undefined> = {}, cwd = process.cwd()): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const home = mkdtempSync(path.join(tmpdir(), 'pkogen-home-'));
  const code = await main(args, {
    stdout: (t) => (stdout += t),
    stderr: (t) => (stderr += t),
    env: { PATH: process.env.PATH, HOME: home, ...env },
    cwd,
  });
  return { code, stdout, stderr };
}

/** A copy of one of PKO's fixture packages (read-only in ../shared) in a temp dir. */
export function copyFixturePackage(name: string, dest?: string): string {
  const dir = dest ?? mkdtempSync(path.join(tmpdir(), `pkogen-pkg-${name.replace(/\W/g, '_')}-`));
  cpSync(path.join(SHARED_PACKAGES, name), dir, { recursive: true });
  return dir;
}
