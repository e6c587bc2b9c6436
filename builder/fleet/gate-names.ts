/**
 * What the upgrade gate (gate.ts) writes on a NodePool: annotations and label. A module of
 * constants only, so the fleet package (resources/fleet/, its admission policies) and the fleet
 * view read them without loading the Kubernetes client.
 */
import { GROUP } from '../api/types.js';
import type { Resource } from '../clusters/kube.js';

/** HyperShift's NodePools (the one Resource object: the fleet's cache recognises it by identity). */
export const NODEPOOLS: Resource = { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true };

/** On the NodePool: we set pausedUntil, holding it for this release. Absent: any pause is not ours. */
export const PAUSED_FOR_ANNOTATION = `${GROUP}/gate-paused-for`;
/** On the NodePool: when our hold began (RFC3339, from the injected clock). The hold for one release never outlasts it by more than maxHoldSeconds. */
export const HELD_SINCE_ANNOTATION = `${GROUP}/gate-held-since`;
/**
 * On the NodePool: the exact spec.pausedUntil we wrote (an RFC3339 time, never "true"). Our hold
 * is recognised by this, not by the value's shape: a pausedUntil that differs is someone else's.
 */
export const PAUSED_UNTIL_ANNOTATION = `${GROUP}/gate-paused-until`;
/**
 * On the NodePool: the UpdatingConfig target HyperShift showed before the hand-off for the held
 * release was written (its "Target config" hash, or the current config when not updating). The
 * hold is lifted only once the target shown differs: HyperShift read the hand-off.
 */
export const TARGET_SEEN_ANNOTATION = `${GROUP}/gate-target-seen`;
/** On the NodePool: the gate will not hold again for this release (hold timed out, or a human lifted it). */
export const RELEASED_FOR_ANNOTATION = `${GROUP}/gate-released-for`;
/** On the NodePool: why the gate last held or released (human-readable, bounded). */
export const REASON_ANNOTATION = `${GROUP}/gate-reason`;
/** On the NodePool: a precondition fails (pull coverage, NodeTuning, build capacity): never held, never handed an image. The reason, bounded. */
export const BLOCKED_ANNOTATION = `${GROUP}/gate-blocked`;
/** How the reason of a hold the rollout policy keeps begins (REASON_ANNOTATION): the fleet view shows such a NodePool as Deferred. */
export const DEFERRED_PREFIX = 'deferred by the rollout policy: ';
/** On the NodePool: the gate applies (set by the gate when a hand-off exists; the admission mutation selects on it). */
export const GATED_LABEL = `${GROUP}/upgrade-gate`;
/** A pausedUntil of older fleet versions ("true": never expires). Lifted or replaced by a time when seen on a hold of ours; never written. */
export const LEGACY_PAUSE_VALUE = 'true';
/** HyperShift's record of the config a NodePool's machines run (nodepool_controller.go nodePoolAnnotationCurrentConfig). */
export const CURRENT_CONFIG_ANNOTATION = 'hypershift.openshift.io/nodePoolCurrentConfig';

/** The pausedUntil of a hold that began at `since`: since + maxHoldSeconds, RFC3339 to the second (what Go's time.Parse(time.RFC3339) reads). */
export function holdUntil(since: Date, maxHoldSeconds: number): string {
  const t = Math.floor(since.getTime() / 1000) * 1000 + maxHoldSeconds * 1000;
  return new Date(t).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
