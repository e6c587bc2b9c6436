/** Admission results are remembered per schema (rollouts admit the same configs thousands of times): the same answers, never shared state. */
import { admitConfig } from '../../src/pko/config-admission.js';
import type { JSONSchemaProps } from '../../src/pko/types.js';

const schema: JSONSchemaProps = {
  type: 'object',
  required: ['image'],
  properties: { image: { type: 'string', pattern: '^quay\\.io/' }, replicas: { type: 'integer', default: 2, minimum: 1 }, tags: { type: 'array', items: { type: 'string' }, default: ['a'] } },
};

test('a remembered admission is the same result, and each caller owns its copy', () => {
  const first = admitConfig({ image: 'quay.io/x', extra: 1 }, schema);
  expect(first).toEqual({ config: { image: 'quay.io/x', replicas: 2, tags: ['a'] }, errors: [] });
  (first.config.tags as string[]).push('mutated');
  first.config.replicas = 99;
  const second = admitConfig({ image: 'quay.io/x', extra: 1 }, schema);
  expect(second).toEqual({ config: { image: 'quay.io/x', replicas: 2, tags: ['a'] }, errors: [] });
});

test('errors are per config and per field path, also when remembered', () => {
  for (let i = 0; i < 2; i++) {
    expect(admitConfig({ image: 'docker.io/x', replicas: 0 }, schema).errors.map((e) => e.field)).toEqual(['spec.config.image', 'spec.config.replicas']);
    expect(admitConfig({ replicas: 3 }, schema, 'x.config').errors).toEqual([{ type: 'Required', field: 'x.config.image', detail: '', hideValue: true }]);
    expect(admitConfig({ image: 'quay.io/y' }, schema).errors).toEqual([]);
  }
  // a non-object config is dropped entirely, whatever its JSON looks like
  expect(admitConfig('{"image":"quay.io/x"}', schema).config).toEqual({ replicas: 2, tags: ['a'] });
});
