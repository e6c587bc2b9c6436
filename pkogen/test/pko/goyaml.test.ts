import { marshalGoYaml, goYamlKeyLess } from '../../src/gotemplate/funcs/goyaml.js';
import type { GoValue } from '../../src/gotemplate/types.js';

// Expected texts are sigs.k8s.io/yaml.Marshal output (go-yaml v2) with the trailing newline trimmed.
const cases: [string, GoValue, string][] = [
  ['sorted keys', { b: 1n, a: 'x' }, 'a: x\nb: 1'],
  ['sequence under a key is not indented', { a: [1n, 2n] }, 'a:\n- 1\n- 2'],
  ['empty collections are flow', { a: {}, b: [] }, 'a: {}\nb: []'],
  ['nested mapping', { a: { b: { c: 'd' } } }, 'a:\n  b:\n    c: d'],
  ['list of maps', [{ a: 1n, b: 2n }], '- a: 1\n  b: 2'],
  ['list of lists', [[1n, 2n], ['x']], '- - 1\n  - 2\n- - x'],
  ['strings that would resolve differently are double-quoted', { a: 'true', b: '123', c: '', d: 'null', e: 'yes', f: '1.5', g: '0x1F', h: '2001-12-14' }, 'a: "true"\nb: "123"\nc: ""\nd: "null"\ne: "yes"\nf: "1.5"\ng: "0x1F"\nh: "2001-12-14"'],
  ['indicators force single quotes', { a: '- x', b: 'x: y', c: '#c', d: '*a', e: 'a #b', f: ' lead' }, "a: '- x'\nb: 'x: y'\nc: '#c'\nd: '*a'\ne: 'a #b'\nf: ' lead'"],
  ['plain is fine for most text', { a: 'hello world', b: 'a:b', c: 'http://x/y?z=1' }, 'a: hello world\nb: a:b\nc: http://x/y?z=1'],
  ['single quotes are doubled', { a: "it's: x" }, "a: 'it''s: x'"],
  ['multi-line → literal with chomping', { a: 'l1\nl2', b: 'l1\n', c: 'x\n\n' }, 'a: |-\n  l1\n  l2\nb: |\n  l1\nc: |+\n  x\n'],
  ['literal with leading space gets an indentation indicator', { a: ' x\ny' }, 'a: |2-\n   x\n  y'],
  ['tabs are not printable for the emitter → double quoted', { a: 'a\tb' }, 'a: "a\\tb"'],
  ['numbers: JSON ints stay ints, floats use %g', { i: 3.0, f: 1.5, e: 1e21, s: 0.000001 }, 'e: 1e+21\nf: 1.5\ni: 3\ns: 1e-06'],
  ['null and bools', { a: null, b: true }, 'a: null\nb: true'],
  ['top-level scalar', 'hello', 'hello'],
  ['top-level null', null, 'null'],
  ['natural key order', { a10: 1n, a2: 2n, b: 3n }, 'a2: 2\na10: 1\nb: 3'],
  ['long plain strings fold at 80 columns', { k: 'word '.repeat(20).trim() }, 'k: word word word word word word word word word word word word word word word word\n  word word word word'],
  // kubernetes-sigs/yaml#116: the goyaml.v2 fork still folds single-quoted scalars past column 80
  [
    'sigs.k8s.io/yaml#116 folding of a quoted scalar',
    { a: '12345678901234567890123456789012345678901234567890123456789012341234567890123456789012345678901234567890123456789012345678901234: .s' },
    "a: '12345678901234567890123456789012345678901234567890123456789012341234567890123456789012345678901234567890123456789012345678901234:\n  .s'",
  ],
];

describe('toYAML (sigs.k8s.io/yaml via go-yaml v2)', () => {
  test.each(cases)('%s', (_n, v, want) => expect(marshalGoYaml(v)).toBe(want));
  test('go-yaml natural key order', () => {
    expect(goYamlKeyLess('a2', 'a10')).toBe(true);
    expect(goYamlKeyLess('a', 'B')).toBe(false);
    expect(goYamlKeyLess('1', 'a')).toBe(true);
  });
});
