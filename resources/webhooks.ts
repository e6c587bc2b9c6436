/**
 * The admission webhooks: a data-driven registry of webhook configurations (any number of
 * webhooks each), the server that backs them in the HCP namespace, and the
 * ValidatingWebhookConfigurations registered in the hosted cluster (one home for the paths:
 * builder/api/types.ts).
 */
import { TENANT_LAYER_TEMPLATE } from '../builder/policy/layers.js';
import { hcpWebhookConfiguration, hypershift, type KubeObject, type PackageObject, type WebhookConfigurationSpec } from 'pkogen';

const { ALLOW_GUEST_WEBHOOKS, hcpDeployment, SERVING_CERT_ANNOTATION } = hypershift;
// The API's constants only: builder/controller and builder/webhook load the Kubernetes client and
// the server, which generating the package does not need.
import { GROUP as API_GROUP, PULL_KEYS_CONFIGMAP, VERSION as API_VERSION, WEBHOOK_PATHS } from '../builder/api/types.js';
import { IMAGE } from './config.js';
import { metricsServing } from './monitoring.js';

export const WEBHOOK_SERVER = 'on-cluster-build-webhook';
export const SERVING_CERT_SECRET = `${WEBHOOK_SERVER}-serving-cert`;
const SERVER_PORT = 8443;

/**
 * What the registry guards in the hosted cluster: our own API, the only kinds users give us, with
 * their status subresources (docs/design/api-and-admission.md: status is the controller's to write; a rule on
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

/**
 * The serving flags every admission replica takes (`webhook` and `control-plane`): its port and
 * the service-ca certificate. Every one is a flag of both commands (tested with their parsers).
 */
export function servingArgs(): string[] {
  return [`--port=${SERVER_PORT}`, '--tls-cert-file=/var/run/serving-cert/tls.crt', '--tls-private-key-file=/var/run/serving-cert/tls.key'];
}

/** The webhook server's args: every one is a flag of `on-cluster-build webhook` (tested with its parser). */
export function webhookArgs(): string[] {
  return ['webhook', ...servingArgs(), `--tenant-layer=${TENANT_LAYER_TEMPLATE}`, ...WEBHOOK_METRICS.args];
}

/**
 * Admission is served by two Deployments' pods: the controller's (`control-plane`, which also runs
 * the loop) and the webhook's (`webhook`, no credentials). This label is on both pod templates:
 * the Service, the PodDisruptionBudget and the node anti-affinity select it.
 */
export const ADMISSION_LABELS = { 'on-cluster-build.pkogen.io/admission': 'serving' } as const;

/** The port, mounts and volumes an admission replica needs, whichever Deployment it is in. */
export const SERVING_PORT = { name: 'https', containerPort: SERVER_PORT, protocol: 'TCP' as const };
export const SERVING_MOUNTS = [
  { name: 'serving-cert', mountPath: '/var/run/serving-cert', readOnly: true },
  // The pull secret's auth keys (no credentials), published by the controller; the default of --pull-keys-file.
  { name: 'pull-keys', mountPath: PULL_KEYS_CONFIGMAP.mountDir, readOnly: true },
];
export const SERVING_VOLUMES = [
  { name: 'serving-cert', secret: { secretName: SERVING_CERT_SECRET, defaultMode: 0o440 } },
  // Optional: a replica starts before the controller first publishes it (then push targets are checked in status only).
  { name: 'pull-keys', configMap: { name: PULL_KEYS_CONFIGMAP.name, optional: true, defaultMode: 0o444 } },
];
/** Ready once the HTTPS server answers: the Service sends admissions only to such a replica. */
export const SERVING_READINESS = { httpGet: { path: '/readyz', port: 'https', scheme: 'HTTPS' as const }, initialDelaySeconds: 5, periodSeconds: 10 };

/**
 * Puts an admission Deployment's pods behind the admission Service: the label, and HyperShift's
 * spread for HA components (defaults.go setMultizoneSpread) over every admission pod of either
 * Deployment: on different nodes (required) and in different zones *preferred*: HyperShift
 * requires zones except on OpenStack and KubeVirt, a platform the package cannot see; preferred
 * never leaves a replica Pending on a single-zone management cluster. Changes and returns `d`.
 */
export function asAdmissionReplica(d: KubeObject): KubeObject {
  const template = (d.spec as Record<string, Record<string, Record<string, unknown>>>).template!;
  template.metadata!.labels = { ...(template.metadata!.labels as Record<string, string>), ...ADMISSION_LABELS };
  const pod = template.spec as Record<string, Record<string, unknown>>;
  pod.affinity = {
    ...pod.affinity,
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: { ...ADMISSION_LABELS } }, topologyKey: 'topology.kubernetes.io/zone' } }],
      requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { ...ADMISSION_LABELS } }, topologyKey: 'kubernetes.io/hostname' }],
    },
  };
  return d;
}

