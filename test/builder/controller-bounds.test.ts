/**
 * The controller holds its memory bound whatever number of NodePoolOSConfigs the tenant makes:
 * the real process (`node bin/on-cluster-build.js controller`, the Deployment's args, built by
 * `make build`) runs against the project's API test servers with a smaller old space than the package's
 * (`--max-old-space-size=64`, its other flags) and MAX_CONFIGS + EXTRA maximal
 * configs (test/builder/maximal-config.ts, ~290 kB each: ~170 MB in all, 2.7 times that heap).
 * Three of them, the newest, are named after NodePools of this hosted cluster. It must stay alive
 * (no "Reached heap limit"), its peak RSS under the package's memory limit, and write
 * - a status of its own (not ConfigLimitExceeded, for the config's generation) on the configs it
 *   keeps: the three NodePools' and the oldest MAX_CONFIGS - 3 others;
 * - `Degraded` `ConfigLimitExceeded` on the EXTRA newest others.
 * The old controller kept every config whole and listed them 500 a page: it never wrote a status.
 * No timing is asserted; every wait is bounded and checks that the process is alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { managementUser, startClusters } from './clusters.js';
import { b64, tokenSecret } from './fixtures.js';
import { maximalConfig } from './maximal-config.js';
import { BUILD_NAMESPACE, CONTROLLER_USERNAME, HOSTED_NAMESPACE } from '../../builder/api/types.js';
import { applyConfigEvent, HOSTED_PAGE_SIZE, LIMIT_REASON, listConfigs, MAX_CONFIGS, trimConfig } from '../../builder/controller/intake.js';
import { NPOSC } from '../../builder/controller/observe.js';
import { controllerArgs, CONTROLLER_NODE_OPTIONS, CONTROLLER_RESOURCES } from '../../resources/builder-controller.js';
import { configSchema } from '../../resources/config.js';

const root = process.cwd();
const NS = 'clusters-banana';
const GV = 'on-cluster-build.pkogen.io/v1alpha1';
const PUSH_HOST = 'quay.example.com';
const EXTRA = 60;
const NODEPOOLS = 3;
const HEAP_MB = 64;
const NODE_OPTIONS = CONTROLLER_NODE_OPTIONS.replace(/--max-old-space-size=\d+/, `--max-old-space-size=${HEAP_MB}`);
const WAIT_MS = 420_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const name = (i: number) => `config-${String(i).padStart(5, '0')}`;
const nodePool = (i: number) => `pool-${i}`;

type Cond = { type: string; status: string; reason: string; observedGeneration?: number };
const conditions = (o: { status?: { conditions?: Cond[] } } | undefined): Cond[] => o?.status?.conditions ?? [];
const refused = (o: { status?: { conditions?: Cond[] } }) => conditions(o).some((c) => c.type === 'Degraded' && c.status === 'True' && c.reason === LIMIT_REASON);
/** A status the controller wrote for the config's generation (our five types, observedGeneration set), other than the refusal. */
const ours = (o: { metadata: { generation?: number }; status?: { conditions?: Cond[]; observedGeneration?: number } }) =>
  !refused(o) && o.status?.observedGeneration === o.metadata.generation && conditions(o).length === 5 && conditions(o).every((c) => c.observedGeneration === o.metadata.generation && !c.reason.startsWith('Forged'));

