/**
 * What the per-HCP controller can know about a NodePool besides its token Secret, each fact from
 * a named source (evidence in docs/design/controller.md "Per-NodePool inputs"):
 *
 * - architecture: HyperShift's scale-from-zero label annotation on the NodePool's
 *   MachineDeployment/MachineSet (written by the NodePool controller from the cloud's instance
 *   type, management side), else the architecture the NodePool's Machines report
 *   (`status.nodeInfo.architecture`, copied by CAPI from the hosted Node: tenant-reported, so it
 *   only ever selects what is built for that tenant's own NodePool, and the built image is checked
 *   in the registry to be of the architecture asked for);
 * - taints: the `hypershift.openshift.io/nodePoolTaints` annotation HyperShift puts on the
 *   NodePool's Machines (and MachineSet templates), which HCCO copies onto the Nodes;
 * - OS stream: the token Secret's `os-stream` (`rhel-10` builds FROM `rhel-coreos-10`);
 * - registry mirrors: the HostedControlPlane's `spec.imageContentSources`;
 * - whether a hand-off can take effect: `spec.capabilities.disabled` of the HostedControlPlane.
 *
 * Pure functions over objects as the API returns them.
 */
import type { KubeObject } from '../clusters/kube.js';

export const NODEPOOL_ANNOTATION = 'hypershift.openshift.io/nodePool';
export const NODEPOOL_TAINTS_ANNOTATION = 'hypershift.openshift.io/nodePoolTaints';
export const SCALE_FROM_ZERO_LABELS_ANNOTATION = 'capacity.cluster-autoscaler.kubernetes.io/labels';
export const ARCH_LABEL = 'kubernetes.io/arch';
/** The architectures a NodePool may have (HyperShift's `spec.arch` enum); a build runs on one of them. */
export const BUILD_ARCHES = ['amd64', 'arm64', 'ppc64le', 's390x'] as const;
export type BuildArch = (typeof BUILD_ARCHES)[number];

/** A core/v1 Toleration, as a NodePool's taints become one for its build pods. */
export interface Toleration {
  key?: string;
  operator?: 'Exists' | 'Equal';
  value?: string;
  effect?: 'NoSchedule' | 'PreferNoSchedule' | 'NoExecute';
  tolerationSeconds?: number;
}

type Obj = KubeObject & { spec?: any; status?: any };

const annotationsOf = (o: { metadata: { annotations?: Record<string, string> } }): Record<string, string> => (o.metadata.annotations ?? {}) as Record<string, string>;
const templateAnnotationsOf = (o: Obj): Record<string, string> => (o.spec?.template?.metadata?.annotations ?? {}) as Record<string, string>;

/** Objects of the NodePool `<namespace>/<name>` (by their own or their template's nodePool annotation). */
export function ofNodePool<T extends Obj>(objs: readonly T[], nodePoolKey: string): T[] {
  return objs.filter((o) => annotationsOf(o)[NODEPOOL_ANNOTATION] === nodePoolKey || templateAnnotationsOf(o)[NODEPOOL_ANNOTATION] === nodePoolKey);
}

export type ArchFact = { arch: BuildArch; source: string } | { arch?: undefined; reason: string };

/** The NodePool's CPU architecture, from the most trusted source that has it. */
export function nodePoolArch(nodePoolKey: string, capi: { machineDeployments: readonly Obj[]; machineSets: readonly Obj[]; machines: readonly Obj[] }): ArchFact {
  for (const [kind, list] of [['MachineDeployment', capi.machineDeployments], ['MachineSet', capi.machineSets]] as const) {
    for (const o of ofNodePool(list, nodePoolKey)) {
      const labels = annotationsOf(o)[SCALE_FROM_ZERO_LABELS_ANNOTATION];
      const arch = typeof labels === 'string' ? labels.split(',').map((kv) => kv.split('=')).find(([k]) => k === ARCH_LABEL)?.[1] : undefined;
      if (arch && (BUILD_ARCHES as readonly string[]).includes(arch)) return { arch: arch as BuildArch, source: `${kind} ${o.metadata.name} annotation ${SCALE_FROM_ZERO_LABELS_ANNOTATION}` };
    }
  }
  const reported = new Set<string>();
  for (const m of ofNodePool(capi.machines, nodePoolKey)) {
    const a = m.status?.nodeInfo?.architecture;
    if (typeof a === 'string' && a) reported.add(a);
  }
  if (reported.size === 1) {
    const arch = [...reported][0];
    if ((BUILD_ARCHES as readonly string[]).includes(arch)) return { arch: arch as BuildArch, source: 'status.nodeInfo.architecture of its Machines' };
    return { reason: `its Machines report architecture ${JSON.stringify(arch)}, which is not one of ${BUILD_ARCHES.join(', ')}` };
  }
  if (reported.size > 1) return { reason: `its Machines report more than one architecture (${[...reported].sort().join(', ')})` };
  return {
    reason: `neither its MachineDeployment/MachineSet (annotation ${SCALE_FROM_ZERO_LABELS_ANNOTATION}) nor a Machine (status.nodeInfo.architecture) in this namespace names its architecture yet`,
  };
}

