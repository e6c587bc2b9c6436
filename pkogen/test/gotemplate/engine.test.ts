import { GoTemplateError, GoTyped, TemplateSet, referencedFields, type GoValue } from '../../src/gotemplate/index.js';

function run(text: string, data: GoValue, opts: ConstructorParameters<typeof TemplateSet>[0] = {}): string {
  const set = new TemplateSet(opts);
  set.parse('t', text);
  return set.execute('t', data);
}

function err(fn: () => unknown): GoTemplateError {
  try {
    fn();
  } catch (e) {
    if (e instanceof GoTemplateError) return e;
    throw e;
  }
  throw new Error('expected a GoTemplateError');
}

describe('missingkey', () => {
  const data = { m: { a: 1 }, labels: new GoTyped('map[string]string', { x: 'y' }) };
  test('default prints <no value> and chains through missing values', () => {
    expect(run('{{.nope}}|{{.nope.deeper}}|{{.m.b}}|{{index .m "b"}}', data)).toBe('<no value>|<no value>|<no value>|<no value>');
  });
  test('zero: interface{} maps still print <no value>, typed maps give their zero value', () => {
    expect(run('{{.nope}}|{{.labels.q}}|[{{index .labels "q"}}]', data, { missingKey: 'zero' })).toBe('<no value>||[]');
  });
  test('zero: chaining through a zero interface{} is a nil pointer error, like Go', () => {
    expect(err(() => run('{{.nope.deeper}}', data, { missingKey: 'zero' })).message).toBe(
      'template: t:1:7: executing "t" at <.nope.deeper>: nil pointer evaluating interface {}.deeper',
    );
  });
  test('error: Go message with location', () => {
    const e = err(() => run('line\n  {{.m.b}}', data, { missingKey: 'error' }));
    expect(e.message).toBe('template: t:2:6: executing "t" at <.m.b>: map has no entry for key "b"');
    expect([e.kind, e.template, e.line, e.column]).toEqual(['exec', 't', 2, 6]);
  });
  test('error: index of a missing key in map[string]string gives "" (PKO labels idiom)', () => {
    expect(run('[{{index .labels "q"}}]', data, { missingKey: 'error' })).toBe('[]');
  });
  test('nil data', () => {
    expect(err(() => run('{{.a}}', null, { missingKey: 'error' })).message).toBe('template: t:1:2: executing "t" at <.a>: nil data; no entry for key "a"');
    expect(run('{{.a}}', null)).toBe('<no value>');
  });
});

describe('functions', () => {
  const funcs = {
    upper: (s: GoValue) => String(s).toUpperCase(),
    fail: (msg: GoValue) => {
      throw new Error(String(msg));
    },
    nothing: () => undefined as unknown as GoValue,
    join: Object.assign((sep: GoValue, ...xs: GoValue[]) => xs.join(String(sep)), { goSignature: { params: ['string', 'any'], variadic: true } }),
    twice: Object.assign((n: GoValue) => (n as bigint) * 2n, { goSignature: { params: ['int'] } }),
  };
  test('called with evaluated arguments, pipelines pass the last argument', () => {
    expect(run('{{upper .s}} {{.s | upper}} {{join "-" "a" "b"}} {{twice 21}}', { s: 'abc' }, { funcs })).toBe('ABC ABC a-b 42');
  });
  test('a thrown error becomes "error calling NAME: …" at the call', () => {
    expect(err(() => run('x {{fail "boom"}}', {}, { funcs })).message).toBe('template: t:1:4: executing "t" at <fail "boom">: error calling fail: boom');
  });
  test('undefined results are nil', () => {
    expect(run('{{nothing}}|{{print nothing}}', {}, { funcs })).toBe('<no value>|<nil>');
  });
  test('signatures give Go arity and type errors', () => {
    expect(err(() => run('{{twice}}', {}, { funcs })).message).toBe('template: t:1:2: executing "t" at <twice>: wrong number of args for twice: want 1 got 0');
    expect(err(() => run('{{join}}', {}, { funcs })).message).toBe('template: t:1:2: executing "t" at <join>: wrong number of args for join: want at least 1 got 0');
    expect(err(() => run('{{twice "x"}}', {}, { funcs })).message).toBe('template: t:1:8: executing "t" at <"x">: expected integer; found "x"');
    expect(err(() => run('{{twice .f}}', { f: 1.5 }, { funcs })).message).toBe('template: t:1:8: executing "t" at <.f>: wrong type for value; expected int; got float64');
  });
  test('functions may override builtins (sprig overrides slice)', () => {
    expect(run('{{slice 1 2}}', {}, { funcs: { slice: (...a: GoValue[]) => a } })).toBe('[1 2]');
  });
  test('unknown functions fail at parse time', () => {
    const e = err(() => run('\n{{nope 1}}', {}));
    expect([e.kind, e.message, e.line]).toEqual(['parse', 'template: t:2: function "nope" not defined', 2]);
  });
});

