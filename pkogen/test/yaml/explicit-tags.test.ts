/** An explicit scalar tag on an empty value (found by the fuzzer) is a located YAML error, not a crash. */
import { parseYaml11, YamlParseError } from '../../src/yaml/parse.js';

describe('explicit tags on empty values', () => {
  it.each(['!!int', '!!bool', '!!float'])('%s with no value is a YAML error with its line', (tag) => {
    let err: unknown;
    try {
      parseYaml11(`a: 1\nkey: ${tag}\n`, 'x.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(YamlParseError);
    expect((err as YamlParseError).message).toMatch(/cannot resolve a node with !<tag:yaml.org,2002:/);
    // js-yaml marks the end of the empty value: the start of the next line.
    expect((err as YamlParseError).line).toBe(3);
  });

  it('!!null and !!str with no value are null and the empty string', () => {
    expect(parseYaml11('a: !!null\nb: !!str\n', 'x.yaml')).toEqual({ a: null, b: '' });
  });
});
