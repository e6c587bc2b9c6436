/**
 * `on-cluster-build fleet`: the fleet component's process on the management cluster
 * (docs/design/fleet.md "The fleet component"). Every replica serves the mutating webhook
 * (`/mutate-nodepool`: pure, reads nothing, so it needs no leadership) and /healthz, /readyz; the
 * leader (a Lease in --namespace) runs the gate's loop (builder/fleet/run.ts) with the provider
 * layer's build registry (builder/fleet/provider-build.ts).
 */
import { METRICS } from '../metrics/catalogue.js';
import { EventRecorder } from '../metrics/events.js';
import { FleetTelemetry } from '../metrics/fleet.js';
import { AdmissionMetrics } from '../metrics/admission.js';
import { MetricsServer, metricsFlags, PLATFORM_CLIENT_CA, PLATFORM_SCRAPER, serveMetrics } from '../metrics/server.js';
import { kubeEventSink } from '../clusters/event-sink.js';
/** The fleet's webhook already serves on 9443. */
const FLEET_METRICS_PORT = 8443;
import { createHash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as http from 'node:http';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { parseReference } from 'pkogen/oci';
import { FlagError, type FlagSpec, type FlagValues } from '../flags.js';
import { Kube, RESOURCES } from '../clusters/kube.js';
import { LeaderElector } from '../clusters/leader.js';
import { NetGuard } from '../registry/net-guard.js';
import { FLEET_BUILD_NAMESPACE, FLEET_LEASE_NAME, PUSH_SECRET_NAME } from './rbac.js';
import { allowList } from '../webhook/main.js';
import { describeError } from '../registry/describe-error.js';
import { BuildKey, BuildRegistry, imageForFromRegistry } from './build-registry.js';
import type { ImageKey, ImageState, Preconditions } from './gate.js';
import { fleetPreconditions } from './preconditions.js';
import { fleetRegistryLookups } from './registry-lookups.js';
import { prebuiltProviderImage, ProviderBuilds, readPushSecret, repositoryOnly } from './provider-build.js';
import { parsePolicy, PolicyError } from './rollout/policy.js';
import { parseBuildPlacement, PlacementError } from './placement.js';
import { runFleet } from './run.js';
import { FleetCache } from './cache.js';
import { startFleetWebhook } from './webhook.js';

export const FLEET_SUMMARY = 'gate NodePool upgrades and build the provider OS layer once for the fleet (runs on the management cluster)';

export const FLEET_FLAGS: FlagSpec[] = [
  { name: 'namespace', type: 'string', env: 'POD_NAMESPACE', required: true, description: "the fleet component's own namespace: its Lease and the push Secret" },
  { name: 'build-namespace', type: 'string', default: FLEET_BUILD_NAMESPACE, description: 'namespace the provider build Jobs run in (Pod Security baseline, the build ServiceAccount and its SCC: made by the fleet package)' },
  { name: 'kubeconfig', type: 'string', default: '', description: "kubeconfig for the management cluster; empty: the pod's in-cluster ServiceAccount" },
  { name: 'provider-repository', type: 'string', required: true, description: 'repository (registry/path, no tag) provider-layer images are pushed to' },
  { name: 'provider-layer-file', type: 'string', default: '', description: "path of the provider's Containerfile (final stage FROM configs); empty: no provider layer build" },
  { name: 'provider-image', type: 'string', default: '', description: 'a prebuilt provider image by digest (repo@sha256:…), instead of --provider-layer-file' },
  { name: 'push-secret-name', type: 'string', default: PUSH_SECRET_NAME, description: 'Secret in --namespace (dockerconfigjson): push credentials for --provider-repository, pull credentials for release registries' },
  { name: 'max-hold-seconds', type: 'int', default: 3600, description: 'the longest the gate holds one NodePool for one release' },
  { name: 'rollout', type: 'string', default: '', description: 'the rollout policy as JSON (docs/design/fleet-rollout.md); empty: {"type":"RideReleaseChange"}' },
  { name: 'resync-period', type: 'int', default: 300, description: 'seconds between full passes over every NodePool' },
  { name: 'webhook-port', type: 'int', default: 9443, description: 'HTTPS port of the mutating webhook (/mutate-nodepool)' },
  { name: 'tls-dir', type: 'string', default: '/var/run/tls', description: 'directory with tls.crt and tls.key (re-read when they change)' },
  { name: 'health-port', type: 'int', default: 8081, description: 'port of /healthz and /readyz (HTTP)' },
  { name: 'leader-elect', type: 'bool', default: true, description: 'hold a Lease in --namespace before running the gate' },
  { name: 'provider-trust-bundle', type: 'string', default: '', description: 'ConfigMap in --namespace whose ca-bundle.crt (PEM) provider builds trust for their pulls and push besides the system CAs (a registry signed by a private CA); empty: none' },
  { name: 'build-placement', type: 'string', default: '', description: 'per architecture, where provider builds run, as JSON: {"arm64":{"nodeSelector":{…},"tolerations":[…]}}; an architecture with a placement counts as buildable without a Node of it now' },
  { name: 'registry-allow', type: 'string', default: '', description: 'comma-separated hosts, *.suffixes, addresses or CIDRs (each with an optional :port) the fleet component may reach although they are internal (a mirror registry)' },
  ...metricsFlags({ allowedClients: PLATFORM_SCRAPER, clientCA: PLATFORM_CLIENT_CA, port: FLEET_METRICS_PORT }),
];

const DIGEST_IMAGE_RE = /^[^@\s]+@sha256:[0-9a-f]{64}$/;

/** Checks what the flag parser cannot (usage errors: exit 2). */
export function checkFleetFlags(f: FlagValues): void {
  const layerFile = String(f['provider-layer-file'] ?? '');
  const image = String(f['provider-image'] ?? '');
  if (layerFile && image) throw new FlagError('on-cluster-build fleet: give --provider-layer-file or --provider-image, not both');
  if (image && !DIGEST_IMAGE_RE.test(image)) throw new FlagError(`on-cluster-build fleet: --provider-image must be an image by digest (repo@sha256:<64 hex>)`);
  const buildNamespace = String(f['build-namespace'] ?? '');
  if (!/^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(buildNamespace)) throw new FlagError(`on-cluster-build fleet: --build-namespace ${JSON.stringify(buildNamespace.slice(0, 100))} is not a namespace name`);
  const repo = String(f['provider-repository'] ?? '');
  try {
    parseReference(repo);
  } catch (e) {
    throw new FlagError(`on-cluster-build fleet: --provider-repository ${JSON.stringify(repo.slice(0, 200))} is not a repository: ${(e as Error).message}`);
  }
  if (!repositoryOnly(repo)) throw new FlagError('on-cluster-build fleet: --provider-repository names a repository (registry/path), without a tag or digest');
  try {
    parsePolicy(String(f.rollout ?? ''), '--rollout');
  } catch (e) {
    if (!(e instanceof PolicyError)) throw e;
    throw new FlagError(`on-cluster-build fleet: ${e.message}`);
  }
  const trust = String(f['provider-trust-bundle'] ?? '');
  if (trust && !/^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/.test(trust)) throw new FlagError(`on-cluster-build fleet: --provider-trust-bundle ${JSON.stringify(trust.slice(0, 100))} is not a ConfigMap name`);
  try {
    parseBuildPlacement(String(f['build-placement'] ?? ''));
  } catch (e) {
    if (!(e instanceof PlacementError)) throw e;
    throw new FlagError(`on-cluster-build fleet: ${e.message}`);
  }
  for (const n of ['max-hold-seconds', 'resync-period']) if (!(Number(f[n]) > 0)) throw new FlagError(`on-cluster-build fleet: --${n} must be a positive number of seconds`);
  for (const n of ['webhook-port', 'health-port']) if (!(Number(f[n]) >= 0 && Number(f[n]) <= 65535)) throw new FlagError(`on-cluster-build fleet: --${n} must be a port number`);
  try {
    allowList(f['registry-allow']).forEach((e) => new NetGuard({ allow: [e] }));
  } catch (e) {
    throw new FlagError(`on-cluster-build fleet: --registry-allow: ${(e as Error).message}`);
  }
}

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** The builder is the release's own MCO image (≥ 4.17): a function of the release digest, so this key part is a constant. */
export const RELEASE_BUILDER_DIGEST = `sha256:${createHash('sha256').update('on-cluster-build: the release machine-config-operator image').digest('hex')}`;

export interface FleetProcess {
  webhookPort: number;
  healthPort: number;
  /** /metrics, when served (--metrics-port). */
  metricsPort?: number;
  /** Resolves when the process has stopped (signal aborted, or leadership lost: then it rejects). */
  done: Promise<void>;
}

/** Starts the fleet component; `done` settles when it stops. Tests run it in-process (its own seams via `over`). */
export async function startFleet(
  flags: FlagValues,
  log: Log,
  signal: AbortSignal,
  over: {
    management?: Kube;
    now?: () => number;
    waitingRecheckMs?: number;
    host?: string;
    imageFor?: (k: ImageKey) => Promise<ImageState> | ImageState;
    /** The build registry's seams (tests: no build pod runs on the API test server). */
    providerBuilds?: { build: (k: BuildKey) => Promise<{ image: string }>; lookup?: (k: BuildKey) => Promise<{ image: string } | undefined> };
    leaseSeconds?: [number, number, number];
    /** The gate's preconditions (default: builder/fleet/preconditions.ts against the management cluster). */
    preconditions?: Preconditions;
  } = {},
): Promise<FleetProcess> {
  const namespace = String(flags.namespace);
  const policy = parsePolicy(String(flags.rollout ?? ''), '--rollout');
  const management = over.management ?? (await Kube.load(String(flags.kubeconfig) || undefined));
  const guard = new NetGuard({ allow: allowList(flags['registry-allow']) });
  const pushSecretName = String(flags['push-secret-name']);
  const repository = String(flags['provider-repository']);
  const layerFile = String(flags['provider-layer-file']);
  const providerImage = String(flags['provider-image']);
  const placement = parseBuildPlacement(String(flags['build-placement'] ?? ''));
  const trustBundleConfigMap = String(flags['provider-trust-bundle'] ?? '');
  let containerfile: string | undefined;
  if (layerFile) {
    try {
      containerfile = readFileSync(layerFile, 'utf8');
    } catch (e) {
      throw new Error(`--provider-layer-file ${layerFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    if (!/^\s*FROM\s+configs\b/im.test(containerfile)) throw new Error(`--provider-layer-file ${layerFile}: the provider's Containerfile must build FROM configs (the release's base OS), like a tenant's`);
  }
  const layerDigest = `sha256:${createHash('sha256').update(containerfile ?? providerImage).digest('hex')}`;
  const layer = providerImage || (containerfile !== undefined ? `provider-layer@${layerDigest}` : 'none');

  let buildStats: (() => { queued: number; running: number }) | undefined;
  const events = new EventRecorder({ sink: kubeEventSink(management), component: 'on-cluster-build-fleet', instance: hostname(), ...(over.now ? { now: over.now } : {}), onDrop: (cause) => telemetry.metrics.inc(METRICS.eventsDropped, { cause }) });
  const telemetry: FleetTelemetry = new FleetTelemetry({ maxHoldSeconds: Number(flags['max-hold-seconds']), now: over.now ?? Date.now, builds: () => buildStats?.() ?? { queued: 0, running: 0 }, events });
  let imageFor: (k: ImageKey) => Promise<ImageState> | ImageState;
  let onImageFinished: ((f: () => void) => () => void) | undefined;
  if (over.imageFor) imageFor = over.imageFor;
  else if (providerImage || containerfile !== undefined) {
    const { resolveBase, resolveReleaseDigest, verify, trustBundle } = fleetRegistryLookups({ management, namespace, pushSecretName, connectPolicy: guard, ...(trustBundleConfigMap ? { trustBundleConfigMap } : {}) });
    const builds =
      over.providerBuilds ??
      (containerfile !== undefined
        ? new ProviderBuilds({ management, namespace, buildNamespace: String(flags['build-namespace']), repository, containerfile, pushSecretName, connectPolicy: guard, signal, resolveBase, verify, placement, ...(trustBundleConfigMap ? { trustBundleConfigMap } : {}) })
        : { build: prebuiltProviderImage({ image: providerImage, pushSecret: () => readPushSecret(management, namespace, pushSecretName), resolveBase, verify, trustBundle }) });
    const registry = new BuildRegistry({ build: builds.build, ...('lookup' in builds && builds.lookup ? { lookup: builds.lookup } : {}), telemetry });
    buildStats = () => registry.stats();
    onImageFinished = (f) => registry.onFinished(f);
    imageFor = imageForFromRegistry({
      registry,
      layerDigest: () => layerDigest,
      builderImageDigest: RELEASE_BUILDER_DIGEST,
      resolveReleaseDigest,
    });
  } else imageFor = () => ({ failed: 'no provider layer is configured (--provider-layer-file or --provider-image): a provider-only hand-off cannot be rebuilt for a new release' });

  const tlsDir = String(flags['tls-dir']);
  const webhook = await startFleetWebhook({
    port: Number(flags['webhook-port']),
    ...(over.host ? { host: over.host } : {}),
    certFile: path.join(tlsDir, 'tls.crt'),
    keyFile: path.join(tlsDir, 'tls.key'),
    ...(over.now ? { now: () => new Date(over.now!()) } : {}),
    maxHoldSeconds: Number(flags['max-hold-seconds']),
    log: (line) => log('admission', line as Record<string, unknown>),
    telemetry: new AdmissionMetrics(telemetry.metrics),
  });
  let health: http.Server;
  let metricsServer: MetricsServer | undefined;
  try {
    health = await healthServer(Number(flags['health-port']), over.host);
    metricsServer = await serveMetrics(flags, () => telemetry.metrics.render(), log, over.host);
  } catch (e) {
    await webhook.close();
    throw e;
  }
  const healthAddr = health.address();
  log('serving', { webhookPort: webhook.port, healthPort: typeof healthAddr === 'object' && healthAddr ? healthAddr.port : Number(flags['health-port']), layer, rollout: policy.type });

  const clock = over.now
    ? { now: over.now, setTimeout: (f: () => void, ms: number) => setTimeout(f, ms).unref(), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) }
    : undefined;
  const run = async (s: AbortSignal) => {
    // The fleet's own Namespace owns the provider-images ConfigMaps: uninstalling the package removes them.
    let owner: { apiVersion: string; kind: string; name: string; uid: string } | undefined;
    try {
      const ns = await management.get(RESOURCES.namespaces, namespace);
      if (ns?.metadata.uid) owner = { apiVersion: 'v1', kind: 'Namespace', name: namespace, uid: ns.metadata.uid };
    } catch (e) {
      log('provider-images ConfigMaps get no owner', { namespace, error: describeError(e) });
    }
    // The watch caches the gate reads from serve the preconditions' reads too (HostedControlPlanes, pull keys).
    const cache = new FleetCache(management);
    return runFleet({ management, cache, layer, ...(owner ? { owner } : {}), ...(onImageFinished ? { onImageFinished } : {}), providerLayer: over.imageFor !== undefined || providerImage !== '' || containerfile !== undefined, imageFor, rollout: { policy, namespace }, preconditions: over.preconditions ?? fleetPreconditions({ management: cache.kube, ...(providerImage || containerfile !== undefined ? { repository } : {}), builds: containerfile !== undefined ? 'nodes' : providerImage ? 'prebuilt' : 'none', placement }), maxHoldSeconds: Number(flags['max-hold-seconds']), resyncSeconds: Number(flags['resync-period']), ...(clock ? { clock } : {}), ...(over.waitingRecheckMs ? { waitingRecheckMs: over.waitingRecheckMs } : {}), log, telemetry }, s);
  };
  const done = (async () => {
    try {
      if (flags['leader-elect'] === false) return await run(signal);
      const [d, r, p] = over.leaseSeconds ?? [137, 107, 26];
      const elector = new LeaderElector(management, { namespace, name: FLEET_LEASE_NAME, identity: `${hostname()}_${randomUUID()}`, leaseDurationSeconds: d, renewDeadlineSeconds: r, retryPeriodSeconds: p, log });
      const outcome = await elector.run(signal, run);
      if (outcome === 'lost') throw new Error('leader election lost');
    } finally {
      await webhook.close();
      await metricsServer?.close();
      await events.flush();
      await new Promise<void>((res) => health.close(() => res()));
    }
  })();
  const addr = health.address();
  return { webhookPort: webhook.port, healthPort: typeof addr === 'object' && addr ? addr.port : Number(flags['health-port']), ...(metricsServer ? { metricsPort: metricsServer.port } : {}), done };
}

/** /healthz and /readyz: up once the webhook serves (it runs in every replica, leader or not). */
function healthServer(port: number, host?: string): Promise<http.Server> {
  const server = http.createServer((req, res) => {
    const ok = req.url === '/healthz' || req.url === '/readyz';
    res.writeHead(ok ? 200 : 404, { 'Content-Type': 'text/plain' }).end(ok ? 'ok\n' : 'not found\n');
  });
  return new Promise((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) => reject(new Error(`cannot listen on port ${port} for /healthz: ${e.code ?? e.message}`)));
    server.listen(port, host ?? '0.0.0.0', () => resolve(server));
  });
}
