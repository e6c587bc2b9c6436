/**
 * Kubernetes label selectors as Hive, ACM and config-policy-controller evaluate them, including
 * the trap that matters here: an empty or absent selector matches everything
 * (metav1.LabelSelectorAsSelector → labels.Everything()).
 */
import { globMatches, GlobSyntaxError } from '../core/glob.js';
import { isObj } from '../core/guards.js';

export type Labels = Record<string, string>;

export interface LabelSelector {
  matchLabels?: Record<string, unknown> | null;
  matchExpressions?: { key?: unknown; operator?: unknown; values?: unknown }[] | null;
}


/** True when the selector selects everything: absent, null, `{}`, or both parts empty. */
export function isEmptySelector(sel: unknown): boolean {
  if (!isObj(sel)) return true;
  const ml = sel.matchLabels;
  const me = sel.matchExpressions;
  const hasLabels = isObj(ml) && Object.keys(ml).length > 0;
  const hasExpr = Array.isArray(me) && me.length > 0;
  return !hasLabels && !hasExpr;
}

/** Throws on an invalid operator (the API would reject it). */
export function matchesSelector(sel: unknown, labels: Labels): boolean {
  if (!isObj(sel)) return true;
  if (isObj(sel.matchLabels)) {
    for (const [k, v] of Object.entries(sel.matchLabels)) if (labels[k] !== String(v)) return false;
  }
  if (Array.isArray(sel.matchExpressions)) {
    for (const e of sel.matchExpressions) {
      if (!isObj(e)) continue;
      const key = String(e.key);
      const values = Array.isArray(e.values) ? e.values.map(String) : [];
      const has = Object.prototype.hasOwnProperty.call(labels, key);
      switch (e.operator) {
        case 'In':
          if (!has || !values.includes(labels[key])) return false;
          break;
        case 'NotIn':
          if (has && values.includes(labels[key])) return false;
          break;
        case 'Exists':
          if (!has) return false;
          break;
        case 'DoesNotExist':
          if (has) return false;
          break;
        default:
          throw new Error(`invalid label selector operator ${JSON.stringify(e.operator)}`);
      }
    }
  }
  return true;
}

/** Go's filepath.Match for the patterns config-policy-controller accepts in include/exclude (a malformed pattern matches nothing). */
export function globMatch(pattern: string, name: string): boolean {
  try {
    return globMatches(pattern, name, 'filepath');
  } catch (e) {
    if (e instanceof GlobSyntaxError) return false;
    throw e;
  }
}

/**
 * config-policy-controller's namespaceSelector: include globs (default `*` when only labels are
 * given), exclude globs, label selector; terminating namespaces per terminatingInclusion.
 * Returns null when the selector is empty (the controller then selects no namespace).
 */
export function selectNamespaces(
  sel: unknown,
  namespaces: { name: string; labels: Labels; terminating?: boolean }[],
): string[] | null {
  if (!isObj(sel)) return null;
  const include = Array.isArray(sel.include) ? sel.include.map(String) : [];
  const exclude = Array.isArray(sel.exclude) ? sel.exclude.map(String) : [];
  const hasLabels = !isEmptySelector(sel);
  if (include.length === 0 && !hasLabels) return null;
  const inc = include.length > 0 ? include : ['*'];
  const out: string[] = [];
  for (const ns of namespaces) {
    if (!inc.some((p) => globMatch(p, ns.name))) continue;
    if (exclude.some((p) => globMatch(p, ns.name))) continue;
    if (hasLabels && !matchesSelector({ matchLabels: sel.matchLabels as Record<string, unknown>, matchExpressions: sel.matchExpressions as LabelSelector['matchExpressions'] }, ns.labels)) continue;
    if (ns.terminating && sel.terminatingInclusion === 'Never') continue;
    out.push(ns.name);
  }
  return out.sort();
}
