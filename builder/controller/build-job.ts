/**
 * What one build runs: a Job in the hosted cluster's build namespace (`BUILD_NAMESPACE`), the
 * ConfigMap with its Containerfile (and registries.conf) and the Secret with its registry
 * credentials (both owned by the Job, so they go when it goes). Pure: same inputs, same objects.
 *
 * The pod is MCO's build pod as of 4.17 (machine-config-operator `pkg/controller/build/
 * image_build_request.go` on release-4.17, `buildrequest/buildrequest.go` and
 * `assets/buildah-build.sh` on main) made explicit and bounded (docs/design/build-pod.md
 * "The build pod"): buildah runs rootless as the image's `build` user (uid 1000, with a
 * subordinate ID range in /etc/subuid and /etc/subgid) with chroot isolation and vfs storage; the
 * ServiceAccount may use OpenShift's `anyuid` SCC (the one MCO binds), which admits uid 1000 and
 * privilege escalation; of CRI-O's default capabilities the container keeps only SETUID and SETGID,
 * which `newuidmap`/`newgidmap` (file capabilities) need to map that range. Read-only root
 * filesystem; everything buildah writes (storage, TMPDIR, HOME, XDG_RUNTIME_DIR) is on one
 * size-limited emptyDir mounted at /tmp. The digest comes back as the termination message, so the
 * pod needs no API token; on failure the message is the tail of the build's output.
 */
import type { KubeObject } from '../clusters/kube.js';
import { BUILD_NAMESPACE } from '../api/types.js';
import type { BuildArch, Toleration } from '../hypershift/nodepool-facts.js';
import {
  BASE_STORE_DIR,
  BUILD_SCRIPT,
  BUILT_DIR,
  CONTAINERFILE_DIR,
  imagesToPull,
  POLICY_KEY,
  PULL_CREDENTIALS_DIR,
  PULL_SCRIPT,
  PUSH_CREDENTIALS_DIR,
  PUSH_SCRIPT,
  RUN_MOUNT_NAMES,
  RUN_MOUNTS,
  type RunMountName,
  synthesizeContainerfile,
  TRUST_BUNDLE_KEY,
  TRUST_DIR,
} from './build-script.js';

export const LABEL_PREFIX = 'on-cluster-build.pkogen.io';
export const MANAGED_BY = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'on-cluster-build';
export const CONFIG_LABEL = `${LABEL_PREFIX}/nodepoolosconfig`;
export const BUILD_LABEL = `${LABEL_PREFIX}/nodepoolosbuild`;
/** HyperShift's NodePool label: only on the hand-off ConfigMap, where HyperShift must see it. */
export const NODEPOOL_LABEL = 'hypershift.openshift.io/nodePool';
/** Our own NodePool label on build objects, so nothing of HyperShift's ever selects them. */
export const BUILD_NODEPOOL_LABEL = `${LABEL_PREFIX}/nodepool`;
/** The label the Job controller puts on a Job's pods (Kubernetes ≥ 1.27; `job-name` before). */
export const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/** A Job condition, as read from its status. */
export interface JobCondition { type: string; status: string; reason?: string; message?: string; lastTransitionTime?: string }

/** A build Job's end, from its conditions and its pods' termination messages. */
export type JobEnd =
  | { state: 'running' }
  | { state: 'complete'; condition: JobCondition; digest?: string }
  | { state: 'failed'; condition: JobCondition; lastMessage?: string };

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

/**
 * Reads how a build Job ended (one home for the per-HCP controller and the fleet's provider
 * builds): running until a Complete/SuccessCriteriaMet or Failed/FailureTarget condition; then
 * the newest pods' termination messages (the push container's, then the init containers' `pull`
 * and `build`) (`listPods`, called only then) give the pushed digest or
 * the failing container's message (its log's tail, as the build script writes it).
 */
