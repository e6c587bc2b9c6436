/**
 * Label and field selector strings as the Kubernetes API reads them from `labelSelector` and
 * `fieldSelector`; evaluation reuses the project's structured matcher (src/rollout/selectors.ts).
 */
import { LabelSelector, matchesSelector } from '../../src/rollout/selectors.js';
import { StatusError } from './status.js';

/**
 * Parses a label selector string (`a=b,c!=d,e in (x,y),f notin (z),g,!h`) into the structured form
 * the project's matcher (src/rollout/selectors.ts) evaluates.
 */
export function parseLabelSelector(s: string): LabelSelector {
  const exprs: { key: string; operator: string; values?: string[] }[] = [];
  const text = s.trim();
  if (text === '') return {};
  // Split on commas outside parentheses.
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const c of text) {
    if (c === '(') depth++;
    if (c === ')') depth--;
    if (depth < 0) throw new StatusError(400, `unable to parse requirement: unbalanced ")" in label selector ${JSON.stringify(s)}`);
    if (c === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += c;
  }
  if (depth !== 0) throw new StatusError(400, `unable to parse requirement: unbalanced "(" in label selector ${JSON.stringify(s)}`);
  parts.push(cur);
  const KEY = '[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?';
  const VALUE = '([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)?';
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpMatchArray | null;
    if ((m = p.match(new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`)))) {
      exprs.push({ key: m[1], operator: m[3] === '!=' ? 'NotIn' : 'In', values: [m[4]] });
    } else if ((m = p.match(new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^()]*)\\)$`)))) {
      const values = m[4].split(',').map((v) => v.trim());
      if (values.some((v) => !new RegExp(`^${VALUE}$`).test(v))) throw new StatusError(400, `unable to parse requirement: invalid value in ${JSON.stringify(p)}`);
      exprs.push({ key: m[1], operator: m[3] === 'in' ? 'In' : 'NotIn', values });
    } else if ((m = p.match(new RegExp(`^!\\s*(${KEY})$`)))) {
      exprs.push({ key: m[1], operator: 'DoesNotExist' });
    } else if ((m = p.match(new RegExp(`^(${KEY})$`)))) {
      exprs.push({ key: m[1], operator: 'Exists' });
    } else {
      throw new StatusError(400, `unable to parse requirement: ${JSON.stringify(p)} in label selector ${JSON.stringify(s)}`);
    }
  }
  return { matchExpressions: exprs };
}

export interface FieldReq {
  field: 'metadata.name' | 'metadata.namespace';
  equal: boolean;
  value: string;
}

export function parseFieldSelector(s: string): FieldReq[] {
  const out: FieldReq[] = [];
  if (s.trim() === '') return out;
  for (const raw of s.split(',')) {
    const m = raw.trim().match(/^([A-Za-z0-9_.]+)\s*(==|=|!=)\s*(.*)$/);
    if (!m) throw new StatusError(400, `invalid field selector: ${JSON.stringify(raw.trim())}: expected field=value or field!=value`);
    if (m[1] !== 'metadata.name' && m[1] !== 'metadata.namespace') {
      throw new StatusError(400, `field label not supported: ${m[1]} (this test server selects on "metadata.name" and "metadata.namespace" only)`);
    }
    out.push({ field: m[1], equal: m[2] !== '!=', value: m[3] });
  }
  return out;
}

export interface Filter {
  namespace: string;
  labels?: LabelSelector;
  fields: FieldReq[];
}

export function matches(f: Filter, obj: { metadata?: Record<string, any> }): boolean {
  const md = obj.metadata ?? {};
  if (f.namespace && md.namespace !== f.namespace) return false;
  for (const r of f.fields) {
    const v = r.field === 'metadata.name' ? md.name : md.namespace ?? '';
    if ((v === r.value) !== r.equal) return false;
  }
  return !f.labels || matchesSelector(f.labels, (md.labels ?? {}) as Record<string, string>);
}
