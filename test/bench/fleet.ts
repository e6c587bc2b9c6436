/**
 * `npm run bench -- fleet` (after `make build`): the fleet component (`on-cluster-build fleet`,
 * issue 27) as it runs in its pod: `node bin/on-cluster-build.js fleet` with the fleet
 * Deployment's args (resources/fleet/objects.ts `fleetArgs`, the config's defaults, a prebuilt
 * `--provider-image` by digest so `imageFor` answers without a registry or a build pod), its
 * NODE_OPTIONS, leader election on and its real HTTPS webhook, pinned to core 0 with taskset.
 * Against everything on 127.0.0.1 in this process, pinned to core 1:
 * - the project's API test server (pkogen/test/kube/api-server.ts) as the management cluster,
 *   with the fleet identity holding exactly the package's rules (`FLEET_CLUSTER_RULES`,
 *   `FLEET_NAMESPACE_RULES` in its namespace, and the per-HCP package's `HANDOFF_RULES` in every
 *   HCP namespace), so a denied request shows;
 * - HCS HostedClusters (an HCP namespace each) with 2 NodePools each, HyperShift-sized (spec with
 *   a platform, status with conditions), and a provider-only hand-off ConfigMap for the first
 *   NodePool of each (half the NodePools), so the process opens one hand-off watch per HCP
 *   namespace.
 * The servers the child opens (webhook, health) are bound to 127.0.0.1 by a two-line `--require`
 * preload (the fleet command has no bind-address flag; its Deployment listens on every address).
 *
 * Phases, each bounded: idle (Lease held, the NodePool list done, empty cluster); take-in (every
 * object put at once; until every NodePool with a hand-off carries the gate's label and every
 * hand-off watch is open), then a quiet window; upgrade day (every NodePool's spec.release.image
 * bumped, open loop at RATE/s: each bump's AdmissionReview goes to the running webhook and its
 * JSONPatch is applied in the same write as the release change, as the API server does; until
 * every hand-off names the new release and no NodePool is paused), then a quiet window; then,
 * unless FLEET_BENCH_RESYNC=0, until the first resync (the Deployment's 300 s period) has listed
 * every NodePool again, and a quiet window after it. RSS is VmRSS (VmHWM: peak) from /proc; CPU is
 * utime+stime of the child.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ApiTestServer, jsonPatch as JsonPatch, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import { clusterWide } from '../builder/clusters.js';
import { providerHandoff } from '../builder/fleet-fixtures.js';
import { FLEET_CLUSTER_RULES, FLEET_LEASE_NAME, FLEET_NAMESPACE_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { GATED_LABEL } from '../../builder/fleet/gate-names.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffName } from '../../builder/controller/handoff.js';
import { MUTATE_NODEPOOL_PATH } from '../../builder/fleet/webhook.js';
import { FLEET_NODE_OPTIONS, fleetArgs, RESYNC_SECONDS } from '../../resources/fleet/objects.js';
import { fleetConfigSchema } from '../../resources/fleet/config.js';
import { FLEET_NAMESPACE, FLEET_USERNAME } from '../../resources/fleet/identity.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const HCS = Number(process.env.FLEET_BENCH_HCS ?? 500);
const POOLS_PER_HC = 2;
/** Release bumps (each one admission) per second on the upgrade day. */
const RATE = Number(process.env.FLEET_BENCH_RATE ?? 50);
/** kube-apiserver sends a watch a bookmark about once a minute (cacher.go defaultBookmarkFrequency); the test server's default is 1 s. */
const BOOKMARK_S = Number(process.env.FLEET_BENCH_BOOKMARK_S ?? 60);
const WAIT_RESYNC = process.env.FLEET_BENCH_RESYNC !== '0';
const STEP_TIMEOUT_MS = Number(process.env.FLEET_BENCH_STEP_TIMEOUT_S ?? 600) * 1000;
const SETTLE_MS = 5000;
const WINDOW_MS = Number(process.env.FLEET_BENCH_WINDOW_S ?? 40) * 1000;
/** The Deployment's NODE_OPTIONS unless FLEET_BENCH_NODE_OPTIONS is set (to try another heap cap). */
const NODE_OPTIONS = process.env.FLEET_BENCH_NODE_OPTIONS ?? FLEET_NODE_OPTIONS;

