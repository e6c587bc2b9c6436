/**
 * `on-cluster-build fleet-status`: the fleet view ("Fleet view"). Reads, with the
 * caller's kubeconfig, three things and nothing else: NodePools cluster-wide (the gate's
 * annotations and label, the release), the hand-off ConfigMaps across HCP namespaces (one
 * label-selected list: which image, which layer, for which release), and the provider build Jobs
 * in the build namespace (the fleet's --build-namespace). It prints which hosted clusters and NodePools run which layer, which are
 * held, blocked (a precondition fails) or deferred (by the rollout policy) and why, and which builds fail. Every list is paged (builder/clusters/kube.ts), only the fields shown
 * are kept, rows are capped (`--max-rows`; the summary always counts everything), and nothing from
 * a Secret, the package config or a Job's spec is read or printed.
 */
import { FlagError, parseFlags, type FlagSpec, type FlagValues } from '../flags.js';
import { Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { handedOffImage, HANDOFF_RELEASE_ANNOTATION, NTO_GENERATED_LABEL } from '../controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE, NODEPOOL_LABEL } from '../controller/build-job.js';
import { DEFERRED_PREFIX } from './gate-names.js';
import { BLOCKED_ANNOTATION, GATED_LABEL, HELD_SINCE_ANNOTATION, NODEPOOLS, PAUSED_FOR_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION } from './gate.js';
import { hcpNamespaceOf } from './pass.js';
import { FLEET_BUILD_NAMESPACE } from './rbac.js';
import type { PolicyRule } from '../policy/rbac.js';
import { FLEET_NAMESPACE } from './rbac.js';
import { HOSTED_CLUSTERS, observationOf, trimHostedCluster, trimNodePool } from './rollout/engine.js';
import { plan, type Plan, type RowState } from './rollout/planner.js';
import { formatPolicy, parsePolicy, PolicyError, type RolloutPolicy } from './rollout/policy.js';
import type { NodePoolObservation } from './rollout/progress.js';
import { decodeRollout, POLICY_KEY, ROLLOUT_LABEL } from './rollout/state.js';

export const FLEET_STATUS_SUMMARY = 'show which hosted clusters and NodePools run which OS layer, which are held by the upgrade gate and why, and failing provider builds';

export const FLEET_STATUS_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', env: 'KUBECONFIG', default: '', description: "kubeconfig of the management cluster; empty: the pod's in-cluster ServiceAccount" },
  { name: 'build-namespace', type: 'string', default: FLEET_BUILD_NAMESPACE, description: "namespace of the fleet component's provider build Jobs (its --build-namespace)" },
  { name: 'output', type: 'string', default: 'text', description: 'text or json (-o is the same flag)' },
  { name: 'max-rows', type: 'int', default: 500, description: 'NodePool and build rows printed at most (the summary counts all)' },
  { name: 'plan', type: 'bool', default: false, description: 'show the rollout plan: for the policy and the fleet as it is, which NodePools roll in which wave, what is blocked and why, the expected duration' },
  { name: 'rollout', type: 'string', default: '', description: 'with --plan: plan for this policy (JSON, as the fleet\'s --rollout) instead of the one the fleet runs' },
  { name: 'namespace', type: 'string', default: FLEET_NAMESPACE, description: "the fleet component's namespace (its rollout state)" },
];

/**
 * The only rights the view uses (list, paged): the caller's kubeconfig needs these, nothing more.
 * ConfigMaps are listed cluster-wide with a label selector (only hand-offs come back), Jobs only
 * in the build namespace.
 */
