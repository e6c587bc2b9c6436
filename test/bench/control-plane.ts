/**
 * `npm run bench -- control-plane` (after `make build`): the memory of `on-cluster-build
 * control-plane` (the controller and the webhook in one process) as a hosted control plane's pair of
 * replicas runs it, and the same summed over several HCP namespaces' worth of real processes.
 *
 * Part 1, one HCP namespace: two replicas (`node bin/on-cluster-build.js control-plane` with the
 * controller Deployment's args, paths and ports pointed at the run, NODE_OPTIONS the Deployment's
 * or CP_BENCH_NODE_OPTIONS; two as during a rollout), both pinned to core 0, against two API
 * test servers and docker-registry with two release payloads in / beside this process on core 1
 * (the controller bench's set-up: test/bench/controller.ts). Read from /proc: VmRSS, VmHWM (peak)
 * and Pss (smaps_rollup: pages shared with other processes, the node executable's above all,
 * counted in shares) of the Lease holder and the follower: idle (Lease held, both sides observed,
 * 3 NodePools, no config); after 200 warm-up admissions and CP_BENCH_SECONDS of open-loop
 * admissions at CP_BENCH_RATE/s to the holder (the replica that also runs the loop; latency from
 * the scheduled send, the holder's CPU per admission); after CP_BENCH_CONFIGS NodePools each with a
 * NodePoolOSConfig have a status written by the holder; then the webhook's worst parse on the
 * holder while it keeps those configs: 10 rounds of as many maximum-size AdmissionReviews of the
 * smallest JSON values as the in-flight budget admits, sent together (peak RSS, which the memory
 * limit must cover, and whether it still answers).
 *
 * Part 2 (off by default), CP_BENCH_HCPS HCP namespaces' worth (a scaled-down fleet: the machine is shared by
 * several agents on 2 cores; 500 namespaces' worth of processes would not fit on it): per
 * namespace its own two API test servers and two replicas, not pinned; each pair idle (Lease held,
 * both sides observed), then 200 admissions to each replica; the sum over all the processes of
 * VmRSS (what the requests must cover per container) and of Pss (what the node's memory really
 * holds, shared executable pages counted once), and the mean per namespace.
 * Every wait is bounded; every process is stopped at the end, on failure too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ApiTestServer, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import type { cleanupRegistry as CleanupRegistry, startRegistry as StartRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { managementUser, startClusters } from '../builder/clusters.js';
import { BUILD_NAMESPACE, CONTROLLER_USERNAME, HOSTED_NAMESPACE } from '../../builder/api/types.js';
import { LEASE_NAME } from '../../builder/policy/rbac.js';
import { CONTROLLER_NODE_OPTIONS, controlPlaneArgs } from '../../resources/builder-controller.js';
import { configSchema } from '../../resources/config.js';
import { cpuSeconds, pinToCore1, procStatus, stopChild } from './_proc.js';
import { addHcpNodePool, dockerConfigSecret, nodePoolOSConfig, pushReleases } from './controller.js';
import { bigReview, pct, request } from './webhook.js';
import { MAX_BODY_BYTES, MAX_BYTES_IN_FLIGHT } from '../../builder/webhook/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const RATE = Number(process.env.CP_BENCH_RATE ?? 500);
const SECONDS = Number(process.env.CP_BENCH_SECONDS ?? 10);
const CONFIGS = Number(process.env.CP_BENCH_CONFIGS ?? 100);
// Part 2 (pairs of replicas per namespace) predates the package's shape; test/bench/footprint.ts measures the package's pods.
const HCPS = Number(process.env.CP_BENCH_HCPS ?? 0);
const NODE_OPTIONS = process.env.CP_BENCH_NODE_OPTIONS ?? CONTROLLER_NODE_OPTIONS;
const IDLE_NODEPOOLS = 3;
const SETTLE_MS = 5000;
/** Longest wait for any one step (the machine is shared). */
const STEP_TIMEOUT_MS = Number(process.env.CP_BENCH_STEP_TIMEOUT_S ?? 900) * 1000;
const PUSH_HOST = 'quay.example.com';
const GROUP_VERSION = 'on-cluster-build.pkogen.io/v1alpha1';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);

