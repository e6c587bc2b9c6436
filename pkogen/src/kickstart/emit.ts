/**
 * A PackageDefinition → `resources/*.ts` source files, written with ts-morph so the output is a
 * real, formatted AST (stable: same definition, same bytes). Layout: `resources.ts` (manifest
 * fields and the bundle's default export), one `phase-<name>.ts` per phase, `templates.ts` for
 * files carried as they are, `imports/<group>_<version>.ts` for the types of the CRDs the package
 * ships. Everything else imports only from `pkogen`.
 *
 * Every object whose kind has a type is written `{…} satisfies T`: built-in kinds and the OpenShift
 * kinds pkogen validates from `pkogen/k8s`, the package's own custom resources from the modules
 * generated from its CRDs. A misspelt field or a wrong type is then a tsc error at its line.
 */
import type { Project as ProjectT, SourceFile } from 'ts-morph';
import type { KubeObject, PackageDefinition } from '../model/package.js';
import { loadTsMorph } from '../codegen/ts-morph.js';
import { emitCrdTypes } from '../codegen/crd-types.js';
import { crdFromObject, type BundledCrd } from '../schema/crd.js';
import { K8S_TYPE_NAMES } from '../schema/generated/k8s-type-names.js';
import { OPENSHIFT_CRDS } from '../schema/generated/openshift-crds.js';
import { KickstartTemplateValue } from './templated.js';

const IDENT = /^[A-Za-z_$][\w$]*$/;

function quote(s: string): string {
  return `'${JSON.stringify(s).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
}

/** Multi-line text as a template literal, so a Go template reads as it did in its file. */
function stringLiteral(s: string): string {
  if (!s.includes('\n') || s.length < 40) return quote(s);
  // Escape what a template literal would interpret; CR and other controls keep JSON escapes.
  const body = s.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${').replace(/[\u0000-\u0009\u000b-\u001f\u2028\u2029]/g, (c) => JSON.stringify(c).slice(1, -1));
  return '`' + body + '`';
}

/** A JSON-like value as TypeScript literal text, one property per line. */
export function literal(v: unknown, indent = ''): string {
  const inner = indent + '  ';
  if (v === null) return 'null';
  if (v instanceof KickstartTemplateValue) return `${v.code.helper}(${stringLiteral(v.code.arg)})`;
  if (typeof v === 'string') return stringLiteral(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} as a literal`);
    return Object.is(v, -0) ? '0' : String(v);
  }
  if (typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) {
    if (v.length === 0) return '[]';
    return `[\n${v.map((x) => inner + literal(x, inner) + ',').join('\n')}\n${indent}]`;
  }
  if (typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    return `{\n${entries.map(([k, x]) => `${inner}${IDENT.test(k) ? k : quote(k)}: ${literal(x, inner)},`).join('\n')}\n${indent}}`;
  }
  throw new Error(`cannot write a ${typeof v} as a literal`);
}

const camel = (s: string) => s.replace(/[^A-Za-z0-9]+(.)?/g, (_, c: string | undefined) => (c ? c.toUpperCase() : '')).replace(/^[0-9]/, '_$&');

export interface EmitOptions {
  /** Module the generated code imports the library from (default `pkogen`). */
  library?: string;
  relaxRules?: string[];
  /** One line on where this came from, for the header comment. */
  origin: string;
  /** Indexes into `def.objects` of objects written without a type (they did not type-check). */
  untyped?: ReadonlySet<number>;
}

/** `group` + `Version` (`routeV1`, `operatorsV1alpha1`): the namespace a group/version's types are imported as. */
export function groupVersionIdent(group: string, version: string): string {
  const head = (group.split('.')[0] || 'core').replace(/[^A-Za-z0-9]/g, '');
  return `${/^[0-9]/.test(head) ? '_' : ''}${head}${version.charAt(0).toUpperCase()}${version.slice(1).replace(/[^A-Za-z0-9]/g, '')}`;
}

let openshiftTypes: Map<string, string> | undefined;
/** "apiVersion/Kind" → its type in `pkogen/k8s` (`routeV1.Route`), for the OpenShift kinds pkogen ships. */
function openshiftTypeNames(): Map<string, string> {
  if (openshiftTypes) return openshiftTypes;
  openshiftTypes = new Map();
  for (const crd of OPENSHIFT_CRDS) {
    for (const v of crd.versions) if (v.served) openshiftTypes.set(`${crd.group}/${v.name}/${crd.kind}`, `${groupVersionIdent(crd.group, v.name)}.${crd.kind}`);
  }
  return openshiftTypes;
}

