/**
 * What a rollout from one package version to another changes: both sides rendered like PKO,
 * objects matched by group/kind/namespace/name, a unified diff per object, and a verdict per
 * change that says what PKO and the API server will do with it.
 */
import { createHash } from 'node:crypto';
import { parseApiVersion } from '../pko/loader.js';
import type { RenderResult } from '../pko/render.js';
import type { JSONSchemaProps, PackageManifest } from '../pko/types.js';
import { unifiedDiff } from '../pko/unified-diff.js';

export type VerdictClass = 'removed' | 'added' | 'phase-changed' | 'immutable-field' | 'images-changed' | 'required-config' | 'changed';

export interface Verdict {
  class: VerdictClass;
  message: string;
}

export interface ObjectChange {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  change: 'added' | 'removed' | 'changed';
  /** The test case it differs in, when the diff compared several. */
  testCase?: string;
  verdicts: Verdict[];
  diff: string;
}

export interface DiffResult {
  /** Verdicts about the package as a whole (config schema, images, phase order). */
  package: Verdict[];
  objects: ObjectChange[];
}

interface Obj {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  phase: string;
  text: string;
  object: Record<string, unknown>;
}

function index(r: RenderResult): Map<string, Obj> {
  const m = new Map<string, Obj>();
  for (const o of r.objects) {
    const obj = o.object as unknown as { apiVersion?: string; kind?: string; metadata?: { name?: string; namespace?: string } };
    const group = parseApiVersion(String(obj.apiVersion ?? '')).group;
    const x: Obj = { group, kind: String(obj.kind ?? ''), namespace: obj.metadata?.namespace ?? '', name: obj.metadata?.name ?? '', phase: o.phase ?? '', text: o.text.endsWith('\n') ? o.text : o.text + '\n', object: o.object as unknown as Record<string, unknown> };
    m.set(`${x.group}/${x.kind}/${x.namespace}/${x.name}`, x);
  }
  return m;
}

const get = (o: unknown, p: string): unknown => p.split('.').reduce<unknown>((v, k) => (v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined), o);
const same = (a: unknown, b: unknown) => JSON.stringify(canonical(a)) === JSON.stringify(canonical(b));
function canonical(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, canonical((v as Record<string, unknown>)[k])]));
  return v;
}

/** Fields the API server refuses to change on update (validation of each kind's update strategy). */
const IMMUTABLE: Record<string, string[]> = {
  'apps/Deployment': ['spec.selector'],
  'apps/DaemonSet': ['spec.selector'],
  'apps/StatefulSet': ['spec.selector', 'spec.serviceName', 'spec.volumeClaimTemplates', 'spec.podManagementPolicy'],
  'apps/ReplicaSet': ['spec.selector'],
  'batch/Job': ['spec.template', 'spec.selector', 'spec.completionMode'],
  '/PersistentVolumeClaim': ['spec.accessModes', 'spec.selector', 'spec.storageClassName', 'spec.volumeName', 'spec.volumeMode', 'spec.dataSource'],
  'rbac.authorization.k8s.io/RoleBinding': ['roleRef'],
  'rbac.authorization.k8s.io/ClusterRoleBinding': ['roleRef'],
  'policy/PodDisruptionBudget': [],
};

function immutableVerdicts(a: Obj, b: Obj): Verdict[] {
  const out: Verdict[] = [];
  const fields = IMMUTABLE[`${a.group}/${a.kind}`] ?? [];
  for (const f of fields) if (!same(get(a.object, f), get(b.object, f))) out.push({ class: 'immutable-field', message: `${f} is immutable: the update will be refused and the rollout will fail` });
  if (a.group === '' && a.kind === 'Service') {
    const [ta, tb] = [get(a.object, 'spec.type') ?? 'ClusterIP', get(b.object, 'spec.type') ?? 'ClusterIP'];
    const [ca, cb] = [get(a.object, 'spec.clusterIP'), get(b.object, 'spec.clusterIP')];
    if (ca !== undefined && ca !== '' && !same(ca, cb) && tb !== 'ExternalName') out.push({ class: 'immutable-field', message: `spec.clusterIP is immutable (${String(ca)} → ${String(cb ?? 'unset')})` });
    if (ta !== tb && (ta === 'ExternalName' || tb === 'ExternalName')) out.push({ class: 'immutable-field', message: `spec.type ${String(ta)} → ${String(tb)} needs spec.clusterIP changes the API server refuses on update` });
  }
  if ((a.kind === 'ConfigMap' || a.kind === 'Secret') && a.group === '' && get(a.object, 'immutable') === true) {
    for (const f of ['data', 'binaryData', 'stringData']) if (!same(get(a.object, f), get(b.object, f))) out.push({ class: 'immutable-field', message: `${a.kind} is immutable: ${f} cannot change` });
  }
  return out;
}

