/**
 * The gate's two ConfigMap writes in an HCP namespace (docs/design/fleet-gate.md): a NodePool's
 * hand-off, and its entry in the provider-images ConfigMap the tenant layer builds FROM. The gate
 * (gate.ts) decides when; these say what is written.
 */
import { Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffConfigMap, handoffName, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY, providerEntryMatches, providerImageEntryText, type ProviderImages } from '../controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE } from '../controller/build-job.js';
import { BLOCKED_ANNOTATION, GATED_LABEL, NODEPOOLS, PAUSED_FOR_ANNOTATION } from './gate-names.js';

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

/**
 * Sets the NodePool's entry in the HCP namespace's provider-images ConfigMap (a new layer starts it
 * afresh), with `more` entries of other NodePools of the namespace in the same write (one write per
 * namespace instead of one per NodePool).
 */
export async function publishProviderImage(
  m: Kube,
  o: GateTarget,
  pcm: (KubeObject & { data?: Record<string, string> }) | undefined,
  key: ReleaseKey,
  image: string,
  more: readonly { nodePoolName: string; key: ReleaseKey; image: string }[] = [],
): Promise<void> {
  const text = (k: ReleaseKey, img: string) => providerImageEntryText({ release: k.releaseImage, arch: k.arch, ...(k.stream ? { stream: k.stream } : {}), image: img });
  const entries: Record<string, string> = {};
  for (const e of more) entries[e.nodePoolName] = text(e.key, e.image);
  entries[o.nodePoolName] = text(key, image);
  if (!pcm) {
    await m.create(RESOURCES.configMaps, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: PROVIDER_IMAGES_CONFIGMAP, namespace: o.hcpNamespace, labels: { [MANAGED_BY]: MANAGED_BY_VALUE }, ...(o.owner ? { ownerReferences: [{ ...o.owner }] } : {}) },
      data: { [PROVIDER_LAYER_KEY]: o.layer, ...entries },
    } as KubeObject);
    return;
  }
  const data: Record<string, string> = pcm.data?.[PROVIDER_LAYER_KEY] === o.layer ? { ...pcm.data } : { [PROVIDER_LAYER_KEY]: o.layer };
  Object.assign(data, entries);
  const owned = !o.owner || (pcm.metadata.ownerReferences ?? []).some((r) => r.uid === o.owner!.uid);
  await m.update(RESOURCES.configMaps, { ...pcm, metadata: { ...pcm.metadata, ...(owned ? {} : { ownerReferences: [...(pcm.metadata.ownerReferences ?? []), { ...o.owner! }] }) }, data } as KubeObject);
}

/** What siblingEntries needs of the gate's options. */
export interface SiblingSource {
  nodePoolNamespace: string;
  hcpNamespace: string;
  layer: string;
  siblings?: () => readonly string[];
  imageFor: (key: ReleaseKey & { layer: string }) => Promise<{ image: string } | { pending: string } | { failed: string }> | { image: string } | { pending: string } | { failed: string };
}

/**
 * The provider-images entries of the other NodePools of the HCP namespace that the gate would
 * publish at their own next step without asking the policy, whose image exists now: labelled for
 * the gate and not blocked (their preconditions held), entry missing or for another (release, arch,
 * stream), and not a tenant-layered NodePool on its release (publishing its FROM rebuilds it: a
 * rollout, asked at its own step). Read from the caches; in name order (deterministic).
 */
export async function siblingEntries(
  m: Kube,
  o: SiblingSource,
  published: ProviderImages | undefined,
  keyOf: (np: KubeObject) => (ReleaseKey & { layer: string }) | undefined,
): Promise<{ nodePoolName: string; key: ReleaseKey; image: string }[]> {
  const out: { nodePoolName: string; key: ReleaseKey; image: string }[] = [];
  for (const name of [...(o.siblings?.() ?? [])].sort()) {
    const np = await m.get(NODEPOOLS, name, o.nodePoolNamespace);
    if (!np || np.metadata.labels?.[GATED_LABEL] !== 'true' || np.metadata.annotations?.[BLOCKED_ANNOTATION] !== undefined) continue;
    const key = keyOf(np);
    if (!key) continue;
    const entry = published?.layer === o.layer ? published.entries.get(name) : undefined;
    if (providerEntryMatches(entry, { release: key.releaseImage, arch: key.arch, ...(key.stream ? { stream: key.stream } : {}) })) continue;
    const cm = await m.get(RESOURCES.configMaps, handoffName(name), o.hcpNamespace);
    const ours = np.metadata.annotations?.[PAUSED_FOR_ANNOTATION] !== undefined;
    if (cm && cm.metadata.labels?.[CONFIG_LABEL] !== undefined && cm.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] === key.releaseImage && !ours) continue;
    const s = await o.imageFor(key);
    if ('image' in s) out.push({ nodePoolName: name, key, image: s.image });
  }
  return out;
}
