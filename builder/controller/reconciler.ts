/**
 * The reconcile: for each NodePoolOSConfig in the hosted cluster, from what is observed now
 * (the NodePool's token Secret and release, the user's Containerfile and push Secret, the build
 * Job), to what should exist (a NodePoolOSBuild record, a build Job, the hand-off ConfigMap) and
 * the status that says so. Level-triggered and idempotent: names derive from a hash of the inputs,
 * so a retry or a restarted controller finds the Job it created instead of making a second one.
 *
 * Two clients, one per side: `management` (in-cluster, confined to `namespace`, the HCP namespace)
 * for everything executed; `hosted` (the controller's own ServiceAccount in the hosted cluster)
 * for the user-facing API and its status.
 */
import { createHash } from 'node:crypto';
import { isAlreadyExists, isConflict, Kube, KubeObject, RESOURCES, type Resource } from '../kube.js';
import {
  buildConfigMap,
  buildJob,
  BuildJobInput,
  buildSecret,
  BUILD_LABEL,
  CONFIG_LABEL,
  JOB_NAME_LABEL,
  MANAGED_BY,
  MANAGED_BY_VALUE,
} from './build-job.js';
import { configWithoutHandoff, handoffConfigMap, HANDOFF_PREFIX } from './handoff.js';

import { BUILD_KIND, BUILD_PLURAL, CONFIG_KIND, CONFIG_PLURAL, GROUP, HOSTED_NAMESPACE, VERSION } from '../api/types.js';
import { nodePoolOSBuild } from '../api/generated/on-cluster-build.pkogen.io_v1alpha1.js';

export { GROUP as API_GROUP, VERSION as API_VERSION, HOSTED_NAMESPACE };
const API_GROUP = GROUP;
const API_VERSION = VERSION;
export const REBUILD_ANNOTATION = `${GROUP}/rebuild`;

export const NPOSC: Resource = { group: GROUP, version: VERSION, kind: CONFIG_KIND, plural: CONFIG_PLURAL, namespaced: false };
export const NPOSB: Resource = { group: GROUP, version: VERSION, kind: BUILD_KIND, plural: BUILD_PLURAL, namespaced: false };

export interface ReleaseImages {
  releaseDigest: string;
  baseOSImage: string;
  machineConfigOperatorImage: string;
}

export interface NodePoolInputs {
  nodePoolName: string;
  secretName: string;
  releaseImage: string;
  config: string;
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

export interface ReconcilerOptions {
  management: Kube;
  hosted: Kube;
  /** The HCP namespace (POD_NAMESPACE). */
  namespace: string;
  resolveRelease: (releaseImage: string, pullSecret: string | undefined) => Promise<ReleaseImages>;
  nodePoolInputs: (secrets: KubeObject[]) => Map<string, NodePoolInputs | { error: string }>;
  /** The webhook's own rules, so a config admitted while the webhook was not yet registered is still refused. */
  validateConfig: (config: KubeObject) => string[];
  /** Name of the HCP's pull secret (HyperShift: `pull-secret`, key `.dockerconfigjson`). */
  pullSecretName: string;
  activeDeadlineSeconds: number;
  backoffLimit: number;
  historyLimit: number;
  userNamespaces: boolean;
  proxyEnv?: { name: string; value: string }[];
  now?: () => Date;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

type Obj = KubeObject & { spec?: Record<string, any>; status?: Record<string, any> };

const TERMINAL = ['Succeeded', 'Failed', 'Interrupted'];
const MAX_MESSAGE = 1024;

export class Reconciler {
  private readonly now: () => Date;
  private readonly log: (msg: string, fields?: Record<string, unknown>) => void;

  constructor(private readonly o: ReconcilerOptions) {
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
  }

