import { formatFloat, formatValue, sprint, sprintf, sprintln } from '../../src/gotemplate/fmt.js';
import { GoTyped } from '../../src/gotemplate/types.js';

// Expected strings were produced by Go's fmt (through the WASM text/template oracle).
const l = [1, 'a', null, true, 1.5];
const m = { b: 1, a: [2] };

describe('sprintf', () => {
  test.each([
    ['%05s|%-05d|%#08x|%x|% x|%#x|%.2s|%5.1q', ['ab', 3n, 255n, 'hé', 'hé', 'hi', 'héllo', 'abc'], '000ab|3    |0x000000ff|68c3a9|68 c3 a9|0x6869|hé|  "a"'],
    ['%v|%.0f|%.0f|%.1f|%e|%g|%.3g|%#g|%+.2e', [1e21, 2.5, 3.5, 0.25, 1234.5678, 0.00001, 1.0, 1.0, -3.0], '1e+21|2|4|0.2|1.234568e+03|1e-05|1|1.00000|-3.00e+00'],
    ['%d %s %v %q %c %U %#U', [65n, 65n, l, 65n, 65n, 65n, 65n], "65 %!s(int=65) [1 a <nil> true 1.5] 'A' A U+0041 U+0041 'A'"],
    ['%d', [l], '[%!d(float64=1) %!d(string=a) <nil> %!d(bool=true) %!d(float64=1.5)]'],
    ['%d %d', [1n], '1 %!d(MISSING)'],
    ['%d', [1n, 2n, 'x'], '1%!(EXTRA int=2, string=x)'],
    ['%z', [1n], '%!z(int=1)'],
    ['%', [], '%!(NOVERB)'],
    ['%!', [], '%!!(MISSING)'],
    ['%[2]d %[1]d', [1n, 2n], '2 1'],
    ['%[3]d', [1n], '%!d(BADINDEX)'],
    ['%*d|%-*d', [5n, 1n, 3n, 2n], '    1|2  '],
    ['%T %T %T %T %T %T', [1n, 1.0, 'a', l, m, null], 'int float64 string []interface {} map[string]interface {} <nil>'],
    ['%#v %#v %#v', [l, m, 'a'], '[]interface {}{1, "a", interface {}(nil), true, 1.5} map[string]interface {}{"a":[]interface {}{2}, "b":1} "a"'],
    ['%5.2f|%-8.3e|%+d|% d|%x|%X|%o|%#o|%O|%b', [3.14159, 1234.5, 5n, 5n, -255n, 255n, 8n, 8n, 8n, 5n], ' 3.14|1.234e+03|+5| 5|-ff|FF|10|010|0o10|101'],
    ['%t %t %v %d', [true, false, true, true], 'true false true %!d(bool=true)'],
    ['%q|%+q|%#q|%#q', ['a"b\n', 'héllo', 'ab', 'a`b'], '"a\\"b\\n"|"h\\u00e9llo"|`ab`|"a`b"'],
    ['%.0d|%.3d|%08.3f|%-8.2f|%+08d', [0n, 7n, -3.14159, 2.5, 42n], '|007|-003.142|2.50    |+0000042'],
    ['%v %v %v %v %.2f', [Infinity, -Infinity, NaN, -0, Infinity], '+Inf -Inf NaN -0 +Inf'],
    ['%06.2f|%6v|%-6v|', [NaN, 'ab', 1n], '   NaN|    ab|1     |'],
    ['%3v', [[1n, 22n]], '[  1  22]'],
    ['%s', [new GoTyped('[]string', ['a', 'b'])], '[a b]'],
    ['%v %%', [{ z: 1, a: { y: 'q' } }], 'map[a:map[y:q] z:1] %'],
  ])('%s', (format, args, want) => {
    expect(sprintf(format as string, args as never)).toBe(want);
  });
});

describe('formatValue', () => {
  test.each([
    [1e6, '1e+06'], [1.5, '1.5'], [3, '3'], [100000, '100000'], [123456789, '1.23456789e+08'], [0.0001, '0.0001'],
    [0.00001, '1e-05'], [Infinity, '+Inf'], [NaN, 'NaN'], [12345678901234567890n, '12345678901234567890'],
    [true, 'true'], [null, '<nil>'], [[1n, 'a', [true]], '[1 a [true]]'], [{ b: 2n, a: 1n }, 'map[a:1 b:2]'],
    [{}, 'map[]'], [[], '[]'], [new GoTyped('int64', 7n), '7'],
  ])('%p', (v, want) => {
    expect(formatValue(v as never)).toBe(want);
  });
  test('sprint / sprintln spacing', () => {
    expect(sprint([1n, 2n, 'a', 'b', 3n, 1e21, null])).toBe('1 2ab3 1e+21 <nil>');
    expect(sprintln([1n, 'a'])).toBe('1 a\n');
  });
  test('formatFloat rounds half to even on the exact binary value', () => {
    expect(formatFloat(2.5, 'f', 0)).toBe('2');
    expect(formatFloat(0.125, 'f', 2)).toBe('0.12');
    expect(formatFloat(1.005, 'f', 2)).toBe('1.00'); // 1.005 is below the tie in binary
    expect(formatFloat(1e22, 'f', -1)).toBe('10000000000000000000000');
    expect(formatFloat(5e-324, 'g', -1)).toBe('5e-324');
    expect(formatFloat(0, 'e', 3)).toBe('0.000e+00');
    expect(formatFloat(9.9999, 'g', 3)).toBe('10');
    expect(formatFloat(123456, 'g', 3)).toBe('1.23e+05');
  });
});
