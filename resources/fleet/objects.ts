/**
 * The fleet component's objects on the management cluster (docs/design/fleet.md
 * "Packaging"): its namespace; the namespace its provider builds run in (Pod Security
 * baseline, the build ServiceAccount bound to anyuid, the build PriorityClass: the per-HCP build
 * namespace's objects, resources/build-namespace.ts); its ServiceAccount with a ClusterRole
 * (NodePools), a Role in its own namespace (Lease, push Secret) and one in the build namespace
 * (build Jobs and their volumes), all generated from builder/fleet/rbac.ts; its Deployment (the `fleet` command: gate, provider builds and the
 * NodePool admission mutation in one process); the webhook's Service with a service-ca serving
 * certificate; the MutatingWebhookConfiguration for NodePool release changes; and the
 * ValidatingAdmissionPolicies that narrow what its ServiceAccount may change, below what RBAC can
 * express.
 */
import { fleetAlerts, metricsService, metricsServing, prometheusRule, serviceMonitor } from '../monitoring.js';
import { hypershift, RawValue, type KubeObject, type PackageObject, type YamlValue } from 'pkogen';
import { FLEET_BUILD_NAMESPACE_RULES, FLEET_CLUSTER_RULES, FLEET_NAMESPACE_RULES } from '../../builder/fleet/rbac.js';
import { BLOCKED_ANNOTATION, GATED_LABEL, HELD_SINCE_ANNOTATION, LEGACY_PAUSE_VALUE, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION, TARGET_SEEN_ANNOTATION } from '../../builder/fleet/gate-names.js';
import { HANDOFF_PREFIX, HANDOFF_RELEASE_ANNOTATION, NTO_GENERATED_LABEL, PROVIDER_IMAGES_CONFIGMAP, WANTED_RELEASE_ANNOTATION } from '../../builder/controller/handoff.js';
import { CONFIG_LABEL, MANAGED_BY, MANAGED_BY_VALUE, NODEPOOL_LABEL } from '../../builder/controller/build-job.js';
import { GROUP } from '../../builder/api/types.js';
import { buildNamespaceObjects } from '../build-namespace.js';
import { FLEET_BUILD_NAMESPACE, FLEET_NAME, FLEET_NAMESPACE, FLEET_SERVICE_ACCOUNT, FLEET_USERNAME, PUSH_SECRET_NAME } from './identity.js';

const labels = { app: FLEET_NAME };
export const FLEET_IMAGE = '{{ .config.image }}';
export const WEBHOOK_PORT = 9443;
export const HEALTH_PORT = 8081;
export const TLS_DIR = '/var/run/tls';
export const SERVING_CERT_SECRET = `${FLEET_NAME}-serving-cert`;
export const LAYER_CONFIGMAP = `${FLEET_NAME}-provider-layer`;
export const LAYER_DIR = '/etc/provider-layer';
export const LAYER_FILE = 'Containerfile';
/** The path the fleet webhook serves the NodePool UPDATE mutation at (builder/fleet/main.ts). */
export const MUTATE_NODEPOOL_PATH = '/mutate-nodepool';
export const RESYNC_SECONDS = 300;
export const EXACTLY_ONE = 'on-cluster-build-fleet config: set exactly one of providerLayer (a Containerfile) and providerImage (an image by digest)';