  /** Reconciles every config, then removes what belongs to configs that are gone. */
  async reconcileAll(): Promise<void> {
    const configs = (await this.o.hosted.list(NPOSC)).items as Obj[];
    const secrets = (await this.o.management.list(RESOURCES.secrets, { namespace: this.o.namespace })).items;
    const inputs = this.o.nodePoolInputs(secrets);
    for (const c of configs) {
      try {
        await this.reconcileConfig(c, secrets, inputs);
      } catch (e) {
        this.log('reconcile failed', { nodePoolOSConfig: c.metadata.name, error: (e as Error).message });
      }
    }
    await this.removeOrphans(new Set(configs.map((c) => c.metadata.name!)));
  }

  async reconcileConfig(cfg: Obj, secrets: KubeObject[], inputsByPool: Map<string, NodePoolInputs | { error: string }>): Promise<void> {
    const name = cfg.metadata.name!;
    if (cfg.metadata.deletionTimestamp) return;
    const problems = this.o.validateConfig(cfg);
    if (problems.length) return this.setConfigStatus(cfg, { degraded: ['InvalidSpec', problems.join('; ')] });

    const nodePool: string = cfg.spec!.nodePool.name;
    const inputs = inputsByPool.get(nodePool);
    if (!inputs) {
      return this.setConfigStatus(cfg, { degraded: ['NodePoolNotFound', `no token Secret for NodePool "${nodePool}" in namespace ${this.o.namespace}: is it a NodePool of this hosted cluster?`] });
    }
    if ('error' in inputs) return this.setConfigStatus(cfg, { degraded: ['NodePoolInputsInvalid', inputs.error] });

    const pullSecret = secrets.find((s) => s.metadata.name === this.o.pullSecretName);
    const pullAuth = pullSecret ? dockerConfigJson(pullSecret) : undefined;
    let release: ReleaseImages;
    try {
      release = await this.o.resolveRelease(inputs.releaseImage, pullAuth);
    } catch (e) {
      return this.setConfigStatus(cfg, { degraded: ['ReleaseResolutionFailed', (e as Error).message] });
    }

    const pushSecretName: string = cfg.spec!.renderedImagePushSecret.name;
    const pushSecret = await this.o.hosted.get(RESOURCES.secrets, pushSecretName, HOSTED_NAMESPACE);
    const pushAuth = pushSecret ? dockerConfigJson(pushSecret) : undefined;
    if (!pushAuth) {
      return this.setConfigStatus(cfg, {
        degraded: ['PushSecretNotFound', `Secret ${HOSTED_NAMESPACE}/${pushSecretName} (a kubernetes.io/dockerconfigjson Secret) is missing or has no .dockerconfigjson in the hosted cluster`],
      });
    }
    let baseAuth = pullAuth ?? '{"auths":{}}';
    const baseSecretName: string | undefined = cfg.spec!.baseImagePullSecret?.name;
    if (baseSecretName) {
      const s = await this.o.hosted.get(RESOURCES.secrets, baseSecretName, HOSTED_NAMESPACE);
      const a = s ? dockerConfigJson(s) : undefined;
      if (!a) return this.setConfigStatus(cfg, { degraded: ['BaseImagePullSecretNotFound', `Secret ${HOSTED_NAMESPACE}/${baseSecretName} is missing or has no .dockerconfigjson in the hosted cluster`] });
      baseAuth = a;
    }

    const containerfile = pickContainerfile(cfg);
    const pushRepo = repositoryOf(cfg.spec!.renderedImagePushSpec);
    const hash = inputsHash({
      releaseDigest: release.releaseDigest,
      baseOSImage: release.baseOSImage,
      builderImage: release.machineConfigOperatorImage,
      config: configWithoutHandoff(inputs.config),
      containerfile,
      pushRepo,
      baseSecretName: baseSecretName ?? '',
      rebuild: cfg.metadata.annotations?.[REBUILD_ANNOTATION] ?? '',
    });
    const buildName = `${name.slice(0, 242)}-${hash}`;
    const jobName = `build-${name.slice(0, 46).replace(/[.-]+$/, '')}-${hash}`;
    const jobInput: BuildJobInput = {
      namespace: this.o.namespace,
      jobName,
      buildName,
      configName: name,
      nodePool,
      releaseImage: inputs.releaseImage,
      baseOSImage: release.baseOSImage,
      builderImage: release.machineConfigOperatorImage,
      pushTag: `${pushRepo}:${buildName.slice(0, 128)}`,
      containerfile,
      activeDeadlineSeconds: this.o.activeDeadlineSeconds,
      backoffLimit: this.o.backoffLimit,
      userNamespaces: this.o.userNamespaces,
      proxyEnv: this.o.proxyEnv,
    };

    const build = await this.ensureBuildRecord(cfg, jobInput);
    const state = terminalState(build) ?? (await this.driveJob(jobInput, baseAuth, pushAuth));
    const updated = await this.setBuildStatus(build, jobInput, state);
    await this.finish(cfg, updated, jobInput, state);
    await this.pruneHistory(name, buildName, jobName);
  }

