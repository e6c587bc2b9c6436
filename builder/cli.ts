/**
 * `on-cluster-build control-plane | controller | webhook | token-minter | fleet`: one image; all but
 * `fleet` run in the HCP namespace, `fleet` once per management cluster (builder/fleet/main.ts).
 * `control-plane` is the controller and the webhook in one process (the package's Deployment:
 * every replica serves admission, the Lease's holder also runs the loop). Exit codes: 0
 * stopped cleanly, 1 failed, 2 usage error. Logs are JSON lines on stderr and never carry object
 * contents or credentials.
 */
import * as http from 'node:http';
import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import { FlagError, flagsHelp, FlagSpec, FlagValues, parseFlags } from './flags.js';
import { Kube } from './clusters/kube.js';
import { existsSync } from 'node:fs';
import { abortableSleep, LeaderElector } from './clusters/leader.js';
import { Reconciler } from './controller/reconciler.js';
import { runController } from './controller/run.js';
import { runTokenMinter } from './clusters/token-minter.js';
import { wiring } from './wiring.js';
import { parseTenantLayer } from './policy/layers.js';
import { allowList, runWebhook, startAdmission, WEBHOOK_FLAGS, WEBHOOK_SUMMARY } from './webhook/main.js';
import { ADMISSION_METRICS } from './metrics/admission.js';
import { checkFleetFlags, FLEET_FLAGS, FLEET_SUMMARY, startFleet } from './fleet/main.js';
import { FLEET_STATUS_FLAGS, FLEET_STATUS_SUMMARY, fleetStatusMain } from './fleet/view.js';
import { FLEET_ROLLOUT_FLAGS, FLEET_ROLLOUT_SUMMARY, fleetRolloutMain } from './fleet/rollout/command.js';
import { METRICS } from './metrics/catalogue.js';
import { CONTROLLER_METRICS, ControllerTelemetry, countNodePools } from './metrics/controller.js';
import { EventRecorder } from './metrics/events.js';
import { Metrics } from './metrics/registry.js';
import { HCP_CLIENT_CA, HYPERSHIFT_SCRAPER, metricsFlags, serveMetrics } from './metrics/server.js';
import { kubeEventSink } from './clusters/event-sink.js';

export const VERSION = '0.1.0';
import { CONTROLLER_SERVICE_ACCOUNT_REF as CONTROLLER_SERVICE_ACCOUNT, CONTROLLER_USERNAME } from './api/types.js';

export { CONTROLLER_SERVICE_ACCOUNT, CONTROLLER_USERNAME };

export const CONTROLLER_FLAGS: FlagSpec[] = [
  { name: 'namespace', type: 'string', env: 'POD_NAMESPACE', required: true, description: 'HCP namespace the controller runs and builds in' },
  { name: 'management-kubeconfig', type: 'string', default: '', description: "kubeconfig for the management cluster; empty: the pod's in-cluster ServiceAccount (the Deployment leaves it empty; benches and local runs set it)" },
  { name: 'hosted-kubeconfig', type: 'string', required: true, description: "kubeconfig of the controller's own ServiceAccount in the hosted cluster (written by token-minter)" },
  { name: 'hosted-kubeconfig-wait', type: 'int', default: 300, description: 'seconds to wait for the hosted kubeconfig to appear (the token-minter sidecar writes it) before failing; control-plane never fails on it: it serves admission and waits on' },
  { name: 'pull-secret-name', type: 'string', default: 'pull-secret', description: 'Secret in the HCP namespace used to read release payloads and pull base images' },
  { name: 'leader-elect', type: 'bool', default: true, description: 'hold a Lease in the namespace before acting' },
  { name: 'leader-elect-lease-name', type: 'string', default: 'on-cluster-build-controller', description: 'name of that Lease' },
  { name: 'leader-elect-lease-duration', type: 'int', default: 137, description: 'seconds a Lease is valid' },
  { name: 'leader-elect-renew-deadline', type: 'int', default: 107, description: 'seconds the leader keeps trying to renew before it stops acting' },
  { name: 'leader-elect-retry-period', type: 'int', default: 26, description: 'seconds between Lease attempts' },
  { name: 'build-active-deadline-seconds', type: 'int', default: 3600, description: 'activeDeadlineSeconds of build Jobs' },
  { name: 'build-backoff-limit', type: 'int', default: 2, description: 'backoffLimit of build Jobs' },
  { name: 'build-history-limit', type: 'int', default: 3, description: 'builds (Jobs and NodePoolOSBuilds) kept per NodePoolOSConfig' },
  { name: 'build-user-namespaces', type: 'bool', default: false, description: 'deprecated, ignored: the build pod maps its build user\'s ID range itself (docs/design/build-pod.md, "The build pod")' },
  { name: 'own-builder-image', type: 'string', default: '', description: 'this image (it carries buildah): the builder for NodePools whose release\'s machine-config-operator image has none (before 4.17); empty: such NodePools are refused with NoBuilderImage' },
  { name: 'resync-period', type: 'int', default: 300, description: 'seconds between full reconciles without events' },
  { name: 'release-cache-size', type: 'int', default: 16, description: 'release payloads whose image references are kept in memory' },
  { name: 'registry-allow', type: 'string', default: '', description: 'comma-separated hosts, *.suffixes, addresses or CIDRs (each with an optional :port) the controller may reach on the management network although they are internal (a mirror registry)' },
  { name: 'health-port', type: 'int', default: 8081, description: 'port of /healthz and /readyz (HTTP)' },
  { name: 'tenant-layer', type: 'string', default: 'Enabled', description: "Enabled or Disabled: the provider's switch for the tenant OS layer of this hosted cluster (Disabled: NodePoolOSConfigs are not built, their status says why)" },
  ...metricsFlags({ allowedClients: HYPERSHIFT_SCRAPER, clientCA: HCP_CLIENT_CA }),
];

