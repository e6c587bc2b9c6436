/**
 * The fleet package's config (one ClusterPackage per management cluster, filled in by its rollout
 * Template) and its template test cases. What the provider decides for the whole fleet: the
 * provider layer (a Containerfile, or an image built elsewhere), the repository provider-layered
 * images are pushed to, how long the upgrade gate may hold a NodePool, and how hand-offs roll out
 * over the fleet (`rollout`). Whether a hosted cluster may add a tenant layer is not the fleet's:
 * the per-HCP package renders it from the HostedCluster's annotation (builder/policy/layers.ts
 * TENANT_LAYER_ANNOTATION), else its own `tenantLayerDefault`.
 */
import type { JSONSchemaProps, PackageManifestTestCaseTemplate } from 'pkogen';

export const DIGEST_REF = '^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*@sha256:[a-f0-9]{64}$';
/** A repository without tag or digest (`host[:port]/path`): pushes go to `<repository>@sha256:…` and `<repository>:ocb-…`. */
export const REPOSITORY = '^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)+$';
/** The provider layer's largest Containerfile: it is a ConfigMap key (1 MiB object limit) and a Template parameter. */
export const MAX_LAYER_BYTES = 65536;

export const fleetConfigSchema: JSONSchemaProps = {
  type: 'object',
  description:
    "Settings of the on-cluster-build fleet component on one management cluster, filled in by its rollout Template. Exactly one of providerLayer (a Containerfile the component builds once per release, arch and stream) and providerImage (an image built elsewhere, by digest) is non-empty.",
  required: ['image', 'providerRepository'],
  properties: {
    image: {
      type: 'string',
      description: 'Image of the on-cluster-build fleet component (this repository), by digest.',
      pattern: DIGEST_REF,
    },
    providerRepository: {
      type: 'string',
      description: "Repository the provider-layered images are pushed to (host/path, no tag or digest). Only the fleet component may push there: its credentials are Secret provider-push in the fleet namespace, made by the provider.",
      pattern: REPOSITORY,
      maxLength: 255,
    },
    providerLayer: {
      type: 'string',
      description: "The provider layer as Containerfile text (its FROM is replaced by each release's OS image). Empty when providerImage is set.",
      maxLength: MAX_LAYER_BYTES,
      default: '',
    },
    providerImage: {
      type: 'string',
      description: 'A provider-layered image built elsewhere, by digest. Empty when providerLayer is set.',
      pattern: `^$|${DIGEST_REF}`,
      default: '',
    },
    providerTrustBundleConfigMap: {
      type: 'string',
      description:
        "Name of a ConfigMap in the fleet namespace, made by the provider, whose key ca-bundle.crt (PEM) the provider builds trust besides the system CAs for pulling the release's OS image and pushing to providerRepository (a registry signed by a private CA). Read at each build. Empty: none.",
      pattern: '^$|^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$',
      default: '',
    },
    buildPlacement: {
      type: 'string',
      description:
        'Where provider builds run, per architecture, as JSON (builder/fleet/placement.ts): {"arm64":{"nodeSelector":{"node-role.kubernetes.io/builder":""},"tolerations":[{"key":"builder","operator":"Exists","effect":"NoSchedule"}]}}. A build Job selects kubernetes.io/arch=<arch> and these labels, and tolerates these taints; an architecture with a placement counts as buildable even when no management Node of it exists yet (an autoscaled pool). Empty: builds run on any management Node of the architecture. A JSON string because Template parameters are strings; the fleet component checks it when it starts and a bad one stops it, naming the field.',
      // One line without single quotes: it is rendered into a single-quoted Deployment argument.
      pattern: "^[^'\\n\\r]*$",
      maxLength: 16384,
      default: '',
    },
    maxHoldSeconds: {
      type: 'integer',
      description: "Longest the upgrade gate holds one NodePool for one release (spec.pausedUntil) while its image is built; at the bound the hold is lifted and the NodePool rolls with the old image, then again when the new one lands.",
      minimum: 300,
      maximum: 86400,
      default: 3600,
    },
    rollout: {
      type: 'string',
      description:
        'How hand-offs of the provider layer roll out over the fleet, as JSON (docs/design/fleet-rollout.md; modelled on open-cluster-management RolloutStrategy). {"type":"RideReleaseChange"} (default): a new layer reaches each NodePool with its own next release change, no extra rollout. {"type":"Progressive","canaries":[<HostedCluster label selector>],"maxConcurrency":50,"maxConcurrencyPerHostedCluster":1,"maxFailures":3,"minSuccessTime":"30m","progressDeadline":"2h"}: the NodePools of canary HostedClusters first, tolerating no failure, then a sliding window of maxConcurrency (a number or "10%"), halting when more than maxFailures fail. maxConcurrency (default 50), maxConcurrencyPerHostedCluster (default 1) and progressDeadline (default 2h, or "None") bound every hand-off in both types, installation included. A JSON string because Template parameters are strings; the fleet component checks it when it starts and a bad policy stops it, naming the field.',
      // One line without single quotes: it is rendered into a single-quoted Deployment argument.
      pattern: "^[^'\\n\\r]*$",
      maxLength: 65536,
      default: '{"type":"RideReleaseChange"}',
    },
  },
};

const FLEET_IMAGE = 'quay.io/app-sre/on-cluster-build@sha256:' + '3'.repeat(64);
const LAYER = 'FROM configs\nRUN dnf install -y provider-agent && dnf clean all\nCOPY --from=configs /etc/provider /etc/provider\n';

export const fleetTestCases: PackageManifestTestCaseTemplate[] = [
  {
    name: 'fleet-layer',
    context: {
      package: { metadata: { name: 'on-cluster-build-fleet', namespace: '' } },
      config: {
        image: FLEET_IMAGE,
        providerRepository: 'quay.io/provider/os-layered',
        providerLayer: LAYER,
        providerTrustBundleConfigMap: 'provider-registry-ca',
        buildPlacement: '{"arm64":{"nodeSelector":{"node-role.kubernetes.io/builder":""},"tolerations":[{"key":"builder","operator":"Exists","effect":"NoSchedule"}]}}',
      },
      // A management cluster: OpenShift 4.17 (Kubernetes 1.30) is the oldest with ValidatingAdmissionPolicy v1.
      environment: { kubernetes: { version: 'v1.30.7' }, openShift: { version: '4.17.10' } },
    },
  },
  {
    name: 'fleet-prebuilt-image',
    context: {
      package: { metadata: { name: 'on-cluster-build-fleet', namespace: '' } },
      config: {
        image: FLEET_IMAGE,
        providerRepository: 'registry.example.com:5000/provider/os',
        providerImage: 'registry.example.com:5000/provider/os@sha256:' + '4'.repeat(64),
        maxHoldSeconds: 7200,
        rollout: '{"type":"Progressive","canaries":[{"matchLabels":{"provider.example.com/ring":"canary"}}],"maxConcurrency":50,"maxConcurrencyPerHostedCluster":1,"maxFailures":3,"minSuccessTime":"30m","progressDeadline":"2h"}',
      },
      environment: { kubernetes: { version: 'v1.31.4' }, openShift: { version: '4.18.9' } },
    },
  },
];
