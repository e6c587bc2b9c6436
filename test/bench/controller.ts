/**
 * `npm run bench -- controller` (after `make build`): the on-cluster-build controller's memory as
 * it runs in its pod (`node bin/on-cluster-build.js controller`, the Deployment's args and
 * NODE_OPTIONS), pinned to one core with taskset, against everything on 127.0.0.1:
 * - two instances of the project's API test server (pkogen/test/kube/api-server.ts), in this
 *   process: the management cluster (HCP namespace with `pull-secret`, a HostedControlPlane, per
 *   NodePool a token Secret, a MachineDeployment and two Machines) and the hosted cluster (our
 *   CRDs, its namespaces, pull and push Secrets, Ready amd64 Nodes), each with the package's RBAC
 *   for the controller's identity, so a denied request would show as a failure;
 * - Debian's docker-registry holding two synthetic release payloads (allowed with
 *   `--registry-allow=127.0.0.1:<port>`), so configs are resolved and reach a build Job or
 *   `WaitingForBuildSlot`, as in a real hosted cluster; nothing is pushed or verified (no build
 *   completes), and no other registry is contacted.
 * Measured from /proc: VmRSS once the controller holds its Lease and has observed both sides
 * with zero configs (idle); VmRSS after CONFIGS_A and then CONFIGS_B NodePoolOSConfigs (one per
 * NodePool: the webhook requires a config to be named after its NodePool) each have a status
 * written by it (reconciled at least once) and the controller has settled; VmHWM (peak) at each point;
 * then, at the last step, the controller's CPU and list calls over a window with no event and over
 * one after three events that each concern one config. Every wait is bounded; every process is
 * stopped at the end, on failure too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Blob, Image, MediaType, parseReference, RegistryClient, writeTar } from 'pkogen/oci';
import type { ApiTestServer, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import type { cleanupRegistry as CleanupRegistry, startRegistry as StartRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { managementUser, startClusters } from '../builder/clusters.js';
import { BUILD_NAMESPACE, CONTROLLER_USERNAME, HOSTED_NAMESPACE } from '../../builder/api/types.js';
import { LEASE_NAME } from '../../builder/policy/rbac.js';
import { CONTROLLER_NODE_OPTIONS, controllerArgs } from '../../resources/builder-controller.js';
import { configSchema } from '../../resources/config.js';
import { cpuSeconds, pinToCore1, procStatus, stopChild } from './_proc.js';
import { maximalConfig } from '../builder/maximal-config.js';
import { LIMIT_REASON, MAX_CONFIGS } from '../../builder/controller/intake.js';
import { getHeapStatistics } from 'node:v8';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
/** NodePools present before any config (a NodePoolOSConfig is named after its NodePool: one per NodePool). */
const IDLE_NODEPOOLS = 3;
const CONFIGS_A = Number(process.env.CONTROLLER_BENCH_CONFIGS_A ?? 100);
const CONFIGS_B = Number(process.env.CONTROLLER_BENCH_CONFIGS_B ?? 1000);
/** Maximal configs (test/builder/maximal-config.ts) a tenant adds at the end, named after no NodePool: the intake bound (0: skipped). */
const FLOOD = Number(process.env.CONTROLLER_BENCH_FLOOD ?? 15000);
/** Refusal status writes awaited after the flood (the rest go on at the controller's bounded rate). */
const FLOOD_REFUSALS = Number(process.env.CONTROLLER_BENCH_FLOOD_REFUSALS ?? 600);
/** Longest wait for any one step (the machine is shared; a step that does not finish fails the bench). */
const STEP_TIMEOUT_MS = Number(process.env.CONTROLLER_BENCH_STEP_TIMEOUT_S ?? 900) * 1000;
const SETTLE_MS = 5000;
/** The steady-state windows at the last step (no event; three events). */
const WINDOW_MS = 10_000;
/** The Deployment's NODE_OPTIONS unless CONTROLLER_BENCH_NODE_OPTIONS is set (to try another heap cap). */
const NODE_OPTIONS = process.env.CONTROLLER_BENCH_NODE_OPTIONS ?? CONTROLLER_NODE_OPTIONS;