export { WEBHOOK_FLAGS };

/** The controller's flags and the webhook's (a flag both take, as --registry-allow or --tenant-layer, once: the controller's). */
export const CONTROL_PLANE_FLAGS: FlagSpec[] = [...CONTROLLER_FLAGS, ...WEBHOOK_FLAGS.filter((w) => !CONTROLLER_FLAGS.some((c) => c.name === w.name))];

export const MINTER_FLAGS: FlagSpec[] = [
  { name: 'kubeconfig', type: 'string', required: true, description: "the hosted cluster's admin kubeconfig, used only for TokenRequest" },
  { name: 'service-account-namespace', type: 'string', default: CONTROLLER_SERVICE_ACCOUNT.namespace, description: 'namespace of the ServiceAccount in the hosted cluster' },
  { name: 'service-account-name', type: 'string', default: CONTROLLER_SERVICE_ACCOUNT.name, description: 'the ServiceAccount whose token is minted' },
  { name: 'output-dir', type: 'string', required: true, description: 'directory that receives token and kubeconfig' },
  { name: 'expiration-seconds', type: 'int', default: 3600, description: 'requested token lifetime' },
  { name: 'oneshot', type: 'bool', default: false, description: 'mint once and exit' },
];

const COMMANDS: Record<string, { flags: FlagSpec[]; summary: string }> = {
  'control-plane': { flags: CONTROL_PLANE_FLAGS, summary: 'the controller and the admission webhook in one process: every replica serves admission, the Lease holder also builds' },
  controller: { flags: CONTROLLER_FLAGS, summary: 'build OS images for the NodePools of one hosted cluster (runs in its HCP namespace)' },
  webhook: { flags: WEBHOOK_FLAGS, summary: WEBHOOK_SUMMARY },
  'token-minter': { flags: MINTER_FLAGS, summary: "keep a token of the controller's hosted-cluster ServiceAccount fresh on disk" },
  fleet: { flags: FLEET_FLAGS, summary: FLEET_SUMMARY },
  'fleet-status': { flags: FLEET_STATUS_FLAGS, summary: FLEET_STATUS_SUMMARY },
  'fleet-rollout': { flags: FLEET_ROLLOUT_FLAGS, summary: FLEET_ROLLOUT_SUMMARY },
};

export { FLEET_FLAGS };

export function usage(): string {
  return [
    'usage: on-cluster-build COMMAND [flags]',
    '',
    ...Object.entries(COMMANDS).map(([n, c]) => `  ${n.padEnd(14)} ${c.summary}`),
    '',
    'on-cluster-build COMMAND --help lists its flags.',
  ].join('\n');
}

