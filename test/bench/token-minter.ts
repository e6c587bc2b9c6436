/**
 * `npm run bench -- token-minter` (after `make build`): the token-minter sidecar's memory on real
 * mints, as it runs in its pod (`node bin/on-cluster-build.js token-minter`, the Deployment's args
 * but for the paths, its NODE_OPTIONS), pinned to core 0 with taskset, against the project's API
 * test server on 127.0.0.1 in this process (core 1) playing the hosted cluster: the admin
 * kubeconfig (`system:admin`), the controller's ServiceAccount, and TokenRequest
 * (`POST …/serviceaccounts/NAME/token`). Each minted token is checked to work as the controller's
 * identity (a list of Nodes, which the package's ClusterRole allows, answered 200), so a mint is a
 * real one.
 * - long-running: VmRSS once the first token is written and the minter sleeps until renewal
 *   (idle), then after its first renewal (the server's clock is set back so the token it returns
 *   expires within 60 s: the minter renews at 80% of that, 48 s later), and VmHWM (peak);
 * - `--oneshot`, ONESHOTS times: each a whole mint in a fresh process (load the kubeconfig, TLS
 *   handshake, TokenRequest, two file writes); VmHWM read just before it exits is not possible from
 *   outside, so the peak is sampled every 5 ms while it runs.
 * Every wait is bounded; every process is stopped at the end, on failure too.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ApiTestServer, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import { startClusters } from '../builder/clusters.js';
import { CONTROLLER_SERVICE_ACCOUNT, HOSTED_NAMESPACE } from '../../builder/api/types.js';
import { MINTER_NODE_OPTIONS, MINTER_RESOURCES, minterArgs } from '../../resources/builder-controller.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const ONESHOTS = Number(process.env.MINTER_BENCH_ONESHOTS ?? 5);
/** The Deployment's NODE_OPTIONS for the minter unless MINTER_BENCH_NODE_OPTIONS is set (to try other V8 flags). */
const NODE_OPTIONS = process.env.MINTER_BENCH_NODE_OPTIONS ?? MINTER_NODE_OPTIONS;
/** The longest any one step may take (the machine is shared). */
const STEP_TIMEOUT_MS = 120_000;
/** How far the API server's clock is set back: a 600 s token then expires 60 s from now. */
const SKEW_MS = 540_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);

function procStatus(pid: number): { rssKb: number; hwmKb: number } | undefined {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
    return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
  } catch {
    return undefined; // exited
  }
}

/** The Deployment's minter args with this run's paths (the admin kubeconfig, the output dir) and a 600 s token. */
function args(kubeconfig: string, out: string, extra: string[] = []): string[] {
  return minterArgs()
    .map((a) => (a.startsWith('--kubeconfig=') ? `--kubeconfig=${kubeconfig}` : a.startsWith('--output-dir=') ? `--output-dir=${out}` : a.startsWith('--expiration-seconds=') ? '--expiration-seconds=600' : a))
    .concat(extra);
}

function spawnMinter(pin: string[], a: string[], onLine: (l: string) => void): ChildProcess {
  const cmd = [...pin, process.execPath, path.join(root, 'bin', 'on-cluster-build.js'), ...a];
  const child = spawn(cmd[0]!, cmd.slice(1), { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_OPTIONS, NODE_EXTRA_CA_CERTS: '' } });
  let rest = '';
  child.stderr!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    lines.forEach(onLine);
  });
  return child;
}

