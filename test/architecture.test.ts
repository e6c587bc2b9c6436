import * as path from 'node:path';
import { Project, SyntaxKind } from 'ts-morph';
import { ROOT } from './helpers.js';

/**
 * The rules of the rooms (shared/docs/architecture.md), checked on the real source with ts-morph:
 * `src/` never imports `resources/`; only `src/cli/` reads argv or env or prints.
 */
const project = new Project({ tsConfigFilePath: path.join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
project.addSourceFilesAtPaths([path.join(ROOT, 'src/**/*.ts')]);
const rel = (f: string) => path.relative(ROOT, f);

describe('architecture', () => {
  const files = project.getSourceFiles();

  it('finds the library sources', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('src/ never imports resources/', () => {
    const offenders: string[] = [];
    for (const f of files) {
      for (const d of [...f.getImportDeclarations(), ...f.getExportDeclarations()]) {
        const spec = d.getModuleSpecifierValue();
        if (!spec || !spec.startsWith('.')) continue;
        const target = path.resolve(path.dirname(f.getFilePath()), spec);
        if (rel(target).startsWith('resources')) offenders.push(`${rel(f.getFilePath())} imports ${spec}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('only src/cli/ touches process.argv, process.exit, stdout/stderr or the console', () => {
    const offenders: string[] = [];
    for (const f of files) {
      const p = rel(f.getFilePath());
      if (p.startsWith(path.join('src', 'cli'))) continue;
      for (const e of f.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
        const t = e.getText();
        if (/^process\.(argv|exit|stdout|stderr)\b/.test(t) || /^console\.(log|error|warn|info)\b/.test(t)) {
          offenders.push(`${p}:${e.getStartLineNumber()} ${t}`);
        }
      }
    }
    expect(offenders).toEqual([]);
  });
});
