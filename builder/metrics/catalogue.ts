/**
 * Every metric our processes export, in one table: name, type, help and labels. Each label takes
 * its values from a fixed list here (`bounded`): a value outside the list is counted as `Other`,
 * so no label grows with the fleet, the tenants or the messages of a registry. Per-object facts
 * (which NodePool, which build) are in status, Events and logs, never in a label.
 *
 * docs/design/observability.md lists these with their meaning and what to do; the PrometheusRule
 * (resources/monitoring.ts) and its promtool tests name them from here.
 */

export const PREFIX = 'on_cluster_build_';

/** Why a build failed: our reasons and the Job conditions Kubernetes writes (batch/v1 JobFailed reasons). */
export const BUILD_FAILURE_REASONS = [
  'BackoffLimitExceeded',
  'DeadlineExceeded',
  'PodFailurePolicy',
  'MaxFailedIndexesExceeded',
  'JobFailed',
  'NoDigest',
  'ImageVerificationFailed',
  'Superseded',
  'Other',
] as const;

/** Why a NodePool's config is not on its image: the reasons of its conditions (reconciler.ts). */
export const NODEPOOL_REASONS = [
  // Building=False with a pending reason, WaitingForCapacity=True
  'WaitingForProviderImage',
  'WaitingForBuildSlot',
  'RebuildRateLimited',
  'NoReadyNodeOfArchitecture',
  // Degraded=True
  'TenantLayerDisabled',
  'ReleaseResolutionFailed',
  'PushTargetNotPullableByNodes',
  'PushSecretNotFound',
  'OSStreamUnknown',
  'NodePoolNotFound',
  'NodePoolInputsInvalid',
  'NoBuilderImage',
  'InvalidSpec',
  'BaseImagePullSecretNotFound',
  'ArchitectureUnknown',
  'HandoffUnavailable',
  ...BUILD_FAILURE_REASONS,
] as const;

export const NODEPOOL_STATES = ['Available', 'Building', 'Waiting', 'Degraded'] as const;

/** The kinds the HCP namespace's webhook and the fleet's admit (their paths' kinds). */
export const WEBHOOKS = ['NodePoolOSConfig', 'NodePoolOSBuild', 'NodePool', 'Other'] as const;
export const ADMISSION_RESULTS = ['Allowed', 'Denied', 'Error'] as const;
/** Denials: who (Forbidden) or what (Invalid), as the AdmissionReview's status says. */
export const DENIAL_REASONS = ['Forbidden', 'Invalid', 'Other'] as const;
/** Requests refused before a decision: the server's bounds and unreadable reviews. */
export const ADMISSION_ERRORS = ['BadRequest', 'TooLarge', 'Busy', 'Timeout', 'Internal', 'Other'] as const;

export const RESOLUTION_RESULTS = ['Resolved', 'Error'] as const;
export const VERIFICATION_RESULTS = ['Verified', 'Rejected', 'RegistryError'] as const;

/** The fleet gate's actions (gate.ts GateStep `did`) and its settled states (`state`). */
export const GATE_ACTIONS = ['Labelled', 'Published', 'Paused', 'HandedOff', 'Neutralised', 'Noted', 'Wanted', 'Unpaused', 'Forgot', 'TimedOut', 'Overridden', 'Blocked', 'Other'] as const;
export const GATE_STATES = ['NotGated', 'Consistent', 'HeldByOther', 'Released', 'Waiting', 'Deferred', 'Blocked', 'Other'] as const;
/** What a request for a provider-layer image found in the fleet's build registry. */
export const BUILD_REQUESTS = ['Started', 'Deduplicated', 'FailedRecently', 'Invalid'] as const;
export const FLEET_BUILD_RESULTS = ['Succeeded', 'Failed'] as const;

/** `value` if it is in `allowed`, else `Other` (or the list's last value): the one home of the bound on label values. */
export function bounded<T extends readonly string[]>(allowed: T, value: string | undefined): T[number] {
  if (value !== undefined && (allowed as readonly string[]).includes(value)) return value as T[number];
  return ((allowed as readonly string[]).includes('Other') ? 'Other' : allowed[allowed.length - 1]) as T[number];
}

export type MetricType = 'counter' | 'gauge' | 'histogram';
export interface MetricSpec {
  name: string;
  type: MetricType;
  help: string;
  /** Each label with the list its values come from. */
  labels: Record<string, readonly string[]>;
  buckets?: number[];
  /** Which process exports it. */
  process: 'controller' | 'webhook' | 'fleet';
}

/** A NodePool's state in the provider layer's rollout (the planner's RowState). */
export const ROLLOUT_STATES = ['pending', 'rolling', 'succeeded', 'failed', 'halted', 'blocked'] as const;

const m = (process: MetricSpec['process'], type: MetricType, name: string, help: string, labels: Record<string, readonly string[]> = {}, buckets?: number[]): MetricSpec => ({
  name: PREFIX + name,
  type,
  help,
  labels,
  process,
  ...(buckets ? { buckets } : {}),
});

