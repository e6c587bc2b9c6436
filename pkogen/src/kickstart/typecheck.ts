/**
 * Kickstart's own tsc run over what it wrote: every object it typed must type-check, or the
 * user's first `make package` would fail on a package PKO accepts (a field the types do not know,
 * a string where the schema wants a number). Such an object is written again without its type,
 * with a warning naming the first error; the rest stay typed.
 */
import type { Diagnostic, SatisfiesExpression } from 'ts-morph';
import { loadTsMorph } from '../codegen/ts-morph.js';
import type { PackageDefinition } from '../model/package.js';
import { emitResources, type EmitOptions } from './emit.js';

/** Where pkogen's own declarations are: `index` for `pkogen`, `publicDir` holding `k8s` for `pkogen/k8s`. */
export interface PkogenTypes {
  index: string;
  publicDir: string;
}

export interface TypedEmit {
  files: Map<string, string>;
  /** One line per object left untyped: file, object and the first type error. */
  untypedWarnings: string[];
}

/** Emits, type-checks, and writes the objects that fail without their type. */
export function emitTypedResources(def: PackageDefinition, opts: EmitOptions, types: PkogenTypes, dir = '/kickstart-check/resources'): TypedEmit {
  const untyped = new Set<number>();
  const untypedWarnings: string[] = [];
  for (let pass = 0; pass < 3; pass++) {
    const files = emitResources(def, { ...opts, untyped });
    const failing = typeErrorsByObject(def, files, types, dir);
    const fresh = [...failing].filter(([i]) => !untyped.has(i));
    if (fresh.length === 0) return { files, untypedWarnings };
    for (const [i, msg] of fresh) {
      untyped.add(i);
      const o = def.objects[i];
      untypedWarnings.push(`${msg.file}:${msg.line}: ${o.object.kind} ${o.object.metadata.name}: written without its type (${msg.type}): ${msg.text}; the original has it, so the object stays as it was: fix it and add \`satisfies ${msg.type}\` back`);
    }
  }
  return { files: emitResources(def, { ...opts, untyped }), untypedWarnings };
}

interface ObjectError {
  file: string;
  line: number;
  type: string;
  text: string;
}

function typeErrorsByObject(def: PackageDefinition, files: Map<string, string>, types: PkogenTypes, dir: string): Map<number, ObjectError> {
  const { Project, SyntaxKind, ts } = loadTsMorph('pkogen kickstart');
  const project = new Project({
    compilerOptions: {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      types: [],
      skipLibCheck: true,
      paths: { pkogen: [types.index], 'pkogen/*': [`${types.publicDir}/*`] },
    },
    skipAddingFilesFromTsConfig: true,
  });
  for (const [p, text] of files) project.createSourceFile(`${dir}/${p}`, text, { overwrite: true });
  const out = new Map<number, ObjectError>();
  const diagnostics: Diagnostic[] = project.getPreEmitDiagnostics();
  for (const d of diagnostics) {
    const sf = d.getSourceFile();
    const start = d.getStart();
    if (!sf || start === undefined) continue;
    const base = sf.getFilePath().slice(dir.length + 1);
    const phaseName = /^phase-(.*)\.ts$/.exec(base)?.[1];
    if (phaseName === undefined) continue;
    // The objects of this phase, in the order they were written.
    const indexes = def.objects.map((o, i) => ({ o, i })).filter(({ o }) => o.phase.replace(/[^A-Za-z0-9._-]/g, '_') === phaseName).map(({ i }) => i);
    const sats = sf.getDescendantsOfKind(SyntaxKind.SatisfiesExpression) as SatisfiesExpression[];
    const elements = sf.getVariableDeclarations()[0]?.getInitializerIfKind(SyntaxKind.ArrayLiteralExpression)?.getElements() ?? [];
    const at = elements.findIndex((e) => e.getStart() <= start && start < e.getEnd());
    if (at < 0 || indexes[at] === undefined || out.has(indexes[at])) continue;
    const sat = sats.find((s) => s.getStart() >= elements[at].getStart() && s.getEnd() <= elements[at].getEnd());
    const message = d.getMessageText();
    const text = (typeof message === 'string' ? message : message.getMessageText()).split('\n')[0].replace(/\.$/, '');
    out.set(indexes[at], { file: base, line: sf.getLineAndColumnAtPos(start).line, type: sat?.getTypeNode()?.getText() ?? 'its type', text });
  }
  return out;
}