const D = (c: string) => `sha256:${c.repeat(64)}`;
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const REPO = 'quay.example.com/provider/os';
const PROVIDER_IMAGE = `${REPO}@${D('7')}`;
const NP_NS = 'clusters';
const NODEPOOL = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

function procStatus(pid: number): { rssKb: number; hwmKb: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const hcName = (h: number) => `hc-${String(h).padStart(4, '0')}`;
const npName = (h: number, p: number) => `${hcName(h)}-${String.fromCharCode(97 + p)}`;

/** A NodePool as HyperShift keeps it (AWS platform, ten status conditions): ~3 KB of JSON. */
function nodePool(h: number, p: number): object {
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, observedGeneration: 1, lastTransitionTime: '2026-11-20T08:00:00Z' });
  return {
    ...NODEPOOL,
    metadata: { name: npName(h, p), namespace: NP_NS, labels: { 'hypershift.openshift.io/auto-created-for-infra': `${hcName(h)}-x7k2p` }, annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'a1b2c3d4', 'hypershift.openshift.io/nodePoolCurrentConfigVersion': 'e5f6a7b8' }, finalizers: ['hypershift.openshift.io/finalizer'] },
    spec: {
      clusterName: hcName(h),
      arch: 'amd64',
      release: { image: R1 },
      replicas: 3,
      management: { autoRepair: true, upgradeType: 'Replace', replace: { strategy: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      nodeDrainTimeout: '0s',
      nodeVolumeDetachTimeout: '0s',
      platform: { type: 'AWS', aws: { instanceType: 'm5.xlarge', instanceProfile: `${hcName(h)}-x7k2p-worker`, subnet: { id: 'subnet-0a1b2c3d4e5f60718' }, ami: '', rootVolume: { size: 120, type: 'gp3' }, securityGroups: [{ id: 'sg-0a1b2c3d4e5f60718' }], resourceTags: [{ key: 'red-hat-managed', value: 'true' }, { key: 'api.openshift.com/id', value: `2k${h}abcdefghijklmnopqrstu` }] } },
    },
    status: {
      replicas: 3,
      version: '4.20.1',
      platform: { aws: { ami: 'ami-0a1b2c3d4e5f60718' } },
      conditions: [
        cond('AutorepairEnabled', 'True', 'AsExpected', ''),
        cond('AutoscalingEnabled', 'False', 'AsExpected', ''),
        cond('UpdateManagementEnabled', 'True', 'AsExpected', ''),
        cond('ValidReleaseImage', 'True', 'AsExpected', 'Using release image: ' + R1),
        cond('ValidArchPlatform', 'True', 'AsExpected', ''),
        cond('ValidMachineConfig', 'True', 'AsExpected', ''),
        cond('ValidTuningConfig', 'True', 'AsExpected', ''),
        cond('UpdatingConfig', 'False', 'AsExpected', ''),
        cond('UpdatingVersion', 'False', 'AsExpected', ''),
        cond('ReconciliationActive', 'True', 'ReconciliationActive', 'Reconciliation active on resource'),
        cond('AllMachinesReady', 'True', 'AsExpected', 'All is well'),
        cond('AllNodesHealthy', 'True', 'AsExpected', 'All is well'),
        cond('Ready', 'True', 'AsExpected', ''),
      ],
    },
  };
}

/** The fleet Deployment's args with the config's defaults and a prebuilt provider image; ports 0, paths to the bench's files. */
function args(dir: string): string[] {
  const props = fleetConfigSchema.properties as Record<string, { default?: unknown }>;
  const config: Record<string, string> = { providerRepository: REPO, providerImage: PROVIDER_IMAGE, providerLayer: '', tenantLayerDefault: String(props.tenantLayerDefault?.default), maxHoldSeconds: String(props.maxHoldSeconds?.default) };
  const deployment = fleetArgs().map((a) =>
    a
      .replace(/\{\{ if \.config\.(\w+) \}\}(.*?)\{\{ end \}\}/g, (_, k: string, v: string) => (config[k] ? v : ''))
      .replace(/\{\{ \.config\.(\w+) \}\}/g, (_, k: string) => config[k] ?? '')
      .replace(/^--tls-dir=.*/, `--tls-dir=${dir}`)
      .replace(/^--webhook-port=.*/, '--webhook-port=0')
      .replace(/^--health-port=.*/, '--health-port=0'),
  );
  for (const a of deployment) if (a.includes('{{')) throw new Error(`fleet bench: an arg left unrendered: ${a}`);
  return [...deployment, `--kubeconfig=${dir}/fleet.kubeconfig`];
}

