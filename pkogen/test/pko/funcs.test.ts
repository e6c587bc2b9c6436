import { pkoFuncMap, sprigFuncs, SPRIG_ALLOWED } from '../../src/gotemplate/funcs/index.js';
import { GoTyped, type GoValue } from '../../src/gotemplate/types.js';
import { fileMap } from '../../src/core/filemap.js';

const f = sprigFuncs();
const call = (name: string, ...args: GoValue[]) => f[name](...args);
const plain = (v: GoValue): unknown => (v instanceof GoTyped ? plain(v.value) : Array.isArray(v) ? v.map(plain) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)])) : v);

describe('allow-list', () => {
  test('every allowed sprig function exists, nothing else', () => {
    expect(Object.keys(f).sort()).toEqual([...SPRIG_ALLOWED].sort());
    for (const banned of ['env', 'expandenv', 'now', 'date', 'randAlpha', 'uuidv4', 'genPrivateKey', 'htpasswd', 'required', 'tpl', 'toToml']) expect(f[banned]).toBeUndefined();
  });
});

type Case = [string, GoValue[], unknown];

const cases: Case[] = [
  // strings
  ['hello', [], 'Hello!'],
  ['trunc', [5n, 'hello world'], 'hello'],
  ['trunc', [-5n, 'hello world'], 'world'],
  ['trunc', [50n, 'hi'], 'hi'],
  ['trim', ['  a b  '], 'a b'],
  ['upper', ['abc'], 'ABC'],
  ['title', ['hello world-foo'], 'Hello World-Foo'],
  ['untitle', ['Hello World'], 'hello world'],
  ['substr', [0n, 5n, 'hello world'], 'hello'],
  ['substr', [6n, -1n, 'hello world'], 'world'],
  ['repeat', [3n, 'ab'], 'ababab'],
  ['trimAll', ['$', '$5.00$'], '5.00'],
  ['trimSuffix', ['-', 'hello-'], 'hello'],
  ['trimPrefix', ['-', '-hello'], 'hello'],
  ['nospace', ['h e l\tl o'], 'hello'],
  ['initials', ['First Try'], 'FT'],
  ['swapcase', ['This Is'], 'tHIS iS'],
  ['snakecase', ['FirstName'], 'first_name'],
  ['kebabcase', ['FirstName'], 'first-name'],
  ['camelcase', ['http_server'], 'HttpServer'],
  ['contains', ['cat', 'catch'], true],
  ['hasPrefix', ['cat', 'catch'], true],
  ['hasSuffix', ['ch', 'catch'], true],
  ['quote', ['a"b', null, 1n], '"a\\"b" "1"'],
  ['squote', ['a', 2n], "'a' '2'"],
  ['cat', ['hello', 'beautiful', null, 'world'], 'hello beautiful world'],
  ['indent', [2n, 'a\nb'], '  a\n  b'],
  ['nindent', [2n, 'a\nb'], '\n  a\n  b'],
  ['replace', [' ', '-', 'I Am Henry'], 'I-Am-Henry'],
  ['plural', ['one', 'many', 1n], 'one'],
  ['plural', ['one', 'many', 2n], 'many'],
  ['sha256sum', ['Hello world!'], 'c0535e4be2b79ffd93291305436bf889314e4a3faec05ecffcbb7df31ad9e51a'],
  ['sha1sum', ['Hello world!'], 'd3486ae9136e7856bc42212385ea797094475802'],
  ['adler32sum', ['Hello world!'], '487130206'],
  ['toString', [1.5], '1.5'],
  ['toString', [1000000.0], '1e+06'],
  ['toString', [['a', 1n]], '[a 1]'],
  ['abbrev', [5n, 'hello world'], 'he...'],
  ['abbrevboth', [5n, 10n, '1234 5678 9123'], '...5678...'],
  ['wrap', [5n, 'Hello World'], 'Hello\nWorld'],
  ['wrapWith', [5n, '\t', 'Hello World'], 'Hello\tWorld'],
  // conversions
  ['atoi', ['42'], 42n],
  ['atoi', ['x'], 0n],
  ['int', ['3.000'], 3n],
  ['int', [3.9], 3n],
  ['int', ['0x1F'], 31n],
  ['int64', ['12'], 12n],
  ['float64', ['1.5'], 1.5],
  ['toDecimal', ['0777'], 511n],
  ['seq', [5n], '1 2 3 4 5'],
  ['seq', [0n, 2n, 10n], '0 2 4 6 8 10'],
  ['seq', [5n, 1n], '5 4 3 2 1'],
  ['until', [3n], [0n, 1n, 2n]],
  ['untilStep', [0n, 10n, 4n], [0n, 4n, 8n]],
  ['split', ['$', 'foo$bar$baz'], { _0: 'foo', _1: 'bar', _2: 'baz' }],
  ['splitList', ['$', 'foo$bar'], ['foo', 'bar']],
  ['splitn', ['$', 2n, 'foo$bar$baz'], { _0: 'foo', _1: 'bar$baz' }],
  ['toStrings', [[1n, 2n, 'x']], ['1', '2', 'x']],
  // math
  ['add', [1n, 2n, '3'], 6n],
  ['add1', [1n], 2n],
  ['sub', [5n, 3n], 2n],
  ['div', [7n, 2n], 3n],
  ['mod', [7n, 2n], 1n],
  ['mul', [2n, 3n, 4n], 24n],
  ['max', [1n, 5n, 3n], 5n],
  ['min', [4n, 2n, 9n], 2n],
  ['biggest', [1n, 7n], 7n],
  ['addf', [1.5, 2n, 2n], 5.5],
  ['addf', [0.1, 0.2], 0.3],
  ['subf', [7.5, 2n, 3n], 2.5],
  ['mulf', [1.5, 2n, 2n], 6],
  ['divf', [10n, 4n], 2.5],
  ['add1f', [1.5], 2.5],
  ['maxf', [1n, 2.5, 3n], 3],
  ['minf', [1.5, 2n], 1.5],
  ['ceil', [1.1], 2],
  ['floor', [1.9], 1],
  ['round', [123.555555, 3n], 123.556],
  // lists
  ['join', ['-', ['a', 'b', null, 1n]], 'a-b-1'],
  ['sortAlpha', [['c', 'a', 'B']], ['B', 'a', 'c']],
  ['list', [1n, 'a'], [1n, 'a']],
  ['first', [[1n, 2n]], 1n],
  ['first', [[]], null],
  ['rest', [[1n, 2n, 3n]], [2n, 3n]],
  ['last', [[1n, 2n]], 2n],
  ['initial', [[1n, 2n, 3n]], [1n, 2n]],
  ['append', [[1n], 2n], [1n, 2n]],
  ['prepend', [[1n], 0n], [0n, 1n]],
  ['concat', [[1n], [2n, 3n]], [1n, 2n, 3n]],
  ['reverse', [[1n, 2n]], [2n, 1n]],
  ['uniq', [[1n, 1n, 2n]], [1n, 2n]],
  ['without', [[1n, 2n, 3n], 2n], [1n, 3n]],
  ['has', [2n, [1n, 2n]], true],
  ['has', [2n, null], false],
  ['compact', [[1n, '', null, 'a', false]], [1n, 'a']],
  ['slice', [[1n, 2n, 3n, 4n], 1n, 3n], [2n, 3n]],
  ['chunk', [2n, [1n, 2n, 3n]], [[1n, 2n], [3n]]],
  // dicts
  ['dict', ['a', 1n, 'b'], { a: 1n, b: '' }],
  ['get', [{ a: 1n }, 'a'], 1n],
  ['get', [{ a: 1n }, 'z'], ''],
  ['hasKey', [{ a: 1n }, 'a'], true],
  ['keys', [{ b: 1n, a: 2n }], ['a', 'b']],
  ['pick', [{ a: 1n, b: 2n }, 'a'], { a: 1n }],
  ['omit', [{ a: 1n, b: 2n }, 'a'], { b: 2n }],
  ['pluck', ['a', { a: 1n }, { a: 2n }, { b: 3n }], [1n, 2n]],
  ['values', [{ b: 1n, a: 2n }], [2n, 1n]],
  ['dig', ['a', 'b', 'dflt', { a: { b: 'x' } }], 'x'],
  ['dig', ['a', 'c', 'dflt', { a: { b: 'x' } }], 'dflt'],
  ['merge', [{ a: 1n, c: { x: 1n } }, { a: 2n, b: 2n, c: { y: 2n } }], { a: 1n, b: 2n, c: { x: 1n, y: 2n } }],
  ['mergeOverwrite', [{ a: 1n }, { a: 2n, b: 2n }], { a: 2n, b: 2n }],
  // defaults
  ['default', ['foo', ''], 'foo'],
  ['default', ['foo', 'bar'], 'bar'],
  ['default', ['foo', 0n], 'foo'],
  ['default', ['foo', false], 'foo'],
  ['default', ['foo', []], 'foo'],
  ['default', ['foo', {}], 'foo'],
  ['default', ['foo'], 'foo'],
  ['empty', [0.0], true],
  ['empty', [' '], false],
  ['coalesce', [null, '', 'x'], 'x'],
  ['all', [1n, 'a'], true],
  ['any', ['', 0n, 'x'], true],
  ['ternary', ['y', 'n', true], 'y'],
  ['toJson', [{ b: '<&>', a: [1n, 1.5, null, true] }], '{"a":[1,1.5,null,true],"b":"\\u003c\\u0026\\u003e"}'],
  ['toRawJson', [{ b: '<&>' }], '{"b":"<&>"}'],
  ['toPrettyJson', [{ a: [1n] }], '{\n  "a": [\n    1\n  ]\n}'],
  ['toJson', [1e21], '1e+21'],
  ['toJson', [NaN], ''],
  ['fromJson', ['{"a": 1, "b": [true]}'], { a: 1, b: [true] }],
  ['fromJson', ['{bad'], null],
  ['deepCopy', [{ a: [1n] }], { a: [1n] }],
  // reflection
  ['typeOf', [1n], 'int'],
  ['typeOf', [1.5], 'float64'],
  ['typeOf', [[]], '[]interface {}'],
  ['typeOf', [null], '<nil>'],
  ['kindOf', [{}], 'map'],
  ['kindIs', ['slice', [1n]], true],
  ['typeIs', ['string', 'x'], true],
  ['deepEqual', [{ a: [1n] }, { a: [1n] }], true],
  // paths
  ['base', ['a/b/c.txt'], 'c.txt'],
  ['dir', ['a/b/c.txt'], 'a/b'],
  ['clean', ['a//b/../c/.'], 'a/c'],
  ['ext', ['a/b.tar.gz'], '.gz'],
  ['isAbs', ['/a'], true],
  // encoding
  ['b64enc', ['hello'], 'aGVsbG8='],
  // a second value after the first, then the first again (b64enc keeps the last encoding)
  ['b64enc', ['hello, world'], 'aGVsbG8sIHdvcmxk'],
  ['b64enc', ['hello'], 'aGVsbG8='],
  ['b64dec', ['aGVsbG8='], 'hello'],
  ['b64dec', ['a'], 'illegal base64 data at input byte 0'],
  ['b32enc', ['hello'], 'NBSWY3DP'],
  ['b32dec', ['NBSWY3DP'], 'hello'],
  // semver
  ['semverCompare', ['>=1.2.0', '1.2.3'], true],
  ['semverCompare', ['^1.2', '2.0.0'], false],
  ['semverCompare', ['~1.2.3', '1.2.9'], true],
  ['semverCompare', ['~1.2.3', '1.3.0'], false],
  ['semverCompare', ['>=1.0.0 <2.0.0', '1.5.0'], true],
  ['semverCompare', ['1.x', '1.9.9'], true],
  ['semverCompare', ['>1.0 || <0.5', '0.4.0'], true],
  ['semverCompare', ['>=1.20.0', '1.28.0-rc.1'], false],
  ['semverCompare', ['>=1.20.0-0', '1.28.0-rc.1'], true],
  ['semverCompare', ['1.2.3 - 1.4.5', '1.3.0'], true],
  ['semverCompare', ['>= 4.14', 'v4.15.2'], true],
  // regex
  ['regexMatch', ['^[a-z]+\\d$', 'abc1'], true],
  ['regexFind', ['[a-z]+', '12abc34'], 'abc'],
  ['regexFindAll', ['[2,4,6,8]', '123456789', -1n], ['2', '4', '6', '8']],
  ['regexFindAll', ['[2,4,6,8]', '123456789', 2n], ['2', '4']],
  ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', '${1}W'], '-W-xxW-'],
  ['regexReplaceAll', ['a(x*)b', '-ab-axxb-', '$1W'], '---'],
  ['regexReplaceAllLiteral', ['a(x*)b', '-ab-axxb-', '${1}'], '-${1}-${1}-'],
  ['regexSplit', ['z+', 'pizza', -1n], ['pi', 'a']],
  ['regexSplit', ['z+', 'pizza', 1n], ['pizza']],
  ['regexQuoteMeta', ['1.2.3'], '1\\.2\\.3'],
  ['regexMatch', ['(?i)^ABC$', 'abc'], true],
  ['regexMatch', ['(?P<x>a)', 'a'], true],
  ['regexMatch', ['^[[:digit:]]+$', '123'], true],
  // urls
  ['urlParse', ['https://user:pw@host:8080/a/b?x=1#frag'], { scheme: 'https', host: 'host:8080', hostname: 'host', path: '/a/b', query: 'x=1', opaque: '', fragment: 'frag', userinfo: 'user:pw' }],
  ['urlJoin', [{ scheme: 'https', host: 'h', path: '/p', query: 'a=1' }], 'https://h/p?a=1'],
];

