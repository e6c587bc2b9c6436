#!/usr/bin/env node
/**
 * `make build` and `npm pack` step after tsc (and after hack/bundle.mjs, which reads the table
 * from src/): rewrites the compiled table of built-in kinds' validators,
 * dist/src/schema/generated/builtin-validators.js, as one ES module holding the same code.
 *
 * Compiled as tsc leaves it, the table imports 71 kubernetes-models validators, which import
 * 492 ES modules in all: Node resolves, reads, compiles and links each one (~290 ms) on every
 * import of the library, which `pkogen generate`/`verify` of a bundle module (through its
 * `import … from 'pkogen'`) and every library user pay. One file of the same code loads in ~50 ms.
 * src/ and the tests are unchanged; the bundled CLI loads a kind's validator only when a package
 * has that kind (hack/bundle.mjs), so this is for dist/src alone.
 *
 * Usage: node hack/flatten-kinds.mjs [FILE] (default dist/src/schema/generated/builtin-validators.js).
 * FILE must be inside the checkout (kubernetes-models resolves from its node_modules). A file
 * that no longer imports kubernetes-models is left as it is. The new file replaces the old one
 * by rename: never half-written.
 */
import { readFileSync, renameSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { ALIAS } from './esbuild-options.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (args.length > 1) {
  process.stderr.write('usage: node hack/flatten-kinds.mjs [FILE]\n');
  process.exit(2);
}
const file = path.resolve(root, args[0] ?? path.join('dist', 'src', 'schema', 'generated', 'builtin-validators.js'));
const text = readFileSync(file, 'utf8');
const IMPORT = /^import \{ validate as v\d+ \} from (['"])kubernetes-models\/_schemas\/\w+\1;$/gm;
const count = text.match(IMPORT)?.length ?? 0;
const MARK = '(hack/flatten-kinds.mjs)';
if (count === 0) {
  if (text.startsWith('// ') && text.slice(0, text.indexOf('\n')).endsWith(MARK)) process.exit(0); // flattened before
  process.stderr.write(`hack/flatten-kinds.mjs: ${file}: no kubernetes-models import in the expected form\n`);
  process.exit(1);
}
// The table's own relative imports (none but type imports today) stay imports of their files.
const ownRelative = {
  name: 'own-relative-external',
  setup(b) {
    b.onResolve({ filter: /^\./ }, (a) => (a.importer === file ? { path: a.path, external: true } : undefined));
  },
};
const tmp = `${file}.tmp-${process.pid}`;
try {
  await build({
    absWorkingDir: root,
    entryPoints: [file],
    outfile: tmp,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // ajv-formats-draft2019 (imported by some validators) require()s punycode: an ES module has no require.
    banner: { js: `// ${path.basename(file)} with kubernetes-models' ${count} validators in this one file ${MARK}\nimport { createRequire as __pkogenCreateRequire } from 'node:module'; const require = __pkogenCreateRequire(import.meta.url);` },
    legalComments: 'none',
    logLevel: 'warning',
    alias: ALIAS,
    plugins: [ownRelative],
  });
  renameSync(tmp, file);
} catch (e) {
  rmSync(tmp, { force: true });
  process.stderr.write(`hack/flatten-kinds.mjs: ${file}: ${e.message}\n`);
  process.exit(1);
}
