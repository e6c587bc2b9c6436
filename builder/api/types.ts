/**
 * The user-facing API of on-cluster builds in a hosted cluster (docs/design/README.md "Contract"):
 * NodePoolOSConfig (written by users) and NodePoolOSBuild (written by the controller only).
 * Both are cluster-scoped, mirroring MachineOSConfig/MachineOSBuild v1 with a NodePool for a pool.
 */

export const GROUP = 'on-cluster-build.pkogen.io';
export const VERSION = 'v1alpha1';
export const API_VERSION = `${GROUP}/${VERSION}`;

export const CONFIG_KIND = 'NodePoolOSConfig';
export const CONFIG_PLURAL = 'nodepoolosconfigs';
export const CONFIG_SINGULAR = 'nodepoolosconfig';
export const CONFIG_SHORT_NAME = 'nposc';

export const BUILD_KIND = 'NodePoolOSBuild';
export const BUILD_PLURAL = 'nodepoolosbuilds';
export const BUILD_SINGULAR = 'nodepoolosbuild';
export const BUILD_SHORT_NAME = 'nposb';

/** The URL paths the package's ValidatingWebhookConfiguration must use (one per kind); the webhook server serves them. */
export const WEBHOOK_PATHS = {
  nodePoolOSConfigs: `/validate/${CONFIG_PLURAL}`,
  nodePoolOSBuilds: `/validate/${BUILD_PLURAL}`,
} as const;

/** `kubectl get on-cluster-build` lists both kinds. */
export const CATEGORY = 'on-cluster-build';

/** Namespace in the hosted cluster that holds the push Secrets users create. */
export const HOSTED_NAMESPACE = 'openshift-on-cluster-build';

/** Namespace in the hosted cluster where tenant builds run (Job, its ConfigMap and Secret). */
export const BUILD_NAMESPACE = 'on-cluster-build-jobs';

/** The hosted cluster's own copy of its pull secret (HCCO syncs the HCP's `pull-secret` here). */
export const HOSTED_PULL_SECRET = { namespace: 'openshift-config', name: 'pull-secret' } as const;

/**
 * The HCP-namespace ConfigMap the controller publishes for the webhook: the auth keys (registry
 * hosts and repository prefixes, never a credential) of the HCP's `pull-secret`, one a line under
 * `key`; `unavailableKey` instead when they cannot be published. The webhook mounts it at
 * `mountDir` (a ConfigMap volume, updated in place) and needs no API access.
 */
export const PULL_KEYS_CONFIGMAP = { name: 'on-cluster-build-pull-keys', key: 'auth-keys', unavailableKey: 'unavailable', mountDir: '/var/run/on-cluster-build/pull-keys' } as const;

/**
 * RHEL entitlements in the hosted cluster (docs/design/build-pod.md "Entitlements"): insights-operator
 * writes `etc-pki-entitlement` (and, on clusters of several architectures, one per architecture,
 * `etc-pki-entitlement-<arch>`) to `openshift-config-managed`; a cluster admin may write them too.
 */
export const ENTITLEMENT_SECRET = { namespace: 'openshift-config-managed', name: 'etc-pki-entitlement' } as const;

/**
 * Repository definitions and their GPG keys for RUN steps (e.g. Red Hat Satellite), which the
 * tenant creates in `HOSTED_NAMESPACE` under MCO's names: ConfigMap `etc-yum-repos-d` (files for
 * /etc/yum.repos.d) and Secret `etc-pki-rpm-gpg` (files for /etc/pki/rpm-gpg).
 */
export const YUM_REPOS_CONFIGMAP = 'etc-yum-repos-d';
export const RPM_GPG_SECRET = 'etc-pki-rpm-gpg';

/** Default identity of the controller in the hosted cluster (its own ServiceAccount there). */
export const CONTROLLER_SERVICE_ACCOUNT = 'on-cluster-build-controller';
export const CONTROLLER_USERNAME = `system:serviceaccount:${HOSTED_NAMESPACE}:${CONTROLLER_SERVICE_ACCOUNT}`;
/** The same ServiceAccount as a reference (the builder's --service-account-* defaults; the package's RBAC subjects). */
export const CONTROLLER_SERVICE_ACCOUNT_REF = { namespace: HOSTED_NAMESPACE, name: CONTROLLER_SERVICE_ACCOUNT } as const;

export const IMAGE_BUILDER_TYPES = ['Job'] as const;
export type ImageBuilderType = (typeof IMAGE_BUILDER_TYPES)[number];

/** Same enum as MachineOSConfig v1 `containerfileArch`. */
export const CONTAINERFILE_ARCHES = ['ARM64', 'AMD64', 'PPC64LE', 'S390X', 'NoArch'] as const;
export type ContainerfileArch = (typeof CONTAINERFILE_ARCHES)[number];
export const DEFAULT_CONTAINERFILE_ARCH: ContainerfileArch = 'NoArch';

/** The stage every Containerfile must define; the build appends the rendered configs as `configs`. */
export const FINAL_STAGE = 'FROM configs AS final';

