/**
 * The rollout's state in the cluster, so a fleet process that crashes (or loses its Lease)
 * resumes exactly: one ConfigMap in the fleet namespace, ROLLOUT_CONFIGMAP, with two keys:
 * - STATE_KEY, written only by the fleet's leader: planner.ts RolloutState (the layer, one entry per
 *   NodePool the rollout admitted, the halt). An admission is recorded here BEFORE the gate writes
 *   the hand-off, so a crash never forgets a NodePool it let roll (the bound holds across crashes).
 * - CONTROL_KEY, written only by the `fleet-rollout` command (a human): pause, resume, rollback.
 * Each writer re-reads on a conflict and rewrites only its own key. Entries are stored compactly
 * (2,000 NodePools ≈ 250 KB); the whole object stays under MAX_STATE_BYTES, else the oldest
 * finished non-canary entries are dropped (they no longer gate anything).
 *
 * Decoding is strict and bounded: the ConfigMap is editable by whoever may edit the fleet
 * namespace, so a malformed value is a located error (the fleet then starts from a fresh state
 * and says so), never a crash.
 */
import { createHash } from 'node:crypto';
import { isConflict, Kube, KubeObject, RESOURCES } from '../../clusters/kube.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from '../../controller/build-job.js';
import { type Clock, realClock } from '../../controller/queue.js';
import type { RolloutChange } from '../gate.js';
import type { Entry, RolloutControl, RolloutState } from './planner.js';
import { formatPolicy, type RolloutPolicy } from './policy.js';

import { ROLLOUT_CONFIGMAP } from '../rbac.js';
export { ROLLOUT_CONFIGMAP };
export const STATE_KEY = 'state.json';
export const CONTROL_KEY = 'control.json';
/** The policy the fleet runs (policy.ts formatPolicy), written with the state: the plan view reads it. */
export const POLICY_KEY = 'policy.json';
/** The label the fleet's watch of its own ConfigMap selects. */
export const ROLLOUT_LABEL = 'on-cluster-build.openshift.io/fleet-rollout';
export const MAX_STATE_BYTES = 800 * 1024;
const MAX_KEY = 253 + 1 + 253;
const CHANGES: RolloutChange[] = ['first-handoff', 'layer-change', 'release-change', 'rollback', 'neutralise'];

/** The id of what a hand-off carries (image, and the release it was built for): short, fixed size. */
export function targetId(image: string, releaseImage: string): string {
  return createHash('sha256').update(`${image}\n${releaseImage}`).digest('hex').slice(0, 16);
}

type Compact = { c: number; t: string; a: number; s?: number; f?: string; g?: number; tc?: string; ok?: number; x?: number; r?: string; k?: 1; cn?: 1; p?: number; ec?: string; ud?: string };

export function encodeState(s: RolloutState): string {
  const entries: Record<string, Compact> = {};
  for (const k of Object.keys(s.entries).sort()) {
    const e = s.entries[k]!;
    entries[k] = {
      c: CHANGES.indexOf(e.change),
      t: e.target,
      a: e.admittedAt,
      ...(e.startedAt !== undefined ? { s: e.startedAt } : {}),
      ...(e.fromConfig !== undefined ? { f: e.fromConfig } : {}),
      ...(e.generation !== undefined ? { g: e.generation } : {}),
      ...(e.targetConfig !== undefined ? { tc: e.targetConfig } : {}),
      ...(e.succeededAt !== undefined ? { ok: e.succeededAt } : {}),
      ...(e.failedAt !== undefined ? { x: e.failedAt } : {}),
      ...(e.reason !== undefined ? { r: e.reason } : {}),
      ...(e.acknowledged ? { k: 1 as const } : {}),
      ...(e.canary ? { cn: 1 as const } : {}),
      ...(e.from !== undefined ? { p: e.from } : {}),
      ...(e.expectConfig !== undefined ? { ec: e.expectConfig } : {}),
      ...(e.undone !== undefined ? { ud: e.undone } : {}),
    };
  }
  return JSON.stringify({ v: 1, layer: s.layer, resumes: s.resumes, ...(s.halted ? { halted: s.halted } : {}), ...(s.previous?.length ? { previous: s.previous } : {}), entries });
}

export class StateError extends Error {}

const str = (v: unknown, max: number): v is string => typeof v === 'string' && v.length <= max;
const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

