/**
 * The build registry's real seams (builder/fleet/build-registry.ts):
 *
 * - `lookup(key)`: is `<--provider-repository>:<buildTag(key)>` in the registry? A manifest HEAD
 *   (pkogen/oci's client, through the network guard, with the push Secret's credentials); if so,
 *   its digest, verified (builder/registry/image-check.ts: at that digest, for the key's arch, layers
 *   beginning with the release's base OS image's) before it is answered.
 * - `build(key)`: a Job in the build namespace on the management cluster (`--build-namespace`,
 *   made by the fleet package with what the build pod needs: Pod Security baseline, the build
 *   ServiceAccount with anyuid, the build PriorityClass), the same build pod as tenant builds (builder/controller/build-job.ts `buildJob`, `buildConfigMap`,
 *   `buildSecret`: not forked), running the provider's Containerfile (trusted content: the
 *   provider's ConfigMap) on the release's base OS, pushing to the build tag; its reported digest
 *   is verified the same way before it is answered.
 *
 * Placement and trust: a build Job for an architecture with a provider-set placement
 * (`--build-placement`, builder/fleet/placement.ts) selects its node labels and tolerates its
 * taints; a provider-set CA bundle (`--provider-trust-bundle`: a ConfigMap in `--namespace`, key
 * `ca-bundle.crt`, read at each build so a renewed CA needs no restart) goes to the build's pull
 * and push as the HostedCluster's does for tenant builds (trustBundleOf, BuildJobInput.trustBundle),
 * and to this process's own look-up and verification of the provider repository.
 *
 * Credentials: the Secret `--push-secret-name` in `--namespace` (a dockerconfigjson) carries the
 * push credentials for the provider repository and the pull credentials for the release
 * registries (the build pulls the base OS image with it). Never logged, never in a message.
 */
import type { Credential } from 'pkogen/oci';
import { parseReference, RegistryClient, type ConnectPolicy } from 'pkogen/oci';
import { isAlreadyExists, Kube, KubeObject, RESOURCES } from '../clusters/kube.js';
import { buildConfigMap, BuildJobInput, buildJob, buildSecret, JOB_NAME_LABEL, readJobEnd, type JobCondition } from '../controller/build-job.js';
import type { BuildArch } from '../hypershift/nodepool-facts.js';
import { readTrustBundle } from './trust-bundle.js';
import type { BuildPlacement } from './placement.js';
import { dockerConfigCredentials, dockerConfigJson } from '../registry/dockerconfig.js';
import { abortableSleep } from '../clusters/leader.js';
import { BuildKey, buildTag } from './build-registry.js';

/** What a key's build is FROM and built by: the release's images for the key's arch and stream. */
export interface ProviderBase {
  /** The release's base OS image for the arch (and stream), by digest. */
  baseOSImage: string;
  /** The image with buildah (`builderImageFor`): the release's MCO image from 4.17. */
  builderImage: string;
}

export interface ProviderBuildsOptions {
  management: Kube;
  /** The fleet component's namespace: where the push Secret is. */
  namespace: string;
  /** Where build Jobs run, with their ConfigMaps, Secrets and pods (`--build-namespace`). */
  buildNamespace: string;
  /** `registry/repo`, no tag. */
  repository: string;
  /** The provider's Containerfile (its `final` stage FROM `configs`, as tenant Containerfiles). */
  containerfile: string;
  pushSecretName: string;
  /** The key's release → its base OS and builder images (the release resolver, with the push Secret's pull credentials). */
  resolveBase: (key: BuildKey, pullSecret: string | undefined) => Promise<ProviderBase>;
  /** builder/registry/image-check.ts's verifyBuiltImage, reduced (the wiring passes it with the guard). */
  /** `ca`: the provider's trust bundle, when one is set (the registry client adds it to the system roots). */
  verify: (i: { pushRef: string; arch: string; baseImageRef: string; credentials: string | undefined; ca?: string }) => Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Which hosts the registry client may connect to (builder/registry/net-guard.ts NetGuard). */
  connectPolicy: ConnectPolicy;
  activeDeadlineSeconds?: number;
  backoffLimit?: number;
  /** How often a running Job is looked at (default 10 s). */
  pollMs?: number;
  proxyEnv?: { name: string; value: string }[];
  /** A ConfigMap in `namespace` whose `ca-bundle.crt` the build's pull and push trust besides the system's (`--provider-trust-bundle`). */
  trustBundleConfigMap?: string;
  /** Per architecture, the nodes a build may run on (`--build-placement`). */
  placement?: BuildPlacement;
  /** An image signature policy (containers-policy.json) for the build's pull and push. */
  policyJson?: string;
  signal?: AbortSignal;
}