export const FLEET_STATUS_READS: readonly PolicyRule[] = [
  { apiGroups: ['hypershift.openshift.io'], resources: ['nodepools'], verbs: ['list'] },
  // Labels only: the rollout policy's canary selectors.
  { apiGroups: ['hypershift.openshift.io'], resources: ['hostedclusters'], verbs: ['list'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
];
export const FLEET_STATUS_NAMESPACED_READS: readonly PolicyRule[] = [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['list'] }];

export type Layer = 'provider' | 'tenant' | 'none';
/**
 * Blocked: a precondition fails (the gate's BLOCKED_ANNOTATION): never held, never handed an
 * image. Deferred: the rollout policy does not admit the NodePool's change now: held with the
 * gate's "deferred by the rollout policy" reason, or unheld with the planner's reason for its row.
 */
export type GateState = 'NotLayered' | 'Consistent' | 'Held' | 'Released' | 'Pending' | 'PausedByOther' | 'Blocked' | 'Deferred';

export interface NodePoolRow {
  namespace: string;
  name: string;
  hostedCluster: string;
  hcpNamespace: string;
  release: string;
  arch: string;
  layer: Layer;
  /** The image the hand-off gives the NodePool (repo@sha256:…), when there is one. */
  image?: string;
  /** The release the hand-off's image was built for. */
  imageRelease?: string;
  state: GateState;
  heldSince?: string;
  reason?: string;
  /** Where the rollout policy has this NodePool. */
  rollout?: { state: RowState; canary: boolean; wave?: number; reason?: string };
}

export interface BuildRow {
  name: string;
  state: 'Running' | 'Succeeded' | 'Failed' | 'Pending';
  started?: string;
  reason?: string;
}

export interface FleetStatus {
  summary: {
    hostedClusters: number;
    nodePools: number;
    byLayer: Record<Layer, number>;
    byState: Record<GateState, number>;
    builds: Record<BuildRow['state'], number>;
  };
  nodePools: NodePoolRow[];
  builds: BuildRow[];
  /** Rows left out by `--max-rows`. */
  omitted: { nodePools: number; builds: number };
  rollout: RolloutView;
}

export interface RolloutView {
  policy: Record<string, unknown>;
  /** Where the policy came from. */
  policySource: 'fleet' | 'default' | 'flag';
  layer?: string;
  byState: Record<RowState, number>;
  canaries: number;
  canariesDone: number;
  rollingNow: number;
  maxConcurrency: number;
  halted?: string;
  paused?: string;
  rolledBack?: string;
  waves: { index: number; canary: boolean; count: number; nodePools: string[] }[];
  expected?: Plan['expected'];
  /** Reasons NodePools are blocked or pending, with how many and the first few. */
  blocked: { reason: string; count: number; first: string[] }[];
  problems: string[];
}

const MAX_TEXT = 160;
const clip = (s: string | undefined, n = MAX_TEXT) => (s === undefined ? undefined : s.length <= n ? s : `${s.slice(0, n - 1)}…`);

type Np = KubeObject & { spec?: { clusterName?: string; release?: { image?: string }; arch?: string; pausedUntil?: string } };
type Cm = KubeObject & { data?: Record<string, string> };
type Job = KubeObject & { status?: { active?: number; succeeded?: number; failed?: number; startTime?: string; conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } };

/** Reads the fleet and answers the view (pure past the three lists; tested on the API test server). */
export async function fleetStatus(o: { management: Kube; buildNamespace: string; maxRows: number; pageSize?: number; namespace?: string; policy?: RolloutPolicy; now?: number }): Promise<FleetStatus> {
  const m = o.management;
  const pageSize = o.pageSize ?? 500;
  const ann = [PAUSED_FOR_ANNOTATION, HELD_SINCE_ANNOTATION, RELEASED_FOR_ANNOTATION, REASON_ANNOTATION, BLOCKED_ANNOTATION];
  const pick = (rec: Record<string, string> | undefined, keys: string[]) => Object.fromEntries(keys.filter((k) => rec?.[k] !== undefined).map((k) => [k, rec![k]]));
  const nodePools = (
    await m.list(NODEPOOLS, {
      pageSize,
      keep: (x) => {
        const np = x as Np;
        // What the rollout planner reads (status conditions, trimmed), then the gate's own fields.
        const t = trimNodePool(np) as Np;
        return {
          ...t,
          metadata: { ...t.metadata, labels: pick(np.metadata.labels, [GATED_LABEL]), annotations: { ...t.metadata.annotations, ...pick(np.metadata.annotations, ann) } },
          spec: { clusterName: np.spec?.clusterName, release: { image: np.spec?.release?.image }, arch: np.spec?.arch, pausedUntil: np.spec?.pausedUntil },
        } as KubeObject;
      },
    })
  ).items as Np[];
  const handoffs = (
    await m.list(RESOURCES.configMaps, {
      labelSelector: `${MANAGED_BY}=${MANAGED_BY_VALUE},${NTO_GENERATED_LABEL}=true`,
      pageSize,
      keep: (x) => {
        const cm = x as Cm;
        const image = handedOffImage(cm.data?.config ?? '');
        return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: cm.metadata.name, namespace: cm.metadata.namespace, labels: pick(cm.metadata.labels, [NODEPOOL_LABEL, CONFIG_LABEL]), annotations: pick(cm.metadata.annotations, [HANDOFF_RELEASE_ANNOTATION]) }, data: image ? { image } : {} } as KubeObject;
      },
    })
  ).items as Cm[];
  const jobs = (
    await m.list(RESOURCES.jobs, {
      namespace: o.buildNamespace,
      pageSize,
      // A Job's spec (its pod, the push Secret's name, the layer) is never kept.
      keep: (x) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: x.metadata.name, namespace: x.metadata.namespace }, status: (x as Job).status ?? {} }) as KubeObject,
    })
  ).items as Job[];

  const hostedClusters = (await m.list(HOSTED_CLUSTERS, { pageSize, keep: trimHostedCluster })).items;
  const rolloutCm = (await m.list(RESOURCES.configMaps, { namespace: o.namespace ?? FLEET_NAMESPACE, labelSelector: `${ROLLOUT_LABEL}=true`, pageSize })).items[0] as Cm | undefined;
  const rollout = rolloutView(nodePools, hostedClusters, rolloutCm, o.policy, o.now ?? Date.now());

  const byHandoff = new Map<string, Cm>();
  for (const cm of handoffs) {
    const np = cm.metadata.labels?.[NODEPOOL_LABEL];
    if (np) byHandoff.set(`${cm.metadata.namespace}/${np}`, cm);
  }
  const rows: NodePoolRow[] = nodePools.map((np) => {
    const a = np.metadata.annotations ?? {};
    const cluster = np.spec?.clusterName ?? '';
    const hcp = cluster ? hcpNamespaceOf(np.metadata.namespace!, cluster) : '';
    const cm = byHandoff.get(`${hcp}/${np.metadata.name}`);
    const release = np.spec?.release?.image ?? '';
    const layer: Layer = !cm ? 'none' : cm.metadata.labels?.[CONFIG_LABEL] ? 'tenant' : 'provider';
    const imageRelease = cm?.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
    const planned = rollout.rows.get(`${np.metadata.namespace}/${np.metadata.name}`);
    let state: GateState;
    let reason: string | undefined;
    if (a[BLOCKED_ANNOTATION] !== undefined) [state, reason] = ['Blocked', a[BLOCKED_ANNOTATION]];
    else if (a[PAUSED_FOR_ANNOTATION] !== undefined) state = a[REASON_ANNOTATION]?.startsWith(DEFERRED_PREFIX) ? 'Deferred' : 'Held';
    else if (planned?.reason && (planned.state === 'pending' || planned.state === 'blocked' || planned.state === 'halted') && !(cm && a[RELEASED_FOR_ANNOTATION] === release) && np.spec?.pausedUntil == null) [state, reason] = ['Deferred', planned.reason];
    else if (!cm) state = 'NotLayered';
    else if (imageRelease === release) state = 'Consistent';
    else if (a[RELEASED_FOR_ANNOTATION] === release) state = 'Released';
    else if (np.spec?.pausedUntil != null) state = 'PausedByOther';
    else state = 'Pending';
    return {
      namespace: np.metadata.namespace!,
      name: np.metadata.name!,
      hostedCluster: cluster,
      hcpNamespace: hcp,
      release,
      arch: np.spec?.arch || 'amd64',
      layer,
      ...(cm?.data?.image ? { image: cm.data.image } : {}),
      ...(imageRelease ? { imageRelease } : {}),
      state,
      ...(a[PAUSED_FOR_ANNOTATION] !== undefined && state !== 'Blocked' && a[HELD_SINCE_ANNOTATION] ? { heldSince: a[HELD_SINCE_ANNOTATION] } : {}),
      ...((reason ?? ((state === 'Held' || state === 'Deferred' || state === 'Released') && a[REASON_ANNOTATION])) ? { reason: clip(reason ?? a[REASON_ANNOTATION], 1024) } : {}),
      ...(planned ? { rollout: planned } : {}),
    };
  });
  rows.sort((x, y) => cmp(`${x.namespace}/${x.name}`, `${y.namespace}/${y.name}`));

  const builds: BuildRow[] = jobs.map((j) => {
    const s = j.status ?? {};
    const failed = s.conditions?.find((c) => c.type === 'Failed' && c.status === 'True');
    const state: BuildRow['state'] = failed ? 'Failed' : s.conditions?.some((c) => c.type === 'Complete' && c.status === 'True') ? 'Succeeded' : (s.active ?? 0) > 0 ? 'Running' : 'Pending';
    return { name: j.metadata.name!, state, ...(s.startTime ? { started: s.startTime } : {}), ...(failed ? { reason: clip([failed.reason, failed.message].filter(Boolean).join(': '), 512) } : {}) };
  });
  // Failing first: what the view is for.
  const rank = { Failed: 0, Running: 1, Pending: 2, Succeeded: 3 };
  builds.sort((x, y) => rank[x.state] - rank[y.state] || cmp(x.name, y.name));

  const count = <K extends string>(keys: readonly K[], of: K[]) => Object.fromEntries(keys.map((k) => [k, of.filter((v) => v === k).length])) as Record<K, number>;
  return {
    summary: {
      hostedClusters: new Set(rows.filter((r) => r.hostedCluster).map((r) => `${r.namespace}/${r.hostedCluster}`)).size,
      nodePools: rows.length,
      byLayer: count(['provider', 'tenant', 'none'] as const, rows.map((r) => r.layer)),
      byState: count(['Blocked', 'Deferred', 'Held', 'Released', 'Pending', 'PausedByOther', 'Consistent', 'NotLayered'] as const, rows.map((r) => r.state)),
      builds: count(['Failed', 'Running', 'Pending', 'Succeeded'] as const, builds.map((b) => b.state)),
    },
    nodePools: rows.slice(0, o.maxRows),
    builds: builds.slice(0, o.maxRows),
    omitted: { nodePools: Math.max(0, rows.length - o.maxRows), builds: Math.max(0, builds.length - o.maxRows) },
    rollout: rollout.view,
  };
}