export async function readJobEnd(job: KubeObject & { status?: { conditions?: JobCondition[] } }, listPods: () => Promise<KubeObject[]>): Promise<JobEnd> {
  const conds = job.status?.conditions ?? [];
  const complete = conds.find((c) => (c.type === 'Complete' || c.type === 'SuccessCriteriaMet') && c.status === 'True');
  const failed = conds.find((c) => (c.type === 'Failed' || c.type === 'FailureTarget') && c.status === 'True');
  if (!complete && !failed) return { state: 'running' };
  type Terminated = { exitCode?: number; message?: string };
  type Statuses = { state?: { terminated?: Terminated } }[];
  const ends = ((await listPods()) as (KubeObject & { status?: { initContainerStatuses?: Statuses; containerStatuses?: Statuses } })[])
    .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))
    .flatMap((p) => [...(p.status?.containerStatuses ?? []), ...(p.status?.initContainerStatuses ?? [])].map((cs) => cs?.state?.terminated).filter((t): t is Terminated => !!t));
  if (complete) {
    const digest = ends.map((t) => String(t.message ?? '').trim()).find((m) => DIGEST_RE.test(m));
    return { state: 'complete', condition: complete, ...(digest ? { digest } : {}) };
  }
  const last = ends.find((t) => t.exitCode !== 0 && t.message);
  return { state: 'failed', condition: failed!, ...(last ? { lastMessage: String(last.message).trim() } : {}) };
}

/** Longest scheduler message copied into a status (the scheduler's own cap is 1 KiB, an Event note's). */
export const MAX_UNSCHEDULABLE_MESSAGE = 512;

/**
 * Why a running build Job's pod is not placed, when the scheduler says it cannot be: the newest
 * Pending pod's `PodScheduled` condition with status False and reason `Unschedulable` (the
 * kube-scheduler's write on a rejected pod, docs/design/build-pod.md "Unschedulable builds"),
 * its message bounded to MAX_UNSCHEDULABLE_MESSAGE and to printable text (the pod is in a cluster
 * its tenant writes to). Undefined when no pod is waiting so.
 */
export function unschedulableMessage(pods: KubeObject[]): string | undefined {
  type Cond = { type?: string; status?: string; reason?: string; message?: string };
  const waiting = (pods as (KubeObject & { status?: { phase?: string; conditions?: Cond[] } })[])
    .filter((p) => (p.status?.phase ?? 'Pending') === 'Pending' && !p.metadata.deletionTimestamp)
    .sort((a, b) => String(b.metadata.creationTimestamp).localeCompare(String(a.metadata.creationTimestamp)))
    .map((p) => ({ pod: p.metadata.name, c: (p.status?.conditions ?? []).find((c) => c?.type === 'PodScheduled' && c.status === 'False' && c.reason === 'Unschedulable') }))
    .find((w) => w.c);
  if (!waiting) return undefined;
  const text = String(waiting.c!.message ?? '').replace(/[^\x20-\x7e]+/g, ' ').trim() || 'no message';
  const bounded = text.length > MAX_UNSCHEDULABLE_MESSAGE ? `${text.slice(0, MAX_UNSCHEDULABLE_MESSAGE - 1)}…` : text;
  return `pod ${String(waiting.pod).slice(0, 253)} cannot be scheduled: ${bounded}`;
}

/** Bounds of one set (a build Secret holds at most 1 MiB with both auth files; three sets fit). */
export const RUN_FILES_LIMITS = { files: 64, bytes: 192 * 1024 } as const;
/** The build Secret's registry auth files (its other keys, if any, are `<run mount>.<file>`). */
export const CREDENTIAL_KEYS = ['base.json', 'push.json'] as const;

export { BUILD_NAMESPACE };
/** The build pods' ServiceAccount in `BUILD_NAMESPACE` (created by the hosted-cluster phase, bound to the SCC). */
export const BUILD_SERVICE_ACCOUNT = 'on-cluster-build-builder';
/** The SCC the build ServiceAccount may use (`system:openshift:scc:anyuid`, bound in `BUILD_NAMESPACE` only). */
export const BUILD_SCC = 'anyuid';
/** The PriorityClass of build pods (negative value, never preempts; created by the hosted-cluster phase). */
export const BUILD_PRIORITY_CLASS = 'on-cluster-build-low';
/**
 * The user buildah runs as: MCO's image has it since 4.17 (`useradd --uid 1000 build`, which also
 * allocates its /etc/subuid and /etc/subgid range), and so does our own image (builder/Containerfile).
 */