/** Proportional set size in KiB: each page shared with N processes counts 1/N. */
function pssKb(pid: number): number {
  return Number(/^Pss:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? NaN);
}

/** The controller Deployment's args as `control-plane`, plus the webhook Deployment's serving args, pointed at this run. */
export function args(dir: string, ns: string, registryHost?: string, hostedKubeconfig = `${dir}/hosted.kubeconfig`): string[] {
  const defaults = configSchema.properties as Record<string, { default?: unknown }>;
  const own = controlPlaneArgs().slice(1).map((a) =>
    a
      .replace(/\{\{ \.config\.(\w+) \}\}/g, (_, k: string) => String(defaults[k]?.default ?? ''))
      .replace(/^--hosted-kubeconfig=.*/, `--hosted-kubeconfig=${hostedKubeconfig}`)
      .replace(/^--health-port=.*/, '--health-port=0')
      .replace(/^--metrics-port=.*/, '--metrics-port=0')
      .replace(/^--tenant-layer=.*/s, '--tenant-layer=Enabled')
      .replace(/^--port=.*/, '--port=0')
      .replace(/^--tls-cert-file=.*/, `--tls-cert-file=${dir}/tls.crt`)
      .replace(/^--tls-private-key-file=.*/, `--tls-private-key-file=${dir}/tls.key`),
  );
  return ['control-plane', ...own, `--namespace=${ns}`, `--management-kubeconfig=${dir}/management.kubeconfig`, ...(registryHost ? [`--registry-allow=${registryHost}`] : [])];
}

interface Replica {
  child: ChildProcess;
  port: number;
  log: string;
}

async function startReplica(argv: string[], pin: boolean, all: Replica[]): Promise<Replica> {
  const cmd = [...(pin ? ['taskset', '-c', '0'] : []), process.execPath, path.join(root, 'bin', 'on-cluster-build.js'), ...argv];
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS } });
  const r: Replica = { child, port: 0, log: '' };
  all.push(r);
  child.stderr!.on('data', (d: Buffer) => {
    r.log = (r.log + d.toString()).slice(-20_000);
    if (!r.port) r.port = Number(/"msg":"serving","port":(\d+)/.exec(r.log)?.[1] ?? 0);
  });
  await until('a replica to serve admission', () => r.port > 0, r);
  return r;
}

async function until(what: string, cond: () => boolean, r?: Replica): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (r && (r.child.exitCode !== null || r.child.signalCode !== null)) throw new Error(`control-plane bench: a replica exited waiting for ${what}: ${r.log.slice(-1500)}`);
    if (Date.now() - t0 > STEP_TIMEOUT_MS) throw new Error(`control-plane bench: timed out after ${STEP_TIMEOUT_MS / 1000} s waiting for ${what}${r ? `: ${r.log.slice(-1500)}` : ''}`);
    await sleep(100);
  }
  return (Date.now() - t0) / 1000;
}

export function post(agent: https.Agent, ca: string, port: number, r: { path: string; body: string }): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: r.path, method: 'POST', ca, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(r.body) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/** One namespace's management and hosted side (no configs yet), and the kubeconfigs its replicas use. */
export async function hcp(startApiServer: typeof StartApiServer, dir: string, ns: string, releases: string[]): Promise<{ mgmt: ApiTestServer; hosted: ApiTestServer }> {
  const { mgmt, hosted } = await startClusters(startApiServer, ns);
  mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  mgmt.store.put({ ...(dockerConfigSecret(ns, 'pull-secret', { 'quay.io': 'hcp:hcp-password', [PUSH_HOST]: 'nodes:nodes-password' }) as object) });
  mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: ns }, spec: { releaseImage: releases[0] } });
  for (let p = 0; p < IDLE_NODEPOOLS; p++) addHcpNodePool(mgmt, p, releases[p % releases.length]!, ns);
  for (const n of [HOSTED_NAMESPACE, BUILD_NAMESPACE, 'openshift-config']) hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
  hosted.store.put(dockerConfigSecret('openshift-config', 'pull-secret', { 'quay.io': 'hosted-pull:hosted-pull-password' }) as never);
  hosted.store.put(dockerConfigSecret(HOSTED_NAMESPACE, 'push-creds', { [PUSH_HOST]: 'robot:push-password' }) as never);
  for (let n = 1; n <= 3; n++) {
    hosted.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: `ip-10-0-1-${n}`, labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': `ip-10-0-1-${n}` } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
  }
  writeFileSync(path.join(dir, 'management.kubeconfig'), mgmt.kubeconfig(managementUser(ns)), { mode: 0o600 });
  writeFileSync(path.join(dir, 'hosted.kubeconfig'), hosted.kubeconfig(CONTROLLER_USERNAME), { mode: 0o600 });
  return { mgmt, hosted };
}