describe('template sets', () => {
  test('defines are shared across files; errors name the executing template and the file', () => {
    const set = new TemplateSet({ missingKey: 'error' });
    set.parse('_helpers.gotmpl', '{{define "name"}}{{.metadata.name}}{{end}}\n{{define "bad"}}\n {{.nope}}{{end}}');
    set.parse('deploy.yaml.gotmpl', 'name: {{template "name" .package}}');
    expect(set.execute('deploy.yaml.gotmpl', { package: { metadata: { name: 'p' } } })).toBe('name: p');
    set.parse('x.gotmpl', '{{template "bad" .}}');
    expect(err(() => set.execute('x.gotmpl', {})).message).toBe('template: _helpers.gotmpl:3:3: executing "bad" at <.nope>: map has no entry for key "nope"');
    expect(set.names()).toEqual(['_helpers.gotmpl', 'bad', 'deploy.yaml.gotmpl', 'name', 'x.gotmpl']);
    expect(set.has('name')).toBe(true);
  });
  test('redefinition: a later non-empty definition wins, an empty one never replaces', () => {
    const set = new TemplateSet();
    set.parse('a', '{{define "x"}}one{{end}}');
    set.parse('b', '{{define "x"}}two{{end}}{{define "y"}}y{{end}}');
    set.parse('c', '{{define "x"}} {{end}}');
    set.parse('main', '{{template "x"}}');
    expect(set.execute('main', null)).toBe('two');
  });
  test('multiple definition inside one parse is an error, and a failed parse adds nothing', () => {
    const set = new TemplateSet();
    expect(err(() => set.parse('a', '{{define "x"}}1{{end}}{{define "x"}}2{{end}}')).message).toBe('template: a:1: template: multiple definition of template "x"');
    expect(set.names()).toEqual([]);
  });
  test('unknown template name', () => {
    expect(err(() => new TemplateSet().execute('nope', {})).message).toBe('template: no template "nope" associated with template ""');
  });
  test('parse once, execute many times with different data', () => {
    const set = new TemplateSet();
    set.parse('t', '{{range .}}{{.}},{{end}}');
    expect(set.execute('t', [1, 2])).toBe('1,2,');
    expect(set.execute('t', ['a'])).toBe('a,');
  });
});

describe('typed values', () => {
  test('GoTyped values print and compare by their value and type', () => {
    const d = { ss: new GoTyped('[]string', ['a', 'b']), n: new GoTyped('int64', 3n) };
    expect(run('{{.ss}} {{index .ss 1}} {{len .ss}} {{printf "%T %T" .ss .n}} {{range .ss}}{{.}}{{end}}', d)).toBe('[a b] b 2 []string int64 ab');
    expect(err(() => run('{{range .ss}}{{.x}}{{end}}', d)).message).toBe("template: t:1:15: executing \"t\" at <.x>: can't evaluate field x in type string");
  });
});

