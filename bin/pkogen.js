#!/usr/bin/env node
// Prefer the bundled CLI that `make build` writes (hack/bundle.mjs): it starts faster than
// loading ~1,400 separate modules. Installed packages and plain `tsc` builds have only dist/src,
// the same code unbundled; a bundle older than dist/src (tsc run without re-bundling) is ignored.
//
// validate and build also have a one-file CommonJS bundle (dist/bundle/cjs/<command>.cjs) and a
// V8 code cache of it made by hack/code-cache.mjs for this exact Node (version and arch in the
// file name): compiled through vm.Script with that cache they skip parsing, compiling and the ES
// loader. Used only when the cache is at least as new as the file; otherwise the ES bundle runs.
// PKOGEN_CODE_CACHE: 0 = never (benchmarks compare), write = compile without the cache and write it
// after the run (hack/code-cache.mjs), check = say on stderr whether the cache was used (tests).
import { readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const bundled = new URL('../dist/bundle/pkogen.mjs', import.meta.url);
const unbundled = new URL('../dist/src/cli/main.js', import.meta.url);
const mtime = (u) => statSync(u, { throwIfNoEntry: false })?.mtimeMs;
const b = mtime(bundled);
const u = mtime(unbundled);
const fresh = b !== undefined && (u === undefined || b >= u);

/** The CommonJS bundle of `name` run from its code cache, or undefined when it has none usable. */
async function fromCodeCache(name) {
  const mode = process.env.PKOGEN_CODE_CACHE;
  if ((name !== 'validate' && name !== 'build') || mode === '0') return undefined;
  const file = new URL(`../dist/bundle/cjs/${name}.cjs`, import.meta.url);
  const cacheFile = new URL(`../dist/bundle/cjs/${name}.cjs.${process.version}-${process.arch}.cache`, import.meta.url);
  const writing = mode === 'write';
  const f = mtime(file);
  const c = mtime(cacheFile);
  if (f === undefined || f < b || (!writing && (c === undefined || c < f))) return undefined;
  const filename = fileURLToPath(file);
  // Loaded here, not at the top: --help and the other commands do not pay for them.
  const [{ Script }, { createRequire }] = await Promise.all([import('node:vm'), import('node:module')]);
  // ASCII (hack/bundle.mjs escapes the rest): latin1 is exact and much faster than UTF-8 decoding.
  // Node's own CommonJS wrapper, so require, module and __filename are what the bundle expects.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(filename).toString('latin1')}\n})`;
  const script = new Script(source, { filename, cachedData: writing ? undefined : readFileSync(cacheFile) });
  // A rejected cache (V8 flags differ) still compiled the code: run it, only slower.
  if (mode === 'check') process.stderr.write(`pkogen: ${name}.cjs code cache ${script.cachedDataRejected ? 'rejected' : 'used'}\n`);
  const module = { exports: {} };
  script.runInThisContext().call(module.exports, module.exports, createRequire(file), module, filename, fileURLToPath(new URL('.', file)));
  const save = () => {
    // After the run, so the functions compiled lazily during it are in the cache.
    const tmp = `${fileURLToPath(cacheFile)}.tmp-${process.pid}`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, cacheFile);
  };
  return { main: module.exports.main, save: writing ? save : undefined };
}

const cached = fresh ? await fromCodeCache(process.argv[2]) : undefined;
const { main } = cached ?? (fresh ? await import(bundled.href) : await import(unbundled.href));

process.exitCode = await main(process.argv.slice(2));
cached?.save?.();