  private async ensureBuildRecord(cfg: Obj, j: BuildJobInput): Promise<Obj> {
    const existing = await this.o.hosted.get<Obj>(NPOSB, j.buildName);
    if (existing) return existing;
    // Typed from the CRD itself (`pkogen import`): a misspelt field here is a compile error.
    const record = nodePoolOSBuild({
      metadata: {
        name: j.buildName,
        labels: { [MANAGED_BY]: MANAGED_BY_VALUE, [CONFIG_LABEL]: j.configName },
        // The record goes with its config (same cluster, so garbage collection can do it).
        ownerReferences: [{ apiVersion: `${API_GROUP}/${API_VERSION}`, kind: 'NodePoolOSConfig', name: cfg.metadata.name!, uid: cfg.metadata.uid!, controller: true, blockOwnerDeletion: false }],
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
      this.log('build recorded', { nodePoolOSBuild: j.buildName, nodePool: j.nodePool });
      return created;
    } catch (e) {
      if (!isAlreadyExists(e)) throw e;
      return (await this.o.hosted.get<Obj>(NPOSB, j.buildName))!;
    }
  }

  /** Creates the Job (once: its name is the inputs' hash) and its inputs, then reads how it is doing. */
  private async driveJob(j: BuildJobInput, baseAuth: string, pushAuth: string): Promise<BuildState> {
    const m = this.o.management;
    let job = await m.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace);
    if (!job) {
      try {
        job = await m.create(RESOURCES.jobs, buildJob(j));
        this.log('build job created', { job: j.jobName, nodePool: j.nodePool, baseOSImage: j.baseOSImage });
        await this.event(job, 'Normal', 'BuildStarted', `Building the OS image for NodePool ${j.nodePool} from ${j.baseOSImage}`);
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        job = (await m.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace))!;
      }
    }
    // The pod waits for these volumes; creating them after the Job lets them be owned by it.
    await createIfMissing(m, RESOURCES.configMaps, buildConfigMap(j, job));
    await createIfMissing(m, RESOURCES.secrets, buildSecret(j, job, baseAuth, pushAuth));
    return this.jobState(job, j);
  }