export const NS = 'clusters-banana';
const MGMT_USER = managementUser(NS);
const GROUP_VERSION = 'on-cluster-build.pkogen.io/v1alpha1';
const PUSH_HOST = 'quay.example.com';
const D = (c: string) => `sha256:${c.repeat(64)}`;
const enc = new TextEncoder();
const b64 = (s: string | Uint8Array) => Buffer.from(s).toString('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);
const sha256 = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;



/** Pushes the two releases the benches move between (4.20.1, 4.20.2) to `host`; their pullspecs by digest. */
export async function pushReleases(host: string): Promise<string[]> {
  const releases: string[] = [];
  const push = new RegistryClient({});
  try {
    for (const [version, n] of [['4.20.1', '1'], ['4.20.2', '4']] as const) {
      const img = releaseImage(version, n);
      await push.push(img, [parseReference(`${host}/ocp/release:${version}`)]);
      releases.push(`${host}/ocp/release@${img.digest}`);
    }
  } finally {
    push.close();
  }
  return releases;
}

/** A single-arch release payload: one layer with `image-references` and `release-metadata`. */
export function releaseImage(version: string, n: string): Image {
  const tags: Record<string, string> = {
    'machine-config-operator': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(n)}`,
    'rhel-coreos': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(String(Number(n) + 1))}`,
    'rhel-coreos-extensions': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(String(Number(n) + 2))}`,
    pod: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('a')}`,
  };
  const refs = JSON.stringify({
    kind: 'ImageStream',
    apiVersion: 'image.openshift.io/v1',
    metadata: { name: version, creationTimestamp: null },
    spec: { lookupPolicy: { local: false }, tags: Object.entries(tags).map(([name, from]) => ({ name, annotations: {}, from: { kind: 'DockerImage', name: from } })) },
  });
  const tar = writeTar([
    { name: 'release-manifests', type: 'dir' },
    { name: 'release-manifests/image-references', type: 'file', data: enc.encode(refs) },
    { name: 'release-manifests/release-metadata', type: 'file', data: enc.encode(JSON.stringify({ kind: 'cincinnati-metadata-v0', version })) },
  ]);
  const config = { architecture: 'amd64', os: 'linux', config: { Labels: { 'io.openshift.release': version } }, rootfs: { type: 'layers', diff_ids: [sha256(tar)] } };
  return Image.fromBlobs(new Blob(MediaType.OciConfig, enc.encode(JSON.stringify(config))), [new Blob(MediaType.OciLayerGzip, gzipSync(tar))]);
}

/** A NodePool token Secret as hypershift-operator/controllers/nodepool/token.go writes it. */
export function tokenSecret(nodePool: string, release: string, ns = NS): object {
  const mc = 'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-worker-ssh\n';
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: `token-${nodePool}-1a2b3c4d`,
      namespace: ns,
      creationTimestamp: '2026-11-23T09:00:00Z',
      annotations: { 'hypershift.openshift.io/ignition-config': 'true', 'hypershift.openshift.io/nodePool': `clusters/${nodePool}`, 'hypershift.openshift.io/node-pool-upgrade-type': 'Replace' },
    },
    data: { token: b64('0b6c1f6e-1111-4a4a-9b9b-000000000001'), release: b64(release), config: b64(b64(gzipSync(mc))) },
  };
}

export const dockerConfigSecret = (namespace: string, name: string, auths: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  type: 'kubernetes.io/dockerconfigjson',
  metadata: { name, namespace },
  data: { '.dockerconfigjson': b64(JSON.stringify({ auths: Object.fromEntries(Object.entries(auths).map(([h, up]) => [h, { auth: b64(up) }])) })) },
});

export const nodePoolName = (i: number) => `workers-${String(i).padStart(4, '0')}`;
/** The webhook's rule: `metadata.name` equals `spec.nodePool.name`, one config per NodePool. */
const configName = nodePoolName;

