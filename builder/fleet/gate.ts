/**
 * The upgrade gate of the fleet component (docs/design/fleet-gate.md; docs/design/fleet.md
 * "The gate"): one NodePool (management cluster, the HostedCluster's namespace) and its hand-off
 * ConfigMap (the HCP namespace). HyperShift's config hash covers both the NodePool's release and
 * our hand-off (nodepool/config.go Hash()), so each change alone starts a rollout. The gate makes
 * them land as one: while the image for the NodePool's new release does not exist, the NodePool
 * is held with `spec.pausedUntil` (an RFC3339 time, never "true"); when it exists the hand-off is
 * rewritten, HyperShift is seen to have read it, then the hold is lifted.
 *
 * Level-triggered and idempotent: each `reconcileGate` call reads both objects, makes at most
 * one write, and says what it did; call it again until it answers `done`. Every NodePool write
 * carries the resourceVersion it was decided on, so a concurrent human edit wins and is re-read.
 *
 * Rules that keep it honest:
 * - A hold expires by itself (HyperShift honours the time and requeues at it), so the state is
 *   made consistent when the hold begins, not when it ends: the previous release's hand-off is
 *   neutralised (its `config` emptied: HyperShift parses no document from it) as soon as it
 *   does not match the NodePool's release and the image for that release is not being written.
 *   An expiry, a crash or an uninstalled fleet then rolls (new release, the release's own OS),
 *   never (new release, old OS).
 * - We lift only a hold we placed: PAUSED_FOR on the NodePool and spec.pausedUntil exactly the
 *   value recorded in PAUSED_UNTIL. A NodePool a human paused is never unpaused by us.
 * - A human who lifts or changes our hold overrides the gate for that release (RELEASED_FOR).
 * - The hold for one release is bounded by HELD_SINCE + maxHoldSeconds, whoever extends it.
 * - Before lifting, HyperShift must show it read the hand-off: its UpdatingConfig target moved
 *   from the one recorded before the write (TARGET_SEEN).
 * - A rollout policy (`admitRollout`) is asked before every hand-off write that changes what a
 *   NodePool runs; preconditions (`preconditions`) are checked before any hold or hand-off.
 */
