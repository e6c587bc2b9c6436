/**
 * The decision for one NodePoolOSConfig: a pure function from what is observed (the config, the
 * cache, and what was read for it so far) to what is to be done. No client, no clock, no
 * randomness: the same input gives the same decision, and a table of inputs tests it.
 *
 * Staged: a decision that needs something not yet read (the push Secret, the base image's pull
 * Secret, the RUN files, the trust bundle, the release's images) says so (`Need`); the caller
 * reads it (gather.ts), adds it to `Gathered`, and asks again. The needs come in a fixed
 * order and the first refusal stops the decision, so nothing is read that an earlier check refuses.
 * One need is a write: the fleet gate's wanted release is cleared from the hand-off once the
 * current token Secret names it, before anything else is read.
 */
import type { KubeObject } from '../clusters/kube.js';
import type { ReconcilerOptions } from './options.js';
import { Gathered, type Need, type NeedResults, type RunFiles } from './needs.js';
import { builderImageFor, type BuildJobInput, CONFIG_LABEL } from './build-job.js';
import { buildNames, inputsHash, pickContainerfile, repositoryOf } from './build-inputs.js';
import { providerImageFor } from './handoff.js';
import { pullSecretWhere, jobFinished, type Observed } from './observe.js';
import { handoffUnavailable, type ConfigStatus } from './status.js';
import { baseOSTagForStream, nodePoolArch, nodePoolTolerations, nodesUpdated, readyNodesOfArch, registriesConf, type Toleration, USER_CA_BUNDLE } from '../hypershift/nodepool-facts.js';
import { pushTargetCoveredByKeys } from '../registry/push-target.js';
import { TENANT_LAYER_DISABLED_MESSAGE } from '../policy/layers.js';
import { GROUP, HOSTED_NAMESPACE, HOSTED_PULL_SECRET } from '../api/types.js';

/** On a config: any new value asks for a rebuild (it enters the build hash). */
export const REBUILD_ANNOTATION = `${GROUP}/rebuild`;

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };

/** The options a decision reads (the rest of `ReconcilerOptions` are clients and seams). */
export type DecideSettings = Pick<
  ReconcilerOptions,
  'namespace' | 'pullSecretName' | 'tenantLayer' | 'validateConfig' | 'ownBuilderImage' | 'activeDeadlineSeconds' | 'backoffLimit' | 'userNamespaces' | 'proxyEnv' | 'maxConcurrentBuilds' | 'minRebuildIntervalSeconds'
> & { buildNamespace: string };

export { Gathered, type Need, type NeedResults, type RunFiles };
export { inputsHash, repositoryOf };

/** One build to run: its Job's input, and what the act needs besides. */
export interface BuildPlan {
  job: BuildJobInput;
  /** No Job of these inputs is observed: the act claims a build slot in the cache before it awaits anything. */
  claim: boolean;
  /** This config's observed Jobs (those of superseded inputs are stopped). */
  mine: Obj[];
  baseAuth: string;
  pushAuth: string;
  files: RunFiles;
}

export type Decision =
  /** Being deleted: nothing to do. */
  | { none: true }
  | Need
  /** Write this status (after pruning the config's history, when `prune` names the current build); look again after `requeueAfterMs`. */
  | { status: ConfigStatus; prune?: { buildName: string; jobName: string }; requeueAfterMs?: number }
  | { build: BuildPlan };

export interface DecideInput {
  /** The config, read whole. */
  cfg: Obj;
  obs: Observed;
  got: Gathered;
  settings: DecideSettings;
  now: Date;
}

