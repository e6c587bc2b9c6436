/**
 * From listed PKO objects to one row per Package: what state it is in, since when, which revision
 * and image it runs, and what blocks it (parsed from the active ObjectSet's Available condition,
 * in the formats package-operator writes; see docs/status.md for the evidence).
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../kube/client.js';

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
}

export interface BlockingObject {
  group: string;
  kind: string;
  namespace: string;
  name: string;
  messages: string;
}

export interface Blocking {
  phase: string;
  objects: BlockingObject[];
}

export interface Revision {
  name: string;
  revision: number;
  lifecycleState: string;
  available: string;
  image?: string;
  /** The config annotation is summarised, never printed: configs may hold credentials. */
  configKeys?: string[];
  configSha256?: string;
}

export type State = 'Available' | 'Progressing' | 'Unpacking' | 'Invalid' | 'Paused' | 'NotReady' | 'Pending';

export interface PackageRow {
  kind: string;
  namespace: string;
  name: string;
  revision?: number;
  /** `spec.image` of the Package. */
  image: string;
  /** The image the active revision was made from (ObjectDeployment annotation), when known. */
  runningImage?: string;
  digest?: string;
  state: State;
  reason: string;
  message: string;
  /** When the condition that decides the state last changed. */
  since?: string;
  conditions: Record<string, { status: string; reason?: string; message?: string; since?: string }>;
  blocking?: Blocking;
  /** PreflightError / CollisionDetected / other Available=False message of the active ObjectSet, verbatim. */
  objectSetError?: { reason: string; message: string };
  /** ObjectSetPhases of the active revision (the hosted-cluster phase in HyperShift). */
  phases: { name: string; phaseClass?: string; available: string; reason?: string; message?: string }[];
  history: Revision[];
  drift: boolean;
  ok: boolean;
}

export interface Summary {
  total: number;
  available: number;
  progressing: number;
  invalid: number;
  other: number;
  drift: number;
}

export const ANN_SOURCE_IMAGE = 'package-operator.run/package-source-image';
export const ANN_CONFIG = 'package-operator.run/package-config';
const LABEL_DEPLOYMENT = 'package-operator.run/object-deployment';
const LABEL_PHASE_CLASS = 'package-operator.run/phase-class';

export function conditionsOf(o: KubeObject | undefined): Condition[] {
  const c = (o?.status as { conditions?: unknown } | undefined)?.conditions;
  return Array.isArray(c) ? (c.filter((x) => x && typeof x === 'object' && typeof x.type === 'string') as Condition[]) : [];
}

const cond = (cs: Condition[], type: string) => cs.find((c) => c.type === type);
const isTrue = (c: Condition | undefined) => c?.status === 'True';
const isFalse = (c: Condition | undefined) => c?.status === 'False';

/** `sha256:…` of a digest-pinned reference. */
export function digestOf(ref: string | undefined): string | undefined {
  const m = /@(sha256:[0-9a-f]{64})$/.exec(ref ?? '');
  return m?.[1];
}

const PHASE_RE = /^Phase "((?:[^"\\]|\\.)*)" failed: ([\s\S]*)$/;
// One recorded probe failure: `<group> <Kind> <namespace>/<name>: ` (group empty for core kinds,
// namespace empty for cluster-scoped objects); failures are joined with ", ".
const OBJECT_RE = /(?:^|, )([a-z0-9.-]*) ([A-Z][A-Za-z0-9]*) ([a-z0-9.-]*)\/([a-z0-9][a-z0-9.:-]*): /g;

/**
 * Parses package-operator's ProbeFailure message `Phase "<name>" failed: <group> <Kind> <ns>/<name>:
 * <messages>[, <next object>…]`. Undefined when the message is not in that form.
 */
