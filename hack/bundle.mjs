#!/usr/bin/env node
/**
 * `make build` step after tsc: bundles the compiled CLI (dist/src/cli/main.js) and the npm
 * packages it imports into dist/bundle/, which bin/pkogen.js prefers when present. Start-up of
 * the unbundled CLI is dominated by resolving and compiling ~1,400 small ES/CommonJS modules
 * (yaml, ajv, kubernetes-models); one file per command removes that. Each command stays its own
 * chunk (code splitting), so a command still loads only what it uses.
 *
 * Packages loaded at run time through createRequire (ts-morph, handlebars, diff, @bufbuild/cel,
 * yaml in src/yaml/positions.ts) are not followed by esbuild and keep resolving from node_modules.
 *
 * The registry's own schemas (ObjectMeta, LabelSelector) are compiled here, once, to ajv standalone
 * code that replaces src/schema/precompiled.ts in the bundle: a start of the bundled CLI then never
 * runs ajv's compiler for them. Unbundled runs (dist/src, tests) compile them on first use.
 *
 * Usage: node hack/bundle.mjs [ENTRY OUTDIR] (default dist/src/cli/main.js dist/bundle; the test
 * bundles src/cli/main.ts into a scratch folder). OUTDIR must be inside the checkout: the CLI finds
 * its package.json and node_modules by walking up from it.
 */
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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

// precompiledSource() from the same tree as the entry (src/*.ts for the test, dist/src/*.js for
// `make build`), bundled to a scratch module and imported.
const tree = path.resolve(root, path.dirname(path.dirname(entry)));
const ext = path.extname(entry);
const scratch = path.join(outdir, '.precompile.mjs');
await build({ absWorkingDir: root, entryPoints: [path.join(tree, 'schema', `precompile${ext}`)], outfile: scratch, bundle: true, format: 'esm', platform: 'node', target: 'node20', logLevel: 'warning' });
const { precompiledSource } = await import(pathToFileURL(scratch).href);
const precompiled = precompiledSource();
rmSync(scratch);
const precompiledPlugin = {
  name: 'precompiled-schemas',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]precompiled\.(ts|js)$/ }, (args) => ({ contents: precompiled, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

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
  plugins: [precompiledPlugin],
});
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));
