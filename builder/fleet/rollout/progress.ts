/**
 * A NodePool's rollout progress, read from HyperShift's own status (docs/design/fleet-rollout.md
 * "Success means nodes"; every name verified in openshift/hypershift 3ee96155):
 * - `UpdatingConfig` True, reason AsExpected, message "Updating config in progress. Target config:
 *   <hash>" while the config hash (our hand-off is part of it) is not yet the NodePool's
 *   `hypershift.openshift.io/nodePoolCurrentConfig` annotation; False AsExpected when it is
 *   (hypershift-operator/controllers/nodepool/conditions.go updatingConfigCondition,
 *   nodepool_controller.go isUpdatingConfig). InPlace replaces the message with the MachineSet's
 *   progress ("… Total Nodes: N. Upgraded: M") and reports failure as False with reason
 *   InplaceUpgradeFailed (same function; control-plane-operator/.../inplaceupgrader.go).
 * - The annotation and `status.version` move only when the MachineDeployment (Replace) or the
 *   MachineSet (InPlace) rollout is complete (capi.go).
 * - `UpdatingVersion` is the same for the release (False AsExpected once status.version is the target).
 * - Ready, AllMachinesReady, AllNodesHealthy: the machines and nodes themselves.
 * Replace has no failure signal: only the progress deadline fails it (planner.ts).
 *
 * Pure. The observation is what the fleet's NodePool watch keeps (trimmed, bounded: run.ts).
 */

export const CURRENT_CONFIG_ANNOTATION = 'hypershift.openshift.io/nodePoolCurrentConfig';
export const TRACKED_CONDITIONS = ['UpdatingConfig', 'UpdatingVersion', 'Ready', 'AllMachinesReady', 'AllNodesHealthy'] as const;
const TARGET_RE = /Target config: ([0-9a-zA-Z]{1,64})\b/;
export const MAX_CONDITION_MESSAGE = 256;

export interface ObservedCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

/** One NodePool as the planner sees it. */
export interface NodePoolObservation {
  /** `<namespace>/<name>`. */
  key: string;
  /** `<namespace>/<spec.clusterName>`: the HostedCluster. */
  hostedCluster: string;
  /** The HostedCluster's labels (canary selectors match these). */
  hostedClusterLabels: Record<string, string>;
  /** `spec.release.image`. */
  releaseImage?: string;
  generation?: number;
  /** The nodePoolCurrentConfig annotation. */
  currentConfig?: string;
  version?: string;
  conditions: ObservedCondition[];
  /**
   * The caller knows the NodePool's hand-off already carries the current rollout's layer (so it
   * never asks to start: a canary in that state counts as done).
   */
  onLayer?: boolean;
}

/** What the fleet remembers of its own write (state.ts). */
export interface StartedRollout {
  /** nodePoolCurrentConfig when we wrote. */
  fromConfig?: string;
  /** metadata.generation when we wrote (a release change is a spec change). */
  generation?: number;
  /** The last "Target config" hash seen after our write. */
  targetConfig?: string;
  /**
   * A rollback: the config the NodePool ran before the write it undoes. Undoing a rollout still in
   * flight returns HyperShift's target to the current config: UpdatingConfig goes False with the
   * current config unchanged, no new target ever shows, and this is how that is seen as done.
   */
  expectConfig?: string;
  releaseChange: boolean;
}

export type Progress = { state: 'rolling'; detail: string } | { state: 'succeeded' } | { state: 'failed'; reason: string };

const cond = (o: NodePoolObservation, t: string) => o.conditions.find((c) => c.type === t);
const clip = (s: string | undefined, n = MAX_CONDITION_MESSAGE) => (s === undefined ? '' : s.length <= n ? s : `${s.slice(0, n - 1)}…`);

/** The config hash HyperShift is rolling towards, when its condition shows it. */
export function observedTargetConfig(o: NodePoolObservation): string | undefined {
  const c = cond(o, 'UpdatingConfig');
  if (c?.status !== 'True') return undefined;
  return TARGET_RE.exec(c.message ?? '')?.[1];
}

/** Where a started NodePool is (the deadline is the planner's: this reads status only). */
export function progressOf(o: NodePoolObservation, s: StartedRollout): Progress {
  const uc = cond(o, 'UpdatingConfig');
  const uv = cond(o, 'UpdatingVersion');
  for (const c of [uc, uv]) if (c && c.status === 'False' && c.reason === 'InplaceUpgradeFailed') return { state: 'failed', reason: `${c.type} ${c.reason}: ${clip(c.message)}` };
  if (!uc || uc.status !== 'False' || uc.reason !== 'AsExpected') return { state: 'rolling', detail: uc?.status === 'True' ? clip(uc.message) || 'updating config' : 'waiting for HyperShift to report UpdatingConfig' };
  // Config: the expected (rollback) config or the target seen after our write is current; without either, the current config moved off where it was.
  const back = s.expectConfig !== undefined && o.currentConfig === s.expectConfig;
  // A release change that hashes to the same config (releases sharing one OS image: HashWithoutVersion excludes the version) shows no target: its version finishing for the new generation is the rollout finishing.
  const versionDone = s.releaseChange && s.generation !== undefined && uv?.status === 'False' && uv.reason === 'AsExpected' && (uv.observedGeneration ?? 0) >= s.generation;
  // A target seen and then dropped: HyperShift's reconcile of the new generation says its config is current (UpdatingConfig False) and the release is done.
  // So it goes when the gate emptied a stale hand-off while held (HyperShift showed the emptied config) and wrote the same config back for a z-stream.
  const targetDropped = versionDone && (uc.observedGeneration ?? 0) >= s.generation!;
  if (!back && (s.targetConfig !== undefined ? o.currentConfig !== s.targetConfig && !targetDropped : o.currentConfig === s.fromConfig && !versionDone)) {
    return { state: 'rolling', detail: s.targetConfig !== undefined ? `current config ${o.currentConfig ?? 'none'} is not the target ${s.targetConfig}` : 'HyperShift has not taken the new config yet' };
  }
  if (s.releaseChange) {
    if (!uv || uv.status !== 'False' || uv.reason !== 'AsExpected') return { state: 'rolling', detail: uv?.status === 'True' ? clip(uv.message) || 'updating version' : 'waiting for HyperShift to report UpdatingVersion' };
    if (s.generation !== undefined && (uv.observedGeneration ?? 0) < s.generation) return { state: 'rolling', detail: 'UpdatingVersion not yet observed for the new release' };
  }
  for (const t of ['Ready', 'AllMachinesReady', 'AllNodesHealthy']) {
    const c = cond(o, t);
    if (c?.status !== 'True') return { state: 'rolling', detail: `${t} ${c ? `${c.status}${c.reason ? ` (${c.reason})` : ''}` : 'not reported'}` };
  }
  return { state: 'succeeded' };
}