/** The replica whose identity (logged when it became leader) holds the namespace's Lease. */
export function holderOf(mgmt: ApiTestServer, ns: string, pair: Replica[]): Replica | undefined {
  const id = mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: LEASE_NAME, namespace: ns })?.spec?.holderIdentity;
  return id ? pair.find((r) => r.log.includes(`"identity":"${id}"`)) : undefined;
}

export const observed = (mgmt: ApiTestServer, ns: string) => mgmt.audit.some((e) => e.user === managementUser(ns) && e.verb === 'list' && e.resource === 'hostedcontrolplanes');

interface Figures {
  rssKb: number;
  hwmKb: number;
  pssKb: number;
}
const figures = (r: Replica): Figures => ({ ...procStatus(r.child.pid!), pssKb: pssKb(r.child.pid!) });
const pair = (label: string, h: Figures, f: Figures) =>
  `| ${label} | ${mib(h.rssKb)} (${mib(h.hwmKb)}) / ${mib(h.pssKb)} | ${mib(f.rssKb)} (${mib(f.hwmKb)}) / ${mib(f.pssKb)} | ${mib(h.rssKb + f.rssKb)} / ${mib(h.pssKb + f.pssKb)} |`;

export async function bench(): Promise<string> {
  const { startApiServer } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer };
  const { startRegistry, cleanupRegistry } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/oci/registry-harness.js')).href)) as { startRegistry: typeof StartRegistry; cleanupRegistry: typeof CleanupRegistry };
  const pinned = pinToCore1();
  const tmp = mkdtempSync(path.join(tmpdir(), 'control-plane-bench-'));
  const servers: ApiTestServer[] = [];
  const replicas: Replica[] = [];
  let reg: TestRegistry | undefined;
  try {
    execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${tmp}/tls.key`, '-out', `${tmp}/tls.crt`, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
    const ca = readFileSync(`${tmp}/tls.crt`, 'utf8');
    reg = await startRegistry('http');
    const releases = await pushReleases(reg.host);

    // Part 1: one HCP namespace, both replicas pinned to core 0.
    const ns = 'clusters-banana';
    const { mgmt, hosted } = await hcp(startApiServer, tmp, ns, releases);
    servers.push(mgmt, hosted);
    const argv = args(tmp, ns, reg.host);
    const one: Replica[] = [];
    for (let i = 0; i < 2; i++) await startReplica(argv, pinned, one);
    replicas.push(...one);
    await until('a Lease holder that has observed both sides', () => holderOf(mgmt, ns, one) !== undefined && observed(mgmt, ns));
    await sleep(SETTLE_MS);
    const holder = holderOf(mgmt, ns, one)!;
    const follower = one.find((r) => r !== holder)!;
    const idle = [figures(holder), figures(follower)] as const;

    const agent = new https.Agent({ keepAlive: true, maxSockets: 32 });
    for (let i = 0; i < 200; i += 32) await Promise.all(Array.from({ length: 32 }, (_, k) => post(agent, ca, holder.port, request(i + k))));
    for (let i = 0; i < 200; i += 32) await Promise.all(Array.from({ length: 32 }, (_, k) => post(agent, ca, follower.port, request(i + k))));
    const total = RATE * SECONDS;
    const bodies = Array.from({ length: 500 }, (_, i) => request(i));
    const lat: number[] = [];
    let errors = 0;
    const cpu0 = cpuSeconds(holder.child.pid!);
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      pending.push(
        post(agent, ca, holder.port, bodies[i % bodies.length]!).then(
          (s) => {
            if (s !== 200) errors++;
            lat.push(performance.now() - due);
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await Promise.all(pending);
    const elapsed = (performance.now() - t0) / 1000;
    const cpuPer = (cpuSeconds(holder.child.pid!) - cpu0) / total;
    agent.destroy();
    lat.sort((a, b) => a - b);
    const loadDuringAdmissions = loadavg()[0]!;
    const admitted = [figures(holder), figures(follower)] as const;

    for (let p = IDLE_NODEPOOLS; p < CONFIGS; p++) addHcpNodePool(mgmt, p, releases[p % releases.length]!, ns);
    for (let i = 0; i < CONFIGS; i++) hosted.store.put(nodePoolOSConfig(i) as never);
    const reconciled = () => hosted.store.list(GROUP_VERSION, 'NodePoolOSConfig').filter((o) => (o.status?.conditions ?? []).length > 0).length;
    const configsS = await until(`${CONFIGS} configs reconciled`, () => reconciled() >= CONFIGS, holder);
    await sleep(SETTLE_MS);
    const withConfigs = [figures(holder), figures(follower)] as const;

    const together = Math.max(1, Math.floor(MAX_BYTES_IN_FLIGHT / MAX_BODY_BYTES));
    const big = { path: '/validate/nodepoolosconfigs', body: bigReview(MAX_BODY_BYTES, [1]) };
    const bigCodes = new Map<number | string, number>();
    const a3 = new https.Agent({ keepAlive: true, maxSockets: together });
    for (let round = 0; round < 10; round++) {
      const codes = await Promise.all(Array.from({ length: together }, () => post(a3, ca, holder.port, big).catch(() => 'error')));
      for (const c of codes) bigCodes.set(c, (bigCodes.get(c) ?? 0) + 1);
    }
    a3.destroy();
    const parseAlive = holder.child.exitCode === null && holder.child.signalCode === null;
    const parsed = parseAlive ? figures(holder) : { rssKb: NaN, hwmKb: NaN, pssKb: NaN };
    const answersAfter = parseAlive && (await post(new https.Agent({ keepAlive: false }), ca, holder.port, request(1)).catch(() => 0)) === 200;

    // Part 2: HCPS namespaces' worth, not pinned.
    const fleet: Replica[] = [];
    for (let n = 0; n < HCPS; n++) {
      const fns = `clusters-fleet-${n}`;
      const d = mkdtempSync(path.join(tmp, 'hcp-'));
      writeFileSync(`${d}/tls.crt`, ca);
      writeFileSync(`${d}/tls.key`, readFileSync(`${tmp}/tls.key`));
      const s = await hcp(startApiServer, d, fns, releases);
      servers.push(s.mgmt, s.hosted);
      const two: Replica[] = [];
      for (let i = 0; i < 2; i++) await startReplica(args(d, fns), false, two);
      fleet.push(...two);
      replicas.push(...two);
      await until(`namespace ${fns}: a Lease holder that has observed both sides`, () => holderOf(s.mgmt, fns, two) !== undefined && observed(s.mgmt, fns));
    }
    await sleep(SETTLE_MS);
    const sum = (rs: Replica[]) => rs.map(figures).reduce((a, f) => ({ rssKb: a.rssKb + f.rssKb, hwmKb: a.hwmKb + f.hwmKb, pssKb: a.pssKb + f.pssKb }), { rssKb: 0, hwmKb: 0, pssKb: 0 });
    const fleetIdle = sum(fleet);
    const a2 = new https.Agent({ keepAlive: true, maxSockets: 8 });
    for (const r of fleet) for (let i = 0; i < 200; i += 8) await Promise.all(Array.from({ length: 8 }, (_, k) => post(a2, ca, r.port, request(i + k))));
    a2.destroy();
    await sleep(1000);
    const fleetLoaded = sum(fleet);
    const perNs = (f: Figures) => `${mib(f.rssKb / HCPS)} / ${mib(f.pssKb / HCPS)}`;

    const cmd = `NODE_OPTIONS='${NODE_OPTIONS}' node bin/on-cluster-build.js ${argv.map((a) => a.replace(tmp, '$DIR').replace(reg!.host, '127.0.0.1:$PORT')).join(' ')}`;
    return [
      '## Control plane: the controller and the webhook in one process (on-cluster-build control-plane)',
      '',
      'Command: `make build && npm run bench -- control-plane` (test/bench/control-plane.ts; prints the section,',
      'does not rewrite this file when run alone; `CP_BENCH_NODE_OPTIONS`, `CP_BENCH_RATE`, `CP_BENCH_SECONDS`,',
      '`CP_BENCH_CONFIGS`, `CP_BENCH_HCPS` (0: part 2 skipped), `CP_BENCH_STEP_TIMEOUT_S` change the V8 flags and the steps). Each replica:',
      `\`${cmd}\``,
      `(two per namespace; ${pinned ? 'part 1 pinned to core 0, the bench and its servers to core 1' : 'not pinned'}). RSS is VmRSS (VmHWM: peak), Pss from smaps_rollup, MiB.`,
      '',
      '| one HCP namespace | Lease holder: RSS (peak) / Pss | follower: RSS (peak) / Pss | pair: RSS / Pss |',
      '|---|---:|---:|---:|',
      pair(`idle (Lease held, both sides observed, ${IDLE_NODEPOOLS} NodePools, no config)`, idle[0], idle[1]),
      pair(`after 200 warm-up admissions each and ${total.toLocaleString('en')} at ${RATE}/s to the holder`, admitted[0], admitted[1]),
      pair(`after ${CONFIGS} NodePools with a config each, reconciled by the holder (${configsS.toFixed(1)} s)`, withConfigs[0], withConfigs[1]),
      `| holder after 10 rounds of ${together} × ${(MAX_BODY_BYTES / 1048576).toFixed(0)} MiB AdmissionReviews at once (answers: ${[...bigCodes].map(([c, n]) => `${n} × ${c}`).join(', ')}; answering afterwards: ${answersAfter ? 'yes' : 'NO'}) | ${mib(parsed.rssKb)} (${mib(parsed.hwmKb)}) / ${mib(parsed.pssKb)} | | |`,
      '',
      `| open loop at ${RATE}/s for ${SECONDS} s to the holder | |`,
      '|---|---:|',
      `| requests (errors) / achieved rate | ${total} (${errors}) / ${(total / elapsed).toFixed(0)}/s |`,
      `| latency from the scheduled send p50 / p99 / max | ${pct(lat, 50).toFixed(2)} / ${pct(lat, 99).toFixed(2)} / ${lat[lat.length - 1]!.toFixed(2)} ms |`,
      `| holder CPU per admission | ${(cpuPer * 1e6).toFixed(0)} µs |`,
      `| load average (1 min, 2 cores shared) at the end of the run | ${loadDuringAdmissions.toFixed(1)} |`,
      '',
      ...(HCPS === 0 ? [] : [
      `| ${HCPS} HCP namespaces' worth: ${fleet.length} real processes (each namespace its own API servers) | sum RSS / sum Pss | per namespace RSS / Pss |`,
      '|---|---:|---:|',
      `| idle | ${mib(fleetIdle.rssKb)} / ${mib(fleetIdle.pssKb)} | ${perNs(fleetIdle)} |`,
      `| after 200 admissions to each replica | ${mib(fleetLoaded.rssKb)} / ${mib(fleetLoaded.pssKb)} | ${perNs(fleetLoaded)} |`,
      `| load average (1 min) | ${loadavg()[0]!.toFixed(1)} | |`,
      ]),
      '',
    ].join('\n');
  } finally {
    for (const r of replicas) await stopChild(r.child);
    for (const s of servers) await s.stop();
    await cleanupRegistry(reg);
    rmSync(tmp, { recursive: true, force: true });
  }
}

// `node dist/test/bench/control-plane.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