import { KubeApiError } from 'pkogen/kube';
import { isConflict, Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { imageKeyOf, imageWhy, type ImageKey, type ImageState } from './gate-keys.js';
export { imageKeyId, imageKeyOf, type ImageKey, type ImageState } from './gate-keys.js';
import {
  HANDOFF_RELEASE_ANNOTATION,
  handedOffImage,
  handoffName,
  NO_PROVIDER_LAYER,
  parseProviderImages,
  PROVIDER_IMAGES_CONFIGMAP,
  PROVIDER_LAYER_KEY,
  providerEntryMatches,
  osImageMachineConfigYaml,
  WANTED_RELEASE_ANNOTATION,
} from '../controller/handoff.js';
import { CONFIG_LABEL } from '../controller/build-job.js';
import { publishProviderImage, siblingEntries, writeHandoff } from './gate-writes.js';


/** On the hand-off ConfigMap: the NodePool release (`spec.release.image`) its image was built for (the per-HCP controller writes it too). */
export { HANDOFF_RELEASE_ANNOTATION };
// The names the gate writes on NodePools: their own module, so the packages (resources/) read
// them without loading this module's Kubernetes client.
import {
  BLOCKED_ANNOTATION,
  DEFERRED_PREFIX,
  NODEPOOLS,
  GATED_LABEL,
  HELD_SINCE_ANNOTATION,
  holdUntil,
  LEGACY_PAUSE_VALUE,
  PAUSED_FOR_ANNOTATION,
  PAUSED_UNTIL_ANNOTATION,
  REASON_ANNOTATION,
  RELEASED_FOR_ANNOTATION,
  TARGET_SEEN_ANNOTATION,
} from './gate-names.js';
import { admitNodePoolUpdate, configDigest, isPaused, recordedTarget, targetRecord, updatingConfigTarget, type GateNodePool } from './gate-hold.js';
export { admitNodePoolUpdate, isPaused, updatingConfigTarget };
export { NODEPOOLS };
export { BLOCKED_ANNOTATION, GATED_LABEL, HELD_SINCE_ANNOTATION, holdUntil, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION, TARGET_SEEN_ANNOTATION };
/**
 * On a tenant-layered hand-off ConfigMap (one the per-HCP controller wrote: it carries the
 * NodePoolOSConfig label): the NodePool release the gate holds the NodePool for. While held, no
 * token Secret for that release exists (HyperShift writes it after the pause check), so the
 * per-HCP controller learns the release to build for from here; its verified build for it, handed
 * off with HANDOFF_RELEASE_ANNOTATION set to it, is what releases the hold.
 */
export { WANTED_RELEASE_ANNOTATION };

const MAX_REASON = 1024;


/** Why the gate is about to write a hand-off that changes what a NodePool runs. */
export type RolloutChange = 'first-handoff' | 'layer-change' | 'release-change' | 'rollback' | 'neutralise';
export interface RolloutRequest {
  /** `${namespace}/${name}` of the NodePool. */
  key: string;
  nodePool: KubeObject;
  change: RolloutChange;
  /** The image the NodePool is about to be handed (for a tenant-layered NodePool: the provider image published as its FROM, or the tenant image handed off). */
  image: string;
  releaseImage: string;
}
export type RolloutDecision = { admit: true } | { admit: false; reason: string };

/** What the preconditions are asked about: the NodePool, its HCP namespace and the image key. */
export interface PreconditionInput {
  nodePool: KubeObject;
  hcpNamespace: string;
  key: ImageKey;
}
/** Undefined: every precondition holds; else why not (bounded, no secret: shown in the fleet view). */
export type Preconditions = (i: PreconditionInput) => Promise<string | undefined> | string | undefined;

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
  /**
   * The rollout policy, asked before every hand-off write that changes what the NodePool runs
   * (and, for a tenant-layered NodePool, before the provider image it builds FROM changes, and
   * before the hold of a release change is lifted: the per-HCP controller writes its hand-off).
   * Default: admit all.
   */
  admitRollout?: (r: RolloutRequest) => Promise<RolloutDecision> | RolloutDecision;
  /** Called after the admitted write succeeded. */
  onRolloutStarted?: (r: RolloutRequest) => void;
  /** Checked before any hold or hand-off; a NodePool that fails one is never held (its GATED_LABEL goes) and never handed an image. */
  preconditions?: Preconditions;
  /**
   * Given (the policy carries the layer with every release change once a slot frees:
   * RideReleaseChange, not paused, no rollback), a provider-only NodePool held for its new release
   * gets that release's hand-off at once, without asking (held, nothing rolls), and the policy is
   * asked before its hold is lifted: a deferred NodePool waits on (new release, its image) instead
   * of on a neutralised hand-off. Answers whether it applies now.
   */
  handOffWhileHeld?: () => boolean;
  /** The other NodePools (names, same namespace) whose hand-offs live in this HCP namespace: their provider-images entries are published in the same write. */
  siblings?: () => readonly string[];
  /** Set by settleGate: the previous step rewrote the hand-off for this release without changing its `config` (nothing HyperShift hashes changed). */
  unchangedFor?: string;
}

export type GateStep =
  | { done: true; state: 'NotGated' | 'Consistent' | 'HeldByOther' | 'Released' | 'Waiting' | 'Deferred' | 'Blocked'; message: string }
  | { done: false; did: 'Labelled' | 'Published' | 'Paused' | 'HandedOff' | 'Neutralised' | 'Noted' | 'Wanted' | 'Unpaused' | 'Forgot' | 'TimedOut' | 'Overridden' | 'Blocked'; message: string; unchangedFor?: string; routine?: true };

