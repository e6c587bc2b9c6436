/**
 * The admission webhooks: a data-driven registry of webhook configurations (any number of
 * webhooks each), the server that backs them in the HCP namespace, and the
 * ValidatingWebhookConfigurations registered in the hosted cluster (one home for the paths:
 * builder/webhook/server.ts).
 */
import { hypershift, type KubeObject, type PackageObject } from '../src/index.js';

const { ALLOW_GUEST_WEBHOOKS, hcpDeployment, hcpWebhookClientConfig, INJECT_CABUNDLE_ANNOTATION, SERVING_CERT_ANNOTATION } = hypershift;
import { API_GROUP, API_VERSION } from '../builder/controller/reconciler.js';
import { WEBHOOK_PATHS } from '../builder/webhook/server.js';
import { IMAGE } from './builder-controller.js';

export const WEBHOOK_SERVER = 'on-cluster-build-webhook';
export const SERVING_CERT_SECRET = `${WEBHOOK_SERVER}-serving-cert`;
const SERVER_PORT = 8443;

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface RuleSpec {
  apiGroups: string[];
  apiVersions: string[];
  operations: ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*')[];
  resources: string[];
  scope: 'Cluster' | 'Namespaced' | '*';
}

export interface WebhookSpec {
  /** Fully qualified webhook name (at least three DNS labels). */
  name: string;
  /** URL path on the webhook server. */
  path: string;
  rules: RuleSpec[];
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: 'None' | 'NoneOnDryRun';
  timeoutSeconds: number;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

export interface WebhookConfigurationSpec {
  name: string;
  webhooks: WebhookSpec[];
}

/**
 * What the registry guards in the hosted cluster: our own API, the only kinds users give us.
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
        rules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: ['nodepoolosconfigs'], scope: 'Cluster' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 5,
      },
      {
        name: `nodepoolosbuilds.${API_GROUP}`,
        path: WEBHOOK_PATHS.nodePoolOSBuilds,
        rules: [{ apiGroups: [API_GROUP], apiVersions: [API_VERSION], operations: ['CREATE', 'UPDATE'], resources: ['nodepoolosbuilds'], scope: 'Cluster' }],
        failurePolicy: 'Fail',
        sideEffects: 'None',
        timeoutSeconds: 5,
      },
    ],
  },
];

/** Names and paths must be unique and well-formed; a bad registry fails generation. */
export function checkRegistry(registry: WebhookConfigurationSpec[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const paths = new Set<string>();
  const configs = new Set<string>();
  for (const c of registry) {
    if (configs.has(c.name)) problems.push(`webhook configuration ${c.name} is registered twice`);
    configs.add(c.name);
    if (c.webhooks.length === 0) problems.push(`webhook configuration ${c.name} has no webhooks`);
    for (const w of c.webhooks) {
      if (w.name.split('.').length < 3) problems.push(`webhook ${w.name}: name must be fully qualified (at least three DNS labels)`);
      if (names.has(w.name)) problems.push(`webhook ${w.name} is registered twice`);
      names.add(w.name);
      if (!w.path.startsWith('/')) problems.push(`webhook ${w.name}: path must start with "/"`);
      if (paths.has(w.path)) problems.push(`webhook ${w.name}: path ${w.path} is used twice`);
      paths.add(w.path);
      if (w.rules.length === 0) problems.push(`webhook ${w.name} has no rules`);
      if (w.timeoutSeconds < 1 || w.timeoutSeconds > 30) problems.push(`webhook ${w.name}: timeoutSeconds must be 1..30`);
    }
  }
  return problems;
}

export function webhookConfiguration(c: WebhookConfigurationSpec): KubeObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: {
      name: c.name,
      // The hosted cluster's own service-ca must not replace the management cluster's CA.
      annotations: { [INJECT_CABUNDLE_ANNOTATION]: 'false' },
    },
    webhooks: c.webhooks.map((w) => ({
      name: w.name,
      admissionReviewVersions: ['v1'],
      clientConfig: hcpWebhookClientConfig(WEBHOOK_SERVER, w.path, 'serviceCA'),
      failurePolicy: w.failurePolicy,
      matchPolicy: 'Equivalent',
      namespaceSelector: w.namespaceSelector as never,
      objectSelector: w.objectSelector as never,
      rules: w.rules as never,
      sideEffects: w.sideEffects,
      timeoutSeconds: w.timeoutSeconds,
    })),
  };
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
