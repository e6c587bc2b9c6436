/**
 * Where provider builds run, per architecture (`--build-placement`, the fleet package's
 * `buildPlacement`): a JSON object from architecture to a nodeSelector and tolerations, as a
 * provider writes them on any pod spec, e.g.
 * `{"arm64":{"nodeSelector":{"node-role.kubernetes.io/builder":""},"tolerations":[{"key":"builder","operator":"Exists","effect":"NoSchedule"}]}}`.
 * A build Job for that architecture selects these labels besides `kubernetes.io/os: linux` and
 * `kubernetes.io/arch: <arch>` (which the build sets and a placement may not), and tolerates these
 * taints. An architecture with a placement counts as buildable (builder/fleet/preconditions.ts)
 * even when no Node of it exists yet (an autoscaled pool brings one up for the pending pod).
 * Pure; every refusal names where in the JSON it is.
 */
import { BUILD_ARCHES, type BuildArch, type Toleration } from '../hypershift/nodepool-facts.js';

export interface Placement {
  nodeSelector: Record<string, string>;
  tolerations: Toleration[];
}
export type BuildPlacement = Partial<Record<BuildArch, Placement>>;

export class PlacementError extends Error {}

/** Labels the build pod sets itself: the architecture it builds for and the OS. */
const RESERVED = ['kubernetes.io/arch', 'kubernetes.io/os', 'beta.kubernetes.io/arch', 'beta.kubernetes.io/os'];
const NAME = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)$/;
const PREFIX = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;
const MAX_LABELS = 32;
const MAX_TOLERATIONS = 32;

/** A label key as Kubernetes validates it: `[prefix/]name`, prefix a DNS subdomain (≤ 253), name ≤ 63. */
function labelKeyProblem(k: string): string | undefined {
  const slash = k.lastIndexOf('/');
  const [prefix, name] = slash < 0 ? [undefined, k] : [k.slice(0, slash), k.slice(slash + 1)];
  if (prefix !== undefined && (prefix.length > 253 || !PREFIX.test(prefix))) return 'its prefix is not a DNS subdomain';
  if (!NAME.test(name)) return 'its name is not 1-63 letters, digits, -, _ or . beginning and ending with a letter or digit';
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and checks a placement; `where` names the flag or field in errors. Empty text: no placement. */
export function parseBuildPlacement(text: string | undefined, where = '--build-placement'): BuildPlacement {
  if (text === undefined || text.trim() === '') return {};
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new PlacementError(`${where} is not JSON: ${(e as Error).message}`);
  }
  if (!isObject(raw)) throw new PlacementError(`${where} must be a JSON object from architecture (${BUILD_ARCHES.join(', ')}) to {"nodeSelector":{…},"tolerations":[…]}`);
  const out: BuildPlacement = {};
  for (const arch of Object.keys(raw).sort()) {
    const at = `${where}: ${JSON.stringify(arch.slice(0, 32))}`;
    if (!(BUILD_ARCHES as readonly string[]).includes(arch)) throw new PlacementError(`${at} is not an architecture (${BUILD_ARCHES.join(', ')})`);
    const p = raw[arch];
    if (!isObject(p)) throw new PlacementError(`${at} must be an object with nodeSelector and/or tolerations`);
    for (const k of Object.keys(p)) if (k !== 'nodeSelector' && k !== 'tolerations') throw new PlacementError(`${at}: unknown field ${JSON.stringify(k.slice(0, 64))} (nodeSelector, tolerations)`);
    if (p.nodeSelector === undefined && p.tolerations === undefined) throw new PlacementError(`${at} sets neither nodeSelector nor tolerations`);
    out[arch as BuildArch] = { nodeSelector: nodeSelector(p.nodeSelector, `${at}.nodeSelector`), tolerations: tolerations(p.tolerations, `${at}.tolerations`) };
  }
  return out;
}

function nodeSelector(v: unknown, at: string): Record<string, string> {
  if (v === undefined) return {};
  if (!isObject(v)) throw new PlacementError(`${at} must be an object of label keys to values`);
  const keys = Object.keys(v).sort();
  if (keys.length > MAX_LABELS) throw new PlacementError(`${at} has ${keys.length} labels; at most ${MAX_LABELS}`);
  const out: Record<string, string> = {};
  for (const k of keys) {
    const val = v[k];
    const kat = `${at}[${JSON.stringify(k.slice(0, 64))}]`;
    if (RESERVED.includes(k)) throw new PlacementError(`${kat}: the build selects ${k} itself (the architecture is the key this placement is under)`);
    const bad = labelKeyProblem(k);
    if (bad) throw new PlacementError(`${kat} is not a label key: ${bad}`);
    if (typeof val !== 'string' || (val !== '' && !NAME.test(val))) throw new PlacementError(`${kat}: the value must be a label value (a string of at most 63 letters, digits, -, _ or ., or empty)`);
    out[k] = val;
  }
  return out;
}

function tolerations(v: unknown, at: string): Toleration[] {
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new PlacementError(`${at} must be a list of tolerations`);
  if (v.length > MAX_TOLERATIONS) throw new PlacementError(`${at} has ${v.length} tolerations; at most ${MAX_TOLERATIONS}`);
  return v.map((t, i) => {
    const tat = `${at}[${i}]`;
    if (!isObject(t)) throw new PlacementError(`${tat} must be an object (key, operator, value, effect, tolerationSeconds)`);
    for (const k of Object.keys(t)) if (!['key', 'operator', 'value', 'effect', 'tolerationSeconds'].includes(k)) throw new PlacementError(`${tat}: unknown field ${JSON.stringify(k.slice(0, 64))}`);
    const operator = t.operator ?? 'Equal';
    if (operator !== 'Equal' && operator !== 'Exists') throw new PlacementError(`${tat}.operator must be Equal or Exists`);
    if (t.key !== undefined && (typeof t.key !== 'string' || (t.key !== '' && labelKeyProblem(t.key)))) throw new PlacementError(`${tat}.key is not a label key`);
    if (!t.key && operator !== 'Exists') throw new PlacementError(`${tat}: an empty key needs operator Exists (it tolerates every taint)`);
    if (operator === 'Exists' && t.value !== undefined && t.value !== '') throw new PlacementError(`${tat}.value must be empty with operator Exists`);
    if (t.value !== undefined && (typeof t.value !== 'string' || (t.value !== '' && !NAME.test(t.value)))) throw new PlacementError(`${tat}.value is not a label value`);
    if (t.effect !== undefined && !(EFFECTS as readonly unknown[]).includes(t.effect)) throw new PlacementError(`${tat}.effect must be one of ${EFFECTS.join(', ')} (or absent: every effect)`);
    if (t.tolerationSeconds !== undefined) {
      if (t.effect !== 'NoExecute') throw new PlacementError(`${tat}.tolerationSeconds is only for effect NoExecute`);
      if (!Number.isInteger(t.tolerationSeconds)) throw new PlacementError(`${tat}.tolerationSeconds must be a whole number`);
    }
    return {
      ...(t.key ? { key: t.key as string } : {}),
      operator,
      ...(typeof t.value === 'string' && t.value !== '' ? { value: t.value } : {}),
      ...(t.effect !== undefined ? { effect: t.effect as Toleration['effect'] } : {}),
      ...(t.tolerationSeconds !== undefined ? { tolerationSeconds: t.tolerationSeconds as number } : {}),
    };
  });
}