/**
 * Requests and limits of the fleet container, from `npm run bench -- fleet` (test/bench/fleet.ts;
 * docs/benchmarks.md "Fleet component footprint"): the process as in its pod with 500 HCP
 * namespaces (500 hand-off watches), 1,000 NodePools, 500 hand-offs, an upgrade day of every
 * NodePool at 50 admissions/s and a resync. Measured RSS: 69-76 MiB idle, 153-173 MiB with the
 * fleet taken in and after the upgrade day, peak 182-186 MiB (at the resync); the V8 heap stays
 * 20-28 MiB used (37-43 MiB allocated): most of the RSS is outside it, ~0.15 MiB per open watch
 * (one TLS connection each), so it grows with HCP namespaces, not with NodePools.
 * - memory request 192Mi: the steady 160-173 MiB plus ~10-20%;
 * - memory limit 384Mi: the 186 MiB peak plus room for twice the HCP namespaces (~+85 MiB of
 *   watches) and a full list page being parsed, ~2× the peak;
 * - V8 old space 160 MB, semi-space 8 MB (as the controller: bounds the young generation): heap
 *   at most ~184 MB plus the ~130 MiB outside it at 500 HCPs stays under the limit, and the cap is
 *   6× the live heap measured;
 * - cpu request 50m: a resync 1.5-2.3 s of CPU per 40 s (37-58m), ~0.2-0.3 core for the 20 s of
 *   an upgrade day; a quiet fleet ~1m since the watch idle timeout exceeds the bookmark period
 *   (it was 23-38m while every quiet watch was re-opened every 30-60 s). No CPU limit.
 * Re-measured with the provider-images channel, hand-off creation, the HostedControlPlane watch
 * and the prebuilt image verified through a registry (500 HCPs, 1,000 NodePools, two upgrade
 * days): steady 158-165 MiB, peak 162-167 MiB, heap 24-35 MiB used: inside these values.
 */
export const FLEET_RESOURCES = { requests: { cpu: '50m', memory: '192Mi' }, limits: { memory: '384Mi' } };
export const FLEET_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=160';

type Rule = { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[]; resourceNames?: readonly string[] };
export const rbacRules = (rs: readonly Rule[]): YamlValue[] =>
  rs.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}), verbs: [...r.verbs] }));

/**
 * The fleet command's flags, exactly as `on-cluster-build fleet` (builder/fleet/main.ts) declares
 * them; `--namespace` comes from POD_NAMESPACE and `--kubeconfig` stays '' (in-cluster).
 */
export function fleetArgs(): string[] {
  return [
    'fleet',
    '--provider-repository={{ .config.providerRepository }}',
    `--provider-layer-file={{ if .config.providerLayer }}${LAYER_DIR}/${LAYER_FILE}{{ end }}`,
    '--provider-image={{ .config.providerImage }}',
    '--provider-trust-bundle={{ .config.providerTrustBundleConfigMap }}',
    // Per-arch placement as JSON text (builder/fleet/placement.ts parses it); the schema keeps quotes and newlines out.
    '--build-placement={{ .config.buildPlacement }}',
    `--push-secret-name=${PUSH_SECRET_NAME}`,
    `--build-namespace=${FLEET_BUILD_NAMESPACE}`,
    '--max-hold-seconds={{ .config.maxHoldSeconds }}',
    // The policy's JSON text (builder/fleet/rollout/policy.ts parses it); the schema keeps quotes and newlines out.
    '--rollout={{ .config.rollout }}',
    `--resync-period=${RESYNC_SECONDS}`,
    `--webhook-port=${WEBHOOK_PORT}`,
    `--tls-dir=${TLS_DIR}`,
    `--health-port=${HEALTH_PORT}`,
    '--leader-elect=true',
    ...FLEET_METRICS.args,
  ];
}

/**
 * /metrics of the fleet component, scraped by the management cluster's platform Prometheus with
 * its client certificate (scrape class `tls-client-certificate-auth`). The CA that signs it is
 * the provider's to put in the ConfigMap FLEET_METRICS_CLIENT_CA (optional: without it the
 * process serves no /metrics and says so in its log).
 */
export const FLEET_METRICS_CLIENT_CA = `${FLEET_NAME}-metrics-client-ca`;
export const FLEET_METRICS = metricsServing({ name: FLEET_NAME, port: 8443, clientCA: { configMap: FLEET_METRICS_CLIENT_CA, key: 'client-ca.crt', file: 'client-ca.crt' } });

export function fleetNamespace(): PackageObject[] {
  return [
    {
      phase: 'namespace',
      object: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: FLEET_NAMESPACE, labels: { ...labels, 'pod-security.kubernetes.io/enforce': 'restricted', 'openshift.io/cluster-monitoring': 'true' } },
      },
    },
  ];
}

/**
 * Where provider builds run: the tenant build namespace's objects (resources/build-namespace.ts),
 * on the management cluster. The fleet namespace cannot host the build pod: it is Pod Security
 * "restricted" (for the fleet's own pods), which refuses the build pod's privilege escalation,
 * kept capabilities and unset seccomp profile.
 */