/** Build times run from a minute to the Job's deadline (an hour by default). */
const BUILD_BUCKETS = [30, 60, 120, 300, 600, 900, 1200, 1800, 2700, 3600, 5400];
/** Admission answers are milliseconds; the API server's timeout for our webhooks is 10 s. */
const ADMISSION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const METRICS = {
  buildsStarted: m('controller', 'counter', 'builds_started_total', 'Build Jobs created in the hosted cluster.'),
  buildsFinished: m('controller', 'counter', 'builds_finished_total', 'Builds that ended, by result and reason (a failed build: why it failed).', { result: ['Succeeded', 'Failed', 'Interrupted'], reason: ['BuildSucceeded', ...BUILD_FAILURE_REASONS] }),
  buildDuration: m('controller', 'histogram', 'build_duration_seconds', 'Time from a build pod starting to its Job ending, by result.', { result: ['Succeeded', 'Failed', 'Interrupted'] }, BUILD_BUCKETS),
  nodePools: m('controller', 'gauge', 'nodepools', 'NodePools with a NodePoolOSConfig, by state and the reason of that state (Waiting: why; Degraded: what is wrong).', { state: NODEPOOL_STATES, reason: [...NODEPOOL_REASONS, 'ImageBuilt', 'BuildRunning'] }),
  releaseResolutions: m('controller', 'counter', 'release_resolutions_total', 'Release payload look-ups (image references of a release), by result.', { result: RESOLUTION_RESULTS }),
  imageVerifications: m('controller', 'counter', 'image_verifications_total', 'Registry read-backs of a built image before its hand-off: Verified, Rejected (the image is not what the build said), RegistryError (the registry could not be read or reached).', { result: VERIFICATION_RESULTS }),
  admissionRequests: m('webhook', 'counter', 'admission_requests_total', 'Admission requests answered, by webhook kind and result.', { webhook: WEBHOOKS, result: ADMISSION_RESULTS }),
  admissionDenials: m('webhook', 'counter', 'admission_denials_total', 'Admission requests denied, by webhook kind and the status reason of the denial.', { webhook: WEBHOOKS, reason: DENIAL_REASONS }),
  admissionErrors: m('webhook', 'counter', 'admission_errors_total', 'Admission requests answered with an HTTP error instead of a decision (the API server then applies the webhook\'s failurePolicy).', { error: ADMISSION_ERRORS }),
  admissionDuration: m('webhook', 'histogram', 'admission_duration_seconds', 'Time from request headers to the decision, by webhook kind.', { webhook: WEBHOOKS }, ADMISSION_BUCKETS),
  holds: m('fleet', 'gauge', 'fleet_holds', 'NodePools the upgrade gate holds now (spec.pausedUntil set by the gate).'),
  holdOldestAge: m('fleet', 'gauge', 'fleet_hold_oldest_age_seconds', 'Age of the oldest hold in force (0: none).'),
  holdBound: m('fleet', 'gauge', 'fleet_hold_bound_seconds', 'The longest the gate holds one NodePool for one release (--max-hold-seconds); at it the hold is lifted with UpgradeGateTimedOut.'),
  gateActions: m('fleet', 'counter', 'fleet_gate_actions_total', 'Writes the upgrade gate made, by action.', { action: GATE_ACTIONS }),
  gateStates: m('fleet', 'gauge', 'fleet_gate_nodepools', 'NodePools by the state their last gate pass settled in.', { state: GATE_STATES }),
  buildRequests: m('fleet', 'counter', 'fleet_build_requests_total', 'Requests for a provider-layer image, by what the build registry found: Started (a key it did not have: looked up in the registry, built if absent), Deduplicated onto one queued, running or done, FailedRecently (a failure is kept for its retry period), Invalid.', { outcome: BUILD_REQUESTS }),
  fleetBuildsFinished: m('fleet', 'counter', 'fleet_builds_finished_total', 'Provider-layer image requests that ended, by result: Succeeded (an image, found in the registry or built), Failed.', { result: FLEET_BUILD_RESULTS }),
  fleetBuilds: m('fleet', 'gauge', 'fleet_builds', 'Provider-layer builds queued or running now.', { state: ['Queued', 'Running'] }),
  rolloutsHalted: m('fleet', 'gauge', 'fleet_rollouts_halted', 'Whether the provider layer\'s rollout is halted (1): failures exceeded the policy\'s maxFailures or a canary failed; nothing starts until `on-cluster-build fleet-rollout resume`.'),
  rolloutNodePools: m('fleet', 'gauge', 'fleet_rollout_nodepools', 'NodePools by their state in the provider layer\'s rollout (builder/fleet/rollout/planner.ts).', { state: ROLLOUT_STATES }),
  rolloutCanaries: m('fleet', 'gauge', 'fleet_rollout_canary_nodepools', 'Canary NodePools (of HostedClusters the policy\'s canary selectors match) by their state in the rollout: the rest waits until every one succeeded.', { state: ROLLOUT_STATES }),
  rolloutWaves: m('fleet', 'gauge', 'fleet_rollout_waves_remaining', 'Waves of pending NodePools still to go in the provider layer\'s rollout (Progressive; 0 while halted, paused or rolled back, and once every NodePool started).'),
  eventsDropped: m('controller', 'counter', 'events_dropped_total', 'Kubernetes Events not written: spam-filtered (too many for one object), queue full, or refused by the API server.', { cause: ['SpamFiltered', 'QueueFull', 'WriteFailed'] }),
} satisfies Record<string, MetricSpec>;

/** The halted gauge's name (the alert on a halted rollout is written against it). */
export const ROLLOUT_HALTED_METRIC = METRICS.rolloutsHalted.name;

