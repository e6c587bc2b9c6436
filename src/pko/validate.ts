/**
 * `validatePackage`: PKO's validation of a package (load → manifest/lock → lock consistency →
 * static files or template tests → object validators) as Findings with PKO's exact texts, plus
 * the checks PKO leaves to install time or never makes.
 */
import type { Finding } from '../core/errors.js';
import type { FileMap } from '../core/filemap.js';
import { toText } from '../core/filemap.js';
import type { CheckContext, ScopeLookup } from './checks/context.js';
import { aggregateText, FieldError, fieldErrorText } from './field-errors.js';
import { decodeNotes, loadPackage, LOCK_FILES, MANIFEST_FILES } from './loader.js';
import { redactFor } from './redact.js';
import { validateLockConsistency } from './lock-consistency.js';
import { validatePackageManifest, validatePackageManifestLock } from './manifest-validation.js';
import { validateObjects } from './object-validators.js';
import { ObjectRef, parseObjects } from './objects.js';
import { formatViolation, LoadedPackage, Violation, ViolationReason } from './types.js';
import { lineOfField } from './field-path.js';
import { duplicateKeys } from '../yaml/positions.js';
// Loaded only when schemas are checked: the built-in kinds' validators take a second to load,
// and `pkogen build` (PKO rules only) must not pay for them.
import type { SchemaRegistry } from '../schema/registry.js';

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