export function fleetBuildNamespace(): PackageObject[] {
  return buildNamespaceObjects({ namespace: FLEET_BUILD_NAMESPACE, phases: { namespace: 'namespace', rest: 'rbac' }, labels: { app: `${FLEET_NAME}-builds` } });
}

export function fleetRbac(): PackageObject[] {
  const subjects = [{ kind: 'ServiceAccount', name: FLEET_SERVICE_ACCOUNT, namespace: FLEET_NAMESPACE }];
  const ref = (kind: 'Role' | 'ClusterRole') => ({ apiGroup: 'rbac.authorization.k8s.io', kind, name: FLEET_NAME });
  return [
    { phase: 'rbac', object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: FLEET_SERVICE_ACCOUNT, namespace: FLEET_NAMESPACE, labels } } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: FLEET_NAME, labels }, rules: rbacRules(FLEET_CLUSTER_RULES) } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: FLEET_NAME, labels }, roleRef: ref('ClusterRole'), subjects } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels }, rules: rbacRules(FLEET_NAMESPACE_RULES) } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels }, roleRef: ref('Role'), subjects } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: FLEET_NAME, namespace: FLEET_BUILD_NAMESPACE, labels }, rules: rbacRules(FLEET_BUILD_NAMESPACE_RULES) } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: FLEET_NAME, namespace: FLEET_BUILD_NAMESPACE, labels }, roleRef: ref('Role'), subjects } },
  ];
}

export function fleetDeployment(): PackageObject[] {
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels },
    spec: {
      // Two replicas: every replica serves the admission mutation (pure, no state), one holds the
      // Lease and runs the gate and the builds. The webhook's failurePolicy is Fail, so one replica
      // must survive a node drain.
      replicas: 2,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: {
          labels,
          // A new provider layer restarts the pods: the process reads the file at start.
          annotations: { [`${GROUP}/provider-layer-sha256`]: '{{ .config.providerLayer | sha256sum }}' },
        },
        spec: {
          serviceAccountName: FLEET_SERVICE_ACCOUNT,
          affinity: {
            podAntiAffinity: {
              preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { labelSelector: { matchLabels: labels }, topologyKey: 'kubernetes.io/hostname' } }],
            },
          },
          containers: [
            {
              name: 'fleet',
              image: FLEET_IMAGE,
              command: ['/usr/local/bin/on-cluster-build'],
              args: fleetArgs(),
              env: [
                { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
                { name: 'NODE_OPTIONS', value: FLEET_NODE_OPTIONS },
              ],
              ports: [
                { name: 'webhook', containerPort: WEBHOOK_PORT, protocol: 'TCP' },
                { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' },
                FLEET_METRICS.port,
              ],
              volumeMounts: [
                ...FLEET_METRICS.volumeMounts,
                { name: 'serving-cert', mountPath: TLS_DIR, readOnly: true },
                { name: 'provider-layer', mountPath: LAYER_DIR, readOnly: true },
              ],
              resources: FLEET_RESOURCES,
              livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, initialDelaySeconds: 10, periodSeconds: 30 },
              readinessProbe: { httpGet: { path: '/readyz', port: 'health' }, periodSeconds: 10 },
            },
          ],
          volumes: [
            ...FLEET_METRICS.volumes.map((v) => ('configMap' in v ? { ...v, configMap: { ...v.configMap, optional: true } } : v)),
            { name: 'serving-cert', secret: { secretName: SERVING_CERT_SECRET, defaultMode: 0o440 } },
            { name: 'provider-layer', configMap: { name: LAYER_CONFIGMAP, defaultMode: 0o440 } },
          ],
        },
      },
    },
  };
  hypershift.withRestrictedSecurity(deployment);
  return [
    {
      phase: 'deploy',
      object: {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: LAYER_CONFIGMAP, namespace: FLEET_NAMESPACE, labels },
        // JSON is a YAML double-quoted scalar: any Containerfile text survives as it is. Exactly one
        // of the two keys is set, checked here because PKO's config admission cannot say
        // "exactly one non-empty" for keys with defaults: the render fails, the Package is Invalid
        // with this message, and nothing is applied.
        data: { [LAYER_FILE]: new RawValue(() => ` {{ if eq (empty .config.providerLayer) (empty .config.providerImage) }}{{ fail ${JSON.stringify(EXACTLY_ONE)} }}{{ end }}{{ .config.providerLayer | toJson }}`) as unknown as string },
      },
    },
    { phase: 'deploy', object: deployment },
    {
      phase: 'deploy',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels, annotations: { [hypershift.SERVING_CERT_ANNOTATION]: SERVING_CERT_SECRET } },
        spec: { type: 'ClusterIP', selector: labels, ports: [{ name: 'webhook', port: 443, protocol: 'TCP', targetPort: 'webhook' }] },
      },
    },
    { phase: 'deploy', object: { ...metricsService(FLEET_NAME, labels), metadata: { ...metricsService(FLEET_NAME, labels).metadata, namespace: FLEET_NAMESPACE } } },
    { phase: 'deploy', object: { ...serviceMonitor(FLEET_NAME, FLEET_NAMESPACE, { scrapeClass: 'tls-client-certificate-auth' }), metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels } } },
    { phase: 'deploy', object: { ...prometheusRule(FLEET_NAME, 'on-cluster-build.fleet', fleetAlerts()), metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels } } },
    {
      phase: 'deploy',
      object: {
        apiVersion: 'policy/v1',
        kind: 'PodDisruptionBudget',
        metadata: { name: FLEET_NAME, namespace: FLEET_NAMESPACE, labels },
        spec: { maxUnavailable: 1, selector: { matchLabels: labels }, unhealthyPodEvictionPolicy: 'AlwaysAllow' },
      },
    },
  ];
}

