/**
 * The running controller's work per event is bounded by the configs the event concerns, not by
 * the number of configs ("unbounded work"): on the project's API test server, with
 * CONFIGS NodePools each with a config and a build Job, once every config is settled, each of these
 * events reconciles only its own config(s) and re-lists nothing (a token Secret: the HCP
 * namespace's Secrets, once):
 * - the controller's own status write (after a Job it watches finishes),
 * - a status write by someone else (a tenant forging a config's status: that config only, restored),
 * - a spec change of one config,
 * - a Node: a heartbeat-only change (no config), a Node labelled with one NodePool (that config),
 * - a Job of one config finishing (that config),
 * - a hand-off ConfigMap deleted by someone else (that config, which puts it back),
 * - a NodePool's token Secret replaced (that NodePool's config),
 * - a config deleted (its Job and hand-off go, no other config is reconciled);
 * and a watch that ends resumes from its last resourceVersion (no list), one that gets 410 Gone
 * lists again and both sides are observed again.
 * Reconciles are counted per key (the work queue calls `reconcileKey`); list calls from the audit.
 */
import { ApiTestServer, startApiServer, type WriteEvent } from '../../pkogen/test/kube/api-server.js';
import { Kube, type KubeObject } from '../../builder/clusters/kube.js';
import { Reconciler } from '../../builder/controller/reconciler.js';
import type { ReconcilerOptions } from '../../builder/controller/options.js';
import { runController } from '../../builder/controller/run.js';
import { wiring } from '../../builder/wiring.js';
import { CONTROLLER_USERNAME } from '../../builder/cli.js';
import { HANDOFF_PREFIX, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY, providerImageEntryText } from '../../builder/controller/handoff.js';
import { managementUser, startClusters } from './clusters.js';
import { b64, tokenSecret } from './fixtures.js';
import { BASE, BUILD_NS, DIGEST, GV, hostedReads, NS, PUSH_HOST, RECONCILER_DEFAULTS, seedHcp } from './hcp-fixtures.js';

