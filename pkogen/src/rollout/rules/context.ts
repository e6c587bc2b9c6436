/**
 * What a rollout rule family sees: the rule values it reports under, and the walker's services
 * (reporting with the object chain and source line, the shared field/name checks, and `visit`,
 * which hands a nested object to the checks for its kind). Families never import each other:
 * the walker (../lint.ts) owns the traversal.
 */
import type { Severity } from '../../core/errors.js';
import type { LoadedTemplate, Path } from '../source.js';

/** A rule as data: what `lint-rollout` can report and where it is explained. */
export interface RolloutRule {
  /** Stable id, as in docs/rollout.md and the rollout reference §10 (T1–K2). */
  readonly id: string;
  /** The most severe finding the rule reports; some of its findings are lower (advice). */
  readonly severity: Severity;
  /** One line for the rule table. */
  readonly summary: string;
  /** Where the behaviour behind the rule is explained. */
  readonly docs: string;
}

export type Obj = Record<string, unknown>;

import { isObj, str } from '../../core/guards.js';
export { isObj, str };

/** `Kind/name` for an object chain. */
export function objName(o: unknown): string {
  if (!isObj(o)) return '?';
  const md = isObj(o.metadata) ? o.metadata : {};
  return `${str(o.kind) ?? '?'}/${str(md.name) ?? '?'}`;
}

/** A CRD validator for one object: problems (path relative to the object), or undefined for an unknown kind. */
export type SchemaValidator = (obj: Record<string, unknown>) => { path: Path; message: string }[] | undefined;

/** Renders a Go text/template with PKO's functions; throws on template errors. */
export type TemplateRenderer = (name: string, text: string, data: Record<string, unknown>) => string;

/**
 * Where a nested object sits, which decides the checks it gets: a resource of a SelectorSyncSet,
 * the objectDefinition of a Policy's policy-template, or of a ConfigurationPolicy's object-template.
 */
export type Site = 'sss-resource' | 'policy-template' | 'object-template';

export interface LintContext {
  readonly template: LoadedTemplate;
  readonly schema?: SchemaValidator;
  readonly renderTemplate?: TemplateRenderer;
  report(severity: Severity, rule: RolloutRule, path: Path, message: string, object?: string): void;
  /** Unknown fields (the built-in table) now, CRD validation at the end, both under `rule`. */
  fields(obj: Obj, path: Path, chain: string, rule: RolloutRule): void;
  /** Checks metadata.name (present, DNS-1123 subdomain); returns it when present. */
  name(obj: Obj, path: Path, chain: string, rule: RolloutRule): string | undefined;
  /** Runs the checks for `obj`'s kind at `site` (the walker's table). */
  visit(site: Site, obj: Obj, path: Path, chain: string): void;
  /** ConfigurationPolicy name → first Policy path using it (P4 across policies). */
  readonly cfgPolicyNames: Map<string, string>;
  /**
   * Package/ClusterPackage objects seen, for the `--package` check (K2); `rendered`: a Package an
   * ObjectTemplate renders to (its paths are not in the Template: findings stay on the template).
   */
  readonly packages: { obj: Obj; path: Path; chain: string; rendered?: boolean }[];
  /**
   * Values lint made up (placeholders for parameters the SaaS file sets, sample source values):
   * a config key holding one is not checked against the package's schema (K2), its real value is unknown.
   */
  readonly unknownValues: Set<string>;
}

/** Resources of one SelectorSyncSet by kind, for the checks across them (B1, B3). */
export type ResourcesByKind = Map<string, { obj: Obj; path: Path; name: string; ns?: string }[]>;

/** Label-selector operators and values, as the API server checks them (S2, B2). */
export function checkSelectorOperators(ctx: LintContext, sel: unknown, path: Path, chain: string, rule: RolloutRule): void {
  if (!isObj(sel)) return;
  (Array.isArray(sel.matchExpressions) ? sel.matchExpressions : []).forEach((e, i) => {
    const op = isObj(e) ? e.operator : undefined;
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(String(op))) {
      ctx.report('error', rule, [...path, 'matchExpressions', i, 'operator'], `operator must be In, NotIn, Exists or DoesNotExist, not ${JSON.stringify(op)}`, chain);
    } else if ((op === 'In' || op === 'NotIn') && !(isObj(e) && Array.isArray(e.values) && e.values.length > 0)) {
      ctx.report('error', rule, [...path, 'matchExpressions', i, 'values'], `operator ${String(op)} needs a non-empty values list`, chain);
    }
  });
}

/** The label keys a selector mentions (matchLabels and matchExpressions). */
export function selectorKeys(sel: Obj): string[] {
  return [...Object.keys(isObj(sel.matchLabels) ? sel.matchLabels : {}), ...(Array.isArray(sel.matchExpressions) ? sel.matchExpressions.map((e) => String(isObj(e) ? e.key : '')) : [])];
}
