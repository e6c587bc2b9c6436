/**
 * The upgrade gate of the fleet component (issue 27; docs/design.md "The fleet component"): one
 * NodePool (management cluster, the HostedCluster's namespace) and its hand-off ConfigMap (the
 * HCP namespace). HyperShift's config hash covers both the NodePool's release and our hand-off
 * (nodepool/config.go Hash()), so each change alone starts a rollout. The gate makes them land
 * as one: while the image for the NodePool's new release does not exist, the NodePool is held
 * with `spec.pausedUntil: "true"`; when it exists the hand-off is rewritten, then the hold is
 * lifted, and the NodePool controller sees one change of the pair.
 *
 * Level-triggered and idempotent: each `reconcileGate` call reads both objects, makes at most
 * one write, and says what it did; call it again until it answers `done`. Every NodePool write
 * carries the resourceVersion it was decided on, so a concurrent human edit wins and is re-read.
 *
 * Rules that keep it honest:
 * - We lift only a hold we placed (annotation PAUSED_FOR on the NodePool, and pausedUntil still
 *   exactly "true"); a NodePool a human paused is never unpaused by us.
 * - A human who lifts our hold overrides the gate for that release (RELEASED_FOR): we do not
 *   pause it again for that release.
 * - The hold is bounded (`maxHoldSeconds`): pausedUntil freezes the whole NodePool controller
 *   (scaling, autoscaling, machine replacement: capi.Pause pauses the MachineSet and
 *   MachineDeployment), so a build that never lands must not freeze a NodePool forever. At the
 *   bound the hold is lifted with a loud reason (annotation and the returned event); the new
 *   release rolls with the old image, and again when the image lands.
 */
import { createHash } from 'node:crypto';
import { KubeApiError } from 'pkogen/kube';
import { isConflict, Kube, KubeObject, RESOURCES, type Resource } from '../clusters/kube.js';
import {
  HANDOFF_RELEASE_ANNOTATION,
  handedOffImage,
  handoffConfigMap,
  handoffName,
  NO_PROVIDER_LAYER,
  parseProviderImages,
  PROVIDER_IMAGES_CONFIGMAP,
  PROVIDER_LAYER_KEY,
  providerEntryMatches,
  providerImageEntryText,
  WANTED_RELEASE_ANNOTATION,
} from '../controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE } from '../controller/build-job.js';

export const NODEPOOLS: Resource = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true };

/** On the hand-off ConfigMap: the NodePool release (`spec.release.image`) its image was built for (the per-HCP controller writes it too). */
export { HANDOFF_RELEASE_ANNOTATION };
// The names the gate writes on NodePools: their own module, so the packages (resources/) read
// them without loading this module's Kubernetes client.
import { GATED_LABEL, HELD_SINCE_ANNOTATION, PAUSE_VALUE, PAUSED_FOR_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION } from './gate-names.js';
export { GATED_LABEL, HELD_SINCE_ANNOTATION, PAUSE_VALUE, PAUSED_FOR_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION };
/**
 * On a tenant-layered hand-off ConfigMap (one the per-HCP controller wrote: it carries the
 * NodePoolOSConfig label): the NodePool release the gate holds the NodePool for. While held, no
 * token Secret for that release exists (HyperShift writes it after the pause check), so the
 * per-HCP controller learns the release to build for from here; its verified build for it, handed
 * off with HANDOFF_RELEASE_ANNOTATION set to it, is what releases the hold.
 */
export { WANTED_RELEASE_ANNOTATION };

const MAX_REASON = 1024;

export interface ImageKey {
  /** The NodePool's `spec.release.image`. */
  releaseImage: string;
  /** `spec.arch` (HyperShift defaults it to amd64). */
  arch: string;
  /** `spec.osImageStream.name`, when set. */
  stream?: string;
  /** The layer (provider or tenant) whose image the NodePool is handed. */
  layer: string;
}

export type ImageState = { image: string } | { pending: string } | { failed: string };

/** Why the gate is about to write a hand-off that changes what a NodePool runs. */
export type RolloutChange = 'first-handoff' | 'layer-change' | 'release-change' | 'rollback';
export interface RolloutRequest { key: string /* `${ns}/${name}` of the NodePool */; nodePool: KubeObject; change: RolloutChange; image: string; releaseImage: string }
export type RolloutDecision = { admit: true } | { admit: false; reason: string };