/** The rollout planner over the fleet as listed (read-only: nothing is admitted or written). */
function rolloutView(nodePools: KubeObject[], hostedClusters: KubeObject[], cm: Cm | undefined, flagPolicy: RolloutPolicy | undefined, now: number): { view: RolloutView; rows: Map<string, NonNullable<NodePoolRow['rollout']>> } {
  const loaded = decodeRollout(cm);
  const problems = [...loaded.problems];
  let policy = flagPolicy;
  let policySource: RolloutView['policySource'] = flagPolicy ? 'flag' : 'default';
  if (!policy && cm?.data?.[POLICY_KEY]) {
    try {
      policy = parsePolicy(cm.data[POLICY_KEY], `ConfigMap ${cm.metadata.name} key ${POLICY_KEY}`);
      policySource = 'fleet';
    } catch (e) {
      if (!(e instanceof PolicyError)) throw e;
      problems.push(e.message);
    }
  }
  policy ??= parsePolicy(undefined);
  const labels = new Map(hostedClusters.map((h) => [`${h.metadata.namespace}/${h.metadata.name}`, h.metadata.labels ?? {}]));
  const observed: NodePoolObservation[] = [];
  for (const np of nodePools) {
    const obs = observationOf(np, {});
    if (obs) observed.push({ ...obs, hostedClusterLabels: labels.get(obs.hostedCluster) ?? {} });
  }
  const layer = loaded.state?.layer ?? '';
  const p = plan({ policy, layer, now, nodePools: observed, ...(loaded.state ? { state: loaded.state } : {}), control: loaded.control });
  // Without a rollout state the fleet has not planned anything yet: rows get no rollout column (the plan still shows what would happen).
  const rows = new Map(loaded.state ? p.rows.map((r) => [r.key, { state: r.state, canary: r.canary, ...(r.wave !== undefined ? { wave: r.wave } : {}), ...(r.reason ? { reason: r.reason } : {}) }]) : []);
  const groups = new Map<string, string[]>();
  for (const r of p.rows) if ((r.state === 'blocked' || r.state === 'halted' || r.state === 'pending') && r.reason) groups.set(r.reason, [...(groups.get(r.reason) ?? []), r.key]);
  const { pending, rolling, succeeded, failed, halted, blocked } = p.summary;
  return {
    rows,
    view: {
      policy: formatPolicy(policy),
      policySource,
      ...(layer ? { layer } : {}),
      byState: { pending, rolling, succeeded, failed, halted, blocked },
      canaries: p.summary.canaries,
      canariesDone: p.summary.canariesDone,
      rollingNow: p.summary.rollingNow,
      maxConcurrency: p.summary.maxConcurrency,
      ...(p.halted ? { halted: p.halted } : {}),
      ...(p.paused ? { paused: p.paused } : {}),
      ...(p.rolledBack ? { rolledBack: p.rolledBack } : {}),
      waves: p.waves.map((w) => ({ index: w.index, canary: w.canary, count: w.nodePools.length, nodePools: w.nodePools.slice(0, 20) })),
      ...(p.expected ? { expected: p.expected } : {}),
      blocked: [...groups].map(([reason, keys]) => ({ reason, count: keys.length, first: keys.slice(0, 5) })).sort((a, b) => b.count - a.count || cmp(a.reason, b.reason)),
      problems,
    },
  };
}