const MGMT_USER = managementUser(NS);
const CONFIGS = 60;
const RELEASE_A = `quay.io/openshift-release-dev/ocp-release@${DIGEST('b')}`;
const RELEASE_B = `quay.io/openshift-release-dev/ocp-release@${DIGEST('c')}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const np = (i: number) => `workers-${String(i).padStart(3, '0')}`;

describe('controller: work per event is bounded by the configs it concerns', () => {
  let mgmt: ApiTestServer;
  let hosted: ApiTestServer;
  const counts = new Map<string, number>();
  const stop = new AbortController();
  let running: Promise<void>;
  const pushed = new Set<string>();

  let inFlight = 0;
  class Counting extends Reconciler {
    override async reconcileKey(name: string) {
      counts.set(name, (counts.get(name) ?? 0) + 1);
      inFlight++;
      try {
        return await super.reconcileKey(name);
      } finally {
        inFlight--;
      }
    }
  }

  const total = () => [...counts.values()].reduce((a, b) => a + b, 0);
  /** Waits (bounded) until no reconcile is running and none has started for `quietMs` (the machine is shared: generous). */
  async function settle(quietMs = 1500, maxMs = 30_000): Promise<void> {
    const t0 = Date.now();
    let last = total();
    let since = Date.now();
    while (Date.now() - t0 < maxMs) {
      await sleep(50);
      const now = total();
      if (now !== last || inFlight > 0) {
        last = now;
        since = Date.now();
      } else if (Date.now() - since >= quietMs) return;
    }
    throw new Error(`the controller did not settle within ${maxMs} ms (${total()} reconciles)`);
  }
  /** Runs `f`, waits for the controller to settle and returns the reconciles per key and the lists it caused. */
  async function after(f: () => void | Promise<void>, done: () => boolean = () => true): Promise<{ keys: Map<string, number>; lists: string[] }> {
    await settle();
    counts.clear();
    const a0 = mgmt.audit.length;
    const h0 = hosted.audit.length;
    await f();
    // What the event should lead to, then quiet (both bounded).
    for (let i = 0; i < 600 && !done(); i++) await sleep(50);
    await sleep(100);
    await settle();
    const lists = [...mgmt.audit.slice(a0), ...hosted.audit.slice(h0)].filter((e) => (e.user === MGMT_USER || e.user === CONTROLLER_USERNAME) && e.verb === 'list').map((e) => `${e.resource}${e.name ? `/${e.name}` : ''}${e.namespace ? ` in ${e.namespace}` : ''}`);
    return { keys: new Map(counts), lists };
  }
  const { config, jobOf, cond } = hostedReads(() => hosted);
  /** Per config, the images its build ConfigMaps were created FROM (from the hosted server's writes). */
  const fromImages = new Map<string, Set<string>>();
  const recordFrom = (e: WriteEvent) => {
    const o = e.object as KubeObject & { data?: Record<string, string> };
    if (e.type !== 'ADDED' || o.kind !== 'ConfigMap' || o.metadata.namespace !== BUILD_NS) return;
    const name = o.metadata.labels?.['on-cluster-build.pkogen.io/nodepoolosconfig'];
    if (!name) return;
    const seen = fromImages.get(name) ?? new Set<string>();
    for (const m of (o.data?.Containerfile ?? '').matchAll(/FROM (\S+) AS configs/g)) seen.add(m[1]!);
    fromImages.set(name, seen);
  };
  /** Lists a reconcile makes for its own config (build records by label, a finished Job's pods). */
  // A reconcile's own reads: its build records and pods, and its config read whole by name (a list of one).
  const ownLists = (l: string) => l === 'nodepoolosbuilds' || l === `pods in ${BUILD_NS}` || /^nodepoolosconfigs\/[^ ]+$/.test(l);

  function finishJob(name: string, digest: string) {
    const job = jobOf(name);
    hosted.store.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${job.metadata!.name}-x7k2p`, namespace: BUILD_NS, labels: { ...job.spec.template.metadata.labels, 'batch.kubernetes.io/job-name': job.metadata!.name }, creationTimestamp: '2026-11-23T10:00:00Z' },
      spec: job.spec.template.spec,
      status: { phase: 'Succeeded', containerStatuses: [{ name: 'build', state: { terminated: { exitCode: 0, reason: 'Completed', message: digest } } }] },
    });
    pushed.add(`${PUSH_HOST}/layered/${name}@${digest}`);
    hosted.store.put({ ...job, status: { startTime: '2026-11-23T10:00:00Z', completionTime: '2026-11-23T10:07:00Z', succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2026-11-23T10:07:00Z' }] } });
  }

  beforeAll(async () => {
    ({ mgmt, hosted } = await startClusters(startApiServer, NS));
    hosted.onWrite(recordFrom);
    seedHcp(mgmt, hosted, { release: RELEASE_A, pools: Array.from({ length: CONFIGS }, (_, i) => np(i)), nodes: 2 });
    const w = wiring({ cacheSize: 4 });
    const management = new Kube(mgmt.kubeConfig(MGMT_USER));
    const hostedKube = new Kube(hosted.kubeConfig(CONTROLLER_USERNAME));
    const options: ReconcilerOptions = {
      management,
      hosted: hostedKube,
      namespace: NS,
      resolveRelease: async (release) => ({ releaseDigest: release.split('@')[1]!, baseOSImage: BASE, machineConfigOperatorImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST('f')}`, version: '4.19.0' }),
      verifyImage: async (i) => (pushed.has(i.pushRef) ? { ok: true } : { ok: false, reason: 'manifest unknown' }),
      nodePoolInputs: w.nodePoolInputs,
      validateConfig: w.validateConfig,
      ...RECONCILER_DEFAULTS,
      maxConcurrentBuilds: CONFIGS * 2,
    };
    running = runController({ management, hosted: hostedKube, namespace: NS, reconciler: new Counting(options), resyncSeconds: 3600, debounceMs: 20 }, stop.signal);
    for (let i = 0; i < 600 && hosted.store.list('batch/v1', 'Job', BUILD_NS).length < CONFIGS; i++) await sleep(50);
    expect(hosted.store.list('batch/v1', 'Job', BUILD_NS)).toHaveLength(CONFIGS);
    for (let i = 0; i < 600 && hosted.store.list(GV, 'NodePoolOSConfig').some((c) => cond(c, 'Building')?.status !== 'True'); i++) await sleep(50);
    await settle();
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await running;
    await mgmt?.stop();
    await hosted?.stop();
  });

  it('a Job finishing reconciles its config only, and the status the controller writes then is not an event for it', async () => {
    const name = np(1);
    const { keys, lists } = await after(() => finishJob(name, DIGEST('1')), () => cond(config(name), 'Available')?.status === 'True');
    expect(cond(config(name), 'Available')).toMatchObject({ status: 'True' });
    expect([...keys.keys()]).toEqual([name]);
    // One reconcile for the Job, one for the Pod at most; its own writes (build record, config
    // status, hand-off) bring it back at most once more (an event that overtakes the response).
    expect(keys.get(name)).toBeLessThanOrEqual(3);
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it("someone else's status write reconciles that config only, which restores its status", async () => {
    const name = np(2);
    const { keys, lists } = await after(() => {
      const c = config(name);
      hosted.store.put({ ...c, status: { ...c.status, conditions: [{ type: 'Available', status: 'True', reason: 'ImageBuilt', message: 'forged', lastTransitionTime: '2026-11-23T10:00:00Z' }] } });
    }, () => cond(config(name), 'Building')?.status === 'True');
    expect([...keys.keys()]).toEqual([name]);
    expect(keys.get(name)).toBeLessThanOrEqual(2);
    expect(cond(config(name), 'Available')).toMatchObject({ status: 'False' });
    expect(cond(config(name), 'Building')).toMatchObject({ status: 'True' });
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it('a spec change of one config reconciles that config only', async () => {
    const name = np(3);
    const before = jobOf(name).metadata!.name;
    const { keys, lists } = await after(() => {
      const c = config(name);
      hosted.store.put({ ...c, spec: { ...c.spec, containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN echo changed > /etc/layered\n' }] } });
    }, () => jobOf(name)?.metadata!.name !== before);
    expect([...keys.keys()]).toEqual([name]);
    expect(keys.get(name)).toBeLessThanOrEqual(3);
    expect(hosted.store.list('batch/v1', 'Job', BUILD_NS).filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name).map((j) => j.metadata!.name)).not.toContain(undefined);
    expect(hosted.store.list('batch/v1', 'Job', BUILD_NS).some((j) => j.metadata!.name !== before && j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name)).toBe(true);
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it('a build pod the scheduler cannot place: that config only says why while it waits (bounded, printable), and stops saying so once the pod is placed', async () => {
    const name = np(10);
    const job = jobOf(name);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `${job.metadata!.name}-q8v4m`, namespace: BUILD_NS, labels: { ...job.spec.template.metadata.labels, 'batch.kubernetes.io/job-name': job.metadata!.name }, creationTimestamp: '2026-11-23T10:00:00Z' }, spec: job.spec.template.spec };
    // As kube-scheduler writes it (schedule_one.go handleSchedulingFailure): PodScheduled False, reason Unschedulable.
    const why = '0/3 nodes are available: 3 Insufficient ephemeral-storage. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    const waiting = await after(() => {
      hosted.store.put({ ...pod, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable', message: `${why}\n\u0007${'x'.repeat(5000)}`, lastTransitionTime: '2026-11-23T10:00:01Z' }] } });
    }, () => cond(config(name), 'WaitingForCapacity')?.status === 'True');
    expect([...waiting.keys.keys()]).toEqual([name]);
    expect(waiting.lists.filter((l) => !ownLists(l))).toEqual([]);
    const c = cond(config(name), 'WaitingForCapacity');
    expect(c).toMatchObject({ status: 'True', reason: 'BuildUnschedulable' });
    expect(c.message.startsWith(`job ${BUILD_NS}/${job.metadata!.name}: pod ${pod.metadata.name} cannot be scheduled: ${why} xxx`)).toBe(true);
    expect(c.message).toMatch(/^[\x20-\x7e]*…$/);
    expect(c.message.length).toBeLessThan(700);
    expect(cond(config(name), 'Building')).toMatchObject({ status: 'True', reason: 'BuildRunning' });
    const record = hosted.store.list(GV, 'NodePoolOSBuild').find((b) => b.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name && b.metadata!.name === job.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(cond(record, 'Building')).toMatchObject({ status: 'True', reason: 'BuildUnschedulable', message: c.message });
    const placed = await after(() => {
      hosted.store.put({ ...pod, spec: { ...pod.spec, nodeName: 'ip-10-0-1-1' }, status: { phase: 'Running', conditions: [{ type: 'PodScheduled', status: 'True' }] } });
    }, () => cond(config(name), 'WaitingForCapacity')?.status === 'False');
    expect([...placed.keys.keys()]).toEqual([name]);
    expect(cond(config(name), 'WaitingForCapacity')).toMatchObject({ status: 'False', reason: 'CapacityAvailable' });
    expect(cond(config(name), 'Building')).toMatchObject({ status: 'True', reason: 'BuildRunning' });
  });

  it("a Node's heartbeat reconciles nothing; a Node of one NodePool reconciles that NodePool's config", async () => {
    const beat = await after(() => {
      const n = hosted.store.get({ apiVersion: 'v1', kind: 'Node', name: 'ip-10-0-1-1' })!;
      hosted.store.put({ ...n, status: { ...n.status, conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: '2026-11-23T11:00:00Z' }], images: [{ names: ['x'], sizeBytes: 1 }] } });
    });
    expect([...beat.keys.keys()]).toEqual([]);
    expect(beat.lists).toEqual([]);
    const name = np(4);
    const labelled = await after(() => {
      hosted.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'ip-10-0-2-1', labels: { 'kubernetes.io/arch': 'amd64', 'hypershift.openshift.io/nodePool': name } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    });
    expect([...labelled.keys.keys()]).toEqual([name]);
    expect(labelled.lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it('a hand-off ConfigMap deleted by someone else reconciles its config only, which puts it back', async () => {
    const name = np(1); // handed off above
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}${name}`, namespace: NS };
    expect(mgmt.store.get(cm)).toBeDefined();
    const { keys, lists } = await after(() => {
      mgmt.store.delete(cm, { force: true });
    }, () => mgmt.store.get(cm) !== undefined);
    expect([...keys.keys()]).toEqual([name]);
    expect(mgmt.store.get(cm)).toBeDefined();
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it("a NodePool's new token Secret reconciles that NodePool's config only", async () => {
    const name = np(5);
    const before = jobOf(name).metadata!.name;
    const { keys } = await after(() => {
      mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: name, hash: '5e6f7a8b', release: RELEASE_B, config: 'kind: MachineConfig\n', created: '2026-11-23T12:00:00Z' }));
    }, () => hosted.store.list('batch/v1', 'Job', BUILD_NS).some((j) => j.metadata!.name !== before && j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name));
    expect([...keys.keys()]).toEqual([name]);
    expect(hosted.store.list('batch/v1', 'Job', BUILD_NS).some((j) => j.metadata!.name !== before && j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name)).toBe(true);
  });

  it('a Secret that is neither a token Secret nor the pull secret reconciles nothing', async () => {
    const { keys, lists } = await after(() => {
      mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'kube-apiserver-cert', namespace: NS }, data: { 'tls.crt': b64('x') } });
    });
    expect([...keys.keys()]).toEqual([]);
    expect(lists).toEqual([]);
  });

  it('a deleted config takes its Job and hand-off with it, and no other config is reconciled', async () => {
    const name = np(1);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}${name}`, namespace: NS };
    const gone = () => !jobOf(name) && mgmt.store.get(cm) === undefined;
    const { keys } = await after(() => {
      hosted.store.delete({ apiVersion: GV, kind: 'NodePoolOSConfig', name }, { force: true });
    }, gone);
    expect(gone()).toBe(true);
    expect([...keys.keys()].filter((k) => k !== name)).toEqual([]);
  });

  it('a watch that ends resumes where it was: nothing is listed, a change made meanwhile still reaches its config', async () => {
    const name = np(6);
    const before = jobOf(name).metadata!.name;
    const { keys, lists } = await after(() => {
      hosted.dropWatches();
      const c = config(name);
      hosted.store.put({ ...c, spec: { ...c.spec, containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN echo meanwhile > /etc/layered\n' }] } });
    }, () => jobOf(name)?.metadata!.name !== before);
    expect([...keys.keys()]).toEqual([name]);
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
  });

  it('after 410 Gone a watch lists again and both sides are observed again', async () => {
    const name = np(7);
    const before = jobOf(name).metadata!.name;
    const { keys, lists } = await after(() => {
      hosted.dropWatches();
      const c = config(name);
      hosted.store.put({ ...c, spec: { ...c.spec, containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN echo gone > /etc/layered\n' }] } });
      hosted.compact(); // the change is history now: resuming before it is 410 Gone
    }, () => jobOf(name)?.metadata!.name !== before);
    expect(lists).toContain('nodepoolosconfigs');
    expect(lists).toContain(`secrets in ${NS}`);
    expect(keys.get(name)).toBeGreaterThanOrEqual(1);
  });
  it("the fleet's provider-images ConfigMap: a new layer reconciles every config; one NodePool's new provider image reconciles that config only, which rebuilds FROM it", async () => {
    const IMAGES = { apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: NS };
    const provider = (c: string) => `${PUSH_HOST}/provider/rhcos@${DIGEST(c)}`;
    const entries = (over: Record<string, string> = {}) =>
      // workers-005 moved to RELEASE_B above: its entry is for that release (one for RELEASE_A would keep it waiting).
      Object.fromEntries(Array.from({ length: CONFIGS }, (_, i) => [np(i), providerImageEntryText({ release: i === 5 ? RELEASE_B : RELEASE_A, arch: 'amd64', image: over[np(i)] ?? provider('7') })]));
    const labels = { 'app.kubernetes.io/managed-by': 'on-cluster-build' };
    /** Whether one of the config's build Jobs is FROM `image` (its Containerfile volume says so): read from the store, for the assertions. */
    const layered = (name: string, image: string) =>
      hosted.store
        .list('batch/v1', 'Job', BUILD_NS)
        .filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosconfig'] === name)
        .some((j) => !!(hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: j.metadata!.name, namespace: BUILD_NS })?.data?.Containerfile as string | undefined)?.includes(`FROM ${image} AS configs`));
    /**
     * The same, for polling while the controller works: a build ConfigMap created FROM `image`
     * for the config, kept from the hosted server's writes. Reading the store instead lists (and
     * copies) every Job once per config per poll, ~10,000 Job copies every 50 ms on the one
     * thread the controller and both API servers share.
     */
    const built = (name: string, image: string) => fromImages.get(name)?.has(image) === true;
    const target = np(8);
    const others = Array.from({ length: CONFIGS }, (_, i) => np(i)).filter((n) => n !== target && n !== np(1));
    // The layer arrives (every NodePool has an entry): every config is looked at again and builds FROM it.
    const first = await after(() => {
      mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PROVIDER_IMAGES_CONFIGMAP, namespace: NS, labels }, data: { [PROVIDER_LAYER_KEY]: 'provider-layer@L1', ...entries() } });
    }, () => others.every((n) => built(n, provider('7'))));
    expect(first.keys.size).toBeGreaterThanOrEqual(CONFIGS - 1);
    expect(others.every((n) => layered(n, provider('7')))).toBe(true);
    // One NodePool's provider image changes: that config only.
    const cm = mgmt.store.get(IMAGES)!;
    const { keys, lists } = await after(() => {
      mgmt.store.put({ ...cm, data: { [PROVIDER_LAYER_KEY]: 'provider-layer@L1', ...entries({ [target]: provider('8') }) } });
    }, () => built(target, provider('8')));
    expect([...keys.keys()]).toEqual([target]);
    expect(layered(target, provider('8'))).toBe(true);
    expect(lists.filter((l) => !ownLists(l))).toEqual([]);
    // The channel goes (the fleet is uninstalled): every config builds on the release's base again.
    await after(() => {
      mgmt.store.delete(IMAGES, { force: true });
    }, () => others.every((n) => built(n, BASE)));
    expect(others.every((n) => layered(n, BASE))).toBe(true);
  }, 300_000);
});