describe('limits never hang or crash', () => {
  test('step limit', () => {
    const e = err(() => run('{{range 100000000}}{{end}}', null, { limits: { maxSteps: 10_000 } }));
    expect(e.message).toMatch(/^template: t:1:\d+: executing "t" at <.*>: execution stopped after 10000 steps \(limit\)$/);
  });
  test('output limit', () => {
    const e = err(() => run('{{range 1000000}}xxxxxxxxxx{{end}}', null, { limits: { maxOutputBytes: 1000 } }));
    expect(e.message).toMatch(/output exceeds the limit of 1000 characters/);
  });
  test('template recursion stops at the depth limit with Go\'s message', () => {
    const e = err(() => run('{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}', null));
    expect(e.message).toBe('template: t:1:25: executing "r" at <{{template "r" .}}>: exceeded maximum template depth (1000)');
  });
  test('re-entrant execution (PKO include) shares the depth limit', () => {
    const set: TemplateSet = new TemplateSet({ funcs: { include: (name, data) => set.executeTemplate(String(name), data) }, limits: { maxDepth: 200 } });
    set.parse('t', '{{define "r"}}{{include "r" .}}{{end}}{{include "r" .}}');
    expect(err(() => set.execute('t', {})).message).toBe('template: r: exceeded maximum template depth (200)');
    set.parse('ok', '{{define "leaf"}}[{{.}}]{{end}}{{include "leaf" 1}}{{include "leaf" "x"}}');
    expect(set.execute('ok', null)).toBe('[1][x]');
  });
  test('running out of JavaScript stack first is reported as a clean error', () => {
    const set: TemplateSet = new TemplateSet({ funcs: { include: (name, data) => set.executeTemplate(String(name), data) }, limits: { maxDepth: 1_000_000 } });
    set.parse('t', '{{define "r"}}{{if true}}{{with 1}}{{range 1}}{{include "r" .}}{{end}}{{end}}{{end}}{{end}}{{include "r" .}}');
    const e = err(() => set.execute('t', {}));
    expect(e.message).toMatch(/^template: t:1:\d+: executing "r" at <include "r" .>: templates nest too deeply: the JavaScript stack ran out at depth \d+ \(the depth limit is 1000000\) in "r"$/);
  });
  test('deeply nested parentheses are a parse error, not a crash', () => {
    const text = '{{' + '('.repeat(20000) + '1' + ')'.repeat(20000) + '}}';
    const e = err(() => run(text, null));
    expect(e.kind).toBe('parse');
  });
  test('unclosed action and stray delimiters', () => {
    expect(err(() => run('{{if .a}}x', {})).message).toBe('template: t:1: unexpected EOF');
    expect(err(() => run('a {{ .b', {})).message).toBe('template: t:1: unclosed action');
  });
});

describe('referencedFields', () => {
  function fields(files: Record<string, string>): string[] {
    const set = new TemplateSet({ funcs: { include: () => '', default: () => null } });
    for (const [n, t] of Object.entries(files)) set.parse(n, t);
    return referencedFields(set).map((p) => p.join('.'));
  }
  test('field chains, $ and variables', () => {
    expect(fields({ a: '{{.config.image}} {{$.package.metadata.name}} {{$c := .config}}{{$c.replicas}} {{(.config).x}}' })).toEqual([
      'config',
      'config.image',
      'config.replicas',
      'config.x',
      'package.metadata.name',
    ]);
  });
  test('with, range, index, template and include', () => {
    const got = fields({
      _h: '{{define "img"}}{{.registry}}/{{.name}}{{end}}{{define "inc"}}{{.tag}}{{end}}',
      a: '{{with .config.image}}{{.pullPolicy}}{{template "img" .}}{{end}}{{range $i, $e := .config.envs}}{{$e.name}}{{.value}}{{end}}{{index .config "extra" "key"}}{{include "inc" .config.image}}{{default 1 .config.d}}',
    });
    expect(got).toEqual([
      'config', // read by `index .config …`
      'config.d',
      'config.envs',
      'config.envs.*.name',
      'config.envs.*.value',
      'config.extra.key',
      'config.image',
      'config.image.name',
      'config.image.pullPolicy',
      'config.image.registry',
      'config.image.tag',
    ]);
  });
  test('sprig lookups with literal keys', () => {
    const set = new TemplateSet({ funcs: { get: () => null, hasKey: () => false, dig: () => null } });
    set.parse('a', '{{get .config "a"}}{{if hasKey .config "b"}}{{end}}{{dig "c" "d" "x" .config}}{{(get .config "e").f}}{{get .config .k}}');
    expect(referencedFields(set).map((p) => p.join('.'))).toEqual(['config', 'config.a', 'config.b', 'config.c.d', 'config.e', 'config.e.f', 'k']);
  });
  test('a single tree, and explicit entries', () => {
    const set = new TemplateSet();
    set.parse('a', '{{define "d"}}{{.inner}}{{end}}{{.config.x}}{{template "d" .config}}');
    expect(referencedFields(set.tree('a')!).map((p) => p.join('.'))).toEqual(['config', 'config.x']);
    expect(referencedFields(set, { entries: ['d'] }).map((p) => p.join('.'))).toEqual(['inner']);
  });
  test('recursive templates terminate', () => {
    expect(fields({ a: '{{define "r"}}{{.x}}{{template "r" .y}}{{end}}{{template "r" .c}}' }).length).toBeGreaterThan(2);
  });
});