/** Every `image` of containers, initContainers and ephemeralContainers, by container path. */
function images(o: unknown, at = '', out: Map<string, string> = new Map()): Map<string, string> {
  if (Array.isArray(o)) o.forEach((x, i) => images(x, `${at}[${i}]`, out));
  else if (o && typeof o === 'object') {
    for (const [k, v] of Object.entries(o)) {
      if (k === 'image' && typeof v === 'string' && /(containers|Containers)\[\d+\]$/.test(at)) out.set(at, v);
      else images(v, at ? `${at}.${k}` : k, out);
    }
  }
  return out;
}

function imageVerdicts(a: Obj, b: Obj): Verdict[] {
  const [ia, ib] = [images(a.object), images(b.object)];
  const out: Verdict[] = [];
  for (const [p, v] of ib) if (ia.has(p) && ia.get(p) !== v) out.push({ class: 'images-changed', message: `${p}.image ${ia.get(p)} → ${v}` });
  return out;
}

/** Required keys (with their property path) that have no default, at every object level. */
function requiredWithoutDefault(s: JSONSchemaProps | undefined, at = ''): Map<string, boolean> {
  const out = new Map<string, boolean>();
  if (!s || typeof s !== 'object') return out;
  const props = (s.properties ?? {}) as Record<string, JSONSchemaProps>;
  for (const k of (s.required ?? []) as string[]) out.set(at ? `${at}.${k}` : k, props[k]?.default === undefined);
  for (const [k, v] of Object.entries(props)) for (const [p, nd] of requiredWithoutDefault(v, at ? `${at}.${k}` : k)) out.set(p, nd);
  return out;
}

export function packageVerdicts(a: PackageManifest, b: PackageManifest): Verdict[] {
  const out: Verdict[] = [];
  const ra = requiredWithoutDefault(a.spec?.config?.openAPIV3Schema);
  const rb = requiredWithoutDefault(b.spec?.config?.openAPIV3Schema);
  for (const [p, noDefault] of rb) {
    if (noDefault && !ra.has(p)) out.push({ class: 'required-config', message: `config key ${p} is newly required and has no default: every existing Package without it becomes Invalid` });
  }
  const ima = (a.spec?.images ?? []) as { name: string; image: string }[];
  const imb = (b.spec?.images ?? []) as { name: string; image: string }[];
  for (const x of imb) {
    const old = ima.find((y) => y.name === x.name);
    if (old && old.image !== x.image) out.push({ class: 'images-changed', message: `spec.images ${x.name}: ${old.image} → ${x.image}` });
    if (!old) out.push({ class: 'images-changed', message: `spec.images ${x.name} added: ${x.image}` });
  }
  for (const y of ima) if (!imb.some((x) => x.name === y.name)) out.push({ class: 'images-changed', message: `spec.images ${y.name} removed` });
  const pa = (a.spec?.phases ?? []).map((p) => p.name);
  const pb = (b.spec?.phases ?? []).map((p) => p.name);
  if (pa.join('\n') !== pb.join('\n')) out.push({ class: 'phase-changed', message: `phases ${pa.join(', ') || '-'} → ${pb.join(', ') || '-'}: objects are applied in a different order` });
  // What PKO waits for before a phase counts as available: a change is a rollout change even when no object differs.
  const [probesA, probesB] = [a.spec?.availabilityProbes ?? [], b.spec?.availabilityProbes ?? []].map((p) => JSON.stringify(semanticObject(p)));
  if (probesA !== probesB) out.push({ class: 'changed', message: 'spec.availabilityProbes changed: PKO waits for other conditions before it calls a phase available' });
  return out;
}

function labelDiff(d: string, label: string, oldLabel: string, newLabel: string): string {
  if (!d) return d;
  const lines = d.split('\n');
  lines[0] = `--- ${oldLabel}/${label}`;
  lines[1] = `+++ ${newLabel}/${label}`;
  return lines.join('\n');
}