const MAX_MESSAGE = 1024;

export class ProviderBuilds {
  constructor(private readonly o: ProviderBuildsOptions) {
    parseReference(o.repository);
    if (!repositoryOnly(o.repository)) throw new Error(`--provider-repository ${JSON.stringify(o.repository)} must name a repository without a tag or digest`);
  }

  private pushSecret(): Promise<string> {
    return readPushSecret(this.o.management, this.o.namespace, this.o.pushSecretName);
  }

  private client(auth: string | undefined, ca: string | undefined): RegistryClient {
    const credentials: (registry: string, repository: string) => Promise<Credential | undefined> = dockerConfigCredentials(auth, { file: `Secret ${this.o.namespace}/${this.o.pushSecretName}`, path: '.dockerconfigjson' });
    return new RegistryClient({ credentials, connectPolicy: this.o.connectPolicy, attempts: 3, ...(ca !== undefined ? { ca } : {}) });
  }

  /** The verified image already pushed for a key, or undefined when the tag is not there. */
  lookup = async (key: BuildKey): Promise<{ image: string } | undefined> => {
    const auth = await this.pushSecret();
    const ref = parseReference(`${this.o.repository}:${buildTag(key)}`);
    const ca = await this.trustBundle();
    const c = this.client(auth, ca);
    let digest: string;
    try {
      if (!(await c.exists(ref))) return undefined;
      digest = await c.resolveDigest(ref);
    } finally {
      c.close();
    }
    return { image: await this.verified(key, digest, auth, ca) };
  };

  /** Builds the key's provider layer in a Job and answers the verified image. */
  build = async (key: BuildKey): Promise<{ image: string }> => {
    const auth = await this.pushSecret();
    const base = await this.o.resolveBase(key, auth);
    const tag = buildTag(key);
    const trust = await this.trustBundle();
    const placed = this.o.placement?.[key.arch as BuildArch];
    const i: BuildJobInput = {
      namespace: this.o.buildNamespace,
      jobName: `provider-${tag}`,
      buildName: tag,
      configName: 'provider-layer',
      nodePool: 'provider-layer',
      releaseImage: key.releasePullSpec ?? key.releaseDigest,
      baseOSImage: base.baseOSImage,
      builderImage: base.builderImage,
      pushTag: `${this.o.repository}:${tag}`,
      containerfile: this.o.containerfile,
      activeDeadlineSeconds: this.o.activeDeadlineSeconds ?? 3600,
      backoffLimit: this.o.backoffLimit ?? 2,
      arch: key.arch as BuildArch,
      ...(this.o.proxyEnv?.length ? { proxyEnv: this.o.proxyEnv } : {}),
      ...(trust !== undefined ? { trustBundle: trust } : {}),
      ...(placed?.tolerations.length ? { tolerations: placed.tolerations } : {}),
      ...(placed && Object.keys(placed.nodeSelector).length ? { nodeSelector: placed.nodeSelector } : {}),
      ...(this.o.policyJson !== undefined ? { policyJson: this.o.policyJson } : {}),
    };
    const m = this.o.management;
    let job = await m.get(RESOURCES.jobs, i.jobName, i.namespace);
    if (!job) {
      try {
        job = await m.create(RESOURCES.jobs, buildJob(i));
      } catch (e) {
        if (!isAlreadyExists(e)) throw e;
        job = (await m.get(RESOURCES.jobs, i.jobName, i.namespace))!;
      }
      // The pod waits for these volumes; created after the Job so they are owned by it and go with it.
      await createIfMissing(m, RESOURCES.configMaps, buildConfigMap(i, job));
      await createIfMissing(m, RESOURCES.secrets, buildSecret(i, job, auth ?? '{"auths":{}}', auth ?? '{"auths":{}}'));
    }
    const deadline = Date.now() + (i.activeDeadlineSeconds + 300) * 1000;
    const never = new AbortController().signal;
    for (;;) {
      const outcome = await this.outcome(i.jobName);
      if ('digest' in outcome) return { image: await this.verified(key, outcome.digest, auth, trust, base) };
      if ('failed' in outcome) throw new Error(outcome.failed);
      if (Date.now() > deadline || this.o.signal?.aborted) throw new Error(`provider build job ${i.namespace}/${i.jobName} did not finish within ${i.activeDeadlineSeconds + 300}s`);
      await abortableSleep(this.o.pollMs ?? 10_000, this.o.signal ?? never);
    }
  };

