import { goRender, initOracle, tsRender } from './oracle.js';
const data = { a: 1, s: 'str', l: [1, 'a', null, true], m: { b: 2, a: [1] }, z: null, t: true, f: false, e: '', n: 0, big: 1e21 };
const cases: string[] = [
  '{{.a}} {{.s}} {{.l}} {{.m}} {{.z}} {{.t}}', '{{.x}}', '{{.a.b}}', '{{.z.b}}', '{{.l.b}}', '{{range .l}}[{{.}}]{{end}}',
  '{{range $i, $v := .l}}{{$i}}={{$v}} {{end}}', '{{range .m}}{{.}}{{end}}', '{{range $k, $v := .m}}{{$k}}:{{$v}};{{end}}',
  '{{if .t}}yes{{else}}no{{end}}', '{{if .f}}y{{else if .e}}e{{else}}n{{end}}', '{{with .s}}{{.}}{{end}}', '{{with .e}}x{{else}}empty{{end}}',
  '{{- .a -}} x {{- .s}}', '  {{- /* c */ -}}  x', '{{define "t"}}T{{.}}{{end}}{{template "t" .a}}', '{{block "b" .s}}B{{.}}{{end}}',
  '{{$x := 1}}{{$x = 2}}{{$x}}', '{{len .l}} {{len .s}} {{len .m}}', '{{index .l 1}} {{index .m "b"}} {{index .m "q"}}', '{{slice .l 1 2}} {{slice .s 1}}',
  '{{eq .a 1.0}} {{eq .s "str" "x"}} {{ne .a 2.0}} {{lt 1 2}} {{le .s "z"}} {{gt 2.5 1.0}} {{ge "a" "b"}}', '{{eq .a 1}}',
  '{{and 1 0 2}} {{or 0 "" .s}} {{not .t}}', '{{printf "%d-%s-%v" 3 "x" .l}}', '{{print 1 2 "a"}}{{println .a}}', '{{html "<a&b>"}} {{js "a\'b<"}} {{urlquery "a b&c"}}',
  '{{range 3}}{{.}}{{end}}', '{{range $i := 3}}{{$i}}{{end}}', '{{range .l}}{{if eq . "a"}}{{break}}{{end}}{{.}}{{end}}', '{{range .e}}x{{else}}none{{end}}',
  '{{(.m).b}} {{(index .m "a").x}}', '{{.s | printf "%q"}}', '{{"x" | .s}}', '{{nil}}', '{{.a 1}}', '{{template "nope"}}', '{{', '{{.a}', '{{end}}',
  '{{if}}{{end}}', '{{range .l}}', '{{foo}}', '{{$x}}', '{{.big}} {{1e6}} {{0x1F}} {{1_000}} {{\'a\'}} {{-5}} {{1.5e-3}} {{0b101}} {{0o17}} {{017}}',
  '{{08}}', '{{99999999999999999999}}', '{{18446744073709551615}}', '{{"a\\tb"}} {{`raw\\n`}}', '{{len nil}}', '{{len .z}}', '{{len .x}}', '{{index .z 1}}', '{{index .l 4}}',
  '{{index .l 9}}', '{{index .s 0}}', '{{slice .l 2 1}}', '{{.l | len}}', '{{printf}}', '{{printf 1}}', '{{printf .a}}', '{{not}}', '{{not 1 2}}',
  '{{eq .l .l}}', '{{eq .l .m}}', '{{eq nil nil}}', '{{eq .z nil}}', '{{lt .t .t}}', '{{lt .l 1}}', '{{range .a}}{{end}}', '{{range $i, $v := 3}}{{end}}',
  '{{with $x := .s}}{{$x}}{{end}}', '{{range $x := .l}}{{end}}{{$x}}', '{{if .t}}{{$y := 1}}{{end}}{{$y}}', '{{break}}', '{{range .l}}{{continue}}x{{end}}',
  '{{ .a }} {{- "\n" -}} {{ .s }}', '{{/* unclosed', '{{ /* x */ }}', '{{"unterminated}}', '{{.a | not | not}}', '{{1 | 2}}', '{{call .a}}', '{{.m.a.x}}',
  '{{range .m.a}}{{.x}}{{end}}', '{{$v := .l}}{{$v.x}}', '{{$}}', '{{$.a}}', '{{with .m}}{{$.s}}{{.b}}{{end}}', '{{and}}', '{{or .z .x}}', '{{index . "a"}}',
  '{{print nil}} {{printf "%v" .z}} {{html .z}} {{html nil}}', '{{if .z}}a{{end}}{{if .l}}b{{end}}{{if .m}}c{{end}}{{if .n}}d{{end}}', '{{.a.b.c}}',
  '{{define "a"}}x{{end}}{{define "a"}}y{{end}}', '{{template "x" 1 2}}', '{{else}}', '{{range $i, $v, $w := .l}}{{end}}', '{{$x := 1, 2}}',
  'line1\n{{.nope}}', 'a\n\n{{.l | printf "%s"}}\n{{.nope}}', '{{ .a\n\n', '{{ .a \n | printf "%v" }}', '{{(1)}}', '{{(.a) 1}}', '{{"a".x}}', '{{..}}', '{{.a..b}}',
  '{{with .s}}{{.}}{{else with .a}}{{.}}{{end}}', '{{with .e}}{{.}}{{else with .a}}A{{.}}{{else}}none{{end}}',
];
test('scratch', async () => {
  await initOracle();
  const diffs: string[] = [];
  for (const c of cases) {
    const g = goRender(c, data);
    const t = tsRender(c, data);
    if (JSON.stringify(g) !== JSON.stringify(t)) diffs.push(`${JSON.stringify(c)}\n  go: ${JSON.stringify(g)}\n  ts: ${JSON.stringify(t)}`);
  }
  console.log(diffs.join('\n') + `\n${diffs.length} diffs of ${cases.length}`);
});
