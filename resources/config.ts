/**
 * The package config schema (what differs per hosted control plane and is supplied by the
 * rollout) and the template test contexts.
 */
import type { JSONSchemaProps, PackageManifestTestCaseTemplate } from 'pkogen';

const DIGEST_REF = '^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*@sha256:[a-f0-9]{64}$';

/** The image of the controller and the webhook server: ours, by digest, from the package config. */
export const IMAGE = '{{ .config.image }}';

export const configSchema: JSONSchemaProps = {
  type: 'object',
  description: 'Per-hosted-control-plane settings of on-cluster OS image builds, filled in by the rollout ObjectTemplate. What to build is not here: hosted-cluster admins ask for builds with NodePoolOSConfig objects, and each NodePool\'s images come from its own release.',
  required: ['image', 'serviceCA'],
  properties: {
    image: {
      type: 'string',
      description: 'Image of the on-cluster-build controller and webhook server (this repository), by digest.',
      pattern: DIGEST_REF,
    },
    serviceCA: {
      type: 'string',
      description: "PEM bundle of the management cluster's service CA, which signs the webhook serving certificate; the rollout copies it from ConfigMap openshift-service-ca.crt.",
      minLength: 1,
    },
    buildActiveDeadlineSeconds: {
      type: 'integer',
      description: 'Longest a build Job may run, in seconds (Job activeDeadlineSeconds).',
      minimum: 300,
      maximum: 86400,
      default: 3600,
    },
    buildHistoryLimit: {
      type: 'integer',
      description: 'Builds (Jobs on the management cluster, NodePoolOSBuilds in the hosted cluster) kept per NodePoolOSConfig.',
      minimum: 1,
      maximum: 20,
      default: 3,
    },
    webhookAvailabilityPolicy: {
      type: 'string',
      description: "Read by nothing (kept so that configs which set it still validate): admission is served by two replicas on two nodes whatever the hosted control plane's availability policy, the controller's pod and one webhook pod (the webhooks' failure policy is Fail).",
      enum: ['HighlyAvailable', 'SingleReplica'],
      default: 'HighlyAvailable',
    },
    tenantLayerDefault: {
      type: 'string',
      description: "Whether this hosted cluster's admins may add their own OS layer (NodePoolOSConfigs) when its HostedCluster carries no on-cluster-build.pkogen.io/tenant-layer annotation (Enabled or Disabled). Off by default: the provider opts hosted clusters in, per HostedCluster with the annotation or for all with this key.",
      enum: ['Enabled', 'Disabled'],
      default: 'Disabled',
    },
    buildUserNamespaces: {
      type: 'boolean',
      description: 'Run build pods in a user namespace (hostUsers: false), which rootless RUN steps need on runtimes that forbid nested namespaces otherwise; requires Kubernetes user namespace support on the management cluster.',
      default: false,
    },
  },
};

const SERVICE_CA = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUTESTONLYTESTONLYTESTONLYTESTONLYwCgYIKoZIzj0E\n-----END CERTIFICATE-----\n';
const TEST_IMAGE = 'quay.io/app-sre/on-cluster-build@sha256:' + '2'.repeat(64);

export const testCases: PackageManifestTestCaseTemplate[] = [
  {
    name: 'hcp-typical',
    context: {
      package: { metadata: { name: 'on-cluster-build', namespace: 'clusters-banana' } },
      config: {
        image: TEST_IMAGE,
        serviceCA: SERVICE_CA,
        buildActiveDeadlineSeconds: 7200,
        buildHistoryLimit: 5,
        buildUserNamespaces: true,
        webhookAvailabilityPolicy: 'SingleReplica',
      },
      environment: {
        kubernetes: { version: 'v1.31.4' },
        openShift: { version: '4.18.9' },
        hyperShift: {
          hostedCluster: {
            metadata: { name: 'banana', namespace: 'clusters', annotations: { 'on-cluster-build.pkogen.io/tenant-layer': 'Enabled' } },
            hostedClusterNamespace: 'clusters-banana',
            nodeSelector: { 'node-role.kubernetes.io/infra': '', 'topology.kubernetes.io/region': 'us-east-1' },
          },
        },
      },
    },
  },
  {
    name: 'proxy-required-only',
    context: {
      package: { metadata: { name: 'on-cluster-build', namespace: 'clusters-apple' } },
      config: {
        image: TEST_IMAGE,
        serviceCA: SERVICE_CA,
      },
      environment: {
        kubernetes: { version: 'v1.31.4' },
        proxy: { httpProxy: 'http://proxy.example.com:3128', httpsProxy: 'http://proxy.example.com:3128', noProxy: '.cluster.local,.svc,10.0.0.0/16' },
        hyperShift: {
          hostedCluster: {
            metadata: { name: 'apple', namespace: 'clusters' },
            hostedClusterNamespace: 'clusters-apple',
          },
        },
      },
    },
  },
];
