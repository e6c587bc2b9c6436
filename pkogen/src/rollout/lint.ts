/**
 * Lints a rollout Template (docs/rollout-reference.md §10, rules T1–K2) after filling its
 * parameters the way app-interface does (§2), so what is checked is what hive, ACM and PKO get.
 * Every finding names the object chain, the field path in the Template and the source line.
 */
import type { Finding, Severity } from '../core/errors.js';
import { redactFor } from '../pko/redact.js';
import { KNOWN_FIELDS } from './fields.js';
import { fillLikeSaasherder, processTemplate, readParameters } from './process.js';
import { formatPath, lineOf, type LoadedTemplate, loadTemplate, type Path } from './source.js';
import { isObj, objName, str, type LintContext, type Obj, type RolloutRule, type SchemaValidator, type Site, type TemplateRenderer } from './rules/context.js';
import { checkConfigurationPolicy, checkDelimiters, C1 } from './rules/configurationpolicy.js';
import { checkAgainstPackage, checkHostedClusterPackage, checkObjectTemplate, checkPackageObject, isPkoPackage, type PackageObjectCheck } from './rules/package.js';
import { checkBindings, checkPlacementFields, checkPlacementRule } from './rules/placement.js';
import { checkPolicy, P5 } from './rules/policy.js';
import { checkSelectorSyncSet, checkTopLevelObject, S5 } from './rules/selectorsyncset.js';
import { checkParameterValues, checkTemplate, placesPackage, T1, T4 } from './rules/template.js';

export type { SchemaValidator, PackageObjectCheck };
export { isPkoPackage };
export { ROLLOUT_RULES, type RolloutRule } from './rules/index.js';

export interface LintOptions {
  /** Parameters as the SaaS file gives them (`-p NAME=VALUE`). */
  parameters?: Record<string, string>;
  /** Strict CRD validation of every nested object; the built-in field table is used besides. */
  schema?: SchemaValidator;
  hashLength?: number;
  /** Go template engine (PKO functions) to render ObjectTemplates with sample sources. */
  renderTemplate?: TemplateRenderer;
  /**
   * The package the (Cluster)Packages point at: checks one Package object's scope and config
   * against the package manifest (`--package`). Problems are relative to the Package object.
   */
  checkPackage?: PackageObjectCheck;
}

export interface LintResult {
  findings: Finding[];
  /** Parameter values used, with their origin (secrets are never in a Template parameter default we print). */
  parameters: Record<string, { value: string; origin: string }>;
  /** Processed objects (for simulate), undefined when the file could not be read. */
  objects?: unknown[];
  template?: LoadedTemplate;
}

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

type KindCheck = (ctx: LintContext, obj: Obj, path: Path, chain: string) => void;

/** A (Cluster)Package hive applies itself (the classic rollout); another package-operator kind is just fields. */
const carriedPackage: KindCheck = (ctx, o, path, chain) => (isPkoPackage(o) ? checkPackageObject(ctx, o, path, chain) : ctx.fields(o, path, chain, S5));

/**
 * The traversal as data: at each place in the object chain, the checks for each kind, and the
 * rule whose unknown-field and CRD findings any other kind gets.
 */
const CHECKS_AT: Record<Site, { byKind: Record<string, KindCheck>; otherwise: RolloutRule }> = {
  'sss-resource': {
    byKind: {
      Policy: checkPolicy,
      PlacementRule: checkPlacementRule,
      Placement: checkPlacementFields,
      ManagedClusterSetBinding: checkPlacementFields,
      PlacementBinding: checkPlacementFields,
      Package: carriedPackage,
      ClusterPackage: carriedPackage,
    },
    otherwise: S5,
  },
  'policy-template': { byKind: { ConfigurationPolicy: checkConfigurationPolicy }, otherwise: P5 },
  'object-template': {
    byKind: { Package: checkPackageObject, ClusterPackage: checkPackageObject, ObjectTemplate: checkObjectTemplate, HostedClusterPackage: checkHostedClusterPackage },
    otherwise: C1,
  },
};

/** The kinds a rollout is made of: the top level's SelectorSyncSet and every kind a site checks. */
export const ROLLOUT_KINDS: readonly string[] = ['SelectorSyncSet', ...new Set(Object.values(CHECKS_AT).flatMap((at) => Object.keys(at.byKind)))];

/** Loading, parameter filling, traversal and reporting; the rules live in ./rules/. */
class Walker implements LintContext {
  readonly findings: Finding[] = [];
  readonly cfgPolicyNames = new Map<string, string>();
  readonly packages: { obj: Obj; path: Path; chain: string; rendered?: boolean }[] = [];
  readonly unknownValues = new Set<string>();
  private readonly deferred: { obj: Obj; path: Path; chain: string; rule: RolloutRule }[] = [];

  constructor(readonly template: LoadedTemplate, readonly schema?: SchemaValidator, readonly renderTemplate?: TemplateRenderer) {}

  report(severity: Severity, rule: RolloutRule, path: Path, message: string, object?: string): void {
    const f: Finding = { severity, rule: rule.id, message, file: this.template.file };
    const p = formatPath(path);
    if (p) f.path = p;
    const line = lineOf(this.template, path);
    if (line !== undefined) f.line = line;
    if (object !== undefined) f.object = object;
    this.findings.push(f);
  }

  fields(obj: Obj, path: Path, chain: string, rule: RolloutRule): void {
    const kind = str(obj.kind);
    const table = kind ? KNOWN_FIELDS[kind] : undefined;
    if (table) {
      for (const [sub, known] of Object.entries(table)) {
        const subPath = sub === '' ? [] : sub.split('.');
        let v: unknown = obj;
        for (const p of subPath) v = isObj(v) ? v[p] : undefined;
        if (!isObj(v)) continue;
        for (const k of Object.keys(v)) {
          if (!known.includes(k)) {
            this.report('error', rule, [...path, ...subPath, k], `unknown field "${[...subPath, k].join('.')}" in ${kind} (the API server rejects it with strict field validation, older ones drop it silently)`, chain);
          }
        }
      }
    }
    if (this.schema) this.deferred.push({ obj, path, chain, rule });
  }