/** Tolerations for the NodePool's taints, so its build may run on its own nodes too. */
export function nodePoolTolerations(nodePoolKey: string, capi: { machineSets: readonly Obj[]; machines: readonly Obj[] }): Toleration[] {
  const out = new Map<string, Toleration>();
  const add = (json: string | undefined) => {
    if (typeof json !== 'string' || !json) return;
    let taints: unknown;
    try {
      taints = JSON.parse(json);
    } catch {
      return; // HyperShift writes JSON; anything else is not a taint list
    }
    if (!Array.isArray(taints)) return;
    for (const t of taints.slice(0, 64)) {
      if (!t || typeof t !== 'object' || typeof t.key !== 'string' || !t.key) continue;
      const effect = t.effect === 'NoSchedule' || t.effect === 'PreferNoSchedule' || t.effect === 'NoExecute' ? t.effect : undefined;
      const value = typeof t.value === 'string' && t.value ? t.value : undefined;
      const tol: Toleration = value ? { key: t.key, operator: 'Equal', value, ...(effect ? { effect } : {}) } : { key: t.key, operator: 'Exists', ...(effect ? { effect } : {}) };
      out.set(JSON.stringify(tol), tol);
    }
  };
  for (const s of ofNodePool(capi.machineSets, nodePoolKey)) add(templateAnnotationsOf(s)[NODEPOOL_TAINTS_ANNOTATION]);
  for (const m of ofNodePool(capi.machines, nodePoolKey)) add(annotationsOf(m)[NODEPOOL_TAINTS_ANNOTATION]);
  return [...out.keys()].sort().map((k) => out.get(k)!);
}

/** The release tag of the base OS for a token Secret's `os-stream` (undefined: the release's default). */
export function baseOSTagForStream(stream: string | undefined): { tag?: string } | { error: string } {
  if (!stream || stream === 'rhel-9') return {};
  if (stream === 'rhel-10') return { tag: 'rhel-coreos-10' };
  return { error: `os-stream ${JSON.stringify(stream)} is not one HyperShift writes (rhel-9, rhel-10)` };
}

export interface ImageContentSource {
  source: string;
  mirrors?: string[];
}

const REPO_RE = /^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(\/[a-zA-Z0-9]+([._-][a-zA-Z0-9]+)*)*$/;

/**
 * containers-registries.conf(5) (v2) for the HostedControlPlane's `spec.imageContentSources`:
 * one `[[registry]]` per source with its mirrors, `mirror-by-digest-only = true` (the
 * ImageContentSourcePolicy semantics HyperShift's field carries). Undefined when there are none.
 * Entries that are not repository names are skipped (the field is the provider's, but a TOML
 * file is no place to find out).
 */
export function registriesConf(sources: unknown): string | undefined {
  if (!Array.isArray(sources)) return undefined;
  const blocks: string[] = [];
  for (const s of sources.slice(0, 255)) {
    if (!s || typeof s !== 'object' || typeof s.source !== 'string' || !REPO_RE.test(s.source)) continue;
    const mirrors = (Array.isArray(s.mirrors) ? s.mirrors : []).filter((m: unknown): m is string => typeof m === 'string' && REPO_RE.test(m));
    if (!mirrors.length) continue;
    blocks.push(
      ['[[registry]]', '  prefix = ""', `  location = ${JSON.stringify(s.source)}`, '  mirror-by-digest-only = true', '', ...mirrors.flatMap((m: string) => ['  [[registry.mirror]]', `    location = ${JSON.stringify(m)}`, ''])].join('\n'),
    );
  }
  return blocks.length ? `unqualified-search-registries = []\n\n${blocks.join('\n')}` : undefined;
}

/** HyperShift reads our hand-off ConfigMap only while the NodeTuning capability is enabled. */
export function nodeTuningDisabled(hcp: Obj | undefined): boolean {
  const d = hcp?.spec?.capabilities?.disabled;
  return Array.isArray(d) && d.includes('NodeTuning');
}

/** Ready, schedulable hosted-cluster Nodes of `arch` (tenant-reported: decides only where the tenant's own build runs). */
export function readyNodesOfArch(nodes: readonly Obj[], arch: string): string[] {
  return nodes
    .filter((n) => n.metadata.labels?.[ARCH_LABEL] === arch && !n.spec?.unschedulable && (n.status?.conditions ?? []).some((c: any) => c?.type === 'Ready' && c?.status === 'True'))
    .map((n) => n.metadata.name!)
    .sort();
}

export const CURRENT_CONFIG_VERSION_ANNOTATION = 'hypershift.openshift.io/nodePoolCurrentConfigVersion';

export interface NodesOnImage {
  /** Machines of the NodePool (Cluster API, management side). */
  total: number;
  /** Of those, the ones whose config (by its hash) carries `image`. */
  onImage: number;
}

