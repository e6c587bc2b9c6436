/**
 * The work budget counted inside template functions (issue 11, item 3): values that share
 * structure expand when serialised, and string functions can multiply their input; each such
 * template stops with a located template error instead of running for minutes out of memory.
 */
import { cpSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { GoTemplateError, TemplateSet } from '../../src/gotemplate/index.js';
import { sprigFuncs } from '../../src/gotemplate/funcs/index.js';
import { runBuiltCli, SHARED, tempDir } from '../helpers.js';

/** A budget of 1 M (the default is 50 M) keeps these fast under jest; the CLI tests use the default. */
function exec(tpl: string, maxWork = 1_000_000): string {
  const set = new TemplateSet({ missingKey: 'error', funcs: sprigFuncs(), limits: { maxWork } });
  set.parse('t.yaml', tpl);
  return set.execute('t.yaml', {});
}

const DOUBLED_DICT = '{{ $d := dict "a" 1 }}{{ range until 30 }}{{ $d = dict "x" $d "y" $d }}{{ end }}';
const DOUBLED_LIST = '{{ $d := list 1 }}{{ range until 30 }}{{ $d = list $d $d }}{{ end }}';
const LIMIT = /template work exceeds the limit of \d+ \(characters and list\/dict elements produced by functions\)$/;

describe('work inside functions is counted', () => {
  test.each([
    ['toJson of a dict doubled 30 times', `${DOUBLED_DICT}{{ toJson $d }}`, 't.yaml:1:83', '<toJson $d>'],
    ['toPrettyJson of it', `${DOUBLED_DICT}{{ toPrettyJson $d }}`, 't.yaml:1:83', '<toPrettyJson $d>'],
    ['printing it with {{ }}', `${DOUBLED_DICT}{{ $d }}`, 't.yaml:1:83', '<{{$d}}>'],
    ['printf %v of a doubled list', `${DOUBLED_LIST}{{ printf "%v" $d }}`, 't.yaml:1:71', '<printf "%v" $d>'],
    ['deepCopy of it', `${DOUBLED_DICT}{{ $c := deepCopy $d }}`, 't.yaml:1:89', '<deepCopy $d>'],
    ['merge of it', `${DOUBLED_DICT}{{ $c := merge (dict) $d }}`, 't.yaml:1:89', '<merge (dict) $d>'],
    ['a string doubled by printf', '{{ $s := "xxxxxxxx" }}{{ range until 40 }}{{ $s = printf "%s%s" $s $s }}{{ end }}', 't.yaml:1:50', '<printf "%s%s" $s $s>'],
    ['a string tripled by replace ""', '{{ $s := "xxxxxxxx" }}{{ range until 40 }}{{ $s = replace "" "ab" $s }}{{ end }}', 't.yaml:1:50', '<replace "" "ab" $s>'],
    ['a huge indent', '{{ indent 999999999999 "x" }}', 't.yaml:1:3', '<indent 999999999999 "x">'],
    ['printf widths in a loop', '{{ range until 1000 }}{{ printf "%1000000d" 1 | len }}{{ end }}', 't.yaml:1:25', '<printf "%1000000d" 1>'],
    ['join with a huge separator', '{{ $sep := repeat 10000 "," }}{{ range until 100 }}{{ $x := join $sep (until 1000) }}{{ end }}', 't.yaml:1:60', '<join $sep (until 1000)>'],
    ['deepEqual of two doubled dicts', `${DOUBLED_DICT}{{ $e := dict "a" 1 }}{{ range until 30 }}{{ $e = dict "x" $e "y" $e }}{{ end }}{{ deepEqual $d $e }}`, 't.yaml:1:163', '<deepEqual $d $e>'],
    ['uniq on a long list (quadratic)', '{{ len (uniq (until 100000)) }}', 't.yaml:1:8', '<uniq (until 100000)>'],
  ])('%s', (_what, tpl, where, at) => {
    let err: unknown;
    try {
      exec(tpl);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(GoTemplateError);
    const m = (err as Error).message;
    expect(m.startsWith(`template: ${where}: executing "t.yaml" at ${at}: `)).toBe(true);
    expect(m).toMatch(LIMIT);
  });

  test('sprig toJson drops marshalling errors, but not the budget', () => {
    expect(exec('{{ toJson (list 1 2) }}')).toBe('[1,2]');
    expect(() => exec(`${DOUBLED_DICT}{{ toJson $d }}`)).toThrow(LIMIT);
    expect(() => exec(`${DOUBLED_DICT}{{ toRawJson $d }}`)).toThrow(LIMIT);
  });

  test('ordinary templates stay well inside the budget', () => {
    const tpl = '{{ $c := dict "name" "x" "ports" (list 80 443) }}{{ range until 2000 }}{{ toJson $c }}{{ $c | toPrettyJson | indent 4 }}{{ printf "%-10s|%5d" "a" 1 }}{{ regexReplaceAll "(o)" "foo" "[$1]" }}{{ end }}';
    expect(exec(tpl).length).toBeGreaterThan(100_000);
  });

  test('the budget is per execution and configurable', () => {
    // repeat counts its output before building it and its result after: ~2 units a character
    const tpl = '{{ range until 10 }}{{ repeat 100 "x" }}{{ end }}';
    expect(exec(tpl, 3000)).toHaveLength(1000);
    expect(() => exec(tpl, 500)).toThrow(/template work exceeds the limit of 500 /);
    // a second execution starts with a fresh budget
    const set = new TemplateSet({ funcs: sprigFuncs(), limits: { maxWork: 3000 } });
    set.parse('t', tpl);
    expect(set.execute('t', {})).toHaveLength(1000);
    expect(set.execute('t', {})).toHaveLength(1000);
  });

  test('a nested execution (PKO include) shares the budget of the run it is part of', () => {
    const set = new TemplateSet({ funcs: sprigFuncs(), limits: { maxWork: 2500 } });
    set.addFuncs({ inc: (name: unknown) => set.executeTemplate(String(name), {}) } as never);
    set.parse('child', '{{ repeat 500 "x" }}');
    // one include alone costs ~1500 (repeat before and after, the include's result): fits
    set.parse('one', '{{ inc "child" }}');
    expect(set.execute('one', {})).toHaveLength(500);
    set.parse('t', '{{ inc "child" }}{{ inc "child" }}{{ inc "child" }}');
    expect(() => set.execute('t', {})).toThrow(/executing "(t|child)" at <(inc|repeat) .*template work exceeds the limit of 2500 /);
  });
});

describe('the doubled dict through the CLI', () => {
  let t: ReturnType<typeof tempDir>;
  let pkg: string;
  beforeAll(() => {
    t = tempDir();
    pkg = path.join(t.dir, 'pkg');
    cpSync(path.join(SHARED, 'reference/pko-packages/test-stub'), pkg, { recursive: true });
    writeFileSync(
      path.join(pkg, 'bomb.yaml.gotmpl'),
      ['apiVersion: v1', 'kind: ConfigMap', 'metadata:', '  name: bomb', '  annotations:', '    package-operator.run/phase: deploy', 'data:', `  j: '${DOUBLED_DICT}{{ toJson $d }}'`, ''].join('\n'),
    );
  });
  afterAll(() => t.cleanup());

  // The built CLI in a child process capped at 1 GiB of heap (in-process under jest the walk is
  // many times slower).
  test.each([
    ['render', ['--test-case', 'namespace-scope']],
    ['validate', []],
  ])('%s stops with the template error, naming the file, under 1 GiB', (cmd, extra) => {
    const r = runBuiltCli([cmd, pkg, ...extra], { env: { NODE_OPTIONS: '--max-old-space-size=1024' } });
    expect(r.code).toBe(1);
    const out = r.stdout + r.stderr;
    expect(out).toMatch(/bomb\.yaml\.gotmpl:8:\d+: executing "bomb\.yaml\.gotmpl" at <toJson \$d>: template work exceeds the limit of 50000000/);
    expect(out).not.toMatch(/internal error|\n\s+at /);
  });
});
