/**
 * Bad input never crashes, hangs or runs away with memory: every case ends in findings (or a
 * Violation for image contents), with limits applied explicitly. Fixed seeds, bounded runs.
 */
import fc from 'fast-check';
import { fileMap } from '../../src/core/filemap.js';
import { packageFilesFromLayers } from '../../src/pko/image-files.js';
import { parseYamlSafe, YamlLimitError } from '../../src/pko/safe-yaml.js';
import { Violation } from '../../src/pko/types.js';
import { validatePackage } from '../../src/pko/validate.js';

const MANIFEST = 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: f\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n';
const enc = (s: string) => new TextEncoder().encode(s);

function billionLaughs(levels: number): string {
  let s = 'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n';
  for (let i = 1; i < levels; i++) s += `a${i}: &a${i} [${Array(10).fill(`*a${i - 1}`).join(',')}]\n`;
  return s;
}

describe('bad input gives clear findings', () => {
  test('random bytes as the manifest and as an object file', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), fc.uint8Array({ maxLength: 512 }), async (a, b) => {
        const fs1 = await validatePackage(new Map([['manifest.yaml', a]]));
        expect(fs1.length).toBeGreaterThan(0);
        expect(fs1.every((f) => typeof f.message === 'string' && f.message.length > 0)).toBe(true);
        const fs2 = await validatePackage(new Map([['manifest.yaml', enc(MANIFEST)], ['x.yaml', b]]));
        expect(Array.isArray(fs2)).toBe(true);
      }),
      { seed: 4242, numRuns: 300 },
    );
  });

  test('random YAML-ish text (keys, anchors, brackets) never throws', async () => {
    const tok = fc.constantFrom('a:', ' ', '\n', '- ', '&x ', '*x', '[', ']', '{', '}', '---\n', 'kind: K', '"', "'", '<<: *x', '? ', '|', '>', '#', 'apiVersion: v1\n');
    await fc.assert(
      fc.asyncProperty(fc.array(tok, { maxLength: 60 }), async (toks) => {
        const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'o.yaml': toks.join('') }));
        expect(Array.isArray(fs)).toBe(true);
      }),
      { seed: 7, numRuns: 300 },
    );
  });

  test('billion laughs in an object file is refused, not expanded', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'bomb.yaml': 'kind: K\napiVersion: v1\n' + billionLaughs(9) }));
    const f = fs.find((x) => x.file === 'bomb.yaml')!;
    expect(f.severity).toBe('error');
    expect(f.message).toMatch(/^Invalid YAML in bomb.yaml idx 0: a3[[\]0-9]*: document contains excessive aliasing \(YAML alias bomb\)/);
  });

  test('billion laughs in the manifest is refused', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST + billionLaughs(9) }));
    expect(fs[0].message).toMatch(/^Invalid YAML in manifest.yaml: a3[[\]0-9]*: document contains excessive aliasing/);
  });

  test('deep nesting: flow and block', async () => {
    const flow = 'kind: K\nx: ' + '['.repeat(100_000) + ']'.repeat(100_000);
    const block = 'kind: K\nx:\n' + Array.from({ length: 3000 }, (_, i) => ' '.repeat(i + 1) + '- ').join('\n') + '1';
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'flow.yaml': flow, 'block.yaml': block }));
    expect(fs.find((f) => f.file === 'flow.yaml')?.message).toMatch(/nested deeper than 512 levels/);
    expect(fs.find((f) => f.file === 'block.yaml')?.message).toMatch(/nested too deeply|nested deeper than 512 levels|nesting exceeded maxDepth/);
  });

  test('a 50 MB object file is refused by size, a 50 MB non-YAML file is ignored', async () => {
    const big = new Uint8Array(50 * 1024 * 1024).fill(0x61);
    const fs = await validatePackage(new Map([['manifest.yaml', enc(MANIFEST)], ['big.yaml', big], ['blob.bin', big]]));
    expect(fs.map((f) => f.message)).toEqual(['Invalid YAML in big.yaml: file is larger than 8388608 characters']);
  });

  test('non-UTF-8 bytes are reported like go-yaml does', async () => {
    const fs = await validatePackage(new Map([['manifest.yaml', enc(MANIFEST)], ['latin1.yaml', new Uint8Array([0x6b, 0x69, 0x6e, 0x64, 0x3a, 0x20, 0xe9, 0x0a])]]));
    expect(fs.map((f) => f.message)).toEqual(['Invalid YAML in latin1.yaml: invalid leading UTF-8 octet (the file is not UTF-8 text)']);
    const fs2 = await validatePackage(new Map([['manifest.yaml', new Uint8Array([0xff, 0xfe, 0x00])]]));
    expect(fs2[0].message).toBe('Invalid YAML in manifest.yaml: invalid leading UTF-8 octet (the file is not UTF-8 text)');
  });

  test('duplicate keys: PKO keeps the last, we warn with the line', async () => {
    const fs = await validatePackage(fileMap({ 'manifest.yaml': MANIFEST, 'd.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n  annotations:\n    package-operator.run/phase: deploy\n' }));
    expect(fs).toEqual([{ severity: 'warning', rule: 'yaml/duplicate-key', message: 'key "name" appears twice in one mapping; PKO keeps the last silently', file: 'd.yaml', doc: 0, line: 5 }]);
  });

  test('path traversal and odd names in image layers never escape package/', () => {
    const seg = fc.constantFrom('package', '..', '.', '', 'a', '.git', 'b.yaml', '/', 'package/..', '%2e%2e');
    fc.assert(
      fc.property(fc.array(fc.array(fc.array(seg, { minLength: 1, maxLength: 6 }), { maxLength: 8 }), { maxLength: 3 }), (layers) => {
        const entries = layers.map((l) => l.map((segs) => ({ name: segs.join('/'), data: enc('x') })));
        let fm;
        try {
          fm = packageFilesFromLayers(entries);
        } catch (e) {
          expect(e).toBeInstanceOf(Violation);
          return;
        }
        for (const p of fm.keys()) {
          expect(p.split('/').some((s) => s === '..' || s === '' || s.startsWith('.'))).toBe(false);
        }
      }),
      { seed: 99, numRuns: 300 },
    );
  });

  test('parseYamlSafe limits are explicit', () => {
    expect(() => parseYamlSafe('a: 1', { maxNodes: 1, maxDepth: 10, maxChars: 100 })).toThrow(YamlLimitError);
    expect(() => parseYamlSafe('a: 1', { maxNodes: 10, maxDepth: 10, maxChars: 2 })).toThrow(YamlLimitError);
  });
});

