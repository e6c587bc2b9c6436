/**
 * The planner's admission (planner.ts step 4): the gate's requests answered against a ledger
 * (`advance`'s result), each in constant time. An admission updates the ledger's state and counts,
 * so the next request sees it; the ledger stays valid until something is observed or its
 * `recheckAt` comes (engine.ts re-advances then).
 */
import type { RolloutChange, RolloutDecision } from '../gate.js';
import { type AdmitRequest, clip, forward, type Ledger, rolling } from './ledger.js';
import type { NodePoolObservation } from './progress.js';

/** Why a NodePool would not start now (undefined: it may). */
export function whyNot(l: Ledger, o: NodePoolObservation, change: RolloutChange, held = false): string | undefined {
  const { policy, progressive, state } = l;
  if (l.pausedWhy) return l.pausedWhy;
  // A rollback, or emptying a stale hand-off (the release's own OS), only within the bounds.
  if (forward(change)) {
    if (l.rolledBackWhy) return l.rolledBackWhy;
    const e = state.entries[o.key];
    const alreadyOnLayer = (e !== undefined && e.succeededAt !== undefined && forward(e.change)) || o.onLayer === true;
    if (!progressive && (change === 'first-handoff' || change === 'layer-change')) return 'RideReleaseChange: the new layer reaches this NodePool with its next release change';
    if (progressive && !(change === 'release-change' && alreadyOnLayer)) {
      if (l.haltedWhy) return l.haltedWhy;
      if (!l.isCanary(o) && l.canariesDone < l.canaries) return `waiting for the canaries: ${l.canariesDone}/${l.canaries} succeeded${policy.minSuccessSeconds ? ` and soaked ${policy.minSuccessSeconds}s` : ''}`;
    }
  }
  // A rollback under Progressive goes canaries first too: another NodePool's starts once every canary is back (a NodePool rolling forward now is sent back at once: it keeps its slot, nothing new starts).
  if (change === 'rollback' && l.canaryRollbacksLeft > 0 && !l.isCanary(o) && !held) return `rolling back the canaries first: ${l.canaryRollbacksLeft} canary NodePool(s) not back yet`;
  if (l.windowUsed >= l.maxConcurrency) return `maxConcurrency ${l.maxConcurrency} reached (${l.windowUsed} NodePools rolling${progressive && policy.minSuccessSeconds ? ' or soaking' : ''})`;
  if ((l.perHc.get(o.hostedCluster) ?? 0) >= policy.maxConcurrencyPerHostedCluster) return `maxConcurrencyPerHostedCluster ${policy.maxConcurrencyPerHostedCluster} reached in HostedCluster ${o.hostedCluster}`;
  return undefined;
}

/**
 * Step 4: the gate's requests, at `now` (not before the ledger's time, and before its
 * `recheckAt`), each in constant time; admissions update the ledger's state and counts.
 */
export function decide(l: Ledger, requests: readonly AdmitRequest[], now: number): Map<string, RolloutDecision> {
  const { state, perHc } = l;
  const decisions = new Map<string, RolloutDecision>();
  for (const r of requests) {
    const o = l.byKey.get(r.key);
    if (!o) {
      decisions.set(r.key, { admit: false, reason: 'NodePool not observed yet by the fleet' });
      continue;
    }
    const e = state.entries[r.key];
    if (e && e.target === r.target && e.change === r.change) {
      decisions.set(r.key, { admit: true }); // asked again for the same write (a conflict, a crash): the same answer
      continue;
    }
    // A NodePool rolling for an earlier write keeps its slot for the new one.
    const held = e !== undefined && rolling(e);
    if (held) {
      l.windowUsed--;
      perHc.set(o.hostedCluster, (perHc.get(o.hostedCluster) ?? 1) - 1);
      l.rollingNow--;
    }
    const no = whyNot(l, o, r.change, held);
    if (no) {
      if (held) {
        l.windowUsed++;
        perHc.set(o.hostedCluster, (perHc.get(o.hostedCluster) ?? 0) + 1);
        l.rollingNow++;
      }
      decisions.set(r.key, { admit: false, reason: clip(no) });
      continue;
    }
    let from: number | undefined;
    // Rewritten again in this rollout (a release change carrying the layer): the original stays the one to go back to.
    if (forward(r.change) && e?.from !== undefined && forward(e.change)) from = e.from;
    // A rollback keeps what it writes until its write is recorded: a refused write (a conflict) is retried with the same target.
    else if (r.change === 'rollback' && e?.from !== undefined && (forward(e.change) || e.change === 'rollback')) from = e.from;
    else if (r.from && forward(r.change)) {
      const text = `${r.from.image}\n${r.from.releaseImage}`;
      state.previous ??= [];
      from = state.previous.indexOf(text);
      if (from < 0) from = state.previous.push(text) - 1;
    }
    // A rollback undoes the forward write: the NodePool is back once the config it ran before that write is current again.
    const undoes = r.change === 'rollback' && e !== undefined;
    const expectConfig = !undoes ? undefined : e.change === 'rollback' ? e.expectConfig : e.fromConfig;
    const undone = !undoes ? undefined : e.change === 'rollback' ? e.undone : e.targetConfig;
    state.entries[r.key] = {
      change: r.change,
      target: r.target,
      admittedAt: now,
      ...(l.isCanary(o) ? { canary: true } : {}),
      ...(from !== undefined ? { from } : {}),
      ...(expectConfig !== undefined ? { expectConfig } : {}),
      ...(undone !== undefined ? { undone } : {}),
    };
    l.windowUsed++;
    l.rollingNow++;
    perHc.set(o.hostedCluster, (perHc.get(o.hostedCluster) ?? 0) + 1);
    if (l.recheckAt === undefined || now + l.reservationMs < l.recheckAt) l.recheckAt = now + l.reservationMs;
    l.changed = true;
    decisions.set(r.key, { admit: true });
  }
  return decisions;
}

