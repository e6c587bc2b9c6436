/**
 * Table tests: each template runs through our engine and through Go's text/template (WASM
 * oracle, missingkey=error); output or error text must be identical. A few cases also pin the
 * expected text literally, so a broken oracle cannot hide a regression.
 */
import { goRender, initOracle, tsRender } from './oracle.js';

const data = { a: 1, s: 'str', l: [1, 'a', null, true], m: { b: 2, a: [1] }, z: null, t: true, f: false, e: '', n: 0, big: 1e21 };

const groups: Record<string, string[]> = {
  'fields and printing': [
    '{{.a}} {{.s}} {{.l}} {{.m}} {{.z}} {{.t}}', '{{.x}}', '{{.a.b}}', '{{.z.b}}', '{{.l.b}}', '{{.a.b.c}}', '{{.m.a.x}}', '{{$}}', '{{$.a}}',
    '{{(.m).b}} {{(index .m "a").x}}', '{{"x" | .s}}', '{{.a 1}}', '{{(.a) 1}}', '{{"a".x}}', '{{..}}', '{{.a..b}}', '{{(1)}}', '{{nil}}',
    '{{index . "a"}}', '{{$v := .l}}{{$v.x}}', '{{range .m.a}}{{.x}}{{end}}', '{{with .m}}{{$.s}}{{.b}}{{end}}',
  ],
  'control structures': [
    '{{range .l}}[{{.}}]{{end}}', '{{range $i, $v := .l}}{{$i}}={{$v}} {{end}}', '{{range .m}}{{.}}{{end}}', '{{range $k, $v := .m}}{{$k}}:{{$v}};{{end}}',
    '{{if .t}}yes{{else}}no{{end}}', '{{if .f}}y{{else if .e}}e{{else}}n{{end}}', '{{with .s}}{{.}}{{end}}', '{{with .e}}x{{else}}empty{{end}}',
    '{{with .s}}{{.}}{{else with .a}}{{.}}{{end}}', '{{with .e}}{{.}}{{else with .a}}A{{.}}{{else}}none{{end}}',
    '{{range 3}}{{.}}{{end}}', '{{range $i := 3}}{{$i}}{{end}}', '{{range .l}}{{if eq . "a"}}{{break}}{{end}}{{.}}{{end}}', '{{range .e}}x{{else}}none{{end}}',
    '{{range .l}}{{continue}}x{{end}}', '{{range .a}}{{end}}', '{{range $i, $v := 3}}{{end}}', '{{range $i, $v, $w := .l}}{{end}}',
    '{{if .z}}a{{end}}{{if .l}}b{{end}}{{if .m}}c{{end}}{{if .n}}d{{end}}', '{{range $x := .l}}{{if $x}}{{break}}{{end}}{{end}}-', '{{range (index .s 0)}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}', '{{range (index .s 0)}}{{.x}}{{end}}',
  ],
  'variables': [
    '{{$x := 1}}{{$x = 2}}{{$x}}', '{{with $x := .s}}{{$x}}{{end}}', '{{range $x := .l}}{{end}}{{$x}}', '{{if .t}}{{$y := 1}}{{end}}{{$y}}', '{{$x}}',
    '{{$x := 1, 2}}', '{{$x := .l}}{{range $x}}{{$x}}{{end}}', '{{$x := 0}}{{range .l}}{{$x = .}}{{end}}{{$x}}', '{{$x := 1}}{{with .s}}{{$x := 2}}{{$x}}{{end}}{{$x}}',
    '{{range $i, $e := .l}}{{$i}}{{end}}{{$i}}', '{{$x = 1}}', '{{$ := 1}}{{$}}', '{{range $i, $e = .l}}{{end}}', '{{$i := 0}}{{$e := 0}}{{range $i, $e = .l}}{{end}}{{$i}}{{$e}}',
  ],
  'define, template, block': [
    '{{define "t"}}T{{.}}{{end}}{{template "t" .a}}', '{{block "b" .s}}B{{.}}{{end}}', '{{template "nope"}}', '{{define "a"}}x{{end}}{{define "a"}}y{{end}}',
    '{{define "a"}}{{end}}{{define "a"}}y{{end}}{{template "a"}}', '{{template "x" 1 2}}', '{{define "r"}}{{template "r" .}}{{end}}{{template "r" .}}',
    '{{define "e"}}{{.nope}}{{end}}{{template "e" .}}', '{{define "d"}}{{$}}{{end}}{{template "d" .s}}', '{{define "d"}}{{.}}{{end}}{{template "d"}}',
  ],
  'trimming and comments': [
    '{{- .a -}} x {{- .s}}', '  {{- /* c */ -}}  x', '{{ .a }} {{- "\n" -}} {{ .s }}', '{{/* unclosed', '{{ /* x */ }}', '{{/* a */ .a}}',
    'a  {{- 3}}', '{{3 -}}  b', '{{-3}}', '{{- 3 -}}', 'x\n{{- /* multi\nline */ -}}\ny',
  ],
  'literals': [
    '{{.big}} {{1e6}} {{0x1F}} {{1_000}} {{\'a\'}} {{-5}} {{1.5e-3}} {{0b101}} {{0o17}} {{017}}', '{{08}}', '{{99999999999999999999}}', '{{18446744073709551615}}',
    '{{"a\\tb"}} {{`raw\\n`}}', '{{"\\u00e9\\x41"}}', '{{\'\\n\'}} {{\'\\\'\'}}', '{{0x1p-2}} {{1.}} {{.5}} {{+3}}', '{{1__0}}', '{{0x}}', '{{1e}}', '{{"unterminated}}',
    '{{\'ab\'}}', '{{`unterminated}}',
  ],
  'parse errors': [
    '{{', '{{.a}', '{{end}}', '{{else}}', '{{if}}{{end}}', '{{range .l}}', '{{foo}}', '{{break}}', '{{1 | 2}}', '{{.a | 1}}', '{{ .a\n\n', '{{ .a \n | printf "%v" }}',
    'line1\n{{.nope}}', 'a\n\n{{.l | printf "%s"}}\n{{.nope}}', '{{(.a}}', '{{.a)}}', '{{if .a}}x{{else}}y{{else}}z{{end}}', '{{define "x"}}{{end}', '{{define x}}{{end}}',
    '{{template x}}', '{{range $i, 3}}{{end}}', '{{with $x, $y := .a}}{{end}}', '{{$x := }}', '{{.a := 1}}', '{{ @ }}', '{{ é }}', '{{.a!}}', '{{if .a}}{{define "x"}}{{end}}{{end}}',
    '{{continue}}', '{{range .l}}{{break 1}}{{end}}', '{{.é}}', 'é{{.nope}}', '{{`a\nb`}}{{.nope}}', '{{/* a\nb */}}{{.a}', 'a\r\n{{- .a -}}\r\nb', '{{"a\nb"}}',
    '{{define "x"}}\n{{.nope}}{{end}}{{template "x" .}}', '{{.l.x.y}}', '{{index .m "a" 0 | printf "%v"}}', '{{end 1}}', '{{else if}}', '{{block "b"}}{{end}}', '{{$x.y := 1}}',
  ],
  'builtins': [
    '{{len .l}} {{len .s}} {{len .m}}', '{{index .l 1}} {{index .m "b"}} {{index .m "q"}}', '{{slice .l 1 2}} {{slice .s 1}}',
    '{{eq .a 1.0}} {{eq .s "str" "x"}} {{ne .a 2.0}} {{lt 1 2}} {{le .s "z"}} {{gt 2.5 1.0}} {{ge "a" "b"}}', '{{eq .a 1}}',
    '{{and 1 0 2}} {{or 0 "" .s}} {{not .t}}', '{{printf "%d-%s-%v" 3 "x" .l}}', '{{print 1 2 "a"}}{{println .a}}', '{{html "<a&b>"}} {{js "a\'b<"}} {{urlquery "a b&c"}}',
    '{{.s | printf "%q"}}', '{{len nil}}', '{{len .z}}', '{{len .x}}', '{{index .z 1}}', '{{index .l 4}}', '{{index .l 9}}', '{{index .s 0}}', '{{slice .l 2 1}}', '{{.l | len}}',
    '{{printf}}', '{{printf 1}}', '{{printf .a}}', '{{not}}', '{{not 1 2}}', '{{eq .l .l}}', '{{eq .l .m}}', '{{eq nil nil}}', '{{eq .z nil}}', '{{lt .t .t}}', '{{lt .l 1}}',
    '{{.a | not | not}}', '{{call .a}}', '{{call .z}}', '{{and}}', '{{or .z .x}}', '{{print nil}} {{printf "%v" .z}} {{html .z}} {{html nil}}',
    '{{eq .s 1}}', '{{eq .a .s .a}}', '{{lt .s 1}}', '{{lt .z 1}}', '{{lt nil 1}}', '{{le .a 1}}', '{{eq .l 1}}', '{{eq .z 1}}', '{{eq .m .m}}', '{{eq .l nil}}', '{{eq}}', '{{eq 1}}',
    '{{index .l 0 0}}', '{{index .m "a" 0}}', '{{index .m 1}}', '{{index .l "a"}}', '{{index .l nil}}', '{{index .l -1}}', '{{slice .s 1 2 3}}', '{{slice .l 0 1 1 1}}',
    '{{slice .a 1}}', '{{slice .l 1 0}}', '{{slice .l 0 0 1}}', '{{slice .z}}', '{{len 3}}', '{{len .a}}', '{{len "héllo"}}', '{{index "héllo" 1}}', '{{slice "héllo" 0 1}}',
    '{{and .a (not .z) .s}}', '{{or .z (print "x") .nope}}', '{{and .f .nope}}', '{{.t | and 1}}', '{{.z | or 0}}', '{{js "\\n\\u2028é<=>"}} {{urlquery "é/?x=1"}} {{html "\\u0000\'"}}',
    '{{html 1 "<" 2}} {{js nil}} {{urlquery .l}}', '{{index .m}}', '{{index .l 1.0}}', '{{not .nope}}',
  ],
  'printf': [
    '{{printf "%5.2f|%-8.3e|%+d|% d|%x|%X|%o|%#o|%O|%b" 3.14159 1234.5 5 5 -255 255 8 8 8 5}}', '{{printf "%q|%+q|%#q|%#q" "a\\"b\\n" "h\\u00e9llo" "ab" "a`b"}}',
    '{{printf "%.0d|%.3d|%08.3f|%-8.2f|%+08d" 0 7 -3.14159 2.5 42}}', '{{printf "%06.2f|%6v|%-6v|" .s "ab" 1}}', '{{printf "%3v" .l}}', '{{printf "%v %%" .m}}',
    '{{printf "%x %X %o %c %U" 3.5 "hi" .a 0x1F600 0x1F600}}', '{{printf "%t %t" .t 1}}', '{{printf "%s" .z}} {{printf "%d" nil}}', '{{printf "%e %E %g %G" 1e-7 1e300 1e-7 1e21}}',
    '{{printf "%10.3s|%-10s|%010d" "abcdef" "ab" -42}}', '{{printf "%v %v %v" 0.1 123456.0 1234567.0}}', '{{printf "%.2f %.1f %.0f %.3f" 0.125 0.05 0.5 1.0005}}',
    '{{printf "%x|%X|%.2x|%b|%x|%x|%#x|%10.1x" 1.0 -0.1 3.14159 1.0 0.0 5e-324 1.0 255.5}}', '{{printf "%#d|%#s|%-#8q" "a" 1 "b"}}',
    '{{printf "%6.2d" .s}} {{printf "%[2]*[1]d|%[1]*d" 5 3}} {{printf "%.*f" 2 3.14159}} {{printf "%*d" "x" 1}} {{printf "%.*d" -1 5}}',
    '{{printf "%d %d" 1}} {{printf "%d" 1 2 "x"}} {{printf "%z" 1}} {{printf "%"}} {{printf "%!"}} {{printf "%[2]d %[1]d" 1 2}} {{printf "%[3]d" 1}}',
    '{{printf "%T %T %T %T %T %T" 1 1.0 "a" .l .m nil}}', '{{printf "%#v %#v %#v" .l .m "a"}}', '{{printf "%v|%5v|%-5v|%05v" nil nil nil nil}}',
  ],
  'edge values (run with the edge data below)': [
  '{{9223372036854775807}} {{-9223372036854775808}}', '{{9223372036854775808}}', '{{0x8000000000000000}}', '{{-9223372036854775809}}', '{{.f}} {{.t}}',
  '{{printf "%d" 1e3}}', '{{len "𝄞"}}', '{{slice "𝄞" 0 2}}|{{slice "𝄞" 0 4}}', '{{html "\\x00"}}', '{{js .u}}', '{{printf "%q %+q %x % X" .u .u .u .u}}',
  '{{printf "%c %q %U" 0xD800 0xD800 -1}}', '{{printf "%c" 0x110000}}', '{{printf "%.3q" "\\u00e9\\u00e9\\u00e9\\u00e9"}}', '{{print 1.0 2.0 "x" 3 4}}',
  '{{printf "%v" 1e20}} {{printf "%v" 1e-5}} {{printf "%g" 100000.0}} {{printf "%g" 1000000.0}} {{printf "%.3v" 3.14159}} {{printf "%10.4v|" 3.14159}}',
  '{{printf "%e" 0.0}} {{printf "%.0e" 5.5}} {{printf "%.0e" 6.5}} {{printf "%#.0e" 5.0}} {{printf "%#.0f" 5.0}} {{printf "%#g" 0.0}} {{printf "%#.3g" 100.0}}',
  '{{printf "%08.3f" -1.5}} {{printf "%+.2e" 0.0}} {{printf "% .2f" 1.0}} {{printf "%+ d" 5}} {{printf "% +d" 5}}', '{{printf "%x" -1}} {{printf "%#o" 0}} {{printf "%#x" 0}} {{printf "%#b" 5}}',
  '{{printf "%5t|%-5t|%05t" true false true}}', '{{printf "%05q" "a"}} {{printf "%-05d" 3}} {{printf "%05s" "é"}}', '{{urlquery "\\u00e9 ~*\'()!"}}',
  '{{js "<script>alert(\'x\')</script>"}}', '{{html "a" 1 nil}}', '{{js 1 2}}', '{{len .g | printf "%T"}}', '{{index .g 0 | printf "%T %v %c"}}',
],
};