/** The matchCondition that makes a release change of a gated NodePool go through the fleet webhook. */
export const RELEASE_CHANGED = 'has(object.spec.release) && has(oldObject.spec.release) && object.spec.release.image != oldObject.spec.release.image';

/**
 * NodePool UPDATE, only for NodePools the gate labelled, only when the release changes: the
 * mutation adds the hold in the same write (builder/fleet/gate.ts admitNodePoolUpdate).
 * failurePolicy Fail: a missed hold is two rollouts of a customer's NodePool (the new release with
 * the old image, then again) and nodes on a release with an OS image built for another; Fail
 * costs only that a release change of a gated NodePool is refused while no fleet replica answers
 * (retried by whoever upgrades). HyperShift's own operator never writes spec.release of a NodePool
 * and its status writes go to nodepools/status, which this rule does not match, so nothing of
 * HyperShift's reconciliation (finalizers, annotations, scaling) is ever blocked.
 */
export function fleetWebhook(): PackageObject[] {
  return [
    {
      phase: 'webhooks',
      object: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'MutatingWebhookConfiguration',
        metadata: { name: FLEET_NAME, labels, annotations: { [hypershift.INJECT_CABUNDLE_ANNOTATION]: 'true' } },
        webhooks: [
          {
            name: `nodepools.${GROUP}`,
            admissionReviewVersions: ['v1'],
            clientConfig: { service: { namespace: FLEET_NAMESPACE, name: FLEET_NAME, path: MUTATE_NODEPOOL_PATH, port: 443 } },
            rules: [{ apiGroups: ['hypershift.openshift.io'], apiVersions: ['v1beta1'], operations: ['UPDATE'], resources: ['nodepools'], scope: 'Namespaced' }],
            objectSelector: { matchLabels: { [GATED_LABEL]: 'true' } },
            matchConditions: [{ name: 'release-changed', expression: RELEASE_CHANGED }],
            failurePolicy: 'Fail',
            matchPolicy: 'Equivalent',
            sideEffects: 'None',
            reinvocationPolicy: 'Never',
            timeoutSeconds: 5,
          },
        ],
      },
    },
  ];
}

/** The gate's own NodePool annotations (builder/fleet/gate.ts): the only ones the fleet may change. */
export const GATE_ANNOTATIONS = [PAUSED_FOR_ANNOTATION, HELD_SINCE_ANNOTATION, PAUSED_UNTIL_ANNOTATION, TARGET_SEEN_ANNOTATION, RELEASED_FOR_ANNOTATION, REASON_ANNOTATION, BLOCKED_ANNOTATION];
/** Hand-off labels the fleet must keep as they are: HyperShift selects on the first two, the per-HCP controller owns the others. */
export const HANDOFF_KEPT_LABELS = [NTO_GENERATED_LABEL, NODEPOOL_LABEL, MANAGED_BY, CONFIG_LABEL];