function duration(s: number): string {
  const h = Math.floor(s / 3600);
  const m = Math.round((s % 3600) / 60);
  return h ? `${h}h${m ? ` ${m}m` : ''}` : `${m}m`;
}

/** The plan (`fleet-status --plan`), text or JSON. */
export function formatRolloutPlan(v: RolloutView, output: 'text' | 'json'): string {
  if (output === 'json') return `${JSON.stringify(v, null, 2)}\n`;
  const out: string[] = [];
  out.push(`rollout policy (${v.policySource === 'fleet' ? 'the fleet runs' : v.policySource === 'flag' ? '--rollout' : 'default'}): ${JSON.stringify(v.policy)}`);
  if (v.layer) out.push(`layer: ${v.layer}`);
  for (const [k, t] of [['halted', v.halted], ['paused', v.paused], ['rolled back', v.rolledBack]] as const) if (t) out.push(`${k.toUpperCase()}: ${t}`);
  const kv = (r: Record<string, number>) => Object.entries(r).map(([k, n]) => `${k} ${n}`).join(', ');
  out.push(`NodePools: ${kv(v.byState)}; rolling now ${v.rollingNow} of at most ${v.maxConcurrency}${v.canaries ? `; canaries ${v.canariesDone}/${v.canaries} done` : ''}`);
  if (v.policy.type === 'RideReleaseChange') out.push('no waves: each NodePool takes the layer in the rollout its own next release change causes');
  else if (v.waves.length) {
    out.push('');
    const head = ['WAVE', 'CANARY', 'NODEPOOLS', 'FIRST'];
    const body = v.waves.map((w) => [String(w.index), w.canary ? 'yes' : 'no', String(w.count), w.nodePools.slice(0, 3).join(', ') + (w.count > 3 ? ', …' : '')]);
    const wd = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
    for (const r of [head, ...body]) out.push(r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(wd[i]!))).join('  ').trimEnd());
  }
  if (v.expected) out.push(`expected: about ${duration(v.expected.seconds)} (${v.waves.length} wave(s) to go, ${duration(v.expected.perNodePoolSeconds)} per NodePool: ${v.expected.basis}; waves are a bound, the window slides)`);
  if (v.blocked.length) {
    out.push('');
    out.push('NOT STARTING NOW, AND WHY:');
    for (const b of v.blocked.slice(0, 20)) out.push(`  ${b.count}× ${clip(b.reason, 300)} (${b.first.join(', ')}${b.count > b.first.length ? ', …' : ''})`);
  }
  for (const p of v.problems) out.push(`problem: ${clip(p, 300)}`);
  return `${out.join('\n')}\n`;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `repo@sha256:<64>` → `repo@sha256:<12>…` for the table (JSON keeps it whole). */
