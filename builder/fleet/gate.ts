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
import { isConflict, Kube, KubeObject, RESOURCES, type Resource } from '../kube.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffConfigMap, handoffName, WANTED_RELEASE_ANNOTATION } from '../controller/handoff.js';
import { CONFIG_LABEL } from '../controller/build-job.js';

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

export interface GateOptions {
  management: Kube;
  /** HyperShift's HostedCluster namespace: where the NodePool lives. */
  nodePoolNamespace: string;
  nodePoolName: string;
  /** The HCP namespace: where the hand-off ConfigMap lives. */
  hcpNamespace: string;
  layer: string;
  /** Whether the image for a key exists in the registry (verified), is being built, or cannot be built. */
  imageFor: (key: ImageKey) => Promise<ImageState> | ImageState;
  /** The longest we hold one NodePool for one release. */
  maxHoldSeconds: number;
  now?: () => Date;
}

export type GateStep =
  | { done: true; state: 'NotGated' | 'Consistent' | 'HeldByOther' | 'Released' | 'Waiting'; message: string }
  | { done: false; did: 'Labelled' | 'Paused' | 'HandedOff' | 'Wanted' | 'Unpaused' | 'Forgot' | 'TimedOut' | 'Overridden'; message: string };

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
  let cm: (KubeObject & { data?: Record<string, string> }) | undefined;
  try {
    cm = await m.get(RESOURCES.configMaps, handoffName(o.nodePoolName), o.hcpNamespace);
  } catch (e) {
    // No Role for us there: our per-HCP package is not installed for this HostedCluster.
    if (!(e instanceof KubeApiError && e.code === 403)) throw e;
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
  if (!cm || !key) {
    // Not layered (yet): nothing to gate. A hold of ours from before goes.
    if (ours) return step('Forgot', 'no hand-off for this NodePool: hold lifted', () => lift());
    return { done: true, state: 'NotGated', message: cm ? 'NodePool has no spec.release.image' : 'no hand-off ConfigMap for this NodePool' };
  }
  if (np.metadata.labels?.[GATED_LABEL] !== 'true') return step('Labelled', 'NodePool labelled for the admission gate', () => patchNp({ labels: { [GATED_LABEL]: 'true' } }));

  const handedFor = cm.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION];
  if (handedFor === key.releaseImage) {
    if (ours) return step('Unpaused', `hand-off is for ${key.releaseImage}: hold lifted`, () => lift({ [REASON_ANNOTATION]: null }));
    return { done: true, state: 'Consistent', message: `hand-off is for ${key.releaseImage}` };
  }

  // The hand-off is for another release than the NodePool's.
  const tenant = cm.metadata.labels?.[CONFIG_LABEL] !== undefined;
  if (tenant && cm.metadata.annotations?.[WANTED_RELEASE_ANNOTATION] !== key.releaseImage) {
    // A tenant layer: only the per-HCP controller builds it (FROM the provider image) and hands it
    // off, after verifying it. The gate tells it which release to build for, then waits.
    return step('Wanted', `asked the per-HCP controller for the tenant image for ${key.releaseImage}`, () =>
      // `update` with the resourceVersion read (HANDOFF_RULES grant no patch): a concurrent write by the per-HCP controller wins.
      m.update(RESOURCES.configMaps, { ...cm, metadata: { ...cm.metadata, annotations: { ...(cm.metadata.annotations ?? {}), [WANTED_RELEASE_ANNOTATION]: key.releaseImage } } }),
    );
  }
  const state: ImageState = tenant ? { pending: `the per-HCP controller builds the tenant layer for ${key.releaseImage} and hands it off` } : await o.imageFor(key);
  if ('image' in state) {
    return step('HandedOff', `image ${state.image} for ${key.releaseImage}: hand-off rewritten`, async () => {
      const want = handoffConfigMap(o.hcpNamespace, o.nodePoolName, '', state.image);
      want.metadata.annotations = { ...(cm.metadata.annotations ?? {}), [HANDOFF_RELEASE_ANNOTATION]: key.releaseImage };
      // The NodePoolOSConfig label is the per-HCP controller's (it deletes a hand-off whose config is
      // gone): kept as it is, never added by the gate.
      const labels: Record<string, string> = { ...(cm.metadata.labels ?? {}), ...want.metadata.labels };
      const own = cm.metadata.labels?.[CONFIG_LABEL];
      if (own === undefined) delete labels[CONFIG_LABEL];
      else labels[CONFIG_LABEL] = own;
      want.metadata.labels = labels;
      want.metadata.resourceVersion = cm.metadata.resourceVersion;
      await m.update(RESOURCES.configMaps, want);
    });
  }
  const why = truncate('pending' in state ? `waiting for the image for ${describe(key)}: ${state.pending}` : `the image for ${describe(key)} failed: ${state.failed}`);

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