export interface GateOptions {
  management: Kube;
  /** HyperShift's HostedCluster namespace: where the NodePool lives. */
  nodePoolNamespace: string;
  nodePoolName: string;
  /** The HCP namespace: where the hand-off ConfigMap lives. */
  hcpNamespace: string;
  layer: string;
  /**
   * The fleet has a provider layer (`imageFor` builds it): the gate publishes each NodePool's
   * provider-layered image in its HCP namespace (PROVIDER_IMAGES_CONFIGMAP, the tenant layer's
   * `FROM`), gives a NodePool without a hand-off a provider-only one, and moves provider-only
   * hand-offs to a new layer's image. Without it the gate only keeps existing hand-offs in step
   * with releases.
   */
  providerLayer?: boolean;
  /** The owner of the provider-images ConfigMaps (the fleet's own Namespace): uninstalling the fleet removes them. */
  owner?: { apiVersion: string; kind: string; name: string; uid: string };
  /** Whether the image for a key exists in the registry (verified), is being built, or cannot be built. */
  imageFor: (key: ImageKey) => Promise<ImageState> | ImageState;
  /** The longest we hold one NodePool for one release. */
  maxHoldSeconds: number;
  now?: () => Date;
  /** Asked before every hand-off write that changes the NodePool's config hash (default: admit all). */
  admitRollout?: (r: RolloutRequest) => Promise<RolloutDecision> | RolloutDecision;
  /** Called after that hand-off write succeeded. */
  onRolloutStarted?: (r: RolloutRequest) => void;
}

export type GateStep =
  | { done: true; state: 'NotGated' | 'Consistent' | 'HeldByOther' | 'Released' | 'Waiting' | 'Deferred'; message: string }
  | { done: false; did: 'Labelled' | 'Published' | 'Paused' | 'HandedOff' | 'Wanted' | 'Unpaused' | 'Forgot' | 'TimedOut' | 'Overridden'; message: string };

type NodePool = KubeObject & { spec?: { release?: { image?: string }; arch?: string; pausedUntil?: string; osImageStream?: { name?: string } } };

/**
 * Upstream's ProcessPausedUntilField (support/util/pausereconcile.go): Go's strconv.ParseBool,
 * else an RFC3339 time in the future, else (invalid) not paused.
 */
export function isPaused(pausedUntil: string | undefined | null, now: Date): boolean {
  if (pausedUntil == null) return false;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(pausedUntil)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(pausedUntil)) return false;
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.exec(pausedUntil);
  if (!m) return false;
  const t = Date.parse(pausedUntil);
  return Number.isFinite(t) && now.getTime() < t;
}

export function imageKeyOf(np: NodePool, layer: string): ImageKey | undefined {
  const releaseImage = np.spec?.release?.image;
  if (!releaseImage) return undefined;
  const stream = np.spec?.osImageStream?.name || undefined;
  return { releaseImage, arch: np.spec?.arch || 'amd64', ...(stream ? { stream } : {}), layer };
}

/**
 * The admission mutation (a mutating webhook on NodePool UPDATE, selected by GATED_LABEL and a
 * matchCondition `object.spec.release.image != oldObject.spec.release.image`): the release change
 * and the hold land in one write, so HyperShift never sees the new release unheld. Without it the
 * gate reacts after the change, and the NodePool controller may reconcile the new release with
 * the old hand-off first (test/builder/fleet-gate.test.ts shows both). Pure: returns the
 * JSONPatch operations, or [] to admit unchanged.
 */
export function admitNodePoolUpdate(oldNp: NodePool, newNp: NodePool, now: Date): { op: 'add' | 'replace'; path: string; value: unknown }[] {
  const before = oldNp.spec?.release?.image;
  const after = newNp.spec?.release?.image;
  if (!after || before === after) return [];
  if (newNp.metadata.labels?.[GATED_LABEL] !== 'true') return [];
  if (newNp.spec?.pausedUntil != null) return []; // someone else's pause (or ours already): leave it
  const ann = newNp.metadata.annotations ?? {};
  if (ann[RELEASED_FOR_ANNOTATION] === after) return [];
  const ops: { op: 'add' | 'replace'; path: string; value: unknown }[] = [];
  if (!newNp.metadata.annotations) ops.push({ op: 'add', path: '/metadata/annotations', value: {} });
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  ops.push({ op: 'add', path: `/metadata/annotations/${esc(PAUSED_FOR_ANNOTATION)}`, value: after });
  ops.push({ op: 'add', path: `/metadata/annotations/${esc(HELD_SINCE_ANNOTATION)}`, value: now.toISOString() });
  ops.push({ op: 'add', path: '/spec/pausedUntil', value: PAUSE_VALUE });
  return ops;
}

