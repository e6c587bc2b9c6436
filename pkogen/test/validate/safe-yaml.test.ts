import { decodeYamlBytes, parseYamlSafe, YamlLimitError } from '../../src/pko/safe-yaml.js';
import { toBytes } from '../../src/core/filemap.js';

function blockNested(depth: number): string {
  let s = '';
  for (let i = 0; i < depth; i++) s += `${' '.repeat(i)}k${i}:\n`;
  return s + `${' '.repeat(depth)}leaf: 1\n`;
}

describe('parseYamlSafe limits on the fast path', () => {
  it('parses plain block YAML within the depth limit', () => {
    const v = parseYamlSafe(blockNested(20)) as Record<string, unknown>;
    expect(Object.keys(v)).toEqual(['k0']);
  });

  it('block nesting past the limit is a limit error, not a result', () => {
    expect(() => parseYamlSafe(blockNested(40), { maxDepth: 30, maxNodes: 1_000_000, maxChars: 1_000_000 })).toThrow(YamlLimitError);
  });

  it('aliases never take the fast path: expansion stays bounded', () => {
    const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x","x"]', 'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]', 'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]', 'd: [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]'].join('\n');
    expect(() => parseYamlSafe(bomb, { maxDepth: 512, maxNodes: 5_000, maxChars: 1_000_000 })).toThrow(/alias bomb/);
  });

  it('text we encoded is read back without decoding; foreign bytes are still checked', () => {
    expect(decodeYamlBytes(toBytes('a: 1\n'))).toBe('a: 1\n');
    expect(() => decodeYamlBytes(new Uint8Array([0x61, 0x3a, 0x20, 0xff]))).toThrow(YamlLimitError);
  });
});