/** /metrics of the webhook, scraped as the controller's (resources/monitoring.ts). */
export const WEBHOOK_METRICS = metricsServing({ name: WEBHOOK_SERVER, port: 9443, clientCA: { configMap: 'client-ca', key: 'ca.crt', file: 'ca.crt' } });

/**
 * The package config key that carried the hosted control plane's availability policy
 * (HostedControlPlane `spec.controllerAvailabilityPolicy`) for the number of webhook replicas.
 * Admission is now served by the controller's pod and one webhook pod whatever the policy (two
 * replicas on two nodes: the webhook's failure policy is `Fail`), so the key is read by nothing; it
 * stays in the schema so that configs which set it still validate.
 */
export const AVAILABILITY_POLICY_KEY = 'webhookAvailabilityPolicy';

/**
 * Memory, from docs/benchmarks.md "Webhook" (test/bench/webhook.ts, Node 24.21): with `--jitless`
 * idle 57.7 MiB, 69 MiB after 10,000 admissions at 500/s, 75-76 MiB with 100 stalled 3 MiB bodies,
 * and 168-178 MiB peak when the in-flight budget's worth of maximum-size bodies (4 x 3 MiB of the
 * smallest JSON values) is parsed at once (with the JIT: 60 / 91 / 99 MiB, and 199 MiB for the last
 * with the old 96 MB old-space cap, above the old 160Mi limit). Of the RSS, ~40 MiB are clean pages of the node executable
 * (shared by every container of the image on a node; a bare HTTPS server is 52-54 MiB), so idle
 * <= 50 MiB is out of reach on this runtime. Request = the loaded RSS rounded up (72Mi); limit =
 * the parse peak with headroom (208Mi). V8's old space is capped at 80 MB: the live heap of one
 * parsed pathological body is ~55 MB (a 48 MB cap crashed on it), and the cap keeps the heap
 * collecting below the limit. `--jitless` (the interpreter only; the webhook uses no
 * WebAssembly) saves ~22 MiB after load (8 MiB of compiler code, the rest JIT code and its
 * metadata) for ~1.8x the CPU per admission (0.64-0.96 ms against 0.36-0.42 ms here).
 */
export const WEBHOOK_RESOURCES = { requests: { cpu: '10m', memory: '72Mi' }, limits: { memory: '208Mi' } };
export const WEBHOOK_NODE_OPTIONS = '--max-old-space-size=80 --max-semi-space-size=4 --jitless';

/**
 * The second admission replica: one `webhook` pod, which holds no credential and calls no API. The
 * first is the controller's pod (`control-plane`, resources/builder-controller.ts); the Service,
 * the PodDisruptionBudget and the anti-affinity span both (ADMISSION_LABELS).
 */
export function webhookServer(): PackageObject[] {
  const labels = { app: WEBHOOK_SERVER };
  const deployment = hcpDeployment({
    name: WEBHOOK_SERVER,
    replicas: 1,
    // Zone spread is set by asAdmissionReplica (preferred, not required).
    spreadOverZones: false,
    // With one replica a surge pod keeps admission at two replicas during a rollout (it needs a
    // third node: the anti-affinity is required).
    maxSurge: 1,
    maxUnavailable: 0,
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
        ports: [SERVING_PORT, WEBHOOK_METRICS.port],
        volumeMounts: [...WEBHOOK_METRICS.volumeMounts, ...SERVING_MOUNTS],
        env: [{ name: 'NODE_OPTIONS', value: WEBHOOK_NODE_OPTIONS }],
        resources: WEBHOOK_RESOURCES,
        livenessProbe: { httpGet: { path: '/healthz', port: 'https', scheme: 'HTTPS' }, initialDelaySeconds: 10, periodSeconds: 30 },
        readinessProbe: SERVING_READINESS,
      },
    ],
    volumes: [...WEBHOOK_METRICS.volumes, ...SERVING_VOLUMES],
  });
  asAdmissionReplica(deployment);
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
          // Every admission replica: the controller's pod and the webhook's.
          selector: { ...ADMISSION_LABELS },
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
        // Over both admission replicas (two Deployments: the disruption controller sums the
        // expected pods of each pod's owner), as HyperShift's AdaptPodDisruptionBudget for HA
        // components (controlplane-component/common.go): maxUnavailable 1, so a drain never takes
        // both; unhealthy pods may always be evicted.
        spec: {
          maxUnavailable: 1,
          selector: { matchLabels: { ...ADMISSION_LABELS } },
          unhealthyPodEvictionPolicy: 'AlwaysAllow',
        },
      },
    },
  ];
}

export function webhookConfigurations(registry: WebhookConfigurationSpec[] = webhookRegistry): PackageObject[] {
  return registry.map((c) => ({ phase: 'hosted-webhooks', object: webhookConfiguration(c) }));
}
