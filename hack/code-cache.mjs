#!/usr/bin/env node
/**
 * `make build` step after hack/bundle.mjs: writes the V8 code cache of each one-file CommonJS
 * command bundle (dist/bundle/cjs/<command>.cjs.<node version>-<arch>.cache) that bin/pkogen.js
 * compiles validate and build with. Each cache is made after a representative run (the command on
 * our package/, in a scratch folder), so the functions V8 compiled lazily during it are in it too.
 *
 * Usage: node hack/code-cache.mjs [BIN PACKAGE_DIR] (default bin/pkogen.js and package/; the test
 * passes a copy of bin/pkogen.js next to a scratch bundle, and a fixture package).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length !== 0 && args.length !== 2) {
  process.stderr.write('usage: node hack/code-cache.mjs [BIN PACKAGE_DIR]\n');
  process.exit(2);
}
const bin = path.resolve(root, args[0] ?? 'bin/pkogen.js');
const pkg = path.resolve(root, args[1] ?? 'package');
const cjsDir = path.resolve(path.dirname(bin), '..', 'dist', 'bundle', 'cjs');

// The runs that warm each cache: what the user runs most, on a real package.
const RUNS = {
  validate: ['validate', 'package'],
  build: ['build', 'package', '-t', 'localhost/pkogen-code-cache:1', '--output-file', 'image.tar'],
};

// The caches only make start-up faster: a missing or failing warm run leaves the ES bundle in use
// and never fails the build (a package/ that does not exist yet, or has findings, must not stop
// `make package` from regenerating it). Findings do not matter for warming: the cache is written
// after the run whatever its exit code.
if (!existsSync(path.join(pkg, 'manifest.yaml'))) {
  process.stderr.write(`hack/code-cache.mjs: no package in ${pkg} yet; code caches not made (the ES bundle runs)\n`);
  process.exit(0);
}
const scratch = mkdtempSync(path.join(tmpdir(), 'pkogen-code-cache-'));
try {
  cpSync(pkg, path.join(scratch, 'package'), { recursive: true });
  for (const [command, argv] of Object.entries(RUNS)) {
    const cache = path.join(cjsDir, `${command}.cjs.${process.version}-${process.arch}.cache`);
    rmSync(cache, { force: true });
    const r = spawnSync(process.execPath, [bin, ...argv], { cwd: scratch, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PKOGEN_CODE_CACHE: 'write' } });
    if (!existsSync(cache)) {
      process.stderr.write(`hack/code-cache.mjs: \`pkogen ${argv.join(' ')}\` in ${pkg} exited ${r.status ?? r.signal} without writing ${cache}; ${command} runs from the ES bundle\n${r.stdout}${r.stderr}`);
    }
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
