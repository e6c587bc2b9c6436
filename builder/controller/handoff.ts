/**
 * How a built image reaches a NodePool, through an input HyperShift already consumes (evidence
 * in docs/design/hand-off.md, "The hand-off ConfigMap"): the NodePool controller appends to a NodePool's machine
 * config every ConfigMap in the HCP namespace labelled
 * `hypershift.openshift.io/nto-generated-machine-config: "true"` and
 * `hypershift.openshift.io/nodePool: <name>` (key `config`), when the NodeTuning capability is
 * enabled (the default), and re-reconciles the NodePool when such a ConfigMap changes. A
 * MachineConfig there with `spec.osImageURL` changes the config hash, so HyperShift rolls the
 * NodePool (Replace: new machines boot and rebase; InPlace: the MCD rebases).
 *
 * NTO prunes only the ConfigMaps it generated (annotation
 * `tuned.openshift.io/generated-by-controller-version`, names `nto-mc-*`): ours carry neither.
 */
import { parseYaml11 } from 'pkogen/yaml';
import type { KubeObject } from '../clusters/kube.js';
import { GROUP } from '../api/types.js';
import { LABEL_PREFIX, MANAGED_BY, MANAGED_BY_VALUE, NODEPOOL_LABEL } from './build-job.js';

export const NTO_GENERATED_LABEL = 'hypershift.openshift.io/nto-generated-machine-config';
/** The MachineConfig name; `99-` so it sorts last among worker configs, as user overrides do. */
export const OS_IMAGE_MACHINE_CONFIG = '99-on-cluster-build-os-image';
export const HANDOFF_PREFIX = 'on-cluster-build-os-image-';
/** On the hand-off: the NodePool release (`spec.release.image`) its image was built for (the fleet gate compares it). */
export const HANDOFF_RELEASE_ANNOTATION = `${LABEL_PREFIX}/release-image`;
/** On the hand-off: the build whose verified image it carries. */
export const HANDOFF_BUILD_ANNOTATION = `${GROUP}/nodepoolosbuild`;

/**
 * On the hand-off: the NodePool release the fleet gate holds the NodePool for; the
 * per-HCP controller builds for it instead of the token Secret's release (builder/fleet/gate.ts).
 */
export const WANTED_RELEASE_ANNOTATION = `${LABEL_PREFIX}/wanted-release`;

export const handoffName = (nodePool: string) => `${HANDOFF_PREFIX}${nodePool}`.slice(0, 253);

export function osImageMachineConfigYaml(imagePullSpec: string): string {
  // JSON is YAML: no quoting question can arise from an image reference.
  return JSON.stringify(
    {
      apiVersion: 'machineconfiguration.openshift.io/v1',
      kind: 'MachineConfig',
      metadata: { name: OS_IMAGE_MACHINE_CONFIG, labels: { 'machineconfiguration.openshift.io/role': 'worker' } },
      spec: { osImageURL: imagePullSpec },
    },
    null,
    2,
  ) + '\n';
}

export function handoffConfigMap(namespace: string, nodePool: string, configName: string, imagePullSpec: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: handoffName(nodePool),
      namespace,
      labels: {
        [NTO_GENERATED_LABEL]: 'true',
        [NODEPOOL_LABEL]: nodePool,
        [MANAGED_BY]: MANAGED_BY_VALUE,
        [`${LABEL_PREFIX}/nodepoolosconfig`]: configName,
      },
    },
    data: { config: osImageMachineConfigYaml(imagePullSpec) },
  };
}

/**
 * The NodePool's config without our own MachineConfig: the build must not depend on the image it
 * produced, or every hand-off would trigger a rebuild (on-cluster-builds.md §7.2, feedback loop).
 * HyperShift joins documents with "\n---\n" and sorts them; we drop the one whose name is ours.
 */
export function configWithoutHandoff(config: string): string {
  const docs = config.split(/^---[ \t]*$/m).map((d) => d.trim()).filter(Boolean);
  return docs.filter((d) => !isOurMachineConfig(d)).sort().join('\n---\n');
}

/** The osImageURL our own MachineConfig carries in a NodePool config, if it is there. */
export function handedOffImage(config: string): string | undefined {
  for (const d of config.split(/^---[ \t]*$/m)) {
    if (!d.includes(OS_IMAGE_MACHINE_CONFIG)) continue;
    let obj: any;
    try {
      obj = parseYaml11(d.trim(), 'NodePool config');
    } catch {
      continue;
    }
    if (obj?.kind === 'MachineConfig' && obj?.metadata?.name === OS_IMAGE_MACHINE_CONFIG && typeof obj?.spec?.osImageURL === 'string') return obj.spec.osImageURL;
  }
  return undefined;
}

function isOurMachineConfig(doc: string): boolean {
  let obj: unknown;
  try {
    obj = parseYaml11(doc, 'NodePool config'); // the one bounded reader: aliases, depth and size are capped
  } catch {
    return false; // not ours: ours is always well-formed, and HyperShift validated the rest
  }
  const o = obj as { kind?: unknown; metadata?: { name?: unknown } } | null;
  return !!o && typeof o === 'object' && o.kind === 'MachineConfig' && o.metadata?.name === OS_IMAGE_MACHINE_CONFIG;
}