const q = (s: string) => JSON.stringify(s);
const list = (xs: readonly string[]) => `[${xs.map(q).join(', ')}]`;
const orEmpty = (path: string, empty = '{}') => `has(${path}) ? ${path} : ${empty}`;
/** The maps `a` (old) and `b` (new) differ only at keys in `allowed` (a CEL list literal). `a`, `b` must be primaries (variables), not ternaries. */
const onlyChanged = (a: string, b: string, allowed: string) =>
  `${b}.all(k, k in ${allowed} || (k in ${a} && ${a}[k] == ${b}[k])) && ${a}.all(k, k in ${allowed} || k in ${b})`;

export interface CelValidation {
  expression: string;
  message: string;
  reason: 'Forbidden' | 'Invalid';
}
export interface PolicySpec {
  name: string;
  resourceRule: { apiGroups: string[]; apiVersions: string[]; operations: string[]; resources: string[] };
  variables: { name: string; expression: string }[];
  validations: CelValidation[];
}

export const ONLY_FLEET = { name: 'fleet-service-account', expression: `request.userInfo.username == ${q(FLEET_USERNAME)}` };

/** The package's hold bound (config maxHoldSeconds), as PKO renders it into the policy. */
export const MAX_HOLD_TEMPLATE = '{{ .config.maxHoldSeconds }}';
/** RFC3339 as Go's time.Parse(time.RFC3339) reads it and as the gate writes it (to the second, UTC or an offset). */
export const RFC3339_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(Z|[+-][0-9]{2}:[0-9]{2})$';
const ann = (v: 'old' | 'new', k: string) => `variables.${v}Annotations[${q(k)}]`;
const hasAnn = (v: 'old' | 'new', k: string) => `${q(k)} in variables.${v}Annotations`;

/**
 * NodePools: the fleet ServiceAccount's `patch` may change only spec.pausedUntil, the gate's
 * annotations and its label. A pausedUntil it sets is an RFC3339 time equal to the
 * PAUSED_UNTIL annotation it writes with it, and no later than HELD_SINCE + the package's
 * maxHoldSeconds; it may replace or remove only a pausedUntil of its own (the value its
 * PAUSED_UNTIL annotation records, or an older fleet's "true" under PAUSED_FOR); while a hold for
 * one release goes on, HELD_SINCE stays. CEL in a ValidatingAdmissionPolicy has no clock, so "no
 * later than now + bound" is the gate's and the webhook's to keep (docs/design/fleet-gate.md).
 * The spec comparison walks every key, so a field the NodePool API gains later is covered.
 */