/**
 * How many of a NodePool's machines run `image`, from management-side state only. HyperShift
 * names a config's token and user-data Secrets with the same hash (`token-<np>-<hash>`,
 * `user-data-<np>-<hash>`). Replace: a Machine boots from `spec.bootstrap.dataSecretName`, so its
 * config is that hash's. InPlace: HCCO sets the MachineSet's `nodePoolCurrentConfigVersion` to the
 * target hash once every node of it is updated, so its Machines are on that hash's config.
 * `imageByHash` maps `<nodepool>/<hash>` to the image our MachineConfig in that config names.
 */
export function nodesOnImage(nodePool: string, nodePoolKey: string, image: string, capi: { machineSets: readonly Obj[]; machines: readonly Obj[] }, imageByHash: ReadonlyMap<string, string>): NodesOnImage {
  const machines = ofNodePool(capi.machines, nodePoolKey);
  const setVersion = new Map<string, string>();
  for (const s of ofNodePool(capi.machineSets, nodePoolKey)) {
    const v = annotationsOf(s)[CURRENT_CONFIG_VERSION_ANNOTATION];
    if (v) setVersion.set(s.metadata.name!, v);
  }
  const prefix = `user-data-${nodePool}-`;
  let onImage = 0;
  for (const m of machines) {
    const hashes: string[] = [];
    const ds = m.spec?.bootstrap?.dataSecretName;
    if (typeof ds === 'string' && ds.startsWith(prefix)) hashes.push(ds.slice(prefix.length));
    const owner = (m.metadata.ownerReferences ?? []).find((r) => r.kind === 'MachineSet');
    const v = owner ? setVersion.get(owner.name) : undefined;
    if (v) hashes.push(v);
    if (hashes.some((h) => imageByHash.get(`${nodePool}/${h}`) === image)) onImage++;
  }
  return { total: machines.length, onImage };
}

/** The NodesUpdated condition's status, reason and message. */
export type NodesUpdated = ['True' | 'False', string, string];

/**
 * The NodesUpdated condition: machines on `image` / machines, from management-side state
 * (`nodesOnImage`); `shown` is how many hosted-cluster Nodes carry the NodePool's label, said
 * beside it (tenant-reported, never counted).
 */
export function nodesUpdated(nodePool: string, nodePoolKey: string, image: string, seen: { capi: { machineSets: readonly Obj[]; machines: readonly Obj[] }; imageByHash: ReadonlyMap<string, string>; hostedNodesByPool: ReadonlyMap<string, number> }): NodesUpdated {
  const n = nodesOnImage(nodePool, nodePoolKey, image, seen.capi, seen.imageByHash);
  const shown = seen.hostedNodesByPool.get(nodePool);
  const also = shown === undefined ? '' : ` (the hosted cluster lists ${shown} Node${shown === 1 ? '' : 's'} labelled with this NodePool)`;
  if (n.total === 0) return ['False', 'NoMachines', `NodePool ${nodePool} has no machines${also}`];
  const msg = `${n.onImage}/${n.total} machines of NodePool ${nodePool} run ${image}${also}`;
  return n.onImage === n.total ? ['True', 'AllNodesUpdated', msg] : ['False', 'RollingOut', msg];
}

/**
 * The HostedCluster's additional trust bundle, as HyperShift copies it into the HCP namespace
 * (openshift/hypershift 3ee96155 hostedcluster_controller.go reconcileAdditionalTrustBundle;
 * manifests/controlplaneoperator/manifests.go UserCABundle; key support/certs/tls.go).
 */
export const USER_CA_BUNDLE = { name: 'user-ca-bundle', key: 'ca-bundle.crt' } as const;
/** The largest trust bundle a build takes: it rides in the build's ConfigMap (1 MiB with the rest). */
export const MAX_TRUST_BUNDLE_BYTES = 256 * 1024;

/**
 * The PEM bundle of a trust bundle ConfigMap (key `ca-bundle.crt`): the user-ca-bundle for tenant
 * builds, the provider's (builder/fleet/provider-build.ts) for provider builds. None when absent
 * or empty, or why it cannot be used.
 */
export function trustBundleOf(cm: Obj | undefined): { pem?: string } | { error: string } {
  const pem = (cm as { data?: Record<string, unknown> } | undefined)?.data?.[USER_CA_BUNDLE.key];
  if (typeof pem !== 'string' || pem.trim() === '') return {};
  const where = `ConfigMap ${cm!.metadata.namespace ?? ''}/${cm!.metadata.name ?? USER_CA_BUNDLE.name} key ${USER_CA_BUNDLE.key}`;
  if (Buffer.byteLength(pem) > MAX_TRUST_BUNDLE_BYTES) return { error: `${where} holds ${Buffer.byteLength(pem)} bytes, more than the ${MAX_TRUST_BUNDLE_BYTES} a build takes` };
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) return { error: `${where} holds no PEM certificate` };
  return { pem };
}