export function decodeState(text: string, where = `ConfigMap ${ROLLOUT_CONFIGMAP} key ${STATE_KEY}`): RolloutState {
  if (text.length > MAX_STATE_BYTES * 2) throw new StateError(`${where}: larger than ${MAX_STATE_BYTES * 2} bytes`);
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StateError(`${where}: not JSON: ${(e as Error).message}`);
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || o.v !== 1) throw new StateError(`${where}: not a version 1 rollout state`);
  if (!str(o.layer, 1024)) throw new StateError(`${where}.layer: must be a string`);
  if (!num(o.resumes)) throw new StateError(`${where}.resumes: must be a count`);
  const state: RolloutState = { layer: o.layer, resumes: o.resumes, entries: {} };
  if (o.halted !== undefined) {
    const h = o.halted as Record<string, unknown>;
    if (typeof h !== 'object' || h === null || !num(h.at) || !str(h.reason, 1024)) throw new StateError(`${where}.halted: must be {at, reason}`);
    state.halted = { at: h.at, reason: h.reason };
  }
  if (o.previous !== undefined) {
    if (!Array.isArray(o.previous) || o.previous.length > 10000 || o.previous.some((p) => !str(p, 2048) || !p.includes('\n'))) throw new StateError(`${where}.previous: must be a list of "image\\nrelease"`);
    state.previous = [...(o.previous as string[])];
  }
  const es = o.entries as Record<string, unknown>;
  if (typeof es !== 'object' || es === null || Array.isArray(es)) throw new StateError(`${where}.entries: must be a map`);
  for (const [k, raw] of Object.entries(es)) {
    const w = `${where}.entries[${JSON.stringify(k.slice(0, 100))}]`;
    const c = raw as Compact;
    if (k.length > MAX_KEY || !k.includes('/')) throw new StateError(`${w}: not a NodePool key`);
    if (typeof c !== 'object' || c === null || !CHANGES[c.c] || !str(c.t, 64) || !num(c.a)) throw new StateError(`${w}: must carry c (change), t (target), a (admitted)`);
    for (const f of ['s', 'g', 'ok', 'x'] as const) if (c[f] !== undefined && !num(c[f])) throw new StateError(`${w}.${f}: must be a number`);
    if (c.p !== undefined && !(Number.isInteger(c.p) && c.p >= 0 && c.p < (state.previous?.length ?? 0))) throw new StateError(`${w}.p: must index previous`);
    for (const [f, n] of [['f', 128], ['tc', 128], ['ec', 128], ['ud', 128], ['r', 1024]] as const) if (c[f] !== undefined && !str(c[f], n)) throw new StateError(`${w}.${f}: must be a string of at most ${n}`);
    const e: Entry = { change: CHANGES[c.c]!, target: c.t, admittedAt: c.a };
    if (c.s !== undefined) e.startedAt = c.s;
    if (c.f !== undefined) e.fromConfig = c.f;
    if (c.g !== undefined) e.generation = c.g;
    if (c.tc !== undefined) e.targetConfig = c.tc;
    if (c.ok !== undefined) e.succeededAt = c.ok;
    if (c.x !== undefined) e.failedAt = c.x;
    if (c.r !== undefined) e.reason = c.r;
    if (c.k) e.acknowledged = true;
    if (c.cn) e.canary = true;
    if (c.p !== undefined) e.from = c.p;
    if (c.ec !== undefined) e.expectConfig = c.ec;
    if (c.ud !== undefined) e.undone = c.ud;
    state.entries[k] = e;
  }
  return state;
}

export function decodeControl(text: string | undefined, where = `ConfigMap ${ROLLOUT_CONFIGMAP} key ${CONTROL_KEY}`): RolloutControl {
  if (text === undefined || text === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new StateError(`${where}: not JSON: ${(e as Error).message}`);
  }
  const o = v as Record<string, unknown>;
  if (typeof o !== 'object' || o === null || Array.isArray(o)) throw new StateError(`${where}: must be an object`);
  const out: RolloutControl = {};
  const who = (x: unknown, f: string) => {
    const h = x as Record<string, unknown>;
    if (typeof h !== 'object' || h === null || !num(h.at) || !str(h.by, 256)) throw new StateError(`${where}.${f}: must be {at, by}`);
    return { at: h.at, by: h.by };
  };
  if (o.paused !== undefined) out.paused = who(o.paused, 'paused');
  if (o.rollback !== undefined) out.rollback = who(o.rollback, 'rollback');
  if (o.resume !== undefined) {
    if (!num(o.resume) || !Number.isInteger(o.resume)) throw new StateError(`${where}.resume: must be a count`);
    out.resume = o.resume;
  }
  return out;
}

export function encodeControl(c: RolloutControl): string {
  return JSON.stringify({ ...(c.paused ? { paused: c.paused } : {}), ...(c.resume ? { resume: c.resume } : {}), ...(c.rollback ? { rollback: c.rollback } : {}) });
}

