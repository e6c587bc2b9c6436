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

  /** Relative imports (static and dynamic) of a file, resolved to repository paths. */
  const importsOf = (f: (typeof files)[number]) => {
    const specs = [...f.getImportDeclarations(), ...f.getExportDeclarations()].map((d) => d.getModuleSpecifierValue());
    for (const call of f.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const arg = call.getArguments()[0];
      if (call.getExpression().getKind() === SyntaxKind.ImportKeyword && arg?.getKind() === SyntaxKind.StringLiteral) specs.push(arg.getText().slice(1, -1));
    }
    return specs.filter((s): s is string => !!s && s.startsWith('.')).map((spec) => ({ spec, target: rel(path.resolve(path.dirname(f.getFilePath()), spec)) }));
  };

  it('src/ never imports resources/ or builder/', () => {
    const offenders: string[] = [];
    for (const f of files) {
      for (const { spec, target } of importsOf(f)) if (/^(resources|builder)\//.test(target)) offenders.push(`${rel(f.getFilePath())} imports ${spec}`);
    }
    expect(offenders).toEqual([]);
  });

  it("our bundle (resources/) uses only pkogen's public API, as another team's would", () => {
    const bundle = new Project({ tsConfigFilePath: path.join(ROOT, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
    bundle.addSourceFilesAtPaths([path.join(ROOT, 'resources/**/*.ts')]);
    const offenders: string[] = [];
    for (const f of bundle.getSourceFiles()) {
      for (const { spec, target } of importsOf(f)) if (target.startsWith('src/') && target !== 'src/index.js') offenders.push(`${rel(f.getFilePath())} imports ${spec}`);
    }
    expect(bundle.getSourceFiles().length).toBeGreaterThan(2);
    expect(offenders).toEqual([]);
  });

  it('the library never imports the CLI (src/cli/ is the outermost layer)', () => {
    const offenders: string[] = [];
    for (const f of files) {
      if (rel(f.getFilePath()).startsWith('src/cli/')) continue;
      for (const { spec, target } of importsOf(f)) if (target.startsWith('src/cli/')) offenders.push(`${rel(f.getFilePath())} imports ${spec}`);
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
