/**
 * `npm run bench -- footprint` (after `make build`): the memory of the per-HCP package's pods
 * summed over FP_BENCH_HCPS (500) HCP namespaces' worth of real, measured processes.
 *
 * Per namespace, the package's pods as processes, each with the Deployment's args and NODE_OPTIONS
 * (paths and ports pointed at the run): the controller pod = `control-plane` + `token-minter` (the
 * minter mints with the hosted cluster's admin kubeconfig and writes the kubeconfig the
 * control-plane process reads, as the two containers share a volume), and the webhook pod =
 * `webhook`. Each namespace has its own two API test servers (test/builder/clusters.ts: the
 * package's RBAC; TokenRequest served). FP_BENCH_BATCH (10) namespaces run at once; each batch
 * is measured idle (the Lease held, both sides observed, the token minted, both admission
 * replicas serving) and loaded (after 200 admissions to each admission replica), then stopped, and
 * the next batch starts. 500 namespaces' worth at once (1,500 processes) does not fit on a 2-core,
 * 24 GiB machine; in batches every one of them is started and measured, and the sums are of those
 * measurements, not one multiplied.
 *
 * Per pod: the union of its processes' resident physical pages (/proc/PID/pagemap; bench/_proc.ts
 * residentFrames): what the pod's cgroup is charged when it is the first pod of the image on its
 * node, so the node executable's pages count once per pod. This is what its requests must cover.
 * Per process: VmRSS. Per batch: the union over all its processes, what one node running that
 * batch's pods would hold (shared pages once).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ApiTestServer, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import { CONTROLLER_SERVICE_ACCOUNT, HOSTED_NAMESPACE } from '../../builder/api/types.js';
import { CONTROLLER_NODE_OPTIONS, CONTROLLER_RESOURCES, MINTER_NODE_OPTIONS, MINTER_RESOURCES, minterArgs } from '../../resources/builder-controller.js';
import { WEBHOOK_NODE_OPTIONS, WEBHOOK_RESOURCES, webhookArgs } from '../../resources/webhooks.js';
import { procStatus, residentFrames, stopChild, unionKb } from './_proc.js';
import { args as controlPlaneArgv, hcp, observed, post } from './control-plane.js';
import { request } from './webhook.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const HCPS = Number(process.env.FP_BENCH_HCPS ?? 500);
const BATCH = Number(process.env.FP_BENCH_BATCH ?? 10);
const STEP_TIMEOUT_MS = Number(process.env.FP_BENCH_STEP_TIMEOUT_S ?? 600) * 1000;
const SETTLE_MS = 3000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);

interface Proc {
  child: ChildProcess;
  log: string;
  port: number;
}

function start(argv: string[], nodeOptions: string, env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, [path.join(root, 'bin', 'on-cluster-build.js'), ...argv], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...env, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS: nodeOptions } });
  const p: Proc = { child, log: '', port: 0 };
  child.stderr!.on('data', (d: Buffer) => {
    p.log = (p.log + d.toString()).slice(-20_000);
    if (!p.port) p.port = Number(/"msg":"serving","port":(\d+)/.exec(p.log)?.[1] ?? 0);
  });
  return p;
}

async function until(what: string, cond: () => boolean, procs: Proc[]): Promise<void> {
  const t0 = Date.now();
  while (!cond()) {
    const dead = procs.find((p) => p.child.exitCode !== null || p.child.signalCode !== null);
    if (dead) throw new Error(`footprint bench: a process exited waiting for ${what}: ${dead.log.slice(-1500)}`);
    if (Date.now() - t0 > STEP_TIMEOUT_MS) throw new Error(`footprint bench: timed out after ${STEP_TIMEOUT_MS / 1000} s waiting for ${what}`);
    await sleep(100);
  }
}

interface Namespace {
  cp: Proc;
  minter: Proc;
  webhook: Proc;
  servers: ApiTestServer[];
}

/** Per namespace: the controller pod's union and the webhook pod's, and the three processes' RSS; KiB. */
interface Measure {
  controllerPod: number;
  webhookPod: number;
  cpRss: number;
  minterRss: number;
  webhookRss: number;
}