type NodePool = GateNodePool;

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
  /** The pausedUntil we wrote (a hold of an older fleet version: "true"). */
  const ourValue = ann[PAUSED_UNTIL_ANNOTATION] ?? LEGACY_PAUSE_VALUE;
  /** Our hold is in place as we wrote it (it may have expired). */
  const intact = ours && pausedUntil != null && pausedUntil === ourValue;
  const rv = np.metadata.resourceVersion;
  const npKey = `${o.nodePoolNamespace}/${o.nodePoolName}`;

  const patchNp = async (patch: { labels?: Record<string, string | null>; annotations?: Record<string, string | null>; pausedUntil?: string | null }) => {
    const body: Record<string, unknown> = { metadata: { resourceVersion: rv, ...(patch.labels ? { labels: patch.labels } : {}), ...(patch.annotations ? { annotations: patch.annotations } : {}) } };
    if ('pausedUntil' in patch) body.spec = { pausedUntil: patch.pausedUntil };
    await m.mergePatch(NODEPOOLS, o.nodePoolName, o.nodePoolNamespace, body);
  };
  const HOLD_ANNOTATIONS = { [PAUSED_FOR_ANNOTATION]: null, [HELD_SINCE_ANNOTATION]: null, [PAUSED_UNTIL_ANNOTATION]: null, [TARGET_SEEN_ANNOTATION]: null };
  /** Lifts our hold: pausedUntil only while it is still the value we wrote. */
  const lift = (extra: Record<string, string | null> = {}, labels?: Record<string, string | null>) =>
    patchNp({ annotations: { ...HOLD_ANNOTATIONS, ...extra }, ...(labels ? { labels } : {}), ...(intact ? { pausedUntil: null } : {}) });

  const key = imageKeyOf(np, o.layer);
  const notGated = (message: string): Promise<GateStep> | GateStep =>
    // Not layered (yet): nothing to gate. A hold of ours from before goes.
    ours ? step('Forgot', `${message}: hold lifted`, () => lift()) : { done: true, state: 'NotGated', message };
  if (!installed) return notGated('no hand-off ConfigMap for this NodePool');
  if (!key) return notGated('NodePool has no spec.release.image');

  /** The image for the key, asked at most once per step. */
  let known: ImageState | undefined;
  const imageState = async (): Promise<ImageState> => (known ??= await o.imageFor(key));
  /** The rollout policy's answer for one write (default: admit). */
  const ask = async (change: RolloutChange, image: string): Promise<{ request: RolloutRequest; decision: RolloutDecision }> => {
    const request: RolloutRequest = { key: npKey, nodePool: np, change, image, releaseImage: key.releaseImage };
    return { request, decision: o.admitRollout ? await o.admitRollout(request) : { admit: true } };
  };
  const started = (r: RolloutRequest) => o.onRolloutStarted?.(r);
  const deferred = (d: RolloutDecision): string => truncate(`${DEFERRED_PREFIX}${'reason' in d ? d.reason : ''}`);
  /** An unheld NodePool's Deferred step: its message is the policy's reason, as the hook's contract says. */
  const notNow = (d: RolloutDecision): GateStep => ({ done: true, state: 'Deferred', message: truncate('reason' in d ? d.reason : '') });

  // The provider-images channel in the HCP namespace (the tenant layer's FROM), read once.
  const pcm = await m.get<ConfigMap>(RESOURCES.configMaps, PROVIDER_IMAGES_CONFIGMAP, o.hcpNamespace);
  if (!o.providerLayer) {
    // Without a provider layer, images published for an earlier one are withdrawn (tenant builds stop waiting for them).
    if (pcm && pcm.data?.[PROVIDER_LAYER_KEY] !== NO_PROVIDER_LAYER) {
      return step('Published', `no provider layer: provider images withdrawn in ${o.hcpNamespace}`, () => m.update(RESOURCES.configMaps, { ...pcm, data: { [PROVIDER_LAYER_KEY]: NO_PROVIDER_LAYER } } as KubeObject));
    }
    if (!cm) return notGated('no hand-off ConfigMap for this NodePool');
  }

  const handedFor = cm?.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
  const tenant = cm?.metadata.labels?.[CONFIG_LABEL] !== undefined;
  const handedImage = cm ? handedOffImage(cm.data?.config ?? '') : undefined;
  /** The hand-off carries an image built for another release than the NodePool's. */
  const stale = cm !== undefined && handedFor !== key.releaseImage && (cm.data?.config ?? '').trim() !== '';
  /** Empties a stale hand-off: HyperShift parses no document from it (config.go parse), so the NodePool runs its release's own OS. */
  const neutralise = (why: string) =>
    step('Neutralised', truncate(`hand-off for ${handedFor ?? 'an unknown release'} neutralised (the NodePool's release is ${key.releaseImage}: never its nodes on another release's OS); ${why}`), () => {
      const annotations = { ...(cm!.metadata.annotations ?? {}) };
      delete annotations[HANDOFF_RELEASE_ANNOTATION];
      // `update` with the resourceVersion read (HANDOFF_RULES grant no patch): a concurrent write by the per-HCP controller wins.
      return m.update(RESOURCES.configMaps, { ...cm!, metadata: { ...cm!.metadata, annotations }, data: { config: '' } } as KubeObject);
    });
  /** Empties a stale hand-off. Held, nothing rolls; unheld, HyperShift rolls the change at once: a rollout (change `neutralise`), asked of the policy like any. */
  const clearStale = async (why: string): Promise<GateStep> => {
    if (intact && isPaused(pausedUntil, now)) {
      // Held for this release: first the target with the config HyperShift showed it for (a z-stream's hand-off comes back with that config: nothing to wait for).
      const t = updatingConfigTarget(np);
      const record = !t.absent && t.target !== undefined && ann[PAUSED_FOR_ANNOTATION] === key.releaseImage ? targetRecord(t.target, cm) : undefined;
      if (record !== undefined && ann[TARGET_SEEN_ANNOTATION] !== record) return step('Noted', `UpdatingConfig target before the hand-off is emptied: ${record}`, () => patchNp({ annotations: { [TARGET_SEEN_ANNOTATION]: record, [REASON_ANNOTATION]: why } }));
      return neutralise(why);
    }
    const asked = await ask('neutralise', '');
    if (!asked.decision.admit) return ours ? hold(deferred(asked.decision), 'Deferred') : notNow(asked.decision);
    const r = await neutralise(why);
    started(asked.request);
    return r;
  };

  // Preconditions, before any hold or hand-off: a NodePool that fails one is never held (the
  // admission mutation selects on the label, which goes) and never handed an image.
  const blocked = o.preconditions ? await o.preconditions({ nodePool: np, hcpNamespace: o.hcpNamespace, key }) : undefined;
  if (blocked !== undefined) {
    const why = truncate(blocked);
    if (stale) return clearStale(`blocked: ${why}`);
    if (ours) return step('Blocked', `blocked: ${why}: hold lifted`, () => lift({ [BLOCKED_ANNOTATION]: why, [REASON_ANNOTATION]: null }, { [GATED_LABEL]: null }));
    if (np.metadata.labels?.[GATED_LABEL] !== undefined || ann[BLOCKED_ANNOTATION] !== why) {
      return step('Blocked', `blocked: ${why}`, () => patchNp({ labels: { [GATED_LABEL]: null }, annotations: { [BLOCKED_ANNOTATION]: why } }));
    }
    return { done: true, state: 'Blocked', message: why };
  }
  if (np.metadata.labels?.[GATED_LABEL] !== 'true' || ann[BLOCKED_ANNOTATION] !== undefined) {
    return step('Labelled', 'NodePool labelled for the admission gate', () => patchNp({ labels: { [GATED_LABEL]: 'true' }, annotations: { [BLOCKED_ANNOTATION]: null } }));
  }

  /** Held by us for this very release (the admission mutation's hold, or ours). */
  const heldForRelease = ours && ann[PAUSED_FOR_ANNOTATION] === key.releaseImage;
  /** What HyperShift shows as the target now, and whether it is other than the one recorded before the hand-off. */
  const seen = updatingConfigTarget(np);
  /** Held, and HyperShift shows an InPlace upgrade's own progress (no target hash): a read of a hand-off written now could not be confirmed, so none is written until a hash shows. */
  const hidden = heldForRelease && !seen.absent && seen.target === undefined;
  const HIDDEN = 'an InPlace upgrade in progress: HyperShift shows no target config until it ends (the hand-off for the release waits, to confirm HyperShift read it)';
  const note = (): Promise<GateStep> | undefined =>
    heldForRelease && !seen.absent && seen.target !== undefined && recordedTarget(ann[TARGET_SEEN_ANNOTATION]).target !== seen.target
      ? step('Noted', `UpdatingConfig target before the hand-off: ${seen.target}`, () => patchNp({ annotations: { [TARGET_SEEN_ANNOTATION]: targetRecord(seen.target!, cm) } }))
      : undefined;

  /** Held for its release now, a provider-only hand-off, and the policy lets it be written before asking (handOffWhileHeld). */
  const early = () => heldForRelease && intact && isPaused(pausedUntil, now) && !tenant && !hidden && (o.handOffWhileHeld?.() ?? false);
  /** Writes the hand-off for the NodePool's release (the target noted first); `request`: the admitted rollout it starts (none: asked at the lift). */
  const handOff = async (image: string, from: ConfigMap | undefined, request?: RolloutRequest): Promise<GateStep> => {
    const n = note();
    if (n) return n;
    const unchanged = from !== undefined && (from.data?.config ?? '') === osImageMachineConfigYaml(image);
    const what = from ? (handedFor === key.releaseImage ? 'provider layer changed: hand-off rewritten' : 'hand-off rewritten') : 'provider-only hand-off created';
    await writeHandoff(m, o, from, key, image);
    if (request) started(request);
    return { done: false, did: 'HandedOff', message: `image ${image} for ${key.releaseImage}: ${what}${request ? '' : ' while held (the policy is asked before the hold is lifted)'}`, ...(unchanged ? { unchangedFor: key.releaseImage } : {}) };
  };

  if (o.providerLayer) {
    // Publish the provider-layered image for the NodePool's release.
    const published = parseProviderImages(pcm);
    const entry = published?.layer === o.layer ? published.entries.get(o.nodePoolName) : undefined;
    if (entry && providerEntryMatches(entry, { release: key.releaseImage, arch: key.arch, ...(key.stream ? { stream: key.stream } : {}) })) known = { image: entry.image };
    else {
      const s = await imageState();
      if ('image' in s) {
        // A tenant-layered NodePool on its release rebuilds FROM what is published: that is a rollout of it.
        const onItsRelease = cm !== undefined && tenant && handedFor === key.releaseImage && !ours;
        const before = published?.entries.get(o.nodePoolName);
        const asked = onItsRelease ? await ask(before ? 'layer-change' : 'first-handoff', s.image) : undefined;
        if (asked && !asked.decision.admit) return notNow(asked.decision);
        const more = await siblingEntries(m, o, published, (np2) => imageKeyOf(np2, o.layer));
        const r = await step('Published', `provider image ${s.image} for ${key.releaseImage} published in ${o.hcpNamespace}${more.length ? ` (and for ${more.length} more NodePools)` : ''}`, () => publishProviderImage(m, o, pcm, key, s.image, more));
        if (asked) started(asked.request);
        return r;
      }
    }
    if (!cm) {
      const s = await imageState();
      if ('image' in s && hidden) return hold(HIDDEN, 'Waiting');
      if ('image' in s && early()) return handOff(s.image, undefined);
      if ('image' in s) {
        const asked = await ask(heldForRelease ? 'release-change' : 'first-handoff', s.image);
        if (asked.decision.admit) return handOff(s.image, undefined, asked.request);
        if (!ours) return notNow(asked.decision);
        return hold(deferred(asked.decision), 'Deferred');
      }
      // Nothing changes on the NodePool until the image lands: no reason to hold it, unless the
      // admission gate already did (a release change), which the hold logic below keeps.
      if (!ours) return { done: true, state: 'Waiting', message: truncate(imageWhy(key, s)) };
      return hold(truncate(imageWhy(key, s)), 'Waiting');
    }
  }

  if (cm && handedFor === key.releaseImage) {
    // A provider-only hand-off for this release, but of an older provider layer: the new layer's image rolls out (no hold: the release does not change).
    if (o.providerLayer && !tenant && known && 'image' in known && handedImage !== known.image && !hidden) {
      const image = known.image;
      if (early()) return handOff(image, cm);
      const asked = await ask(heldForRelease ? 'release-change' : 'layer-change', image);
      if (asked.decision.admit) return handOff(image, cm, asked.request);
      if (!ours) return notNow(asked.decision);
      // Held for this release with a hand-off built for it (an older layer): lifting is consistent.
    }
    if (ours) return release();
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
  if ('image' in state && hidden) return stale ? clearStale(HIDDEN) : hold(HIDDEN, 'Waiting');
  if ('image' in state) {
    /** The hand-off's config is this image's already (releases sharing one OS image): only its release annotation would change, so it is not stale. */
    const same = cm !== undefined && !tenant && (cm.data?.config ?? '') === osImageMachineConfigYaml(state.image);
    if (!same && early()) return handOff(state.image, cm);
    const asked = await ask(ours || handedImage !== undefined ? 'release-change' : 'first-handoff', state.image);
    if (asked.decision.admit) return handOff(state.image, cm, asked.request);
    if (stale && !same) return clearStale(deferred(asked.decision));
    if (!ours) return notNow(asked.decision);
    return hold(deferred(asked.decision), 'Deferred', same, same);
  }
  const why = truncate(imageWhy(key, state));
  if (stale) return clearStale(why);
  return hold(why, 'Waiting');

  /** The hand-off is for the NodePool's release and we hold it: lift once HyperShift shows it read it (a tenant's: once the policy admits it). */
  async function release(): Promise<GateStep> {
    const { target: recorded, config: recordedConfig } = recordedTarget(ann[TARGET_SEEN_ANNOTATION]);
    /** The hand-off's config is the one HyperShift showed the recorded target for (emptied and written back the same: a z-stream while its image was resolved). */
    const sameConfig = recordedConfig !== undefined && cm !== undefined && recordedConfig === configDigest(cm.data?.config ?? '');
    // An InPlace upgrade's progress message carries no target: nothing to confirm with until it ends.
    if (!seen.absent && seen.target === undefined) return hold(`hand-off is for ${key!.releaseImage}; waiting for HyperShift to read it: ${HIDDEN}`, 'Waiting', true, true);
    const unchanged = o.unchangedFor === key!.releaseImage;
    if (!seen.absent && recorded !== undefined && seen.target === recorded && !unchanged && !sameConfig) {
      return hold(`hand-off is for ${key!.releaseImage}; waiting for HyperShift to read it (UpdatingConfig target still ${recorded})`, 'Waiting', true, true);
    }
    const read = seen.absent
      ? 'HyperShift has not reported on this NodePool'
      : recorded === undefined
        ? 'no target recorded before the hand-off'
        : seen.target !== recorded
          ? `HyperShift read it (UpdatingConfig target ${seen.target})`
          : unchanged
            ? 'its config did not change (only its release annotation): nothing HyperShift hashes changed'
            : `its config is the one HyperShift showed UpdatingConfig target ${recorded} for: nothing HyperShift hashes changed`;
    // A lift of a hold the NodePool never showed a reason for (short waits write none) is routine: no Event of its own.
    const unpause = async (): Promise<GateStep> => ({ ...(await step('Unpaused', `hand-off is for ${key!.releaseImage}, ${read}: hold lifted`, () => lift({ [REASON_ANNOTATION]: null }))), ...(ann[REASON_ANNOTATION] === undefined ? { routine: true as const } : {}) });
    // A tenant's hand-off is the per-HCP controller's, one written while held (handOffWhileHeld) was not asked: the policy is asked now.
    if (tenant || o.handOffWhileHeld) {
      const asked = await ask('release-change', handedImage ?? '');
      if (!asked.decision.admit) return hold(deferred(asked.decision), 'Deferred', true, !tenant);
      const r = await unpause();
      started(asked.request);
      return r;
    }
    return unpause();
  }

  /**
   * The hold logic, once the hand-off is consistent for the release or neutral: place, keep,
   * follow, bound or give up the hold. `consistent`: the hand-off is for the NodePool's release
   * (an expiry is then no failure). `quiet`: a short wait (HyperShift's read, a slot for a NodePool
   * whose hand-off is ready) writes no reason of its own (the step, the log and the rollout plan say it).
   */
  function hold(why: string, state: 'Waiting' | 'Deferred', consistent = false, quiet = false): Promise<GateStep> | GateStep {
    const release = key!.releaseImage;
    if (ours) {
      if (ann[PAUSED_FOR_ANNOTATION] !== release) {
        // Release changed again while we held: the hold follows it, and its clock restarts.
        const until = holdUntil(now, o.maxHoldSeconds);
        return step('Paused', why, () =>
          patchNp({
            annotations: { [PAUSED_FOR_ANNOTATION]: release, [HELD_SINCE_ANNOTATION]: now.toISOString(), [PAUSED_UNTIL_ANNOTATION]: until, [TARGET_SEEN_ANNOTATION]: seen.absent || seen.target === undefined ? null : targetRecord(seen.target, cm), [REASON_ANNOTATION]: why },
            ...(intact ? { pausedUntil: until } : {}),
          }),
        );
      }
      const expiry = Date.parse(ourValue);
      const expired = intact && Number.isFinite(expiry) && now.getTime() >= expiry;
      if (!intact || (!isPaused(pausedUntil, now) && !expired)) {
        // Someone lifted or replaced our pause: theirs now; we do not hold this release again.
        return step('Overridden', `hold for ${release} lifted by someone else: not held again`, () =>
          patchNp({ annotations: { ...HOLD_ANNOTATIONS, [RELEASED_FOR_ANNOTATION]: release, [REASON_ANNOTATION]: truncate(`hold lifted by someone else; ${why}`) } }));
      }
      const since = Date.parse(ann[HELD_SINCE_ANNOTATION] ?? '');
      const heldFor = Number.isFinite(since) ? (now.getTime() - since) / 1000 : Infinity;
      if (expired || heldFor >= o.maxHoldSeconds) {
        // The cause first: a long reason is cut at its end.
        const held = Number.isFinite(heldFor) ? `held ${Math.round(heldFor)}s` : `held since an unreadable ${HELD_SINCE_ANNOTATION}`;
        const outcome = consistent
          ? `released: the hand-off is for ${release}`
          : `released: the new release rolls out with its own OS (the previous release's hand-off was neutralised when the hold began), and again when ${tenant ? 'the tenant image' : 'its own image'} lands`;
        const msg = truncate(`UpgradeGateTimedOut: ${held} (max ${o.maxHoldSeconds}s), ${why}; ${outcome}`);
        return step('TimedOut', msg, () => lift({ [RELEASED_FOR_ANNOTATION]: release, [REASON_ANNOTATION]: msg }));
      }
      const want = holdUntil(new Date(since), o.maxHoldSeconds);
      if (ourValue !== want && Date.parse(want) > now.getTime()) {
        // Re-extended (or shortened: the bound changed, or an older fleet's "true") only within HELD_SINCE + maxHoldSeconds.
        return step('Paused', `hold until ${want}: ${why}`, () => patchNp({ annotations: { [PAUSED_UNTIL_ANNOTATION]: want, [REASON_ANNOTATION]: why }, pausedUntil: want }));
      }
      if (!consistent) {
        const n = note();
        if (n) return n;
      }
      if (!quiet && ann[REASON_ANNOTATION] !== why) return step('Paused', why, () => patchNp({ annotations: { [REASON_ANNOTATION]: why } }));
      return { done: true, state, message: why };
    }
    if (state === 'Deferred') return { done: true, state, message: why };
    if (ann[RELEASED_FOR_ANNOTATION] === release) return { done: true, state: 'Released', message: `not held for ${release} again: ${ann[REASON_ANNOTATION] ?? ''}` };
    if (pausedUntil != null) return { done: true, state: 'HeldByOther', message: `pausedUntil ${JSON.stringify(pausedUntil)} is not ours; ${why}` };
    const until = holdUntil(now, o.maxHoldSeconds);
    return step('Paused', why, () =>
      patchNp({
        annotations: { [PAUSED_FOR_ANNOTATION]: release, [HELD_SINCE_ANNOTATION]: now.toISOString(), [PAUSED_UNTIL_ANNOTATION]: until, [TARGET_SEEN_ANNOTATION]: seen.absent || seen.target === undefined ? null : targetRecord(seen.target, cm), [REASON_ANNOTATION]: why },
        pausedUntil: until,
      }),
    );
  }
}

