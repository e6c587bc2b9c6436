#!/usr/bin/env node
/**
 * `make build` and `npm pack` step after tsc, before hack/bundle.mjs: ajv standalone code of every
 * bundled CRD version (src/schema/precompile.ts precompiledCrdSources) written into a compiled tree,
 * replacing its precompiled-crds.js (an empty table after tsc) with a table of loaders of
 * precompiled-crds/<n>.js. The registry then loads the validators a run's objects need instead of
 * running ajv's compiler (20-170 ms per CRD: lint-rollout, simulate, generate/verify of a bundle
 * module, validate of packages with PKO/ACM/Hive/OpenShift objects). hack/bundle.mjs bundles the
 * same files as chunks. src/ and the tests keep compiling on first use; a test compares both.
 *
 * Usage: node hack/precompile-crds.mjs [TREE] (default dist/src: the compiled tree holding
 * schema/precompile.js and schema/generated/). The modules directory is replaced as a whole and the
 * table by rename, so a failed run leaves the previous state.
 */
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length > 1) {
  process.stderr.write('usage: node hack/precompile-crds.mjs [TREE]\n');
  process.exit(2);
}
const tree = path.resolve(root, args[0] ?? path.join('dist', 'src'));
const schemaDir = path.join(tree, 'schema');
const load = (rel) => import(pathToFileURL(path.join(schemaDir, rel)).href);

try {
  const { precompiledCrdSources } = await load('precompile.js');
  const { BUNDLED_CRDS } = await load(path.join('generated', 'crds.js'));
  const { OPENSHIFT_CRDS } = await load(path.join('generated', 'openshift-crds.js'));
  const { table, modules } = precompiledCrdSources([...BUNDLED_CRDS, ...OPENSHIFT_CRDS]);
  const dir = path.join(schemaDir, 'precompiled-crds');
  const tmpDir = `${dir}.tmp-${process.pid}`;
  mkdirSync(tmpDir, { recursive: true });
  for (const [file, source] of modules) writeFileSync(path.join(tmpDir, file), source);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmpDir, dir);
  const tableFile = path.join(schemaDir, 'precompiled-crds.js');
  writeFileSync(`${tableFile}.tmp-${process.pid}`, table);
  renameSync(`${tableFile}.tmp-${process.pid}`, tableFile);
} catch (e) {
  rmSync(path.join(schemaDir, `precompiled-crds.tmp-${process.pid}`), { recursive: true, force: true });
  process.stderr.write(`hack/precompile-crds.mjs: ${tree}: ${e.message}\n`);
  process.exit(1);
}