export const BUILD_USER = { name: 'build', uid: 1000, gid: 1000 } as const;
/** CRI-O's `default_capabilities` (cri-o internal/config/capabilities `Default()`; OpenShift's crio.conf keeps them). */
export const CRIO_DEFAULT_CAPABILITIES = ['CHOWN', 'DAC_OVERRIDE', 'FSETID', 'FOWNER', 'SETGID', 'SETUID', 'SETPCAP', 'NET_BIND_SERVICE', 'KILL'] as const;
/** What the build keeps: newuidmap/newgidmap gain CAP_SETUID/CAP_SETGID from their file capabilities, bounded by these. */
export const BUILD_CAPABILITIES = ['SETGID', 'SETUID'] as const;
/**
 * What the container drops: every other CRI-O default, plus MKNOD (anyuid's `requiredDropCapabilities`).
 * Named, not `ALL` + add: anyuid allows no added capability (`allowedCapabilities` empty).
 */
export const BUILD_DROPPED_CAPABILITIES = [...CRIO_DEFAULT_CAPABILITIES.filter((c) => !(BUILD_CAPABILITIES as readonly string[]).includes(c)), 'MKNOD'].sort();

/** Where the one emptyDir is mounted: buildah's storage, TMPDIR, HOME and runtime dir all live there. */
export const BUILD_VOLUME_DIR = '/tmp';
export const BUILD_HOME = `${BUILD_VOLUME_DIR}/home`;

/**
 * Ephemeral storage of one build, request equal to limit: placed only where all of it is reserved;
 * a build that outgrows it is evicted alone, never the node into disk pressure. 250Gi: RHCOS in
 * vfs, ~50 layers × ~4.5 GiB as the kubelet counts them (docs/design/build-pod.md "Scratch space").
 */
export const DEFAULT_BUILD_STORAGE = { request: '250Gi', limit: '250Gi' } as const;
export const DEFAULT_BUILD_RESOURCES = {
  requests: { cpu: '500m', memory: '1Gi' },
  limits: { cpu: '2', memory: '8Gi' },
} as const;

export interface BuildJobInput {
  /** The hosted cluster's build namespace: `BUILD_NAMESPACE`. */
  namespace: string;
  jobName: string;
  buildName: string;
  configName: string;
  nodePool: string;
  releaseImage: string;
  baseOSImage: string;
  /** The image that carries buildah and the build user: what `builderImageFor()` returned for the NodePool's release. */
  builderImage: string;
  /** `repo:tag` the image is pushed to. */
  pushTag: string;
  /** The user's Containerfile content (must define the `final` stage FROM `configs`). */
  containerfile: string;
  activeDeadlineSeconds: number;
  backoffLimit: number;
  /**
   * The NodePool's architecture (`spec.arch`, lower-case): the pod's `kubernetes.io/arch`
   * nodeSelector, so the image is built for the machines that boot it. Absent only until the
   * controller passes it: then there is no arch selector (any node, any architecture).
   */
  arch?: BuildArch;
  /** Tolerations: the NodePool's taints (its own nodes), or a provider-set placement's (builder/fleet/placement.ts). */
  tolerations?: Toleration[];
  /** More node labels to select (a provider-set placement), never kubernetes.io/os or kubernetes.io/arch. */
  nodeSelector?: Record<string, string>;
  /** A rendered registries.conf (mirrors, blocked or insecure registries) for pulls and the push; none: the image's own. */
  registriesConf?: string;
  /**
   * Per `RUN_MOUNTS` entry, the file names the build Secret carries for it (see `runFiles`);
   * absent or empty: nothing is mounted there. RUN steps see them at its `runPath`.
   */
  runFiles?: Partial<Record<RunMountName, string[]>>;
  /** Ephemeral storage request and limit, equal (also each emptyDir's sizeLimit); default `DEFAULT_BUILD_STORAGE`. */
  storage?: { request: string; limit: string };
  /**
   * @deprecated Ignored. `hostUsers: false` gives the pod 65536 IDs (0–65535), so the build user's
   * subordinate range (100000 and up in the builder images) cannot be mapped and no layer owned by
   * another ID unpacks; the build pod gets its ID range from newuidmap instead (docs/design/build-pod.md).
   */
  userNamespaces?: boolean;
  /**
   * CA certificates (PEM) the pull and push trust besides the system's: the HostedCluster's
   * `spec.additionalTrustBundle` for tenant builds, a provider-set bundle for provider builds.
   */
  trustBundle?: string;
  /** An image signature policy (containers-policy.json) for the pull and the push; none: the image's own. */
  policyJson?: string;
  /** HTTP(S)_PROXY / NO_PROXY for registry access. */
  proxyEnv?: { name: string; value: string }[];
}