describe('sprig functions', () => {
  test.each(cases)('%s %p', (name, args, want) => {
    const got = call(name, ...args);
    if (typeof want === 'number') expect(plain(got)).toBeCloseTo(want, 12);
    else expect(plain(got)).toEqual(want);
  });
});

describe('Go types of results', () => {
  test.each([
    ['add', [1n, 2n], 'int64'],
    ['int', ['1'], 'int'],
    ['splitList', [',', 'a,b'], '[]string'],
    ['until', [2n], '[]int'],
    ['split', [',', 'a'], 'map[string]string'],
    ['list', [], '[]interface {}'],
  ] as [string, GoValue[], string][])('%s → %s', (name, args, t) => {
    expect(call('typeOf', call(name, ...args))).toBe(t);
  });
});

describe('errors', () => {
  test.each([
    ['trunc', ['5', 'x'], 'wrong type for value; expected int; got string'],
    ['upper', [1n], 'wrong type for value; expected string; got int'],
    ['upper', [], 'wrong number of args for upper: want 1 got 0'],
    ['fail', ['boom'], 'boom'],
    ['div', [1n, 0n], 'integer divide by zero'],
    ['until', [10_000_000_000n], 'pkogen limits lists to 1000000'],
    ['untilStep', [0n, 100_000_000n, 1n], 'pkogen limits lists to 1000000'],
    ['seq', [1n, 5_000_000n], 'pkogen limits lists to 1000000'],
    ['repeat', [100_000_000n, 'abc'], 'Repeat output length overflow'],
    ['mustFromJson', ['{'], 'unexpected end of JSON input'],
    ['mustToJson', [NaN], 'json: unsupported value: NaN'],
    ['semverCompare', ['>=1', 'not-a-version'], 'Invalid Semantic Version'],
    ['semverCompare', ['>>1', '1.0.0'], 'improper constraint: >>1'],
    ['regexMatch', ['(a', 'a'], 'error parsing regexp'],
    ['regexMatch', ['(a)\\1', 'aa'], 'error parsing regexp: invalid escape sequence'],
    ['ternary', ['a', 'b', 'yes'], 'expected bool'],
    ['get', ['x', 'a'], 'expected map[string]interface {}'],
  ] as [string, GoValue[], string][])('%s %p', (name, args, msg) => {
    expect(() => call(name, ...args)).toThrow(msg);
  });
});