function memKb(pid: number): number {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

describe('controller: bounded intake of NodePoolOSConfigs', () => {
  let mgmt: ApiTestServer | undefined;
  let hosted: ApiTestServer | undefined;
  let child: ChildProcess | undefined;
  let dir = '';

  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const c = child;
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    }
    await mgmt?.stop();
    await hosted?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(`keeps ${MAX_CONFIGS} of ${MAX_CONFIGS + EXTRA} maximal configs with a third of the package's heap, and refuses the rest with a status`, async () => {
    // Creation times one second apart, in creation order (the intake's order after the NodePool rule).
    let tick = Date.parse('2026-11-01T00:00:00Z');
    const clock = () => new Date((tick += 1000));
    ({ mgmt, hosted } = await startClusters((o) => startApiServer({ ...o, clock }), NS));
    const m = mgmt;
    const h = hosted;
    m.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    m.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'pull-secret', namespace: NS }, data: { '.dockerconfigjson': b64(JSON.stringify({ auths: { [PUSH_HOST]: { auth: b64('nodes:pw') } } })) } });
    m.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: NS }, spec: { releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'b'.repeat(64) } });
    for (let p = 0; p < NODEPOOLS; p++) {
      m.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: nodePool(p), hash: 'a1b2c3d4', release: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'b'.repeat(64), config: 'kind: MachineConfig\n', created: '2026-11-01T00:00:00Z' }) as never);
    }
    for (const ns of [HOSTED_NAMESPACE, BUILD_NAMESPACE, 'openshift-config']) h.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    const total = MAX_CONFIGS + EXTRA;
    for (let i = 0; i < total - NODEPOOLS; i++) h.store.put(maximalConfig(name(i), i, PUSH_HOST, 'push-creds') as never);
    // The newest: named after NodePools, taken in before any other.
    for (let p = 0; p < NODEPOOLS; p++) h.store.put(maximalConfig(nodePool(p), total - NODEPOOLS + p, PUSH_HOST, 'push-creds') as never);
    const bytes = total * JSON.stringify(maximalConfig(name(0), 0, PUSH_HOST, 'push-creds')).length;
    expect(bytes).toBeGreaterThan(2.5 * HEAP_MB * 1024 * 1024);

    dir = mkdtempSync(path.join(tmpdir(), 'controller-bounds-'));
    writeFileSync(path.join(dir, 'management.kubeconfig'), m.kubeconfig(managementUser(NS)), { mode: 0o600 });
    writeFileSync(path.join(dir, 'hosted.kubeconfig'), h.kubeconfig(CONTROLLER_USERNAME), { mode: 0o600 });
    const defaults = configSchema.properties as Record<string, { default?: unknown }>;
    const args = controllerArgs().map((a) =>
      a
        .replace(/\{\{ \.config\.(\w+) \}\}/g, (_, k: string) => String(defaults[k]?.default))
        .replace(/^--hosted-kubeconfig=.*/, `--hosted-kubeconfig=${dir}/hosted.kubeconfig`)
        .replace(/^--health-port=.*/, '--health-port=0')
        .replace(/^--tenant-layer=.*/s, '--tenant-layer=Enabled'),
    );
    const c = spawn(process.execPath, [path.join(root, 'bin', 'on-cluster-build.js'), ...args, `--management-kubeconfig=${dir}/management.kubeconfig`], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, POD_NAMESPACE: NS, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS },
    });
    child = c;
    let tail = '';
    let heapLimit = false;
    c.stderr!.on('data', (d: Buffer) => {
      tail = (tail + d.toString()).slice(-4000);
      if (tail.includes('Reached heap limit') || tail.includes('heap out of memory')) heapLimit = true;
    });

    type Config = { metadata: { name: string; generation?: number }; status?: { conditions?: Cond[]; observedGeneration?: number } };
    const names = [...Array.from({ length: total - NODEPOOLS }, (_, i) => name(i)), ...Array.from({ length: NODEPOOLS }, (_, p) => nodePool(p))];
    // Read one at a time, and only once every config has had a status write (listing ~300 MB of
    // configs in this process, which also serves the controller, would starve it).
    const configs = () => names.map((n) => h.store.get({ apiVersion: GV, kind: 'NodePoolOSConfig', name: n }) as unknown as Config);
    const kept = new Set([...Array.from({ length: NODEPOOLS }, (_, p) => nodePool(p)), ...Array.from({ length: MAX_CONFIGS - NODEPOOLS }, (_, i) => name(i))]);
    const written = new Set<string>();
    let auditAt = 0;
    let checkedAt = 0;
    const done = () => {
      for (; auditAt < h.audit.length; auditAt++) {
        const e = h.audit[auditAt]!;
        if (e.user === CONTROLLER_USERNAME && e.verb === 'update' && e.resource === 'nodepoolosconfigs' && e.subresource === 'status' && (e.code ?? 200) < 300) written.add(e.name);
      }
      if (written.size < total || Date.now() - checkedAt < 10_000) return false;
      checkedAt = Date.now();
      return configs().every((o) => (kept.has(o.metadata.name) ? ours(o) : refused(o)));
    };
    let peakKb = 0;
    const t0 = Date.now();
    while (!done()) {
      peakKb = Math.max(peakKb, memKb(c.pid!));
      if (c.exitCode !== null || c.signalCode !== null || heapLimit) {
        throw new Error(`the controller exited (${c.exitCode ?? c.signalCode}${heapLimit ? ', heap limit reached' : ''}): ${tail.slice(-1500)}`);
      }
      if (Date.now() - t0 > WAIT_MS) {
        const all = configs();
        const missingKept = all.filter((o) => kept.has(o.metadata.name) && !ours(o)).length;
        const missingRefused = all.filter((o) => !kept.has(o.metadata.name) && !refused(o)).length;
        throw new Error(`not every config has its status after ${WAIT_MS / 1000} s (${written.size} written): ${missingKept} kept without one, ${missingRefused} refused without one; ${tail.slice(-1500)}`);
      }
      await sleep(1000);
    }
    peakKb = Math.max(peakKb, memKb(c.pid!));
    expect(c.exitCode).toBeNull();
    expect(heapLimit).toBe(false);
    const all = configs();
    expect(all.filter((o) => refused(o)).map((o) => o.metadata.name).sort()).toEqual(Array.from({ length: EXTRA }, (_, i) => name(MAX_CONFIGS - NODEPOOLS + i)));
    expect(all.filter((o) => ours(o))).toHaveLength(MAX_CONFIGS);
    // Within the package's memory limit (the cgroup would kill it beyond).
    expect(peakKb).toBeGreaterThan(0);
    expect(CONTROLLER_RESOURCES.limits.memory).toMatch(/^\d+Mi$/);
    expect(peakKb * 1024).toBeLessThan(parseInt(CONTROLLER_RESOURCES.limits.memory, 10) * 1024 * 1024);
  }, WAIT_MS + 120_000);
});