/**
 * Binds the child's servers to 127.0.0.1 (webhook and health listen on 0.0.0.0 in the pod), and
 * writes `process.memoryUsage()` to MEMFILE on SIGUSR2 (where the RSS is: V8 heap or outside it).
 */
const preload = (memFile: string) => `const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...a) { if (a[1] === '0.0.0.0' || a[1] === '::') a[1] = '127.0.0.1'; return listen.apply(this, a); };
process.on('SIGUSR2', () => require('node:fs').writeFileSync(${JSON.stringify(memFile)}, JSON.stringify(process.memoryUsage())));
`;

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

export async function bench(): Promise<string> {
  const api = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer; jsonPatch: typeof JsonPatch };
  const pinned = cpus().length >= 2 && (() => { try { execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'pipe' }); return true; } catch { return false; } })();
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-bench-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${dir}/tls.key`, '-out', `${dir}/tls.crt`, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  const ca = readFileSync(`${dir}/tls.crt`, 'utf8');
  writeFileSync(`${dir}/loopback.cjs`, preload(`${dir}/mem.json`));
  const hcpNamespaces = Array.from({ length: HCS }, (_, h) => hcpNamespaceOf(NP_NS, hcName(h)));
  let mgmt: ApiTestServer | undefined;
  let child: ChildProcess | undefined;
  try {
    // Every per-HCP package's Role (HANDOFF_RULES in its HCP namespace), as one rule over all of them.
    mgmt = await api.startApiServer({
      identities: [
        { name: FLEET_USERNAME, token: 'fleet-token', rules: [...clusterWide(FLEET_CLUSTER_RULES), ...clusterWide(HANDOFF_RULES).map((r) => ({ ...r, namespaces: hcpNamespaces })), ...clusterWide(FLEET_NAMESPACE_RULES).map((r) => ({ ...r, namespaces: [FLEET_NAMESPACE] }))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
      // A real apiserver keeps far more than the test server's default 1,000 events for resuming watches.
      historyLimit: 100_000,
      bookmarkIntervalMs: BOOKMARK_S * 1000,
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    for (const n of [NP_NS, FLEET_NAMESPACE]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    writeFileSync(path.join(dir, 'fleet.kubeconfig'), mgmt.kubeconfig(FLEET_USERNAME), { mode: 0o600 });

    const argv = args(dir);
    child = spawn(pinned ? 'taskset' : process.execPath, [...(pinned ? ['-c', '0', process.execPath] : []), '--require', `${dir}/loopback.cjs`, path.join(root, 'bin', 'on-cluster-build.js'), ...argv], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, POD_NAMESPACE: FLEET_NAMESPACE, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS },
    });
    const c = child;
    const pid = c.pid!;
    let tailBuf = '';
    let rest = '';
    let webhookPort = 0;
    const counts = new Map<string, number>();
    c.stderr!.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) {
        const msg = /"msg":"([^"]*)"/.exec(l)?.[1] ?? '?';
        counts.set(msg, (counts.get(msg) ?? 0) + 1);
        if (msg === 'serving') webhookPort = Number(/"webhookPort":(\d+)/.exec(l)?.[1] ?? 0);
        if (msg !== 'admission') tailBuf = (tailBuf + l + '\n').slice(-3000);
      }
    });
    const tail = () => tailBuf.slice(-1500);
    const m = mgmt;
    const until = async (what: string, cond: () => boolean, pollMs = 250): Promise<number> => {
      const t0 = Date.now();
      while (!cond()) {
        if (c.exitCode !== null || c.signalCode !== null) throw new Error(`the fleet process exited (${c.exitCode ?? c.signalCode}) waiting for ${what}: ${tail()}`);
        if (Date.now() - t0 > STEP_TIMEOUT_MS) throw new Error(`timed out after ${STEP_TIMEOUT_MS / 1000} s waiting for ${what}: ${tail()}`);
        await sleep(pollMs);
      }
      return (Date.now() - t0) / 1000;
    };
    const mine = (from = 0) => m.audit.slice(from).filter((e) => e.user === FLEET_USERNAME);
    const byVerb = (from: number) => {
      const acc = new Map<string, number>();
      for (const e of mine(from)) {
        const k = `${e.verb} ${e.resource}`;
        acc.set(k, (acc.get(k) ?? 0) + 1);
      }
      return [...acc].sort().map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
    };
    /** The child's process.memoryUsage() in MiB: heap used/total, external (of which array buffers). */
    const heap = async () => {
      rmSync(`${dir}/mem.json`, { force: true });
      c.kill('SIGUSR2');
      for (let i = 0; i < 40; i++) {
        await sleep(50);
        try {
          const u = JSON.parse(readFileSync(`${dir}/mem.json`, 'utf8')) as Record<string, number>;
          const f = (k: string) => (u[k]! / 1048576).toFixed(1);
          return `used ${f('heapUsed')} of ${f('heapTotal')}, external ${f('external')} (buffers ${f('arrayBuffers')})`;
        } catch {
          // not written yet
        }
      }
      return 'heap: no answer';
    };
    const openWatches = () => (m as unknown as { watchers: Set<unknown> }).watchers.size;
    const nodePoolLists = () => mine().filter((e) => e.verb === 'list' && e.resource === 'nodepools').length;
    const window = async (label: string) => {
      const from = m.audit.length;
      const cpu0 = cpuSeconds(pid);
      await sleep(WINDOW_MS);
      return { label, cpu: cpuSeconds(pid) - cpu0, requests: mine(from).length, verbs: byVerb(from), mem: procStatus(pid), heap: await heap(), watches: openWatches(), fds: fds(pid), load: load() };
    };

    // Idle: serving, Lease held, the (empty) NodePool list done.
    const leased = () => m.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: FLEET_LEASE_NAME, namespace: FLEET_NAMESPACE })?.spec?.holderIdentity !== undefined;
    const startS = await until('the Lease and the NodePool list', () => webhookPort > 0 && leased() && nodePoolLists() > 0);
    /** The loop (and its resync clock) starts once the Lease is held. */
    const leasedAt = Date.now();
    await sleep(SETTLE_MS);
    const idle = { mem: procStatus(pid), heap: await heap(), cpu: cpuSeconds(pid), fds: fds(pid), load: load() };

    // Take-in: the fleet, all at once.
    const takeFrom = m.audit.length;
    const cpuTake0 = cpuSeconds(pid);
    for (const ns of hcpNamespaces) m.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    for (let h = 0; h < HCS; h++) {
      for (let p = 0; p < POOLS_PER_HC; p++) m.store.put(nodePool(h, p));
      m.store.put(providerHandoff(hcpNamespaces[h]!, npName(h, 0), `${REPO}@${D('6')}`, R1));
    }
    const nps = () => m.store.list(NODEPOOL.apiVersion, NODEPOOL.kind, NP_NS);
    const gated = () => nps().filter((o) => o.metadata?.labels?.[GATED_LABEL] === 'true').length;
    const handoffWatchesOpened = () => new Set(mine(takeFrom).filter((e) => e.verb === 'watch' && e.resource === 'configmaps').map((e) => e.namespace)).size;
    const takeS = await until('every NodePool with a hand-off labelled, every hand-off watch open', () => gated() === HCS && handoffWatchesOpened() === HCS, 500);
    await sleep(SETTLE_MS);
    const took = { cpu: cpuSeconds(pid) - cpuTake0, mem: procStatus(pid), requests: mine(takeFrom).length, verbs: byVerb(takeFrom), watches: openWatches(), fds: fds(pid), load: load() };
    const steady = await window('fleet taken in');

    // Upgrade day: every NodePool's release bumped at RATE/s through the webhook.
    const dayFrom = m.audit.length;
    const cpuDay0 = cpuSeconds(pid);
    const agent = new https.Agent({ keepAlive: true, maxSockets: 16 });
    const lat: number[] = [];
    /** From handing the request to https to its answer (without the load generator's own delay). */
    const sent: number[] = [];
    let errors = 0;
    let held = 0;
    const order: [number, number][] = [];
    for (let h = 0; h < HCS; h++) for (let p = 0; p < POOLS_PER_HC; p++) order.push([h, p]);
    const admit = (body: string) =>
      new Promise<{ status: number; review: { response?: { allowed?: boolean; patch?: string } } }>((resolve, reject) => {
        const ts = performance.now();
        const req = https.request({ host: '127.0.0.1', port: webhookPort, path: MUTATE_NODEPOOL_PATH, method: 'POST', ca, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          let t = '';
          res.setEncoding('utf8');
          res.on('data', (x: string) => (t += x));
          res.on('end', () => {
            sent.push(performance.now() - ts);
            try {
              resolve({ status: res.statusCode ?? 0, review: JSON.parse(t) });
            } catch (e) {
              reject(e);
            }
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < order.length; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const [h, p] = order[i]!;
      const ref = { ...NODEPOOL, name: npName(h, p), namespace: NP_NS };
      const old = m.store.get(ref)!;
      const next = { ...old, spec: { ...old.spec, release: { image: R2 } } };
      const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `bump-${i}`, kind: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool' }, resource: { group: 'hypershift.openshift.io', version: 'v1beta1', resource: 'nodepools' }, namespace: NP_NS, name: ref.name, operation: 'UPDATE', userInfo: { username: 'system:serviceaccount:ocm:upgrade-service' }, object: next, oldObject: old } });
      pending.push(
        admit(body).then(
          (a) => {
            lat.push(performance.now() - due);
            if (a.status !== 200 || a.review.response?.allowed !== true) {
              errors++;
              return;
            }
            // The API server applies the patch to the object it is writing: the release change and the hold in one write.
            const ops = a.review.response.patch ? (JSON.parse(Buffer.from(a.review.response.patch, 'base64').toString('utf8')) as unknown[]) : [];
            if (ops.length) held++;
            const cur = m.store.get(ref)!;
            m.store.put(api.jsonPatch({ ...cur, spec: { ...cur.spec, release: { image: R2 } } }, ops) as never);
          },
          () => {
            errors++;
          },
        ),
      );
    }
    await Promise.all(pending);
    const sentS = (performance.now() - t0) / 1000;
    agent.destroy();
    const loadDuringBumps = load();
    const handedOff = () => hcpNamespaces.filter((ns, h) => m.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(npName(h, 0)), namespace: ns })?.metadata?.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R2).length;
    const paused = () => nps().filter((o) => o.spec?.pausedUntil !== undefined).length;
    const dayS = await until('every hand-off rewritten for the new release and no NodePool paused', () => handedOff() === HCS && paused() === 0, 500);
    await sleep(SETTLE_MS);
    const day = { cpu: cpuSeconds(pid) - cpuDay0, mem: procStatus(pid), requests: mine(dayFrom).length, verbs: byVerb(dayFrom), watches: openWatches(), fds: fds(pid), load: load() };
    const afterDay = await window('after the upgrade day');

    // The resync: RESYNC_SECONDS after the Lease; a window from 5 s before it.
    let resync: Awaited<ReturnType<typeof window>> | undefined;
    if (WAIT_RESYNC) {
      const at = leasedAt + (RESYNC_SECONDS - 5) * 1000;
      if (at > Date.now()) await until('the resync', () => Date.now() >= at, 1000);
      resync = await window(`around the first resync (${RESYNC_SECONDS} s after the Lease)`);
    }
    const final = procStatus(pid);
    const denied = mine().filter((e) => e.code === 403).length;
    lat.sort((a, b) => a - b);
    const n = (k: string) => counts.get(k) ?? 0;

    const cmd = `node --require $DIR/loopback.cjs bin/on-cluster-build.js ${argv.map((a) => a.replace(dir, '$DIR')).join(' ')}`;
    const win = (w: Awaited<ReturnType<typeof window>>, what = 'with no change') => [
      `| ${w.label}: fleet CPU / its requests over ${WINDOW_MS / 1000} s ${what} | ${w.cpu.toFixed(2)} s / ${w.requests} (${w.verbs}) |`,
      `| … RSS at its end (peak so far) / V8 heap (MiB) / watches open / fds | ${mib(w.mem.rssKb)} MiB (${mib(w.mem.hwmKb)}) / ${w.heap} / ${w.watches} / ${w.fds} (load ${w.load}) |`,
    ];
    sent.sort((a, b) => a - b);
    return [
      '## Fleet component footprint (on-cluster-build fleet, issue 27)',
      '',
      `Command: \`make build && npm run bench -- fleet\` (test/bench/fleet.ts). ${pinned ? 'Fleet pinned to core 0 (`taskset -c 0`), API test server and load generator to core 1.' : 'Not pinned.'}`,
      `NODE_OPTIONS \`${NODE_OPTIONS || '(none)'}\`${NODE_OPTIONS === FLEET_NODE_OPTIONS ? " (the Deployment's)" : ' (FLEET_BENCH_NODE_OPTIONS)'}, POD_NAMESPACE=${FLEET_NAMESPACE}:`,
      `\`${cmd}\``,
      `${HCS} HCP namespaces, ${HCS * POOLS_PER_HC} NodePools, ${HCS} hand-offs; bookmarks every ${BOOKMARK_S} s; upgrade day at ${RATE} bumps/s.`,
      '',
      '| | value |',
      '|---|---:|',
      `| start → serving, Lease held, NodePool list done | ${startS.toFixed(1)} s |`,
      `| RSS idle, empty cluster (peak so far) / V8 heap (MiB) / CPU to start / fds | ${mib(idle.mem.rssKb)} MiB (${mib(idle.mem.hwmKb)}) / ${idle.heap} / ${idle.cpu.toFixed(2)} s / ${idle.fds} (load ${idle.load}) |`,
      `| take-in: wall until all ${HCS} gated NodePools labelled and ${HCS} hand-off watches open / fleet CPU | ${takeS.toFixed(1)} s / ${took.cpu.toFixed(1)} s |`,
      `| … its requests | ${took.requests} (${took.verbs}) |`,
      `| RSS after take-in (peak so far) / watches open at the server / fds | ${mib(took.mem.rssKb)} MiB (${mib(took.mem.hwmKb)}) / ${took.watches} / ${took.fds} (load ${took.load}) |`,
      ...win(steady),
      `| upgrade day: ${order.length} bumps sent in / all handed off and unpaused after | ${sentS.toFixed(1)} s / ${dayS.toFixed(1)} s more (load during bumps ${loadDuringBumps}) |`,
      `| … admission latency from the scheduled send, p50 / p99 / max (${lat.length} admissions, ${errors} errors, ${held} held) | ${pct(lat, 50).toFixed(2)} / ${pct(lat, 99).toFixed(2)} / ${(lat[lat.length - 1] ?? NaN).toFixed(2)} ms |`,
      `| … from the actual send (without the load generator's delay) p50 / p99 / max | ${pct(sent, 50).toFixed(2)} / ${pct(sent, 99).toFixed(2)} / ${(sent[sent.length - 1] ?? NaN).toFixed(2)} ms |`,
      `| … fleet CPU over the day / its requests | ${day.cpu.toFixed(1)} s / ${day.requests} (${day.verbs}) |`,
      `| RSS after the day (peak so far) / watches / fds | ${mib(day.mem.rssKb)} MiB (${mib(day.mem.hwmKb)}) / ${day.watches} / ${day.fds} (load ${day.load}) |`,
      ...win(afterDay),
      ...(resync ? win(resync, 'from 5 s before it') : []),
      `| peak RSS over the run (VmHWM) | ${mib(final.hwmKb)} MiB |`,
      `| gate log lines: Paused / HandedOff / Unpaused; gate failed / watch failed / resync failed | ${n('gate Paused')} / ${n('gate HandedOff')} / ${n('gate Unpaused')}; ${n('gate failed')} / ${n('watch failed')} / ${n('resync failed')} |`,
      `| requests denied by the package's RBAC | ${denied} |`,
      `| load average at the end (1 min, 2 cores shared) | ${loadavg()[0]!.toFixed(2)} |`,
      '',
    ].join('\n');
  } finally {
    if (child && child.exitCode === null && child.signalCode === null) {
      const c = child;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      const t = setTimeout(() => c.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(t);
    }
    await mgmt?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node dist/test/bench/fleet.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
