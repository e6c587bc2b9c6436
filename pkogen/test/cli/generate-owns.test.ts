/**
 * generate owns what it writes: a file an earlier generate wrote and the bundle no longer
 * produces is removed (ROOT/.pkogen-generated records what was written), and verify names it
 * while it is still there. A file generate never wrote is never touched.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const bundle = (withHack: boolean) => `const b = (s) => new TextEncoder().encode(s);
export default async () => ({
  directories: { package: new Map([['manifest.yaml', b('a: 1\\n')]]) },
  files: { ${withHack ? "'hack/x.SelectorSyncSet.yaml.tmpl': b('t: 1\\n'), " : ''}'README.gen.md': b('r\\n') },
  findings: [],
});
`;

describe('generate owns the files it writes', () => {
  it('removes a file it no longer produces, and verify names it until then', async () => {
    const t = tempDir('pkogen-owns-');
    try {
      // One module whose output changes between runs (imports are cached: it reads ./hack-on at each run).
      const m = path.join(t.dir, 'm.mjs');
      writeFileSync(m, `import { existsSync } from 'node:fs';
const b = (s) => new TextEncoder().encode(s);
export default async () => ({
  directories: { package: new Map([['manifest.yaml', b('a: 1\\n')]]) },
  files: { ...(existsSync(new URL('./hack-on', import.meta.url)) ? { 'hack/x.SelectorSyncSet.yaml.tmpl': b('t: 1\\n') } : {}), 'README.gen.md': b('r\\n') },
  findings: [],
});
`);
      writeFileSync(path.join(t.dir, 'hack-on'), '');
      const root = path.join(t.dir, 'root');
      mkdirSync(root);
      expect((await runCli(['generate', m, '--root', root])).code).toBe(0);
      expect(existsSync(path.join(root, 'hack', 'x.SelectorSyncSet.yaml.tmpl'))).toBe(true);
      expect(readFileSync(path.join(root, '.pkogen-generated'), 'utf8').split('\n').filter((l) => l && !l.startsWith('#'))).toEqual(['README.gen.md\t../m.mjs', 'hack/x.SelectorSyncSet.yaml.tmpl\t../m.mjs', 'package/\t../m.mjs']);
      rmSync(path.join(t.dir, 'hack-on'));

      const stale = await runCli(['verify', m, '--root', root]);
      expect(stale.code).toBe(1);
      expect(stale.stderr).toContain('drift: hack/x.SelectorSyncSet.yaml.tmpl: generated before and no longer produced by the bundle');

      const gen = await runCli(['generate', m, '--root', root]);
      expect(gen.code).toBe(0);
      expect(gen.stdout).toContain('removed hack/x.SelectorSyncSet.yaml.tmpl: generated before, no longer produced');
      expect(existsSync(path.join(root, 'hack', 'x.SelectorSyncSet.yaml.tmpl'))).toBe(false);
      const ok = await runCli(['verify', m, '--root', root]);
      expect(ok.stderr).toBe('');
      expect(ok.code).toBe(0);
    } finally {
      t.cleanup();
    }
  });

  it('two bundle modules on one root keep their own files (as this repository\'s package and fleet bundles do)', async () => {
    const t = tempDir('pkogen-owns-');
    try {
      const a = path.join(t.dir, 'a.mjs');
      const b = path.join(t.dir, 'b.mjs');
      writeFileSync(a, bundle(true));
      writeFileSync(b, "const e = (s) => new TextEncoder().encode(s);\nexport default async () => ({ directories: { 'package-fleet': new Map([['manifest.yaml', e('b: 1\\n')]]) }, files: {}, findings: [] });\n");
      const root = path.join(t.dir, 'root');
      mkdirSync(root);
      for (const m of [a, b, a, b]) expect((await runCli(['generate', m, '--root', root])).code).toBe(0);
      for (const f of ['package/manifest.yaml', 'package-fleet/manifest.yaml', 'hack/x.SelectorSyncSet.yaml.tmpl']) expect(existsSync(path.join(root, f))).toBe(true);
      expect((await runCli(['verify', a, '--root', root])).code).toBe(0);
      expect((await runCli(['verify', b, '--root', root])).code).toBe(0);
    } finally {
      t.cleanup();
    }
  });

  it('never removes a file it did not write (no record: a tree from an older pkogen; a hand-written file)', async () => {
    const t = tempDir('pkogen-owns-');
    try {
      const v2 = path.join(t.dir, 'v2.mjs');
      writeFileSync(v2, bundle(false));
      const root = path.join(t.dir, 'root');
      mkdirSync(path.join(root, 'hack'), { recursive: true });
      writeFileSync(path.join(root, 'hack', 'mine.yaml'), 'x: 1\n');
      expect((await runCli(['generate', v2, '--root', root])).code).toBe(0);
      expect((await runCli(['generate', v2, '--root', root])).code).toBe(0);
      expect(readFileSync(path.join(root, 'hack', 'mine.yaml'), 'utf8')).toBe('x: 1\n');
      expect((await runCli(['verify', v2, '--root', root])).code).toBe(0);
    } finally {
      t.cleanup();
    }
  });
});
