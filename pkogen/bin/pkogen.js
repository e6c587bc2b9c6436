#!/usr/bin/env node
'use strict';
// CommonJS (bin/package.json says so): an ES module entry makes Node start its ES loader before
// running a line (~10 ms here), which --help, --version, validate, build and push do not need.
//
// Prefers the bundled CLI that `make build` (and `npm pack`) writes (hack/bundle.mjs): it starts
// faster than loading ~1,400 separate modules. Plain `tsc` builds have only dist/src, the same code
// unbundled; a bundle older than dist/src (tsc run without re-bundling) is ignored. An installed
// package has the ES bundle and main.cjs but no code cache (one is made for one Node version).
//
// dist/bundle/cjs/ holds one-file CommonJS bundles: main.cjs (the command table alone: help,
// version, an unknown command) and validate.cjs, build.cjs, push.cjs and simulate.cjs, each compiled through vm.Script
// with a V8 code cache that hack/code-cache.mjs made for this exact Node (version and arch in the
// file name): they skip parsing, compiling and the ES loader. A cache is used only when it is at
// least as new as its file; otherwise the ES bundle runs. The validator files those bundles
// require (cjs/crds/, cjs/kinds/) have code caches of their own, from the same runs. Every other command runs from the ES
// bundle. PKOGEN_CODE_CACHE: 0 = never (benchmarks compare), write = compile without the cache and
// write it after the run (hack/code-cache.mjs), check = say on stderr which code ran (a cache, main.cjs,
// the ES bundle or dist/src).
// Node older than pkogen supports: one clear line, before anything that might fail on it.
const MIN_NODE_MAJOR = 22;
if (Number(process.versions.node.split('.')[0]) < MIN_NODE_MAJOR) {
  process.stderr.write(`pkogen: Node.js ${process.versions.node} is too old; pkogen needs Node.js ${MIN_NODE_MAJOR} or later (an LTS: 22 or 24)\n`);
  process.exit(1);
}
const { readFileSync, renameSync, statSync, writeFileSync } = require('node:fs');
const path = require('node:path');
const { pathToFileURL } = require('node:url');

const dist = path.join(__dirname, '..', 'dist');
const bundled = path.join(dist, 'bundle', 'pkogen.mjs');
const unbundled = path.join(dist, 'src', 'cli', 'main.js');
const cjsDir = path.join(dist, 'bundle', 'cjs');
const mtime = (f) => statSync(f, { throwIfNoEntry: false })?.mtimeMs;
const b = mtime(bundled);
const u = mtime(unbundled);
// Installed (under node_modules), file times say nothing: npm sets or extracts them in its own
// order, and nobody re-runs tsc there. The shipped bundle is the one npm pack built.
const installed = __dirname.split(path.sep).includes('node_modules');
const fresh = b !== undefined && (installed || u === undefined || b >= u);
const mode = process.env.PKOGEN_CODE_CACHE;
const argv = process.argv.slice(2);

// Node's own compile cache, where Node has it (22.1 and later; not 20, where the code caches below
// do that job for validate, build and push): every module compiled from here on (the ES bundle and
// its chunks, a bundle module and the library it imports) is kept on disk as V8 code cache, in
// NODE_COMPILE_CACHE or os.tmpdir()/node-compile-cache, as TypeScript's own tsc does. It never
// throws; PKOGEN_CODE_CACHE=0 leaves it off too.
if (mode !== '0') require('node:module').enableCompileCache?.();

const CACHED = ['validate', 'build', 'push', 'simulate']; // hack/bundle.mjs and hack/code-cache.mjs name the same

/**
 * Compiles and runs one CommonJS file through vm.Script, with its V8 code cache (FILE.<node
 * version>-<arch>.cache) when one at least as new is there, or (write) to save one after the run;
 * its own require gives ./crds/ and ./kinds/ files (validators, hack/cjs-crds.mjs and
 * hack/cjs-kinds.mjs) the same treatment. Node's own compile cache caches a file's code as
 * compiled before it runs, without the functions compiled lazily during the run: for those
 * validators that compile was most of their cost. Returns module.exports.
 */