function short(ref: string | undefined): string {
  if (!ref) return '-';
  const m = /^(.*@sha256:)([0-9a-f]{12})[0-9a-f]{52}$/.exec(ref);
  return m ? `${m[1]}${m[2]}…` : ref;
}

export function formatFleetStatus(s: FleetStatus, output: 'text' | 'json'): string {
  if (output === 'json') return `${JSON.stringify(s, null, 2)}\n`;
  const table = (head: string[], body: string[][]) => {
    const w = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
    return [head, ...body].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]))).join('  ').trimEnd()).join('\n');
  };
  const out: string[] = [];
  const sm = s.summary;
  const kv = (r: Record<string, number>) => Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ');
  out.push(`${sm.hostedClusters} hosted cluster(s), ${sm.nodePools} NodePool(s); layers: ${kv(sm.byLayer)}; gate: ${kv(sm.byState)}; provider builds: ${kv(sm.builds)}`);
  const ro = s.rollout;
  out.push(`rollout (${String(ro.policy.type)}): ${kv(ro.byState)}; rolling now ${ro.rollingNow} of at most ${ro.maxConcurrency}${ro.canaries ? `; canaries ${ro.canariesDone}/${ro.canaries} done` : ''}`);
  for (const [k, t] of [['halted', ro.halted], ['paused', ro.paused], ['rolled back', ro.rolledBack]] as const) if (t) out.push(`ROLLOUT ${k.toUpperCase()}: ${clip(t, 1024)}`);
  out.push('');
  out.push(
    table(
      ['NODEPOOL', 'HOSTEDCLUSTER', 'LAYER', 'STATE', 'ROLLOUT', 'RELEASE', 'IMAGE', 'IMAGE FOR RELEASE', 'REASON'],
      s.nodePools.map((r) => [
        `${r.namespace}/${r.name}`,
        r.hostedCluster || '-',
        r.layer,
        r.state,
        r.rollout ? `${r.rollout.state}${r.rollout.canary ? ' (canary)' : ''}${r.rollout.wave ? ` wave ${r.rollout.wave}` : ''}` : '-',
        short(r.release),
        short(r.image),
        short(r.imageRelease),
        clip(r.reason) ?? (r.heldSince ? `held since ${r.heldSince}` : r.rollout && (r.rollout.state === 'failed' || r.rollout.state === 'halted' || r.rollout.state === 'rolling') ? (clip(r.rollout.reason) ?? '') : ''),
      ]),
    ),
  );
  if (s.omitted.nodePools) out.push(`… ${s.omitted.nodePools} more NodePool(s) (--max-rows)`);
  if (s.builds.length) {
    out.push('');
    out.push(table(['BUILD JOB', 'STATE', 'STARTED', 'REASON'], s.builds.map((b) => [b.name, b.state, b.started ?? '-', clip(b.reason) ?? ''])));
    if (s.omitted.builds) out.push(`… ${s.omitted.builds} more build(s) (--max-rows)`);
  }
  return `${out.join('\n')}\n`;
}

