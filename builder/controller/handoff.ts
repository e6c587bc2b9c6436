/**
 * How a built image reaches a NodePool, through an input HyperShift already consumes (evidence
 * in docs/design.md, "Rollout hand-off"): the NodePool controller appends to a NodePool's machine
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
import type { KubeObject } from '../kube.js';
import { LABEL_PREFIX, MANAGED_BY, MANAGED_BY_VALUE, NODEPOOL_LABEL } from './build-job.js';

export const NTO_GENERATED_LABEL = 'hypershift.openshift.io/nto-generated-machine-config';
/** The MachineConfig name; `99-` so it sorts last among worker configs, as user overrides do. */
export const OS_IMAGE_MACHINE_CONFIG = '99-on-cluster-build-os-image';
export const HANDOFF_PREFIX = 'on-cluster-build-os-image-';
/** On the hand-off: the NodePool release (`spec.release.image`) its image was built for (the fleet gate compares it). */
export const HANDOFF_RELEASE_ANNOTATION = `${LABEL_PREFIX}/release-image`;

/**
 * On the hand-off: the NodePool release the fleet gate holds the NodePool for (issue 27); the
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
