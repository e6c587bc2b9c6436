/**
 * The fleet's rollout policy: what the provider sets (resources/fleet/config.ts `rollout`, passed
 * as `--rollout=<JSON>`), parsed and validated with located errors (`rollout.maxConcurrency: …`).
 * Semantics: docs/design/fleet-rollout.md. Two types:
 * - `RideReleaseChange` (default): a new provider layer reaches a NodePool only in the rollout its
 *   own next release change causes; first and layer-change hand-offs are never admitted.
 * - `Progressive`: canaries (NodePools of HostedClusters matching `canaries`, label selectors the
 *   provider sets) first, tolerating no failure; then a sliding window of `maxConcurrency`;
 *   a halt when failures exceed `maxFailures`.
 * The bounds (`maxConcurrency`, `maxConcurrencyPerHostedCluster`) hold in both types, for every
 * hand-off that changes a NodePool (install, layer, release, rollback).
 *
 * Durations take OCM's RolloutConfig form (`<n>h`, `<n>m`, `<n>s`, or `None` for progressDeadline);
 * counts take an integer or a percentage of the NodePools in scope, as OCM's IntOrString does.
 */

export type RolloutType = 'RideReleaseChange' | 'Progressive';

export interface LabelSelectorRequirement {
  key: string;
  operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
  values?: string[];
}
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

/** An integer, or a percentage of the NodePools in scope (resolved by `resolveCount`). */
export type Count = { n: number } | { percent: number };

export interface RolloutPolicy {
  type: RolloutType;
  /** HostedCluster label selectors: their NodePools are the canaries (Progressive only). */
  canaries: LabelSelector[];
  /** NodePools rolling because of the fleet at once, on this management cluster. */
  maxConcurrency: Count;
  /** NodePools of one HostedCluster rolling because of the fleet at once. */
  maxConcurrencyPerHostedCluster: number;
  /** Non-canary failures tolerated; one more halts the rollout (Progressive only). */
  maxFailures: Count;
  /** Soak: a success counts (frees its slot, completes a canary) this long after it was seen (Progressive only). */
  minSuccessSeconds: number;
  /** A NodePool still rolling this long after our write has failed; undefined: never (OCM's `None`). */
  progressDeadlineSeconds?: number;
}

export const DEFAULT_POLICY: RolloutPolicy = {
  type: 'RideReleaseChange',
  canaries: [],
  maxConcurrency: { n: 50 },
  maxConcurrencyPerHostedCluster: 1,
  maxFailures: { n: 0 },
  minSuccessSeconds: 0,
  progressDeadlineSeconds: 2 * 3600,
};

export class PolicyError extends Error {}

const MAX_DURATION_SECONDS = 7 * 24 * 3600;
const MAX_SELECTORS = 16;
const MAX_LABELS = 32;
const MAX_TEXT = 316; // a qualified label key's longest form (253 prefix + '/' + 63 name)
const KEYS = ['type', 'canaries', 'maxConcurrency', 'maxConcurrencyPerHostedCluster', 'maxFailures', 'minSuccessTime', 'progressDeadline'];

const show = (v: unknown) => JSON.stringify(v)?.slice(0, 80) ?? String(v);

/** `90m` → 5400; `None` → undefined (only where allowed). Located errors. */
export function parseDuration(v: unknown, where: string, allowNone: boolean): number | undefined {
  if (allowNone && (v === 'None' || v === '')) return undefined;
  if (v === '0' || v === 0) return 0;
  if (typeof v !== 'string') throw new PolicyError(`${where}: must be a duration such as "90m", "2h", "360s"${allowNone ? ' or "None"' : ''}, got ${show(v)}`);
  const m = /^(\d{1,9})([hms])$/.exec(v);
  if (!m) throw new PolicyError(`${where}: must be a duration such as "90m", "2h", "360s"${allowNone ? ' or "None"' : ''}, got ${show(v)}`);
  const s = Number(m[1]) * (m[2] === 'h' ? 3600 : m[2] === 'm' ? 60 : 1);
  if (s > MAX_DURATION_SECONDS) throw new PolicyError(`${where}: at most 7 days, got ${show(v)}`);
  return s;
}