describe('duplicate-key prefilter', () => {
  test('never misses a duplicate the exact parse finds (block style)', async () => {
    const { duplicateKeysExact, mayHaveDuplicateKeys } = await import('../../src/yaml/positions.js');
    const key = fc.constantFrom('a', 'b', 'c', '"a"', "'b'");
    const line = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.boolean(), key, fc.constantFrom(' 1', '', ' |', ' x', ' [1, 2]', ' "q: r"', ' {a: 1, a: 2}', ' {b: 1,', ' [1, {c: 1, c: 2}]', ' [1,', ' x{y}', " '{a: 1}'", ' {}', ' ---'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 14 }), fc.array(fc.constantFrom('  text', '    more: z'), { maxLength: 2 }), (lines, extra) => {
        // ' ---' stands for a document separator line
        const text = lines.map(([ind, item, k, v]) => (v === ' ---' ? '---' : '  '.repeat(ind) + (item ? '- ' : '') + `${k}:${v}` + (v === ' |' ? `\n${'  '.repeat(ind + 2)}${extra.join(' ')}` : ''))).join('\n');
        if (duplicateKeysExact({ text, firstLine: 1 }).length > 0) expect(mayHaveDuplicateKeys(text)).toBe(true);
      }),
      { seed: 31337, numRuns: 500 },
    );
  });
});

describe('random templates through the template tests', () => {
  test('any .gotmpl text ends in findings, never an exception', async () => {
    const { templateTestRunner } = await import('../../src/pko/validate-template-tests.js');
    const withTests = MANIFEST + 'test:\n  template:\n  - name: t\n    context:\n      package:\n        metadata: {name: n, namespace: ns}\n';
    const tok = fc.constantFrom('{{', '}}', ' .package.metadata.name ', ' .config.x ', 'if ', 'end', 'range ', 'define "a"', 'template "a" .', 'include "a" .', '| toYaml', 'kind: K\n', 'apiVersion: v1\n', '---\n', '(', ')', '$x := 1', 'fail "boom"', 'cel "true"', ' ', '\n', '"', '-}}', '{{-');
    await fc.assert(
      fc.asyncProperty(fc.array(tok, { maxLength: 40 }), async (toks) => {
        const fs = await validatePackage(fileMap({ 'manifest.yaml': withTests, 'x.yaml.gotmpl': toks.join('') }), { templateTests: templateTestRunner({ files: new Map() }), schema: false });
        expect(Array.isArray(fs)).toBe(true);
      }),
      { seed: 77, numRuns: 300 },
    );
  });
});