function measure(n: Namespace): { m: Measure; frames: Set<number>[] } {
  const f = [n.cp, n.minter, n.webhook].map((p) => residentFrames(p.child.pid!));
  const rss = [n.cp, n.minter, n.webhook].map((p) => procStatus(p.child.pid!).rssKb);
  return {
    m: { controllerPod: unionKb([f[0], f[1]]), webhookPod: unionKb([f[2]]), cpRss: rss[0]!, minterRss: rss[1]!, webhookRss: rss[2]! },
    frames: f.filter((s): s is Set<number> => s !== undefined),
  };
}

async function startNamespace(startApiServer: typeof StartApiServer, tmp: string, i: number, releases: string[]): Promise<Namespace> {
  const ns = `clusters-fp-${String(i).padStart(3, '0')}`;
  const d = path.join(tmp, ns);
  mkdirSync(d);
  writeFileSync(`${d}/tls.crt`, readFileSync(`${tmp}/tls.crt`));
  writeFileSync(`${d}/tls.key`, readFileSync(`${tmp}/tls.key`));
  const { mgmt, hosted } = await hcp(startApiServer, d, ns, releases);
  hosted.store.put({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: HOSTED_NAMESPACE } });
  writeFileSync(`${d}/admin.kubeconfig`, hosted.kubeconfig('system:admin'), { mode: 0o600 });
  const tokenDir = path.join(d, 'hosted-token');
  const minter = start(
    minterArgs().map((a) => a.replace(/^--kubeconfig=.*/, `--kubeconfig=${d}/admin.kubeconfig`).replace(/^--output-dir=.*/, `--output-dir=${tokenDir}`)),
    MINTER_NODE_OPTIONS,
  );
  const cp = start(controlPlaneArgv(d, ns, undefined, `${tokenDir}/kubeconfig`), CONTROLLER_NODE_OPTIONS);
  const webhook = start(
    webhookArgs().map((a) =>
      a
        .replace(/^--port=.*/, '--port=0')
        .replace(/^--tls-cert-file=.*/, `--tls-cert-file=${d}/tls.crt`)
        .replace(/^--tls-private-key-file=.*/, `--tls-private-key-file=${d}/tls.key`)
        .replace(/^--tenant-layer=.*/s, '--tenant-layer=Enabled')
        .replace(/^--metrics-port=.*/, '--metrics-port=0'),
    ),
    WEBHOOK_NODE_OPTIONS,
  );
  const n: Namespace = { cp, minter, webhook, servers: [mgmt, hosted] };
  const holds = () => mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: 'on-cluster-build-controller', namespace: ns })?.spec?.holderIdentity !== undefined;
  await until(`${ns}: token minted, Lease held, both sides observed, both admission replicas serving`, () => minter.log.includes('"token minted"') && holds() && observed(mgmt, ns) && cp.port > 0 && webhook.port > 0, [cp, minter, webhook]);
  return n;
}