export function parseProbeFailure(message: string): Blocking | undefined {
  const m = PHASE_RE.exec(message);
  if (!m) return undefined;
  const phase = m[1].replace(/\\(.)/g, '$1');
  const rest = m[2];
  const starts: { index: number; end: number; o: Omit<BlockingObject, 'messages'> }[] = [];
  for (const x of rest.matchAll(OBJECT_RE)) {
    starts.push({ index: x.index!, end: x.index! + x[0].length, o: { group: x[1], kind: x[2], namespace: x[3], name: x[4] } });
  }
  if (starts.length === 0 || starts[0].index !== 0) return { phase, objects: [] };
  const objects = starts.map((s, i) => ({ ...s.o, messages: rest.slice(s.end, i + 1 < starts.length ? starts[i + 1].index : rest.length) }));
  return { phase, objects };
}

export interface Listed {
  packages: KubeObject[];
  objectDeployments: KubeObject[];
  objectSets: KubeObject[];
  objectSetPhases: KubeObject[];
}

const key = (ns: string | undefined, name: string) => `${ns ?? ''}/${name}`;
const revisionOf = (os: KubeObject) => Number((os.spec as { revision?: unknown } | undefined)?.revision ?? os.metadata.annotations?.['package-operator.run/revision'] ?? 0) || 0;
const lifecycleOf = (os: KubeObject) => String((os.spec as { lifecycleState?: unknown } | undefined)?.lifecycleState ?? 'Active');

