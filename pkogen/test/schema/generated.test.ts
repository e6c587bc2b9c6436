import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BUNDLED_CRDS } from '../../src/schema/generated/crds.js';
import { BUILTIN_KINDS, KUBERNETES_MODELS_VERSION } from '../../src/schema/generated/builtin-shapes.js';
import { BUILTIN_VALIDATORS } from '../../src/schema/generated/builtin-validators.js';
import { createRequire } from 'node:module';
import { removedApiMessage } from '../../src/schema/removed.js';

test('bundled CRDs are up to date with ../shared/reference/crds (else: node hack/gen-schema-data.mjs)', async () => {
  const url = pathToFileURL(join(process.cwd(), 'hack', 'schema-crds.mjs')).href;
  const { bundleCrds } = (await import(url)) as { bundleCrds: (dir: string) => unknown };
  const fresh = bundleCrds(join(process.cwd(), '..', '..', 'shared', 'reference', 'crds'));
  expect(JSON.parse(JSON.stringify(BUNDLED_CRDS))).toEqual(fresh);
});

test('built-in data matches the installed kubernetes-models', () => {
  const require = createRequire(join(process.cwd(), 'package.json'));
  const installed = (require('kubernetes-models/package.json') as { version: string }).version;
  expect(KUBERNETES_MODELS_VERSION).toBe(installed);
  // Served versions have a compiled validator; the ones without are exactly those Kubernetes removed.
  for (const [key, { schemaId }] of Object.entries(BUILTIN_KINDS)) {
    const i = key.lastIndexOf('/');
    const removed = removedApiMessage(key.slice(0, i), key.slice(i + 1)) !== undefined;
    expect([key, typeof BUILTIN_VALIDATORS[schemaId]]).toEqual([key, removed ? 'undefined' : 'function']);
  }
});
