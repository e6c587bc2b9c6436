/**
 * A mistake in the user's bundle is the user's error (exit 1), placed in the user's code: a throw
 * inside the bundle names its file and line (the TypeScript line when the bundle has a source
 * map), a malformed return value names what is wrong. Never "internal error", never a stack.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir('pkogen-bundle-errors-');
afterAll(() => tmp.cleanup());

function bundle(name: string, js: string): string {
  writeFileSync(path.join(tmp.dir, name), js);
  return name;
}

describe('errors in a bundle', () => {
  test.each(['generate', 'verify'])('%s: a throw inside the bundle points at its file and line', async (cmd) => {
    const b = bundle(`throws-${cmd}.mjs`, "function definition() {\n  const replicas = undefined;\n  return replicas.count;\n}\nexport default function generate() {\n  return definition();\n}\n");
    const r = await runCli([cmd, b], { cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: throws-${cmd}\\.mjs:3:\\d+: bundle failed: Cannot read properties of undefined \\(reading 'count'\\) \\(in throws-${cmd}\\.mjs's default export\\)\\n$`));
  });

  test('with a source map, the TypeScript file and line', async () => {
    const ts = createRequire(import.meta.url)('typescript') as typeof import('typescript');
    const src = "interface Def { name: string }\n\nfunction definition(): Def {\n  throw new Error('no image configured');\n}\n\nexport default function generate() {\n  return definition();\n}\n";
    writeFileSync(path.join(tmp.dir, 'resources.ts'), src);
    const out = ts.transpileModule(src, { fileName: 'resources.ts', compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: true } });
    writeFileSync(path.join(tmp.dir, 'resources.mjs'), out.outputText.replace(/sourceMappingURL=.*$/m, 'sourceMappingURL=resources.mjs.map'));
    writeFileSync(path.join(tmp.dir, 'resources.mjs.map'), out.sourceMapText!.replace('"file":"resources.js"', '"file":"resources.mjs"'));
    const r = await runCli(['generate', 'resources.mjs'], { cwd: tmp.dir });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: resources\.ts:4:\d+: bundle failed: no image configured \(in resources\.mjs's default export\)\n$/);
  });

  test.each([
    ['undefined', 'undefined', 'the default export returned no object: undefined'],
    ['no findings', '{ directories: {}, files: {} }', 'the default export returned an object without findings: missing'],
    ['a string file', "{ directories: {}, files: { 'a.txt': 'hello' }, findings: [] }", 'the default export returned files["a.txt"]: not bytes (Uint8Array)'],
    ['a path outside', "{ directories: {}, files: { '../escape.txt': new Uint8Array() }, findings: [] }", 'the default export returned files["../escape.txt"]: not a relative path inside the project'],
    ['a plain object directory', "{ directories: { package: { 'a.yaml': new Uint8Array() } }, files: {}, findings: [] }", 'the default export returned directories["package"]: not a Map of path → bytes'],
    ['a bad finding', "{ directories: {}, files: {}, findings: ['oops'] }", 'the default export returned findings[0]: not a finding ({ severity: error|warning|info, rule, message })'],
  ])('a malformed return value (%s) is a located error, exit 1', async (name, value, message) => {
    const b = bundle(`bad-${name.replace(/\W+/g, '-')}.mjs`, `export default function generate() {\n  return ${value};\n}\n`);
    const r = await runCli(['generate', b], { cwd: tmp.dir });
    expect(r).toEqual({ code: 1, stdout: '', stderr: `error: ${b}: ${message} (expected { directories, files, findings }, as packageOutput() returns)\n` });
  });
});
