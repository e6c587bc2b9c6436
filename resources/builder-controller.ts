/**
 * Our on-cluster-build controller, one per hosted-control-plane namespace (docs/design/controller.md):
 *
 * - management side (HCP namespace): its ServiceAccount, a Role with exactly the calls the
 *   controller makes (`builder/policy/rbac.ts`; read-mostly: no build runs there), and its
 *   Deployment: the controller plus a token-minter sidecar, the only container that sees the
 *   hosted cluster's admin kubeconfig;
 * - hosted side (hosted-cluster phase): the user-facing CRDs, the namespace users keep their
 *   push Secrets in, the namespace builds run in, and the controller's own ServiceAccount with
 *   one Role per namespace it touches (`builder/policy/rbac.ts`).
 */
import { TENANT_LAYER_TEMPLATE } from '../builder/policy/layers.js';
import { hypershift, type KubeObject, type PackageObject, type YamlValue } from 'pkogen';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../builder/api/crds.js';
// builder/api/types.ts, not builder/cli.ts: the CLI module loads the Kubernetes client, which
// generating the package does not need.
import { BUILD_NAMESPACE, CONTROLLER_SERVICE_ACCOUNT_REF as CONTROLLER_SERVICE_ACCOUNT } from '../builder/api/types.js';
import { metricsServing } from './monitoring.js';
import { asAdmissionReplica, SERVING_MOUNTS, SERVING_PORT, SERVING_READINESS, SERVING_VOLUMES, servingArgs } from './webhooks.js';
import { EVENTS_NAMESPACE, HOSTED_EVENT_RULES, HOSTED_NAMESPACED_RULES, HOSTED_RULES, MANAGEMENT_RULES } from '../builder/policy/rbac.js';
import { HANDOFF_RULES } from '../builder/fleet/rbac.js';
import { FLEET_NAMESPACE, FLEET_SERVICE_ACCOUNT } from './fleet/identity.js';

export const CONTROLLER = 'on-cluster-build-controller';
export const HOSTED_NAMESPACE = CONTROLLER_SERVICE_ACCOUNT.namespace;
const TOKEN_DIR = '/var/run/hosted-token';
const ADMIN_KUBECONFIG_DIR = '/etc/hosted-admin-kubeconfig';
const HEALTH_PORT = 8081;

/**
 * Memory of the controller container, from docs/benchmarks.md "Controller footprint"
 * (test/bench/controller.ts, the real process with these NODE_OPTIONS): ~80 MiB idle, ~105 MiB
 * with 100 NodePools each with a NodePoolOSConfig, ~155 MiB with 1,000. V8's live old space stays
 * ~20 MiB at 1,000; without a cap its young generation grows to 128 MiB of semi-spaces and RSS
 * to ~310 MiB, so the semi-space is capped at 8 MB. Request = the 100-NodePool RSS rounded up
 * (128Mi); limit = the 1,000-NodePool peak plus one list page at the 64 MiB response cap, parsed
 * (~2x), with headroom (320Mi); old space capped at 192 MB so the heap collects before the cgroup
 * kills.
 */
export const CONTROLLER_NODE_OPTIONS = '--max-semi-space-size=8 --max-old-space-size=192';
export const CONTROLLER_RESOURCES = { requests: { cpu: '20m', memory: '128Mi' }, limits: { memory: '320Mi' } };

/** The image of the controller and the webhook server: ours, by digest, from the package config. */
export const IMAGE = '{{ .config.image }}';

const rules = (rs: readonly { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[]; resourceNames?: readonly string[] }[]): YamlValue[] =>
  rs.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}), verbs: [...r.verbs] }));

/** A (Cluster)RoleBinding of the controller's ServiceAccount to the role of the same name. */
function binding(kind: 'RoleBinding' | 'ClusterRoleBinding', subjectNamespace: string, namespace?: string): KubeObject {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind,
    metadata: { name: CONTROLLER, ...(namespace ? { namespace } : {}), labels: { app: CONTROLLER } },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: kind === 'RoleBinding' ? 'Role' : 'ClusterRole', name: CONTROLLER },
    subjects: [{ kind: 'ServiceAccount', name: CONTROLLER_SERVICE_ACCOUNT.name, namespace: subjectNamespace }],
  };
}