describe('intake: which configs are kept, which refused', () => {
  const limits = { maxConfigs: 5, maxRefusalsTracked: 3 };
  const obj = (n: string, t: number, refusal = false) => ({
    apiVersion: GV,
    kind: 'NodePoolOSConfig',
    metadata: { name: n, generation: 1, creationTimestamp: new Date(Date.parse('2026-11-01T00:00:00Z') + t * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z') },
    spec: { nodePool: { name: n } },
    status: refusal ? { observedGeneration: 1, conditions: [{ type: 'Degraded', status: 'True', reason: LIMIT_REASON, message: '', lastTransitionTime: '2026-11-01T00:00:00Z' }] } : {},
  });
  /** A fake client whose list serves `items` in pages (by name, as the API server orders them). */
  const lister = (items: ReturnType<typeof obj>[]) =>
    ({
      list: async (_r: unknown, o: { keep: (x: unknown) => unknown; pageSize: number }) => {
        expect(o.pageSize).toBe(HOSTED_PAGE_SIZE);
        for (const it of [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name))) o.keep(it);
        return { items: [], resourceVersion: '1' };
      },
    }) as never;

  it('keeps the NodePools\' configs, then the oldest, then by name; remembers at most maxRefusalsTracked refusals and skips those already refused', async () => {
    // z-* are the oldest but name no NodePool; np-* name NodePools and are the newest.
    const items = [obj('z-1', 1), obj('z-2', 2), obj('z-3', 2), obj('a-9', 9), obj('a-8', 8, true), obj('a-7', 7), obj('a-6', 6), obj('a-5', 5), obj('np-1', 20), obj('np-2', 21)];
    const pools = new Set(['np-1', 'np-2']);
    const { configs, refusals } = await listConfigs(lister(items), NPOSC, pools, limits);
    expect([...configs.keys()].sort()).toEqual(['np-1', 'np-2', 'z-1', 'z-2', 'z-3']);
    // Refused: a-5, a-6, a-7, a-8 (already carries the refusal), a-9: three remembered, one not.
    expect(refusals.total).toBe(5);
    expect(refusals.pending.size).toBe(3);
    expect(refusals.pending.has('a-8')).toBe(false);
    expect(refusals.untracked).toBe(1);
    // The same with the cap above the count: nothing refused.
    const all = await listConfigs(lister(items), NPOSC, pools, { maxConfigs: 100, maxRefusalsTracked: 3 });
    expect(all.configs.size).toBe(items.length);
    expect(all.refusals.total).toBe(0);
  });

  it('between lists: a new config named after a NodePool displaces the worst kept one; another new one is refused; a kept one that goes asks for a list', () => {
    const configs = new Map([1, 2, 3, 4, 5].map((i) => [`c-${i}`, trimConfig(obj(`c-${i}`, i))]));
    const refusals = { pending: new Set<string>(), total: 1, untracked: 0 };
    const pools = new Set(['np-1']);
    const late = applyConfigEvent(configs, refusals, obj('d-1', 50), false, pools, limits);
    expect(late).toEqual({ owner: ['d-1'], news: true });
    expect(configs.has('d-1')).toBe(false);
    expect(refusals.pending.has('d-1')).toBe(true);
    const np = applyConfigEvent(configs, refusals, obj('np-1', 60), false, pools, limits);
    expect(np.owner).toEqual(['np-1', 'c-5']);
    expect(configs.has('np-1')).toBe(true);
    expect(configs.has('c-5')).toBe(false);
    expect(refusals.pending.has('c-5')).toBe(true);
    // Our refusal write coming back is no news.
    expect(applyConfigEvent(configs, refusals, obj('d-1', 50, true), false, pools, limits)).toEqual({ owner: [], news: false });
    expect(refusals.pending.has('d-1')).toBe(false);
    // The same object again (a status write of ours already in the cache) is no news either.
    const again = configs.get('c-1')!;
    expect(applyConfigEvent(configs, refusals, { ...obj('c-1', 1), metadata: { ...obj('c-1', 1).metadata, resourceVersion: '99' } }, false, pools, limits)).toEqual({ owner: ['c-1'], news: false });
    expect(configs.get('c-1')!.digest).toBe(again.digest);
    expect(applyConfigEvent(configs, refusals, obj('c-1', 1), true, pools, limits)).toEqual({ owner: ['c-1'], news: true, relist: true });
  });

  it('an entry keeps a few hundred bytes of a maximal config', () => {
    const e = trimConfig(maximalConfig('pool-1', 1, PUSH_HOST, 'push-creds') as never);
    expect(JSON.stringify(maximalConfig('pool-1', 1, PUSH_HOST, 'push-creds')).length).toBeGreaterThan(280_000);
    expect(JSON.stringify(e).length).toBeLessThan(1500);
  });
});
