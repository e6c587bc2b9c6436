import * as path from 'node:path';
import { Project, SyntaxKind } from 'ts-morph';
import { ROOT } from './helpers.js';

/**
 * The rules of the rooms (shared/docs/architecture.md), checked on the real source with ts-morph:
 * `src/` never imports outside pkogen/; only `src/cli/` reads argv or env or prints. How the
 * repository's other product uses pkogen is checked there (test/boundary.test.ts).
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
  const importsOf = (f: (typeof files)[number], opts: { runtimeOnly?: boolean } = {}) => {
    const specs = [...f.getImportDeclarations(), ...f.getExportDeclarations()]
      .filter((d) => !(opts.runtimeOnly && d.isTypeOnly()))
      .map((d) => d.getModuleSpecifierValue());
    for (const call of f.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      const arg = call.getArguments()[0];
      if (call.getExpression().getKind() === SyntaxKind.ImportKeyword && arg?.getKind() === SyntaxKind.StringLiteral) specs.push(arg.getText().slice(1, -1));
    }
    return specs.filter((s): s is string => !!s && s.startsWith('.')).map((spec) => ({ spec, target: rel(path.resolve(path.dirname(f.getFilePath()), spec)) }));
  };

  it('src/ never imports anything outside pkogen/ (the repository it lives in is not part of it)', () => {
    const offenders: string[] = [];
    for (const f of files) {
      for (const { spec, target } of importsOf(f)) if (target.startsWith('..')) offenders.push(`${rel(f.getFilePath())} imports ${spec}`);
    }
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

  /**
   * The layers, lowest first (shared/docs/architecture.md; issue 13): a module may import its own
   * directory and any lower layer, never a higher one or a sibling on its own layer. src/public/
   * holds the sub-path entry points (`pkogen/model`, …) and index.ts re-exports them (never the CLI).
   */
  const LAYERS: string[][] = [
    ['core'],
    ['yaml'],
    ['gotemplate', 'schema', 'oci', 'kube'],
    ['pko'],
    ['model', 'rollout', 'status', 'codegen'],
    ['kickstart', 'scaffold'],
    ['public'],
    ['cli'],
  ];
  const layerOf = (file: string): { dir: string; layer: number } | undefined => {
    const m = /^src\/([^/]+)\//.exec(file);
    if (!m) return undefined;
    const layer = LAYERS.findIndex((l) => l.includes(m[1]!));
    return { dir: m[1]!, layer };
  };

  it('every directory of src/ has a layer', () => {
    const dirs = new Set(files.map((f) => layerOf(rel(f.getFilePath()))?.dir).filter((d): d is string => d !== undefined));
    expect([...dirs].filter((d) => LAYERS.every((l) => !l.includes(d)))).toEqual([]);
  });

  it('imports point down the layers (core/yaml → gotemplate/schema/oci → pko → model/rollout → cli)', () => {
    const offenders: string[] = [];
    for (const f of files) {
      const from = layerOf(rel(f.getFilePath()));
      if (!from) continue;
      for (const { spec, target } of importsOf(f)) {
        const to = layerOf(target);
        if (!to || to.dir === from.dir) continue;
        if (to.layer >= from.layer) offenders.push(`${rel(f.getFilePath())} (${from.dir}, layer ${from.layer}) imports ${spec} (${to.dir}, layer ${to.layer})`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('no import cycle between modules (type-only imports are erased and do not count)', () => {
    const graph = new Map<string, string[]>();
    for (const f of files) {
      const from = rel(f.getFilePath());
      graph.set(from, importsOf(f, { runtimeOnly: true }).map(({ target }) => target.replace(/\.js$/, '.ts')).filter((t) => t.startsWith('src/')));
    }
    // Tarjan's strongly connected components: any component of more than one module is a cycle.
    let index = 0;
    const idx = new Map<string, number>();
    const low = new Map<string, number>();
    const stack: string[] = [];
    const on = new Set<string>();
    const cycles: string[][] = [];
    const visit = (v: string): void => {
      idx.set(v, index);
      low.set(v, index);
      index++;
      stack.push(v);
      on.add(v);
      for (const w of graph.get(v) ?? []) {
        if (!graph.has(w)) continue;
        if (!idx.has(w)) {
          visit(w);
          low.set(v, Math.min(low.get(v)!, low.get(w)!));
        } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
      }
      if (low.get(v) === idx.get(v)) {
        const comp: string[] = [];
        let w: string;
        do {
          w = stack.pop()!;
          on.delete(w);
          comp.push(w);
        } while (w !== v);
        if (comp.length > 1) cycles.push(comp.sort());
      }
    };
    for (const v of graph.keys()) if (!idx.has(v)) visit(v);
    expect(cycles).toEqual([]);
  });

  it('only src/cli/ reads the environment or the working directory', () => {
    const offenders: string[] = [];
    for (const f of files) {
      const p = rel(f.getFilePath());
      if (p.startsWith('src/cli/')) continue;
      for (const e of f.getDescendantsOfKind(SyntaxKind.PropertyAccessExpression)) {
        if (/^process\.(env|cwd)\b/.test(e.getText())) offenders.push(`${p}:${e.getStartLineNumber()} ${e.getText()}`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('the public surface never imports the CLI', () => {
    const index = files.find((f) => rel(f.getFilePath()) === 'src/index.ts')!;
    expect(importsOf(index).filter(({ target }) => target.startsWith('src/cli/'))).toEqual([]);
  });
});