/** Rows in namespace, name order; `expectImage` marks drift. */
export function buildRows(listed: Listed, expectImage?: string): PackageRow[] {
  const ods = new Map(listed.objectDeployments.map((o) => [key(o.metadata.namespace, o.metadata.name), o]));
  const setsByOd = new Map<string, KubeObject[]>();
  for (const os of listed.objectSets) {
    const od = os.metadata.labels?.[LABEL_DEPLOYMENT] ?? os.metadata.ownerReferences?.find((r) => r.kind === 'ObjectDeployment')?.name;
    if (!od) continue;
    const k = key(os.metadata.namespace, od);
    if (!setsByOd.has(k)) setsByOd.set(k, []);
    setsByOd.get(k)!.push(os);
  }
  const phasesByOs = new Map<string, KubeObject[]>();
  for (const p of listed.objectSetPhases) {
    const owner = p.metadata.ownerReferences?.find((r) => r.kind === 'ObjectSet' || r.kind === 'ClusterObjectSet')?.name;
    if (!owner) continue;
    const k = key(p.metadata.namespace, owner);
    if (!phasesByOs.has(k)) phasesByOs.set(k, []);
    phasesByOs.get(k)!.push(p);
  }

  const rows = listed.packages.map((pkg) => {
    const ns = pkg.metadata.namespace ?? '';
    const cs = conditionsOf(pkg);
    const od = ods.get(key(pkg.metadata.namespace, pkg.metadata.name));
    const sets = (setsByOd.get(key(pkg.metadata.namespace, pkg.metadata.name)) ?? []).sort((a, b) => revisionOf(b) - revisionOf(a) || a.metadata.name.localeCompare(b.metadata.name));
    const active = sets.find((s) => lifecycleOf(s) !== 'Archived');
    const image = String((pkg.spec as { image?: unknown } | undefined)?.image ?? '');
    const runningImage = active?.metadata.annotations?.[ANN_SOURCE_IMAGE] ?? od?.metadata.annotations?.[ANN_SOURCE_IMAGE];

    const available = cond(cs, 'Available');
    const progressing = cond(cs, 'Progressing');
    const unpacked = cond(cs, 'Unpacked');
    const invalid = cond(cs, 'Invalid');
    const paused = cond(cs, 'Paused');
    let state: State;
    let decisive: Condition | undefined;
    if (isTrue(invalid)) [state, decisive] = ['Invalid', invalid];
    else if (isTrue(paused)) [state, decisive] = ['Paused', paused];
    else if (isFalse(unpacked)) [state, decisive] = ['Unpacking', unpacked];
    else if (isTrue(progressing)) [state, decisive] = ['Progressing', progressing];
    else if (isTrue(available)) [state, decisive] = ['Available', available];
    else if (available) [state, decisive] = ['NotReady', available];
    else [state, decisive] = ['Pending', undefined];

    const osAvailable = cond(conditionsOf(active), 'Available');
    let blocking: Blocking | undefined;
    let objectSetError: PackageRow['objectSetError'];
    if (isFalse(osAvailable)) {
      if (osAvailable!.reason === 'ProbeFailure') blocking = parseProbeFailure(osAvailable!.message ?? '');
      if (!blocking) objectSetError = { reason: osAvailable!.reason ?? '', message: osAvailable!.message ?? '' };
    }
    const phases = (active ? (phasesByOs.get(key(active.metadata.namespace, active.metadata.name)) ?? []) : [])
      .sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))
      .map((p) => {
        const a = cond(conditionsOf(p), 'Available');
        return { name: p.metadata.name, phaseClass: p.metadata.labels?.[LABEL_PHASE_CLASS], available: a?.status ?? 'Unknown', reason: a?.reason, message: a?.message };
      });
    const history: Revision[] = sets.map((s) => ({
      name: s.metadata.name,
      revision: revisionOf(s),
      lifecycleState: lifecycleOf(s),
      available: cond(conditionsOf(s), 'Available')?.status ?? 'Unknown',
      image: s.metadata.annotations?.[ANN_SOURCE_IMAGE],
      ...configSummary(s.metadata.annotations?.[ANN_CONFIG]),
    }));
    const drift = expectImage !== undefined && !sameImage(runningImage ?? image, expectImage);
    const conditions: PackageRow['conditions'] = {};
    for (const t of ['Available', 'Progressing', 'Unpacked', 'Invalid', 'Paused']) {
      const c = cond(cs, t);
      if (c) conditions[t] = { status: c.status, reason: c.reason, message: c.message, since: c.lastTransitionTime };
    }
    const revision = Number((pkg.status as { revision?: unknown } | undefined)?.revision ?? 0) || (active ? revisionOf(active) : 0) || undefined;
    const row: PackageRow = {
      kind: pkg.kind ?? 'Package',
      namespace: ns,
      name: pkg.metadata.name,
      revision,
      image,
      runningImage,
      digest: digestOf(runningImage ?? image) ?? digestOf(image),
      state,
      reason: decisive?.reason ?? '',
      message: decisive?.message ?? '',
      since: decisive?.lastTransitionTime,
      conditions,
      blocking,
      objectSetError,
      phases,
      history,
      drift,
      ok: state === 'Available' && !drift,
    };
    return row;
  });
  return rows.sort((a, b) => (a.namespace < b.namespace ? -1 : a.namespace > b.namespace ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Same image: equal digests when the expectation is pinned, else equal references. */
export function sameImage(actual: string, expected: string): boolean {
  const e = digestOf(expected);
  if (e) return digestOf(actual) === e;
  if (/^sha256:[0-9a-f]{64}$/.test(expected)) return digestOf(actual) === expected;
  return actual === expected;
}

export function summarize(rows: PackageRow[]): Summary {
  const s: Summary = { total: rows.length, available: 0, progressing: 0, invalid: 0, other: 0, drift: 0 };
  for (const r of rows) {
    if (r.state === 'Available') s.available++;
    else if (r.state === 'Progressing') s.progressing++;
    else if (r.state === 'Invalid') s.invalid++;
    else s.other++;
    if (r.drift) s.drift++;
  }
  return s;
}

/** kubectl-like age: `45s`, `12m`, `3h20m`, `4d5h`. */
export function age(since: string | undefined, now: Date): string {
  if (!since) return '-';
  const t = Date.parse(since);
  if (Number.isNaN(t)) return '-';
  const s = Math.max(0, Math.floor((now.getTime() - t) / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return m % 60 ? `${h}h${m % 60}m` : `${h}h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d}d${h % 24}h` : `${d}d`;
}

function configSummary(text: string | undefined): { configKeys?: string[]; configSha256?: string } {
  if (text === undefined) return {};
  const configSha256 = 'sha256:' + createHash('sha256').update(text).digest('hex');
  try {
    const v = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { configKeys: Object.keys(v).sort(), configSha256 };
  } catch {
    // Not JSON: only the hash is shown.
  }
  return { configSha256 };
}
