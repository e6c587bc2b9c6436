/**
 * What a decision (decide.ts) makes happen, and every write the controller makes but one (gather.ts
 * drops a served wanted release from the hand-off): a config's status; one build's life (its NodePoolOSBuild record, its Job and inputs in the hosted cluster,
 * the registry check of the digest it reports, the record's status); the hand-off ConfigMap a
 * verified image reaches its NodePool through; the history kept per config; the pull keys the
 * webhook reads; and what belongs to configs that are gone.
 *
 * Trust (docs/design/threat-model.md "Threat model"): the Job, its pods' termination messages and
 * the records are tenant-writable; the one management-side write that matters (the hand-off)
 * happens only for a digest `verifyImage` checked in the registry.
 */
import type { InvolvedObject } from '../metrics/events.js';
import type { ReconcilerOptions, VerifyImageResult } from './options.js';
import type { BuildPlan, Decision, Need } from './decide.js';
import { repositoryOf } from './build-inputs.js';
import { isAlreadyExists, isConflict, Kube, KubeObject, RESOURCES, type Resource } from '../clusters/kube.js';
import { BUILD_LABEL, buildConfigMap, buildJob, type BuildJobInput, buildSecret, CONFIG_LABEL, JOB_NAME_LABEL, MANAGED_BY, MANAGED_BY_VALUE, readJobEnd, unschedulableMessage } from './build-job.js';
import { HANDOFF_BUILD_ANNOTATION, handoffConfigMap, HANDOFF_PREFIX, HANDOFF_RELEASE_ANNOTATION, NO_PROVIDER_LAYER, WANTED_RELEASE_ANNOTATION } from './handoff.js';
import { HOSTED_PAGE_SIZE, readConfig, trimConfig } from './intake.js';
import { type HandoffEntry, jobFinished, NPOSB, NPOSC, type Obj, type Observed, trimJob } from './observe.js';
import { type Condition, type ConfigStatus, cond, configConditions, handoffUnavailable, MAX_MESSAGE, sameStatus, tail } from './status.js';
import { nodesUpdated } from '../hypershift/nodepool-facts.js';
import { renderPullKeys } from '../registry/push-target.js';
import { GROUP, PULL_KEYS_CONFIGMAP, VERSION } from '../api/types.js';
import { nodePoolOSBuild } from '../api/generated/on-cluster-build.pkogen.io_v1alpha1.js';

export type ActOptions = Pick<ReconcilerOptions, 'management' | 'hosted' | 'namespace' | 'verifyImage' | 'historyLimit' | 'telemetry'> & {
  buildNamespace: string;
  now: () => Date;
  log: (msg: string, fields?: Record<string, unknown>) => void;
  /** The cache's current observation (a status write refreshes the config's entry in it). */
  observed: () => Observed | undefined;
};

/** A build as observed and verified: its phase and what the record's status says of it. */
interface BuildState {
  phase: 'Building' | 'Succeeded' | 'Failed' | 'Interrupted';
  reason: string;
  message: string;
  start?: string;
  end?: string;
  digest?: string;
}

const TERMINAL = ['Succeeded', 'Failed', 'Interrupted'];

export class Act {
  /** Per config: the build whose digest passed verification (bounded by the number of configs). */
  private readonly verified = new Map<string, { build: string; pullSpec: string }>();

  constructor(private readonly o: ActOptions) {}

  get verifiedCount(): number {
    return this.verified.size;
  }

  /** A config that is gone no longer needs its verification memory. */
  forget(config: string): void {
    this.verified.delete(config);
  }

  forgetAllBut(configs: ReadonlyMap<string, unknown>): void {
    for (const k of this.verified.keys()) if (!configs.has(k)) this.verified.delete(k);
  }

