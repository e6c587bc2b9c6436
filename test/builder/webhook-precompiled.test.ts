/**
 * The webhook's footprint: its process loads only what it runs.
 * - The precompiled CRD validators (builder/webhook/precompile.ts, written over schemas.js by
 *   hack/precompile-webhook.mjs at build time) give the verdicts and errors of the schemas compiled
 *   at run time (schemas.ts), on valid and invalid objects of both kinds.
 * - The webhook entry's import closure (builder/webhook/main.ts) reaches neither
 *   @kubernetes/client-node nor the controller, and ajv's compiler only through schemas.ts, the
 *   module the build replaces.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { API_VERSION, BUILD_KIND, CONFIG_KIND } from '../../builder/api/types.js';
import { webhookSchemasSource } from '../../builder/webhook/precompile.js';
import { assertJsRules } from '../../builder/webhook/cel-rules.js';
import { schemaValidator, type SchemaValidator } from '../../builder/webhook/schemas.js';

const ROOT = process.cwd();
const DIGEST = 'sha256:' + 'c'.repeat(64);
let scratch: string;
let precompiled: { schemaValidator: (k: string) => SchemaValidator; SCHEMA_SOURCE: string };

beforeAll(async () => {
  mkdirSync(path.join(ROOT, 'dist'), { recursive: true });
  scratch = mkdtempSync(path.join(ROOT, 'dist', 'webhook-precompiled-test-'));
  // The module imports pkogen/schema/runtime (jest maps it to pkogen's source) and our cel-rules (.js to .ts).
  const celRules = path.relative(scratch, path.join(ROOT, 'builder', 'webhook', 'cel-rules.js')).split(path.sep).join('/');
  writeFileSync(path.join(scratch, 'schemas.js'), webhookSchemasSource(celRules));
  precompiled = await import(pathToFileURL(path.join(scratch, 'schemas.js')).href);
});

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

const cond = (type: string, extra: Record<string, unknown> = {}) => ({ type, status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2026-11-25T00:00:00Z', ...extra });

const CONFIGS: [string, unknown][] = [
  ['valid', { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: 'w' }, spec: { nodePool: { name: 'w' }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 's' }, renderedImagePushSpec: 'q.example.com/o/i:t', containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\n' }] } }],
  ['name differs (CEL)', { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: 'x' }, spec: { nodePool: { name: 'w' }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 's' }, renderedImagePushSpec: 'q.example.com/o/i:t' } }],
  ['many errors', { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: 'w' }, spec: { nodePool: { name: 'W!' }, imageBuilder: { imageBuilderType: 'Pod' }, renderedImagePushSecret: {}, renderedImagePushSpec: 'nope', unknown: 1, containerFile: [{ containerfileArch: 'X', content: '' }, { containerfileArch: 'X', content: 'y' }] } }],
  ['bad status', { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: { name: 'w' }, spec: { nodePool: { name: 'w' }, imageBuilder: { imageBuilderType: 'Job' }, renderedImagePushSecret: { name: 's' }, renderedImagePushSpec: 'q.example.com/o/i:t' }, status: { observedGeneration: -1, currentImagePullSpec: 'q.example.com/o/i:t', conditions: [cond('A'), cond('A', { lastTransitionTime: 'yesterday' })] } }],
  ['not an object', { apiVersion: API_VERSION, kind: CONFIG_KIND, metadata: {}, spec: 'x' }],
];

const BUILDS: [string, unknown][] = [
  ['valid', { apiVersion: API_VERSION, kind: BUILD_KIND, metadata: { name: 'w-0123456789' }, spec: { nodePoolOSConfig: { name: 'w' }, nodePool: { name: 'w' }, releaseImage: `q.example.com/r@${DIGEST}`, baseOSImage: `q.example.com/b@${DIGEST}`, renderedImagePushSpec: 'q.example.com/o/i:t' }, status: { conditions: [cond('Succeeded')], builder: { imageBuilderType: 'Job', job: { group: 'batch', resource: 'jobs', namespace: 'ns', name: 'j' } }, buildStart: '2026-11-25T00:00:00Z', digestedImagePushSpec: `q.example.com/o/i@${DIGEST}` } }],
  ['bad', { apiVersion: API_VERSION, kind: BUILD_KIND, metadata: { name: 'w' }, spec: { nodePoolOSConfig: {}, nodePool: { name: 'w' }, releaseImage: 'x', baseOSImage: 'q.example.com/b:t', renderedImagePushSpec: 'q.example.com/o/i:t' }, status: { conditions: [cond('Other')], builder: { imageBuilderType: 'Job' }, buildEnd: 'soon', relatedObjects: [{ group: '', resource: '', name: 'Bad' }] } }],
];

function run(v: SchemaValidator, data: unknown): { ok: boolean; errors: unknown } {
  const ok = v(data);
  return { ok, errors: (v.errors ?? []).map((e) => ({ instancePath: e.instancePath, keyword: e.keyword, message: e.message, params: e.params })) };
}

describe('precompiled webhook validators', () => {
  test('the generated module says it is precompiled', () => {
    expect(precompiled.SCHEMA_SOURCE).toBe('precompiled');
  });

  test.each([...CONFIGS.map(([n, o]) => [CONFIG_KIND, n, o] as const), ...BUILDS.map(([n, o]) => [BUILD_KIND, n, o] as const)])('%s %s: same verdict and errors as compiled at run time', (kind, _n, obj) => {
    const a = run(schemaValidator(kind as never), obj);
    const b = run(precompiled.schemaValidator(kind), obj);
    expect(b).toEqual(a);
  });

  test('a CEL rule without a JavaScript twin fails the generation, naming it', () => {
    expect(() => assertJsRules({ properties: { a: { 'x-kubernetes-validations': [{ rule: 'self.size() > 2' }] } } }, 'X')).toThrow('X.properties.a: CEL rule "self.size() > 2" has no JavaScript twin');
    expect(() => assertJsRules({ 'x-kubernetes-validations': [{ rule: 'self.matches("^[a-z]+$")' }] }, 'X')).toThrow('no JavaScript twin');
  });

  test('generation is deterministic', () => {
    expect(webhookSchemasSource('./x.js')).toBe(webhookSchemasSource('./x.js'));
  });
});

/** Value imports (not `import type`) of a TypeScript source file, resolved to files. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+'([^']+)'/gm)) out.push(m[1]!);
  return out.map((s) => (s.startsWith('.') ? path.resolve(path.dirname(file), s.replace(/\.js$/, '.ts')) : s));
}

function closure(entry: string): Set<string> {
  const seen = new Set<string>();
  const todo = [entry];
  while (todo.length) {
    const f = todo.pop()!;
    if (seen.has(f)) continue;
    seen.add(f);
    if (f.endsWith('.ts')) todo.push(...imports(f));
  }
  return seen;
}

describe('the webhook entry loads only what it runs', () => {
  const entry = path.join(ROOT, 'builder', 'webhook', 'main.ts');
  const all = closure(entry);
  const rel = (f: string) => (path.isAbsolute(f) ? path.relative(ROOT, f) : f);

  test('no Kubernetes client, no controller, no build-time module', () => {
    const names = [...all].map(rel);
    // The walk does see the webhook's own modules (a check that the import parser works).
    expect(names).toEqual(expect.arrayContaining(['builder/webhook/server.ts', 'builder/webhook/validate.ts', 'builder/webhook/schemas.ts', 'builder/flags.ts', 'pkogen/schema/runtime']));
    expect(names.filter((n) => n.startsWith('@kubernetes/') || n.startsWith('builder/controller/') || n === 'builder/clusters/kube.ts' || n === 'builder/cli.ts' || n === 'builder/wiring.ts')).toEqual([]);
    expect(names).not.toContain('builder/webhook/precompile.ts');
  });

  test('ajv\'s compiler and the CRD converter are reached only through schemas.ts, which the build replaces', () => {
    const withoutSchemas = new Set<string>();
    const todo = [entry];
    while (todo.length) {
      const f = todo.pop()!;
      if (withoutSchemas.has(f) || f.endsWith(path.join('builder', 'webhook', 'schemas.ts'))) continue;
      withoutSchemas.add(f);
      if (f.endsWith('.ts')) todo.push(...imports(f));
    }
    const names = [...withoutSchemas].map(rel);
    // pkogen/schema is the compiler side (ajv, the CRD converter, CEL keywords); pkogen/schema/runtime is what precompiled code needs.
    expect(names.filter((n) => n === 'ajv' || n === 'pkogen/schema' || n === '@bufbuild/cel')).toEqual([]);
    expect(names).toContain('pkogen/schema/runtime');
  });
});