/** Drops finished non-canary entries, oldest first, until the encoded state fits. */
export function fitState(s: RolloutState): RolloutState {
  let text = encodeState(s);
  if (text.length <= MAX_STATE_BYTES) return s;
  const out: RolloutState = { ...s, entries: { ...s.entries } };
  const finished = Object.entries(out.entries)
    .filter(([, e]) => !e.canary && (e.succeededAt !== undefined || (e.failedAt !== undefined && e.acknowledged)))
    .sort(([ka, a], [kb, b]) => (a.succeededAt ?? a.failedAt ?? 0) - (b.succeededAt ?? b.failedAt ?? 0) || (ka < kb ? -1 : 1));
  for (const [k] of finished) {
    delete out.entries[k];
    text = encodeState(out);
    if (text.length <= MAX_STATE_BYTES) return out;
  }
  throw new StateError(`rollout state for ${Object.keys(out.entries).length} NodePools is larger than ${MAX_STATE_BYTES} bytes even without finished ones`);
}

type Cm = KubeObject & { data?: Record<string, string> };

export interface Loaded {
  state?: RolloutState;
  control: RolloutControl;
  /** A value that could not be decoded (the fleet starts afresh and logs it). */
  problems: string[];
}

export async function readRollout(kube: Kube, namespace: string): Promise<Loaded & { cm?: Cm }> {
  const cm = await kube.get<Cm>(RESOURCES.configMaps, ROLLOUT_CONFIGMAP, namespace);
  return { ...decodeRollout(cm), ...(cm ? { cm } : {}) };
}

export function decodeRollout(cm: Cm | undefined): Loaded {
  const problems: string[] = [];
  let state: RolloutState | undefined;
  let control: RolloutControl = {};
  const text = cm?.data?.[STATE_KEY];
  if (text) {
    try {
      state = decodeState(text);
    } catch (e) {
      problems.push((e as Error).message);
    }
  }
  try {
    control = decodeControl(cm?.data?.[CONTROL_KEY]);
  } catch (e) {
    problems.push((e as Error).message);
  }
  return { ...(state ? { state } : {}), control, problems };
}

/**
 * Rewrites one key of the ConfigMap (creating it), re-reading on a conflict. `known`: the object as
 * this writer last wrote it (its resourceVersion): no read first while nobody else wrote. Returns
 * the object as written.
 */
async function writeKey(kube: Kube, namespace: string, key: string, value: (cm: Cm | undefined) => string, owner?: KubeObject['metadata']['ownerReferences'], also: Record<string, string> = {}, known?: Cm): Promise<Cm> {
  for (let attempt = 0; ; attempt++) {
    const cm = attempt === 0 && known ? known : await kube.get<Cm>(RESOURCES.configMaps, ROLLOUT_CONFIGMAP, namespace);
    try {
      if (!cm) {
        return await kube.create(RESOURCES.configMaps, {
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: ROLLOUT_CONFIGMAP, namespace, labels: { [MANAGED_BY]: MANAGED_BY_VALUE, [ROLLOUT_LABEL]: 'true' }, ...(owner ? { ownerReferences: owner } : {}) },
          data: { ...also, [key]: value(undefined) },
        } as Cm);
      }
      return await kube.update(RESOURCES.configMaps, { ...cm, data: { ...(cm.data ?? {}), ...also, [key]: value(cm) } } as Cm);
    } catch (e) {
      // 409: someone wrote first (or created it): read again. Bounded.
      if (!(isConflict(e) || (e as { code?: number }).code === 409) || attempt >= 8) throw e;
    }
  }
}

/**
 * The fleet's writer: saves are coalesced (one write in flight; saves asked meanwhile, and those
 * asked within `coalesceMs` of the first, are served by one write, which carries the latest state),
 * and a state already in the cluster as the last write left it is not written again. `save()`
 * resolves once a write that started after the call has succeeded (or the state it asks for is
 * the one last written), so a caller knows its change is in the cluster: an admission is never
 * answered before it is recorded, however many are recorded in one write.
 *
 * `saveSoon()` is for what the fleet can observe again after a restart (a start, a target shown,
 * a success or failure seen): it waits up to `soon.ms` on the fleet's clock for a write to ride,
 * an admission's or its own, so a rollout's progress costs at most one write per `soon.ms` however
 * many NodePools move.
 */
export class RolloutStore {
  private latest: RolloutState | undefined;
  private inFlight: Promise<void> | undefined;
  private waiters: Waiter[] = [];
  /** saveSoon's callers: served by the next write, or by their own when `soon.ms` passes. */
  private soonWaiters: Waiter[] = [];
  private soonTimer: unknown;
  private stopped = false;
  /** The fleet's clock (run.ts), real timers by default. */
  private get clock(): Clock {
    return this.o.clock ?? realClock;
  }
  private writes = 0;
  /** The ConfigMap as last written (a conflict — the command wrote control — re-reads it). */
  private known: Cm | undefined;
  /** The state text last written (the `known` object's). */
  private written: string | undefined;
  constructor(private readonly o: { kube: Kube; namespace: string; owner?: KubeObject['metadata']['ownerReferences']; policy?: RolloutPolicy; coalesceMs?: number; soon?: { ms: number }; clock?: Clock }) {}