export async function validatePackage(fm: FileMap, opts: ValidateOptions = {}): Promise<Finding[]> {
  const findings: Finding[] = [];
  let pkg: LoadedPackage;
  try {
    pkg = loadPackage(fm);
  } catch (e) {
    if (e instanceof Violation) return [violationFinding(e)];
    throw e;
  }
  const parts: { name: string; pkg: LoadedPackage }[] = [
    ...Object.keys(pkg.components ?? {}).sort().map((name) => ({ name, pkg: pkg.components![name] })),
    { name: '', pkg },
  ];

  // PackageManifestValidator: components first, then root.
  for (const { name, pkg: p } of parts) {
    const prefix = name ? `components/${name}/` : '';
    const mPath = manifestPath(fm, prefix, MANIFEST_FILES)!;
    findings.push(...fieldFindings(validatePackageManifest(p.manifest), mPath, fileText(fm, mPath), name, 'pko/manifest-invalid'));
    if (p.manifestLock) {
      const lPath = manifestPath(fm, prefix, LOCK_FILES)!;
      findings.push(...fieldFindings(validatePackageManifestLock(p.manifestLock), lPath, fileText(fm, lPath), name, 'pko/lock-invalid'));
    }
  }
  // LockfileConsistencyValidator: root only.
  for (const v of validateLockConsistency(pkg)) findings.push(violationFinding(v));

  // Objects: template tests when a runner is given; otherwise the static files (PKO's validator for packages without test cases).
  const objectSets: { name: string; pkg: LoadedPackage; objects: ObjectRef[]; namespace?: string; testCase?: string }[] = [];
  for (const { name, pkg: p } of parts) {
    const hasTests = (p.manifest.test?.template ?? []).length > 0;
    if (opts.templateTests && hasTests) {
      const r = await opts.templateTests(p, name);
      findings.push(...r.findings);
      for (const rc of r.rendered) objectSets.push({ name, pkg: p, objects: rc.objects, namespace: rc.namespace, testCase: rc.testCase });
    } else {
      // PKO runs the static-files validator for a root without test cases. Without a renderer we
      // apply it to every component too: template tests would have checked those same files.
      const parsed = parseObjects(p.files);
      for (const v of parsed.violations) findings.push(violationFinding(v, name));
      for (const v of validateObjects(parsed.objects, p.manifest)) findings.push(objectViolationFinding(v, name, parsed.objects));
      const hasTemplates = [...p.files.keys()].some((f) => f.endsWith('.gotmpl'));
      if (opts.untestedTemplates && hasTemplates && !hasTests && !opts.pkoOnly) {
        const r = await opts.untestedTemplates(p, name);
        findings.push(...r.findings);
        if (r.rendered.length) {
          for (const rc of r.rendered) objectSets.push({ name, pkg: p, objects: rc.objects, testCase: rc.testCase });
          continue;
        }
      }
      objectSets.push({ name, pkg: p, objects: parsed.objects });
    }
  }
  for (const s of opts.skippedSymlinks ?? []) {
    findings.push({ severity: 'warning', rule: 'package/symlink-skipped', message: 'symbolic link skipped: PKO (kubectl-package ≥ v1.12 and the package loader) ignores symlinks, so its target is not part of the package; copy the file instead', file: s });
  }

  if (opts.pkoOnly) return dedupe(findings);

  // Beyond PKO (loaded here: `build` validates with PKO's rules only and skips them).
  // One after another: concurrent imports sharing dependencies trip jest's ESM loader.
  const { checkAnnotationValues } = await import('./checks/annotation-values.js');
  const { checkManifestKeys, checkManifestValues } = await import('./checks/manifest-lint.js');
  const { checkScope } = await import('./checks/scope.js');
  const { checkSecretMaterial } = await import('./checks/secret-material.js');
  const { checkWebhookGating } = await import('./checks/webhook-gating.js');
  const { checkPodSecurity, checkRbac } = await import('./checks/workload-safety.js');
  const { checkRevisionSafety } = await import('./checks/revision-safety.js');
  const texts = new Map<string, string>();
  for (const p of fm.keys()) if (/(^|\/)manifest(\.lock)?\.ya?ml$/.test(p)) texts.set(p, toText(fm.get(p)!));
  findings.push(...checkManifestKeys(decodeNotes(pkg), texts));
  for (const { name, pkg: p } of parts) {
    const prefix = name ? `components/${name}/` : '';
    const mPath = manifestPath(fm, prefix, MANIFEST_FILES)!;
    findings.push(...checkManifestValues(p.manifest, mPath, texts.get(mPath)));
  }
  const registry = opts.schema === false ? undefined : (opts.schema ?? (await import('../schema/registry.js')).createSchemaRegistry());
  if (registry) {
    await addShippedCrds(registry, objectSets.flatMap((s) => s.objects));
    await registry.prepare?.(objectSets.flatMap((s) => s.objects.map((r) => r.object)));
  }
  const scopeOf: ScopeLookup | undefined =
    opts.scopeOf ?? (registry ? (g, v, k) => registry.scopeOf(g ? `${g}/${v}` : v, k) : undefined);
  for (const set of objectSets) {
    const start = findings.length;
    const ctx: CheckContext = {
      manifest: set.pkg.manifest,
      filePrefix: set.name ? `components/${set.name}/` : '',
      objects: set.objects,
      packageNamespace: set.namespace === undefined || set.namespace === '' ? undefined : set.namespace,
      scopeOf,
      files: set.pkg.files,
    };
    findings.push(...checkScope(ctx), ...checkAnnotationValues(ctx), ...checkWebhookGating(ctx), ...checkPodSecurity(ctx), ...checkRbac(ctx), ...checkSecretMaterial(ctx), ...checkRevisionSafety(ctx));
    if (registry) findings.push(...schemaFindings(registry, ctx.filePrefix, set.objects));
    for (const ref of set.objects) {
      for (const d of duplicateKeys({ text: ref.text, firstLine: ref.line })) {
        findings.push({ severity: 'warning', rule: 'yaml/duplicate-key', message: `key "${d.key}" appears twice in one mapping; PKO keeps the last silently`, file: ctx.filePrefix + ref.path, doc: ref.doc, line: d.line });
      }
    }
    if (set.testCase !== undefined) pointAtTemplates(findings.slice(start), set.pkg.files, ctx.filePrefix);
  }
  return dedupe(findings);
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
function schemaFindings(registry: SchemaRegistry, filePrefix: string, objects: ObjectRef[]): Finding[] {
  const out: Finding[] = [];
  for (const ref of objects) {
    const r = registry.validate(ref.object);
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
