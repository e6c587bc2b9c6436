/**
 * Oracle property test: random templates and JSON data, rendered by our engine and by Go's own
 * text/template compiled to WebAssembly; outputs (or error messages) must be identical.
 * Fixed seed, bounded runs: this is part of `make test`.
 */
import fc from 'fast-check';
import { goRender, initOracle, tsRender } from './oracle.js';

// Exploratory runs: ORACLE_SEED=n ORACLE_RUNS=5000 npm test -- test/gotemplate/oracle
const seed = process.env.ORACLE_SEED ? Number(process.env.ORACLE_SEED) : undefined;
const runs = process.env.ORACLE_RUNS ? Number(process.env.ORACLE_RUNS) : undefined;

const keys = ['a', 'b', 'l', 'm', 's'];

const scalar = fc.oneof(
  fc.integer({ min: -5, max: 300 }),
  fc.constantFrom(0, 1.5, -0.25, 1e6, 1e21, 123456789, 0.1, 2.5),
  fc.constantFrom('', 'x', 'a b', 'Ü<&>"\'', 'tab\there', '0', 'true', '{{', 'é€😀'),
  fc.boolean(),
  fc.constant(null),
);

const jsonValue: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('v'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom(...keys), tie('v'), { maxKeys: 4 }),
  ),
})).v;

const data = fc.dictionary(fc.constantFrom(...keys), jsonValue, { minKeys: 2, maxKeys: 5 });

const field = fc.oneof(
  fc.constantFrom('.', '$', '.a', '.b', '.l', '.m', '.s', '.m.a', '.m.l', '.a.b', '$.s', '$.m.b', '.x'),
);
const literal = fc.oneof(
  fc.constantFrom('0', '1', '2', '-1', '3', '1.5', '1e3', '0x10', "'a'", 'true', 'false', '"x"', '""', '"a b"', '`raw`', 'nil'),
);
const verb = fc.constantFrom('%v', '%d', '%s', '%q', '%x', '%5.2f', '%-4v|', '%t', '%e', '%g', '%c', '%%', '%03d', '%+d', '%#v', '%T', '%6.1q', '% x');

const expr: fc.Arbitrary<string> = fc.letrec<{ e: string }>((tie) => ({
  e: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    field,
    field,
    literal,
    tie('e').map((x) => `(len ${x})`),
    fc.tuple(tie('e'), fc.oneof(literal, field)).map(([x, k]) => `(index ${x} ${k})`),
    fc.tuple(tie('e'), fc.constantFrom('0', '1', '0 1', '1 2', '2 1')).map(([x, i]) => `(slice ${x} ${i})`),
    fc.tuple(fc.constantFrom('eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or'), tie('e'), tie('e')).map(([f, x, y]) => `(${f} ${x} ${y})`),
    fc.tuple(tie('e'), tie('e'), tie('e')).map(([x, y, z]) => `(eq ${x} ${y} ${z})`),
    tie('e').map((x) => `(not ${x})`),
    fc.tuple(fc.constantFrom('print', 'println', 'html', 'js', 'urlquery'), tie('e'), tie('e')).map(([f, x, y]) => `(${f} ${x} ${y})`),
    fc.tuple(fc.array(verb, { minLength: 1, maxLength: 3 }), fc.array(tie('e'), { maxLength: 3 })).map(
      ([vs, args]) => `(printf "${vs.join(' ')}" ${args.join(' ')})`,
    ),
    fc.tuple(tie('e'), fc.constantFrom('printf "%v"', 'len', 'not', 'print "p"', 'html', 'eq 1.5')).map(([x, f]) => `(${x} | ${f})`),
    tie('e').map((x) => `${x}.a`),
    fc.tuple(tie('e'), fc.constantFrom('"a" "b"', '0 0', '"l" 1', '1 "a"')).map(([x, k]) => `(index ${x} ${k})`),
    tie('e').map((x) => `(slice ${x} 0 1 1)`),
    fc.constantFrom('$x', '$i', '(call .a)', '.l.a.b', '(.m).l', '$.l'),
  ),
})).e;

const text = fc.constantFrom('', 'x', ' ', '\n', ' - ', 'é', '<', '  \n  ');