/** One step of the gate for one NodePool. */
export async function reconcileGate(o: GateOptions): Promise<GateStep> {
  const now = (o.now ?? (() => new Date()))();
  const m = o.management;
  const np = await m.get<NodePool>(NODEPOOLS, o.nodePoolName, o.nodePoolNamespace);
  if (!np) return { done: true, state: 'NotGated', message: 'NodePool not found' };
  type ConfigMap = KubeObject & { data?: Record<string, string> };
  let cm: ConfigMap | undefined;
  let installed = true;
  try {
    cm = await m.get(RESOURCES.configMaps, handoffName(o.nodePoolName), o.hcpNamespace);
  } catch (e) {
    // No Role for us there: our per-HCP package is not installed for this HostedCluster.
    if (!(e instanceof KubeApiError && e.code === 403)) throw e;
    installed = false;
  }
  const ann = np.metadata.annotations ?? {};
  const ours = ann[PAUSED_FOR_ANNOTATION] !== undefined;
  const pausedUntil = np.spec?.pausedUntil;
  const rv = np.metadata.resourceVersion;

  const patchNp = async (patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null>; pausedUntil?: string | null }) => {
    const body: Record<string, unknown> = { metadata: { resourceVersion: rv, ...(patch.labels ? { labels: patch.labels } : {}), ...(patch.annotations ? { annotations: patch.annotations } : {}) } };
    if ('pausedUntil' in patch) body.spec = { pausedUntil: patch.pausedUntil };
    await m.mergePatch(NODEPOOLS, o.nodePoolName, o.nodePoolNamespace, body);
  };
  /** Lifts our hold: pausedUntil only while it is still the value we wrote. */
  const lift = (extra: Record<string, string | null> = {}) =>
    patchNp({ annotations: { [PAUSED_FOR_ANNOTATION]: null, [HELD_SINCE_ANNOTATION]: null, ...extra }, ...(pausedUntil === PAUSE_VALUE ? { pausedUntil: null } : {}) });

  const key = imageKeyOf(np, o.layer);
  /** The rollout policy's word on a hand-off write; admitted: the write, then onRolloutStarted. */
  const rollout = async (change: RolloutChange, image: string, write: () => Promise<void>): Promise<RolloutDecision & { write?: () => Promise<void> }> => {
    const r: RolloutRequest = { key: `${o.nodePoolNamespace}/${o.nodePoolName}`, nodePool: np, change, image, releaseImage: key!.releaseImage };
    const d = o.admitRollout ? await o.admitRollout(r) : ({ admit: true } as const);
    return d.admit ? { admit: true, write: async () => (await write(), o.onRolloutStarted?.(r)) } : d;
  };
  const notGated = (message: string): Promise<GateStep> | GateStep =>
    // Not layered (yet): nothing to gate. A hold of ours from before goes.
    ours ? step('Forgot', `${message}: hold lifted`, () => lift()) : { done: true, state: 'NotGated', message };
  if (!installed) return notGated('no hand-off ConfigMap for this NodePool');
  if (!key) return notGated('NodePool has no spec.release.image');

  /** The image for the key, asked at most once per step. */
  let known: ImageState | undefined;
  const imageState = async (): Promise<ImageState> => (known ??= await o.imageFor(key));

  // The provider-images channel in the HCP namespace (the tenant layer's FROM), read once.
  const pcm = await m.get<ConfigMap>(RESOURCES.configMaps, PROVIDER_IMAGES_CONFIGMAP, o.hcpNamespace);
  if (!o.providerLayer) {
    // Without a provider layer, images published for an earlier one are withdrawn (tenant builds stop waiting for them).
    if (pcm && pcm.data?.[PROVIDER_LAYER_KEY] !== NO_PROVIDER_LAYER) {
      return step('Published', `no provider layer: provider images withdrawn in ${o.hcpNamespace}`, () => m.update(RESOURCES.configMaps, { ...pcm, data: { [PROVIDER_LAYER_KEY]: NO_PROVIDER_LAYER } } as KubeObject));
    }
    if (!cm) return notGated('no hand-off ConfigMap for this NodePool');
  }
  if (np.metadata.labels?.[GATED_LABEL] !== 'true') return step('Labelled', 'NodePool labelled for the admission gate', () => patchNp({ labels: { [GATED_LABEL]: 'true' } }));

  if (o.providerLayer) {
    // Publish the provider-layered image for the NodePool's release.
    const published = parseProviderImages(pcm);
    const entry = published?.layer === o.layer ? published.entries.get(o.nodePoolName) : undefined;
    if (entry && providerEntryMatches(entry, { release: key.releaseImage, arch: key.arch, ...(key.stream ? { stream: key.stream } : {}) })) known = { image: entry.image };
    else {
      const s = await imageState();
      if ('image' in s) return step('Published', `provider image ${s.image} for ${key.releaseImage} published in ${o.hcpNamespace}`, () => publishProviderImage(m, o, pcm, key, s.image));
    }
    if (!cm) {
      const s = await imageState();
      if ('image' in s) {
        // Held by the admission mutation: the release changes in this same rollout.
        const d = await rollout(ours ? 'release-change' : 'first-handoff', s.image, () => writeHandoff(m, o, undefined, key, s.image));
        if (!d.admit) return { done: true, state: 'Deferred', message: truncate(d.reason) };
        return step('HandedOff', `provider image ${s.image} for ${key.releaseImage}: provider-only hand-off created`, d.write!);
      }
      // Nothing changes on the NodePool until the image lands: no reason to hold it, unless the
      // admission gate already did (a release change), which the hold logic below keeps.
      if (!ours) return { done: true, state: 'Waiting', message: truncate(imageWhy(key, s)) };
    }
  }

  const handedFor = cm?.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
  const tenant = cm?.metadata.labels?.[CONFIG_LABEL] !== undefined;
  if (handedFor === key.releaseImage) {
    // A provider-only hand-off for this release, but of an older provider layer: the new layer's image rolls out (no hold: the release does not change).
    if (o.providerLayer && cm && !tenant && known && 'image' in known && handedOffImage(cm.data?.config ?? '') !== known.image) {
      const image = known.image;
      const d = await rollout('layer-change', image, () => writeHandoff(m, o, cm, key, image));
      if (!d.admit) return { done: true, state: 'Deferred', message: truncate(d.reason) };
      return step('HandedOff', `provider layer changed: image ${image} for ${key.releaseImage}: hand-off rewritten`, d.write!);
    }
    if (ours) return step('Unpaused', `hand-off is for ${key.releaseImage}: hold lifted`, () => lift({ [REASON_ANNOTATION]: null }));
    return { done: true, state: 'Consistent', message: `hand-off is for ${key.releaseImage}` };
  }

  // The hand-off is for another release than the NodePool's (or, with a provider layer, there is none yet).
  if (cm && tenant && cm.metadata.annotations?.[WANTED_RELEASE_ANNOTATION] !== key.releaseImage) {
    // A tenant layer: only the per-HCP controller builds it (FROM the provider image) and hands it
    // off, after verifying it. The gate tells it which release to build for, then waits.
    return step('Wanted', `asked the per-HCP controller for the tenant image for ${key.releaseImage}`, () =>
      // `update` with the resourceVersion read (HANDOFF_RULES grant no patch): a concurrent write by the per-HCP controller wins.
      m.update(RESOURCES.configMaps, { ...cm, metadata: { ...cm.metadata, annotations: { ...(cm.metadata.annotations ?? {}), [WANTED_RELEASE_ANNOTATION]: key.releaseImage } } }),
    );
  }
  const state: ImageState = tenant ? { pending: `the per-HCP controller builds the tenant layer for ${key.releaseImage} and hands it off` } : await imageState();
  let deferred: string | undefined;
  if ('image' in state) {
    const d = await rollout(cm ? 'release-change' : 'first-handoff', state.image, () => writeHandoff(m, o, cm, key, state.image));
    if (d.admit) return step('HandedOff', `image ${state.image} for ${key.releaseImage}: hand-off ${cm ? 'rewritten' : 'created'}`, d.write!);
    // Not admitted: held as for an image not there yet (until admitted or the hold's bound).
    deferred = `rollout policy: ${d.reason}`;
  }
  const why = truncate(deferred ?? imageWhy(key, state as { pending: string } | { failed: string }));

  if (ours) {
    if (ann[PAUSED_FOR_ANNOTATION] !== key.releaseImage) {
      // Release changed again while we held: the hold follows it, and its clock restarts.
      return step('Paused', why, () => patchNp({ annotations: { [PAUSED_FOR_ANNOTATION]: key.releaseImage, [HELD_SINCE_ANNOTATION]: now.toISOString(), [REASON_ANNOTATION]: why } }));
    }
    if (!isPaused(pausedUntil, now) || pausedUntil !== PAUSE_VALUE) {
      // Someone lifted or replaced our pause: theirs now; we do not hold this release again.
      return step('Overridden', `hold for ${key.releaseImage} lifted by someone else: not held again`, () =>
        patchNp({ annotations: { [PAUSED_FOR_ANNOTATION]: null, [HELD_SINCE_ANNOTATION]: null, [RELEASED_FOR_ANNOTATION]: key.releaseImage, [REASON_ANNOTATION]: truncate(`hold lifted by someone else; ${why}`) } }));
    }
    const since = Date.parse(ann[HELD_SINCE_ANNOTATION] ?? '');
    const heldFor = Number.isFinite(since) ? (now.getTime() - since) / 1000 : Infinity;
    if (heldFor >= o.maxHoldSeconds) {
      // The cause first: a long reason is cut at its end.
      const held = Number.isFinite(heldFor) ? `held ${Math.round(heldFor)}s` : `held since an unreadable ${HELD_SINCE_ANNOTATION}`;
      const msg = truncate(`UpgradeGateTimedOut: ${held} (max ${o.maxHoldSeconds}s), ${why}; released: the new release rolls out with the image built for ${handedFor ?? 'no release'}, and again when its own image lands`);
      return step('TimedOut', msg, () => lift({ [RELEASED_FOR_ANNOTATION]: key.releaseImage, [REASON_ANNOTATION]: msg }));
    }
    if (ann[REASON_ANNOTATION] !== why) return step('Paused', why, () => patchNp({ annotations: { [REASON_ANNOTATION]: why } }));
    return { done: true, state: 'Waiting', message: why };
  }
  if (ann[RELEASED_FOR_ANNOTATION] === key.releaseImage) return { done: true, state: 'Released', message: `not held for ${key.releaseImage} again: ${ann[REASON_ANNOTATION] ?? ''}` };
  if (pausedUntil != null) return { done: true, state: 'HeldByOther', message: `pausedUntil ${JSON.stringify(pausedUntil)} is not ours; ${why}` };
  return step('Paused', why, () =>
    patchNp({ annotations: { [PAUSED_FOR_ANNOTATION]: key.releaseImage, [HELD_SINCE_ANNOTATION]: now.toISOString(), [REASON_ANNOTATION]: why }, pausedUntil: PAUSE_VALUE }));
}