export function decide({ cfg, obs, got, settings: o, now }: DecideInput): Decision {
  const name = cfg.metadata.name!;
  if (cfg.metadata.deletionTimestamp) return { none: true };
  const degraded = (reason: string, message: string): Decision => ({ status: { degraded: [reason, message] } });
  if (o.tenantLayer === 'Disabled') return degraded('TenantLayerDisabled', TENANT_LAYER_DISABLED_MESSAGE);
  const problems = o.validateConfig(cfg);
  if (problems.length) return degraded('InvalidSpec', problems.join('; '));

  const nodePool: string = cfg.spec!.nodePool.name;
  let inputs = obs.inputs.get(nodePool);
  if (!inputs) return degraded('NodePoolNotFound', `no token Secret for NodePool "${nodePool}" in namespace ${o.namespace}: is it a NodePool of this hosted cluster?`);
  if ('error' in inputs) return degraded('NodePoolInputsInvalid', inputs.error);
  // The fleet gate holds this NodePool for a release no token Secret names yet (HyperShift
  // writes it after its pause check) and says which on the hand-off: build for that one.
  // Once the current token Secret names that release, HyperShift has it: the annotation has done
  // its work and goes (left, it would pin later builds to it after the fleet is uninstalled).
  const wanted = obs.handoffs.get(nodePool)?.wantedRelease;
  if (wanted !== undefined && wanted === inputs.releaseImage) {
    const clear: Need = { need: 'clearWantedRelease', nodePool, wanted };
    if (!got.get(clear)) return clear;
  } else if (wanted !== undefined) inputs = { ...inputs, releaseImage: wanted };
  const npKey = `${inputs.nodePoolNamespace}/${nodePool}`;

  const stream = baseOSTagForStream(inputs.osStream);
  if ('error' in stream) return degraded('OSStreamUnknown', stream.error);
  const archFact = nodePoolArch(npKey, obs.capi);
  if (archFact.arch === undefined) return degraded('ArchitectureUnknown', `cannot tell the CPU architecture of NodePool ${nodePool}: ${(archFact as { reason: string }).reason}`);
  const arch = archFact.arch;
  // What the NodePool's machines say besides: the build pod's tolerations, and how many run the image handed off now.
  const tolerations: Toleration[] = nodePoolTolerations(npKey, obs.capi);
  const handoff = obs.handoffs.get(nodePool);
  const nodes = handoff?.image ? nodesUpdated(nodePool, npKey, handoff.image, obs) : undefined;
  // Layers compose: with the provider's layer in force, the tenant's image is built FROM the
  // provider-layered image for this (release, arch, stream), and verified to descend from it.
  const provider = providerImageFor(obs.providerImages, { nodePool, release: inputs.releaseImage, arch, ...(inputs.osStream ? { stream: inputs.osStream } : {}) });
  if (provider && 'waiting' in provider) return { status: { pending: ['WaitingForProviderImage', provider.waiting] } };

  // New machines pull the image at first boot with the HostedCluster's pull secret only. The
  // webhook refuses such a target at admission too, but a tenant can delete webhooks: this is the control.
  const pushSpec: string = cfg.spec!.renderedImagePushSpec;
  const coverage = 'error' in obs.pullKeys ? { covered: false as const, reason: obs.pullKeys.error } : pushTargetCoveredByKeys(pushSpec, obs.pullKeys.keys, pullSecretWhere(o.namespace, o.pullSecretName));
  if (!coverage.covered) return degraded('PushTargetNotPullableByNodes', coverage.reason);

  const pushSecretName: string = cfg.spec!.renderedImagePushSecret.name;
  const pushNeed: Need = { need: 'pushSecret', name: pushSecretName };
  const push = got.get(pushNeed);
  if (!push) return pushNeed;
  if (!push.auth) return degraded('PushSecretNotFound', `Secret ${HOSTED_NAMESPACE}/${pushSecretName} (a kubernetes.io/dockerconfigjson Secret) is missing or has no .dockerconfigjson in the hosted cluster`);
  // Base image credentials: the hosted cluster's own pull secret (or the user's), never a copy of a management-side Secret.
  const baseSecretName: string | undefined = cfg.spec!.baseImagePullSecret?.name;
  const baseRef = baseSecretName ? { namespace: HOSTED_NAMESPACE, name: baseSecretName } : HOSTED_PULL_SECRET;
  const baseNeed: Need = { need: 'baseSecret', namespace: baseRef.namespace, name: baseRef.name };
  const base = got.get(baseNeed);
  if (!base) return baseNeed;
  if (!base.auth) return degraded('BaseImagePullSecretNotFound', `Secret ${baseRef.namespace}/${baseRef.name} is missing or has no .dockerconfigjson in the hosted cluster`);

  // Files for dnf/rpm-ostree in RUN: the hosted cluster's RHEL entitlement, the tenant's repositories and GPG keys.
  const runNeed: Need = { need: 'runFiles', arch };
  const run = got.get(runNeed);
  if (!run) return runNeed;
  if ('error' in run) return degraded(run.reason, run.error);
  // The HostedCluster's additional trust bundle (private registry CAs): the build's pull and push trust it.
  const trustNeed: Need = { need: 'trustBundle' };
  const trust = got.get(trustNeed);
  if (!trust) return trustNeed;
  if ('error' in trust) return degraded('TrustBundleInvalid', trust.error);

  const releaseNeed: Need = { need: 'release', releaseImage: inputs.releaseImage, options: { arch, ...(inputs.osStream ? { stream: inputs.osStream } : {}), ...(obs.pullSecret !== undefined ? { pullSecret: obs.pullSecret } : {}) } };
  const resolved = got.get(releaseNeed);
  if (!resolved) return releaseNeed;
  if ('error' in resolved) return degraded('ReleaseResolutionFailed', resolved.error);
  let release = resolved;

  // buildah: in the release's machine-config-operator image from 4.17; before, in ours, or a refusal.
  const builder = builderImageFor({ releaseVersion: release.version ?? '', mcoImage: release.machineConfigOperatorImage, ...(o.ownBuilderImage ? { ownImage: o.ownBuilderImage } : {}) });
  if ('refused' in builder) return degraded('NoBuilderImage', builder.refused);
  if (provider) release = { ...release, baseOSImage: provider.image };
  const containerfile = pickContainerfile(cfg, arch);
  const pushRepo = repositoryOf(pushSpec);
  const mirrors = registriesConf(obs.imageContentSources);
  // Only what enters the image (or decides where it goes): the NodePool's machine config does
  // not (the `configs` stage is the release's base OS), so a config change never rebuilds.
  const hash = inputsHash({
    releaseDigest: release.releaseDigest,
    baseOSImage: release.baseOSImage,
    builderImage: builder.image,
    arch,
    containerfile,
    pushRepo,
    baseSecretName: baseSecretName ?? '',
    registriesConf: mirrors ?? '',
    rebuild: cfg.metadata.annotations?.[REBUILD_ANNOTATION] ?? '',
    // Which sources, not their content (renewed certificates do not rebuild); only when there are some.
    ...(run.sources.length ? { runFiles: run.sources.join(',') } : {}),
    // Whether a trust bundle is given, not its content (a renewed CA does not rebuild).
    ...(trust.pem !== undefined ? { trustBundle: USER_CA_BUNDLE.name } : {}),
  });
  const { buildName, jobName } = buildNames(name, hash);
  const job: BuildJobInput = {
    namespace: o.buildNamespace,
    jobName,
    buildName,
    configName: name,
    nodePool,
    releaseImage: inputs.releaseImage,
    baseOSImage: release.baseOSImage,
    builderImage: builder.image,
    pushTag: `${pushRepo}:${buildName.slice(0, 128)}`,
    containerfile,
    activeDeadlineSeconds: o.activeDeadlineSeconds,
    backoffLimit: o.backoffLimit,
    userNamespaces: o.userNamespaces,
    proxyEnv: o.proxyEnv,
    arch,
    tolerations,
    ...(mirrors ? { registriesConf: mirrors } : {}),
    ...(run.sources.length ? { runFiles: Object.fromEntries(Object.entries(run.files).map(([n, f]) => [n, Object.keys(f!)])) } : {}),
    ...(trust.pem !== undefined ? { trustBundle: trust.pem } : {}),
  };
  const ref = { group: GROUP, resource: 'nodepoolosbuilds', name: buildName };

  // Already handed off (management-side record of a verified image): nothing to build.
  if (handoff?.build === buildName && handoff.image && nodes) {
    if (obs.nodeTuningDisabled) return { status: { degraded: handoffUnavailable(), build: ref } };
    return { prune: { buildName, jobName }, status: { available: handoff.image, build: ref, nodes } };
  }

  const mine = obs.jobs.filter((j) => j.metadata.labels?.[CONFIG_LABEL] === name);
  const existing = mine.find((j) => j.metadata.name === jobName);
  const plan: BuildPlan = { job, claim: !existing, mine, baseAuth: base.auth, pushAuth: push.auth, files: run.files };
  if (existing) return { build: plan };
  // Capacity: a build needs a Ready node of the NodePool's architecture; we never scale up.
  if (!readyNodesOfArch(obs.nodes, arch).length) {
    return {
      status: {
        waiting: ['NoReadyNodeOfArchitecture', `no Ready, schedulable node of architecture ${arch} in the hosted cluster to run the build of NodePool ${nodePool} on; it starts when one is Ready`],
        build: cfg.status?.nodePoolOSBuild,
      },
    };
  }
  // At most `maxConcurrentBuilds` builds per hosted cluster at a time.
  const running = obs.jobs.filter((j) => !jobFinished(j) && j.metadata.labels?.[CONFIG_LABEL] !== name).length;
  const cap = o.maxConcurrentBuilds ?? 3;
  if (running >= cap) return { status: { pending: ['WaitingForBuildSlot', `${running} builds are running in this hosted cluster (at most ${cap} at once); this one starts when one ends`] }, requeueAfterMs: 30_000 };
  // Rebuilds are rate-limited per config.
  const last = mine.map((j) => Date.parse(String(j.metadata.creationTimestamp ?? ''))).filter((t) => !Number.isNaN(t)).sort((a, b) => b - a)[0];
  const minGap = (o.minRebuildIntervalSeconds ?? 60) * 1000;
  const since = last === undefined ? Infinity : now.getTime() - last;
  if (since < minGap) {
    return { status: { pending: ['RebuildRateLimited', `the last build of this config started less than ${minGap / 1000}s ago; the next one starts in ${Math.ceil((minGap - since) / 1000)}s`] }, requeueAfterMs: minGap - since };
  }
  return { build: plan };
}
