/**
 * What the reconcile is given: the Reconciler's options, and the types of the seams it calls
 * (the release lookup, the registry check of a built image, the NodePool inputs read from token
 * Secrets). Its parts (observe.ts, decide.ts, gather.ts, act.ts) and the wiring (builder/wiring.ts) take
 * these from here, so none of them imports the driver (reconciler.ts).
 */
import type { BuildTelemetry } from '../metrics/controller.js';
import type { Kube, KubeObject } from '../clusters/kube.js';
import type { TenantLayer } from '../policy/layers.js';
import type { ReleaseImages as ResolvedRelease } from '../registry/release.js';
import type { IntakeLimits } from './intake.js';

/**
 * The part of a resolved release (builder/registry/release.ts, where its fields are defined) a
 * decision reads; the version decides which image carries buildah.
 */
export type ReleaseImages = Pick<ResolvedRelease, 'releaseDigest' | 'baseOSImage' | 'machineConfigOperatorImage' | 'version'>;

/** What a release resolve needs to know about the NodePool (the release engineer's `resolve(releaseImage, {arch, stream, pullSecret})`). */
export interface ResolveOptions {
  arch: string;
  /** The token Secret's `os-stream` (`rhel-9`, `rhel-10`), when it has one. */
  stream?: string;
  /** `.dockerconfigjson` of the HCP's pull secret (management side). */
  pullSecret?: string;
}

/** The registry check of a built image before any hand-off (the release engineer's `verifyBuiltImage`). */
export interface VerifyImageInput {
  /** `repo@sha256:…` as the build reported it. */
  pushRef: string;
  arch: string;
  /** The base the image must descend from. */
  baseImageRef: string;
  /** `.dockerconfigjson` to read the pushed image with (the push Secret). */
  credentials?: string;
  /** `.dockerconfigjson` to read the base image with (the HCP's pull secret, management side). */
  baseCredentials?: string;
}
export type VerifyImageResult = { ok: true } | { ok: false; reason: string };

export interface NodePoolInputs {
  nodePoolName: string;
  /** The NodePool's namespace on the management cluster (from the token Secret's annotation). */
  nodePoolNamespace: string;
  secretName: string;
  releaseImage: string;
  /** The NodePool's machine config. Not a build input: it never enters the image (see hash). */
  config?: string;
  osStream?: string;
}

export interface ReconcilerOptions {
  management: Kube;
  hosted: Kube;
  /** The HCP namespace (POD_NAMESPACE). */
  namespace: string;
  /** Hosted-cluster namespace builds run in (default `BUILD_NAMESPACE`). */
  buildNamespace?: string;
  resolveRelease: (releaseImage: string, o: ResolveOptions) => Promise<ReleaseImages>;
  verifyImage: (i: VerifyImageInput) => Promise<VerifyImageResult>;
  nodePoolInputs: (secrets: KubeObject[]) => Map<string, NodePoolInputs | { error: string }>;
  /** The webhook's own rules, so a config admitted while the webhook was not yet registered is still refused. */
  validateConfig: (config: KubeObject) => string[];
  /** The provider's switch (`--tenant-layer`, builder/policy/layers.ts); Disabled: every config is Degraded TenantLayerDisabled, nothing is built. */
  tenantLayer?: TenantLayer;
  /** Name of the HCP's pull secret (HyperShift: `pull-secret`, key `.dockerconfigjson`). */
  pullSecretName: string;
  activeDeadlineSeconds: number;
  backoffLimit: number;
  historyLimit: number;
  userNamespaces: boolean;
  /** Our own image (builder/Containerfile carries buildah): the builder for NodePools whose release's MCO image has none (before 4.17). */
  ownBuilderImage?: string;
  proxyEnv?: { name: string; value: string }[];
  /** Builds running at once per hosted cluster (default 3). */
  maxConcurrentBuilds?: number;
  /** Least time between two builds of one config (default 60 s): a tenant flipping inputs cannot start builds in a loop. */
  minRebuildIntervalSeconds?: number;
  /** Configs reconciled at once (default 4). */
  workers?: number;
  /** How many configs are acted on, and refused ones remembered (intake.ts; default `DEFAULT_LIMITS`). */
  intake?: Partial<IntakeLimits>;
  now?: () => Date;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Metrics and Events at the places a build starts, ends, is handed off or a config degrades (builder/metrics/controller.ts). */
  telemetry?: BuildTelemetry;
}
