import { CelContext } from '../../src/pko/cel.js';
import { admitConfig, formatFieldErrors, validateConfig } from '../../src/pko/config-admission.js';
import { globMatches } from '../../src/core/glob.js';
const doublestarMatch = (g: string, p: string) => globMatches(g, p, 'doublestar');
import { unifiedDiff } from '../../src/pko/unified-diff.js';
import type { JSONSchemaProps } from '../../src/pko/types.js';

const ctx = {
  package: { metadata: { name: 'test', namespace: 'ns', labels: {}, annotations: {} }, image: '' },
  config: { replicas: 3, nested: { flag: true } },
  images: { app: 'registry.package-operator.run/static-image' },
  environment: { kubernetes: { version: 'v1.27.0' }, openShift: { version: 'v4.14.1' } },
};

describe('CEL context (packagerender/celctx)', () => {
  test('named conditions are evaluated in order and exposed as cond', () => {
    const c = new CelContext(ctx, [
      { name: 'isOpenShift', expression: 'has(environment.openShift)' },
      { name: 'many', expression: 'config.replicas > 2' },
    ]);
    expect(c.conditions).toEqual({ isOpenShift: true, many: true });
    expect(c.evaluate('cond.isOpenShift && !cond.many')).toBe(false);
    expect(c.evaluate('has(environment.proxy)')).toBe(false);
    expect(c.evaluate('config.nested.flag')).toBe(true);
    expect(c.evaluate('.package.metadata.namespace == "ns"')).toBe(true);
  });
  test('`package` is reserved in CEL: only the root-scoped `.package` works (as in cel-go)', () => {
    const c = new CelContext(ctx);
    expect(c.evaluate('.package.metadata.name == "test" && ".package" == ".package"')).toBe(true);
    expect(() => c.evaluate('package.metadata.name == "test"')).toThrow('compile error');
  });
  test('a condition cannot see cond', () => {
    expect(() => new CelContext(ctx, [{ name: 'a', expression: 'true' }, { name: 'b', expression: 'cond.a' }])).toThrow("CEL condition evaluation failed: 'b'");
  });
  test("PKO's condition errors", () => {
    expect(() => new CelContext(ctx, [{ name: '1bad', expression: 'true' }])).toThrow("invalid CEL condition name: '1bad'");
    expect(() => new CelContext(ctx, [{ name: 'a', expression: 'true' }, { name: 'a', expression: 'false' }])).toThrow("duplicate CEL condition name: 'a'");
  });
  test('non-bool results and bad syntax are errors', () => {
    const c = new CelContext(ctx);
    expect(() => c.evaluate('config.replicas')).toThrow('invalid return type: double, expected bool');
    expect(() => c.evaluate('1 +')).toThrow('compile error');
    expect(() => c.evaluate('config.missing')).toThrow('evaluation error: no such key: missing');
  });
});

describe('config admission', () => {
  const schema: JSONSchemaProps = {
    type: 'object',
    required: ['image'],
    properties: {
      image: { type: 'string' },
      replicas: { type: 'integer', default: 2, minimum: 1 },
      mode: { type: 'string', enum: ['a', 'b'] },
      obj: { type: 'object', properties: { keep: { type: 'string', default: 'k' } }, default: {} },
      free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
      labels: { type: 'object', additionalProperties: { type: 'string' } },
    },
  };
  test('prunes unknown fields, applies defaults, validates', () => {
    const r = admitConfig({ image: 'x', unknown: 1, free: { any: 1 }, labels: { a: 'b' } }, schema);
    expect(r.errors).toEqual([]);
    expect(r.config).toEqual({ image: 'x', replicas: 2, obj: { keep: 'k' }, free: { any: 1 }, labels: { a: 'b' } });
  });
  test('k8s-style field errors', () => {
    const r = admitConfig({ replicas: 0, mode: 'c' }, schema);
    expect(formatFieldErrors(r.errors)).toBe(
      '[spec.config.image: Required value, spec.config.mode: Unsupported value: (value not shown): supported values: "a", "b", spec.config.replicas: Invalid value: (value not shown): replicas in body should be greater than or equal to 1]',
    );
    expect(formatFieldErrors(admitConfig({}, schema).errors)).toBe('spec.config.image: Required value');
    expect(formatFieldErrors(admitConfig({ image: 5 }, schema).errors)).toContain('spec.config.image: Invalid value: (value not shown): image in body must be of type string: "integer"');
  });
  test('without a schema every key is dropped', () => {
    expect(admitConfig({ a: 1 }, undefined)).toEqual({ config: {}, errors: [] });
  });
  test('plain validation (test cases) does not default', () => {
    expect(formatFieldErrors(validateConfig({}, { type: 'object', required: ['a'], properties: { a: { type: 'string', default: 'x' } } }, 'test.template[0].context.config'))).toBe(
      'test.template[0].context.config.a: Required value',
    );
  });
});

describe('doublestar globs (spec.filter.paths)', () => {
  test.each([
    ['ignored*', 'ignored-cm.yaml', true],
    ['ignored*', 'dir/ignored-cm.yaml', false],
    ['**/*.yaml', 'a/b/c.yaml', true],
    ['**/*.yaml', 'c.yaml', true],
    ['a/**', 'a/b/c', true],
    ['*.{yaml,yml}', 'x.yml', true],
    ['[ab].yaml', 'c.yaml', false],
    ['cel-excluded-by-glob.yaml', 'cel-excluded-by-glob.yaml', true],
  ] as [string, string, boolean][])('%s ~ %s = %p', (g, p, want) => expect(doublestarMatch(g, p)).toBe(want));
});

describe('unified diff like diff -u --label', () => {
  test('one changed line', () => {
    expect(unifiedDiff('d.yaml', 'a\nb\nc\n', 'a\nB\nc\n')).toBe('--- FIXTURE/d.yaml\n+++ ACTUAL/d.yaml\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n');
  });
  test('GNU range rules and missing newline marker', () => {
    expect(unifiedDiff('x', '', 'x\n')).toBe('--- FIXTURE/x\n+++ ACTUAL/x\n@@ -0,0 +1 @@\n+x\n');
    expect(unifiedDiff('x', 'a\n', 'a')).toBe('--- FIXTURE/x\n+++ ACTUAL/x\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n');
  });
  test('equal → empty', () => expect(unifiedDiff('x', 'a', 'a')).toBe(''));
});