export function nodePoolOSConfig(i: number): object {
  return {
    apiVersion: GROUP_VERSION,
    kind: 'NodePoolOSConfig',
    metadata: { name: configName(i) },
    spec: {
      nodePool: { name: nodePoolName(i) },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-creds' },
      renderedImagePushSpec: `${PUSH_HOST}/layered/${configName(i)}:latest`,
      containerFile: [{ containerfileArch: 'NoArch', content: `FROM configs AS final\nRUN echo ${i} > /etc/layered && dnf install -y tree && dnf clean all\n` }],
    },
  };
}

/** NodePool `p` on the management side as HyperShift leaves it: its token Secret, MachineDeployment and two Machines. */
export function addHcpNodePool(mgmt: ApiTestServer, p: number, release: string, ns = NS): void {
  const np = nodePoolName(p);
  const key = `clusters/${np}`;
  mgmt.store.put(tokenSecret(np, release, ns));
  mgmt.store.put({
    apiVersion: 'cluster.x-k8s.io/v1beta1',
    kind: 'MachineDeployment',
    metadata: { name: `banana-${np}`, namespace: ns, annotations: { 'hypershift.openshift.io/nodePool': key, 'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=amd64' } },
    spec: { template: { metadata: { annotations: { 'hypershift.openshift.io/nodePool': key } } } },
  });
  for (const m of ['x1', 'x2']) {
    mgmt.store.put({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Machine',
      metadata: { name: `banana-${np}-${m}`, namespace: ns, annotations: { 'hypershift.openshift.io/nodePool': key, 'hypershift.openshift.io/nodePoolTaints': '[]' } },
      spec: { bootstrap: { dataSecretName: `user-data-${np}-1a2b3c4d` } },
      status: { nodeInfo: { architecture: 'amd64', osImage: 'Red Hat Enterprise Linux CoreOS' } },
    });
  }
}

/** The Deployment's args with the package config's defaults, the tenant layer on, the kubeconfigs pointed at the test servers. */
function args(dir: string, registryHost: string): string[] {
  const defaults = configSchema.properties as Record<string, { default?: unknown }>;
  const deployment = controllerArgs().map((a) =>
    a
      .replace(/\{\{ \.config\.(\w+) \}\}/g, (_, k: string) => String(defaults[k]?.default))
      .replace(/^--hosted-kubeconfig=.*/, `--hosted-kubeconfig=${dir}/hosted.kubeconfig`)
      .replace(/^--health-port=.*/, '--health-port=0')
      // PKO renders this from the HostedCluster's annotation: a hosted cluster that opted in (else nothing is built).
      .replace(/^--tenant-layer=.*/s, '--tenant-layer=Enabled'),
  );
  return [...deployment, `--management-kubeconfig=${dir}/management.kubeconfig`, `--registry-allow=${registryHost}`];
}

