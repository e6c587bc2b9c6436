/**
 * `on-cluster-build fleet-status`: the fleet view (issue 27, "Fleet view"). Reads, with the
 * caller's kubeconfig, three things and nothing else: NodePools cluster-wide (the gate's
 * annotations and label, the release), the hand-off ConfigMaps across HCP namespaces (one
 * label-selected list: which image, which layer, for which release), and the provider build Jobs
 * in the build namespace (the fleet's --build-namespace). It prints which hosted clusters and NodePools run which layer, which are
 * held and why, and which builds fail. Every list is paged (builder/clusters/kube.ts), only the fields shown
 * are kept, rows are capped (`--max-rows`; the summary always counts everything), and nothing from
 * a Secret, the package config or a Job's spec is read or printed.
 */
import { FlagError, parseFlags, type FlagSpec, type FlagValues } from '../flags.js';
import { Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { handedOffImage, HANDOFF_RELEASE_ANNOTATION, NTO_GENERATED_LABEL } from '../controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE, NODEPOOL_LABEL } from '../controller/build-job.js';
import { GATED_LABEL, HELD_SINCE_ANNOTATION, NODEPOOLS, PAUSED_FOR_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION } from './gate.js';
import { hcpNamespaceOf } from './pass.js';
import { FLEET_BUILD_NAMESPACE } from './rbac.js';
import type { PolicyRule } from '../policy/rbac.js';

export const FLEET_STATUS_SUMMARY = 'show which hosted clusters and NodePools run which OS layer, which are held by the upgrade gate and why, and failing provider builds';

export const FLEET_STATUS_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', env: 'KUBECONFIG', default: '', description: "kubeconfig of the management cluster; empty: the pod's in-cluster ServiceAccount" },
  { name: 'build-namespace', type: 'string', default: FLEET_BUILD_NAMESPACE, description: "namespace of the fleet component's provider build Jobs (its --build-namespace)" },
  { name: 'output', type: 'string', default: 'text', description: 'text or json (-o is the same flag)' },
  { name: 'max-rows', type: 'int', default: 500, description: 'NodePool and build rows printed at most (the summary counts all)' },
];

/**
 * The only rights the view uses (list, paged): the caller's kubeconfig needs these, nothing more.
 * ConfigMaps are listed cluster-wide with a label selector (only hand-offs come back), Jobs only
 * in the build namespace.
 */
export const FLEET_STATUS_READS: readonly PolicyRule[] = [
  { apiGroups: ['hypershift.openshift.io'], resources: ['nodepools'], verbs: ['list'] },
  { apiGroups: [''], resources: ['configmaps'], verbs: ['list'] },
];
export const FLEET_STATUS_NAMESPACED_READS: readonly PolicyRule[] = [{ apiGroups: ['batch'], resources: ['jobs'], verbs: ['list'] }];

export type Layer = 'provider' | 'tenant' | 'none';
export type GateState = 'NotLayered' | 'Consistent' | 'Held' | 'Released' | 'Pending' | 'PausedByOther';

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
}

const MAX_TEXT = 160;
const clip = (s: string | undefined, n = MAX_TEXT) => (s === undefined ? undefined : s.length <= n ? s : `${s.slice(0, n - 1)}…`);

type Np = KubeObject & { spec?: { clusterName?: string; release?: { image?: string }; arch?: string; pausedUntil?: string } };
type Cm = KubeObject & { data?: Record<string, string> };
type Job = KubeObject & { status?: { active?: number; succeeded?: number; failed?: number; startTime?: string; conditions?: { type?: string; status?: string; reason?: string; message?: string }[] } };

/** Reads the fleet and answers the view (pure past the three lists; tested on the API test server). */
export async function fleetStatus(o: { management: Kube; buildNamespace: string; maxRows: number; pageSize?: number }): Promise<FleetStatus> {
  const m = o.management;
  const pageSize = o.pageSize ?? 500;
  const ann = [PAUSED_FOR_ANNOTATION, HELD_SINCE_ANNOTATION, RELEASED_FOR_ANNOTATION, REASON_ANNOTATION];
  const pick = (rec: Record<string, string> | undefined, keys: string[]) => Object.fromEntries(keys.filter((k) => rec?.[k] !== undefined).map((k) => [k, rec![k]]));
  const nodePools = (
    await m.list(NODEPOOLS, {
      pageSize,
      keep: (x) => {
        const np = x as Np;
        return {
          apiVersion: np.apiVersion,
          kind: np.kind,
          metadata: { name: np.metadata.name, namespace: np.metadata.namespace, labels: pick(np.metadata.labels, [GATED_LABEL]), annotations: pick(np.metadata.annotations, ann) },
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
    let state: GateState;
    if (!cm) state = 'NotLayered';
    else if (a[PAUSED_FOR_ANNOTATION] !== undefined) state = 'Held';
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
      ...(state === 'Held' && a[HELD_SINCE_ANNOTATION] ? { heldSince: a[HELD_SINCE_ANNOTATION] } : {}),
      ...((state === 'Held' || state === 'Released') && a[REASON_ANNOTATION] ? { reason: clip(a[REASON_ANNOTATION], 1024) } : {}),
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
      byState: count(['Held', 'Released', 'Pending', 'PausedByOther', 'Consistent', 'NotLayered'] as const, rows.map((r) => r.state)),
      builds: count(['Failed', 'Running', 'Pending', 'Succeeded'] as const, builds.map((b) => b.state)),
    },
    nodePools: rows.slice(0, o.maxRows),
    builds: builds.slice(0, o.maxRows),
    omitted: { nodePools: Math.max(0, rows.length - o.maxRows), builds: Math.max(0, builds.length - o.maxRows) },
  };
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
  out.push('');
  out.push(
    table(
      ['NODEPOOL', 'HOSTEDCLUSTER', 'LAYER', 'STATE', 'RELEASE', 'IMAGE', 'IMAGE FOR RELEASE', 'REASON'],
      s.nodePools.map((r) => [`${r.namespace}/${r.name}`, r.hostedCluster || '-', r.layer, r.state, short(r.release), short(r.image), short(r.imageRelease), clip(r.reason) ?? (r.heldSince ? `held since ${r.heldSince}` : '')]),
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
  try {
    flags = parseFlags('on-cluster-build fleet-status', FLEET_STATUS_FLAGS, args.map((a) => (a === '-o' ? '--output' : a.startsWith('-o=') ? `--output=${a.slice(3)}` : a)), env);
    const output = String(flags.output);
    if (output !== 'text' && output !== 'json') throw new FlagError(`on-cluster-build fleet-status: --output takes text or json, got ${JSON.stringify(output)}`);
    const maxRows = Number(flags['max-rows']);
    if (!Number.isInteger(maxRows) || maxRows < 1 || maxRows > 100000) throw new FlagError(`on-cluster-build fleet-status: --max-rows takes 1 to 100000, got ${maxRows}`);
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  try {
    const management = await Kube.load(String(flags.kubeconfig) || undefined);
    const status = await fleetStatus({ management, buildNamespace: String(flags['build-namespace']), maxRows: Number(flags['max-rows']) });
    out(formatFleetStatus(status, flags.output as 'text' | 'json'));
    return 0;
  } catch (e) {
    err(`on-cluster-build fleet-status: ${(e as Error).message}\n`);
    return 1;
  }
}
