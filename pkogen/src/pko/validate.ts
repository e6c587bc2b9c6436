/**
 * `validatePackage`: PKO's validation of a package (load → manifest/lock → lock consistency →
 * static files or template tests → object validators) as Findings with PKO's exact texts, plus
 * the checks PKO leaves to install time or never makes.
 */
import type { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';
import { toText } from '../core/filemap.js';
import type { CheckContext, ScopeLookup } from './checks/context.js';
import { OBJECT_CHECKS } from './checks/index.js';
import { aggregateText, FieldError, fieldErrorText } from './field-errors.js';
import { decodeNotes, loadPackage, LOCK_FILES, MANIFEST_FILES } from './loader.js';
import { configValuesOf, redactFor, redactValues } from './redact.js';
import { validateLockConsistency } from './lock-consistency.js';
import { validatePackageManifest, validatePackageManifestLock } from './manifest-validation.js';
import { validateObjects } from './object-validators.js';
import { ObjectRef, parseObjects } from './objects.js';
import { formatViolation, LoadedPackage, Violation, ViolationReason } from './types.js';
import { lineOfField } from '../yaml/positions.js';
import { duplicateKeys, type DuplicateKey } from '../yaml/positions.js';
// Loaded only when schemas are checked: the built-in kinds' validators take a second to load,
// and `pkogen build` (PKO rules only) must not pay for them.
import type { SchemaRegistry, SchemaResult } from '../schema/registry.js';

/** One rendered test case, as the template test runner hands it back. */
export interface RenderedTestCase {
  /** '' for the root package. */
  component: string;
  testCase: string;
  /** Namespace of the test case's package (`''` = cluster scope). */
  namespace: string;
  /** Rendered objects, before CEL filtering is irrelevant here: whatever the renderer produced. */
  objects: ObjectRef[];
}

/**
 * Runs PKO's template tests for one (component) package; returns findings (fixture mismatches,
 * template errors, object validator results, in PKO's texts) and the rendered objects.
 */
export type TemplateTestRunner = (pkg: LoadedPackage, component: string) => Promise<{ findings: Finding[]; rendered: RenderedTestCase[] }>;


export interface ValidateOptions {
  /** Template tests (render branch). Without it, static YAML files of every component are validated instead. */
  templateTests?: TemplateTestRunner;
  /**
   * Strict schema validation of every object (unknown fields are errors), and kind scopes.
   * Default: the bundled registry (Kubernetes kinds + reference CRDs); `false` turns it off.
   */
  schema?: SchemaRegistry | false;
  /** Kind scope lookup overriding the registry's (tests); a small builtin table is the last resort. */
  scopeOf?: ScopeLookup;
  /**
   * Renders a (component) package that has templates but no test case, so its objects are
   * checked at all (with schema defaults or a given config). Without it only static files are.
   */
  untestedTemplates?: TemplateTestRunner;
  /** Files the source skipped (symlinks): each is a warning, since PKO ≥ 1.12 drops them too. */
  skippedSymlinks?: string[];
  /** Skip the checks beyond PKO (for `build`, which only needs PKO's verdict). */
  pkoOnly?: boolean;
}

function reasonRule(reason: string): string {
  const entry = Object.entries(ViolationReason).find(([, v]) => v === reason);
  return `pko/${(entry?.[0] ?? 'Unknown').replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`;
}

/** A PKO violation as a Finding; message is exactly PKO's text (with the component prefix PKO adds). */
export function violationFinding(v: Violation, component = '', doc?: number): Finding {
  const prefix = component ? `components/${component}/` : '';
  // PKO names the component once, as the prefix ValidateEachComponent adds; drop a duplicate ` [name]`.
  const text = component && v.component === component ? formatViolation({ reason: v.reason, details: v.details, path: v.path, index: v.index, subject: v.subject }) : v.message;
  const f: Finding = { severity: 'error', rule: reasonRule(v.reason), message: component ? `component "${component}": ${text}` : text };
  if (v.path) f.file = prefix + v.path;
  if (doc !== undefined) f.doc = doc;
  else if (v.index !== undefined) f.doc = v.index;
  if (v.line !== undefined) f.line = v.line;
  return f;
}

/**
 * An object validator's violation: PKO's `idx` counts objects of the file, our `doc` counts YAML
 * documents (empty ones included), so look the document up.
 */
export function objectViolationFinding(v: Violation, component: string, objects: ObjectRef[]): Finding {
  const ref = objects.find((o) => o.path === v.path && o.index === v.index);
  return violationFinding(v, component, ref?.doc);
}

function fieldFindings(errs: FieldError[], file: string, text: string | undefined, component: string, rule: string): Finding[] {
  // PKO reports one aggregate per manifest; we keep one finding per field so each has its line.
  return errs.map((e) => {
    const f: Finding = { severity: 'error', rule, message: (component ? `component "${component}": ` : '') + fieldErrorText(e), file, path: e.field };
    const line = text === undefined ? undefined : lineOfField({ text, firstLine: 1 }, e.field);
    if (line !== undefined) f.line = line;
    return f;
  });
}

/** PKO's own one-line text for the manifest errors of a package (`[a, b]` when several). */
export function pkoManifestErrorText(m: LoadedPackage): string | undefined {
  const errs = [...validatePackageManifest(m.manifest), ...(m.manifestLock ? validatePackageManifestLock(m.manifestLock) : [])];
  return errs.length ? aggregateText(errs) : undefined;
}

function fileText(fm: FileMap, path: string): string | undefined {
  const b = fm.get(path);
  return b === undefined ? undefined : toText(b);
}

function manifestPath(fm: FileMap, prefix: string, names: string[]): string | undefined {
  return names.map((n) => prefix + n).find((p) => fm.has(p));
}

/** One (component) package: `name` '' for the root. */
interface Part {
  name: string;
  pkg: LoadedPackage;
}

/** Objects one validation run will install, for the checks beyond PKO. */
interface ObjectSet {
  objects: ObjectRef[];
  /** Namespace of the test case's package, when a test case rendered the set. */
  namespace?: string;
  testCase?: string;
}

/** What every validator sees; validators add findings and the object sets they rendered or read. */
export interface ValidationRun {
  readonly files: FileMap;
  readonly pkg: LoadedPackage;
  /** Components first (sorted), then the root, as PKO's ValidateEachComponent visits them. */
  readonly parts: readonly Part[];
  readonly opts: ValidateOptions;
  readonly findings: Finding[];
  /** Per part (same index as `parts`): the object sets to check beyond PKO. */
  readonly objectSets: ObjectSet[][];
}

/** A validator as a value, as PKO's are (`PackageValidatorList`). */
export interface Validator {
  readonly id: string;
  /** Where its behaviour comes from: PKO's source, or what it protects against. */
  readonly docs: string;
  run(run: ValidationRun): void | Promise<void>;
}

const PKO_SOURCE = 'package-operator e03279db internal/packages/internal/packagevalidation';

function hasTestCases(p: LoadedPackage): boolean {
  return (p.manifest.test?.template ?? []).length > 0;
}

/**
 * PKO's validators, in PKO's order: `DefaultPackageValidators` (validation.go) and, for a
 * directory, `TemplateTestValidator` (templatevalidation.go; cmd/validate.go appends it).
 * Their findings carry PKO's exact texts.
 */
export const PKO_VALIDATORS: readonly Validator[] = [
  {
    id: 'PackageManifestValidator',
    docs: `${PKO_SOURCE}/validation.go: manifest and lock file field errors, each component then the root`,
    run(r) {
      for (const { name, pkg: p } of r.parts) {
        const prefix = name ? `components/${name}/` : '';
        const mPath = manifestPath(r.files, prefix, MANIFEST_FILES)!;
        r.findings.push(...fieldFindings(validatePackageManifest(p.manifest), mPath, fileText(r.files, mPath), name, 'pko/manifest-invalid'));
        if (p.manifestLock) {
          const lPath = manifestPath(r.files, prefix, LOCK_FILES)!;
          r.findings.push(...fieldFindings(validatePackageManifestLock(p.manifestLock), lPath, fileText(r.files, lPath), name, 'pko/lock-invalid'));
        }
      }
    },
  },
  {
    id: 'LockfileConsistencyValidator',
    docs: `${PKO_SOURCE}/lockfile.go: the lock file against the manifest's images (root only; every mismatch, PKO stops at the first)`,
    run(r) {
      for (const v of validateLockConsistency(r.pkg)) r.findings.push(violationFinding(v));
    },
  },
  {
    id: 'PackageStaticFilesWithoutTestCasesValidator',
    docs: `${PKO_SOURCE}/validation.go: the static YAML files through the default object validators when there is no test case (PKO: the root; we apply it to every component without a template test run, which would have checked the same files)`,
    run(r) {
      r.parts.forEach(({ name, pkg: p }, i) => {
        if (r.opts.templateTests && hasTestCases(p)) return;
        const parsed = parseObjects(p.files);
        for (const v of parsed.violations) r.findings.push(violationFinding(v, name));
        for (const v of validateObjects(parsed.objects, p.manifest)) r.findings.push(objectViolationFinding(v, name, parsed.objects));
        r.objectSets[i].push({ objects: parsed.objects });
      });
    },
  },
  {
    id: 'TemplateTestValidator',
    docs: `${PKO_SOURCE}/templatevalidation.go: every test.template case rendered, object validators, fixtures compared (directories only)`,
    async run(r) {
      if (!r.opts.templateTests) return;
      for (const [i, { name, pkg: p }] of r.parts.entries()) {
        if (!hasTestCases(p)) continue;
        const res = await r.opts.templateTests(p, name);
        r.findings.push(...res.findings);
        for (const rc of res.rendered) r.objectSets[i].push({ objects: rc.objects, namespace: rc.namespace, testCase: rc.testCase });
      }
    },
  },
];

/** Ours, beyond PKO (skipped with `pkoOnly`): warnings and install-time errors PKO's validate does not report. */
export const BEYOND_PKO_VALIDATORS: readonly Validator[] = [
  {
    id: 'untested-templates',
    docs: 'templates without a test case are rendered once (schema defaults or --config) so their objects are checked at all (package/no-test-cases, package/untested-render-failed)',
    async run(r) {
      if (!r.opts.untestedTemplates) return;
      for (const [i, { name, pkg: p }] of r.parts.entries()) {
        if (hasTestCases(p) || ![...p.files.keys()].some((f) => f.endsWith('.gotmpl'))) continue;
        const res = await r.opts.untestedTemplates(p, name);
        r.findings.push(...res.findings);
        // The rendered objects replace the static ones: they are what would be installed.
        if (res.rendered.length) r.objectSets[i] = res.rendered.map((rc) => ({ objects: rc.objects, testCase: rc.testCase }));
      }
    },
  },
  {
    id: 'symlinks',
    docs: 'PKO ≥ v1.12 skips symbolic links (packageimport/fs.go at d628ee7): package/symlink-skipped',
    run(r) {
      for (const s of r.opts.skippedSymlinks ?? []) {
        r.findings.push({ severity: 'warning', rule: 'package/symlink-skipped', message: 'symbolic link skipped: PKO (kubectl-package ≥ v1.12 and the package loader) ignores symlinks, so its target is not part of the package; copy the file instead', file: s });
      }
    },
  },
  {
    id: 'manifest-lint',
    docs: "keys and values Go's JSON decoding ignores or PKO never matches (manifest/*)",
    async run(r) {
      const { checkManifestKeys, checkManifestValues } = await import('./checks/manifest-lint.js');
      const texts = new Map<string, string>();
      for (const p of r.files.keys()) if (/(^|\/)manifest(\.lock)?\.ya?ml$/.test(p)) texts.set(p, toText(r.files.get(p)!));
      r.findings.push(...checkManifestKeys(decodeNotes(r.pkg), texts));
      for (const { name, pkg: p } of r.parts) {
        const mPath = manifestPath(r.files, name ? `components/${name}/` : '', MANIFEST_FILES)!;
        r.findings.push(...checkManifestValues(p.manifest, mPath, texts.get(mPath)));
      }
    },
  },
  {
    id: 'objects',
    docs: 'every object that would be installed, per test case: OBJECT_CHECKS (src/pko/checks/index.ts), strict schemas (schema/*), duplicate YAML keys',
    run: checkObjectSets,
  },
];

export async function validatePackage(fm: FileMap, opts: ValidateOptions = {}): Promise<Finding[]> {
  let pkg: LoadedPackage;
  try {
    // PKO's DefaultStructuralLoader: the first problem stops here.
    pkg = loadPackage(fm);
  } catch (e) {
    if (e instanceof Violation) return [violationFinding(e)];
    throw e;
  }
  const parts: Part[] = [...Object.keys(pkg.components ?? {}).sort().map((name) => ({ name, pkg: pkg.components![name] })), { name: '', pkg }];
  const run: ValidationRun = { files: fm, pkg, parts, opts, findings: [], objectSets: parts.map(() => []) };
  for (const v of PKO_VALIDATORS) await v.run(run);
  if (!opts.pkoOnly) for (const v of BEYOND_PKO_VALIDATORS) await v.run(run);
  return dedupe(run.findings);
}

async function checkObjectSets(r: ValidationRun): Promise<void> {
  const sets = r.parts.flatMap((part, i) => r.objectSets[i].map((set) => ({ part, set })));
  const registry = r.opts.schema === false ? undefined : (r.opts.schema ?? (await import('../schema/registry.js')).createSchemaRegistry());
  if (registry) {
    await addShippedCrds(registry, sets.flatMap((s) => s.set.objects));
    // The bundled CLI loads a kind's validator only when a package has that kind.
    await registry.prepare?.(sets.flatMap((s) => s.set.objects.map((o) => o.object)));
  }
  const scopeOf: ScopeLookup | undefined = r.opts.scopeOf ?? (registry ? (g, v, k) => registry.scopeOf(g ? `${g}/${v}` : v, k) : undefined);
  // One after another: concurrent imports sharing dependencies trip jest's ESM loader.
  const checks: ((ctx: CheckContext) => Finding[])[] = [];
  for (const c of OBJECT_CHECKS) checks.push(await c.load());
  // The static objects come again in every test case's set, most rendered ones in each case:
  // an object's schema result and a text's duplicate keys are computed once per run.
  const schemaMemo = new Map<string, SchemaResult>();
  const dupMemo = new Map<string, DuplicateKey[]>();
  for (const { part, set } of sets) {
    const start = r.findings.length;
    const tc = set.testCase === undefined ? undefined : (part.pkg.manifest.test?.template ?? []).find((t) => t.name === set.testCase);
    const ctx: CheckContext = {
      manifest: part.pkg.manifest,
      filePrefix: part.name ? `components/${part.name}/` : '',
      objects: set.objects,
      packageNamespace: set.namespace === undefined || set.namespace === '' ? undefined : set.namespace,
      scopeOf,
      files: part.pkg.files,
      config: tc?.context?.config,
    };
    for (const check of checks) r.findings.push(...check(ctx));
    if (registry) r.findings.push(...schemaFindings(registry, ctx.filePrefix, set.objects, schemaMemo));
    for (const ref of set.objects) {
      let dups = dupMemo.get(ref.text);
      if (!dups) dupMemo.set(ref.text, (dups = duplicateKeys({ text: ref.text, firstLine: 1 })));
      for (const d of dups) {
        r.findings.push({ severity: 'warning', rule: 'yaml/duplicate-key', message: `key "${d.key}" appears twice in one mapping; PKO keeps the last silently`, file: ctx.filePrefix + ref.path, doc: ref.doc, line: d.line + ref.line - 1 });
      }
    }
    if (set.testCase !== undefined) pointAtTemplates(r.findings.slice(start), part.pkg.files, ctx.filePrefix);
    // Objects a test case rendered hold its config values: no finding about them may quote one.
    const values = tc ? configValuesOf(tc.context?.config) : [];
    if (values.length) for (let k = start; k < r.findings.length; k++) r.findings[k] = { ...r.findings[k], message: redactValues(r.findings[k].message, values) };
  }
}

/**
 * A package that ships a CRD installs it before (or with) its CRs: validate those CRs against it,
 * as the API server will. A malformed CRD is left to its own schema findings.
 */
async function addShippedCrds(registry: SchemaRegistry, objects: ObjectRef[]): Promise<void> {
  const { crdFromObject } = await import('../schema/crd.js');
  const crds = [];
  for (const ref of objects) {
    const o = ref.object;
    if (o.kind !== 'CustomResourceDefinition' || typeof o.apiVersion !== 'string' || !o.apiVersion.startsWith('apiextensions.k8s.io/')) continue;
    try {
      const crd = crdFromObject(o, ref.path);
      if (crd) crds.push(crd);
    } catch {
      // reported by the CRD's own schema validation
    }
  }
  registry.addPackageCrds(crds);
}

/** Strict schema validation; a kind without a schema is a warning (pass `--crd` for it). */
function schemaFindings(registry: SchemaRegistry, filePrefix: string, objects: ObjectRef[], memo: Map<string, SchemaResult>): Finding[] {
  const out: Finding[] = [];
  for (const ref of objects) {
    const key = memoKey(ref);
    let r = key === undefined ? undefined : memo.get(key);
    if (!r) {
      r = registry.validate(ref.object);
      if (key !== undefined) memo.set(key, r);
    }
    const at = (path: string) => lineOfField({ text: ref.text, firstLine: ref.line }, path);
    if (!r.known) {
      if (r.issues.length === 0) {
        const f: Finding = { severity: 'warning', rule: 'schema/unknown-kind', message: `no schema for ${String(ref.object.apiVersion)} ${String(ref.object.kind)} (${r.reason}); its fields are not checked: pass its CRD with --crd or ship it in the package`, file: filePrefix + ref.path, doc: ref.doc, path: 'kind' };
        const line = at('kind');
        if (line !== undefined) f.line = line;
        out.push(f);
      }
      continue;
    }
    for (const i of r.issues) {
      const f: Finding = { severity: 'error', rule: `schema/${i.keyword ?? 'invalid'}`, message: redactFor(ref.object, i.path, i.message), file: filePrefix + ref.path, doc: ref.doc, path: i.path };
      const line = at(i.path);
      if (line !== undefined) f.line = line;
      out.push(f);
    }
  }
  return out;
}

/**
 * The key under which an object's schema result is kept: its document's text and its JSON (the
 * same text parses to the same object; the JSON guards against an object changed after parsing).
 * None when the object has no JSON form.
 */
function memoKey(ref: ObjectRef): string | undefined {
  try {
    return `${ref.text}\u0000${JSON.stringify(ref.object)}`;
  } catch {
    return undefined;
  }
}

/**
 * A finding in a rendered `.gotmpl` output names the template (the file a user edits), with the
 * document and field path; a line of the rendered text would not be a line of the template.
 */
function pointAtTemplates(fs: Finding[], files: FileMap, prefix: string): void {
  for (const f of fs) {
    if (f.file === undefined || !f.file.startsWith(prefix)) continue;
    const rel = f.file.slice(prefix.length);
    if (files.has(rel)) continue;
    if (files.has(`${rel}.gotmpl`)) {
      f.file = `${f.file}.gotmpl`;
      delete f.line;
      delete f.column;
    }
  }
}

/** Several test cases render the same file: report each finding once (lines may shift between cases). */
function dedupe(fs: Finding[]): Finding[] {
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const f of fs) {
    const k = JSON.stringify([f.severity, f.rule, f.message, f.file, f.doc, f.path]);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(f);
  }
  return out;
}

/**
 * Warnings `--strict` does not promote: they say what could not be checked, not what is wrong
 * (a kind without a schema is common and legitimate: ServiceMonitor on a cluster with its CRD).
 */
export const NOT_PROMOTED_BY_STRICT: ReadonlySet<string> = new Set(['schema/unknown-kind']);

export function hasErrors(fs: Finding[], strict = false): boolean {
  return fs.some((f) => f.severity === 'error' || (strict && f.severity === 'warning' && !NOT_PROMOTED_BY_STRICT.has(f.rule)));
}
