/**
 * ACM managed-cluster templates for simulate: `object-templates-raw` resolved the way
 * config-policy-controller does (docs/rollout-reference.md §6.1–6.2), against one management
 * cluster of the fleet. Go text/template with the sprig functions plus the ACM lookups that read
 * cluster state (`lookup`, `fromConfigMap`); functions that would read secrets are refused, so no
 * secret can reach an output. Missing map keys evaluate as in Go's default (`not .x` is true),
 * which is what the real raw templates rely on (`if not .metadata.deletionTimestamp`).
 */
import { sprigFuncs } from '../gotemplate/funcs/index.js';
import { fromJs } from '../gotemplate/funcs/json.js';
import { TemplateSet } from '../gotemplate/template.js';
import type { FuncMap, GoValue } from '../gotemplate/types.js';
import { parseYaml11 } from '../yaml/parse.js';
import type { FleetManagedCluster } from './fleet.js';
import { Labels, matchesSelector } from './selectors.js';

type Req = { key: string; operator: string; values: string[] };

/** labels.Parse syntax: `a=b`, `a==b`, `a!=b`, `a in (x,y)`, `a notin (x)`, `a`, `!a`, comma-joined. */
export function parseLabelSelector(s: string): Req[] {
  const out: Req[] = [];
  const parts: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  if (cur.trim() !== '') parts.push(cur);
  for (const raw of parts) {
    const p = raw.trim();
    let m: RegExpExecArray | null;
    if ((m = /^(\S+?)\s*(==|=|!=)\s*(\S*)$/.exec(p))) out.push({ key: m[1], operator: m[2] === '!=' ? 'NotIn' : 'In', values: [m[3]] });
    else if ((m = /^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/.exec(p))) out.push({ key: m[1], operator: m[2] === 'in' ? 'In' : 'NotIn', values: m[3].split(',').map((x) => x.trim()) });
    else if ((m = /^!(\S+)$/.exec(p))) out.push({ key: m[1], operator: 'DoesNotExist', values: [] });
    else if ((m = /^(\S+)$/.exec(p))) out.push({ key: m[1], operator: 'Exists', values: [] });
    else throw new Error(`unable to parse requirement: ${JSON.stringify(p)}`);
  }
  return out;
}

function clusterObjects(mc: FleetManagedCluster): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const ns of mc.namespaces) {
    out.push({
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: ns.name, labels: ns.labels, ...(ns.terminating ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
      status: { phase: ns.terminating ? 'Terminating' : 'Active' },
    });
    for (const o of ns.objects ?? []) out.push({ ...o, metadata: { ...o.metadata, namespace: ns.name } });
  }
  return out;
}

function acmFuncs(mc: FleetManagedCluster): FuncMap {
  const objects = clusterObjects(mc);
  const str = (v: GoValue): string => (typeof v === 'string' ? v : String(v));
  return {
    lookup: (apiVersion: GoValue, kind: GoValue, namespace: GoValue, name: GoValue, ...selectors: GoValue[]) => {
      if (kind === 'Secret') throw new Error('simulate does not read Secrets');
      const sel = selectors.map(str).filter((s) => s !== '').join(',');
      const reqs = sel ? parseLabelSelector(sel) : [];
      const hits = objects.filter((o) => {
        const md = o.metadata as { name: string; namespace?: string; labels?: Labels };
        if (o.apiVersion !== str(apiVersion) || o.kind !== str(kind)) return false;
        if (str(namespace) !== '' && md.namespace !== str(namespace)) return false;
        return matchesSelector({ matchExpressions: reqs }, md.labels ?? {});
      });
      if (str(name) === '') return fromJs({ items: hits });
      const one = hits.find((o) => (o.metadata as { name: string }).name === str(name));
      return fromJs(one ?? {});
    },
    fromConfigMap: (namespace: GoValue, name: GoValue, key: GoValue) => {
      const cm = objects.find((o) => o.kind === 'ConfigMap' && (o.metadata as { namespace?: string }).namespace === str(namespace) && (o.metadata as { name: string }).name === str(name));
      if (!cm) throw new Error(`failed to get the configmap ${str(name)} from ${str(namespace)}: configmaps "${str(name)}" not found`);
      const data = (cm.data ?? {}) as Record<string, string>;
      return data[str(key)] ?? '';
    },
    fromSecret: () => {
      throw new Error('simulate does not read Secrets');
    },
    copySecretData: () => {
      throw new Error('simulate does not read Secrets');
    },
  };
}

/** Resolves an object-templates-raw string for one cluster into its list of object templates. */
export function resolveRawObjectTemplates(raw: string, mc: FleetManagedCluster): unknown[] {
  const set = new TemplateSet({ missingKey: 'default' });
  set.addFuncs({ ...sprigFuncs(), ...acmFuncs(mc) });
  set.parse('object-templates-raw', raw);
  const text = set.executeTemplate('object-templates-raw', null);
  const v = text.trim() === '' ? [] : parseYaml11(text);
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw new Error('object-templates-raw must render a YAML list of object templates');
  return v;
}