export const NODEPOOL_POLICY: PolicySpec = {
  name: `${FLEET_NAME}-nodepools`,
  resourceRule: { apiGroups: ['hypershift.openshift.io'], apiVersions: ['*'], operations: ['UPDATE'], resources: ['nodepools'] },
  variables: [
    { name: 'oldSpec', expression: orEmpty('oldObject.spec') },
    { name: 'newSpec', expression: orEmpty('object.spec') },
    { name: 'oldLabels', expression: orEmpty('oldObject.metadata.labels') },
    { name: 'newLabels', expression: orEmpty('object.metadata.labels') },
    { name: 'oldAnnotations', expression: orEmpty('oldObject.metadata.annotations') },
    { name: 'newAnnotations', expression: orEmpty('object.metadata.annotations') },
    {
      // The pause before this write was the gate's own.
      name: 'oldPauseOurs',
      expression: `has(oldObject.spec.pausedUntil) && ${hasAnn('old', PAUSED_FOR_ANNOTATION)} && oldObject.spec.pausedUntil == (${hasAnn('old', PAUSED_UNTIL_ANNOTATION)} ? ${ann('old', PAUSED_UNTIL_ANNOTATION)} : ${q(LEGACY_PAUSE_VALUE)})`,
    },
    { name: 'pauseChanged', expression: 'has(object.spec.pausedUntil) && !(has(oldObject.spec.pausedUntil) && oldObject.spec.pausedUntil == object.spec.pausedUntil)' },
  ],
  validations: [
    {
      expression: onlyChanged('variables.oldSpec', 'variables.newSpec', list(['pausedUntil'])),
      message: 'the on-cluster-build fleet component may change only spec.pausedUntil of a NodePool',
      reason: 'Forbidden',
    },
    {
      expression: `!variables.pauseChanged || (object.spec.pausedUntil.matches(${q(RFC3339_PATTERN)}) && ${hasAnn('new', PAUSED_UNTIL_ANNOTATION)} && ${ann('new', PAUSED_UNTIL_ANNOTATION)} == object.spec.pausedUntil && ${hasAnn('new', PAUSED_FOR_ANNOTATION)} && ${hasAnn('new', HELD_SINCE_ANNOTATION)} && timestamp(object.spec.pausedUntil) <= timestamp(${ann('new', HELD_SINCE_ANNOTATION)}) + duration(${q(`${MAX_HOLD_TEMPLATE}s`)}))`,
      message: `the on-cluster-build fleet component may set spec.pausedUntil only to an RFC3339 time recorded in ${PAUSED_UNTIL_ANNOTATION}, no later than ${HELD_SINCE_ANNOTATION} + maxHoldSeconds (never "true")`,
      reason: 'Invalid',
    },
    {
      expression: '!variables.pauseChanged || !has(oldObject.spec.pausedUntil) || variables.oldPauseOurs',
      message: 'the on-cluster-build fleet component may replace only a spec.pausedUntil of its own',
      reason: 'Forbidden',
    },
    {
      expression: 'has(object.spec.pausedUntil) || !has(oldObject.spec.pausedUntil) || variables.oldPauseOurs',
      message: `the on-cluster-build fleet component may remove only a spec.pausedUntil of its own (the value its ${PAUSED_UNTIL_ANNOTATION} records)`,
      reason: 'Forbidden',
    },
    {
      expression: `!(${hasAnn('old', PAUSED_FOR_ANNOTATION)} && ${hasAnn('new', PAUSED_FOR_ANNOTATION)} && ${ann('old', PAUSED_FOR_ANNOTATION)} == ${ann('new', PAUSED_FOR_ANNOTATION)} && ${hasAnn('old', HELD_SINCE_ANNOTATION)}) || (${hasAnn('new', HELD_SINCE_ANNOTATION)} && ${ann('old', HELD_SINCE_ANNOTATION)} == ${ann('new', HELD_SINCE_ANNOTATION)})`,
      message: `the on-cluster-build fleet component may not move ${HELD_SINCE_ANNOTATION} while it holds a NodePool for the same release (the hold for one release is bounded from its start)`,
      reason: 'Forbidden',
    },
    {
      expression: onlyChanged('variables.oldLabels', 'variables.newLabels', list([GATED_LABEL])),
      message: `the on-cluster-build fleet component may change only the label ${GATED_LABEL} of a NodePool`,
      reason: 'Forbidden',
    },
    {
      expression: onlyChanged('variables.oldAnnotations', 'variables.newAnnotations', list(GATE_ANNOTATIONS)),
      message: `the on-cluster-build fleet component may change only its gate annotations (${GROUP}/gate-*) of a NodePool`,
      reason: 'Forbidden',
    },
    {
      expression: `(${orEmpty('object.metadata.finalizers', '[]')}) == (${orEmpty('oldObject.metadata.finalizers', '[]')}) && (${orEmpty('object.metadata.ownerReferences', '[]')}) == (${orEmpty('oldObject.metadata.ownerReferences', '[]')})`,
      message: 'the on-cluster-build fleet component may not change the finalizers or owner references of a NodePool',
      reason: 'Forbidden',
    },
  ],
};

/**
 * ConfigMaps: the fleet ServiceAccount's `update` (bound only in HCP namespaces with our package)
 * may touch only our hand-offs, keep the labels HyperShift and the per-HCP controller select on,
 * and carry only the `config` key; or the provider-images ConfigMap (builder/controller/handoff.ts
 * PROVIDER_IMAGES_CONFIGMAP), which must never carry the NTO label (HyperShift would read it as
 * machine config).
 */