export function commandHelp(command: string): string {
  const c = COMMANDS[command];
  return `usage: on-cluster-build ${command} [flags]\n\n${c.summary}\n\nflags:\n${flagsHelp(c.flags)}\n`;
}

/** Parses one command's args exactly as the running program does (the package tests call this). */
export function parseCommand(command: string, args: string[], env: Record<string, string | undefined> = {}): FlagValues {
  const c = COMMANDS[command];
  if (!c) throw new FlagError(`on-cluster-build: unknown command ${JSON.stringify(command)}`);
  const flags = parseFlags(`on-cluster-build ${command}`, c.flags, args, env);
  if (command === 'fleet') checkFleetFlags(flags);
  return flags;
}

type Log = (msg: string, fields?: Record<string, unknown>) => void;

function jsonLog(component: string): Log {
  return (msg, fields = {}) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), component, msg, ...fields })}\n`);
}

function stopSignal(): AbortSignal {
  const ctrl = new AbortController();
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => ctrl.abort());
  return ctrl.signal;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`${usage()}\n`);
    return command ? 0 : 2;
  }
  if (command === '--version' || command === 'version') {
    process.stdout.write(`on-cluster-build ${VERSION}\n`);
    return 0;
  }
  if (!COMMANDS[command]) {
    process.stderr.write(`on-cluster-build: unknown command ${JSON.stringify(command)}\n${usage()}\n`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    process.stdout.write(commandHelp(command));
    return 0;
  }
  // A one-shot view with its own output (stdout) and exit codes; `-o` is its short flag.
  if (command === 'fleet-status') return fleetStatusMain(rest, process.env, (s) => process.stdout.write(s), (s) => process.stderr.write(s));
  if (command === 'fleet-rollout') return fleetRolloutMain(rest, process.env, (s) => process.stdout.write(s), (s) => process.stderr.write(s));
  let flags: FlagValues;
  try {
    flags = parseCommand(command, rest, process.env);
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    return 2;
  }
  const log = jsonLog(command);
  const signal = stopSignal();
  try {
    if (command === 'controller') await controller(flags, log, signal, false);
    else if (command === 'control-plane') await controller(flags, log, signal, true);
    else if (command === 'webhook') await webhook(flags, log, signal);
    else if (command === 'fleet') await (await startFleet(flags, log, signal)).done;
    else await runTokenMinter(
      {
        adminKubeconfig: String(flags.kubeconfig),
        serviceAccountNamespace: String(flags['service-account-namespace']),
        serviceAccountName: String(flags['service-account-name']),
        outputDir: String(flags['output-dir']),
        expirationSeconds: Number(flags['expiration-seconds']),
        oneShot: flags.oneshot === true,
        log,
      },
      signal,
    );
    return 0;
  } catch (e) {
    log('exiting', { error: (e as Error).message });
    return 1;
  }
}

/**
 * The controller; with `admission`, also the webhook's server in the same process (`control-plane`):
 * it serves from start-up on every replica, whether or not it holds the Lease, and one /metrics
 * serves both catalogues. A controller alone exits when it loses the Lease (as client-go's); one
 * that serves admission drops the loop and its caches and stands for the Lease again, so the
 * replica keeps answering the API server.
 */
async function controller(flags: FlagValues, log: Log, signal: AbortSignal, admission: boolean): Promise<void> {
  const namespace = String(flags.namespace);
  const management = await Kube.load(String(flags['management-kubeconfig']) || undefined);
  // Up before the wait below, so liveness holds while the sidecar mints the first token.
  const health = await healthServer(Number(flags['health-port']));
  let reconciler: Reconciler | undefined;
  const metrics = new Metrics(admission ? [...CONTROLLER_METRICS, ...ADMISSION_METRICS] : CONTROLLER_METRICS, {
    collectors: { [METRICS.nodePools.name]: () => countNodePools(reconciler?.retained().observed?.configs.values() ?? []) },
  });
  const metricsServer = await serveMetrics(flags, () => metrics.render(), log);
  const webhook = admission ? await startAdmission(flags, log, metrics) : undefined;
  if (webhook) log('serving', { port: webhook.port, ...(metricsServer ? { metricsPort: metricsServer.port } : {}) });
  try {
    // The sidecar writes the kubeconfig once it has a token: wait for it instead of crash-looping
    // (and, serving admission, without end: a replica that answers the API server stays up).
    const kubeconfigPath = String(flags['hosted-kubeconfig']);
    await waitForFile(kubeconfigPath, webhook ? Number.POSITIVE_INFINITY : Number(flags['hosted-kubeconfig-wait']), signal, log);
    if (signal.aborted) return;
    const hosted = await Kube.load(kubeconfigPath);
    const events = new EventRecorder({ sink: kubeEventSink(hosted), component: 'on-cluster-build-controller', instance: hostname(), onDrop: (cause) => metrics.inc(METRICS.eventsDropped, { cause }) });
    const telemetry = new ControllerTelemetry(metrics, events);
    const w = wiring({ cacheSize: Number(flags['release-cache-size']), registryAllow: allowList(flags['registry-allow']), telemetry });
    const newReconciler = () =>
      new Reconciler({
        management,
        hosted,
        namespace,
        resolveRelease: w.resolveRelease,
        verifyImage: w.verifyImage,
        nodePoolInputs: w.nodePoolInputs,
        validateConfig: w.validateConfig,
        tenantLayer: parseTenantLayer(flags['tenant-layer']),
        pullSecretName: String(flags['pull-secret-name']),
        activeDeadlineSeconds: Number(flags['build-active-deadline-seconds']),
        backoffLimit: Number(flags['build-backoff-limit']),
        historyLimit: Number(flags['build-history-limit']),
        userNamespaces: flags['build-user-namespaces'] === true,
        ...(flags['own-builder-image'] ? { ownBuilderImage: String(flags['own-builder-image']) } : {}),
        proxyEnv: ['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY'].filter((k) => process.env[k]).map((k) => ({ name: k, value: process.env[k]! })),
        log,
        telemetry,
      });
    // A term's reconciler is made when the term starts: a replica that never leads holds no caches.
    const run = (s: AbortSignal) => {
      const r = (reconciler = newReconciler());
      return runController({ management, hosted, namespace, reconciler: r, resyncSeconds: Number(flags['resync-period']), log }, s).finally(() => {
        reconciler = undefined;
      });
    };
    if (flags['leader-elect'] === false) return await run(signal);
    const elector = new LeaderElector(management, {
      namespace,
      name: String(flags['leader-elect-lease-name']),
      identity: `${hostname()}_${randomUUID()}`,
      leaseDurationSeconds: Number(flags['leader-elect-lease-duration']),
      renewDeadlineSeconds: Number(flags['leader-elect-renew-deadline']),
      retryPeriodSeconds: Number(flags['leader-elect-retry-period']),
      log,
    });
    for (;;) {
      const outcome = await elector.run(signal, run);
      if (outcome !== 'lost') return;
      // Like client-go: a controller that lost its Lease exits and is restarted as a follower.
      if (!webhook) throw new Error('leader election lost');
      log('standing for the Lease again; admission is served meanwhile');
    }
  } finally {
    await webhook?.close();
    await metricsServer?.close();
    await new Promise<void>((r) => health.close(() => r()));
  }
}

/** bin/on-cluster-build.js runs the webhook from builder/webhook/main.ts directly; this path is the same code. */
async function webhook(flags: FlagValues, log: Log, signal: AbortSignal): Promise<void> {
  await runWebhook(flags, log, signal);
}

async function waitForFile(file: string, seconds: number, signal: AbortSignal, log: Log): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  let next = Date.now();
  while (!existsSync(file) && !signal.aborted) {
    if (Date.now() >= deadline) throw new Error(`${file} did not appear within ${seconds}s (is the token-minter container running?)`);
    if (Date.now() >= next) {
      log('waiting for the hosted kubeconfig', { file });
      next = Date.now() + 30_000;
    }
    await abortableSleep(Math.min(1000, Math.max(0, deadline - Date.now())), signal);
  }
}

/** Liveness and readiness: the process runs its loop; hosted-cluster reachability is not required (see docs/design/controller.md). */
function healthServer(port: number): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const ok = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(ok ? 200 : 404, { 'Content-Type': 'text/plain' }).end(ok ? 'ok\n' : 'not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, () => resolve(server));
  });
}
