#!/usr/bin/env node
/**
 * `make build` step after tsc: bundles the compiled CLI (dist/src/cli/main.js) and the npm
 * packages it imports into dist/bundle/, which bin/pkogen.js prefers when present. Start-up of
 * the unbundled CLI is dominated by resolving and compiling ~1,400 small ES/CommonJS modules
 * (yaml, ajv, kubernetes-models); one file per command removes that. Each command stays its own
 * chunk (code splitting), so a command still loads only what it uses.
 *
 * Packages loaded at run time through createRequire (ts-morph, handlebars, diff, @bufbuild/cel,
 * yaml in src/yaml/positions.ts) are not followed by esbuild and keep resolving from node_modules;
 * so do pkogen's optional peer dependencies (OPTIONAL_PEERS: ts-morph for kickstart and import,
 * @kubernetes/client-node for status), which a user installs only for those commands.
 *
 * The registry's own schemas (ObjectMeta, LabelSelector) are compiled here, once, to ajv standalone
 * code that replaces src/schema/precompiled.ts in the bundle: a start of the bundled CLI then never
 * runs ajv's compiler for them. Unbundled runs (dist/src, tests) compile them on first use.
 *
 * Built-in kinds' validators (kubernetes-models, 1.9 MB of code) are not loaded with the schema
 * registry: src/schema/validator-loader.ts is replaced by a table of dynamic imports, one chunk per
 * kind (shared code in shared chunks), loaded by SchemaRegistry.prepare for the kinds a package has.
 *
 * The schema data modules (src/schema/generated: bundled CRDs, built-in shapes; ~0.7 MB of object
 * literals) are emitted as JSON.parse of one string each, which V8 reads faster than the same
 * object literals; a value JSON cannot carry exactly keeps its module as it is.
 *
 * Likewise ajv itself (its compiler, ~0.25 MB): src/schema/ajv-loader.ts is replaced by a dynamic
 * import that SchemaRegistry.prepare awaits only when an object needs a CRD's schema compiled.
 *
 * validate, build, push and simulate are also emitted as one CommonJS file each (OUTDIR/cjs/<command>.cjs, no
 * chunks) for bin/pkogen.js to compile with a V8 code cache (hack/code-cache.mjs makes it). Those
 * take the bundled CRDs' precompiled validators from OUTDIR/cjs/crds/ (hack/cjs-crds.mjs) and the
 * built-in kinds' validators from OUTDIR/cjs/kinds/ (hack/cjs-kinds.mjs).
 *
 * Usage: node hack/bundle.mjs [ENTRY OUTDIR] (default dist/src/cli/main.js dist/bundle; the test
 * bundles src/cli/main.ts into a scratch folder). OUTDIR must be inside the checkout: the CLI finds
 * its package.json and node_modules by walking up from it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { build } from 'esbuild';
import { cjsPrecompiledCrds } from './cjs-crds.mjs';
import { cjsBuiltinKinds } from './cjs-kinds.mjs';
import { ALIAS, OPTIONAL_PEERS, lazyDraft2019Formats } from './esbuild-options.mjs';

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
await build({ absWorkingDir: root, entryPoints: [path.join(tree, 'schema', `precompile${ext}`)], outfile: scratch, bundle: true, format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning' });
const { precompiledSource, precompiledCrdSources } = await import(pathToFileURL(scratch).href);
const precompiled = precompiledSource();
rmSync(scratch);
const precompiledPlugin = {
  name: 'precompiled-schemas',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]precompiled\.(ts|js)$/ }, (args) => ({ contents: precompiled, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

// kubernetes-models validators by schema id, read from the generated table's source (dist/src's
// copy may be one flattened file already: hack/flatten-kinds.mjs).
const validatorsFile = path.join(root, 'src', 'schema', 'generated', 'builtin-validators.ts');
const validatorsText = readFileSync(validatorsFile, 'utf8');
const kindModules = new Map([...validatorsText.matchAll(/import \{ validate as (v\d+) \} from '(kubernetes-models\/_schemas\/\w+)'/g)].map((m) => [m[1], m[2]]));
const kinds = [...validatorsText.matchAll(/^\s+(\w+): (v\d+)\b/gm)].map((m) => [m[1], kindModules.get(m[2])]);
if (kinds.length === 0 || kinds.some(([, m]) => !m)) throw new Error(`hack/bundle.mjs: cannot read the validator table in ${validatorsFile}`);
const lazyLoader = [
  '// Generated by hack/bundle.mjs in place of src/schema/validator-loader.ts: one chunk per kind.',
  'const LOADERS = {',
  ...kinds.map(([id, m]) => `  ${id}: () => import(${JSON.stringify(m)}),`),
  '};',
  'const loaded = new Map();',
  'export function builtinValidator(id) {',
  '  if (!Object.hasOwn(LOADERS, id)) return undefined;',
  '  const v = loaded.get(id);',
  "  if (!v) throw new Error(`internal error: the validator of ${id} was not loaded (await SchemaRegistry.prepare first)`);",
  '  return v;',
  '}',
  'export async function loadBuiltinValidators(ids) {',
  '  const want = (ids ?? Object.keys(LOADERS)).filter((id) => Object.hasOwn(LOADERS, id) && !loaded.has(id));',
  '  const mods = await Promise.all(want.map((id) => LOADERS[id]()));',
  '  want.forEach((id, i) => loaded.set(id, mods[i].validate));',
  '}',
  '',
].join('\n');
const lazyLoaderPlugin = {
  name: 'lazy-builtin-validators',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]validator-loader\.(ts|js)$/ }, (args) => ({ contents: lazyLoader, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

const lazyAjv = [
  '// Generated by hack/bundle.mjs in place of src/schema/ajv-loader.ts: ajv loads on demand.',
  'let factory;',
  'export function ajvFactory() {',
  "  if (!factory) throw new Error('internal error: ajv was not loaded (await SchemaRegistry.prepare first)');",
  '  return factory;',
  '}',
  'export async function loadAjv() {',
  "  factory ??= (await import('./ajv-setup.js')).newAjv;",
  '}',
  '',
].join('\n');
const lazyAjvPlugin = {
  name: 'lazy-ajv',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]ajv-loader\.(ts|js)$/ }, (args) => ({ contents: lazyAjv, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};

// Schema data as JSON.parse('…'): same values, cheaper to parse at every start. A CRD list
// (BundledCrd[]: crds, openshift-crds) keeps each version's `schema` as its own JSON string,
// parsed the first time it is read (a getter in the same key position): a registry looks at
// every CRD's group, kind and versions but compiles only the schemas a package's objects need.
const LAZY_SCHEMAS = [
  'function __pkogenLazySchemas(list, schemas) {',
  '  list.forEach((crd, i) => crd.versions.forEach((v, j) => {',
  '    let parsed;',
  "    Object.defineProperty(v, 'schema', { enumerable: true, configurable: true, get: () => (parsed ??= JSON.parse(schemas[i][j])) });",
  '  }));',
  '  return list;',
  '}',
].join('\n');
// A table of many independent entries read by key (the built-in kinds' field shapes, 807 entries,
// 0.8 MB of objects once parsed, of which a package needs a few dozen): each entry stays its own
// JSON string until first read, behind a Proxy that answers every read of the object (get, has,
// keys, descriptors) as the plain table would.
const LAZY_VALUES = [
  'function __pkogenLazyValues(strings) {',
  '  const parsed = new Map();',
  '  const value = (k) => {',
  '    let v = parsed.get(k);',
  '    if (v === undefined) parsed.set(k, (v = JSON.parse(strings[k])));',
  '    return v;',
  '  };',
  '  const own = (t, k) => typeof k === "string" && Object.hasOwn(t, k);',
  '  return new Proxy(strings, {',
  '    get: (t, k, r) => (own(t, k) ? value(k) : Reflect.get(t, k, r)),',
  '    getOwnPropertyDescriptor: (t, k) => {',
  '      const d = Reflect.getOwnPropertyDescriptor(t, k);',
  '      if (d && own(t, k)) d.value = value(k);',
  '      return d;',
  '    },',
  '    set: () => false,',
  '    defineProperty: () => false,',
  '    deleteProperty: () => false,',
  '  });',
  '}',
].join('\n');
const LAZY_TABLES = new Set(['BUILTIN_SHAPES']);
const isCrdList = (v) => Array.isArray(v) && v.length > 0 && v.every((c) => c && typeof c === 'object' && Array.isArray(c.versions) && c.versions.every((x) => x && typeof x === 'object' && 'schema' in x));
const dataModules = new Map();
const crdLists = {};
for (const name of ['crds', 'openshift-crds', 'builtin-shapes']) {
  const file = path.join(tree, 'schema', 'generated', `${name}${ext}`);
  const out = path.join(outdir, `.data-${name}.mjs`);
  await build({ absWorkingDir: root, entryPoints: [file], outfile: out, bundle: true, format: 'esm', platform: 'node', target: 'node22', logLevel: 'warning' });
  const mod = await import(pathToFileURL(out).href);
  rmSync(out);
  Object.assign(crdLists, mod);
  const lines = [];
  for (const [k, v] of Object.entries(mod)) {
    const json = JSON.stringify(v);
    if (!isDeepStrictEqual(JSON.parse(json), v)) {
      lines.length = 0;
      break;
    }
    if (isCrdList(v)) {
      // `schema: null` keeps the key's place; the getter replaces it there.
      const meta = v.map((c) => ({ ...c, versions: c.versions.map((x) => ({ ...x, schema: null })) }));
      const schemas = v.map((c) => c.versions.map((x) => JSON.stringify(x.schema)));
      if (!lines.includes(LAZY_SCHEMAS)) lines.unshift(LAZY_SCHEMAS);
      lines.push(`export const ${k} = __pkogenLazySchemas(JSON.parse(${JSON.stringify(JSON.stringify(meta))}), ${JSON.stringify(schemas)});`);
    } else if (LAZY_TABLES.has(k) && v && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype) {
      if (!lines.includes(LAZY_VALUES)) lines.unshift(LAZY_VALUES);
      const strings = Object.fromEntries(Object.entries(v).map(([key, x]) => [key, JSON.stringify(x)]));
      lines.push(`export const ${k} = __pkogenLazyValues(JSON.parse(${JSON.stringify(JSON.stringify(strings))}));`);
    } else lines.push(`export const ${k} = JSON.parse(${JSON.stringify(json)});`);
  }
  if (lines.length > 0) {
    const contents = lines.join('\n') + '\n';
    // The emitted module must give back exactly the values (and key order) of the source.
    const check = path.join(outdir, `.data-${name}-check.mjs`);
    writeFileSync(check, contents);
    const back = await import(pathToFileURL(check).href);
    rmSync(check);
    for (const [k, v] of Object.entries(mod)) {
      if (JSON.stringify(back[k]) !== JSON.stringify(v) || !isDeepStrictEqual(JSON.parse(JSON.stringify(back[k])), v))
        throw new Error(`hack/bundle.mjs: the emitted ${name} data differs from ${file} in ${k}`);
    }
    dataModules.set(path.resolve(file), contents);
  }
}
const dataPlugin = {
  name: 'schema-data-as-json',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]generated[\\/][\w-]+\.(ts|js)$/ }, (args) => {
      const contents = dataModules.get(path.resolve(args.path));
      return contents === undefined ? undefined : { contents, loader: 'js' };
    });
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
  target: 'node22',
  outExtension: { '.js': '.mjs' },
  chunkNames: 'chunks/[name]-[hash]',
  // CommonJS dependencies call require() for Node built-ins; an ES module has no require.
  banner: { js: "import { createRequire as __pkogenCreateRequire } from 'node:module'; const require = __pkogenCreateRequire(import.meta.url);" },
  legalComments: 'none',
  logLevel: 'warning',
  metafile: true,
  alias: ALIAS,
  external: OPTIONAL_PEERS,
  plugins: [precompiledPlugin, lazyLoaderPlugin, lazyAjvPlugin, dataPlugin, lazyDraft2019Formats],
});
writeFileSync(path.join(outdir, 'meta.json'), JSON.stringify(result.metafile));

// CommonJS builds of the commands whose start-up matters most (validate, build, push, simulate): one file each, no
// chunks, which bin/pkogen.js compiles with vm.Script and a V8 code cache (hack/code-cache.mjs
// makes the caches after a representative run). Node 20 has no compile cache for ES modules; a
// code cache skips parsing and compiling, and one file skips the ES loader's resolve/read/link.
// main.ts keeps its command table (help, errors); the other commands' loaders are never called
// from this file (bin/pkogen.js routes only this command here). main.cjs has the table and no
// command at all: bin/pkogen.js requires it for help, version and unknown names (small enough
// that plain require() beats a code cache).
const CJS_COMMANDS = ['main', 'validate', 'build', 'push', 'simulate']; // bin/pkogen.js and hack/code-cache.mjs name the same commands
const cjsDir = path.join(outdir, 'cjs');
// One CommonJS file has no chunks: the bundled CRDs' precompiled validators (~6 MB) become
// factories in cjs/crds/, each required when a run first needs it (hack/cjs-crds.mjs).
const cjsCrdTable = await cjsPrecompiledCrds({
  root,
  tree,
  cjsDir,
  generate: () => precompiledCrdSources([...crdLists.BUNDLED_CRDS, ...crdLists.OPENSHIFT_CRDS]),
});
const cjsCrds = {
  name: 'cjs-precompiled-crds',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]precompiled-crds\.(ts|js)$/ }, (args) => ({ contents: cjsCrdTable, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};
// Likewise the built-in kinds' validators (~1.8 MB): one file per kind in cjs/kinds/ (hack/cjs-kinds.mjs).
const cjsKindLoader = await cjsBuiltinKinds({ root, cjsDir, kinds });
const cjsKinds = {
  name: 'cjs-builtin-kinds',
  setup(b) {
    b.onLoad({ filter: /[\\/]schema[\\/]validator-loader\.(ts|js)$/ }, (args) => ({ contents: cjsKindLoader, loader: 'js', resolveDir: path.dirname(args.path) }));
  },
};
for (const command of CJS_COMMANDS) {
  const onlyCommand = {
    name: 'only-command',
    setup(b) {
      b.onLoad({ filter: /[\\/]cli[\\/]main\.(ts|js)$/ }, (args) => {
        const text = readFileSync(args.path, 'utf8');
        let kept = 0;
        let seen = 0;
        const contents = text.replace(/load: \(\) => import\('\.\/commands\/([\w-]+)\.js'\)/g, (m, name) => {
          seen++;
          if (name === command) {
            kept++;
            return m;
          }
          return `load: () => Promise.reject(new Error('internal error: ${name} is not in the ${command} bundle'))`;
        });
        if (seen === 0 || kept !== (command === 'main' ? 0 : 1)) throw new Error(`hack/bundle.mjs: cannot find the loader of ${command} in ${args.path}`);
        return { contents, loader: path.extname(args.path) === '.ts' ? 'ts' : 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
  const cjsResult = await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: path.join(cjsDir, `${command}.cjs`),
    metafile: true,
    bundle: true,
    format: 'cjs',
    platform: 'node',
    target: 'node22',
    // import.meta.url of the bundled sources: the file's own URL, so package-root and createRequire
    // resolve from dist/bundle/cjs as they do from dist/bundle.
    define: { 'import.meta.url': '__pkogenImportMetaUrl' },
    // Smaller file, less to read at every start; names kept, so errors still read.
    minifyWhitespace: true,
    minifySyntax: true,
    banner: { js: "const __pkogenImportMetaUrl = require('node:url').pathToFileURL(__filename).href; const __pkogenRequire = require;" },
    legalComments: 'none',
    logLevel: 'warning',
    alias: ALIAS,
    external: OPTIONAL_PEERS,
    plugins: [onlyCommand, cjsCrds, cjsKinds, precompiledPlugin, lazyAjvPlugin, dataPlugin, lazyDraft2019Formats],
  });
  // esbuild keeps import() of Node built-ins; a vm.Script has no ES loader for it: require instead.
  const out = path.join(cjsDir, `${command}.cjs`);
  const text = readFileSync(out, 'utf8').replace(/\bimport\(("node:[\w/]+")\)/g, 'Promise.resolve().then(() => require($1))');
  if (/\bimport\(/.test(text)) throw new Error(`hack/bundle.mjs: ${out} still has an import(): a vm.Script cannot run it`);
  // bin/pkogen.js reads the file as latin1 (3× faster than UTF-8 decoding here, and a one-byte
  // string for V8): esbuild leaves non-ASCII characters in regular expression literals, where, as
  // in strings, \uXXXX means the same code unit.
  writeFileSync(out, text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
  writeFileSync(path.join(cjsDir, `${command}.meta.json`), JSON.stringify(cjsResult.metafile)); // what is in it, for size work
}