  /** The provider's CA bundle (`--provider-trust-bundle`), read at each build; a missing or unusable ConfigMap fails the build, named. */
  private trustBundle(): Promise<string | undefined> {
    return readTrustBundle(this.o.management, this.o.namespace, this.o.trustBundleConfigMap);
  }

  /** The Job's end: the digest its pod reported, its failure, or still running. */
  private async outcome(jobName: string): Promise<{ digest: string } | { failed: string } | { running: true }> {
    const m = this.o.management;
    const ns = this.o.buildNamespace;
    const job = await m.get<KubeObject & { status?: { conditions?: JobCondition[] } }>(RESOURCES.jobs, jobName, ns);
    if (!job) return { failed: `provider build job ${ns}/${jobName} is gone` };
    const end = await readJobEnd(job, async () => (await m.list(RESOURCES.pods, { namespace: ns, labelSelector: `${JOB_NAME_LABEL}=${jobName}` })).items);
    if (end.state === 'running') return { running: true };
    if (end.state === 'complete') return end.digest ? { digest: end.digest } : { failed: `provider build job ${jobName} completed but no pod reported an image digest` };
    const msg = `provider build job ${jobName} failed: ${end.condition.message ?? end.condition.reason ?? 'failed'}${end.lastMessage ? `; last pod: ${end.lastMessage.slice(-600)}` : ''}`;
    return { failed: msg.slice(0, MAX_MESSAGE) };
  }

  private async verified(key: BuildKey, digest: string, auth: string | undefined, ca: string | undefined, known?: ProviderBase): Promise<string> {
    const base = known ?? (await this.o.resolveBase(key, auth));
    const pushRef = `${this.o.repository}@${digest}`;
    const r = await this.o.verify({ pushRef, arch: key.arch, baseImageRef: base.baseOSImage, credentials: auth, ...(ca !== undefined ? { ca } : {}) });
    if (!r.ok) throw new Error(`${pushRef} is not a provider layer on the release's base OS image: ${r.reason}`.slice(0, MAX_MESSAGE));
    return pushRef;
  }
}

/** The push Secret's dockerconfigjson (never logged): the fleet's credentials for its repository and the release registries. */
export async function readPushSecret(management: Kube, namespace: string, name: string): Promise<string> {
  const s = await management.get(RESOURCES.secrets, name, namespace);
  const text = s ? dockerConfigJson(s) : undefined;
  if (!text) throw new Error(`Secret ${namespace}/${name} is missing or has no .dockerconfigjson`);
  return text;
}

/**
 * The build registry's `build` seam for a prebuilt provider image (`--provider-image`): no Job
 * runs; the one image is answered for a key only when it is built on that key's release base OS
 * for its arch (verified as a built image is), so a NodePool whose release moves on is not handed
 * an OS built for another release without saying so: the key fails, the gate holds to its bound
 * and says why.
 */
export function prebuiltProviderImage(o: {
  image: string;
  pushSecret: () => Promise<string>;
  resolveBase: ProviderBuildsOptions['resolveBase'];
  verify: ProviderBuildsOptions['verify'];
  /** The provider's CA bundle (`--provider-trust-bundle`), trusted by the read-back besides the system's. */
  trustBundle?: () => Promise<string | undefined>;
}): (key: BuildKey) => Promise<{ image: string }> {
  return async (key) => {
    const auth = await o.pushSecret();
    const base = await o.resolveBase(key, auth);
    const ca = await o.trustBundle?.();
    const r = await o.verify({ pushRef: o.image, arch: key.arch, baseImageRef: base.baseOSImage, credentials: auth, ...(ca !== undefined ? { ca } : {}) });
    if (!r.ok) throw new Error(`the prebuilt provider image ${o.image} is not a layer on release ${key.releasePullSpec ?? key.releaseDigest}'s base OS for ${key.arch}${key.stream ? ` (${key.stream})` : ''}: ${r.reason}; build it for this release, or give the layer as a Containerfile`.slice(0, MAX_MESSAGE));
    return { image: o.image };
  };
}

/** `registry/path` with neither a tag nor a digest (parseReference defaults a missing tag to latest). */
export function repositoryOnly(repo: string): boolean {
  const slash = repo.indexOf('/');
  return slash > 0 && !repo.includes('@') && !repo.slice(repo.lastIndexOf('/') + 1).includes(':');
}

async function createIfMissing(k: Kube, r: typeof RESOURCES.configMaps, obj: KubeObject): Promise<void> {
  try {
    await k.create(r, obj);
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
  }
}


