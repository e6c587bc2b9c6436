#!/usr/bin/env node
/**
 * `make build` step after hack/bundle.mjs: writes the V8 code cache of each one-file CommonJS
 * command bundle (dist/bundle/cjs/<command>.cjs.<node version>-<arch>.cache) that bin/pkogen.js
 * compiles validate, build, push and simulate with. Each cache is made after a representative run
 * (the command on our package/, in a scratch folder; push to a throwaway registry on 127.0.0.1;
 * simulate of a rollout Template made here for the package over a few HCP namespaces), so the
 * functions V8 compiled lazily during it are in it too.
 *
 * Usage: node hack/code-cache.mjs [BIN PACKAGE_DIR] (default bin/pkogen.js and package/; the test
 * passes a copy of bin/pkogen.js next to a scratch bundle, and a fixture package).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length !== 0 && args.length !== 2) {
  process.stderr.write('usage: node hack/code-cache.mjs [BIN PACKAGE_DIR]\n');
  process.exit(2);
}
const bin = path.resolve(root, args[0] ?? 'bin/pkogen.js');
const pkg = path.resolve(root, args[1] ?? 'package');
const cjsDir = path.resolve(path.dirname(bin), '..', 'dist', 'bundle', 'cjs');

// The runs that warm each cache: what the user runs most, on a real package. push sends the
// layout build wrote to a throwaway registry of our own (below); REGISTRY is its host:port.
const RUNS = {
  validate: ['validate', 'package'],
  build: ['build', 'package', '-t', 'localhost/pkogen-code-cache:1', '--output-file', 'image.tar'],
  push: ['push', '--oci-layout', 'layout', 'REGISTRY/pkogen-code-cache:1'],
  // rollout.yaml: written below (an ObjectTemplate reading a ConfigMap per HCP namespace, as ours).
  simulate: ['simulate', 'rollout.yaml', ...['REGISTRY_IMG=quay.io/pkogen/code-cache', `IMAGE_DIGEST=sha256:${'a'.repeat(64)}`, 'IMAGE_TAG=abc1234'].flatMap((p) => ['-p', p]), '--hcp-namespaces', '20', '--package', 'package'],
};
// What a run needs first, run without writing any cache.
const BEFORE = {
  push: ['build', 'package', '-t', 'localhost/pkogen-code-cache:1', '--oci-layout', 'layout'],
};

/**
 * Just enough of the Distribution API for one push (no blob present, monolithic uploads, manifest
 * PUT), on 127.0.0.1 and an ephemeral port: the push run compiles the same upload path a real
 * registry makes it take. Bodies are read and dropped; digests are answered from the request.
 */
function throwawayRegistry() {
  let uploads = 0;
  const server = createServer((req, res) => {
    const body = [];
    req.on('data', (c) => body.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const repo = /^\/v2\/(.+?)\/(blobs|manifests)\//.exec(url.pathname)?.[1];
      if (url.pathname === '/v2/') res.writeHead(200).end('{}');
      else if (req.method === 'HEAD') res.writeHead(404).end();
      else if (req.method === 'POST' && repo) res.writeHead(202, { Location: `/v2/${repo}/blobs/uploads/${++uploads}`, 'Content-Length': '0' }).end();
      else if (req.method === 'PUT' && url.pathname.includes('/blobs/uploads/')) res.writeHead(201, { 'Docker-Content-Digest': url.searchParams.get('digest') ?? '' }).end();
      else if (req.method === 'PUT' && repo) res.writeHead(201, { 'Docker-Content-Digest': `sha256:${createHash('sha256').update(Buffer.concat(body)).digest('hex')}` }).end();
      else res.writeHead(404).end();
    });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ host: `127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) }));
  });
}

/** spawnSync would block the registry above (same process): the runs are awaited instead. */
function run(argv, opts) {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [bin, ...argv], { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => (stdout += d));
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 120_000);
    p.on('close', (status, signal) => {
      clearTimeout(timer);
      resolve({ status, signal, stdout, stderr });
    });
  });
}

// The caches only make start-up faster: a missing or failing warm run leaves the ES bundle in use
// and never fails the build (a package/ that does not exist yet, or has findings, must not stop
// `make package` from regenerating it). Findings do not matter for warming: the cache is written
// after the run whatever its exit code.
if (!existsSync(path.join(pkg, 'manifest.yaml'))) {
  process.stderr.write(`hack/code-cache.mjs: no package in ${pkg} yet; code caches not made (the ES bundle runs)\n`);
  process.exit(0);
}
const scratch = mkdtempSync(path.join(tmpdir(), 'pkogen-code-cache-'));
const registry = await throwawayRegistry();
try {
  cpSync(pkg, path.join(scratch, 'package'), { recursive: true });
  // simulate's Template, from this checkout's tsc build (make build runs tsc first); without it,
  // simulate keeps running from the ES bundle.
  try {
    const { emitRolloutTemplate } = await import(pathToFileURL(path.join(root, 'dist', 'src', 'rollout', 'generate.js')).href);
    const source = { configKey: 'serviceCA', apiVersion: 'v1', kind: 'ConfigMap', name: 'openshift-service-ca.crt', dataKey: 'service-ca.crt' };
    writeFileSync(path.join(scratch, 'rollout.yaml'), emitRolloutTemplate({ packageName: 'pkogen-code-cache', sources: [source] }));
  } catch (e) {
    process.stderr.write(`hack/code-cache.mjs: no rollout Template to warm simulate's cache with (${e.message}); simulate runs from the ES bundle\n`);
    delete RUNS.simulate;
  }
  for (const [command, argv] of Object.entries(RUNS)) {
    const cache = path.join(cjsDir, `${command}.cjs.${process.version}-${process.arch}.cache`);
    rmSync(cache, { force: true });
    if (BEFORE[command]) await run(BEFORE[command], { cwd: scratch, env: { ...process.env, PKOGEN_CODE_CACHE: '0' } });
    const r = await run(argv.map((a) => a.replace('REGISTRY', registry.host)), { cwd: scratch, env: { ...process.env, PKOGEN_CODE_CACHE: 'write' } });
    if (!existsSync(cache)) {
      process.stderr.write(`hack/code-cache.mjs: \`pkogen ${argv.join(' ')}\` in ${pkg} exited ${r.status ?? r.signal} without writing ${cache}; ${command} runs from the ES bundle\n${r.stdout}${r.stderr}`);
    }
  }
} finally {
  await registry.close();
  rmSync(scratch, { recursive: true, force: true });
}