async function until(what: string, cond: () => boolean, child: ChildProcess, tail: () => string): Promise<number> {
  const t0 = Date.now();
  while (!cond()) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the controller exited (${child.exitCode ?? child.signalCode}) waiting for ${what}: ${tail()}`);
    if (Date.now() - t0 > STEP_TIMEOUT_MS) throw new Error(`timed out after ${STEP_TIMEOUT_MS / 1000} s waiting for ${what}: ${tail()}`);
    await sleep(250);
  }
  return (Date.now() - t0) / 1000;
}

export async function bench(): Promise<string> {
  const { startApiServer } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer };
  const { startRegistry, cleanupRegistry } = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/oci/registry-harness.js')).href)) as {
    startRegistry: typeof StartRegistry;
    cleanupRegistry: typeof CleanupRegistry;
  };
  // This process (API servers, registry: children inherit it) on core 1, the controller on core 0.
  const pinned = pinToCore1();
  const dir = mkdtempSync(path.join(tmpdir(), 'controller-bench-'));
  let mgmt: ApiTestServer | undefined;
  let hosted: ApiTestServer | undefined;
  let reg: TestRegistry | undefined;
  let child: ChildProcess | undefined;
  try {
    reg = await startRegistry('http');
    const releases = await pushReleases(reg.host);

    ({ mgmt, hosted } = await startClusters(startApiServer, NS));

    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgmt.store.put(dockerConfigSecret(NS, 'pull-secret', { 'quay.io': 'hcp:hcp-password', [PUSH_HOST]: 'nodes:nodes-password' }));
    mgmt.store.put({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'HostedControlPlane',
      metadata: { name: 'banana', namespace: NS },
      spec: { releaseImage: releases[0], imageContentSources: [{ source: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev', mirrors: ['mirror.example.com/ocp/art-dev'] }] },
    });
    const m0 = mgmt;
    const addNodePool = (p: number) => addHcpNodePool(m0, p, releases[p % releases.length]!);
    for (let p = 0; p < IDLE_NODEPOOLS; p++) addNodePool(p);
    for (const ns of [HOSTED_NAMESPACE, BUILD_NAMESPACE, 'openshift-config']) hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    hosted.store.put(dockerConfigSecret('openshift-config', 'pull-secret', { 'quay.io': 'hosted-pull:hosted-pull-password' }));
    hosted.store.put(dockerConfigSecret(HOSTED_NAMESPACE, 'push-creds', { [PUSH_HOST]: 'robot:push-password' }));
    for (let n = 1; n <= 3; n++) {
      hosted.store.put({
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: `ip-10-0-1-${n}`, labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/hostname': `ip-10-0-1-${n}` } },
        spec: {},
        status: { conditions: [{ type: 'Ready', status: 'True' }] },
      });
    }
    writeFileSync(path.join(dir, 'management.kubeconfig'), mgmt.kubeconfig(MGMT_USER), { mode: 0o600 });
    writeFileSync(path.join(dir, 'hosted.kubeconfig'), hosted.kubeconfig(CONTROLLER_USERNAME), { mode: 0o600 });

    const argv = args(dir, reg.host);
    child = spawn(pinned ? 'taskset' : process.execPath, [...(pinned ? ['-c', '0', process.execPath] : []), path.join(root, 'bin', 'on-cluster-build.js'), ...argv], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, POD_NAMESPACE: NS, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS: NODE_OPTIONS },
    });
    const c = child;
    let tailBuf = '';
    let reconcileFailures = 0;
    let rest = '';
    c.stderr!.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      for (const l of lines) if (l.includes('"reconcile failed"') || l.includes('"observe failed"')) reconcileFailures++;
      tailBuf = (tailBuf + d.toString()).slice(-3000);
    });
    const tail = () => tailBuf.slice(-1500);
    const pid = c.pid!;
    const m = mgmt;
    const h = hosted;

    // Idle: it holds the Lease, has observed both sides (the HostedControlPlane list comes last) and has zero configs.
    const observed = () => m.audit.some((e) => e.user === MGMT_USER && e.verb === 'list' && e.resource === 'hostedcontrolplanes');
    const leased = () => m.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: LEASE_NAME, namespace: NS })?.spec?.holderIdentity !== undefined;
    const startS = await until('the first observation', () => leased() && observed(), c, tail);
    await sleep(SETTLE_MS);
    const idle = procStatus(pid);
    const idleCpu = cpuSeconds(pid);

    const reconciled = () => h.store.list(GROUP_VERSION, 'NodePoolOSConfig').filter((o) => (o.status?.conditions ?? []).length > 0).length;
    const steps: { configs: number; seconds: number; cpu: number; after: { rssKb: number; hwmKb: number }; jobs: number; waiting: number; degraded: number; reasons: string; sample: string }[] = [];
    let made = 0;
    for (const target of [CONFIGS_A, CONFIGS_B]) {
      const cpu0 = cpuSeconds(pid);
      for (let p = Math.max(made, IDLE_NODEPOOLS); p < target; p++) addNodePool(p);
      for (; made < target; made++) h.store.put(nodePoolOSConfig(made) as never);
      const seconds = await until(`${target} configs reconciled`, () => reconciled() >= target, c, tail);
      await sleep(SETTLE_MS);
      const configs = h.store.list(GROUP_VERSION, 'NodePoolOSConfig');
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const cond = (o: any, t: string) => ((o.status?.conditions ?? []) as { type: string; status: string }[]).some((x) => x.type === t && x.status === 'True');
      steps.push({
        configs: target,
        seconds,
        cpu: cpuSeconds(pid) - cpu0,
        after: procStatus(pid),
        jobs: h.store.list('batch/v1', 'Job', BUILD_NAMESPACE).length,
        waiting: configs.filter((o) => (o.status?.conditions ?? []).some((x: { type: string; reason?: string }) => x.type === 'Building' && x.reason === 'WaitingForBuildSlot')).length,
        degraded: configs.filter((o) => cond(o, 'Degraded')).length,
        reasons: [...configs.reduce((acc, o) => {
          for (const x of (o.status?.conditions ?? []) as { type: string; status: string; reason?: string; message?: string }[]) if (x.type === 'Degraded' && x.status === 'True') acc.set(x.reason ?? '', (acc.get(x.reason ?? '') ?? 0) + 1);
          return acc;
        }, new Map<string, number>())].map(([r, n]) => `${r} ${n}`).join(', '),
        sample: JSON.stringify(configs[0]?.status?.conditions ?? []).slice(0, 600),
      });
    }
    // Steady state at the last step: CPU over a quiet window, then over the same window after
    // three events that concern one config each (a status written by someone else, a spec
    // change, a Node's heartbeat); and the list calls each window cost.
    const lists = (from: [number, number]) => [...m.audit.slice(from[0]), ...h.audit.slice(from[1])].filter((e) => (e.user === MGMT_USER || e.user === CONTROLLER_USERNAME) && e.verb === 'list' && !e.name).length;
    const window = async (f?: () => void) => {
      const from: [number, number] = [m.audit.length, h.audit.length];
      const cpu0 = cpuSeconds(pid);
      f?.();
      await sleep(WINDOW_MS);
      return { cpu: cpuSeconds(pid) - cpu0, lists: lists(from) };
    };
    const quiet = await window();
    const events = await window(() => {
      const a = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: configName(IDLE_NODEPOOLS) })!;
      h.store.put({ ...a, status: { ...a.status, conditions: [{ type: 'Available', status: 'True', reason: 'ImageBuilt', message: 'written by someone else', lastTransitionTime: '2026-11-25T00:00:00Z' }] } });
      const b = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: configName(IDLE_NODEPOOLS + 1) })!;
      h.store.put({ ...b, spec: { ...b.spec, containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN echo changed > /etc/layered\n' }] } });
      const n = h.store.get({ apiVersion: 'v1', kind: 'Node', name: 'ip-10-0-1-1' })!;
      h.store.put({ ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-25T00:00:00Z' }] } });
    });
    const steady = procStatus(pid);

    // The tenant's flood: FLOOD maximal configs named after no NodePool, on top of the
    // CONFIGS_B NodePools' configs the controller keeps. It must stay alive under the package's
    // limit, refuse the flood at its bounded rate, and go on reconciling the configs it keeps.
    let flood: { putS: number; refusedS: number; refusals: number; rate: number; keptOk: number; spec: boolean; after: { rssKb: number; hwmKb: number }; heldUp: boolean } | undefined;
    if (FLOOD > 0) {
      const need = FLOOD * 0.35 + 1024;
      const have = getHeapStatistics().heap_size_limit / 1048576;
      if (have < need) throw new Error(`the flood of ${FLOOD} maximal configs needs this process's heap to hold them in the API test server: ${Math.ceil(need)} MiB; it has ${Math.floor(have)} (run with NODE_OPTIONS=--max-old-space-size=${Math.ceil(need / 1024) * 1024})`);
      const floodName = (i: number) => `flood-${String(i).padStart(5, '0')}`;
      const refusedWrites = new Set<string>();
      let auditAt = 0;
      const countRefusals = () => {
        for (; auditAt < h.audit.length; auditAt++) {
          const e = h.audit[auditAt]!;
          if (e.user === CONTROLLER_USERNAME && e.verb === 'update' && e.resource === 'nodepoolosconfigs' && e.subresource === 'status' && e.name.startsWith('flood-') && (e.code ?? 200) < 300) refusedWrites.add(e.name);
        }
        return refusedWrites.size;
      };
      const t0 = Date.now();
      for (let i = 0; i < FLOOD; i++) {
        h.store.put(maximalConfig(floodName(i), i, PUSH_HOST, 'push-creds') as never);
        if (i % 25 === 24) {
          if (c.exitCode !== null || c.signalCode !== null) throw new Error(`the controller exited (${c.exitCode ?? c.signalCode}) during the flood, at ${i + 1} configs: ${tail()}`);
          await sleep(5); // this process also serves the controller: let it stream events and answer
        }
      }
      const putS = (Date.now() - t0) / 1000;
      const target = Math.min(FLOOD, FLOOD_REFUSALS);
      const refusedS = await until(`${target} refusal statuses`, () => countRefusals() >= target, c, tail);
      // A kept config still gets its reconcile: a spec change is acted on (its status follows the generation).
      const kept = configName(IDLE_NODEPOOLS + 2);
      const k0 = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: kept })!;
      h.store.put({ ...k0, spec: { ...k0.spec, containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN echo flood > /etc/layered\n' }] } });
      const gen = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: kept })!.metadata!.generation;
      const followed = () => h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: kept })?.status?.observedGeneration === gen;
      await until('a kept config reconciled during the flood', followed, c, tail);
      // The refusal rate over one window (the controller spaces them REFUSAL_INTERVAL_MS apart).
      const r0 = countRefusals();
      await sleep(WINDOW_MS);
      const rate = (countRefusals() - r0) / (WINDOW_MS / 1000);
      let keptOk = 0;
      for (let i = 0; i < CONFIGS_B; i++) {
        const o = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: configName(i) });
        if (o && (o.status?.conditions ?? []).length && !(o.status.conditions as { reason?: string }[]).some((x) => x.reason === LIMIT_REASON)) keptOk++;
      }
      const sample = h.store.get({ apiVersion: GROUP_VERSION, kind: 'NodePoolOSConfig', name: [...refusedWrites][0]! });
      const heldUp = (sample?.status?.conditions ?? []).some((x: { type: string; status: string; reason?: string }) => x.type === 'Degraded' && x.status === 'True' && x.reason === LIMIT_REASON);
      flood = { putS, refusedS, refusals: countRefusals(), rate, keptOk, spec: followed(), after: procStatus(pid), heldUp };
    }

    const denied = [...m.audit, ...h.audit].filter((e) => (e.user === MGMT_USER || e.user === CONTROLLER_USERNAME) && e.code === 403).length;
    const final = procStatus(pid);
    if (process.env.CONTROLLER_BENCH_DEBUG) for (const s of steps) process.stderr.write(`${s.sample}\n${tail()}\n`);

    const cmd = `node bin/on-cluster-build.js ${argv.map((a) => a.replace(dir, '$DIR').replace(reg!.host, '127.0.0.1:$PORT')).join(' ')}`;
    return [
      '## Controller footprint (on-cluster-build controller)',
      '',
      'Command: `make build && npm run bench -- controller` (test/bench/controller.ts; prints the section,',
      'does not rewrite this file when run alone). The controller runs as in its pod, the Deployment\'s',
      `args with the package config's defaults and NODE_OPTIONS \`${NODE_OPTIONS || '(none)'}\`${NODE_OPTIONS === CONTROLLER_NODE_OPTIONS ? " (the Deployment's)" : ' (CONTROLLER_BENCH_NODE_OPTIONS)'}, pinned to core 0:`,
      `\`${cmd}\`, POD_NAMESPACE=${NS};`,
      'the two API test servers (management, hosted) and docker-registry (two release payloads) run in',
      'the bench process / beside it on core 1, all on 127.0.0.1. RSS is VmRSS (VmHWM: peak) from /proc.',
      `A NodePoolOSConfig is named after its NodePool (one per NodePool, the webhook's rule), so each`,
      'step adds that many NodePools (token Secret, MachineDeployment, 2 Machines each) and configs;',
      `idle has ${IDLE_NODEPOOLS} NodePools and no config. 3 Ready amd64 Nodes; two releases, alternating.`,
      'A config counts as reconciled once the controller has written its status; each figure is taken',
      `${SETTLE_MS / 1000} s after the last one.`,
      '',
      '| | value |',
      '|---|---:|',
      `| start → Lease held and first observation (0 configs) | ${startS.toFixed(1)} s |`,
      `| RSS idle: Lease held, both sides observed, 0 configs (peak so far) | ${mib(idle.rssKb)} MiB (${mib(idle.hwmKb)}) |`,
      `| CPU to start and sync | ${idleCpu.toFixed(2)} s |`,
      ...steps.flatMap((s) => [
        `| RSS after ${s.configs.toLocaleString('en')} NodePools with a config, each reconciled (peak so far) | ${mib(s.after.rssKb)} MiB (${mib(s.after.hwmKb)}) |`,
        `| … time until all ${s.configs.toLocaleString('en')} had a status / controller CPU in that step | ${s.seconds.toFixed(1)} s / ${s.cpu.toFixed(1)} s |`,
        `| … build Jobs / configs WaitingForBuildSlot / Degraded | ${s.jobs} / ${s.waiting} / ${s.degraded}${s.reasons ? ` (${s.reasons})` : ''} |`,
      ]),
      `| at ${CONFIGS_B.toLocaleString('en')}, settled: controller CPU / list calls over ${WINDOW_MS / 1000} s with no event | ${quiet.cpu.toFixed(2)} s / ${quiet.lists} |`,
      `| … over ${WINDOW_MS / 1000} s after one foreign status write, one spec change, one Node heartbeat | ${events.cpu.toFixed(2)} s / ${events.lists} |`,
      `| RSS after those windows | ${mib(steady.rssKb)} MiB |`,
      `| peak RSS over the run (VmHWM) | ${mib(final.hwmKb)} MiB |`,
      `| requests denied by the package's RBAC / reconcile or observe failures logged | ${denied} / ${reconcileFailures} |`,
      ...(flood
        ? [
            `| flood: ${FLOOD.toLocaleString('en')} maximal configs (~290 kB each) named after no NodePool added beside the ${CONFIGS_B.toLocaleString('en')} kept (cap ${MAX_CONFIGS.toLocaleString('en')}): time to add them | ${flood.putS.toFixed(1)} s |`,
            `| … then until ${Math.min(FLOOD, FLOOD_REFUSALS)} had their ${LIMIT_REASON} status | ${flood.refusedS.toFixed(1)} s |`,
            `| … refusal writes per second over ${WINDOW_MS / 1000} s / refused configs with their status at the end | ${flood.rate.toFixed(1)} / ${flood.refusals.toLocaleString('en')} |`,
            `| … kept configs with their own status / a kept config's spec change acted on during the flood / a refused one reads ${LIMIT_REASON} | ${flood.keptOk.toLocaleString('en')} of ${CONFIGS_B.toLocaleString('en')} / ${flood.spec ? 'yes' : 'no'} / ${flood.heldUp ? 'yes' : 'no'} |`,
            `| … RSS after the flood (peak so far) | ${mib(flood.after.rssKb)} MiB (${mib(flood.after.hwmKb)}) |`,
          ]
        : []),
      `| load average (1 min, 2 cores shared) | ${loadavg()[0]!.toFixed(1)} |`,
      '',
    ].join('\n');
  } finally {
    await stopChild(child);
    await mgmt?.stop();
    await hosted?.stop();
    await cleanupRegistry(reg);
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node dist/test/bench/controller.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
