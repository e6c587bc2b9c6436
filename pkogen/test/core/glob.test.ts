import { globMatches, GlobSyntaxError } from '../../src/core/glob.js';

/** Where the three upstream glob dialects differ, each answers as its upstream does. */
describe('globs: one compiler, three dialects', () => {
  it.each([
    // pattern, path, filepath (Go path/filepath), doublestar v1 (PKO filter), gobwas (getFileGlob)
    ['*.yaml', 'a/b.yaml', false, false, false],
    ['**/*.yaml', 'a/b/c.yaml', false, true, true],
    ['**', 'a/b/c', false, true, true],
    ['a/**.yaml', 'a/b/c.yaml', false, false, true],
    ['{a,b}.yaml', 'b.yaml', false, true, true],
    ['{a,b}.yaml', '{a,b}.yaml', true, false, false],
    ['[!a].yaml', 'b.yaml', false, true, true],
    ['[^a].yaml', 'b.yaml', true, true, false],
    ['ocm-*-[ab]', 'ocm-x-a', true, true, true],
    ['x\\*', 'x*', true, true, true],
    ['x\\*', 'xy', false, false, false],
  ] as [string, string, boolean, boolean, boolean][])('%s ~ %s', (pattern, path, filepath, doublestar, gobwas) => {
    expect([globMatches(pattern, path, 'filepath'), globMatches(pattern, path, 'doublestar'), globMatches(pattern, path, 'gobwas')]).toEqual([filepath, doublestar, gobwas]);
  });

  it.each(['a[b', 'a{b', 'a\\'])('refuses the malformed pattern %p where upstream does', (pattern) => {
    expect(() => globMatches(pattern, 'x', 'gobwas')).toThrow(GlobSyntaxError);
    expect(() => globMatches(pattern, 'x', 'doublestar')).toThrow(GlobSyntaxError);
  });

  it('filepath takes a trailing backslash literally and has no braces', () => {
    expect(globMatches('a\\', 'a\\', 'filepath')).toBe(true);
    expect(() => globMatches('a{b', 'a{b', 'filepath')).not.toThrow();
  });
});
