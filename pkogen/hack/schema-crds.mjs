// CRD intake for hack/gen-schema-data.mjs, separate so test/schema can check the bundled copy
// against ../shared without loading the TypeScript compiler.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import YAML from 'yaml';

function walkFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...walkFiles(p));
    else if (/\.ya?ml$/.test(name)) out.push(p);
  }
  return out;
}

// Descriptions and examples are dropped: they are large and never used for validation.
function stripDocs(node) {
  if (Array.isArray(node)) return node.map(stripDocs);
  if (node === null || typeof node !== 'object') return node;
  const out = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'description' || k === 'example' || k === 'externalDocs') continue;
    // `properties` maps field names to schemas: a field may be called "description".
    if (k === 'properties' || k === 'definitions' || k === 'patternProperties') {
      out[k] = Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, stripDocs(pv)]));
    } else out[k] = stripDocs(v);
  }
  return out;
}

/** Every CRD under crdDir reduced to a BundledCrd (src/schema/crd.ts), sorted by group/kind. */
export function bundleCrds(crdDir) {
  const crds = [];
  for (const file of walkFiles(crdDir)) {
    for (const doc of YAML.parseAllDocuments(readFileSync(file, 'utf8'))) {
      const crd = doc.toJS();
      if (!crd || crd.kind !== 'CustomResourceDefinition') continue;
      crds.push({
        source: relative(crdDir, file).split('\\').join('/'),
        group: crd.spec.group,
        kind: crd.spec.names.kind,
        plural: crd.spec.names.plural,
        scope: crd.spec.scope,
        versions: crd.spec.versions.map((v) => ({
          name: v.name,
          served: v.served !== false,
          schema: stripDocs(v.schema?.openAPIV3Schema ?? null),
        })),
      });
    }
  }
  // Code-unit order, not localeCompare: the output must not depend on the machine's locale.
  crds.sort((a, b) => { const x = a.group + '/' + a.kind, y = b.group + '/' + b.kind; return x < y ? -1 : x > y ? 1 : 0; });
  return crds;
}