/** Runs steps until the gate is done for now (a conflict re-reads: someone else wrote first). */
export async function settleGate(o: GateOptions, maxSteps = 16): Promise<{ steps: GateStep[] }> {
  const steps: GateStep[] = [];
  for (let i = 0; i < maxSteps; i++) {
    let s: GateStep;
    try {
      s = await reconcileGate(o);
    } catch (e) {
      if (isConflict(e)) continue;
      throw e;
    }
    steps.push(s);
    if (s.done) return { steps };
  }
  throw new Error(`upgrade gate for ${o.nodePoolNamespace}/${o.nodePoolName} did not settle in ${maxSteps} steps: ${JSON.stringify(steps.map((s) => ('did' in s ? s.did : s.state)))}`);
}

function imageWhy(key: ImageKey, s: { pending: string } | { failed: string }): string {
  return 'pending' in s ? `waiting for the image for ${describe(key)}: ${s.pending}` : `the image for ${describe(key)} failed: ${s.failed}`;
}

/**
 * Writes the NodePool's hand-off for `image` (built for the NodePool's release): creates a
 * provider-only one, or rewrites the one there, keeping its labels (the NodePoolOSConfig label is
 * the per-HCP controller's: it deletes a hand-off whose config is gone; kept as it is, never
 * added by the gate) and its other annotations.
 */
async function writeHandoff(m: Kube, o: GateOptions, cm: (KubeObject & { data?: Record<string, string> }) | undefined, key: ImageKey, image: string): Promise<void> {
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
async function publishProviderImage(m: Kube, o: GateOptions, pcm: (KubeObject & { data?: Record<string, string> }) | undefined, key: ImageKey, image: string): Promise<void> {
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

async function step(did: Exclude<GateStep, { done: true }>['did'], message: string, write: () => Promise<unknown>): Promise<GateStep> {
  await write();
  return { done: false, did, message };
}

function describe(k: ImageKey): string {
  return `(release ${k.releaseImage}, ${k.arch}${k.stream ? `, ${k.stream}` : ''}, layer ${k.layer})`;
}

function truncate(s: string): string {
  return s.length <= MAX_REASON ? s : `${s.slice(0, MAX_REASON - 1)}…`;
}

/** A stable id for an image key (logs, Events). */
export function imageKeyId(k: ImageKey): string {
  return createHash('sha256').update(JSON.stringify([k.releaseImage, k.arch, k.stream ?? '', k.layer])).digest('hex').slice(0, 16);
}