export function buildLabels(i: Pick<BuildJobInput, 'configName' | 'buildName' | 'nodePool'>): Record<string, string> {
  return {
    [MANAGED_BY]: MANAGED_BY_VALUE,
    [CONFIG_LABEL]: i.configName,
    [BUILD_LABEL]: i.buildName,
    [BUILD_NODEPOOL_LABEL]: i.nodePool,
  };
}

export function buildJob(i: BuildJobInput): KubeObject {
  const labels = buildLabels(i);
  const runFiles = RUN_MOUNT_NAMES.map((n) => ({ n, files: [...(i.runFiles?.[n] ?? [])].sort() })).filter((m) => m.files.length);
  const storage = i.storage ?? DEFAULT_BUILD_STORAGE;
  const env = (container: string, own: { name: string; value: string }[]) => [
    { name: 'CONTAINER', value: container },
    ...own,
    { name: 'HOME', value: BUILD_HOME },
    { name: 'TMPDIR', value: BUILD_VOLUME_DIR },
    { name: 'XDG_RUNTIME_DIR', value: `${BUILD_VOLUME_DIR}/run` },
    { name: 'BUILDAH_ISOLATION', value: 'chroot' },
    ...(i.registriesConf !== undefined ? [{ name: 'CONTAINERS_REGISTRIES_CONF', value: `${CONTAINERFILE_DIR}/registries.conf` }] : []),
    ...(i.proxyEnv ?? []),
  ];
  const mount = (name: string, mountPath: string, readOnly: boolean) => ({ name, mountPath, ...(readOnly ? { readOnly: true } : {}) });
  // containers/image puts some big temporary files in /var/tmp whatever TMPDIR says (buildah 1.28
  // committing a stage with no instruction: "creating a temporary directory"): a directory of the
  // container's scratch volume there, so every path buildah writes is on an accounted volume.
  const varTmp = (volume: string) => ({ name: volume, mountPath: '/var/tmp', subPath: 'var-tmp' });
  const trust = i.trustBundle !== undefined ? [mount('trust', TRUST_DIR, true)] : [];
  // The three containers are alike but for their script, environment and mounts: same image,
  // user, capabilities (each runs buildah in a user namespace), resources and read-only root.
  const container = (name: string, script: string, own: { name: string; value: string }[], volumeMounts: object[]) => ({
    name,
    image: i.builderImage,
    imagePullPolicy: 'IfNotPresent',
    command: ['/bin/bash', '-c', script],
    env: env(name, own),
    resources: {
      requests: { ...DEFAULT_BUILD_RESOURCES.requests, 'ephemeral-storage': storage.request },
      limits: { ...DEFAULT_BUILD_RESOURCES.limits, 'ephemeral-storage': storage.limit },
    },
    securityContext: {
      // newuidmap/newgidmap must gain CAP_SETUID/CAP_SETGID from their file capabilities.
      allowPrivilegeEscalation: true,
      capabilities: { drop: [...BUILD_DROPPED_CAPABILITIES] },
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
    },
    terminationMessagePath: '/dev/termination-log',
    terminationMessagePolicy: 'FallbackToLogsOnError',
    volumeMounts,
  });
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      name: i.jobName,
      namespace: i.namespace,
      labels,
      annotations: { [`${LABEL_PREFIX}/release-image`]: i.releaseImage, [`${LABEL_PREFIX}/base-os-image`]: i.baseOSImage },
    },
    spec: {
      backoffLimit: i.backoffLimit,
      activeDeadlineSeconds: i.activeDeadlineSeconds,
      completions: 1,
      parallelism: 1,
      template: {
        // SCC admission picks anyuid for this pod, and says so when it cannot (OpenShift ≥ 4.14).
        metadata: { labels, annotations: { 'openshift.io/required-scc': BUILD_SCC } },
        spec: {
          restartPolicy: 'Never',
          serviceAccountName: BUILD_SERVICE_ACCOUNT,
          automountServiceAccountToken: false,
          // Each container in its own PID namespace: no /proc/<pid> of another container to read.
          shareProcessNamespace: false,
          enableServiceLinks: false,
          priorityClassName: BUILD_PRIORITY_CLASS,
          nodeSelector: { ...i.nodeSelector, 'kubernetes.io/os': 'linux', ...(i.arch ? { 'kubernetes.io/arch': i.arch } : {}) },
          ...(i.tolerations?.length ? { tolerations: i.tolerations } : {}),
          // No seccompProfile: anyuid lists none, and SCC admission refuses a pod that sets one.
          securityContext: { runAsUser: BUILD_USER.uid, runAsGroup: BUILD_USER.gid, runAsNonRoot: true },
          terminationGracePeriodSeconds: 10,
          // Init containers run one after the other, each to its end, before the pod's container.
          initContainers: [
            container('pull', PULL_SCRIPT, [{ name: 'PULL_IMAGES', value: imagesToPull(i).join(' ') }], [
              mount('pull-credentials', PULL_CREDENTIALS_DIR, true),
              mount('containerfile', CONTAINERFILE_DIR, true),
              ...trust,
              mount('base', BASE_STORE_DIR, false),
              mount('scratch', BUILD_VOLUME_DIR, false),
              varTmp('scratch'),
            ]),
            container('build', BUILD_SCRIPT, [], [
              mount('containerfile', CONTAINERFILE_DIR, true),
              ...runFiles.map((m) => mount(m.n, RUN_MOUNTS[m.n].dir, true)),
              mount('base', BASE_STORE_DIR, true),
              mount('build', BUILD_VOLUME_DIR, false),
              varTmp('build'),
            ]),
          ],
          containers: [
            container('push', PUSH_SCRIPT, [{ name: 'TAG', value: i.pushTag }], [
              mount('push-credentials', PUSH_CREDENTIALS_DIR, true),
              mount('containerfile', CONTAINERFILE_DIR, true),
              ...trust,
              mount('base', BASE_STORE_DIR, true),
              mount('build', BUILT_DIR, true),
              mount('scratch', BUILD_VOLUME_DIR, false),
              varTmp('scratch'),
            ]),
          ],
          volumes: [
            // Readable by the build user (no fsGroup under anyuid); each mounted by one container only.
            { name: 'pull-credentials', secret: { secretName: i.jobName, defaultMode: 0o444, items: [{ key: 'base.json', path: 'base.json' }] } },
            { name: 'push-credentials', secret: { secretName: i.jobName, defaultMode: 0o444, items: [{ key: 'push.json', path: 'push.json' }] } },
            // The same Secret's entitlement, repository and GPG key files, each set on its own (MCO: etc-pki-entitlement, etc-yum-repos-d, etc-pki-rpm-gpg).
            ...runFiles.map((m) => ({ name: m.n, secret: { secretName: i.jobName, defaultMode: 0o444, items: m.files.map((f) => ({ key: `${m.n}.${f}`, path: f })) } })),
            { name: 'containerfile', configMap: { name: i.jobName, defaultMode: 0o444 } },
            ...(i.trustBundle !== undefined ? [{ name: 'trust', configMap: { name: i.jobName, defaultMode: 0o444, items: [{ key: TRUST_BUNDLE_KEY, path: TRUST_BUNDLE_KEY }] } }] : []),
            // Pulled images (pull writes; build and push read), the build's scratch (build writes;
            // push reads its OCI layout), the credentialed containers' scratch (never in build).
            { name: 'base', emptyDir: { sizeLimit: storage.limit } },
            { name: 'build', emptyDir: { sizeLimit: storage.limit } },
            { name: 'scratch', emptyDir: { sizeLimit: storage.limit } },
          ],
        },
      },
    },
  };
}