/**
 * The provider-images channel (docs/design/fleet.md "Layers compose"): in each HCP namespace
 * where our package is installed, the fleet component publishes, per NodePool, the
 * provider-layered image it built and verified for that NodePool's (release, arch, stream). The
 * per-HCP controller builds a tenant layer FROM it and verifies the tenant image descends from it;
 * while a provider layer is in force (`_layer` set, not `none`) and the NodePool has no entry for
 * the release it builds for, the tenant build waits instead of building on the bare release OS
 * (which would strip the provider's layer).
 *
 * Written on the management side only (HCP namespaces are not tenant-writable; the fleet's right
 * to it is narrowed by its ValidatingAdmissionPolicy). It never carries the NTO label: HyperShift
 * must not read it as machine config. Keys: `_layer` (the provider layer's id; `_` cannot begin a
 * NodePool name) and one key per NodePool name, whose value is a JSON ProviderImageEntry.
 */
export const PROVIDER_IMAGES_CONFIGMAP = 'on-cluster-build-provider-images';
export const PROVIDER_LAYER_KEY = '_layer';
/** `_layer` when the fleet has no provider layer (it had one before: entries are void). */
export const NO_PROVIDER_LAYER = 'none';
/** Bounds on what the reader takes from the ConfigMap (a fleet bug must not grow a controller's memory). */
export const MAX_PROVIDER_ENTRIES = 1024;
const MAX_ENTRY_CHARS = 2048;
const DIGEST_REF_RE = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

export interface ProviderImageEntry {
  /** The NodePool's `spec.release.image` the image was built for. */
  release: string;
  arch: string;
  stream?: string;
  /** The provider-layered image, by digest. */
  image: string;
}
export interface ProviderImages {
  layer: string;
  entries: Map<string, ProviderImageEntry>;
}

/** The channel as the per-HCP controller reads it: undefined when absent; bad entries are skipped (the fleet rewrites them). */
export function parseProviderImages(cm: { metadata: { name?: string }; data?: Record<string, string> } | undefined): ProviderImages | undefined {
  if (!cm || cm.metadata.name !== PROVIDER_IMAGES_CONFIGMAP) return undefined;
  const data = cm.data ?? {};
  const layer = data[PROVIDER_LAYER_KEY];
  if (typeof layer !== 'string' || !layer) return undefined;
  const entries = new Map<string, ProviderImageEntry>();
  for (const [k, v] of Object.entries(data)) {
    if (k === PROVIDER_LAYER_KEY || entries.size >= MAX_PROVIDER_ENTRIES) continue;
    const e = parseEntry(v);
    if (e) entries.set(k, e);
  }
  return { layer, entries };
}

function parseEntry(v: unknown): ProviderImageEntry | undefined {
  if (typeof v !== 'string' || v.length > MAX_ENTRY_CHARS) return undefined;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(v);
  } catch {
    return undefined;
  }
  if (!o || typeof o !== 'object') return undefined;
  const { release, arch, stream, image } = o;
  if (typeof release !== 'string' || !release || typeof arch !== 'string' || !arch || typeof image !== 'string' || !DIGEST_REF_RE.test(image)) return undefined;
  if (stream !== undefined && typeof stream !== 'string') return undefined;
  return { release, arch, ...(stream ? { stream } : {}), image };
}

/** One entry's value (the writer's side of parseEntry). */
export function providerImageEntryText(e: ProviderImageEntry): string {
  return JSON.stringify({ release: e.release, arch: e.arch, ...(e.stream ? { stream: e.stream } : {}), image: e.image });
}

/** Whether an entry is for this (release, arch, stream). */
export function providerEntryMatches(e: ProviderImageEntry | undefined, q: { release: string; arch: string; stream?: string }): boolean {
  return !!e && e.release === q.release && e.arch === q.arch && (e.stream ?? '') === (q.stream ?? '');
}

/**
 * What a tenant build of a NodePool is FROM: no provider layer (undefined: the release's base OS),
 * the provider-layered image, or a wait with its reason.
 */
export function providerImageFor(p: ProviderImages | undefined, q: { nodePool: string; release: string; arch: string; stream?: string }): undefined | { image: string } | { waiting: string } {
  if (!p || p.layer === NO_PROVIDER_LAYER) return undefined;
  const e: ProviderImageEntry | undefined = p.entries.get(q.nodePool);
  if (e && providerEntryMatches(e, q)) return { image: e.image };
  const what = `release ${q.release}, ${q.arch}${q.stream ? `, ${q.stream}` : ''}`;
  return {
    waiting: e
      ? `the provider's OS layer is in force on this hosted cluster, and the fleet component has published its image for NodePool ${q.nodePool} at another release or architecture (${e.release}, ${e.arch}), not yet for (${what}); the tenant layer is built FROM it when it is published`
      : `the provider's OS layer is in force on this hosted cluster, and the fleet component has not yet published its image for NodePool ${q.nodePool} (${what}); the tenant layer is built FROM it when it is published`,
  };
}
