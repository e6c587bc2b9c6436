/**
 * The validators hack/bundle.mjs precompiles (ajv standalone code of the registry's own schemas)
 * answer exactly like the ones the registry compiles at run time: same verdict, same errors.
 */
import { Ajv } from 'ajv';
import { newAjv } from '../../src/schema/ajv-setup.js';
import { FORMAT_DEFINITIONS } from '../../src/schema/formats.js';
import { LABEL_SELECTOR_ID, objectMetaId, ownSchemas } from '../../src/schema/objectmeta.js';
import { precompiledSource } from '../../src/schema/precompile.js';

type V = ((d: unknown) => boolean) & { errors?: unknown };

function loadPrecompiled(): Record<string, V> {
  const src = precompiledSource();
  // The module imports its formats from formats.ts: hand them in instead, and run it as a function body.
  const body = src
    .split('\n')
    .filter((l) => !l.startsWith('import '))
    .join('\n')
    .replace(/\bexport const /g, 'const ')
    .replace(/\bexport default [^;]*;/g, '');
  return new Function('formats', `${body}\nreturn PRECOMPILED;`)(FORMAT_DEFINITIONS) as Record<string, V>;
}

const META = [
  { name: 'web', namespace: 'ns', labels: { app: 'web', 'example.com/tier': 'front' }, annotations: { 'a.b/c': 'anything at all' } },
  { name: 'Bad_Name' },
  { name: 'a'.repeat(70), namespace: 'Not-A-Label' },
  { name: '..' },
  { name: 'x', labels: { 'bad key!': 'v', ok: 'bad value!' }, annotations: { '/x': '1' } },
  { name: 'x', creationTimestamp: 'yesterday', generation: 1.5, finalizers: [1] },
  { name: 'x', ownerReferences: [{ apiVersion: 'v1', kind: 'Pod', name: 'p' }, { apiVersion: 'v1', kind: 'Pod', name: 'p', uid: 'u', extra: true }] },
  { name: 'x', nmae: 'typo', labels: null, managedFields: [{ any: 'thing' }] },
  'not an object',
];

const SELECTORS = [
  { matchLabels: { app: 'web' } },
  { matchLabels: { 'bad key!': 'x' }, matchExpressions: [{ key: 'a', operator: 'In' }] },
  { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }, { key: 'b', operator: 'Maybe' }, { operator: 'In', values: [] }] },
  { matchLabel: {} },
];

test('precompiled ObjectMeta and LabelSelector validators give the runtime validators’ verdicts and errors', () => {
  const pre = loadPrecompiled();
  const ajv: Ajv = newAjv();
  for (const s of ownSchemas()) ajv.addSchema(s);
  const cases: [string, unknown[]][] = [
    ...(['subdomain', 'label', 'path-segment', 'any'] as const).map((r): [string, unknown[]] => [objectMetaId(r), META]),
    [LABEL_SELECTOR_ID, SELECTORS],
  ];
  let invalid = 0;
  for (const [id, inputs] of cases) {
    expect(Object.keys(pre)).toContain(id);
    const runtime = ajv.getSchema(id)!;
    for (const input of inputs) {
      const ok = runtime(input);
      expect({ id, input, ok: pre[id](input), errors: pre[id].errors }).toEqual({ id, input, ok, errors: runtime.errors });
      if (!ok) invalid++;
    }
  }
  // the inputs do exercise the error paths
  expect(invalid).toBeGreaterThan(20);
});

test('the generated module is deterministic', () => {
  expect(precompiledSource()).toBe(precompiledSource());
});
