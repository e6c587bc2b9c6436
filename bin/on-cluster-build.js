#!/usr/bin/env node
// Valid as CommonJS (bin/package.json, in this checkout) and as an ES module (the builder image
// copies this file alone, under the root package.json's "type": "module"): no import statement,
// no require, no top-level await.
import('../dist/builder/cli.js')
  .then(({ main }) => main(process.argv.slice(2)))
  .then(
    (code) => {
      process.exitCode = code;
    },
    (e) => {
      process.stderr.write(`on-cluster-build: internal error: ${e?.message ?? String(e)}\n`);
      process.exitCode = 1;
    },
  );