const written = [];
const cachedModules = new Map();
function runCompiled(filename, cacheData) {
  const { Script } = require('node:vm');
  // ASCII (hack/bundle.mjs escapes the rest): latin1 is exact and much faster than UTF-8 decoding.
  // Node's own CommonJS wrapper, so require, module and __filename are what the bundle expects.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(filename).toString('latin1')}\n})`;
  const script = new Script(source, { filename, cachedData: cacheData });
  if (mode === 'write') written.push({ script, cacheFile: `${filename}.${process.version}-${process.arch}.cache` });
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, requireFrom(filename), module, filename, path.dirname(filename));
  return { script, exports: module.exports };
}

/** The require a bundle file runs with: createRequire's, and validator files through runCompiled. */
function requireFrom(filename) {
  const plain = require('node:module').createRequire(filename);
  const dir = path.dirname(filename);
  const r = (id) => {
    if (!/^\.\/(crds|kinds)\/\w+\.cjs$/.test(id)) return plain(id);
    const file = path.join(dir, id);
    let m = cachedModules.get(file);
    if (m === undefined) {
      const cacheFile = `${file}.${process.version}-${process.arch}.cache`;
      const f = mtime(file);
      const c = mtime(cacheFile);
      // No cache (a kind the warm run did not need): plain require, which Node's compile cache serves.
      if (mode !== 'write' && (c === undefined || c < f)) m = plain(file);
      else m = runCompiled(file, mode === 'write' ? undefined : readFileSync(cacheFile)).exports;
      cachedModules.set(file, m);
    }
    return m;
  };
  return Object.assign(r, { resolve: plain.resolve, cache: plain.cache });
}

/** The CommonJS bundle of `name` run from its code cache, or undefined when it has none usable. */
function fromCodeCache(name) {
  if (!CACHED.includes(name) || mode === '0') return undefined;
  const filename = path.join(cjsDir, `${name}.cjs`);
  const cacheFile = path.join(cjsDir, `${name}.cjs.${process.version}-${process.arch}.cache`);
  const writing = mode === 'write';
  const f = mtime(filename);
  const c = mtime(cacheFile);
  if (f === undefined || f < b || (!writing && (c === undefined || c < f))) return undefined;
  const { script, exports } = runCompiled(filename, writing ? undefined : readFileSync(cacheFile));
  // A rejected cache (V8 flags differ) still compiled the code: run it, only slower.
  if (mode === 'check') process.stderr.write(`pkogen: ${name}.cjs code cache ${script.cachedDataRejected ? 'rejected' : 'used'}\n`);
  const save = () => {
    // After the run, so the functions compiled lazily during it are in the caches.
    for (const { script: s, cacheFile: file } of written) {
      const tmp = `${file}.tmp-${process.pid}`;
      writeFileSync(tmp, s.createCachedData());
      renameSync(tmp, file);
    }
  };
  return { main: exports.main, save: writing ? save : undefined };
}

/** main.cjs when this run needs no command module (help, version, an unknown name). */
function commandTableOnly() {
  const file = path.join(cjsDir, 'main.cjs');
  const f = mtime(file);
  if (f === undefined || (!installed && f < b)) return undefined;
  const table = require(file);
  if (table.commandOf(argv) !== undefined) return undefined;
  if (mode === 'check') process.stderr.write('pkogen: main.cjs used\n');
  return table;
}

async function run() {
  const cached = fresh ? (fromCodeCache(argv[0]) ?? commandTableOnly()) : undefined;
  if (!cached && mode === 'check') process.stderr.write(`pkogen: ${fresh ? 'ES bundle' : 'dist/src'} used\n`);
  const { main } = cached ?? (await import(pathToFileURL(fresh ? bundled : unbundled).href));
  process.exitCode = await main(argv);
  cached?.save?.();
}

run().catch((e) => {
  process.stderr.write(`pkogen: internal error: ${e?.message ?? String(e)}\n`);
  process.exitCode = 1;
});
