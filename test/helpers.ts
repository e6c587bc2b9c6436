import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { main } from '../src/cli/main.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED = path.resolve(ROOT, '..', 'shared');

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
