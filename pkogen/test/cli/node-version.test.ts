/** bin/pkogen.js refuses a Node older than pkogen supports with one line, before loading anything (issue 24). */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ROOT } from '../helpers.js';

const BIN = path.join(ROOT, 'bin', 'pkogen.js');
let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(tmpdir(), 'pkogen-node-version-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CLI with process.versions.node made to read `version` (a preload, as an older Node would report it). */
function runAs(version: string, ...args: string[]) {
  const preload = path.join(dir, `as-${version}.cjs`);
  writeFileSync(preload, `Object.defineProperty(process.versions, 'node', { value: ${JSON.stringify(version)} });\n`);
  const r = spawnSync(process.execPath, ['-r', preload, BIN, ...args], { encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test.each(['20.20.2', '18.19.0', '21.7.3'])('Node %s: one clear line, exit 1, nothing run', (v) => {
  expect(runAs(v, 'validate', '--help')).toEqual({ code: 1, stdout: '', stderr: `pkogen: Node.js ${v} is too old; pkogen needs Node.js 22 or later (an LTS: 22 or 24)\n` });
});

test.each(['22.12.0', '24.21.0'])('Node %s: runs', (v) => {
  const r = runAs(v, '--version');
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/^pkogen \d+\.\d+\.\d+/);
});