/** Runs steps until the gate is done for now (a conflict re-reads: someone else wrote first). */
export async function settleGate(o: GateOptions, maxSteps = 16): Promise<{ steps: GateStep[] }> {
  const steps: GateStep[] = [];
  let unchangedFor: string | undefined;
  for (let i = 0; i < maxSteps; i++) {
    let s: GateStep;
    try {
      s = await reconcileGate(unchangedFor === undefined ? o : { ...o, unchangedFor });
      // Only the next step may rely on it (in memory: after a crash the gate waits for the target, bounded by the hold).
      unchangedFor = 'unchangedFor' in s ? s.unchangedFor : undefined;
    } catch (e) {
      if (isConflict(e)) continue;
      throw e;
    }
    steps.push(s);
    if (s.done) return { steps };
  }
  throw new Error(`upgrade gate for ${o.nodePoolNamespace}/${o.nodePoolName} did not settle in ${maxSteps} steps: ${JSON.stringify(steps.map((s) => ('did' in s ? s.did : s.state)))}`);
}

async function step(did: Exclude<GateStep, { done: true }>['did'], message: string, write: () => Promise<unknown>): Promise<GateStep> {
  await write();
  return { done: false, did, message };
}

function truncate(s: string): string {
  return s.length <= MAX_REASON ? s : `${s.slice(0, MAX_REASON - 1)}…`;
}