export const LIMITS = {
  /** Same as MachineOSConfig v1 renderedImagePushSpec / currentImagePullSpec. */
  imageSpec: 447,
  containerFileItems: 4,
  containerFileContent: 4096,
  /** DNS-1123 subdomain. */
  name: 253,
  conditions: 8,
  relatedObjects: 16,
  conditionMessage: 32768,
  conditionReason: 1024,
  conditionType: 316,
} as const;

/** NodePoolOSBuild condition types (the MachineOSBuild v1 set). */
export const BUILD_CONDITION_TYPES = ['Prepared', 'Building', 'Succeeded', 'Failed', 'Interrupted'] as const;
export type BuildConditionType = (typeof BUILD_CONDITION_TYPES)[number];

/** Length of the inputs hash in a NodePoolOSBuild name `<config>-<hash>`. */
export const BUILD_NAME_HASH_LENGTH = 10;

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [key: string]: unknown;
}

/** metav1.Condition. */
export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface NameRef {
  name: string;
}

export interface ContainerFile {
  containerfileArch?: ContainerfileArch;
  content: string;
}

export interface NodePoolOSConfigSpec {
  nodePool: NameRef;
  imageBuilder: { imageBuilderType: ImageBuilderType };
  baseImagePullSecret?: NameRef;
  renderedImagePushSecret: NameRef;
  renderedImagePushSpec: string;
  containerFile?: ContainerFile[];
}

/** group/resource/name of an object, as MachineOSConfig's `machineOSBuild` reference. */
export interface ObjectReference {
  group: string;
  resource: string;
  namespace?: string;
  name: string;
}

export interface NodePoolOSConfigStatus {
  conditions?: Condition[];
  observedGeneration?: number;
  currentImagePullSpec?: string;
  nodePoolOSBuild?: ObjectReference;
}

export interface NodePoolOSConfig {
  apiVersion: typeof API_VERSION;
  kind: typeof CONFIG_KIND;
  metadata: ObjectMeta;
  spec: NodePoolOSConfigSpec;
  status?: NodePoolOSConfigStatus;
}

export interface NodePoolOSBuildSpec {
  nodePoolOSConfig: NameRef;
  nodePool: NameRef;
  /** The NodePool's release image (pullspec with digest). */
  releaseImage: string;
  /** The release's rhel-coreos image the build starts from. */
  baseOSImage: string;
  renderedImagePushSpec: string;
}

export interface NodePoolOSBuildStatus {
  conditions?: Condition[];
  builder?: {
    imageBuilderType: ImageBuilderType;
    job?: { group: 'batch'; resource: 'jobs'; namespace: string; name: string };
  };
  buildStart?: string;
  buildEnd?: string;
  digestedImagePushSpec?: string;
  relatedObjects?: ObjectReference[];
}

export interface NodePoolOSBuild {
  apiVersion: typeof API_VERSION;
  kind: typeof BUILD_KIND;
  metadata: ObjectMeta;
  spec: NodePoolOSBuildSpec;
  status?: NodePoolOSBuildStatus;
}

/**
 * Longest NodePool (and so NodePoolOSConfig) name: the build Job is `build-<config>-<10 hex>` and a
 * Job's name must fit a 63-character label value (`batch.kubernetes.io/job-name`).
 */
export const NODE_POOL_NAME_MAX = 63 - 'build-'.length - 1 - BUILD_NAME_HASH_LENGTH;

/*
 * Patterns shared by the CRDs (OpenAPI `pattern`, CEL `matches`, both RE2) and the webhook
 * (JavaScript). Each uses only syntax the two engines read the same way.
 */
export const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const HOST = '([a-zA-Z0-9-]+\\.)+[a-zA-Z0-9-]+(:[0-9]{2,5})?';
/** An OCI tag: at most 128 characters (distribution spec). */
const TAG = '[a-zA-Z0-9_][a-zA-Z0-9_.-]{0,127}';
/** MachineOSConfig v1's push spec rule (host with a dot, optional port, path, name, tag) with a bounded tag. */
export const PUSH_SPEC_RE = new RegExp(`^${HOST}(/[a-zA-Z0-9_-]{1,61})*/[a-zA-Z0-9_.-]+:${TAG}$`);
export const DIGESTED_PULL_SPEC_RE = new RegExp(`^${HOST}(/[a-zA-Z0-9_.-]+)+@sha256:[a-f0-9]{64}$`);
/** Any image reference by tag and/or digest (a NodePool's release image may be either). */
export const IMAGE_REF_RE = new RegExp(`^${HOST}(/[a-zA-Z0-9_.-]+)+(:${TAG})?(@sha256:[a-f0-9]{64})?$`);

/**
 * The line `FROM configs AS final` (instruction keywords case-insensitive, as in Containerfiles);
 * the build supplies the `configs` stage and ships the `final` one.
 */
export const FINAL_STAGE_RE = /(^|\n)[ \t]*[Ff][Rr][Oo][Mm][ \t]+configs[ \t]+[Aa][Ss][ \t]+final[ \t]*(\r?\n|$)/;