  /** Carries out a decision for `cfg`: nothing, a build, or its status (after pruning its history); says when to look again. */
  async apply(cfg: Obj, d: Exclude<Decision, Need>, obs: Observed): Promise<{ requeueAfterMs?: number } | void> {
    if ('none' in d) return;
    if ('build' in d) return this.build(cfg, d.build, obs);
    if (d.prune) await this.pruneHistory(cfg.metadata.name!, d.prune.buildName, d.prune.jobName, obs);
    await this.setConfigStatus(cfg, d.status);
    return d.requeueAfterMs === undefined ? undefined : { requeueAfterMs: d.requeueAfterMs };
  }

  async setConfigStatus(cfg: Obj, s: ConfigStatus): Promise<void> {
    const now = this.o.now().toISOString();
    const gen = cfg.metadata.generation;
    const status: Record<string, unknown> = { ...(cfg.status ?? {}), conditions: configConditions(cfg.status?.conditions ?? [], s, now, gen), observedGeneration: gen };
    if (s.available) status.currentImagePullSpec = s.available;
    if (s.build) status.nodePoolOSBuild = s.build;
    if (sameStatus(cfg.status, status)) return;
    if (s.degraded) this.o.log('nodepoolosconfig degraded', { nodePoolOSConfig: cfg.metadata.name, reason: s.degraded[0] });
    if (s.degraded) this.o.telemetry?.degraded(configRef(cfg.metadata.name!, cfg.metadata.uid), s.degraded[0]);
    try {
      const updated = await this.o.hosted.updateStatus(NPOSC, { ...cfg, status });
      const observed = this.o.observed();
      if (observed?.configs.has(cfg.metadata.name!)) observed.configs.set(cfg.metadata.name!, trimConfig(updated));
    } catch (e) {
      if (!isConflict(e)) throw e; // a newer object is on its way: the next pass writes its status
    }
  }

  /**
   * Runs one planned build. A new Job's build slot is claimed in the shared observation before
   * the first await (concurrent workers decide on it), and released if the Job is not made.
   */
  async build(cfg: Obj, plan: BuildPlan, obs: Observed): Promise<void> {
    const j = plan.job;
    const claim = plan.claim ? trimJob({ metadata: { name: j.jobName, creationTimestamp: this.o.now().toISOString(), labels: { [CONFIG_LABEL]: j.configName } } }) : undefined;
    if (claim) obs.jobs.push(claim);
    try {
      await this.runBuild(cfg, plan, obs);
    } catch (e) {
      // The cache is kept by watches: a Job that was made replaces the claim by name (ADDED); one
      // that was not would hold a build slot and the rate limit until the next resync.
      const i = claim ? obs.jobs.indexOf(claim) : -1;
      if (i >= 0) obs.jobs.splice(i, 1);
      throw e;
    }
  }

  /** Drives one config's build from its record and Job to the hand-off. */
  private async runBuild(cfg: Obj, plan: BuildPlan, obs: Observed): Promise<void> {
    const j = plan.job;
    let build = await this.ensureBuildRecord(cfg, j);
    // One active build per config: a Job of superseded inputs stops.
    for (const m of plan.mine) if (m.metadata.name !== j.jobName && !jobFinished(m)) {
      await this.o.hosted.delete(RESOURCES.jobs, m.metadata.name!, this.o.buildNamespace);
      this.o.log('superseded build job deleted', { job: m.metadata.name, nodePoolOSConfig: j.configName });
      await this.interrupted(m, j);
    }
    let state = await this.driveJob(plan);
    if (state.phase === 'Succeeded') state = await this.verify(j, state, plan.pushAuth, obs.pullSecret);
    // A record that says more than was observed and verified (the tenant can write it, and the
    // CRD freezes a finished record) is replaced, so it never shows a forged result.
    const recorded = terminalState(build);
    if (recorded && !sameOutcome(build, recorded, state, j)) {
      this.o.log('build record replaced: it disagreed with the observed build', { nodePoolOSBuild: j.buildName, recorded: recorded.phase, observed: state.phase });
      await this.o.hosted.delete(NPOSB, j.buildName);
      build = await this.ensureBuildRecord(cfg, j, true);
    }
    await this.setBuildStatus(build, j, state);
    await this.finish(cfg, j, state, obs);
    await this.pruneHistory(j.configName, j.buildName, j.jobName, obs);
  }