  private async jobState(job: Obj, j: BuildJobInput): Promise<BuildState> {
    const conds: { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }[] = job.status?.conditions ?? [];
    const complete = conds.find((c) => (c.type === 'Complete' || c.type === 'SuccessCriteriaMet') && c.status === 'True');
    const failed = conds.find((c) => (c.type === 'Failed' || c.type === 'FailureTarget') && c.status === 'True');
    const start = job.status?.startTime as string | undefined;
    const pods = (await this.o.management.list(RESOURCES.pods, { namespace: j.namespace, labelSelector: `${JOB_NAME_LABEL}=${j.jobName}` })).items as Obj[];
    const messages = pods
      .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))
      .flatMap((p) => ((p.status?.containerStatuses ?? []) as any[]).map((cs) => cs?.state?.terminated).filter(Boolean));
    if (complete) {
      const digest = messages.map((t) => String(t.message ?? '').trim()).find((msg) => /^sha256:[0-9a-f]{64}$/.test(msg));
      if (!digest) return { phase: 'Failed', reason: 'NoDigest', message: `job ${j.jobName} completed but no pod reported an image digest in its termination message`, start, end: complete.lastTransitionTime ?? job.status?.completionTime };
      return { phase: 'Succeeded', reason: 'BuildSucceeded', message: `pushed ${repositoryOf(j.pushTag)}@${digest}`, start, end: job.status?.completionTime ?? complete.lastTransitionTime, digest };
    }
    if (failed) {
      const last = messages.find((t) => t.exitCode !== 0 && t.message);
      const detail = last ? `; last pod: ${truncate(String(last.message).trim(), 512)}` : '';
      return { phase: 'Failed', reason: failed.reason || 'JobFailed', message: truncate(`job ${j.jobName} failed: ${failed.message ?? failed.reason ?? 'failed'}${detail}`, MAX_MESSAGE), start, end: failed.lastTransitionTime ?? this.now().toISOString() };
    }
    return { phase: 'Building', reason: 'JobRunning', message: `job ${j.namespace}/${j.jobName} is running`, start };
  }

