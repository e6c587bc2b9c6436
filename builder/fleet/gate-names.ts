/**
 * What the upgrade gate (gate.ts) writes on a NodePool: annotations, label and the pause value.
 * A module of constants only, so the fleet package (resources/fleet/, its admission policies)
 * and the fleet view read them without loading the Kubernetes client.
 */
import { GROUP } from '../api/types.js';

/** On the NodePool: we set pausedUntil, holding it for this release. Absent: any pause is not ours. */
export const PAUSED_FOR_ANNOTATION = `${GROUP}/gate-paused-for`;
/** On the NodePool: when our hold began (RFC3339, from the injected clock). */
export const HELD_SINCE_ANNOTATION = `${GROUP}/gate-held-since`;
/** On the NodePool: the gate will not hold again for this release (hold timed out, or a human lifted it). */
export const RELEASED_FOR_ANNOTATION = `${GROUP}/gate-released-for`;
/** On the NodePool: why the gate last held or released (human-readable, bounded). */
export const REASON_ANNOTATION = `${GROUP}/gate-reason`;
/** On the NodePool: the gate applies (set by the gate when a hand-off exists; the admission mutation selects on it). */
export const GATED_LABEL = `${GROUP}/upgrade-gate`;
/** What we write into spec.pausedUntil; the only value we ever lift. */
export const PAUSE_VALUE = 'true';