/** Secrets are compared by key, never printed: a live config may carry credentials into them. */
function secretSafe(o: Obj | undefined): Obj | undefined {
  if (!o || o.group !== '' || o.kind !== 'Secret') return o;
  const masked: Record<string, unknown> = { ...o.object };
  for (const f of ['data', 'stringData']) {
    const v = masked[f];
    if (v && typeof v === 'object') masked[f] = Object.fromEntries(Object.keys(v).sort().map((k) => [k, `<hidden, sha256:${sha256(JSON.stringify((v as Record<string, unknown>)[k])).slice(0, 12)}>`]));
  }
  return { ...o, object: masked, text: JSON.stringify(canonical(masked), null, 2) + '\n' };
}

/**
 * The object as the API server keeps it, for a semantic comparison (like dyff): keys in one
 * order, and map entries whose value is null dropped (a defaulted `creationTimestamp: null` is
 * the same object as none). Key order, scalar style and indentation are already gone once parsed.
 */
/**
 * An object as a rollout writes it: normalized (above), and without its top-level `status`, which
 * the API server keeps for itself (create and update of the main resource ignore it, so a
 * `status: {}` left in a manifest is no change).
 */
export function semanticObject(o: unknown): unknown {
  const n = normalizeObject(o);
  if (!isMap(n) || !('status' in n)) return n;
  const { status: _status, ...rest } = n;
  return rest;
}

export function normalizeObject(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(normalizeObject);
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (x !== null && x !== undefined) out[k] = normalizeObject(x);
    }
    return out;
  }
  return v;
}

const isMap = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** A list of maps each with a unique string `name` (containers, env, ports…) is matched by name. */
function byName(list: unknown[]): Map<string, unknown> | undefined {
  if (list.length === 0 || !list.every((x) => isMap(x) && typeof x.name === 'string')) return undefined;
  const m = new Map(list.map((x) => [(x as { name: string }).name, x]));
  return m.size === list.length ? m : undefined;
}

const MAX_VALUE = 120;
function show(v: unknown): string {
  const t = JSON.stringify(v);
  return t.length > MAX_VALUE ? t.slice(0, MAX_VALUE - 1) + '…' : t;
}

