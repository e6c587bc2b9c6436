/**
 * Hostile YAML through every user-facing path that reads it (issue 11, item 1): an alias bomb,
 * a circular alias, deep nesting and huge or endless files each end quickly with exit 1 and a
 * message naming the file (and the line and field where known), never `internal error` or a stack.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseAllYaml11, parseYaml11, readYamlFileText, YamlFileError, YamlLimitError, YamlParseError } from '../../src/yaml/parse.js';
import { runBuiltCli, runCli, SHARED, tempDir } from '../helpers.js';

const PKG = path.join(SHARED, 'reference/pko-packages/test-stub-cel');

/** The classic 9×9 "billion laughs": ~400 bytes, 9^9 leaves when expanded. */
function bombLines(prefix = ''): string[] {
  const names = 'abcdefghi';
  const lines = [`${prefix}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
  for (let i = 1; i < names.length; i++) {
    const p = names[i - 1];
    lines.push(`${prefix}${names[i]}: &${names[i]} [${Array(9).fill(`*${p}`).join(',')}]`);
  }
  return lines;
}
const BOMB = bombLines().join('\n') + '\n';

function clean(r: { code: number; stdout: string; stderr: string }): void {
  expect(r.code).toBe(1);
  expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at |Maximum call stack/);
}

describe('the bounded YAML reader', () => {
  test('an alias bomb is refused with the field where the expansion got too big', () => {
    let err: unknown;
    try {
      parseYaml11(BOMB, 'bomb.yaml');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(YamlLimitError);
    expect(err).toBeInstanceOf(YamlParseError);
    const le = err as YamlLimitError;
    expect(le.message).toMatch(/^d\[\d+\]\[\d+\]\[\d+\]\[\d+\]: document contains excessive aliasing \(YAML alias bomb\)/);
    expect(le.line).toBe(4);
    expect(le.path).toMatch(/^d\[/);
  });

  test('a circular alias is refused, not a stack overflow', () => {
    expect(() => parseYaml11('a: &a [*a]\n')).toThrow(/^a\[0\]: an anchor's value contains itself \(circular alias\)$/);
    expect(() => parseYaml11('x: 1\nm: &m\n  k: *m\n')).toThrow(/^m\.k: an anchor's value contains itself/);
  });

  test('ordinary anchors, aliases and merge keys still work (within go-yaml\'s alias ratio)', () => {
    const v = parseYaml11('base: &b {p: 1, q: [1, 2]}\nuse:\n  <<: *b\n  r: *b\nlist: [*b, *b]\n') as Record<string, unknown>;
    expect(v.use).toEqual({ p: 1, q: [1, 2], r: { p: 1, q: [1, 2] } });
    expect(v.list).toEqual([{ p: 1, q: [1, 2] }, { p: 1, q: [1, 2] }]);
  });

  test('one budget for a whole multi-document stream, naming the document', () => {
    const doc = bombLines().slice(0, 5).join('\n');
    expect(() => parseAllYaml11(`${doc}\n---\n${doc}\n`, 'two.yaml')).toThrow(/^document 0: .*excessive aliasing/);
    expect(parseAllYaml11('a: 1\n---\nb: [1, 2]\n')).toEqual([{ a: 1 }, { b: [1, 2] }]);
  });

  test('deep flow nesting is refused before parsing, with its line', () => {
    let err: YamlLimitError | undefined;
    try {
      parseYaml11(`a: 1\nb: ${'['.repeat(100_000)}\n`);
    } catch (e) {
      err = e as YamlLimitError;
    }
    expect(err?.message).toBe('document is nested deeper than 512 levels');
    expect(err?.line).toBe(2);
  });

  test('deep block nesting (`- - - …`) is a parse error, not a crash', () => {
    expect(() => parseYaml11('- '.repeat(50_000) + 'x\n')).toThrow(YamlParseError);
    const deepMap = Array.from({ length: 3000 }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' 1\n';
    expect(() => parseYaml11(deepMap)).toThrow(YamlParseError);
  });

  test('a huge document is refused by size', () => {
    expect(() => parseYaml11('a: ' + 'x'.repeat(100), undefined, { maxChars: 50, maxDepth: 10, maxNodes: 1000 })).toThrow('document is larger than 50 characters');
  });

  test('files: only regular files, bounded size, strict UTF-8', () => {
    const t = tempDir();
    try {
      writeFileSync(path.join(t.dir, 'big.yaml'), 'a: ' + 'x'.repeat(300));
      writeFileSync(path.join(t.dir, 'latin1.yaml'), Buffer.from([0x61, 0x3a, 0x20, 0xe9, 0x0a]));
      const limits = { maxChars: 64, maxDepth: 10, maxNodes: 1000 };
      expect(() => readYamlFileText(path.join(t.dir, 'big.yaml'), limits)).toThrow('cannot read file: file is larger than 256 bytes');
      expect(() => readYamlFileText('/dev/zero')).toThrow('cannot read file: not a regular file');
      expect(() => readYamlFileText(t.dir)).toThrow('cannot read file: it is a directory');
      expect(() => readYamlFileText(path.join(t.dir, 'latin1.yaml'))).toThrow(/not UTF-8 text/);
      expect(() => readYamlFileText(path.join(t.dir, 'missing.yaml'))).toThrow(YamlFileError);
      execFileSync('mkfifo', [path.join(t.dir, 'fifo')]);
      // opening must not wait for a writer
      expect(() => readYamlFileText(path.join(t.dir, 'fifo'))).toThrow('cannot read file: not a regular file');
    } finally {
      t.cleanup();
    }
  });
});

describe('hostile YAML through the CLI', () => {
  let t: ReturnType<typeof tempDir>;
  beforeAll(() => {
    t = tempDir();
    writeFileSync(path.join(t.dir, 'bomb.yaml'), BOMB);
    writeFileSync(path.join(t.dir, 'circular.yaml'), 'a: &a [*a]\n');
    writeFileSync(path.join(t.dir, 'deep.yaml'), `x: ${'{a: '.repeat(50_000)}\n`);
    writeFileSync(path.join(t.dir, 'huge.yaml'), 'a: ' + 'x'.repeat(40 * 1024 * 1024));
    execFileSync('mkfifo', [path.join(t.dir, 'fifo.yaml')]);
    const tmpl = ['apiVersion: v1', 'kind: Template', 'metadata:', '  name: bomb', ...bombLines().slice(0, 8).map((l) => 'x-' + l), 'objects:', '  - apiVersion: v1', '    kind: ConfigMap', '    metadata: {name: x}', '    data:', '      a: [*h,*h,*h,*h,*h,*h,*h,*h,*h]'];
    mkdirSync(path.join(t.dir, 'rollout'));
    writeFileSync(path.join(t.dir, 'rollout', 'template.yaml'), tmpl.join('\n') + '\n');
    writeFileSync(path.join(t.dir, 'ok.yaml'), 'testStubImage: quay.io/x/y:1\n');
  });
  afterAll(() => t.cleanup());
  const f = (n: string) => path.join(t.dir, n);

  test.each([
    ['render --config', (file: string) => ['render', PKG, '--config', file]],
    ['tree --config', (file: string) => ['tree', PKG, '--config', file]],
    ['render --environment', (file: string) => ['render', PKG, '--config', f('ok.yaml'), '--environment', file]],
  ])('%s: alias bomb, circular alias, deep nesting, huge file, FIFO', async (_name, args) => {
    const cases: [string, RegExp][] = [
      ['bomb.yaml', /bomb\.yaml:4: invalid YAML: d\[[0-9\]\[]+\]: document contains excessive aliasing/],
      ['circular.yaml', /circular\.yaml:1: invalid YAML: a\[0\]: an anchor's value contains itself \(circular alias\)/],
      ['deep.yaml', /deep\.yaml:1: invalid YAML: document is nested deeper than 512 levels/],
      ['huge.yaml', /huge\.yaml: cannot read file: file is larger than 33554432 bytes/],
      ['fifo.yaml', /fifo\.yaml: cannot read file: not a regular file/],
    ];
    for (const [file, want] of cases) {
      const r = await runCli(args(f(file)));
      clean(r);
      expect(r.stderr).toMatch(want);
    }
  });

  test('rollout Template objects: lint-rollout and simulate report the bomb as a finding', async () => {
    for (const args of [['lint-rollout', f('rollout/template.yaml')], ['simulate', f('rollout/template.yaml'), '--hcp-namespaces', '1']]) {
      const r = await runCli(args);
      clean(r);
      expect(r.stdout + r.stderr).toMatch(/template\.yaml:\d+: invalid YAML: x-[a-h][\[\]0-9]*: document contains excessive aliasing/);
    }
  });

  test('the built CLI stays under 1 GiB on the bomb (a cap that would abort the old code)', () => {
    const r = runBuiltCli(['render', PKG, '--config', f('bomb.yaml')], { env: { NODE_OPTIONS: '--max-old-space-size=1024' } });
    clean(r);
    expect(r.stderr).toMatch(/bomb\.yaml:4: invalid YAML: .*excessive aliasing/);
  });
});