function parseCount(v: unknown, where: string, min: number): Count {
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < min || v > 100000) throw new PolicyError(`${where}: must be an integer from ${min} to 100000 or a percentage such as "10%", got ${show(v)}`);
    return { n: v };
  }
  const m = typeof v === 'string' ? /^(100|[0-9]{1,2})%$/.exec(v) : null;
  if (!m || Number(m[1]) < min) throw new PolicyError(`${where}: must be an integer from ${min} to 100000 or a percentage such as "10%", got ${show(v)}`);
  return { percent: Number(m[1]) };
}

/** A count over `total` NodePools: a percentage rounds up (OCM's calculateRolloutSize), never below `min`. */
export function resolveCount(c: Count, total: number, min: number): number {
  const n = 'n' in c ? c.n : Math.ceil((c.percent / 100) * total);
  return Math.max(min, n);
}

function parseSelector(v: unknown, where: string): LabelSelector {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PolicyError(`${where}: must be a label selector (matchLabels, matchExpressions), got ${show(v)}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== 'matchLabels' && k !== 'matchExpressions') throw new PolicyError(`${where}: unknown field ${show(k)} (matchLabels, matchExpressions)`);
  const out: LabelSelector = {};
  if (o.matchLabels !== undefined) {
    const ml = o.matchLabels;
    if (typeof ml !== 'object' || ml === null || Array.isArray(ml)) throw new PolicyError(`${where}.matchLabels: must be a map of label to value`);
    const entries = Object.entries(ml as Record<string, unknown>);
    if (entries.length > MAX_LABELS) throw new PolicyError(`${where}.matchLabels: at most ${MAX_LABELS} labels`);
    out.matchLabels = {};
    for (const [k, val] of entries) {
      if (k === '' || k.length > MAX_TEXT) throw new PolicyError(`${where}.matchLabels: label key ${show(k)} is empty or too long`);
      if (typeof val !== 'string' || val.length > 63) throw new PolicyError(`${where}.matchLabels[${show(k)}]: must be a label value (a string of at most 63 characters)`);
      out.matchLabels[k] = val;
    }
  }
  if (o.matchExpressions !== undefined) {
    if (!Array.isArray(o.matchExpressions) || o.matchExpressions.length > MAX_LABELS) throw new PolicyError(`${where}.matchExpressions: must be a list of at most ${MAX_LABELS} requirements`);
    out.matchExpressions = o.matchExpressions.map((e, i) => {
      const w = `${where}.matchExpressions[${i}]`;
      const r = e as Record<string, unknown>;
      if (typeof r !== 'object' || r === null) throw new PolicyError(`${w}: must be {key, operator, values}`);
      if (typeof r.key !== 'string' || r.key === '' || r.key.length > MAX_TEXT) throw new PolicyError(`${w}.key: must be a label key`);
      if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(r.operator as string)) throw new PolicyError(`${w}.operator: must be In, NotIn, Exists or DoesNotExist, got ${show(r.operator)}`);
      const op = r.operator as LabelSelectorRequirement['operator'];
      const values = r.values;
      if (op === 'In' || op === 'NotIn') {
        if (!Array.isArray(values) || values.length === 0 || values.length > MAX_LABELS || values.some((x) => typeof x !== 'string' || x.length > 63)) throw new PolicyError(`${w}.values: ${op} needs 1 to ${MAX_LABELS} label values`);
        return { key: r.key, operator: op, values: [...(values as string[])] };
      }
      if (values !== undefined && !(Array.isArray(values) && values.length === 0)) throw new PolicyError(`${w}.values: must be empty for ${op}`);
      return { key: r.key, operator: op };
    });
  }
  if (!out.matchLabels && !out.matchExpressions) throw new PolicyError(`${where}: an empty selector would make every HostedCluster a canary; give matchLabels or matchExpressions`);
  return out;
}

/** Parses the policy (JSON text or the parsed value); undefined or '' is the default. */
export function parsePolicy(input: unknown, where = 'rollout'): RolloutPolicy {
  let v = input;
  if (v === undefined || v === '') return { ...DEFAULT_POLICY };
  if (typeof v === 'string') {
    if (v.length > 65536) throw new PolicyError(`${where}: longer than 65536 characters`);
    try {
      v = JSON.parse(v);
    } catch (e) {
      throw new PolicyError(`${where}: not JSON: ${(e as Error).message}`);
    }
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new PolicyError(`${where}: must be an object with "type" (RideReleaseChange or Progressive), got ${show(v)}`);
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.includes(k)) throw new PolicyError(`${where}: unknown field ${show(k)} (${KEYS.join(', ')})`);
  const type = o.type ?? 'RideReleaseChange';
  if (type !== 'RideReleaseChange' && type !== 'Progressive') throw new PolicyError(`${where}.type: must be RideReleaseChange or Progressive, got ${show(type)}`);
  const p: RolloutPolicy = { ...DEFAULT_POLICY, type };
  if (o.maxConcurrency !== undefined) p.maxConcurrency = parseCount(o.maxConcurrency, `${where}.maxConcurrency`, 1);
  if (o.maxConcurrencyPerHostedCluster !== undefined) {
    const n = o.maxConcurrencyPerHostedCluster;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 1000) throw new PolicyError(`${where}.maxConcurrencyPerHostedCluster: must be an integer from 1 to 1000, got ${show(n)}`);
    p.maxConcurrencyPerHostedCluster = n;
  }
  if (o.progressDeadline !== undefined) p.progressDeadlineSeconds = parseDuration(o.progressDeadline, `${where}.progressDeadline`, true);
  if (p.progressDeadlineSeconds === 0) throw new PolicyError(`${where}.progressDeadline: 0 would fail every NodePool at once; give a duration or "None"`);
  const progressiveOnly = ['canaries', 'maxFailures', 'minSuccessTime'].filter((k) => o[k] !== undefined);
  if (type === 'RideReleaseChange' && progressiveOnly.length) throw new PolicyError(`${where}.${progressiveOnly[0]}: only for type Progressive (RideReleaseChange rides each NodePool's own release change)`);
  if (o.maxFailures !== undefined) p.maxFailures = parseCount(o.maxFailures, `${where}.maxFailures`, 0);
  if (o.minSuccessTime !== undefined) p.minSuccessSeconds = parseDuration(o.minSuccessTime, `${where}.minSuccessTime`, false) ?? 0;
  if (o.canaries !== undefined) {
    if (!Array.isArray(o.canaries) || o.canaries.length > MAX_SELECTORS) throw new PolicyError(`${where}.canaries: must be a list of at most ${MAX_SELECTORS} HostedCluster label selectors`);
    p.canaries = o.canaries.map((s, i) => parseSelector(s, `${where}.canaries[${i}]`));
  }
  return p;
}

/** The policy back in its configuration form (the plan view prints it; parsePolicy(formatPolicy(p)) equals p). */
export function formatPolicy(p: RolloutPolicy): Record<string, unknown> {
  const count = (c: Count) => ('n' in c ? c.n : `${c.percent}%`);
  const dur = (s: number) => (s % 3600 === 0 && s ? `${s / 3600}h` : s % 60 === 0 && s ? `${s / 60}m` : `${s}s`);
  return {
    type: p.type,
    maxConcurrency: count(p.maxConcurrency),
    maxConcurrencyPerHostedCluster: p.maxConcurrencyPerHostedCluster,
    progressDeadline: p.progressDeadlineSeconds === undefined ? 'None' : dur(p.progressDeadlineSeconds),
    ...(p.type === 'Progressive' ? { canaries: p.canaries, maxFailures: count(p.maxFailures), minSuccessTime: p.minSuccessSeconds ? dur(p.minSuccessSeconds) : '0' } : {}),
  };
}

/** Kubernetes label selector semantics (matchLabels AND every expression). */
export function selectorMatches(s: LabelSelector, labels: Record<string, string>): boolean {
  for (const [k, v] of Object.entries(s.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of s.matchExpressions ?? []) {
    const has = Object.prototype.hasOwnProperty.call(labels, e.key);
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
    if (e.operator === 'In' && !(has && e.values!.includes(labels[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && e.values!.includes(labels[e.key]!)) return false;
  }
  return true;
}