export function controllerRbac(): PackageObject[] {
  const labels = { app: CONTROLLER };
  return [
    { phase: 'rbac', object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CONTROLLER, labels }, automountServiceAccountToken: false } },
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: CONTROLLER, labels }, rules: rules(MANAGEMENT_RULES) } },
    { phase: 'rbac', object: binding('RoleBinding', '{{ .package.metadata.namespace }}') },
    ...fleetHandoffRbac(),
  ];
}

/** The Role and RoleBinding of the fleet component's hand-off rights, in this HCP namespace only. */
export const FLEET_HANDOFF_ROLE = 'on-cluster-build-fleet-handoff';

/**
 * The fleet component (one per management cluster, resources/fleet/) may update the hand-off
 * ConfigMaps only where this package is installed: its rights there (builder/fleet/rbac.ts
 * HANDOFF_RULES) are bound here, in the HCP namespace, to its ServiceAccount in its own namespace.
 * The fleet package's ValidatingAdmissionPolicy narrows them to our hand-offs.
 */
export function fleetHandoffRbac(): PackageObject[] {
  const labels = { app: CONTROLLER };
  return [
    { phase: 'rbac', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: FLEET_HANDOFF_ROLE, labels }, rules: rules(HANDOFF_RULES) } },
    {
      phase: 'rbac',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: FLEET_HANDOFF_ROLE, labels },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: FLEET_HANDOFF_ROLE },
        subjects: [{ kind: 'ServiceAccount', name: FLEET_SERVICE_ACCOUNT, namespace: FLEET_NAMESPACE }],
      },
    },
  ];
}

/** What goes into the hosted cluster before the controller can do anything there. */
export function hostedApi(): PackageObject[] {
  const labels = { app: CONTROLLER };
  const sa = CONTROLLER_SERVICE_ACCOUNT;
  return [
    {
      phase: 'hosted-api',
      object: {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: {
          name: HOSTED_NAMESPACE,
          labels: { 'pod-security.kubernetes.io/enforce': 'restricted', 'openshift.io/cluster-monitoring': 'false' },
          // An admin may create it first to hold the push Secret: adopt it rather than fail the phase.
          annotations: { 'package-operator.run/collision-protection': 'IfNoController' },
        },
      },
    },
    { phase: 'hosted-api', object: nodePoolOSConfigCRD() as unknown as KubeObject },
    { phase: 'hosted-api', object: nodePoolOSBuildCRD() as unknown as KubeObject },
    { phase: 'hosted-api', object: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: sa.name, namespace: sa.namespace, labels }, automountServiceAccountToken: false } },
    { phase: 'hosted-api', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: CONTROLLER, labels }, rules: rules(HOSTED_RULES) } },
    { phase: 'hosted-api', object: binding('ClusterRoleBinding', sa.namespace) },
    // Where tenant builds run (the hosted cluster's data plane, never the HCP namespace): its
    // Namespace, build ServiceAccount and SCC binding are resources/build-namespace.ts.
    // One Role per hosted namespace the controller touches: the push Secrets, the builds, the
    // hosted cluster's pull secret (by name).
    ...Object.entries({ ...HOSTED_NAMESPACED_RULES, [EVENTS_NAMESPACE]: HOSTED_EVENT_RULES }).flatMap(([namespace, rs]): PackageObject[] => [
      { phase: 'hosted-api', object: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: CONTROLLER, namespace, labels }, rules: rules(rs) } },
      { phase: 'hosted-api', object: binding('RoleBinding', sa.namespace, namespace) },
    ]),
  ];
}

/**
 * The controller's own args as `on-cluster-build controller` takes them (a test parses them with
 * its parser; the controller bench and the intake test run that command with them).
 */
export function controllerArgs(): string[] {
  return [
    'controller',
    `--hosted-kubeconfig=${TOKEN_DIR}/kubeconfig`,
    '--leader-elect=true',
    `--leader-elect-lease-name=${CONTROLLER}`,
    '--build-active-deadline-seconds={{ .config.buildActiveDeadlineSeconds }}',
    '--build-history-limit={{ .config.buildHistoryLimit }}',
    '--build-user-namespaces={{ .config.buildUserNamespaces }}',
    '--own-builder-image={{ .config.image }}',
    `--tenant-layer=${TENANT_LAYER_TEMPLATE}`,
    `--health-port=${HEALTH_PORT}`,
    ...CONTROLLER_METRICS.args,
  ];
}