  /** CRD validation runs last so that a rule's own, more specific finding on a path wins. */
  schemaChecks(): void {
    if (!this.schema) return;
    const taken = new Set(this.findings.filter((f) => f.severity === 'error').map((f) => f.path ?? ''));
    for (const d of this.deferred) {
      let problems: { path: Path; message: string }[] | undefined;
      try {
        problems = this.schema(d.obj);
      } catch (e) {
        this.report('error', d.rule, d.path, `schema validation failed: ${redactFor(d.obj, '', (e as Error).message)}`, d.chain);
        continue;
      }
      if (problems === undefined) {
        this.report('info', d.rule, d.path, `no CRD known for ${String(d.obj.apiVersion)} ${String(d.obj.kind)}: not schema-checked`, d.chain);
        continue;
      }
      for (const p of problems) {
        const full = formatPath([...d.path, ...p.path]);
        if (taken.has(full) || [...taken].some((t) => t !== '' && full.startsWith(t + '.'))) continue;
        taken.add(full);
        this.report('error', d.rule, [...d.path, ...p.path], `${redactFor(d.obj, formatPath(p.path), p.message)} (CRD ${String(d.obj.kind)})`, d.chain);
      }
    }
  }

  name(obj: Obj, path: Path, chain: string, rule: RolloutRule): string | undefined {
    const md = obj.metadata;
    const n = isObj(md) ? md.name : undefined;
    if (typeof n !== 'string' || n === '') {
      this.report('error', rule, [...path, 'metadata', 'name'], 'metadata.name is missing', chain);
      return undefined;
    }
    if (n.length > 253 || !DNS_SUBDOMAIN.test(n)) {
      this.report('error', rule, [...path, 'metadata', 'name'], `metadata.name ${JSON.stringify(n)} is not a DNS-1123 subdomain (lowercase alphanumerics, '-', '.', at most 253 characters)`, chain);
    }
    return n;
  }

  visit(site: Site, obj: Obj, path: Path, chain: string): void {
    const at = CHECKS_AT[site];
    const kind = String(obj.kind);
    const check = Object.hasOwn(at.byKind, kind) ? at.byKind[kind] : undefined;
    if (check) check(this, obj, path, chain);
    else this.fields(obj, path, chain, at.otherwise);
    // Every string a hub resource carries passes through several template layers.
    if (site === 'sss-resource') checkDelimiters(this, obj, path, chain);
  }

  run(given: Record<string, string>, hashLength?: number, checkPackage?: PackageObjectCheck): LintResult {
    const rawObjects = checkTemplate(this);
    if (!rawObjects) return { findings: this.findings, parameters: {}, template: this.template };
    const declared = readParameters(this.template.value);
    const fill = fillLikeSaasherder({ given, declared, placeholders: true, hashLength });
    for (const [k, o] of Object.entries(fill.origin)) if (o === 'placeholder' && fill.values[k] !== undefined) this.unknownValues.add(fill.values[k]);
    checkParameterValues(this, declared, fill, given);
    const processed = processTemplate(this.template.value, fill.values);
    for (const p of processed.problems) this.report('error', T1, p.path, p.message);
    const parameters: LintResult['parameters'] = {};
    for (const [k, val] of Object.entries(processed.values)) parameters[k] = { value: val, origin: fill.origin[k] ?? (given[k] !== undefined ? 'given' : 'default') };

    processed.objects.forEach((o, i) => {
      const path: Path = ['objects', i];
      if (!isObj(o)) {
        this.report('error', T1, path, 'an object must be a mapping');
        return;
      }
      if (o.kind !== 'SelectorSyncSet') {
        checkTopLevelObject(this, o, path);
        if (isPkoPackage(o)) checkPackageObject(this, o, path, objName(o));
        return;
      }
      const byKind = checkSelectorSyncSet(this, o, path);
      checkBindings(this, byKind, objName(o));
    });
    if (!placesPackage(processed.objects)) this.report('error', T4, ['objects'], 'the Template places no Package or ClusterPackage (none at the top level, in a SelectorSyncSet, or in a Policy\'s object templates): it installs nothing');
    this.schemaChecks();
    if (checkPackage) checkAgainstPackage(this, checkPackage);
    return { findings: this.findings, parameters, objects: processed.objects, template: this.template };
  }
}

export { balance } from './delimiters.js';

/** Lints one Template text. Never throws for bad input: problems are findings. */
export function lintRolloutTemplate(file: string, text: string, opts: LintOptions = {}): LintResult {
  const loaded = loadTemplate(file, text);
  if (!('value' in loaded)) {
    return { findings: [{ severity: 'error', rule: T1.id, message: loaded.message, file, line: loaded.line, column: loaded.column }], parameters: {} };
  }
  const w = new Walker(loaded, opts.schema, opts.renderTemplate);
  const res = w.run(opts.parameters ?? {}, opts.hashLength, opts.checkPackage);
  res.findings.sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || a.rule.localeCompare(b.rule) || a.message.localeCompare(b.message));
  return res;
}


/**
 * For a generation run: errors and warnings (info is advice for people, not a generation check),
 * with the rule id prefixed `rollout/` so it cannot be taken for a package rule.
 */
export function asFindings(findings: Finding[]): Finding[] {
  return findings.filter((f) => f.severity !== 'info').map((f) => ({ ...f, rule: `rollout/${f.rule}` }));
}