  private async setBuildStatus(build: Obj, j: BuildJobInput, s: BuildState): Promise<Obj> {
    if (terminalState(build)) return build; // upstream's rule: a finished build's status never changes
    const now = this.now().toISOString();
    const prev: Condition[] = build.status?.conditions ?? [];
    const is = (t: string) => (s.phase === t ? 'True' : 'False');
    const conds: Condition[] = [
      cond(prev, 'Prepared', 'True', 'JobCreated', `job ${j.namespace}/${j.jobName}`, now),
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
    if (s.digest) status.digestedImagePushSpec = `${repositoryOf(j.pushTag)}@${s.digest}`;
    if (sameStatus(build.status, status)) return build;
    if (s.phase !== 'Building') {
      this.log(`build ${s.phase.toLowerCase()}`, { nodePoolOSBuild: j.buildName, reason: s.reason });
      const job = await this.o.management.get<Obj>(RESOURCES.jobs, j.jobName, j.namespace);
      if (job) await this.event(job, s.phase === 'Succeeded' ? 'Normal' : 'Warning', s.phase === 'Succeeded' ? 'BuildSucceeded' : 'BuildFailed', s.message);
    }
    return this.o.hosted.updateStatus(NPOSB, { ...build, status });
  }

  private async finish(cfg: Obj, build: Obj, j: BuildJobInput, s: BuildState): Promise<void> {
    const ref = { group: API_GROUP, resource: 'nodepoolosbuilds', name: j.buildName };
    const st = terminalState(build) ?? s;
    const pullSpec: string | undefined = build.status?.digestedImagePushSpec;
    if (st.phase === 'Succeeded' && pullSpec) {
      await this.handOff(j, pullSpec);
      return this.setConfigStatus(cfg, { available: pullSpec, build: ref });
    }
    if (st.phase === 'Building') return this.setConfigStatus(cfg, { building: `building ${j.buildName} for NodePool ${j.nodePool}`, build: ref });
    return this.setConfigStatus(cfg, { degraded: [st.reason === 'BuildSucceeded' ? 'BuildFailed' : st.reason, st.message], build: ref });
  }

  /** Creates or updates the ConfigMap HyperShift reads into the NodePool's machine config. */
  private async handOff(j: BuildJobInput, pullSpec: string): Promise<void> {
    const want = handoffConfigMap(j.namespace, j.nodePool, j.configName, pullSpec);
    const m = this.o.management;
    const have = await m.get<Obj>(RESOURCES.configMaps, want.metadata.name!, j.namespace);
    if (!have) {
      await createIfMissing(m, RESOURCES.configMaps, want);
      this.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
      return;
    }
    if (JSON.stringify(have.data) === JSON.stringify(want.data) && JSON.stringify(have.metadata.labels) === JSON.stringify(want.metadata.labels)) return;
    await m.update(RESOURCES.configMaps, { ...have, metadata: { ...have.metadata, labels: want.metadata.labels }, data: want.data });
    this.log('image handed to NodePool', { nodePool: j.nodePool, image: pullSpec });
  }

  private async setConfigStatus(
    cfg: Obj,
    s: { degraded?: [string, string]; building?: string; available?: string; build?: { group: string; resource: string; name: string } },
  ): Promise<void> {
    const now = this.now().toISOString();
    const prev: Condition[] = cfg.status?.conditions ?? [];
    const gen = cfg.metadata.generation;
    const conds = [
      cond(prev, 'Available', s.available ? 'True' : 'False', s.available ? 'ImageBuilt' : 'NoImage', s.available ? `the NodePool is given ${s.available}` : '', now, gen),
      cond(prev, 'Building', s.building ? 'True' : 'False', s.building ? 'BuildRunning' : 'NotBuilding', s.building ?? '', now, gen),
      cond(prev, 'Degraded', s.degraded ? 'True' : 'False', s.degraded ? s.degraded[0] : 'AsExpected', s.degraded ? truncate(s.degraded[1], MAX_MESSAGE) : '', now, gen),
    ];
    const status: Record<string, unknown> = { ...(cfg.status ?? {}), conditions: conds, observedGeneration: gen };
    if (s.available) status.currentImagePullSpec = s.available;
    if (s.build) status.nodePoolOSBuild = s.build;
    if (sameStatus(cfg.status, status)) return;
    if (s.degraded) this.log('nodepoolosconfig degraded', { nodePoolOSConfig: cfg.metadata.name, reason: s.degraded[0] });
    try {
      await this.o.hosted.updateStatus(NPOSC, { ...cfg, status });
    } catch (e) {
      if (!isConflict(e)) throw e; // a newer object is on its way: the next pass writes its status
    }
  }

  /** Keeps the newest `historyLimit` builds (Jobs and records) per config; the current one always. */
  private async pruneHistory(config: string, currentBuild: string, currentJob: string): Promise<void> {
    const sel = `${CONFIG_LABEL}=${config}`;
    const jobs = (await this.o.management.list(RESOURCES.jobs, { namespace: this.o.namespace, labelSelector: sel })).items;
    for (const old of beyondLimit(jobs, this.o.historyLimit, currentJob)) await this.o.management.delete(RESOURCES.jobs, old, this.o.namespace);
    const builds = (await this.o.hosted.list(NPOSB, { labelSelector: sel })).items;
    for (const old of beyondLimit(builds, this.o.historyLimit, currentBuild)) await this.o.hosted.delete(NPOSB, old);
  }

  /** A deleted config takes its Jobs and its hand-off with it: the NodePool returns to the release's OS image. */
  private async removeOrphans(configs: Set<string>): Promise<void> {
    const m = this.o.management;
    const mine = `${MANAGED_BY}=${MANAGED_BY_VALUE}`;
    for (const cm of (await m.list(RESOURCES.configMaps, { namespace: this.o.namespace, labelSelector: mine })).items) {
      const owner = cm.metadata.labels?.[CONFIG_LABEL];
      if (cm.metadata.name!.startsWith(HANDOFF_PREFIX) && owner && !configs.has(owner)) {
        await m.delete(RESOURCES.configMaps, cm.metadata.name!, this.o.namespace);
        this.log('hand-off removed', { configMap: cm.metadata.name, nodePoolOSConfig: owner });
      }
    }
    for (const job of (await m.list(RESOURCES.jobs, { namespace: this.o.namespace, labelSelector: mine })).items) {
      const owner = job.metadata.labels?.[CONFIG_LABEL];
      if (owner && !configs.has(owner)) await m.delete(RESOURCES.jobs, job.metadata.name!, this.o.namespace);
    }
  }

  private async event(job: Obj, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const now = this.now().toISOString();
    try {
      await this.o.management.create(RESOURCES.events, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { generateName: `${job.metadata.name}.`, namespace: this.o.namespace },
        involvedObject: { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name, namespace: this.o.namespace, uid: job.metadata.uid },
        type,
        reason,
        message: truncate(message, MAX_MESSAGE),
        source: { component: 'on-cluster-build' },
        firstTimestamp: now,
        lastTimestamp: now,
        count: 1,
        reportingComponent: 'on-cluster-build',
      });
    } catch (e) {
      this.log('event not recorded', { reason, error: (e as Error).message });
    }
  }
}

