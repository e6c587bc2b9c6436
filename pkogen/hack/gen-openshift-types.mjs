#!/usr/bin/env node
// Writes src/schema/generated/openshift-types/: TypeScript types of the OpenShift kinds pkogen
// validates, from the same pinned CRDs the validators use (src/schema/generated/openshift-crds.ts),
// with pkogen import's generator (src/codegen/crd-types.ts), one module per group/version.
// Run after `npm run build` (it reads dist/): node hack/gen-openshift-types.mjs [--check]
// Deterministic: same CRDs → same bytes. test/schema/k8s-types.test.ts checks the committed files.
import { readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

const root = process.cwd();
const { OPENSHIFT_CRDS } = await import(join(root, 'dist/src/schema/generated/openshift-crds.js'));
const { openshiftTypeModules } = await import(join(root, 'dist/src/codegen/crd-types.js'));
const outDir = join(root, 'src', 'schema', 'generated', 'openshift-types');
const modules = openshiftTypeModules(OPENSHIFT_CRDS);
if (process.argv.includes('--check')) {
  const have = readdirSync(outDir).sort();
  const bad = [...modules].filter(([n, t]) => !have.includes(n) || readFileSync(join(outDir, n), 'utf8') !== t).map(([n]) => n);
  if (bad.length || have.length !== modules.size) {
    console.error(`${outDir} is out of date (${bad.join(', ') || 'files differ'}): run node hack/gen-openshift-types.mjs`);
    process.exit(1);
  }
} else {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  for (const [name, text] of modules) writeFileSync(join(outDir, name), text);
}
console.log(`openshift types: ${modules.size} modules`);