function hasTemplateValue(v: unknown): boolean {
  if (v instanceof KickstartTemplateValue) return true;
  if (Array.isArray(v)) return v.some(hasTemplateValue);
  if (typeof v === 'object' && v !== null) return Object.values(v).some(hasTemplateValue);
  return false;
}

/** The package's own CRDs (static ones: a templated CRD's schema is not known before rendering). */
function packageCrds(objects: readonly { object: KubeObject }[]): BundledCrd[] {
  const out: BundledCrd[] = [];
  const seen = new Set<string>();
  for (const { object } of objects) {
    if (object.kind !== 'CustomResourceDefinition' || object.apiVersion !== 'apiextensions.k8s.io/v1' || hasTemplateValue(object)) continue;
    let crd: BundledCrd | undefined;
    try {
      crd = crdFromObject(object, String(object.metadata.name));
    } catch {
      continue;
    }
    if (!crd || !crd.kind || seen.has(`${crd.group}/${crd.kind}`)) continue;
    seen.add(`${crd.group}/${crd.kind}`);
    out.push(crd);
  }
  return out;
}

function finish(sf: SourceFile): string {
  sf.formatText({ indentSize: 2, convertTabsToSpaces: true, ensureNewLineAtEndOfFile: true });
  return sf.getFullText();
}

