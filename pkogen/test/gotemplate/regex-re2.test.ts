/**
 * Template regex functions with Go's regexp (RE2) semantics (issue 11, item 2). Expected values
 * are the outputs printed by the examples in Go's src/regexp/example_test.go and the rules of
 * regexp.go (FindAll, ReplaceAll, Split, Expand, QuoteMeta); the oracle engine has no sprig, so
 * these are written out here.
 */
import { cpSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { TemplateSet, GoTemplateError } from '../../src/gotemplate/index.js';
import { regexFuncs } from '../../src/gotemplate/funcs/regex.js';
import type { GoValue } from '../../src/gotemplate/index.js';
import { runCli, SHARED, tempDir } from '../helpers.js';

function call(name: string, ...args: GoValue[]): unknown {
  const v = (regexFuncs[name] as (...a: GoValue[]) => GoValue)(...args);
  return v !== null && typeof v === 'object' && 'value' in (v as object) ? (v as { value: unknown }).value : v;
}

function render(tpl: string): string {
  const set = new TemplateSet({ missingKey: 'error', funcs: regexFuncs });
  set.parse('t', tpl);
  return set.execute('t', {});
}

describe("Go's regexp examples", () => {
  test.each([
    // ExampleRegexp_FindAllString
    ['regexFindAll', ['a.', 'paranormal', -1n], ['ar', 'an', 'al']],
    ['regexFindAll', ['a.', 'paranormal', 2n], ['ar', 'an']],
    ['regexFindAll', ['a.', 'graal', -1n], ['aa']],
    ['regexFindAll', ['a.', 'none', -1n], []],
    // ExampleRegexp_FindString
    ['regexFind', ['foo.?', 'seafood fool'], 'food'],
    ['regexFind', ['foo.?', 'meat'], ''],
    // ExampleRegexp_ReplaceAllString, including a group named "1W"
    ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', 'T'], '-T-T-'],
    ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', '$1'], '--xx-'],
    ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', '$1W'], '---'],
    ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', '${1}W'], '-W-xxW-'],
    ['regexReplaceAll', ['a(?P<1W>x*)b', '-ab-axxb-', '$1W'], '--xx-'],
    ['regexReplaceAll', ['a(?P<1W>x*)b', '-ab-axxb-', '${1}W'], '-W-xxW-'],
    // ExampleRegexp_ReplaceAllLiteralString
    ['regexReplaceAllLiteral', ['a(x*)b', '-ab-axxb-', 'T'], '-T-T-'],
    ['regexReplaceAllLiteral', ['a(x*)b', '-ab-axxb-', '$1'], '-$1-$1-'],
    ['regexReplaceAllLiteral', ['a(x*)b', '-ab-axxb-', '${1}'], '-${1}-${1}-'],
    // ExampleRegexp_Split
    ['regexSplit', ['a', 'banana', -1n], ['b', 'n', 'n', '']],
    ['regexSplit', ['a', 'banana', 0n], []],
    ['regexSplit', ['a', 'banana', 1n], ['banana']],
    ['regexSplit', ['a', 'banana', 2n], ['b', 'nana']],
    ['regexSplit', ['z+', 'pizza', -1n], ['pi', 'a']],
    ['regexSplit', ['z+', 'pizza', 2n], ['pi', 'a']],
    // ExampleQuoteMeta
    ['regexQuoteMeta', ['Escaping symbols like: .+*?()|[]{}^$'], 'Escaping symbols like: \\.\\+\\*\\?\\(\\)\\|\\[\\]\\{\\}\\^\\$'],
  ] as [string, GoValue[], unknown][])('%s %p', (name, args, want) => {
    expect(call(name, ...args)).toEqual(want);
  });
});

describe('Go-specific syntax and iteration rules', () => {
  test.each([
    ['(?i) flag group, also mid-pattern', 'regexFindAll', ['a(?i)b', 'aB ab AB', -1n], ['aB', 'ab']],
    ['\\pL and \\p{Greek}', 'regexFindAll', ['\\pL+', 'héllo wörld 42 αβγ', -1n], ['héllo', 'wörld', 'αβγ']],
    ['\\p{Greek}', 'regexFind', ['\\p{Greek}+', 'abc αβγ'], 'αβγ'],
    ['(?P<name>) expanded by ${name}', 'regexReplaceAll', ['(?P<key>\\w+)=(?P<val>\\w+)', 'a=1 b=2', '${val}:${key}'], '1:a 2:b'],
    ['$name is as long as possible', 'regexReplaceAll', ['(?P<k>a)', 'a', '$kx|${k}x'], '|ax'],
    ['$$ is a dollar, a lone $ stays', 'regexReplaceAll', ['a', 'a', '$$ $'], '$ $'],
    ['leading zero is a name, not a number', 'regexReplaceAll', ['(a)', 'a', '[$01]'], '[]'],
    ['unset group expands to nothing', 'regexReplaceAll', ['(a)|(b)', 'b', '<$1>'], '<>'],
    ['POSIX class, negated', 'regexFindAll', ['[[:^alpha:]]+', 'ab12c;', -1n], ['12', ';']],
    ['\\Q…\\E quoting', 'regexFind', ['\\Qa.b\\E', 'axb a.b'], 'a.b'],
    ['(?U) ungreedy', 'regexFind', ['(?U)a+', 'aaa'], 'a'],
    ['(?s) dot matches newline', 'regexFind', ['(?s)a.b', 'a\nb'], 'a\nb'],
    ['\\A and \\z', 'regexFindAll', ['\\Aa|b\\z', 'aab', -1n], ['a', 'b']],
    ['leftmost-first alternation', 'regexFind', ['a|ab', 'ab'], 'a'],
    ['empty match after a match is skipped', 'regexFindAll', ['a*', 'baaac', -1n], ['', 'aaa', '']],
    ['empty matches replace between runes, once', 'regexReplaceAll', ['x*', 'abc', '-'], '-a-b-c-'],
    ['empty matches and astral runes', 'regexReplaceAll', ['', 'a😀b', '|'], '|a|😀|b|'],
    ['split on an empty pattern splits runes', 'regexSplit', ['', 'a😀b', -1n], ['a', '😀', 'b']],
    ['split of an empty string', 'regexSplit', ['a', '', -1n], ['']],
  ] as [string, string, GoValue[], unknown][])('%s', (_what, name, args, want) => {
    expect(call(name, ...args)).toEqual(want);
  });

  test.each([
    ['(a)\\1', 'invalid escape sequence: `\\1`'],
    ['(?=a)', 'invalid or unsupported Perl syntax: `(?=`'],
    ['(?<!a)b', 'invalid named capture: `(?<!a)b`'], // Go 1.22+ reads (?< as a named group
    ['(a', 'missing closing ): `(a`'],
    ['a**', 'invalid nested repetition operator: `**`'],
    ['a{1001}', 'invalid repeat count: `{1001}`'],
    ['(?P<n>a)(?P<n>b)', 'duplicate capture group name: `n`'],
  ])('Go rejects %s', (pattern, msg) => {
    expect(() => render(`{{ regexMatch ${JSON.stringify(pattern)} "a" }}`)).toThrow(`error calling regexMatch: error parsing regexp: ${msg}`);
    expect(() => render(`{{ mustRegexFind ${JSON.stringify(pattern)} "a" }}`)).toThrow(GoTemplateError);
  });

  test('the hostile pattern runs in linear time: a long input and the same pattern many times', () => {
    const long = 'a'.repeat(200_000) + '!';
    expect(call('regexMatch', '^(a+)+$', long)).toBe(false);
    expect(call('regexFindAll', '(a|aa)+$', long, -1n)).toEqual([]);
    expect(call('regexReplaceAll', '(x+x+)+y', 'x'.repeat(50_000), 'z')).toBe('x'.repeat(50_000));
  });
});

describe('the hostile pattern through the CLI', () => {
  let t: ReturnType<typeof tempDir>;
  let pkg: string;
  beforeAll(() => {
    t = tempDir();
    pkg = path.join(t.dir, 'pkg');
    cpSync(path.join(SHARED, 'reference/pko-packages/test-stub'), pkg, { recursive: true });
    writeFileSync(
      path.join(pkg, 'hostile.yaml.gotmpl'),
      [
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: hostile',
        '  annotations:',
        '    package-operator.run/phase: deploy',
        'data:',
        `  m: "{{ regexMatch "^(a+)+$" (printf "%s!" (repeat 100000 "a")) }}"`,
        '',
      ].join('\n'),
    );
  });
  afterAll(() => t.cleanup());

  test('validate, render and build finish, and the template evaluates as Go would', async () => {
    const v = await runCli(['validate', pkg]);
    expect(v.stderr + v.stdout).not.toMatch(/internal error|\n\s+at /);
    const r = await runCli(['render', pkg, '--test-case', 'namespace-scope']);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('m: "false"');
    const b = await runCli(['build', pkg, '--oci-layout', path.join(t.dir, 'layout'), '-o', 'digest']);
    expect(b.stderr).not.toMatch(/internal error|\n\s+at /);
    expect(b.code).toBe(v.code);
  });
});