  /** The tenant-reported digest, checked in the registry; only a verified one is ever handed off. */
  private async verify(j: BuildJobInput, s: BuildState, pushAuth: string, pullSecret: string | undefined): Promise<BuildState> {
    const pullSpec = pullSpecOf(j, s.digest!);
    const known = this.verified.get(j.configName);
    if (known && known.build === j.buildName && known.pullSpec === pullSpec) return s;
    let r: VerifyImageResult;
    try {
      r = await this.o.verifyImage({ pushRef: pullSpec, arch: j.arch!, baseImageRef: j.baseOSImage, credentials: pushAuth, ...(pullSecret !== undefined ? { baseCredentials: pullSecret } : {}) });
    } catch (e) {
      r = { ok: false, reason: (e as Error).message };
    }
    if (!r.ok) {
      this.o.log('built image failed verification', { nodePoolOSBuild: j.buildName, reason: r.reason });
      return { phase: 'Failed', reason: 'ImageVerificationFailed', message: tail(`the image the build reported (${pullSpec}) failed verification in the registry: ${r.reason}`, MAX_MESSAGE), start: s.start, end: s.end };
    }
    this.verified.set(j.configName, { build: j.buildName, pullSpec });
    return s;
  }

  private async ensureBuildRecord(cfg: Obj, j: BuildJobInput, fresh = false): Promise<Obj> {
    const existing = fresh ? undefined : await this.o.hosted.get<Obj>(NPOSB, j.buildName);
    if (existing) return existing;
    // Typed from the CRD itself (`pkogen import`): a misspelt field here is a compile error.
    const record = nodePoolOSBuild({
      metadata: {
        name: j.buildName,
        labels: { [MANAGED_BY]: MANAGED_BY_VALUE, [CONFIG_LABEL]: j.configName },
        // The record goes with its config (same cluster, so garbage collection can do it).
        ownerReferences: [{ apiVersion: `${GROUP}/${VERSION}`, kind: 'NodePoolOSConfig', name: cfg.metadata.name!, uid: cfg.metadata.uid!, controller: true, blockOwnerDeletion: false }],
      },
      spec: {
        nodePoolOSConfig: { name: j.configName },
        nodePool: { name: j.nodePool },
        releaseImage: j.releaseImage,
        baseOSImage: j.baseOSImage,
        renderedImagePushSpec: j.pushTag,
      },
    });
    try {
      const created = await this.o.hosted.create<Obj>(NPOSB, record as unknown as Obj);
      this.o.log('build recorded', { nodePoolOSBuild: j.buildName, nodePool: j.nodePool });
      return created;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return (await this.o.hosted.get<Obj>(NPOSB, j.buildName))!;
    }
  }