async function until(what: string, check: () => boolean): Promise<void> {
  const end = Date.now() + STEP_TIMEOUT_MS;
  while (!check()) {
    if (Date.now() > end) throw new Error(`token-minter bench: ${what} did not happen within ${STEP_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
}

/** The minted kubeconfig's token works as the controller's identity: a GET answered 200. */
async function tokenWorks(hosted: ApiTestServer, out: string): Promise<boolean> {
  const token = readFileSync(path.join(out, 'token'), 'utf8').trim();
  const { request } = await import('node:https');
  const ca = Buffer.from((/certificate-authority-data: (\S+)/.exec(readFileSync(path.join(out, 'kubeconfig'), 'utf8')) ?? [])[1] ?? '', 'base64');
  return new Promise((resolve) => {
    // What the controller may do with it (the package's ClusterRole): list Nodes.
    const url = new URL(`${hosted.url}/api/v1/nodes?limit=1`);
    const req = request({ host: url.hostname, port: url.port, path: `${url.pathname}${url.search}`, ca, headers: { authorization: `Bearer ${token}` } }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('error', () => resolve(false));
    req.end();
  });
}

export async function bench(): Promise<string> {
  const { startApiServer } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer };
  const pinned = cpus().length >= 2 && (() => { try { execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'pipe' }); return true; } catch { return false; } })();
  const pin = pinned ? ['taskset', '-c', '0'] : [];
  const dir = mkdtempSync(path.join(tmpdir(), 'minter-bench-'));
  let mgmt: ApiTestServer | undefined;
  let hosted: ApiTestServer | undefined;
  const children: ChildProcess[] = [];
  try {
    // The two clusters as the e2e test has them; only the hosted one is used (its clock set back).
    ({ mgmt, hosted } = await startClusters((o) => startApiServer({ ...o, clock: () => new Date(Date.now() - SKEW_MS) }), 'clusters-banana'));
    hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOSTED_NAMESPACE } });
    hosted.store.put({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: CONTROLLER_SERVICE_ACCOUNT, namespace: HOSTED_NAMESPACE } });
    const admin = path.join(dir, 'admin.kubeconfig');
    writeFileSync(admin, hosted.kubeconfig('system:admin'), { mode: 0o600 });

    // Long-running, as in the pod.
    const out = path.join(dir, 'out');
    let mints = 0;
    const failures: string[] = [];
    const t0 = Date.now();
    const child = spawnMinter(pin, args(admin, out), (l) => {
      if (l.includes('"token minted"')) mints++;
      else if (l.includes('"token request failed"')) failures.push(l);
    });
    children.push(child);
    await until('the first mint', () => mints >= 1 && existsSync(path.join(out, 'kubeconfig')));
    const firstMs = Date.now() - t0;
    const works1 = await tokenWorks(hosted, out);
    await sleep(2000);
    const idle = procStatus(child.pid!)!;
    const first = readFileSync(path.join(out, 'token'), 'utf8');
    await until('the renewal', () => mints >= 2);
    await sleep(2000);
    const renewed = procStatus(child.pid!)!;
    const works2 = (await tokenWorks(hosted, out)) && readFileSync(path.join(out, 'token'), 'utf8') !== first;
    child.kill('SIGTERM');

    // One-shot mints: the peak of a whole mint in a fresh process.
    const peaks: number[] = [];
    for (let i = 0; i < ONESHOTS; i++) {
      const o = path.join(dir, `oneshot-${i}`);
      const c = spawnMinter(pin, args(admin, o, ['--oneshot=true']), () => {});
      children.push(c);
      let peak = 0;
      const exited = new Promise<number | null>((r) => c.once('exit', r));
      let code: number | null | undefined;
      void exited.then((x) => (code = x));
      const end = Date.now() + STEP_TIMEOUT_MS;
      while (code === undefined && Date.now() < end) {
        const s = procStatus(c.pid!);
        if (s && Number.isFinite(s.hwmKb)) peak = Math.max(peak, s.hwmKb);
        await sleep(5);
      }
      if (code !== 0) throw new Error(`token-minter bench: a one-shot mint exited ${code === undefined ? '(still running)' : code}`);
      if (!(await tokenWorks(hosted, o))) throw new Error('token-minter bench: a one-shot token does not authenticate');
      peaks.push(peak);
    }
    peaks.sort((a, b) => a - b);

    const req = MINTER_RESOURCES.requests.memory;
    const lim = MINTER_RESOURCES.limits.memory;
    return [
      '## Token-minter (on-cluster-build token-minter)',
      '',
      `Command: \`make build && npm run bench -- token-minter\` (test/bench/token-minter.ts; \`MINTER_BENCH_ONESHOTS\` overrides ${ONESHOTS}). ` +
        `${pinned ? 'Minter pinned to core 0 (`taskset -c 0`), the API test server to core 1.' : 'Not pinned (taskset or a second core missing).'} ` +
        `The Deployment's args (paths replaced, \`--expiration-seconds=600\`, the API's minimum), NODE_OPTIONS \`${NODE_OPTIONS || '(none)'}\`${NODE_OPTIONS === MINTER_NODE_OPTIONS ? " (the Deployment's)" : ' (MINTER_BENCH_NODE_OPTIONS)'}, the admin kubeconfig of the API test server's \`system:admin\`; ` +
        'TokenRequest for the controller\'s ServiceAccount; each token checked to authenticate (200).',
      '',
      '| | |',
      '|---|---:|',
      `| start → first token written | ${(firstMs / 1000).toFixed(1)} s (token works: ${works1 ? 'yes' : 'NO'}) |`,
      `| RSS idle (first token written, sleeping until renewal) | ${mib(idle.rssKb)} MiB |`,
      `| RSS after its first renewal (48 s later) / peak so far | ${mib(renewed.rssKb)} MiB / ${mib(renewed.hwmKb)} MiB (new token works: ${works2 ? 'yes' : 'NO'}) |`,
      `| peak RSS of a whole one-shot mint, ${ONESHOTS} runs (min / median / max) | ${mib(peaks[0]!)} / ${mib(peaks[Math.floor(peaks.length / 2)]!)} / ${mib(peaks[peaks.length - 1]!)} MiB |`,
      `| failed token requests | ${failures.length} |`,
      `| the package's request / limit | ${req} / ${lim} |`,
      `| load average at the end (1 min, 2 cores shared) | ${loadavg()[0]!.toFixed(1)} |`,
      '',
    ].join('\n');
  } finally {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map((c) => (c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once('exit', r)))));
    await hosted?.stop();
    await mgmt?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node dist/test/bench/token-minter.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
