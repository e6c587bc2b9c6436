/**
 * How the provider's Prometheus scrapes our processes and what it pages on: per process a metrics
 * Service (its serving certificate from service-ca) and a ServiceMonitor presenting the scraper's
 * client certificate, as HyperShift's ServiceMonitors for control-plane components do
 * (openshift/hypershift control-plane-operator/controllers/hostedcontrolplane/v2/assets/
 * kube-apiserver/servicemonitor.yaml: scheme https, tlsConfig cert/keySecret `metrics-client`);
 * and the PrometheusRules. docs/design/observability.md has the decision and a runbook per alert.
 */
import { hypershift, type KubeObject, type PackageObject, type YamlValue } from 'pkogen';
import { METRICS, ROLLOUT_HALTED_METRIC } from '../builder/metrics/catalogue.js';

const { SERVING_CERT_ANNOTATION } = hypershift;

export const METRICS_PORT_NAME = 'metrics';
export const METRICS_CERT_DIR = '/var/run/metrics-serving-cert';
export const METRICS_CLIENT_CA_DIR = '/var/run/metrics-client-ca';

/** What a Deployment needs to serve /metrics: args, port, mounts, volumes. */
export function metricsServing(o: { name: string; port: number; clientCA: { configMap: string; key: string; file: string } }) {
  const secret = `${o.name}-metrics-serving-cert`;
  return {
    args: [`--metrics-port=${o.port}`, `--metrics-cert-dir=${METRICS_CERT_DIR}`, `--metrics-client-ca=${METRICS_CLIENT_CA_DIR}/${o.clientCA.file}`],
    port: { name: METRICS_PORT_NAME, containerPort: o.port, protocol: 'TCP' as const },
    volumeMounts: [
      { name: 'metrics-serving-cert', mountPath: METRICS_CERT_DIR, readOnly: true },
      { name: 'metrics-client-ca', mountPath: METRICS_CLIENT_CA_DIR, readOnly: true },
    ],
    volumes: [
      { name: 'metrics-serving-cert', secret: { secretName: secret, defaultMode: 0o440 } },
      { name: 'metrics-client-ca', configMap: { name: o.clientCA.configMap, items: [{ key: o.clientCA.key, path: o.clientCA.file }], defaultMode: 0o444 } },
    ],
    secret,
  };
}

/** The metrics Service (service-ca writes its serving certificate into `<name>-metrics-serving-cert`). */
export function metricsService(name: string, selector: Record<string, string>): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: `${name}-metrics`, labels: { app: name, 'app.kubernetes.io/component': 'metrics' }, annotations: { [SERVING_CERT_ANNOTATION]: `${name}-metrics-serving-cert` } },
    spec: { type: 'ClusterIP', selector, ports: [{ name: METRICS_PORT_NAME, port: 443, protocol: 'TCP', targetPort: METRICS_PORT_NAME }] },
  };
}

/**
 * A ServiceMonitor for one process. `client`: the Secret holding the scraper's client certificate
 * in this namespace (HyperShift: `metrics-client`, tls.crt/tls.key), or a scrape class that
 * injects it (OpenShift platform monitoring: `tls-client-certificate-auth`).
 */
export function serviceMonitor(name: string, namespace: string, client: { secret: string } | { scrapeClass: string }): KubeObject {
  const tlsConfig: Record<string, YamlValue> = {
    // service-ca's bundle, published in every namespace by OpenShift.
    ca: { configMap: { name: 'openshift-service-ca.crt', key: 'service-ca.crt' } },
    serverName: `${name}-metrics.${namespace}.svc`,
  };
  if ('secret' in client) {
    tlsConfig.cert = { secret: { name: client.secret, key: 'tls.crt' } };
    tlsConfig.keySecret = { name: client.secret, key: 'tls.key' };
  }
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'ServiceMonitor',
    metadata: { name, labels: { app: name } },
    spec: {
      ...('scrapeClass' in client ? { scrapeClass: client.scrapeClass } : {}),
      selector: { matchLabels: { app: name, 'app.kubernetes.io/component': 'metrics' } },
      namespaceSelector: { matchNames: [namespace] },
      endpoints: [{ port: METRICS_PORT_NAME, path: '/metrics', scheme: 'https', interval: '30s', tlsConfig }],
    },
  };
}

const n = (m: { name: string }) => m.name;

export interface AlertRule {
  alert: string;
  expr: string;
  for: string;
  labels: { severity: 'warning' | 'critical' };
  annotations: { summary: string; description: string; runbook: string };
}

/** Where each alert's runbook section is, in this repository (the project publishes no docs site). */
const RUNBOOK = 'docs/runbooks.md';
const rule = (alert: string, expr: string, forDuration: string, severity: 'warning' | 'critical', summary: string, description: string): AlertRule => ({
  alert,
  expr,
  for: forDuration,
  labels: { severity },
  annotations: { summary, description, runbook: `${RUNBOOK}#${alert.toLowerCase()}` },
});

