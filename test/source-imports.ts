import * as path from 'node:path';
import { Project, SourceFile, SyntaxKind } from 'ts-morph';

/** The repository root (jest runs from it). */
export const REPO = process.cwd();
export const rel = (f: string) => path.relative(REPO, f);

/** The TypeScript sources matching `globs` (relative to the repository), parsed with the root tsconfig. */
export function sources(globs: string[]): SourceFile[] {
  const project = new Project({ tsConfigFilePath: path.join(REPO, 'tsconfig.json'), skipAddingFilesFromTsConfig: true });
  project.addSourceFilesAtPaths(globs.map((g) => path.join(REPO, g)));
  return project.getSourceFiles();
}

/** Every module specifier of a file: static imports and exports, and import('…') with a literal. */
export function specifiers(f: SourceFile, opts: { runtimeOnly?: boolean } = {}): string[] {
  const specs = [...f.getImportDeclarations(), ...f.getExportDeclarations()]
    .filter((d) => !(opts.runtimeOnly && d.isTypeOnly()))
    .map((d) => d.getModuleSpecifierValue())
    .filter((s): s is string => !!s);
  for (const call of f.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const arg = call.getArguments()[0];
    if (call.getExpression().getKind() === SyntaxKind.ImportKeyword && arg?.getKind() === SyntaxKind.StringLiteral) specs.push(arg.getText().slice(1, -1));
  }
  return specs;
}