  /** The ConfigMap as read at the start of leadership (readRollout): the first write needs no read. */
  loaded(cm: Cm | undefined): void {
    if (this.inFlight || !cm) return;
    this.known = cm;
    this.written = cm.data?.[STATE_KEY];
  }

  /** Writes done so far (benches, tests). */
  get writeCount(): number {
    return this.writes;
  }

  /**
   * The fleet stopped (leadership lost, shutdown): nothing more is written, so a late save cannot
   * overwrite a new leader's state (a conflict re-reads and writes again). A write in flight
   * finishes; saves waiting, and those asked from now on, fail.
   */
  stop(): void {
    this.stopped = true;
    for (const w of this.takeWaiters()) w.reject(new Error(STOPPED));
  }

  /** Every save waiting (save's and saveSoon's), now served by the caller; the soon timer ends. */
  private takeWaiters(): Waiter[] {
    if (this.soonTimer !== undefined) {
      this.clock.clearTimeout(this.soonTimer);
      this.soonTimer = undefined;
    }
    const all = [...this.waiters, ...this.soonWaiters];
    this.waiters = [];
    this.soonWaiters = [];
    return all;
  }

  save(state: RolloutState): Promise<void> {
    if (this.stopped) return Promise.reject(new Error(STOPPED));
    this.latest = state;
    const p = new Promise<void>((resolve, reject) => this.waiters.push({ resolve, reject }));
    if (!this.inFlight) this.inFlight = this.loop(this.o.coalesceMs ?? 0);
    return p;
  }

  /** A save that may wait up to `soon.ms` (without `soon`: as save). */
  saveSoon(state: RolloutState): Promise<void> {
    const soon = this.o.soon;
    if (!soon || this.stopped) return this.save(state);
    this.latest = state;
    const p = new Promise<void>((resolve, reject) => this.soonWaiters.push({ resolve, reject }));
    if (!this.inFlight) this.armSoon(soon.ms);
    return p;
  }

  private armSoon(ms: number): void {
    if (this.soonTimer !== undefined || !this.soonWaiters.length) return;
    this.soonTimer = this.clock.setTimeout(() => {
      this.soonTimer = undefined;
      if (!this.inFlight && this.soonWaiters.length) this.inFlight = this.loop(this.o.coalesceMs ?? 0);
    }, ms);
  }

  private async loop(wait: number): Promise<void> {
    if (wait > 0) await new Promise<void>((r) => this.clock.setTimeout(r, wait));
    // Once for the waiters of saveSoon whose time came; then for as long as save() is asked.
    for (let first = true; this.waiters.length || (first && this.soonWaiters.length); first = false) {
      const batch = this.takeWaiters();
      try {
        const state = fitState(this.latest!);
        const text = encodeState(state);
        const policy = this.o.policy ? JSON.stringify(formatPolicy(this.o.policy)) : undefined;
        if (this.known && text === this.written && (policy === undefined || this.known.data?.[POLICY_KEY] === policy)) {
          for (const w of batch) w.resolve();
          continue;
        }
        this.writes++;
        this.known = await writeKey(this.o.kube, this.o.namespace, STATE_KEY, () => text, this.o.owner, policy !== undefined ? { [POLICY_KEY]: policy } : {}, this.known);
        this.written = this.known.data?.[STATE_KEY];
        for (const w of batch) w.resolve();
      } catch (e) {
        this.known = undefined;
        this.written = undefined;
        for (const w of batch) w.reject(e);
      }
    }
    this.inFlight = undefined;
    if (this.o.soon) this.armSoon(this.o.soon.ms);
  }
}

type Waiter = { resolve: () => void; reject: (e: unknown) => void };
const STOPPED = 'the fleet is stopping';

/** The `fleet-rollout` command's write: only the control key changes. */
export async function updateControl(kube: Kube, namespace: string, f: (c: RolloutControl) => RolloutControl): Promise<RolloutControl> {
  let out: RolloutControl = {};
  await writeKey(kube, namespace, CONTROL_KEY, (cm) => {
    // Unreadable control (hand-edited): the command's own write replaces it.
    let before: RolloutControl = {};
    try {
      before = decodeControl(cm?.data?.[CONTROL_KEY]);
    } catch {
      before = {};
    }
    out = f(before);
    return encodeControl(out);
  });
  return out;
}