/** Alerts on one hosted cluster's processes (evaluated per HCP namespace). */
export function hcpAlerts(): AlertRule[] {
  const finished = n(METRICS.buildsFinished);
  const admissions = n(METRICS.admissionRequests);
  return [
    rule(
      'OnClusterBuildBuildsFailing',
      `sum by (namespace) (increase(${finished}{result="Failed"}[1h])) >= 3 unless sum by (namespace) (increase(${finished}{result="Succeeded"}[1h])) > 0`,
      '15m',
      'warning',
      'OS image builds keep failing in {{ $labels.namespace }}',
      '{{ $value }} builds failed in the last hour in {{ $labels.namespace }} and none succeeded: its NodePools do not get their OS layer.',
    ),
    rule(
      'OnClusterBuildWebhookErrors',
      `sum by (namespace, service) (rate(${admissions}{result="Error"}[10m])) / sum by (namespace, service) (rate(${admissions}[10m])) > 0.1`,
      '10m',
      'warning',
      'The admission webhook {{ $labels.service }} answers errors',
      'More than 10% of admission requests to {{ $labels.service }} in {{ $labels.namespace }} got an HTTP error instead of a decision (the API server then applies the failurePolicy).',
    ),
    rule(
      'OnClusterBuildWebhookDenyingAll',
      `(sum by (namespace, service) (rate(${admissions}{result="Denied"}[30m])) / sum by (namespace, service) (rate(${admissions}[30m])) >= 0.9) and sum by (namespace, service) (increase(${admissions}[30m])) >= 10`,
      '30m',
      'warning',
      'The admission webhook {{ $labels.service }} denies nearly every request',
      'At least 90% of at least 10 admission requests in 30 minutes were denied in {{ $labels.namespace }}: a tenant retrying a bad config, or a rule or published pull key that refuses everything.',
    ),
  ];
}

/** Alerts a provider pages on across the management cluster (the fleet package ships them). */
export function fleetAlerts(): AlertRule[] {
  const finished = n(METRICS.buildsFinished);
  const fleetFinished = n(METRICS.fleetBuildsFinished);
  return [
    rule(
      'OnClusterBuildBuildsFailingFleetWide',
      `(sum(increase(${finished}{result="Failed"}[1h])) / sum(increase(${finished}{result=~"Succeeded|Failed"}[1h])) > 0.5) and count(sum by (namespace) (increase(${finished}{result="Failed"}[1h])) > 0) >= 3`,
      '15m',
      'critical',
      'OS image builds fail in many hosted clusters',
      'More than half of the builds of the last hour failed, in at least 3 hosted clusters: look for a common cause (a release, a registry, the build image).',
    ),
    rule(
      'OnClusterBuildProviderBuildsFailing',
      // Summed by namespace on both sides: `unless` matches whole label sets, and the two sides differ in `result`.
      `sum by (namespace) (increase(${fleetFinished}{result="Failed"}[1h])) >= 2 unless sum by (namespace) (increase(${fleetFinished}{result="Succeeded"}[1h])) > 0`,
      '15m',
      'critical',
      'The provider layer cannot be built',
      'Provider-layer builds failed {{ $value }} times in the last hour and none succeeded: NodePool upgrades stay held until the image exists.',
    ),
    rule(
      'OnClusterBuildHoldNearBound',
      `${n(METRICS.holdOldestAge)} > 0.8 * ${n(METRICS.holdBound)}`,
      '0m',
      'warning',
      'A NodePool upgrade has been held for most of its bound',
      'The oldest upgrade hold is {{ $value | humanizeDuration }} old; at the bound it is lifted with UpgradeGateTimedOut and the release rolls out with the previous image.',
    ),
    rule(
      'OnClusterBuildRolloutHalted',
      `${ROLLOUT_HALTED_METRIC} > 0`,
      '5m',
      'critical',
      'The rollout of the provider layer halted in {{ $labels.namespace }}',
      'A canary NodePool failed, or more NodePools failed than maxFailures of the rollout policy: NodePools not yet started keep their image until `on-cluster-build fleet-rollout resume` or `rollback`.',
    ),
    // Errors only: the fleet's webhook never denies (it adds the hold or answers an error), so an alert on denials could not fire.
    ...hcpAlerts().filter((r) => r.alert === 'OnClusterBuildWebhookErrors').map((r) => ({ ...r, alert: r.alert.replace('OnClusterBuildWebhook', 'OnClusterBuildFleetWebhook'), annotations: { ...r.annotations, runbook: r.annotations.runbook.replace('onclusterbuildwebhook', 'onclusterbuildfleetwebhook') } })),
  ];
}

/**
 * The PrometheusRule as PKO renders it: the package's files are Go templates, so Prometheus's own
 * template braces in annotations are written as Go template literals (`{{ "{{" }}`) and come out
 * of PKO as `{{`.
 */
export function prometheusRule(name: string, group: string, rules: AlertRule[]): KubeObject {
  const literal = (s: string) => s.replaceAll('{{', '{{ "{{" }}');
  const escaped = rules.map((r) => ({ ...r, annotations: { summary: literal(r.annotations.summary), description: literal(r.annotations.description), runbook: r.annotations.runbook } }));
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name, labels: { app: name } },
    spec: { groups: [{ name: group, rules: escaped as unknown as YamlValue[] }] },
  };
}

/** The per-HCP package's monitoring objects: ServiceMonitors for the controller and webhook, and their alerts. */
export function hcpMonitoring(o: { controller: string; webhook: string; controllerSelector: Record<string, string>; webhookSelector: Record<string, string> }): PackageObject[] {
  const ns = '{{ .package.metadata.namespace }}';
  const client = { secret: 'metrics-client' };
  return [
    { phase: 'deploy', object: metricsService(o.controller, o.controllerSelector) },
    { phase: 'deploy', object: metricsService(o.webhook, o.webhookSelector) },
    { phase: 'deploy', object: serviceMonitor(o.controller, ns, client) },
    { phase: 'deploy', object: serviceMonitor(o.webhook, ns, client) },
    { phase: 'deploy', object: prometheusRule('on-cluster-build', 'on-cluster-build.hcp', hcpAlerts()) },
  ];
}
