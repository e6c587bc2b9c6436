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
import { IMAGE } from './config.js';
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
 * Memory of the control-plane container (the loop on the Lease holder and an admission replica),
 * from docs/benchmarks.md "Control plane" (test/bench/control-plane.ts, the real process with
 * these NODE_OPTIONS): holder idle ~70 MiB, ~79 MiB after 5,000 admissions at 500/s, 81 MiB with
 * 100 NodePools each with a NodePoolOSConfig, 87.5 MiB (peak 94) with 1,000, the most it acts on.
 * `--jitless` saves 14-18 MiB after load (the interpreter only: no compiler code or JIT code in
 * memory), the 4 MB semi-space 5-7 MiB more. The worst input it parses is the webhook's: the
 * in-flight budget's worth of maximum-size AdmissionReviews of the smallest JSON values (4 x 3 MiB,
 * ~55 MB of live heap) while it keeps 1,000 configs; V8's old-space cap sets that peak (192 MB:
 * 232 MiB; 112 MB: 200-219 MiB, it answers throughout and afterwards). Request = the 1,000-NodePool
 * RSS rounded up (88Mi); limit = the worst parse peak with ~17% headroom (256Mi), as the webhook's.
 */
export const CONTROLLER_NODE_OPTIONS = '--jitless --max-semi-space-size=4 --max-old-space-size=112';
export const CONTROLLER_RESOURCES = { requests: { cpu: '20m', memory: '88Mi' }, limits: { memory: '256Mi' } };


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
 * real TokenRequests against the API test server, each token checked): 62.7-65 MiB RSS with
 * `--jitless` (it mints once every 48 minutes: the interpreter costs it nothing that matters),
 * one-shot peaks 62-63 MiB. Of that, ~44 MiB are pages the control-plane container of the same pod
 * has resident too (the node executable's, from the same image layer): a page is charged to the
 * cgroup that faults it in first, so the pod pays them once. docs/benchmarks.md "Footprint"
 * (test/bench/footprint.ts, the union of the pod's resident physical pages): the minter adds
 * 21.0-21.2 MiB to the control-plane process. Request = that rounded up (24Mi), so the pod's
 * requests (88Mi + 24Mi) cover the pod's measured pages; the limit keeps the minter's whole RSS
 * and room for a TLS handshake and a write (128Mi): it may be the container that faults the
 * shared pages in first.
 */
export const MINTER_RESOURCES = { requests: { cpu: '5m', memory: '24Mi' }, limits: { memory: '128Mi' } };
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