const stmt: fc.Arbitrary<string> = fc.letrec<{ s: string; body: string }>((tie) => ({
  s: fc.oneof(
    { depthSize: 'small', maxDepth: 3 },
    expr.map((e) => `{{${e}}}`),
    fc.tuple(expr, fc.boolean(), fc.boolean()).map(([e, l, r]) => `{{${l ? '- ' : ''}${e}${r ? ' -' : ''}}}`),
    text,
    fc.tuple(expr, tie('body'), fc.option(tie('body'))).map(([e, b, el]) => `{{if ${e}}}${b}${el === null ? '' : `{{else}}${el}`}{{end}}`),
    fc.tuple(expr, expr, tie('body'), tie('body')).map(([e, f, b, c]) => `{{if ${e}}}${b}{{else if ${f}}}${c}{{end}}`),
    fc.tuple(expr, tie('body'), fc.option(tie('body'))).map(([e, b, el]) => `{{with ${e}}}${b}${el === null ? '' : `{{else}}${el}`}{{end}}`),
    fc.tuple(expr, tie('body'), fc.option(tie('body'))).map(([e, b, el]) => `{{range ${e}}}${b}${el === null ? '' : `{{else}}${el}`}{{end}}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{{range $i, $v := ${e}}}{{$i}}={{$v}};${b}{{end}}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{{range $v := ${e}}}{{if $v}}{{break}}{{end}}{{$v}}${b}{{continue}}{{end}}`),
    fc.tuple(expr, expr).map(([e, f]) => `{{$x := ${e}}}{{$x = ${f}}}{{$x}}`),
    fc.constantFrom('{{/* c */}}', '{{- /* c */ -}}', '{{', '}}', '{{end}}', '{{.a}', '{{$nope}}', '{{nofunc 1}}', '{{range 3}}{{.}}{{end}}'),
    fc.tuple(fc.constantFrom('d1', 'd2'), tie('body'), expr).map(([n, b, e]) => `{{define "${n}"}}${b}{{end}}{{template "${n}" ${e}}}`),
    fc.tuple(fc.constantFrom('d1', 'd2'), expr).map(([n, e]) => `{{template "${n}" ${e}}}`),
    fc.tuple(fc.constantFrom('b1', 'd1'), expr, tie('body')).map(([n, e, b]) => `{{block "${n}" ${e}}}${b}{{end}}`),
    fc.tuple(expr, expr, tie('body'), tie('body')).map(([e, f, b, c]) => `{{with ${e}}}${b}{{else with ${f}}}${c}{{end}}`),
    fc.tuple(expr, tie('body')).map(([e, b]) => `{{range $i, $e := ${e}}}{{if eq $i 1}}{{continue}}{{end}}${b}{{$e}}{{end}}`),
  ),
  body: fc.array(tie('s'), { maxLength: 3 }).map((xs) => xs.join('')),
})).s;

const template = fc.array(stmt, { minLength: 1, maxLength: 5 }).map((xs) => xs.join(''));

beforeAll(async () => {
  await initOracle();
});

test('engine output equals Go text/template on random templates and data', () => {
  let failures = 0;
  let compared = 0;
  fc.assert(
    fc.property(template, data, (tpl, d) => {
      compared++;
      const want = goRender(tpl, d);
      const got = tsRender(tpl, d);
      if (JSON.stringify(want) !== JSON.stringify(got)) failures++;
      expect(got).toEqual(want);
    }),
    { seed: seed ?? 20261122, numRuns: runs ?? 250, endOnFailure: true },
  );
  expect(compared).toBeGreaterThanOrEqual(runs ?? 250);
  expect(failures).toBe(0);
});

test('printf agrees with Go fmt on random verbs, flags and values', () => {
  const flag = fc.constantFrom('', '-', '+', ' ', '0', '#', '-0', '+0');
  const width = fc.constantFrom('', '1', '5', '12');
  const prec = fc.constantFrom('', '.0', '.1', '.3', '.');
  const v = fc.constantFrom('v', 'd', 's', 'q', 'x', 'X', 'o', 'b', 'e', 'E', 'f', 'g', 'G', 't', 'c', 'U', 'T');
  const arg = fc.oneof(literal, fc.constantFrom('.a', '.l', '.m', '.s', '.b', '-0.0', '1e-7', '255', '-255', '1e100', '"héllo"', '123.456'));
  fc.assert(
    fc.property(fc.array(fc.tuple(flag, width, prec, v), { minLength: 1, maxLength: 3 }), fc.array(arg, { maxLength: 4 }), data, (specs, args, d) => {
      const format = specs.map(([f, w, p, x]) => `%${f}${w}${p}${x}`).join('|');
      const tpl = `{{printf ${JSON.stringify(format)} ${args.join(' ')}}}`;
      expect(tsRender(tpl, d)).toEqual(goRender(tpl, d));
    }),
    { seed: seed ?? 7, numRuns: runs ?? 300, endOnFailure: true },
  );
});

test('token soup: malformed templates fail (or render) exactly like Go, never crash or hang', () => {
  const token = fc.constantFrom(
    '{{', '}}', '{{- ', ' -}}', '-', ' ', '\n', '.', '.a', '.l', 'a', '$', '$x', '(', ')', '|', '"s"', '"', '`', "'", "'a'", '/*', '*/',
    'if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue', ':=', '=', ',', '1', '1.5', 'x', 'nil',
    'len', 'index', 'printf', '"%v"', 'eq', 'and', 'true', '{{end}}', '{{else}}', '}', '{', '@', 'é', '\t', '0x', '1e', '-1', '+',
  );
  fc.assert(
    fc.property(fc.array(token, { minLength: 1, maxLength: 25 }), (toks) => {
      const tpl = toks.join('');
      const d = { a: 1, l: [1, 2], s: 'x' };
      expect(tsRender(tpl, d)).toEqual(goRender(tpl, d));
    }),
    { seed: seed ?? 99, numRuns: runs ?? 300, endOnFailure: true },
  );
});