export async function bench(): Promise<string> {
  const { startApiServer } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer };
  const tmp = mkdtempSync(path.join(tmpdir(), 'footprint-bench-'));
  const t0 = Date.now();
  const idle: Measure[] = [];
  const loaded: Measure[] = [];
  const nodeUnion: { idle: number; loaded: number; n: number }[] = [];
  const loads: number[] = [];
  let live: Namespace[] = [];
  const stopAll = async () => {
    for (const n of live) for (const p of [n.cp, n.minter, n.webhook]) await stopChild(p.child);
    for (const n of live) for (const s of n.servers) await s.stop();
    live = [];
  };
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${tmp}/tls.key`, '-out', `${tmp}/tls.crt`, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
    const ca = readFileSync(`${tmp}/tls.crt`, 'utf8');
    // The releases are never read: no NodePoolOSConfig exists, so no build is resolved.
    const releases = ['127.0.0.1:1/ocp/release@sha256:' + '1'.repeat(64)];
    for (let b = 0; b < HCPS; b += BATCH) {
      for (let i = b; i < Math.min(HCPS, b + BATCH); i++) live.push(await startNamespace(startApiServer, tmp, i, releases));
      await sleep(SETTLE_MS);
      const before = live.map(measure);
      idle.push(...before.map((x) => x.m));
      const agent = new https.Agent({ keepAlive: true, maxSockets: 8 });
      for (const n of live) for (const p of [n.cp, n.webhook]) for (let i = 0; i < 200; i += 8) await Promise.all(Array.from({ length: 8 }, (_, k) => post(agent, ca, p.port, request(i + k))));
      agent.destroy();
      await sleep(1000);
      const after = live.map(measure);
      loaded.push(...after.map((x) => x.m));
      nodeUnion.push({ idle: unionKb(before.flatMap((x) => x.frames)), loaded: unionKb(after.flatMap((x) => x.frames)), n: live.length });
      loads.push(loadavg()[0]!);
      await stopAll();
      process.stderr.write(`footprint: ${idle.length}/${HCPS} namespaces measured\n`);
    }
  } finally {
    await stopAll();
    rmSync(tmp, { recursive: true, force: true });
  }
  const sum = (ms: Measure[], k: keyof Measure) => ms.reduce((a, m) => a + m[k], 0);
  const range = (ms: Measure[], k: keyof Measure) => `${mib(Math.min(...ms.map((m) => m[k])))}–${mib(Math.max(...ms.map((m) => m[k])))}`;
  const row = (label: string, ms: Measure[]) =>
    `| ${label} | ${mib(sum(ms, 'controllerPod') + sum(ms, 'webhookPod'))} | ${mib((sum(ms, 'controllerPod') + sum(ms, 'webhookPod')) / ms.length)} | ${range(ms, 'controllerPod')} | ${range(ms, 'webhookPod')} | ${mib(sum(ms, 'cpRss') + sum(ms, 'minterRss') + sum(ms, 'webhookRss'))} | ${range(ms, 'cpRss')} / ${range(ms, 'minterRss')} / ${range(ms, 'webhookRss')} |`;
  const req = (r: { requests: { memory: string } }) => parseInt(r.requests.memory, 10);
  const requested = req(CONTROLLER_RESOURCES) + req(MINTER_RESOURCES) + req(WEBHOOK_RESOURCES);
  return [
    `## Footprint of ${HCPS} HCP namespaces, summed from measured processes`,
    '',
    `Command: \`make build && npm run bench -- footprint\` (test/bench/footprint.ts; \`FP_BENCH_HCPS\` (${HCPS}), \`FP_BENCH_BATCH\` (${BATCH}) namespaces at once). ` +
      'Per namespace the package\'s two pods as processes with the Deployments\' args and NODE_OPTIONS: the controller pod (`control-plane` + `token-minter`, the minter writing the hosted kubeconfig the control-plane reads) and the webhook pod (`webhook`), each namespace with its own two API test servers; ' +
      `${idle.length} namespaces (${idle.length * 3} processes) started and measured, ${BATCH} at a time. Pod = the union of its processes' resident physical pages (/proc/PID/pagemap: what its cgroup is charged as the first pod of the image on its node); MiB.`,
    '',
    '| | sum over all namespaces (pods) | per namespace (mean) | controller pod (min–max) | webhook pod (min–max) | sum of process RSS | RSS min–max: control-plane / minter / webhook |',
    '|---|---:|---:|---:|---:|---:|---:|',
    row('idle (token minted, Lease held, both sides observed, both serving)', idle),
    row('after 200 admissions to each admission replica', loaded),
    '',
    `Requests per namespace in the package: ${requested} MiB (control-plane ${CONTROLLER_RESOURCES.requests.memory}, token-minter ${MINTER_RESOURCES.requests.memory}, webhook ${WEBHOOK_RESOURCES.requests.memory}); for ${HCPS} namespaces ${((requested * HCPS) / 1024).toFixed(1)} GiB. ` +
      `One node running a whole batch's ${BATCH} namespaces would hold (union over all its processes) ${mib(nodeUnion.reduce((a, u) => a + u.idle, 0) / nodeUnion.length)} MiB idle, ${mib(nodeUnion.reduce((a, u) => a + u.loaded, 0) / nodeUnion.length)} MiB loaded (mean over batches). ` +
      `Load average (1 min) after each batch: ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}; ${((Date.now() - t0) / 60000).toFixed(1)} minutes in all.`,
    '',
  ].join('\n');
}

// `node dist/test/bench/footprint.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