/** Returns file name (relative to the resources directory) → source text. */
export function emitResources(def: PackageDefinition, opts: EmitOptions): Map<string, string> {
  const { Project, VariableDeclarationKind } = loadTsMorph('pkogen kickstart');
  const project: ProjectT = new Project({ useInMemoryFileSystem: true });
  const lib = opts.library ?? 'pkogen';
  const out = new Map<string, string>();
  const header = `Generated by \`pkogen kickstart\` from ${opts.origin}. This is now the source of the package: edit it, then run \`make package\`.`;

  // Types of the package's own custom resources: one module per group/version under imports/.
  const crdTypes = new Map<string, { module: string; type: string }>();
  try {
    for (const [m, text] of emitCrdTypes(packageCrds(def.objects).map((crd) => ({ crd, source: crd.source })), { command: 'pkogen kickstart', kindTypes: crdTypes })) out.set(`imports/${m}`, text);
  } catch {
    // A CRD the type writer cannot read (a kind defined twice): its resources stay untyped.
    crdTypes.clear();
  }
  const typeOf = (o: KubeObject): { type: string; local?: { ident: string; module: string } } | undefined => {
    const key = `${o.apiVersion}/${o.kind}`;
    const own = crdTypes.get(key);
    if (own) {
      const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
      const ident = `${groupVersionIdent(group, version)}Types`;
      return { type: `${ident}.${own.type}`, local: { ident, module: `./imports/${own.module.replace(/\.ts$/, '.js')}` } };
    }
    const builtin = K8S_TYPE_NAMES[key];
    if (builtin) return { type: `k8s.${builtin}` };
    const os = openshiftTypeNames().get(key);
    return os ? { type: `k8s.${os}` } : undefined;
  };

  const phaseModules: { phase: string; file: string; ident: string }[] = [];
  for (const phase of def.phases) {
    const objs = def.objects.map((o, index) => ({ o, index })).filter(({ o }) => o.phase === phase.name);
    if (objs.length === 0) continue;
    const file = `phase-${phase.name.replace(/[^A-Za-z0-9._-]/g, '_')}.ts`;
    const ident = camel(`${phase.name}-objects`);
    const sf = project.createSourceFile(file, '');
    let usesK8s = false;
    const locals = new Map<string, string>();
    const entries = objs.map(({ o, index }) => {
      const t = opts.untyped?.has(index) ? undefined : typeOf(o.object);
      if (t?.local) locals.set(t.local.ident, t.local.module);
      else if (t) usesK8s = true;
      // Written at their final indent: a multi-line string is a template literal, whose lines must not be re-indented.
      const fields = [`    phase: ${literal(o.phase, '    ')},`, ...(o.file !== undefined ? [`    file: ${literal(o.file, '    ')},`] : []), `    object: ${literal(o.object, '    ')}${t ? ` satisfies ${t.type}` : ''},`];
      return `  {\n${fields.join('\n')}\n  }`;
    });
    const init = `[\n${entries.map((e) => e + ',').join('\n')}\n]`;
    const helpers = (['templateBoolean', 'templateNumber', 'templateObject'] as const).filter((h) => init.includes(`${h}(`));
    const text = init.includes('templateText(');
    sf.addImportDeclaration({ moduleSpecifier: lib, namedImports: ['PackageObject'], isTypeOnly: true });
    if (usesK8s) sf.addImportDeclaration({ moduleSpecifier: `${lib}/k8s`, namespaceImport: 'k8s', isTypeOnly: true });
    for (const [ident, module] of [...locals].sort(([a], [b]) => (a < b ? -1 : 1))) sf.addImportDeclaration({ moduleSpecifier: module, namespaceImport: ident, isTypeOnly: true });
    if (helpers.length || text) sf.addImportDeclaration({ moduleSpecifier: lib, namedImports: [...(text ? ['RawValue'] : []), ...helpers] });
    if (text) {
      sf.addFunction({
        name: 'templateText',
        parameters: [{ name: 'text', type: 'string' }],
        // never: the value is only known once PKO renders it, so it fits any typed field.
        returnType: 'never',
        docs: [
          'A template value written unquoted, as the source package had it: PKO renders it, then reads the\nresult as YAML (a number, a boolean, a string, or a literal block when it starts with `|`).\nTyped `never` so that it fits any field of a typed object; do not compute with it.',
        ],
        statements: [
          "const [head, ...rest] = text.split('\\n');",
          "return new RawValue((indent) => [` ${head}`, ...rest.map((l) => (l === '' ? '' : ' '.repeat(indent + 2) + l))].join('\\n')) as never;",
        ],
      });
    }
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`Objects of phase "${phase.name}".`],
      declarations: [{ name: ident, type: 'PackageObject[]', initializer: init }],
    });
    sf.insertStatements(0, `// ${header}`);
    out.set(file, finish(sf));
    phaseModules.push({ phase: phase.name, file, ident });
  }

  const hasFiles = def.files && Object.keys(def.files).length > 0;
  if (hasFiles) {
    const sf = project.createSourceFile('templates.ts', '');
    sf.addVariableStatement({
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['Files carried as they are (Go templates, helpers, lock file, docs), by package path.'],
      declarations: [{ name: 'packageFiles', type: 'Record<string, string>', initializer: literal(def.files) }],
    });
    sf.insertStatements(0, `// ${header}`);
    out.set('templates.ts', finish(sf));
  }

  const sf = project.createSourceFile('resources.ts', '');
  sf.addImportDeclaration({ moduleSpecifier: lib, namedImports: ['packageOutput', 'type GeneratedOutput', 'type PackageDefinition'] });
  for (const m of phaseModules) sf.addImportDeclaration({ moduleSpecifier: `./${m.file.replace(/\.ts$/, '.js')}`, namedImports: [m.ident] });
  if (hasFiles) sf.addImportDeclaration({ moduleSpecifier: './templates.js', namedImports: ['packageFiles'] });
  const { objects: _o, files: _f, ...manifest } = def;
  const body = literal(manifest).replace(/\n}$/, `\n  objects: [${phaseModules.map((m) => `...${m.ident}`).join(', ')}],${hasFiles ? '\n  files: packageFiles,' : ''}\n}`);
  sf.addFunction({ isExported: true, name: 'definition', returnType: 'PackageDefinition', statements: `return ${body};` });
  const relax = opts.relaxRules ?? [];
  sf.addFunction({
    isExported: true,
    isDefaultExport: true,
    isAsync: true,
    name: 'generate',
    returnType: 'Promise<GeneratedOutput>',
    docs: relax.length
      ? [`\`make package\` runs this. The input breaks pkogen's house rules ${relax.join(', ')} (PKO accepts it);\nthey are reported as warnings until you fix them and remove relaxRules.`]
      : ['`make package` runs this.'],
    statements: relax.length ? `return packageOutput(definition(), { relaxRules: ${literal(relax)} });` : 'return packageOutput(definition());',
  });
  sf.insertStatements(0, `// ${header}`);
  out.set('resources.ts', finish(sf));
  return out;
}
