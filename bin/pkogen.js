#!/usr/bin/env node
// Prefer the bundled CLI that `make build` writes (hack/bundle.mjs): it starts faster than
// loading ~1,400 separate modules. Installed packages and plain `tsc` builds have only dist/src,
// the same code unbundled; a bundle older than dist/src (tsc run without re-bundling) is ignored.
import { statSync } from 'node:fs';

const bundled = new URL('../dist/bundle/pkogen.mjs', import.meta.url);
const unbundled = new URL('../dist/src/cli/main.js', import.meta.url);
const mtime = (u) => statSync(u, { throwIfNoEntry: false })?.mtimeMs;
const b = mtime(bundled);
const u = mtime(unbundled);
const { main } = b !== undefined && (u === undefined || b >= u) ? await import(bundled.href) : await import(unbundled.href);

process.exitCode = await main(process.argv.slice(2));
