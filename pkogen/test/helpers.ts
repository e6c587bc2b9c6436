import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';

/** pkogen's own folder (its package.json, bin/, src/). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The repository pkogen lives in: on-cluster-build, whose package (package/, resources/) many tests use as a real-world input. */
export const REPO = path.resolve(ROOT, '..');
export const SHARED = path.resolve(REPO, '..', 'shared');
/**
 * The node_modules pkogen's dependencies are installed in: pkogen's own folder when it is installed
 * alone, the workspace root's (npm hoists them there) in this repository.
 */
export const NODE_MODULES = [path.join(ROOT, 'node_modules'), path.join(REPO, 'node_modules')].find((d) => existsSync(path.join(d, 'ajv', 'package.json'))) ?? path.join(ROOT, 'node_modules');
/** Our own generated package (the repository's package/): a real-world input. */
export const OUR_PACKAGE = path.join(REPO, 'package');
/** Our bundle module as `make build` compiles it at the repository root. */
export const OUR_BUNDLE = path.join(REPO, 'dist', 'resources', 'resources.js');

/** The repository's resources/resources.ts (run from source, like every test), loaded by path: pkogen's own sources never import it. */
export async function ourResources(): Promise<{ rolloutOptions: () => import('../src/rollout/generate.js').RolloutTemplateOptions }> {
  const file = path.join(REPO, 'resources', 'resources.ts');
  return (await import(file)) as { rolloutOptions: () => import('../src/rollout/generate.js').RolloutTemplateOptions };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in-process with captured output. */
export async function runCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, {
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    env: opts.env ?? process.env,
    cwd: opts.cwd ?? ROOT,
  });
  return { code, stdout, stderr };
}

/** Runs the built CLI (dist/) as a separate process, e.g. under another TZ or umask. */
export function runBuiltCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; umask?: string } = {}): CliResult {
  const bin = path.join(ROOT, 'bin', 'pkogen.js');
  const cmd = opts.umask ? `umask ${opts.umask} && exec node "$0" "$@"` : 'exec node "$0" "$@"';
  const r = spawnSync('bash', ['-c', cmd, bin, ...args], { cwd: opts.cwd ?? ROOT, env: { ...process.env, ...(opts.env ?? {}) }, encoding: 'utf8' });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function tempDir(prefix = 'pkogen-test-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