const IS_IMAGES = { name: 'isProviderImages', expression: `oldObject.metadata.name == ${q(PROVIDER_IMAGES_CONFIGMAP)}` };
const NOT_MACHINE_CONFIG = (labels: string) => `!(${q(NTO_GENERATED_LABEL)} in ${labels}) && ${q(MANAGED_BY)} in ${labels} && ${labels}[${q(MANAGED_BY)}] == ${q(MANAGED_BY_VALUE)}`;
const IMAGES_RULE = `the ${PROVIDER_IMAGES_CONFIGMAP} ConfigMap keeps the label ${MANAGED_BY}=${MANAGED_BY_VALUE}, never carries ${NTO_GENERATED_LABEL}, and has no binaryData`;
export const HANDOFF_POLICY: PolicySpec = {
  name: `${FLEET_NAME}-handoffs`,
  resourceRule: { apiGroups: [''], apiVersions: ['v1'], operations: ['UPDATE'], resources: ['configmaps'] },
  variables: [
    { name: 'oldLabels', expression: orEmpty('oldObject.metadata.labels') },
    { name: 'newLabels', expression: orEmpty('object.metadata.labels') },
    { name: 'oldAnnotations', expression: orEmpty('oldObject.metadata.annotations') },
    { name: 'newAnnotations', expression: orEmpty('object.metadata.annotations') },
    IS_IMAGES,
  ],
  validations: [
    {
      expression: `variables.isProviderImages || (oldObject.metadata.name.startsWith(${q(HANDOFF_PREFIX)}) && ${q(MANAGED_BY)} in variables.oldLabels && variables.oldLabels[${q(MANAGED_BY)}] == ${q(MANAGED_BY_VALUE)})`,
      message: `the on-cluster-build fleet component may update only hand-off ConfigMaps (${HANDOFF_PREFIX}*, label ${MANAGED_BY}=${MANAGED_BY_VALUE}) and ${PROVIDER_IMAGES_CONFIGMAP}`,
      reason: 'Forbidden',
    },
    {
      expression: `variables.isProviderImages || ${list(HANDOFF_KEPT_LABELS)}.all(k, (k in variables.newLabels) == (k in variables.oldLabels) && (!(k in variables.oldLabels) || variables.newLabels[k] == variables.oldLabels[k]))`,
      message: `the on-cluster-build fleet component may not change the labels ${HANDOFF_KEPT_LABELS.join(', ')} of a hand-off`,
      reason: 'Forbidden',
    },
    {
      expression: `variables.isProviderImages || ((!has(object.data) || object.data.all(k, k == "config")) && !has(object.binaryData))`,
      message: 'a hand-off ConfigMap carries only data.config',
      reason: 'Invalid',
    },
    {
      // release-image: a provider hand-off for the new release; wanted-release: the release the
      // per-HCP controller is asked to build a tenant layer for (builder/fleet/gate.ts).
      expression: `variables.isProviderImages || (${onlyChanged('variables.oldAnnotations', 'variables.newAnnotations', list([HANDOFF_RELEASE_ANNOTATION, WANTED_RELEASE_ANNOTATION]))})`,
      message: `the on-cluster-build fleet component may change only the annotations ${HANDOFF_RELEASE_ANNOTATION} and ${WANTED_RELEASE_ANNOTATION} of a hand-off`,
      reason: 'Forbidden',
    },
    {
      // Neither may change: an owner reference to a missing object would have the garbage
      // collector delete a hand-off the fleet has no right to delete.
      expression: `variables.isProviderImages || ((${orEmpty('object.metadata.ownerReferences', '[]')}) == (${orEmpty('oldObject.metadata.ownerReferences', '[]')}) && (${orEmpty('object.metadata.finalizers', '[]')}) == (${orEmpty('oldObject.metadata.finalizers', '[]')}))`,
      message: 'the on-cluster-build fleet component may not change the owner references or finalizers of a hand-off',
      reason: 'Forbidden',
    },
    {
      expression: `!variables.isProviderImages || (${NOT_MACHINE_CONFIG('variables.newLabels')} && !has(object.binaryData))`,
      message: IMAGES_RULE,
      reason: 'Forbidden',
    },
  ],
};

