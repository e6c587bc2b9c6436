/**
 * What the planner's steps share (planner.ts `advance`, admission.ts `decide`, the view): the
 * persisted state of a rollout and its entries, the human's controls, a gate's request, the
 * ledger `advance` makes and `decide` admits against, and the small rules both read. Types and
 * pure helpers only.
 */
import type { RolloutChange } from '../gate.js';
import type { RolloutPolicy } from './policy.js';
import type { NodePoolObservation } from './progress.js';

export interface Entry {
  change: RolloutChange;
  /** Id of (image, release) the hand-off carries (state.ts targetId). */
  target: string;
  admittedAt: number;
  /** The gate's write succeeded (onRolloutStarted). */
  startedAt?: number;
  fromConfig?: string;
  generation?: number;
  targetConfig?: string;
  succeededAt?: number;
  failedAt?: number;
  reason?: string;
  /** A human resumed past this failure: it no longer counts towards a halt. */
  acknowledged?: boolean;
  canary?: boolean;
  /** What the hand-off carried before this forward write (index into RolloutState.previous): what a rollback writes back. */
  from?: number;
  /** A rollback: the config the NodePool ran before the forward write it undoes (HyperShift is done once that is current again). */
  expectConfig?: string;
  /** A rollback: the target HyperShift showed for the forward write it undoes (seen: a later "not updating" is a fresh read). */
  undone?: string;
}

export interface RolloutState {
  layer: string;
  entries: Record<string, Entry>;
  halted?: { at: number; reason: string };
  /** The last resume (control.resume) applied. */
  resumes: number;
  /** Distinct (image, release) hand-offs replaced by forward writes, `${image}\n${release}` (entries point here). */
  previous?: string[];
}

export interface RolloutControl {
  paused?: { at: number; by: string };
  /** A counter: each `fleet-rollout resume` adds one. */
  resume?: number;
  rollback?: { at: number; by: string };
}

export interface AdmitRequest {
  key: string;
  change: RolloutChange;
  target: string;
  /** What the hand-off carries now (a provider-only one): recorded with a forward write, for rollback. */
  from?: { image: string; releaseImage: string };
}

/**
 * The rollout as it stands once the entries followed what HyperShift reports (the counts, the
 * canaries, the halt): what `decide` admits against and `view` shows. `advance` makes it in one
 * pass over the NodePools; `decide` then answers any number of requests against it, each in
 * constant time, for as long as nothing was observed and `recheckAt` has not come (the engine's
 * incremental admission: one plan per change, not one per request).
 */
export interface Ledger {
  policy: RolloutPolicy;
  progressive: boolean;
  reservationMs: number;
  /** The time it was advanced to. */
  now: number;
  state: RolloutState;
  changed: boolean;
  control: RolloutControl;
  nodePools: readonly NodePoolObservation[];
  byKey: Map<string, NodePoolObservation>;
  isCanary: (o: NodePoolObservation) => boolean;
  /** Rolling entries' progress, for their rows. */
  details: Map<string, string>;
  /** The next moment time alone changes something (absolute), if any. */
  recheckAt?: number;
  windowUsed: number;
  rollingNow: number;
  perHc: Map<string, number>;
  maxConcurrency: number;
  canaries: number;
  canariesDone: number;
  /** After a rollback (Progressive): canaries of this rollout still to go back (not yet admitted, or rolling back). */
  canaryRollbacksLeft: number;
  pausedWhy?: string;
  rolledBackWhy?: string;
  haltedWhy?: string;
}

const MAX_REASON = 512;
export const clip = (s: string) => (s.length <= MAX_REASON ? s : `${s.slice(0, MAX_REASON - 1)}…`);

/** A write that hands off the layer (a rollback, or emptying a stale hand-off, does not). */
export const forward = (c: RolloutChange) => c === 'first-handoff' || c === 'layer-change' || c === 'release-change';

/** Admitted or written, and neither succeeded nor failed yet. */
export const rolling = (e: Entry) => e.succeededAt === undefined && e.failedAt === undefined;