const ownedBy = (job: KubeObject) => [
  { apiVersion: 'batch/v1', kind: 'Job', name: job.metadata.name!, uid: job.metadata.uid!, controller: true, blockOwnerDeletion: false },
];

export function buildConfigMap(i: BuildJobInput, job: KubeObject): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: i.jobName, namespace: i.namespace, labels: buildLabels(i), ownerReferences: ownedBy(job) },
    data: {
      Containerfile: synthesizeContainerfile(i),
      ...(i.registriesConf !== undefined ? { 'registries.conf': i.registriesConf } : {}),
      ...(i.trustBundle !== undefined ? { [TRUST_BUNDLE_KEY]: i.trustBundle } : {}),
      ...(i.policyJson !== undefined ? { [POLICY_KEY]: i.policyJson } : {}),
    },
  };
}

/**
 * Registry credentials as auth files (`{"auths": …}`), the base pull and the push one, and the
 * RUN files when there are some (`runFiles` results, by mount).
 */
export function buildSecret(i: BuildJobInput, job: KubeObject, baseAuth: string, pushAuth: string, run: Partial<Record<RunMountName, Record<string, string>>> = {}): KubeObject {
  const runData = Object.fromEntries(RUN_MOUNT_NAMES.flatMap((n) => Object.entries(run[n] ?? {}).map(([f, v]) => [`${n}.${f}`, v])));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: { name: i.jobName, namespace: i.namespace, labels: buildLabels(i), ownerReferences: ownedBy(job) },
    data: { ...runData, 'base.json': Buffer.from(baseAuth).toString('base64'), 'push.json': Buffer.from(pushAuth).toString('base64') },
  };
}

