/**
 * `on-cluster-build fleet-rollout pause|resume|rollback`: a human's command to the running fleet,
 * one write of the rollout ConfigMap's control key (state.ts updateControl; the fleet watches it),
 * never an edit of NodePools or hand-offs by hand.
 * - pause: no NodePool starts (release changes included: held NodePools stay held up to their bound);
 *   those in flight go on.
 * - resume: lifts a pause, a halt (the failures so far no longer count towards maxFailures) and a
 *   rollback.
 * - rollback: the current layer is not handed off again (forward writes refused); only writes of
 *   a previous image (change `rollback`) are admitted, under the same bounds.
 * Exit codes: 0 done, 1 the write failed (one located line), 2 usage.
 */
import { userInfo } from 'node:os';
import { Kube } from '../../clusters/kube.js';
import { FlagError, parseFlags, type FlagSpec } from '../../flags.js';
import { FLEET_NAMESPACE } from '../rbac.js';
import type { RolloutControl } from './planner.js';
import { encodeControl, ROLLOUT_CONFIGMAP, updateControl } from './state.js';

export const FLEET_ROLLOUT_SUMMARY = 'pause, resume or roll back the fleet rollout of the provider layer (one write the fleet component acts on)';

export const FLEET_ROLLOUT_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', env: 'KUBECONFIG', default: '', description: "kubeconfig of the management cluster; empty: the pod's in-cluster ServiceAccount" },
  { name: 'namespace', type: 'string', default: FLEET_NAMESPACE, description: "the fleet component's namespace (its rollout ConfigMap)" },
  { name: 'by', type: 'string', default: '', description: 'who asks (shown in the fleet view); empty: the local user name' },
];

const ACTIONS = ['pause', 'resume', 'rollback'] as const;
type Action = (typeof ACTIONS)[number];

/** What an action does to the control (pure). */
export function applyAction(action: Action, c: RolloutControl, by: string, now: number): RolloutControl {
  if (action === 'pause') return { ...c, paused: { at: now, by } };
  if (action === 'rollback') return { ...c, rollback: { at: now, by } };
  const { paused: _p, rollback: _r, ...rest } = c;
  return { ...rest, resume: (c.resume ?? 0) + 1 };
}

export async function fleetRolloutMain(args: string[], env: Record<string, string | undefined>, out: (s: string) => void, err: (s: string) => void, now: () => number = Date.now): Promise<number> {
  const [action, ...rest] = args;
  let flags;
  try {
    if (!ACTIONS.includes(action as Action)) throw new FlagError(`on-cluster-build fleet-rollout: the first argument is pause, resume or rollback, got ${JSON.stringify(String(action ?? '').slice(0, 40))}`);
    flags = parseFlags('on-cluster-build fleet-rollout', FLEET_ROLLOUT_FLAGS, rest, env);
  } catch (e) {
    err(`${(e as Error).message}\n`);
    return 2;
  }
  let by = String(flags.by);
  if (!by) {
    try {
      by = userInfo().username;
    } catch {
      by = 'unknown';
    }
  }
  by = by.slice(0, 256);
  try {
    const kube = await Kube.load(String(flags.kubeconfig) || undefined);
    const c = await updateControl(kube, String(flags.namespace), (before) => applyAction(action as Action, before, by, now()));
    out(`${action}: written to ConfigMap ${String(flags.namespace)}/${ROLLOUT_CONFIGMAP} (${encodeControl(c)}); the fleet component acts on it at once\n`);
    return 0;
  } catch (e) {
    err(`on-cluster-build fleet-rollout ${action}: ${(e as Error).message}\n`);
    return 1;
  }
}