  /** Creates the Job in the hosted build namespace (once: its name is the inputs' hash) and its inputs, then reads how it is doing. */
  private async driveJob(plan: BuildPlan): Promise<BuildState> {
    const j = plan.job;
    const h = this.o.hosted;
    let job = await h.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace);
    if (!job) {
      try {
        job = await h.create(RESOURCES.jobs, buildJob(j));
        this.o.log('build job created', { job: j.jobName, nodePool: j.nodePool, arch: j.arch, baseOSImage: j.baseOSImage });
        this.o.telemetry?.buildStarted(buildRef(j.buildName), j.nodePool);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        job = (await h.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace))!;
      }
      // The pod waits for these volumes; creating them after the Job lets them be owned by it.
      await createIfMissing(h, RESOURCES.configMaps, buildConfigMap(j, job));
      await createIfMissing(h, RESOURCES.secrets, buildSecret(j, job, plan.baseAuth, plan.pushAuth, plan.files));
    }
    return this.jobState(job, j);
  }

  private async jobState(job: Obj, j: BuildJobInput): Promise<BuildState> {
    const start = job.status?.startTime as string | undefined;
    const pods = async () => (await this.o.hosted.list(RESOURCES.pods, { namespace: j.namespace, labelSelector: `${JOB_NAME_LABEL}=${j.jobName}` })).items;
    const end = await readJobEnd(job, pods);
    if (end.state === 'running') {
      // A pod the scheduler cannot place waits until the Job's deadline: say why meanwhile (a Job with a ready pod has none waiting).
      const unschedulable = Number(job.status?.ready ?? 0) > 0 ? undefined : unschedulableMessage(await pods());
      if (unschedulable) return { phase: 'Building', reason: 'BuildUnschedulable', message: `job ${j.namespace}/${j.jobName}: ${unschedulable}`, start };
      return { phase: 'Building', reason: 'JobRunning', message: `job ${j.namespace}/${j.jobName} is running in the hosted cluster`, start };
    }
    if (end.state === 'complete') {
      const complete = end.condition;
      if (!end.digest) return { phase: 'Failed', reason: 'NoDigest', message: `job ${j.jobName} completed but no pod reported an image digest in its termination message`, start, end: complete.lastTransitionTime ?? job.status?.completionTime };
      return { phase: 'Succeeded', reason: 'BuildSucceeded', message: `pushed ${pullSpecOf(j, end.digest)}`, start, end: job.status?.completionTime ?? complete.lastTransitionTime, digest: end.digest };
    }
    const failed = end.condition;
    const head = `job ${j.jobName} failed: ${failed.message ?? failed.reason ?? 'failed'}`;
    // The end of a build log says what went wrong; its start is pull progress.
    const detail = end.lastMessage ? `; last pod: ${tail(end.lastMessage, MAX_MESSAGE - Math.min(head.length, 256) - 13)}` : '';
    return { phase: 'Failed', reason: failed.reason || 'JobFailed', message: `${head.slice(0, 256)}${detail}`, start, end: failed.lastTransitionTime ?? this.o.now().toISOString() };
  }

  private async setBuildStatus(build: Obj, j: BuildJobInput, s: BuildState): Promise<Obj> {
    // A finished record never changes (upstream's rule, and the CRD's). Its status is output
    // only: nothing here is decided from it, since the tenant can write it.
    if (terminalState(build)) return build;
    const now = this.o.now().toISOString();
    const prev: Condition[] = build.status?.conditions ?? [];
    const is = (t: string) => (s.phase === t ? 'True' : 'False');
    const conds: Condition[] = [
      cond(prev, 'Prepared', 'True', 'JobCreated', `job ${j.namespace}/${j.jobName} in the hosted cluster`, now),
      cond(prev, 'Building', is('Building'), s.phase === 'Building' ? s.reason : 'NotBuilding', s.phase === 'Building' ? s.message : '', now),
      cond(prev, 'Succeeded', is('Succeeded'), s.phase === 'Succeeded' ? s.reason : 'NotSucceeded', s.phase === 'Succeeded' ? s.message : '', now),
      cond(prev, 'Failed', is('Failed'), s.phase === 'Failed' ? s.reason : 'NotFailed', s.phase === 'Failed' ? s.message : '', now),
      cond(prev, 'Interrupted', is('Interrupted'), s.phase === 'Interrupted' ? s.reason : 'NotInterrupted', s.phase === 'Interrupted' ? s.message : '', now),
    ];
    const status: Record<string, unknown> = {
      conditions: conds,
      builder: { imageBuilderType: 'Job', job: { group: 'batch', resource: 'jobs', namespace: j.namespace, name: j.jobName } },
      relatedObjects: [
        { group: '', resource: 'configmaps', namespace: j.namespace, name: j.jobName },
        { group: '', resource: 'secrets', namespace: j.namespace, name: j.jobName },
      ],
    };
    if (s.start) status.buildStart = s.start;
    if (s.end && s.phase !== 'Building') status.buildEnd = laterThan(s.end, s.start);
    if (s.digest && s.phase === 'Succeeded') status.digestedImagePushSpec = pullSpecOf(j, s.digest);
    if (sameStatus(build.status, status)) return build;
    if (s.phase !== 'Building') this.o.log(`build ${s.phase.toLowerCase()}`, { nodePoolOSBuild: j.buildName, reason: s.reason });
    if (s.phase !== 'Building') this.o.telemetry?.buildFinished(buildRef(j.buildName, build.metadata.uid), s.phase, s.reason, s.start, status.buildEnd as string | undefined);
    try {
      return await this.o.hosted.updateStatus(NPOSB, { ...build, status });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return build;
    }
  }

  /** The record of a build whose Job was deleted for newer inputs says so (Interrupted, Superseded), if it was still open. */
  private async interrupted(job: Obj, by: BuildJobInput): Promise<void> {
    const buildName = job.metadata.labels?.[BUILD_LABEL];
    if (!buildName) return;
    const record = await this.o.hosted.get<Obj>(NPOSB, buildName);
    // The Job's labels are the tenant's to write: only a record of this config is touched.
    if (!record || record.metadata.labels?.[CONFIG_LABEL] !== by.configName) return;
    const state: BuildState = { phase: 'Interrupted', reason: 'Superseded', message: `newer inputs: build ${by.buildName} replaces it`, end: this.o.now().toISOString() };
    await this.setBuildStatus(record, { ...by, jobName: job.metadata.name!, buildName }, state);
  }

  /** The config's status from its build's state; a verified image is handed off first. */
  private async finish(cfg: Obj, j: BuildJobInput, s: BuildState, obs: Observed): Promise<void> {
    const ref = { group: GROUP, resource: 'nodepoolosbuilds', name: j.buildName };
    if (s.phase === 'Succeeded' && s.digest) {
      const pullSpec = pullSpecOf(j, s.digest);
      // Fail closed: with NodeTuning disabled HyperShift ignores the hand-off ConfigMap.
      if (obs.nodeTuningDisabled) return this.setConfigStatus(cfg, { degraded: handoffUnavailable(), build: ref });
      await this.handOff(j, pullSpec);
      const i = obs.inputs.get(j.nodePool);
      const npNamespace = i && !('error' in i) ? i.nodePoolNamespace : '';
      return this.setConfigStatus(cfg, { available: pullSpec, build: ref, nodes: nodesUpdated(j.nodePool, `${npNamespace}/${j.nodePool}`, pullSpec, obs) });
    }
    if (s.phase === 'Building') return this.setConfigStatus(cfg, { building: `building ${j.buildName} for NodePool ${j.nodePool} (${j.arch}) in the hosted cluster`, build: ref, ...(s.reason === 'BuildUnschedulable' ? { waiting: [s.reason, s.message] as [string, string] } : {}) });
    return this.setConfigStatus(cfg, { degraded: [s.reason, s.message], build: ref });
  }

  /** Creates or updates the ConfigMap HyperShift reads into the NodePool's machine config. */
  private async handOff(j: BuildJobInput, pullSpec: string): Promise<void> {
    const want = handoffConfigMap(this.o.namespace, j.nodePool, j.configName, pullSpec);
    want.metadata.annotations = { ...(want.metadata.annotations ?? {}), [HANDOFF_BUILD_ANNOTATION]: j.buildName, [HANDOFF_RELEASE_ANNOTATION]: j.releaseImage };
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, want.metadata.name!, this.o.namespace);
    if (!have) {
      await createIfMissing(m, RESOURCES.configMaps, want);
      this.o.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
      this.o.telemetry?.handedOff(configRef(j.configName), j.nodePool);
      return;
    }
    const same = JSON.stringify(have.data) === JSON.stringify((want as Obj).data) && JSON.stringify(have.metadata.labels) === JSON.stringify(want.metadata.labels) && have.metadata.annotations?.[HANDOFF_BUILD_ANNOTATION] === j.buildName && have.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] === j.releaseImage;
    if (same) return;
    await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels: want.metadata.labels, annotations: { ...(have.metadata.annotations ?? {}), ...want.metadata.annotations } }, data: (want as Obj).data });
    this.o.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
    this.o.telemetry?.handedOff(configRef(j.configName), j.nodePool);
  }

  /** Keeps the newest `historyLimit` builds (Jobs and records) per config; the current one always. */
  async pruneHistory(config: string, currentBuild: string, currentJob: string, obs: Observed): Promise<void> {
    const jobs = obs.jobs.filter((j) => j.metadata.labels?.[CONFIG_LABEL] === config);
    for (const old of beyondLimit(jobs, this.o.historyLimit, currentJob)) await this.o.hosted.delete(RESOURCES.jobs, old, this.o.buildNamespace);
    const builds = (await this.o.hosted.list(NPOSB, { labelSelector: `${CONFIG_LABEL}=${config}`, pageSize: HOSTED_PAGE_SIZE, keep: (b) => ({ metadata: { name: b.metadata.name, creationTimestamp: b.metadata.creationTimestamp, ...(b.metadata.deletionTimestamp ? { deletionTimestamp: b.metadata.deletionTimestamp } : {}) } }) })).items;
    for (const old of beyondLimit(builds, this.o.historyLimit, currentBuild)) await this.o.hosted.delete(NPOSB, old);
  }

  /**
   * Publishes the pull secret's auth keys (no credential) in the HCP namespace for the webhook
   * (`PULL_KEYS_CONFIGMAP`); when they cannot be published, says why under `unavailable`, and
   * the webhook admits (the decision's pull check still refuses). Written only when it changes.
   */
  async publishPullKeys(obs: Observed): Promise<void> {
    const text = 'keys' in obs.pullKeys ? renderPullKeys(obs.pullKeys.keys) : undefined;
    const why = 'error' in obs.pullKeys ? 'the HostedCluster pull secret is missing or not a docker config' : 'the HostedCluster pull secret has more auth keys than the published list holds';
    const data: Record<string, string> = text !== undefined ? { [PULL_KEYS_CONFIGMAP.key]: text } : { [PULL_KEYS_CONFIGMAP.unavailableKey]: why };
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, PULL_KEYS_CONFIGMAP.name, this.o.namespace);
    const labels = { [MANAGED_BY]: MANAGED_BY_VALUE };
    if (!have) {
      await createIfMissing(m, RESOURCES.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: this.o.namespace, labels }, data } as Obj);
      this.o.log('pull keys published', { configMap: PULL_KEYS_CONFIGMAP.name, keys: 'keys' in obs.pullKeys ? obs.pullKeys.keys.length : 0 });
      return;
    }
    if (JSON.stringify(have.data ?? {}) === JSON.stringify(data)) return;
    await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels: { ...(have.metadata.labels ?? {}), ...labels } }, data });
    this.o.log('pull keys published', { configMap: PULL_KEYS_CONFIGMAP.name, keys: 'keys' in obs.pullKeys ? obs.pullKeys.keys.length : 0 });
  }

  /**
   * A deleted config takes its Jobs and its hand-off with it: the NodePool returns to the
   * release's OS image, or, with the provider's layer in force, to the provider-layered image the
   * fleet published for it (the hand-off becomes a provider-only one, which the fleet gate keeps
   * from then on: no rollout to the bare OS in between). Also publishes the pull keys (once per pass).
   */
  async removeOrphans(obs: Observed): Promise<void> {
    const m = this.o.management;
    await this.publishPullKeys(obs);
    for (const [np, h] of obs.handoffs) {
      const owner = h.config;
      // A config beyond the intake cap is not acted on: its last hand-off stays (one GET per hand-off, bounded by NodePools).
      if (owner && !obs.configs.has(owner) && !(await readConfig(this.o.hosted, NPOSC, owner))) {
        const entry = obs.providerImages && obs.providerImages.layer !== NO_PROVIDER_LAYER ? obs.providerImages.entries.get(np) : undefined;
        if (entry) {
          // Not deleted even when the rewrite loses a race: the next pass decides again.
          if (await this.toProviderHandoff(h, entry)) {
            obs.handoffs.set(np, { name: h.name, image: entry.image });
            this.o.log('hand-off returned to the provider layer', { configMap: h.name, nodePoolOSConfig: owner, image: entry.image });
          }
          continue;
        }
        await m.delete(RESOURCES.configMaps, h.name, this.o.namespace);
        obs.handoffs.delete(np);
        this.o.log('hand-off removed', { configMap: h.name, nodePoolOSConfig: owner });
      }
    }
    for (const job of obs.jobs) {
      const owner = job.metadata.labels?.[CONFIG_LABEL];
      if (owner && !obs.configs.has(owner)) await this.o.hosted.delete(RESOURCES.jobs, job.metadata.name!, this.o.buildNamespace);
    }
  }

  /** Rewrites a tenant hand-off whose config is gone into a provider-only one (false: it is gone or changed meanwhile). */
  private async toProviderHandoff(h: HandoffEntry, entry: { release: string; image: string }): Promise<boolean> {
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, h.name, this.o.namespace);
    if (!have || have.metadata.labels?.[CONFIG_LABEL] !== h.config) return false;
    const np = h.name.slice(HANDOFF_PREFIX.length);
    const want = handoffConfigMap(this.o.namespace, np, '', entry.image);
    const labels: Record<string, string> = { ...(have.metadata.labels ?? {}), ...want.metadata.labels };
    delete labels[CONFIG_LABEL];
    const annotations: Record<string, string> = { ...(have.metadata.annotations ?? {}), [HANDOFF_RELEASE_ANNOTATION]: entry.release };
    delete annotations[HANDOFF_BUILD_ANNOTATION];
    delete annotations[WANTED_RELEASE_ANNOTATION];
    try {
      await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels, annotations }, data: (want as Obj).data });
    } catch (e) {
      if (!isConflict(e)) throw e;
      return false;
    }
    return true;
  }
}

