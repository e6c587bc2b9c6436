/**
 * The package config schema (what differs per hosted control plane and is supplied by the
 * rollout) and the template test contexts.
 */
import type { JSONSchemaProps, PackageManifestTestCaseTemplate } from '../src/pko/types.js';

const DIGEST_REF = '^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*@sha256:[a-f0-9]{64}$';
const DNS1123_SUBDOMAIN = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$';

export const configSchema: JSONSchemaProps = {
  type: 'object',
  description: 'Per-hosted-control-plane settings of on-cluster OS image builds, filled in by the rollout ObjectTemplate.',
  required: ['machineOSBuilderImage', 'webhookImage', 'serviceCA', 'finalImagePushSecretName', 'finalImagePullspec'],
  properties: {
    machineOSBuilderImage: {
      type: 'string',
      description: "Image of the machine-os-builder controller (the hosted cluster release's machine-config-operator image), by digest.",
      pattern: DIGEST_REF,
    },
    webhookImage: {
      type: 'string',
      description: 'Image of the admission webhook server, by digest.',
      pattern: DIGEST_REF,
    },
    serviceCA: {
      type: 'string',
      description: "PEM bundle of the management cluster's service CA, which signs the webhook serving certificate; the rollout copies it from ConfigMap openshift-service-ca.crt.",
      minLength: 1,
    },
    finalImagePushSecretName: {
      type: 'string',
      description: 'Secret in the HCP namespace with credentials to push the built OS image.',
      pattern: DNS1123_SUBDOMAIN,
      maxLength: 253,
    },
    finalImagePullspec: {
      type: 'string',
      description: 'Repository the built OS image is pushed to (tag or digest is set per build).',
      minLength: 1,
    },
    baseImagePullSecretName: {
      type: 'string',
      description: "Secret in the HCP namespace with credentials to pull the base OS image; defaults to the HCP's pull-secret.",
      pattern: DNS1123_SUBDOMAIN,
      maxLength: 253,
      default: 'pull-secret',
    },
    imageBuilderType: {
      type: 'string',
      description: 'How images are built; Job is the only builder that runs under the restricted pod security profile of HCP namespaces.',
      enum: ['Job'],
      default: 'Job',
    },
    customContainerfiles: {
      type: 'object',
      description: 'Containerfile content appended to the OS image build, keyed by pool name.',
      additionalProperties: { type: 'string', description: 'Containerfile content for one pool.' },
      default: {},
    },
  },
};

const SERVICE_CA = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIUTESTONLYTESTONLYTESTONLYTESTONLYwCgYIKoZIzj0E\n-----END CERTIFICATE-----\n';
const MOB_IMAGE = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + '1'.repeat(64);
const WEBHOOK_IMAGE = 'quay.io/app-sre/on-cluster-build-webhook@sha256:' + '2'.repeat(64);

export const testCases: PackageManifestTestCaseTemplate[] = [
  {
    name: 'hcp-typical',
    context: {
      package: { metadata: { name: 'on-cluster-build', namespace: 'clusters-banana' } },
      config: {
        machineOSBuilderImage: MOB_IMAGE,
        webhookImage: WEBHOOK_IMAGE,
        serviceCA: SERVICE_CA,
        finalImagePushSecretName: 'os-image-push',
        finalImagePullspec: 'quay.io/example/banana-os',
        baseImagePullSecretName: 'pull-secret',
        imageBuilderType: 'Job',
        customContainerfiles: {
          worker: 'FROM configs AS final\nRUN dnf install -y tmux && dnf clean all\n',
          infra: 'FROM configs AS final\nRUN echo "infra" > /etc/pool\n',
        },
      },
      environment: {
        kubernetes: { version: 'v1.31.4' },
        openShift: { version: '4.18.9' },
        hyperShift: {
          hostedCluster: {
            metadata: { name: 'banana', namespace: 'clusters' },
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
        machineOSBuilderImage: MOB_IMAGE,
        webhookImage: WEBHOOK_IMAGE,
        serviceCA: SERVICE_CA,
        finalImagePushSecretName: 'os-image-push',
        finalImagePullspec: 'quay.io/example/apple-os',
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
