/**
 * A work budget for one template execution, counted inside functions. The step limit counts
 * actions, but one action can do unbounded work: a dict doubled 30 times is 30 cheap steps and
 * 2^30 nodes when `toJson` walks it (values share structure; serialising expands it). Functions
 * charge what they are about to produce — characters of strings, elements of lists and maps —
 * before producing it, so the run stops with a template error instead of running for minutes
 * and out of memory. Executions are synchronous, so the active budget is module state; a nested
 * execution (PKO's include, tpl) shares the budget of the run it is part of.
 */
import { GoTyped } from './types.js';

/**
 * Default work per execution: characters plus elements produced by functions. Of the order of
 * the 64 Mi-character output limit, and a few seconds of work at most.
 */
export const DEFAULT_MAX_WORK = 50_000_000;

/** Thrown by charge(); the executor turns it into a located template error. */
export class WorkLimitError extends Error {}

interface Budget {
  left: number;
  readonly limit: number;
}

let active: Budget | null = null;

/** Runs f with a fresh budget, or inside the budget of the execution already running. */
export function withWorkBudget<T>(limit: number, f: () => T): T {
  if (active !== null) return f();
  active = { left: limit, limit };
  try {
    return f();
  } finally {
    active = null;
  }
}

function exceeded(limit: number): never {
  throw new WorkLimitError(`template work exceeds the limit of ${limit} (characters and list/dict elements produced by functions)`);
}

/**
 * Counts `units` of work against the running execution. Outside an execution (a function called
 * directly) a single charge may not exceed the default budget.
 */
export function charge(units: number): void {
  if (!(units > 0)) return;
  if (active === null) {
    if (units > DEFAULT_MAX_WORK) exceeded(DEFAULT_MAX_WORK);
    return;
  }
  active.left -= units;
  if (active.left < 0) exceeded(active.limit);
}

/**
 * Charges for walking `v` the way a serialiser or deep copy will: every element and every
 * character of every string and key, with shared values counted each time they are reached.
 * Stops as soon as the budget is used up, so the walk itself is bounded.
 */
export function chargeDeep(v: unknown): void {
  const limit = active?.limit ?? DEFAULT_MAX_WORK;
  const left = active?.left ?? DEFAULT_MAX_WORK;
  let used = 0;
  const stack: unknown[] = [v];
  while (stack.length > 0) {
    let x = stack.pop();
    if (x instanceof GoTyped) x = x.value;
    used += 1;
    if (typeof x === 'string') used += x.length;
    else if (Array.isArray(x)) {
      for (let i = x.length - 1; i >= 0; i--) stack.push(x[i]);
    } else if (x !== null && typeof x === 'object') {
      for (const k of Object.keys(x)) {
        used += k.length;
        stack.push((x as Record<string, unknown>)[k]);
      }
    }
    if (used > left) {
      if (active !== null) active.left = -1;
      exceeded(limit);
    }
  }
  if (active !== null) active.left -= used;
}

/** The size of a function's result, charged after the call: strings by length, lists and maps by entries. */
export function chargeResult(v: unknown): void {
  if (v instanceof GoTyped) v = v.value;
  if (typeof v === 'string') charge(v.length);
  else if (Array.isArray(v)) charge(v.length);
  else if (v !== null && typeof v === 'object' && typeof v !== 'function') charge(Object.keys(v).length);
}