/**
 * The files of one RUN mount from a Secret's `data` (base64) or a ConfigMap's `data` (text),
 * as base64 by file name: every key a file name `RUN_MOUNTS[name].file` accepts, within
 * `RUN_FILES_LIMITS`; else a reason naming `where`, the key or the bound, never a value.
 */
export function runFiles(name: RunMountName, data: Record<string, unknown> | undefined, where: string, encoding: 'base64' | 'text' = 'base64'): { files: Record<string, string> } | { error: string } {
  const files: Record<string, string> = {};
  let bytes = 0;
  const keys = Object.keys(data ?? {}).sort();
  if (keys.length === 0) return { error: `${where} has no data` };
  if (keys.length > RUN_FILES_LIMITS.files) return { error: `${where} has ${keys.length} keys; at most ${RUN_FILES_LIMITS.files} files are passed to a build` };
  for (const k of keys) {
    const v = data![k];
    if (!RUN_MOUNTS[name].file.test(k)) return { error: `${where}: key ${JSON.stringify(k.slice(0, 64))} is not ${RUN_MOUNTS[name].what}` };
    if (typeof v !== 'string' || (encoding === 'base64' && !/^[A-Za-z0-9+/]*={0,2}$/.test(v))) return { error: `${where}: key ${JSON.stringify(k)} is not ${encoding === 'base64' ? 'base64 data' : 'text'}` };
    const b64 = encoding === 'base64' ? v : Buffer.from(v, 'utf8').toString('base64');
    bytes += Math.floor((b64.length * 3) / 4);
    if (bytes > RUN_FILES_LIMITS.bytes) return { error: `${where} holds more than ${RUN_FILES_LIMITS.bytes} bytes; at most that much is passed to a build` };
    files[k] = b64;
  }
  return { files };
}

/** MCO's image carries buildah and the build user from this release on (MCO `Dockerfile`, release-4.17). */
export const MCO_BUILDAH_SINCE = { major: 4, minor: 17 } as const;
/** HyperShift's oldest supported NodePool release (hypershift `support/supportedversion/version.go`). */
export const OLDEST_NODEPOOL_RELEASE = { major: 4, minor: 14 } as const;

export type BuilderImageChoice = { image: string; source: 'release' | 'own' } | { refused: string };

/**
 * Which image builds for a NodePool on `releaseVersion` (`4.16.3`, `4.17.0-rc.1`, `5.0.0`): the
 * release's machine-config-operator image from 4.17 on (it carries buildah and the build user);
 * before that our own image (builder/Containerfile installs buildah and the same user) when there
 * is one, else a refusal that says why. Pure.
 */
export function builderImageFor(o: { releaseVersion: string; mcoImage: string; ownImage?: string }): BuilderImageChoice {
  const m = /^(\d+)\.(\d+)(?:\.\d+)?(?:[-+].*)?$/.exec(o.releaseVersion.trim());
  if (!m) return { refused: `release version ${JSON.stringify(o.releaseVersion)} is not MAJOR.MINOR[.PATCH]` };
  const v = { major: Number(m[1]), minor: Number(m[2]) };
  const atLeast = (w: { major: number; minor: number }) => v.major > w.major || (v.major === w.major && v.minor >= w.minor);
  const name = `${v.major}.${v.minor}`;
  if (!atLeast(OLDEST_NODEPOOL_RELEASE)) return { refused: `release ${name} is older than ${OLDEST_NODEPOOL_RELEASE.major}.${OLDEST_NODEPOOL_RELEASE.minor}, the oldest NodePool release HyperShift supports` };
  if (atLeast(MCO_BUILDAH_SINCE)) return { image: o.mcoImage, source: 'release' };
  if (o.ownImage) return { image: o.ownImage, source: 'own' };
  return {
    refused: `release ${name}'s machine-config-operator image has no buildah (it ships from ${MCO_BUILDAH_SINCE.major}.${MCO_BUILDAH_SINCE.minor} on) and no on-cluster-build image with buildah is configured`,
  };
}
