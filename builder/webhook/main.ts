/**
 * `on-cluster-build webhook`, as its own entry: bin/on-cluster-build.js imports this module (not
 * builder/cli.ts) for the webhook command, so the webhook process loads only what it runs — the
 * flag parser, the server, the rules and the precompiled schema validators — and never
 * @kubernetes/client-node, the controller or ajv's compiler (docs/benchmarks.md "Webhook").
 * builder/cli.ts takes WEBHOOK_FLAGS and runWebhook from here too, so `--help` and the package's
 * args test see the same flags.
 */
import { CONTROLLER_USERNAME, PULL_KEYS_CONFIGMAP } from '../api/types.js';
import { FlagError, flagsHelp, parseFlags, type FlagSpec, type FlagValues } from '../flags.js';
import { pushTargetProblem } from '../registry/push-target.js';
import { parseTenantLayer } from '../policy/layers.js';
import { ADMISSION_METRICS, AdmissionMetrics } from '../metrics/admission.js';
import { Metrics } from '../metrics/registry.js';
import { HCP_CLIENT_CA, HYPERSHIFT_SCRAPER, metricsFlags, serveMetrics } from '../metrics/server.js';
import { BODY_TIMEOUT_MS, MAX_BODY_BYTES, MAX_BYTES_IN_FLIGHT, startWebhookServer } from './server.js';

export const WEBHOOK_SUMMARY = "validate NodePoolOSConfigs and NodePoolOSBuilds for the hosted cluster's kube-apiserver";

export const WEBHOOK_FLAGS: FlagSpec[] = [
  { name: 'port', type: 'int', default: 8443, description: 'HTTPS port' },
  { name: 'tls-cert-file', type: 'string', required: true, description: 'serving certificate (PEM), re-read when it changes' },
  { name: 'tls-private-key-file', type: 'string', required: true, description: 'serving key (PEM), re-read when it changes' },
  { name: 'controller-username', type: 'string', default: CONTROLLER_USERNAME, description: 'the only user allowed to write NodePoolOSBuilds and the status of either kind' },
  { name: 'max-body-bytes', type: 'int', default: MAX_BODY_BYTES, description: 'largest AdmissionReview body accepted (larger: 413)' },
  { name: 'max-bytes-in-flight', type: 'int', default: MAX_BYTES_IN_FLIGHT, description: 'request body bytes buffered across all requests at once (past it: 429)' },
  { name: 'body-timeout-ms', type: 'int', default: BODY_TIMEOUT_MS, description: 'a request body must arrive within this many milliseconds of its headers (else 408)' },
  { name: 'registry-allow', type: 'string', default: '', description: 'comma-separated hosts, *.suffixes, addresses or CIDRs (each with an optional :port) a push target may name although they are internal (a mirror registry)' },
  {
    name: 'pull-keys-file',
    type: 'string',
    default: `${PULL_KEYS_CONFIGMAP.mountDir}/${PULL_KEYS_CONFIGMAP.key}`,
    description: "the HostedCluster pull secret's auth keys as the controller publishes them (one a line, no credentials), re-read as it changes: a push target none covers is refused; missing: not checked (the controller still refuses it in status); empty value: never checked",
  },
  { name: 'tenant-layer', type: 'string', default: 'Enabled', description: "Enabled or Disabled: the provider's switch for the tenant OS layer of this hosted cluster (Disabled: NodePoolOSConfigs are refused)" },
  ...metricsFlags({ allowedClients: HYPERSHIFT_SCRAPER, clientCA: HCP_CLIENT_CA }),
];

/** `--registry-allow`: the provider's allow-list of internal registries (the controller takes the same flag). */
export const allowList = (v: unknown): string[] => String(v ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');

type Log = (msg: string, fields?: Record<string, unknown>) => void;

/** Serves until `signal` aborts. */
export async function runWebhook(flags: FlagValues, log: Log, signal: AbortSignal): Promise<void> {
  const metrics = new Metrics(ADMISSION_METRICS);
  const metricsServer = await serveMetrics(flags, () => metrics.render(), log);
  const server = await startAdmission(flags, log, metrics);
  log('serving', { port: server.port, ...(metricsServer ? { metricsPort: metricsServer.port } : {}) });
  if (!signal.aborted) await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
  await metricsServer?.close();
}

/**
 * The admission server from the webhook's flags, its counters in `metrics` (a registry holding
 * ADMISSION_METRICS: the webhook's own, or the control-plane process's shared one).
 */
export function startAdmission(flags: FlagValues, log: Log, metrics: Metrics): ReturnType<typeof startWebhookServer> {
  return startWebhookServer({
    port: Number(flags.port),
    certFile: String(flags['tls-cert-file']),
    keyFile: String(flags['tls-private-key-file']),
    controllerUsername: String(flags['controller-username']),
    maxBodyBytes: Number(flags['max-body-bytes']),
    maxBytesInFlight: Number(flags['max-bytes-in-flight']),
    bodyTimeoutMs: Number(flags['body-timeout-ms']),
    pushTarget: ((allow) => (spec: string) => pushTargetProblem(spec, { allow }))(allowList(flags['registry-allow'])),
    tenantLayerDisabled: parseTenantLayer(flags['tenant-layer']) === 'Disabled',
    ...(String(flags['pull-keys-file'] ?? '') !== '' ? { pullKeysFile: String(flags['pull-keys-file']) } : {}),
    log: (line: object) => log('admission', line as Record<string, unknown>),
    telemetry: new AdmissionMetrics(metrics),
  });
}

/** `on-cluster-build webhook ARGS`: exit code 0 stopped, 1 failed, 2 usage error (as builder/cli.ts). */
export async function webhookMain(args: string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`usage: on-cluster-build webhook [flags]\n\n${WEBHOOK_SUMMARY}\n\nflags:\n${flagsHelp(WEBHOOK_FLAGS)}\n`);
    return 0;
  }
  let flags: FlagValues;
  try {
    flags = parseFlags('on-cluster-build webhook', WEBHOOK_FLAGS, args, process.env);
  } catch (e) {
    process.stderr.write(`${(e as FlagError).message}\n`);
    return 2;
  }
  const log: Log = (msg, fields = {}) => process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), component: 'webhook', msg, ...fields })}\n`);
  const ctrl = new AbortController();
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => ctrl.abort());
  try {
    await runWebhook(flags, log, ctrl.signal);
    return 0;
  } catch (e) {
    log('exiting', { error: (e as Error).message });
    return 1;
  }
}