/** `repo@sha256:…` of a build's pushed image (the tag is replaced by the digest it reported). */
function pullSpecOf(j: BuildJobInput, digest: string): string {
  return `${repositoryOf(j.pushTag)}@${digest}`;
}

/** Whether a finished record says what was observed (phase, and for success the verified image). */
function sameOutcome(build: Obj, recorded: BuildState, observed: BuildState, j: BuildJobInput): boolean {
  if (recorded.phase !== observed.phase) return false;
  if (observed.phase !== 'Succeeded') return true;
  return build.status?.digestedImagePushSpec === pullSpecOf(j, observed.digest!);
}

function terminalState(build: Obj): BuildState | undefined {
  const c = ((build.status?.conditions ?? []) as Condition[]).find((x) => TERMINAL.includes(x.type) && x.status === 'True');
  return c ? { phase: c.type as BuildState['phase'], reason: c.reason, message: c.message } : undefined;
}

function beyondLimit(objs: KubeObject[], limit: number, keep: string): string[] {
  const sorted = objs
    .filter((o) => o.metadata.name !== keep && !o.metadata.deletionTimestamp)
    .sort((a, b) => String(b.metadata.creationTimestamp ?? '').localeCompare(String(a.metadata.creationTimestamp ?? '')) || String(b.metadata.name).localeCompare(String(a.metadata.name)));
  return sorted.slice(Math.max(0, limit - 1)).map((o) => o.metadata.name!);
}

async function createIfMissing(kube: Kube, r: Resource, obj: KubeObject): Promise<void> {
  try {
    await kube.create(r, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}

/** Upstream's rule: buildEnd after buildStart. */
function laterThan(end: string, start?: string): string {
  if (!start) return end;
  return Date.parse(end) > Date.parse(start) ? end : new Date(Date.parse(start) + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** Our records as Events name them (cluster-scoped: their Events go to `default`, as client-go puts them). */
function buildRef(name: string, uid?: string): InvolvedObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodePoolOSBuild', name, ...(uid ? { uid } : {}) };
}
function configRef(name: string, uid?: string): InvolvedObject {
  return { apiVersion: `${GROUP}/${VERSION}`, kind: 'NodePoolOSConfig', name, ...(uid ? { uid } : {}) };
}