/** Field-level changes between two normalized objects: `~ path: old → new`, `+ path: new`, `- path: old`. */
export function semanticChanges(a: unknown, b: unknown, at = ''): string[] {
  const out: string[] = [];
  const join = (k: string) => (at ? `${at}.${k}` : k);
  if (isMap(a) && isMap(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      if (!(k in b)) out.push(`- ${join(k)}: ${show(a[k])}`);
      else if (!(k in a)) out.push(`+ ${join(k)}: ${show(b[k])}`);
      else out.push(...semanticChanges(a[k], b[k], join(k)));
    }
    return out;
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const [na, nb] = [byName(a), byName(b)];
    if (na && nb) {
      for (const [n, x] of na) if (!nb.has(n)) out.push(`- ${at}[name=${n}]: ${show(x)}`);
      for (const [n, y] of nb) {
        if (!na.has(n)) out.push(`+ ${at}[name=${n}]: ${show(y)}`);
        else out.push(...semanticChanges(na.get(n), y, `${at}[name=${n}]`));
      }
      return out;
    }
    // Scalars (verbs, args): the elements removed and added, in order (a longest common subsequence).
    if (a.every((x) => !isMap(x) && !Array.isArray(x)) && b.every((x) => !isMap(x) && !Array.isArray(x)) && a.length * b.length <= 40_000) {
      const [sa, sb] = [a.map((x) => JSON.stringify(x)), b.map((x) => JSON.stringify(x))];
      const L: number[][] = Array.from({ length: sa.length + 1 }, () => Array<number>(sb.length + 1).fill(0));
      for (let i = sa.length - 1; i >= 0; i--) for (let j = sb.length - 1; j >= 0; j--) L[i][j] = sa[i] === sb[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
      let [i, j] = [0, 0];
      while (i < sa.length || j < sb.length) {
        if (i < sa.length && j < sb.length && sa[i] === sb[j]) [i, j] = [i + 1, j + 1];
        else if (j < sb.length && (i === sa.length || L[i][j + 1] >= L[i + 1][j])) out.push(`+ ${at}[${j}]: ${show(b[j++])}`);
        else out.push(`- ${at}[${i}]: ${show(a[i++])}`);
      }
      return out;
    }
    for (let i = 0; i < Math.max(a.length, b.length); i++) {
      if (i >= b.length) out.push(`- ${at}[${i}]: ${show(a[i])}`);
      else if (i >= a.length) out.push(`+ ${at}[${i}]: ${show(b[i])}`);
      else out.push(...semanticChanges(a[i], b[i], `${at}[${i}]`));
    }
    return out;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(`~ ${at || '.'}: ${show(a)} → ${show(b)}`);
  return out;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

export function diffRenders(
  oldR: RenderResult,
  newR: RenderResult,
  oldManifest: PackageManifest,
  newManifest: PackageManifest,
  labels: { old: string; new: string } = { old: 'OLD', new: 'NEW' },
  /** `text`: compare and show the rendered text (a unified diff); default: the objects, semantically. */
  mode: 'semantic' | 'text' = 'semantic',
): DiffResult {
  const [a, b] = [index(oldR), index(newR)];
  const keys = [...new Set([...a.keys(), ...b.keys()])].sort();
  const objects: ObjectChange[] = [];
  for (const k of keys) {
    const [x, y] = [secretSafe(a.get(k)), secretSafe(b.get(k))];
    const o = (x ?? y)!;
    const id = `${o.group ? o.group + '/' : ''}${o.kind}/${o.namespace ? o.namespace + '/' : ''}${o.name}`;
    const base = { group: o.group, kind: o.kind, namespace: o.namespace, name: o.name };
    if (x && !y) {
      objects.push({ ...base, change: 'removed', verdicts: [{ class: 'removed', message: `object removed from phase "${x.phase}": PKO deletes it from the cluster` }], diff: labelDiff(unifiedDiff(id, x.text, ''), id, labels.old, labels.new) });
      continue;
    }
    if (!x && y) {
      objects.push({ ...base, change: 'added', verdicts: [{ class: 'added', message: `object added in phase "${y.phase}"` }], diff: labelDiff(unifiedDiff(id, '', y.text), id, labels.old, labels.new) });
      continue;
    }
    const [nx, ny] = mode === 'semantic' ? [semanticObject(x!.object), semanticObject(y!.object)] : [undefined, undefined];
    const unchanged = mode === 'semantic' ? JSON.stringify(nx) === JSON.stringify(ny) : x!.text === y!.text;
    if (unchanged && x!.phase === y!.phase) continue;
    const verdicts: Verdict[] = [];
    if (x!.phase !== y!.phase) verdicts.push({ class: 'phase-changed', message: `phase "${x!.phase}" → "${y!.phase}": the object is applied (and waited for) at another point of the rollout` });
    verdicts.push(...immutableVerdicts(x!, y!), ...imageVerdicts(x!, y!));
    if (verdicts.length === 0) verdicts.push({ class: 'changed', message: 'updated in place' });
    const diff = mode === 'semantic' ? semanticChanges(nx, ny).map((l) => `  ${l}\n`).join('') : labelDiff(unifiedDiff(id, x!.text, y!.text), id, labels.old, labels.new);
    objects.push({ ...base, change: 'changed', verdicts, diff });
  }
  return { package: packageVerdicts(oldManifest, newManifest), objects };
}

export function formatDiffText(d: DiffResult): string {
  let out = '';
  for (const v of d.package) out += `package: ${v.class}: ${v.message}\n`;
  for (const o of d.objects) {
    const id = `${o.group ? o.group + '/' : ''}${o.kind} ${o.namespace ? o.namespace + '/' : ''}${o.name}`;
    out += `${out ? '\n' : ''}${o.change} ${id}\n`;
    for (const v of o.verdicts) out += `  ${v.class}: ${v.message}\n`;
    out += o.diff;
  }
  const n = d.objects.length;
  out += `${out ? '\n' : ''}${n === 0 && d.package.length === 0 ? 'no difference in rendered objects' : `${n} object(s) differ: ${d.objects.filter((o) => o.change === 'added').length} added, ${d.objects.filter((o) => o.change === 'removed').length} removed, ${d.objects.filter((o) => o.change === 'changed').length} changed`}\n`;
  return out;
}
