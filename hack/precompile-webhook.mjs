#!/usr/bin/env node
/**
 * `make build` (and the on-cluster-build image build) step after tsc: replaces the compiled
 * builder/webhook/schemas.js (which compiles the CRD schemas with ajv on first use) with ajv
 * standalone code of the same schemas (builder/webhook/precompile.ts webhookSchemasSource), so the
 * webhook process runs no ajv compiler and loads neither ajv's code generator nor the CRD
 * converter. The same approach as hack/precompile-crds.mjs for pkogen's bundled CRDs.
 * Then bundles the webhook's entry (builder/webhook/main.js and everything it imports, npm
 * packages included, with esbuild) into builder/webhook/webhook.bundle.mjs, which
 * bin/on-cluster-build.js runs for `webhook`: one module instead of ~20 ES and CommonJS modules
 * (Node's per-module loading costs ~10 MiB of RSS here; docs/benchmarks.md "Webhook"). Only
 * @bufbuild/cel stays outside: cel.js loads it on the first CEL rule, with require().
 * Then bundles builder/cli.js (controller, token-minter) into builder/cli.bundle.mjs the same way,
 * which bin/on-cluster-build.js runs for the other commands.
 *
 * Usage: node hack/precompile-webhook.mjs [TREE] (default dist: the compiled tree holding
 * builder/). The file is replaced by rename, so a failed run leaves the previous one.
 */
import { renameSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length > 1) {
  process.stderr.write('usage: node hack/precompile-webhook.mjs [TREE]\n');
  process.exit(2);
}
const tree = path.resolve(root, args[0] ?? 'dist');
const dir = path.join(tree, 'builder', 'webhook');
try {
  const { webhookSchemasSource } = await import(pathToFileURL(path.join(dir, 'precompile.js')).href);
  const source = webhookSchemasSource();
  const file = path.join(dir, 'schemas.js');
  writeFileSync(`${file}.tmp-${process.pid}`, source);
  renameSync(`${file}.tmp-${process.pid}`, file);
  const { build } = await import('esbuild');
  const out = path.join(dir, 'webhook.bundle.mjs');
  await build({
    entryPoints: [path.join(dir, 'main.js')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: `${out}.tmp-${process.pid}`,
    legalComments: 'none',
    logLevel: 'warning',
    // esbuild's ESM output has no require() for the CommonJS packages it leaves outside.
    banner: { js: "import { createRequire as __webhookCreateRequire } from 'node:module'; const require = __webhookCreateRequire(import.meta.url);" },
  });
  renameSync(`${out}.tmp-${process.pid}`, out);
  // The controller and token-minter (builder/cli.js) the same way: one module saves ~10 MiB of the
  // controller's RSS (docs/benchmarks.md "Controller footprint"). @kubernetes/client-node stays
  // outside: builder/clusters/kube.ts imports it only for kubeconfigs our own loader does not handle.
  const cli = path.join(tree, 'builder', 'cli.bundle.mjs');
  await build({
    entryPoints: [path.join(tree, 'builder', 'cli.js')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: `${cli}.tmp-${process.pid}`,
    legalComments: 'none',
    logLevel: 'warning',
    external: ['@kubernetes/client-node'],
    banner: { js: "import { createRequire as __cliCreateRequire } from 'node:module'; const require = __cliCreateRequire(import.meta.url);" },
  });
  renameSync(`${cli}.tmp-${process.pid}`, cli);
} catch (e) {
  process.stderr.write(`hack/precompile-webhook.mjs: ${tree}: ${e.message}\n`);
  process.exit(1);
}