const edgeData = { f: 1e300, t: 5e-324, u: 'é\u00a0\u2028x', g: 'ab' };

beforeAll(async () => {
  await initOracle();
});

describe.each(Object.entries(groups))('%s', (group, cases) => {
  const d = group.startsWith('edge values') ? edgeData : data;
  test.each(cases)('%s', (tpl) => {
    expect(tsRender(tpl, d)).toEqual(goRender(tpl, d));
  });
});

describe('literal expectations (independent of the oracle)', () => {
  test.each([
    ['{{.x}}', { ok: false, err: 'template: tpl:1:2: executing "tpl" at <.x>: map has no entry for key "x"' }],
    ['{{.a.b}}', { ok: false, err: 'template: tpl:1:4: executing "tpl" at <.a.b>: can\'t evaluate field b in type interface {}' }],
    ['{{ .a }', { ok: false, err: 'template: tpl:1: unexpected "}" in operand' }],
    ['{{foo}}', { ok: false, err: 'template: tpl:1: function "foo" not defined' }],
    ['{{eq .a 1}}', { ok: false, err: 'template: tpl:1:2: executing "tpl" at <eq .a 1>: error calling eq: incompatible types for comparison: float64 and int' }],
    ['{{.z}}|{{print .z}}|{{.big}}', { ok: true, out: '<no value>|<nil>|1e+21' }],
    ['{{range $k, $v := .m}}{{$k}}={{$v}},{{end}}', { ok: true, out: 'a=[1],b=2,' }],
    // Deliberate deviation: Go accepts complex constants (prints "(0+1i)"); templates never need them.
    ['{{1i}}', { ok: false, err: 'template: tpl:1: complex numbers are not supported: "1i"' }],
  ])('%s', (tpl, want) => {
    expect(tsRender(tpl, data)).toEqual(want);
  });
});
