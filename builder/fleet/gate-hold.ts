/**
 * The gate's hold as HyperShift reads it, pure (no client): upstream's pausedUntil parsing, the
 * UpdatingConfig target HyperShift shows, and the admission mutation that holds a NodePool in the
 * same write as its release change (the webhook, webhook.ts, serves it). gate.ts re-exports them.
 */
import { createHash } from 'node:crypto';
import type { KubeObject } from '../clusters/kube.js';
import { CURRENT_CONFIG_ANNOTATION, GATED_LABEL, HELD_SINCE_ANNOTATION, holdUntil, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION, RELEASED_FOR_ANNOTATION, TARGET_SEEN_ANNOTATION } from './gate-names.js';

export type GateCondition = { type?: string; status?: string; reason?: string; message?: string };
export type GateNodePool = KubeObject & { spec?: { release?: { image?: string }; arch?: string; pausedUntil?: string; osImageStream?: { name?: string } }; status?: { conditions?: GateCondition[] } };

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

/**
 * What HyperShift's UpdatingConfig condition shows as the NodePool's target config
 * (nodepool/conditions.go updatingConfigCondition: "Updating config in progress. Target config:
 * <hash>" while updating, else False/AsExpected with the current config in the
 * nodePoolCurrentConfig annotation). It is computed before the pause check (nodepool_controller.go
 * reconcile: signalConditions run first) from the informer cache, so it moves while held.
 * `absent`: HyperShift never reported on this NodePool; `target` undefined: updating, but the
 * message carries no hash (an InPlace upgrade's own progress message).
 */
export function updatingConfigTarget(np: GateNodePool): { absent: true } | { absent: false; target?: string } {
  const c = np.status?.conditions?.find((x) => x.type === 'UpdatingConfig');
  if (!c) return { absent: true };
  if (c.status === 'True') {
    const m = /Target config: ([0-9A-Za-z]{1,128})\s*$/.exec(c.message ?? '');
    return { absent: false, ...(m ? { target: m[1] } : {}) };
  }
  const current = np.metadata.annotations?.[CURRENT_CONFIG_ANNOTATION];
  return { absent: false, target: `current:${(current ?? '').slice(0, 128)}` };
}

/** The sha256 (16 hex) of a hand-off's `config`, as recorded with the target. */
export function configDigest(config: string): string {
  return createHash('sha256').update(config).digest('hex').slice(0, 16);
}
/** TARGET_SEEN as the gate writes it: the target and the digest of the hand-off's config when it was shown (the admission mutation writes the target alone). */
export function targetRecord(target: string, cm: { data?: Record<string, string> } | undefined): string {
  return cm ? `${target}@${configDigest(cm.data?.config ?? '')}` : target;
}
/** TARGET_SEEN read: the target, and the config digest when the gate recorded one. */
export function recordedTarget(v: string | undefined): { target?: string; config?: string } {
  if (v === undefined) return {};
  const at = v.lastIndexOf('@');
  return at < 0 ? { target: v } : { target: v.slice(0, at), config: v.slice(at + 1) };
}

export type PatchOp = { op: 'add' | 'replace'; path: string; value: unknown };

/**
 * The admission mutation (a mutating webhook on NodePool UPDATE, selected by GATED_LABEL and a
 * matchCondition `object.spec.release.image != oldObject.spec.release.image`): the release change
 * and the hold land in one write, so HyperShift never sees the new release unheld. The hold is a
 * time (`now + maxHoldSeconds`), recorded in PAUSED_UNTIL so the gate knows it as its own, with
 * the UpdatingConfig target seen so far (TARGET_SEEN). Pure: returns the JSONPatch operations,
 * or [] to admit unchanged.
 */
export function admitNodePoolUpdate(oldNp: GateNodePool, newNp: GateNodePool, now: Date, maxHoldSeconds: number): PatchOp[] {
  const before = oldNp.spec?.release?.image;
  const after = newNp.spec?.release?.image;
  if (!after || before === after) return [];
  if (newNp.metadata.labels?.[GATED_LABEL] !== 'true') return [];
  if (newNp.spec?.pausedUntil != null) return []; // someone else's pause (or ours already): leave it
  if (!(maxHoldSeconds > 0)) return [];
  const ann = newNp.metadata.annotations ?? {};
  if (ann[RELEASED_FOR_ANNOTATION] === after) return [];
  const ops: PatchOp[] = [];
  if (!newNp.metadata.annotations) ops.push({ op: 'add', path: '/metadata/annotations', value: {} });
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  const until = holdUntil(now, maxHoldSeconds);
  const seen = updatingConfigTarget(newNp);
  ops.push({ op: 'add', path: `/metadata/annotations/${esc(PAUSED_FOR_ANNOTATION)}`, value: after });
  ops.push({ op: 'add', path: `/metadata/annotations/${esc(HELD_SINCE_ANNOTATION)}`, value: now.toISOString() });
  ops.push({ op: 'add', path: `/metadata/annotations/${esc(PAUSED_UNTIL_ANNOTATION)}`, value: until });
  if (!seen.absent && seen.target !== undefined) ops.push({ op: 'add', path: `/metadata/annotations/${esc(TARGET_SEEN_ANNOTATION)}`, value: seen.target });
  ops.push({ op: 'add', path: '/spec/pausedUntil', value: until });
  return ops;
}