/**
 * ConfigMaps the fleet ServiceAccount creates (its `create` is bound only in HCP namespaces with
 * our package, and RBAC cannot name what create makes): a provider-only hand-off exactly as the
 * gate writes it (the three labels HyperShift and we select on, the NodePool label matching its
 * name, no NodePoolOSConfig label, only data.config, only the release annotation), or the
 * provider-images ConfigMap. Anything else, such as a ConfigMap a control-plane component reads, is refused.
 */
export const CREATE_POLICY: PolicySpec = {
  name: `${FLEET_NAME}-configmap-create`,
  resourceRule: { apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] },
  variables: [
    { name: 'labels', expression: orEmpty('object.metadata.labels') },
    { name: 'annotations', expression: orEmpty('object.metadata.annotations') },
    { name: 'isProviderImages', expression: `object.metadata.name == ${q(PROVIDER_IMAGES_CONFIGMAP)}` },
    { name: 'isHandoff', expression: `object.metadata.name.startsWith(${q(HANDOFF_PREFIX)})` },
  ],
  validations: [
    {
      expression: 'variables.isProviderImages || variables.isHandoff',
      message: `the on-cluster-build fleet component may create only provider-only hand-offs (${HANDOFF_PREFIX}*) and ${PROVIDER_IMAGES_CONFIGMAP}`,
      reason: 'Forbidden',
    },
    {
      expression:
        `!variables.isHandoff || (variables.labels.size() == 3 && ${q(NTO_GENERATED_LABEL)} in variables.labels && variables.labels[${q(NTO_GENERATED_LABEL)}] == "true" ` +
        `&& ${q(MANAGED_BY)} in variables.labels && variables.labels[${q(MANAGED_BY)}] == ${q(MANAGED_BY_VALUE)} ` +
        `&& ${q(NODEPOOL_LABEL)} in variables.labels && object.metadata.name == ${q(HANDOFF_PREFIX)} + variables.labels[${q(NODEPOOL_LABEL)}])`,
      message: `a provider-only hand-off carries exactly the labels ${NTO_GENERATED_LABEL}=true, ${MANAGED_BY}=${MANAGED_BY_VALUE} and ${NODEPOOL_LABEL} naming its NodePool (no ${CONFIG_LABEL}: tenant hand-offs are the per-HCP controller's)`,
      reason: 'Forbidden',
    },
    {
      expression: `!variables.isHandoff || ((!has(object.data) || object.data.all(k, k == "config")) && !has(object.binaryData) && variables.annotations.all(k, k == ${q(HANDOFF_RELEASE_ANNOTATION)}))`,
      message: `a provider-only hand-off carries only data.config and the annotation ${HANDOFF_RELEASE_ANNOTATION}`,
      reason: 'Invalid',
    },
    {
      expression: '!variables.isHandoff || (!has(object.metadata.ownerReferences) && !has(object.metadata.finalizers))',
      message: 'a provider-only hand-off has no owner references or finalizers (nothing may garbage-collect or hold it)',
      reason: 'Forbidden',
    },
    {
      expression: `!variables.isProviderImages || (${NOT_MACHINE_CONFIG('variables.labels')} && !has(object.binaryData))`,
      message: IMAGES_RULE,
      reason: 'Forbidden',
    },
  ],
};

export const FLEET_POLICIES = [NODEPOOL_POLICY, HANDOFF_POLICY, CREATE_POLICY];

function policyObjects(p: PolicySpec): PackageObject[] {
  return [
    {
      phase: 'policies',
      object: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: p.name, labels },
        spec: {
          // An expression that errors denies: the policy fails closed for the fleet identity only.
          failurePolicy: 'Fail',
          matchConstraints: { resourceRules: [{ ...p.resourceRule, scope: 'Namespaced' }] },
          matchConditions: [ONLY_FLEET],
          variables: p.variables.map((v) => ({ ...v })),
          validations: p.validations.map((v) => ({ ...v })),
        },
      },
    },
    {
      phase: 'policies',
      object: {
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicyBinding',
        metadata: { name: p.name, labels },
        spec: { policyName: p.name, validationActions: ['Deny'] },
      },
    },
  ];
}

export function fleetPolicies(): PackageObject[] {
  return FLEET_POLICIES.flatMap(policyObjects);
}
