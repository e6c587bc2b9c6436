/**
 * The gate's two ConfigMap writes in an HCP namespace (docs/design/fleet-gate.md): a NodePool's
 * hand-off, and its entry in the provider-images ConfigMap the tenant layer builds FROM. The gate
 * (gate.ts) decides when; these say what is written.
 */
import { Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffConfigMap, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY, providerImageEntryText } from '../controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE } from '../controller/build-job.js';

/** The NodePool a write is for, and the layer and owner of what the gate publishes. */
export interface GateTarget {
  hcpNamespace: string;
  nodePoolName: string;
  layer: string;
  owner?: { apiVersion: string; kind: string; name: string; uid: string };
}

/** What an image was built for. */
export interface ReleaseKey {
  releaseImage: string;
  arch: string;
  stream?: string;
}

/**
 * Writes the NodePool's hand-off for `image` (built for the NodePool's release): creates a
 * provider-only one, or rewrites the one there, keeping its labels (the NodePoolOSConfig label is
 * the per-HCP controller's: it deletes a hand-off whose config is gone; kept as it is, never
 * added by the gate) and its other annotations.
 */
export async function writeHandoff(m: Kube, o: GateTarget, cm: (KubeObject & { data?: Record<string, string> }) | undefined, key: ReleaseKey, image: string): Promise<void> {
  const want = handoffConfigMap(o.hcpNamespace, o.nodePoolName, '', image);
  want.metadata.annotations = { ...(cm?.metadata.annotations ?? {}), [HANDOFF_RELEASE_ANNOTATION]: key.releaseImage };
  const labels: Record<string, string> = { ...(cm?.metadata.labels ?? {}), ...want.metadata.labels };
  const own = cm?.metadata.labels?.[CONFIG_LABEL];
  if (own === undefined) delete labels[CONFIG_LABEL];
  else labels[CONFIG_LABEL] = own;
  want.metadata.labels = labels;
  if (!cm) {
    await m.create(RESOURCES.configMaps, want); // AlreadyExists is a 409: settleGate reads again
    return;
  }
  want.metadata.resourceVersion = cm.metadata.resourceVersion;
  await m.update(RESOURCES.configMaps, want);
}

/** Sets the NodePool's entry in the HCP namespace's provider-images ConfigMap (a new layer starts it afresh). */
export async function publishProviderImage(m: Kube, o: GateTarget, pcm: (KubeObject & { data?: Record<string, string> }) | undefined, key: ReleaseKey, image: string): Promise<void> {
  const text = providerImageEntryText({ release: key.releaseImage, arch: key.arch, ...(key.stream ? { stream: key.stream } : {}), image });
  if (!pcm) {
    await m.create(RESOURCES.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: PROVIDER_IMAGES_CONFIGMAP, namespace: o.hcpNamespace, labels: { [MANAGED_BY]: MANAGED_BY_VALUE }, ...(o.owner ? { ownerReferences: [{ ...o.owner }] } : {}) },
      data: { [PROVIDER_LAYER_KEY]: o.layer, [o.nodePoolName]: text },
    } as KubeObject);
    return;
  }
  const data: Record<string, string> = pcm.data?.[PROVIDER_LAYER_KEY] === o.layer ? { ...pcm.data } : { [PROVIDER_LAYER_KEY]: o.layer };
  data[o.nodePoolName] = text;
  const owned = !o.owner || (pcm.metadata.ownerReferences ?? []).some((r) => r.uid === o.owner!.uid);
  await m.update(RESOURCES.configMaps, { ...pcm, metadata: { ...pcm.metadata, ...(owned ? {} : { ownerReferences: [...(pcm.metadata.ownerReferences ?? []), { ...o.owner! }] }) }, data } as KubeObject);
}
