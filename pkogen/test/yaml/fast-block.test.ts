/**
 * The block-YAML fast path must agree exactly with js-yaml (YAML 1.1 schema) on every document
 * it accepts: every YAML file under ../shared, every rendered fixture, plus generated documents.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import fc from 'fast-check';
import { BAIL, parseFastBlock } from '../../src/yaml/fast-block.js';
import { parseAllYaml11, parseYaml11Full, resolvePlain11, splitPkoDocuments } from '../../src/yaml/parse.js';

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml(\.gotmpl)?$/.test(e.name) && !e.name.endsWith('.gotmpl')) out.push(p);
  }
  return out;
}

function same(text: string): 'fast' | 'bail' {
  const fast = parseFastBlock(text, resolvePlain11);
  let full: unknown;
  let fullErr: unknown;
  try {
    full = parseYaml11Full(text);
  } catch (e) {
    fullErr = e;
  }
  if (fast === BAIL) return 'bail';
  if (fullErr) throw new Error(`fast path accepted a document js-yaml rejects: ${(fullErr as Error).message}\n${text}`);
  expect({ text, v: JSON.stringify(fast) }).toEqual({ text, v: JSON.stringify(full) });
  expect(fast).toEqual(full);
  return 'fast';
}

test('agrees with js-yaml on every YAML document in the references and our package', () => {
  const files = [...yamlFiles(path.resolve('../../shared/reference')), ...yamlFiles(path.resolve('../package'))];
  let fast = 0;
  let total = 0;
  for (const f of files) {
    for (const d of splitPkoDocuments(fs.readFileSync(f, 'utf8'))) {
      if (!d.text) continue;
      total++;
      if (same(d.text) === 'fast') fast++;
    }
  }
  expect(total).toBeGreaterThan(80);
  // most real manifests take the fast path
  expect(fast / total).toBeGreaterThan(0.6);
  process.stderr.write(`fast path: ${fast}/${total} documents\n`);
});

test.each([
  ['nested', 'a:\n  b:\n    c: d\n  e: [ ]\nf: {}\n'],
  ['sequences', 'a:\n- 1\n- x\n- - y\n  - z\n- k: v\n  l: w\nb:\n  - c\n'],
  ['yaml 1.1 scalars', 'a: yes\nb: off\nc: 0755\nd: 0x1F\ne: 1_000\nf: 1.5e3\ng: .inf\nh: ~\ni: null\nj: 2001-12-14\nk: "yes"\nl: \'it\'\'s\'\nm: y\nn: 1:20\n'],
  ['keys resolve then stringify', 'yes: 1\n1.0: 2\n~: 3\non: 4\n'],
  ['comments', '# top\na: b # c\n# mid\nd:\n  # inner\n  e: f\n'],
  ['literal scalars', 'a: |\n  l1\n\n  l2\nb: |-\n  x\nc: |+\n  y\n\nd: e\n'],
  ['literal with more-indented lines', 'a: |\n  x\n    y\n  z\n'],
  ['double quoted escapes', 'a: "x\\ty\\n\\u00e9\\"\\\\"\n'],
  ['duplicate keys: last wins', 'a: 1\nb: 2\na: 3\n'],
  ['urls and colons', 'a: http://x:8080/y\nb: a:b\nc: "k: v"\n'],
])('%s', (_n, text) => {
  expect(same(text)).toBe('fast');
});

test.each([
  ['anchors', 'a: &x 1\nb: *x\n'],
  ['flow content', 'a: [1, 2]\n'],
  ['multi-line plain', 'a: one\n  two\n'],
  ['folded', 'a: >\n  x\n'],
  ['tags', 'a: !!str 1\n'],
  ['tabs', 'a:\tb\n'],
  ['quoted keys', '"a": 1\n'],
  ['merge keys', 'a: {}\n<<: {}\n'],
  ['bad indentation', 'a: 1\n  b: 2\n'],
])('bails on %s', (_n, text) => {
  expect(parseFastBlock(text, resolvePlain11)).toBe(BAIL);
});

// parseAllYaml11 reads a text without document markers through the fast path. js-yaml's own
// reading of the same text: behind a `---` line (a marker, so parseAllYaml11 leaves it to js-yaml),
// which starts the same first document.
const allByJsYaml = (text: string): unknown[] => parseAllYaml11(`---\n${text}`);

test('parseAllYaml11 agrees with js-yaml on every file of the references, the rollout templates and our package', () => {
  const templates = path.resolve('../../shared/reference/rollout-templates');
  const files = [...yamlFiles(path.resolve('../../shared/reference')), ...yamlFiles(path.resolve('../package')), ...fs.readdirSync(templates).filter((f) => f.endsWith('.tmpl')).map((f) => path.join(templates, f)), path.resolve('../hack/on-cluster-build.SelectorSyncSet.yaml.tmpl')];
  let single = 0;
  for (const f of files) {
    const text = fs.readFileSync(f, 'utf8');
    let js: unknown;
    try {
      js = /^(---|\.\.\.|%)/m.test(text) ? parseAllYaml11(text) : allByJsYaml(text);
    } catch {
      continue; // not YAML as it stands (a Go template): the js-yaml path reports it either way
    }
    if (!/^(---|\.\.\.|%)/m.test(text)) single++;
    expect({ f, docs: JSON.stringify(parseAllYaml11(text)) }).toEqual({ f, docs: JSON.stringify(js) });
  }
  expect(single).toBeGreaterThan(20);
});

test.each([
  ['one mapping', 'a: 1\nb:\n  - x\n'],
  ['one sequence', '- a\n- b: c\n'],
  ['two documents', 'a: 1\n---\nb: 2\n'],
  ['document end', 'a: 1\n...\n'],
  ['a directive', '%YAML 1.1\n---\na: 1\n'],
  ['empty', ''],
  ['comments only', '# nothing\n'],
  ['a scalar', 'just text\n'],
  ['null', 'null\n'],
  ['anchors (the fast path bails)', 'a: &x 1\nb: *x\n'],
])('parseAllYaml11 of %s: as js-yaml reads it', (_n, text) => {
  // js-yaml: no document in an empty text, one null document in a text of comments
  const expected = text === '' ? [] : text.startsWith('#') ? [null] : /^(---|%)/m.test(text) ? parseAllYaml11(text) : allByJsYaml(text);
  expect(parseAllYaml11(text)).toEqual(expected);
});

test('generated block documents agree with js-yaml', () => {
  const key = fc.stringMatching(/^[a-zA-Z][a-zA-Z0-9_./-]{0,12}$/);
  const scalar = fc.oneof(
    fc.stringMatching(/^[a-zA-Z0-9 ._:/#-]{0,20}$/),
    fc.constantFrom('yes', 'no', 'on', '~', 'null', '0x10', '012', '1e3', '.5', '-1', '+2', "'q'", '"d"', "'it''s'", '"a\\tb"', '[]', '{}', '-', '- x', ': x', 'a: b', '#c', 'x #c'),
  );
  const leaf = scalar.map((s) => ({ s }));
  type Tree = { s: string } | { m: [string, Tree][] } | { l: Tree[] };
  const tree: fc.Arbitrary<Tree> = fc.letrec<{ t: Tree }>((tie) => ({
    t: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(fc.tuple(key, tie('t')), { minLength: 1, maxLength: 4 }).map((m) => ({ m })),
      fc.array(tie('t'), { minLength: 1, maxLength: 3 }).map((l) => ({ l })),
    ),
  })).t;
  const emit = (t: Tree, ind: number): string[] => {
    const pad = ' '.repeat(ind);
    if ('s' in t) return [t.s];
    if ('m' in t)
      return t.m.flatMap(([k, v]) => ('s' in v ? [`${pad}${k}: ${v.s}`] : [`${pad}${k}:`, ...emit(v, 'l' in v ? ind : ind + 2)]));
    return t.l.flatMap((v) => {
      if ('s' in v) return [`${pad}- ${v.s}`];
      const inner = emit(v, ind + 2);
      return [`${pad}- ${inner[0].slice(ind + 2)}`, ...inner.slice(1)];
    });
  };
  let fastCount = 0;
  let runs = 0;
  fc.assert(
    fc.property(tree, (t) => {
      if ('s' in t) return;
      runs++;
      if (same(emit(t, 0).join('\n') + '\n') === 'fast') fastCount++;
    }),
    { seed: 42, numRuns: 400 },
  );
  // the generator must reach the fast path, or this test proves nothing
  expect(fastCount).toBeGreaterThan(runs / 4);
});

test('quoted scalars and keys with colons or comments agree with js-yaml', () => {
  // Quotes, escapes, doubled quotes, colons and comment marks where the scanners look for them.
  const piece = fc.constantFrom('a', 'b c', ' ', ':', ': ', '#', ' #', '"', "'", "''", '\\', '\\"', '\\\\', '\\t', '\\x41', '\\u00e9', '\\U0001F600', '\\q', '\\x4', 'é', '😀');
  const body = fc.array(piece, { maxLength: 8 }).map((p) => p.join(''));
  const value = fc.oneof(
    body.map((b) => `"${b}"`),
    body.map((b) => `'${b}'`),
    fc.tuple(body, fc.constantFrom('', ' ', ' # c', 'x', ' x', '"')).map(([b, tail]) => `"${b}"${tail}`),
    fc.tuple(body, fc.constantFrom('', ' ', ' # c', 'x', ' x', "'")).map(([b, tail]) => `'${b}'${tail}`),
    body,
  );
  const key = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9]{0,5}$/), fc.tuple(fc.stringMatching(/^[a-z]{1,3}$/), piece, fc.stringMatching(/^[a-z]{0,3}$/)).map((p) => p.join('')));
  let fast = 0;
  let runs = 0;
  fc.assert(
    fc.property(fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 3 }), (entries) => {
      runs++;
      if (same(entries.map(([k, v]) => `${k}: ${v}`).join('\n') + '\n') === 'fast') fast++;
    }),
    { seed: 7, numRuns: 3000 },
  );
  expect(fast).toBeGreaterThan(runs / 5);
});