/**
 * What the Deployment runs: `on-cluster-build control-plane`, the controller's args and the
 * admission server's (every one a flag of `control-plane`: tested with its parser). The replica
 * serves admission from start-up; the loop runs while it holds the Lease.
 */
export function controlPlaneArgs(): string[] {
  return ['control-plane', ...controllerArgs().slice(1), ...servingArgs()];
}

/**
 * The token-minter's memory, from docs/benchmarks.md "Token-minter" (test/bench/token-minter.ts:
 * real TokenRequests against the API test server, each token checked): 74.5 MiB idle and after a
 * renewal with V8's JIT, 62.7 MiB with `--jitless` (it mints once every 48 minutes: the
 * interpreter costs it nothing that matters), one-shot peaks 62-63 MiB. Request = that rounded up
 * (64Mi); the limit keeps its room for a TLS handshake and a write (128Mi).
 */
export const MINTER_RESOURCES = { requests: { cpu: '5m', memory: '64Mi' }, limits: { memory: '128Mi' } };
export const MINTER_NODE_OPTIONS = '--jitless';

export function minterArgs(): string[] {
  return ['token-minter', `--kubeconfig=${ADMIN_KUBECONFIG_DIR}/kubeconfig`, `--output-dir=${TOKEN_DIR}`, '--expiration-seconds=3600'];
}

/** /metrics of the controller: HyperShift's client CA bundle of the HCP namespace verifies the scraper's `metrics-client` certificate. */
export const CONTROLLER_METRICS = metricsServing({ name: CONTROLLER, port: 9443, clientCA: { configMap: 'client-ca', key: 'ca.crt', file: 'ca.crt' } });

export function controllerDeployment(): PackageObject {
  const deployment = hypershift.hcpDeployment({
    name: CONTROLLER,
    // One pod: the Lease holder's loop and the first admission replica (the webhook Deployment's
    // pod is the second). A surge pod serves admission at once and takes the Lease once it is free.
    replicas: 1,
    // The gate means a ready pod: no old pod is removed before the new one is available.
    maxUnavailable: 0,
    serviceAccountName: CONTROLLER,
    // Its token reaches the management API (token Secrets, Cluster API objects, the hand-off, the Lease).
    automountServiceAccountToken: true,
    managementKasAccess: true,
    containers: [
      {
        name: 'control-plane',
        image: IMAGE,
        command: ['/usr/local/bin/on-cluster-build'],
        args: controlPlaneArgs(),
        env: [
          { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
          { name: 'NODE_OPTIONS', value: CONTROLLER_NODE_OPTIONS },
        ],
        ports: [SERVING_PORT, { name: 'health', containerPort: HEALTH_PORT, protocol: 'TCP' }, CONTROLLER_METRICS.port],
        volumeMounts: [{ name: 'hosted-token', mountPath: TOKEN_DIR, readOnly: true }, ...CONTROLLER_METRICS.volumeMounts, ...SERVING_MOUNTS],
        resources: CONTROLLER_RESOURCES,
        livenessProbe: { httpGet: { path: '/healthz', port: 'health' }, initialDelaySeconds: 10, periodSeconds: 30 },
        // Ready once admission is served (the Service's endpoints); the loop's state does not gate it.
        readinessProbe: SERVING_READINESS,
      },
      {
        name: 'token-minter',
        image: IMAGE,
        command: ['/usr/local/bin/on-cluster-build'],
        args: minterArgs(),
        env: [{ name: 'NODE_OPTIONS', value: MINTER_NODE_OPTIONS }],
        volumeMounts: [
          { name: 'hosted-token', mountPath: TOKEN_DIR },
          { name: 'hosted-admin-kubeconfig', mountPath: ADMIN_KUBECONFIG_DIR, readOnly: true },
        ],
        resources: MINTER_RESOURCES,
      },
    ],
    volumes: [
      { name: 'hosted-token', emptyDir: { medium: 'Memory', sizeLimit: '1Mi' } },
      { name: 'hosted-admin-kubeconfig', secret: { secretName: hypershift.HOSTED_KUBECONFIG_SECRET, defaultMode: 0o440 } },
      ...CONTROLLER_METRICS.volumes,
      ...SERVING_VOLUMES,
    ],
  });
  return { phase: 'deploy', object: asAdmissionReplica(deployment) };
}