interface BuildState {
  phase: 'Building' | 'Succeeded' | 'Failed' | 'Interrupted';
  reason: string;
  message: string;
  start?: string;
  end?: string;
  digest?: string;
}

function terminalState(build: Obj): BuildState | undefined {
  const c = ((build.status?.conditions ?? []) as Condition[]).find((x) => TERMINAL.includes(x.type) && x.status === 'True');
  return c ? { phase: c.type as BuildState['phase'], reason: c.reason, message: c.message } : undefined;
}

function cond(prev: Condition[], type: string, status: Condition['status'], reason: string, message: string, now: string, observedGeneration?: number): Condition {
  const p = prev.find((c) => c.type === type);
  const c: Condition = { type, status, reason, message, lastTransitionTime: p && p.status === status ? p.lastTransitionTime ?? now : now };
  if (observedGeneration !== undefined) c.observedGeneration = observedGeneration;
  return c;
}

/** Status equality that ignores transition times (they only move when a status flips). */
function sameStatus(a: unknown, b: unknown): boolean {
  const strip = (v: unknown) => JSON.stringify(v ?? {}, (k, x) => (k === 'lastTransitionTime' ? undefined : x));
  return strip(a) === strip(b);
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

/** The registry auth file in a Secret: `.dockerconfigjson`, or a legacy `.dockercfg` wrapped as one. */
export function dockerConfigJson(secret: KubeObject): string | undefined {
  const data = (secret as Obj & { data?: Record<string, string> }).data ?? {};
  const dec = (k: string) => (typeof data[k] === 'string' ? Buffer.from(data[k], 'base64').toString('utf8') : undefined);
  const json = dec('.dockerconfigjson');
  if (json) return json;
  const legacy = dec('.dockercfg');
  return legacy ? `{"auths":${legacy}}` : undefined;
}

/** NoArch content, else the first: HyperShift NodePools of one hosted cluster share an arch per NodePool. */
function pickContainerfile(cfg: Obj): string {
  const files: { containerfileArch?: string; content: string }[] = cfg.spec?.containerFile ?? [];
  const f = files.find((x) => (x.containerfileArch ?? 'NoArch') === 'NoArch') ?? files[0];
  return f?.content ?? 'FROM configs AS final\n';
}

/** `host/ns/name:tag` → `host/ns/name` (the tag is replaced by the build's name, as upstream does). */
export function repositoryOf(spec: string): string {
  const at = spec.indexOf('@');
  const noDigest = at >= 0 ? spec.slice(0, at) : spec;
  const slash = noDigest.lastIndexOf('/');
  const colon = noDigest.lastIndexOf(':');
  return colon > slash ? noDigest.slice(0, colon) : noDigest;
}

export function inputsHash(inputs: Record<string, string>): string {
  const canonical = JSON.stringify(Object.keys(inputs).sort().map((k) => [k, inputs[k]]));
  return createHash('sha256').update(canonical).digest('hex').slice(0, 10);
}

function truncate(s: string, n: number): string {
  return s.length <= n ? s : `${s.slice(0, n - 1)}…`;
}

/** Upstream's rule: buildEnd after buildStart. */
function laterThan(end: string, start?: string): string {
  if (!start) return end;
  return Date.parse(end) > Date.parse(start) ? end : new Date(Date.parse(start) + 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
