#!/usr/bin/env node
/**
 * `make build` step after tsc: bundles the compiled CLI (dist/src/cli/main.js) and the npm
 * packages it imports into dist/bundle/, which bin/pkogen.js prefers when present. Start-up of
 * the unbundled CLI is dominated by resolving and compiling ~1,400 small ES/CommonJS modules
 * (yaml, ajv, kubernetes-models); one file per command removes that. Each command stays its own
 * chunk (code splitting), so a command still loads only what it uses.
 *
 * Packages loaded at run time through createRequire (ts-morph, handlebars, diff, @bufbuild/cel,
 * yaml in yaml-positions) are not followed by esbuild and keep resolving from node_modules.
 *
 * Usage: node hack/bundle.mjs [ENTRY OUTDIR] (default dist/src/cli/main.js dist/bundle; the test
 * bundles src/cli/main.ts into a scratch folder). OUTDIR must be inside the checkout: the CLI finds
 * its package.json and node_modules by walking up from it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length !== 0 && args.length !== 2) {
  process.stderr.write('usage: node hack/bundle.mjs [ENTRY OUTDIR]\n');
  process.exit(2);
}
const entry = args[0] ?? 'dist/src/cli/main.js';
const outdir = path.resolve(root, args[1] ?? path.join('dist', 'bundle'));

rmSync(outdir, { recursive: true, force: true });
const result = await build({
  absWorkingDir: root,
  entryPoints: { pkogen: entry },
  outdir,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies call require() for Node built-ins; an ES module has no require.
  banner: { js: "import { createRequire as __pkogenCreateRequire } from 'node:module'; const require = __pkogenCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
});
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