describe('PKO functions', () => {
  const files = fileMap({ 'a.txt': 'A', 'dir/b.yaml': 'B', 'dir/sub/c.yaml': 'C', 'x.yaml.gotmpl': 'T' });
  let depth = 0;
  const pko = pkoFuncMap({
    files,
    executeTemplate: (name, data) => {
      if (name === 'loop') {
        depth++;
        return pko.include('loop', data) as string;
      }
      return `[${name}:${String(data)}]`;
    },
    cel: (e) => e === 'true',
  });
  test('include executes the named template', () => expect(pko.include('t', 'x')).toBe('[t:x]'));
  test('include stops after 1000 recursions with a clear error', () => {
    expect(() => pko.include('loop', null)).toThrow('including template with name loop: exceeded max include recursion depth');
    expect(depth).toBeGreaterThan(1000);
    expect(depth).toBeLessThan(1003);
  });
  test('getFile sees raw and .gotmpl sources', () => {
    expect(pko.getFile('a.txt')).toBe('A');
    expect(pko.getFile('x.yaml.gotmpl')).toBe('T');
    expect(() => pko.getFile('nope')).toThrow('file not found');
  });
  test('getFileGlob: * stops at /, ** crosses', () => {
    expect(plain(pko.getFileGlob('dir/*.yaml'))).toEqual({ 'dir/b.yaml': 'B' });
    expect(plain(pko.getFileGlob('dir/**.yaml'))).toEqual({ 'dir/b.yaml': 'B', 'dir/sub/c.yaml': 'C' });
    expect(plain(pko.getFileGlob('{a.txt,x.*}'))).toEqual({ 'a.txt': 'A', 'x.yaml.gotmpl': 'T' });
  });
  test('b64decMap decodes string values, skips others', () => {
    expect(pko.b64decMap({ a: 'aGk=', n: 1n })).toEqual({ a: 'hi' });
    expect(() => pko.b64decMap({ a: '!!' })).toThrow('decode base64 value at key a: illegal base64 data at input byte 0');
  });
  test('fromYAML gives JSON-typed data (numbers are float64)', () => {
    expect(pko.fromYAML('a: 1\nb: [yes, x]\n')).toEqual({ a: 1, b: [true, 'x'] });
    expect(() => pko.fromYAML('a: [')).toThrow('error converting YAML to JSON');
  });
  test('cel delegates to the CEL context', () => expect(pko.cel('true')).toBe(true));
});
