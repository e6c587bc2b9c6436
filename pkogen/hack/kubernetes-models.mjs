// Where kubernetes-models' packages are: one home for the scripts that read them
// (hack/gen-schema-data.mjs: the validators' field trees; hack/gen-k8s-types.mjs: pkogen/k8s;
// hack/cjs-kinds.mjs: the validators' CommonJS files).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { createRequire } from 'node:module';

/** The installed kubernetes-models package, resolved from `root`'s package.json. */
export function kubernetesModels(root) {
  const require = createRequire(join(root, 'package.json'));
  const dir = dirname(require.resolve('kubernetes-models/package.json'));
  return { dir, version: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version };
}

/** The apimachinery package (ObjectMeta, Time…) as kubernetes-models' validators import it: resolved from kubernetes-models. */
export function kubernetesModelsApimachinery(root) {
  const require = createRequire(join(kubernetesModels(root).dir, 'package.json'));
  return { dir: dirname(require.resolve('@kubernetes-models/apimachinery/package.json')) };
}

/** Every `.d.ts` under `dir` but index files, its JSON schemas and nested node_modules, sorted. */
export function dtsFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (name === '_schemas' || name === 'node_modules') continue;
    if (statSync(p).isDirectory()) out.push(...dtsFiles(p));
    else if (name.endsWith('.d.ts') && name !== 'index.d.ts') out.push(p);
  }
  return out;
}
