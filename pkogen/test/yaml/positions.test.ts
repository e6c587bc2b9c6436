/**
 * One home for YAML positions (src/yaml/positions.ts): lines of field paths and duplicate keys,
 * from the block parser's recording mode, or eemeli/yaml for what that parser leaves alone.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { BAIL, parseFastBlock, parseFastBlockPositions } from '../../src/yaml/fast-block.js';
import { resolvePlain11, splitPkoDocuments } from '../../src/yaml/parse.js';
import { duplicateKeys, duplicateKeysExact, lineOf, positionsByFullParser, positionsOf } from '../../src/yaml/positions.js';

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yamlFiles(p, out);
    else if (/\.ya?ml$/.test(e.name)) out.push(p);
  }
  return out;
}

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  template:
    spec:
      containers:
      - name: a
        image: x
      - name: b
        env:
        - name: E
          value: "1"
`;

test('lineOf finds keys, sequence items, and the nearest ancestor of a missing field', () => {
  const t = { text: DEPLOYMENT, firstLine: 1 };
  expect(lineOf(t, [])).toBe(1);
  expect(lineOf(t, ['metadata', 'labels', 'app'])).toBe(6);
  expect(lineOf(t, ['spec', 'template', 'spec', 'containers', 1])).toBe(13);
  expect(lineOf(t, ['spec', 'template', 'spec', 'containers', 1, 'env', 0, 'value'])).toBe(16);
  // absent: the deepest existing ancestor
  expect(lineOf(t, ['spec', 'template', 'spec', 'containers', 1, 'resources', 'limits'])).toBe(13);
  expect(lineOf(t, ['spec', 'template', 'spec', 'containers', 7])).toBe(10);
  // a string segment never indexes a sequence
  expect(lineOf(t, ['spec', 'template', 'spec', 'containers', 'a'])).toBe(10);
  // a document starting on line 40 of its file
  expect(lineOf({ text: DEPLOYMENT, firstLine: 40 }, ['kind'])).toBe(41);
  expect(lineOf({ text: '', firstLine: 1 }, ['kind'])).toBeUndefined();
});

test('flow collections, anchors and several documents go to the full parser, with the same answers', () => {
  const flow = 'a: {b: 1, c: [x, y]}\nd: &anchor\n  e: 1\nf: *anchor\n';
  expect(parseFastBlock(flow, resolvePlain11)).toBe(BAIL);
  expect(lineOf({ text: flow, firstLine: 1 }, ['d', 'e'])).toBe(3);
  expect(lineOf({ text: flow, firstLine: 1 }, ['f', 'e'])).toBe(4); // aliases are not followed
  const multi = 'a: 1\n---\nb:\n  c: 2\n';
  expect(lineOf({ text: multi, firstLine: 1 }, ['b', 'c'], 1)).toBe(4);
});

test('duplicate keys: block and flow style, lines in the file, only for valid YAML', () => {
  const block = 'metadata:\n  name: a\n  labels:\n    x: "1"\n    x: "2"\n  name: b\n';
  expect(duplicateKeys({ text: block, firstLine: 10 })).toEqual([
    { key: 'x', line: 14 },
    { key: 'name', line: 15 },
  ]);
  // YAML 1.1 keys: `yes` and `true` are the same key
  expect(duplicateKeysExact({ text: 'yes: 1\ntrue: 2\n', firstLine: 1 })).toEqual([{ key: 'true', line: 2 }]);
  // …also through the cheap line scan in front of it (fresh texts: not read by the value parse)
  expect(duplicateKeys({ text: 'a:\n  true: 1\n  yes: 2\n', firstLine: 1 })).toEqual([{ key: 'true', line: 3 }]);
  expect(duplicateKeys({ text: '1: a\n0x1: b\n', firstLine: 1 })).toEqual([{ key: '1', line: 2 }]);
  expect(duplicateKeys({ text: 'a: {b: 1, b: 2}\n', firstLine: 1 })).toEqual([{ key: 'b', line: 1 }]);
  expect(duplicateKeys({ text: DEPLOYMENT, firstLine: 1 })).toEqual([]);
  // not YAML: its keys mean nothing
  expect(duplicateKeysExact({ text: 'a: 1\na: 2\n  b: [\n', firstLine: 1 })).toEqual([]);
});

test('a text the value parse read answers duplicateKeys as the exact check does (repeated, YAML 1.1-equal and inherited-name keys)', () => {
  const keys = ['a', 'b', 'yes', 'true', 'constructor', 'toString', '__lookupGetter__', 'x'];
  let seed = 7;
  const pick = <T>(xs: readonly T[]): T => xs[((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % xs.length]!;
  let repeated = 0;
  let parsed = 0;
  for (let n = 0; n < 400; n++) {
    const lines: string[] = [];
    const block = (indent: number, depth: number) => {
      const count = 1 + (pick([0, 1, 2, 3]) as number);
      for (let i = 0; i < count; i++) {
        const k = pick(keys);
        if (depth < 2 && pick([false, true])) {
          lines.push(`${' '.repeat(indent)}${k}:`);
          block(indent + 2, depth + 1);
        } else lines.push(`${' '.repeat(indent)}${k}: ${pick(['1', 'v', '"q"'])}`);
      }
    };
    block(0, 0);
    const text = lines.join('\n') + '\n';
    if (parseFastBlock(text, resolvePlain11, Infinity, true) === BAIL) continue;
    parsed++;
    const exact = duplicateKeysExact({ text, firstLine: 1 });
    if (exact.length) repeated++;
    expect({ text, got: duplicateKeys({ text, firstLine: 1 }) }).toEqual({ text, got: exact });
  }
  expect({ parsed, repeated }).toEqual({ parsed: expect.any(Number), repeated: expect.any(Number) });
  expect(parsed).toBeGreaterThan(300);
  expect(repeated).toBeGreaterThan(50);
  expect(parsed - repeated).toBeGreaterThan(50);
});

test('the recording parse reads the same values as the plain one', () => {
  const r = parseFastBlockPositions(DEPLOYMENT, resolvePlain11);
  expect(r).not.toBe(BAIL);
  if (r !== BAIL) expect(r.value).toEqual(parseFastBlock(DEPLOYMENT, resolvePlain11));
});

test('the block parser and eemeli/yaml agree on every position in the references and our package', () => {
  const files = [...yamlFiles(path.resolve('../../shared/reference')), ...yamlFiles(path.resolve('../package'))];
  let compared = 0;
  for (const f of files) {
    for (const d of splitPkoDocuments(fs.readFileSync(f, 'utf8'))) {
      if (parseFastBlock(d.text, resolvePlain11) === BAIL) continue;
      const full = positionsByFullParser(d.text);
      if (!full.valid) continue;
      expect({ f, p: positionsOf(d.text) }).toEqual({ f, p: full });
      compared++;
    }
  }
  expect(compared).toBeGreaterThan(50);
});

test('a deeply nested flow text is walked without overflowing the stack', () => {
  const deep = '['.repeat(5000) + ']'.repeat(5000);
  expect(() => lineOf({ text: deep, firstLine: 1 }, [0, 0, 0])).not.toThrow();
});

test("splitPkoDocuments splits on exactly the lines Go's (?m)^---$ matches: only line feeds end a line (random texts of -, line terminators and letters)", () => {
  // Go's multiline ^ and $ match at the text's ends and next to \n only (regexp/syntax: OpBeginLine, OpEndLine).
  const reference = (body: string): number[] => [...body.matchAll(/(?<=^|\n)---(?=\n|$)/g)].map((m) => m.index!);
  const alphabet = ['-', '-', '-', '\n', '\r', '\u2028', '\u2029', 'a', ' '];
  let x = 12345;
  const next = () => ((x = (x * 1103515245 + 12345) >>> 0) >>> 8) % alphabet.length;
  for (let t = 0; t < 3000; t++) {
    const len = 1 + (t % 40);
    let body = 'k';
    for (let i = 0; i < len; i++) body += alphabet[next()];
    body += 'k';
    // 'k' at both ends: splitPkoDocuments trims nothing, so its pieces are the regex's splits.
    const want = reference(body);
    const pieces: string[] = [];
    let last = 0;
    for (const i of want) {
      pieces.push(body.slice(last, i).trim());
      last = i + 3;
    }
    pieces.push(body.slice(last).trim());
    expect({ body, docs: splitPkoDocuments(body).map((d) => d.text) }).toEqual({ body, docs: pieces });
  }
});

test('a `---` line ending in \\r does not split (PKO: Go regexp (?m)^---$)', () => {
  expect(splitPkoDocuments('a: 1\r\n---\r\nb: 2\r\n').map((d) => d.text)).toEqual(['a: 1\r\n---\r\nb: 2']);
  expect(splitPkoDocuments('a: 1\n---\nb: 2\n').map((d) => d.text)).toEqual(['a: 1', 'b: 2']);
});