/**
 * The command, whole: `-o` is `--output`; a bad flag or value is a usage error (exit 2), a failed
 * read one located line (exit 1, no stack, no object contents), success exit 0.
 */
export async function fleetStatusMain(args: string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void): Promise<number> {
  let flags: FlagValues;
  let policy: RolloutPolicy | undefined;
  try {
    flags = parseFlags('on-cluster-build fleet-status', FLEET_STATUS_FLAGS, args.map((a) => (a === '-o' ? '--output' : a.startsWith('-o=') ? `--output=${a.slice(3)}` : a)), env);
    const output = String(flags.output);
    if (output !== 'text' && output !== 'json') throw new FlagError(`on-cluster-build fleet-status: --output takes text or json, got ${JSON.stringify(output)}`);
    const maxRows = Number(flags['max-rows']);
    if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > 100000) throw new FlagError(`on-cluster-build fleet-status: --max-rows takes 1 to 100000, got ${maxRows}`);
    if (String(flags.rollout)) {
      if (!flags.plan) throw new FlagError('on-cluster-build fleet-status: --rollout is for --plan');
      try {
        policy = parsePolicy(String(flags.rollout), '--rollout');
      } catch (e) {
        if (!(e instanceof PolicyError)) throw e;
        throw new FlagError(`on-cluster-build fleet-status: ${e.message}`);
      }
    }
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  try {
    const management = await Kube.load(String(flags.kubeconfig) || undefined);
    const status = await fleetStatus({ management, buildNamespace: String(flags['build-namespace']), maxRows: Number(flags['max-rows']), namespace: String(flags.namespace), ...(policy ? { policy } : {}) });
    out(flags.plan ? formatRolloutPlan(status.rollout, flags.output as 'text' | 'json') : formatFleetStatus(status, flags.output as 'text' | 'json'));
    return 0;
  } catch (e) {
    err(`on-cluster-build fleet-status: ${(e as Error).message}\n`);
    return 1;
  }
}
