/**
 * The admission webhooks: a data-driven registry of webhook configurations (any number of
 * webhooks each), the server that backs them in the HCP namespace, and the
 * ValidatingWebhookConfigurations registered in the hosted cluster (one home for the paths:
 * builder/api/types.ts).
 */
import { hcpWebhookConfiguration, hypershift, type KubeObject, type PackageObject, type WebhookConfigurationSpec } from '../src/index.js';

const { ALLOW_GUEST_WEBHOOKS, hcpDeployment, SERVING_CERT_ANNOTATION } = hypershift;
// The API's constants only: builder/controller and builder/webhook load the Kubernetes client and
// the server, which generating the package does not need.
import { GROUP as API_GROUP, VERSION as API_VERSION, WEBHOOK_PATHS } from '../builder/api/types.js';
import { IMAGE } from './builder-controller.js';

export const WEBHOOK_SERVER = 'on-cluster-build-webhook';
export const SERVING_CERT_SECRET = `${WEBHOOK_SERVER}-serving-cert`;
const SERVER_PORT = 8443;

/**
 * What the registry guards in the hosted cluster: our own API, the only kinds users give us, with
 * their status subresources (docs/design.md: status is the controller's to write; a rule on
 * `nodepoolosbuilds` alone does not match `nodepoolosbuilds/status`).
 * Both with `Fail`: an unvalidated config or a forged build record must never be admitted. The
 * hosted-cluster phase that registers them comes after the deploy phase, whose probe needs every
 * webhook replica available.
 */
export const webhookRegistry: WebhookConfigurationSpec[] = [
  {
    name: 'on-cluster-build',
    webhooks: [
      {
        name: `nodepoolosconfigs.${API_GROUP}`,
        path: WEBHOOK_PATHS.nodePoolOSConfigs,
        rules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: ['nodepoolosconfigs', 'nodepoolosconfigs/status'], scope: 'Cluster' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 5,
      },
      {
        name: `nodepoolosbuilds.${API_GROUP}`,
        path: WEBHOOK_PATHS.nodePoolOSBuilds,
        rules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: ['nodepoolosbuilds', 'nodepoolosbuilds/status'], scope: 'Cluster' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 5,
      },
    ],
  },
];

export function webhookConfiguration(c: WebhookConfigurationSpec): KubeObject {
  return hcpWebhookConfiguration(c, { service: WEBHOOK_SERVER, caConfigKey: 'serviceCA' });
}

/** The webhook server's args: every one is a flag of `on-cluster-build webhook` (tested with its parser). */
export function webhookArgs(): string[] {
  return ['webhook', `--port=${SERVER_PORT}`, '--tls-cert-file=/var/run/serving-cert/tls.crt', '--tls-private-key-file=/var/run/serving-cert/tls.key'];
}

export function webhookServer(): PackageObject[] {
  const labels = { app: WEBHOOK_SERVER };
  const deployment = hcpDeployment({
    name: WEBHOOK_SERVER,
    // Two replicas in different zones: a Fail-policy webhook must survive a node or a zone.
    replicas: 2,
    spreadOverZones: true,
    // With one replica per zone there may be no zone left for a surge pod.
    maxSurge: 0,
    maxUnavailable: 1,
    serviceAccountName: WEBHOOK_SERVER,
    // It reads nothing from any API server: no token, no management KAS access, no kubeconfig.
    automountServiceAccountToken: false,
    managementKasAccess: false,
    containers: [
      {
        name: 'webhook',
        image: IMAGE,
        command: ['/usr/local/bin/on-cluster-build'],
        args: webhookArgs(),
        ports: [{ name: 'https', containerPort: SERVER_PORT, protocol: 'TCP' }],
        volumeMounts: [{ name: 'serving-cert', mountPath: '/var/run/serving-cert', readOnly: true }],
        resources: { requests: { cpu: '10m', memory: '50Mi' }, limits: { memory: '256Mi' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 'https', scheme: 'HTTPS' }, initialDelaySeconds: 10, periodSeconds: 30 },
        readinessProbe: { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' }, initialDelaySeconds: 5, periodSeconds: 10 },
      },
    ],
    volumes: [{ name: 'serving-cert', secret: { secretName: SERVING_CERT_SECRET, defaultMode: 0o440 } }],
  });
  return [
    {
      phase: 'rbac',
      object: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: WEBHOOK_SERVER, labels },
        automountServiceAccountToken: false,
      },
    },
    { phase: 'deploy', object: deployment },
    {
      phase: 'deploy',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: {
          name: WEBHOOK_SERVER,
          // service-ca on the management cluster issues the serving certificate.
          annotations: { [SERVING_CERT_ANNOTATION]: SERVING_CERT_SECRET },
          // Puts the Service on HyperShift's allow-list of guest webhook backends.
          labels: { ...labels, [ALLOW_GUEST_WEBHOOKS]: 'true' },
        },
        spec: {
          type: 'ClusterIP',
          selector: labels,
          ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 'https' }],
        },
      },
    },
    {
      phase: 'deploy',
      object: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: WEBHOOK_SERVER, labels },
        spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
      },
    },
  ];
}

export function webhookConfigurations(registry: WebhookConfigurationSpec[] = webhookRegistry): PackageObject[] {
  return registry.map((c) => ({ phase: 'hosted-webhooks', object: webhookConfiguration(c) }));
}
