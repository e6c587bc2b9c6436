/**
 * The fleet component as a running process (startFleet: its flags, watch loop, rollout engine,
 * build registry, /metrics on 127.0.0.1; only the provider build is faked and HyperShift's
 * NodePool status is played by the test, as in fleet-rollout-run.test.ts) with a Progressive
 * rollout policy, scraped over mTLS while the provider layer rolls out: the canary first, a
 * window of two, a failure that halts the rollout, `fleet-rollout resume`, the rest. Asserted at
 * each checkpoint: NodePools and canaries by rollout state, the halted gauge, the waves still to
 * go, the build requests deduplicated onto one; Events on the rollout's ConfigMap for the
 * milestones. The scrapes are the input of `promtool test rules` for OnClusterBuildRolloutHalted:
 * silent while healthy, pending for its 5 minutes, firing while halted, silent once resumed.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ApiTestServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { parseCommand } from '../../builder/cli.js';
import { handoffName } from '../../builder/controller/handoff.js';
import { BuildKey } from '../../builder/fleet/build-registry.js';
import { FleetProcess, startFleet } from '../../builder/fleet/main.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_CLUSTER_RULES, ROLLOUT_CONFIGMAP } from '../../builder/fleet/rbac.js';
import { updateControl } from '../../builder/fleet/rollout/state.js';
import { MUTATE_NODEPOOL_PATH } from '../../builder/fleet/webhook.js';
import { EVENT_REASONS } from '../../builder/metrics/events.js';
import { PLATFORM_SCRAPER } from '../../builder/metrics/server.js';
import { fleetAlerts } from '../../resources/monitoring.js';
import { D, FLEET_USER, freePort, imageOfKey, NS, R1, R2, REPO, startFleetApi } from './fleet-harness.js';
import { MetricsPki, metricsPki, sample, samples, scrape } from './metrics-harness.js';
import { checkAndTest, inputSeries, Recording } from './promtool.js';

const NP = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };
const CLUSTERS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
const healthy = [
  { type: 'Ready', status: 'True', reason: 'AsExpected' },
  { type: 'AllMachinesReady', status: 'True', reason: 'AsExpected' },
  { type: 'AllNodesHealthy', status: 'True', reason: 'AsExpected' },
];
const waitFor = async (what: string, cond: () => boolean) => {
  for (let i = 0; i < 1500 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};
const ROLLOUT = 'on_cluster_build_fleet_rollout_nodepools';
const CANARY = 'on_cluster_build_fleet_rollout_canary_nodepools';
const HALTED = 'on_cluster_build_fleet_rollouts_halted';
const WAVES = 'on_cluster_build_fleet_rollout_waves_remaining';
/** The rollout gauges of one scrape: halted, waves, NodePools by state, canaries by state. */
const rolloutOf = (t: string) => ({
  halted: sample(t, HALTED),
  waves: sample(t, WAVES),
  nodePools: Object.fromEntries(['pending', 'rolling', 'succeeded', 'failed', 'halted', 'blocked'].map((s) => [s, sample(t, ROLLOUT, { state: s })])),
  canaries: Object.fromEntries(['pending', 'rolling', 'succeeded', 'failed', 'halted', 'blocked'].map((s) => [s, sample(t, CANARY, { state: s })])),
});
const states = (o: Partial<Record<'pending' | 'rolling' | 'succeeded' | 'failed' | 'halted' | 'blocked', number>>) => ({ pending: 0, rolling: 0, succeeded: 0, failed: 0, halted: 0, blocked: 0, ...o });
const rollout = (halted: number, waves: number, nodePools: Parameters<typeof states>[0], canaries: Parameters<typeof states>[0]) => ({ halted, waves, nodePools: states(nodePools), canaries: states(canaries) });

describe('a Progressive rollout of the provider layer, observed', () => {
  let mgmt: ApiTestServer;
  let dir: string;
  const np = (c: string) => mgmt.store.get({ ...NP, name: `${c}-workers`, namespace: 'clusters' })!;
  const handoff = (c: string) => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(`${c}-workers`), namespace: hcpNamespaceOf('clusters', c) });
  const handedOff = () => CLUSTERS.filter((c) => handoff(c));
  const hashOf = (c: string) => createHash('sha256').update(`${np(c).spec!.release.image} ${handoff(c)?.data?.config ?? ''}`).digest('hex').slice(0, 8);
  const setStatus = (c: string, f: (o: KubeObject & { status?: Record<string, unknown> }) => void) => {
    const o = structuredClone(np(c)) as KubeObject & { status?: Record<string, unknown> };
    f(o);
    mgmt.store.put(o);
  };
  /** HyperShift took the hand-off and rolls towards its hash; then finishes, or fails in place. */
  const rolls = (c: string) => setStatus(c, (o) => (o.status = { conditions: [{ type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${hashOf(c)}` }, ...healthy] }));
  const finishes = (c: string) =>
    setStatus(c, (o) => {
      o.metadata.annotations = { ...o.metadata.annotations, 'hypershift.openshift.io/nodePoolCurrentConfig': hashOf(c) };
      o.status = { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, ...healthy] };
    });
  const fails = (c: string) => setStatus(c, (o) => (o.status = { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'InplaceUpgradeFailed', message: `Node ${c}-1 in nodepool degraded: rebase failed` }, ...healthy] }));

  /**
   * The management cluster with these HostedClusters (`canary` labelled for the canary selector),
   * one NodePool each on `shape`'s release and arch, no hand-off yet. `events: false`: the fleet
   * may not write Events.
   */
  const setUp = async (clusters: string[], o: { canary?: string; shape?: (c: string) => { arch: string; release: string }; events?: boolean } = {}) => {
    const shape = o.shape ?? (() => ({ arch: 'amd64', release: R1 }));
    const clusterRules = o.events === false ? FLEET_CLUSTER_RULES.filter((r) => !r.resources.includes('events')) : FLEET_CLUSTER_RULES;
    mgmt = await startFleetApi(clusters, clusterRules);
    for (const c of clusters) {
      const { arch, release } = shape(c);
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: c, namespace: 'clusters', labels: c === (o.canary ?? 'c0') ? { 'provider.example.com/ring': 'canary' } : {} }, spec: { release: { image: release } } });
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: c, namespace: hcpNamespaceOf('clusters', c) }, spec: { releaseImage: release } });
      mgmt.store.put({ ...NP, metadata: { name: `${c}-workers`, namespace: 'clusters', annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'c0nfig00' } }, spec: { clusterName: c, arch, release: { image: release }, replicas: 2 } });
      setStatus(c, (o) => (o.status = { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }, ...healthy] }));
    }
    dir = mkdtempSync(path.join(tmpdir(), 'observe-rollout-'));
    writeFileSync(path.join(dir, 'Containerfile'), 'FROM configs AS final\nRUN dnf install -y provider-agent && dnf clean all\n');
    pki = metricsPki(dir);
    client = pki.client(PLATFORM_SCRAPER);
  };
  /** The fleet process with this rollout policy; the provider image is built on the first request (by `build`, default at once). */
  const startWith = async (policy: Record<string, unknown>, build?: (key: BuildKey) => Promise<{ image: string }>) => {
    const flags = parseCommand('fleet', ['--provider-repository', REPO, '--provider-layer-file', path.join(dir, 'Containerfile'), '--rollout', JSON.stringify(policy), '--tls-dir', dir, '--webhook-port', '0', '--health-port', '0', '--metrics-port', String(await freePort()), '--metrics-cert-dir', dir, '--metrics-client-ca', pki.clientCa], { POD_NAMESPACE: NS });
    stop = new AbortController();
    fleet = await startFleet(flags, () => {}, stop.signal, {
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      preconditions: () => undefined, // builder/fleet/preconditions.ts has its own tests (fleet-gate.test.ts)
      waitingRecheckMs: 50,
      host: '127.0.0.1',
      // No image in the registry: the first request builds it, every other one is deduplicated onto it.
      providerBuilds: { build: build ?? (async (key) => (built.push(key.arch), { image: imageOfKey(key) })) },
    });
  };
  let pki: MetricsPki;
  let client: { cert: string; key: string };
  let stop: AbortController | undefined;
  let fleet: FleetProcess | undefined;
  let built: string[] = [];
  const metrics = async () => {
    const r = await scrape(fleet!.metricsPort!, pki.serverCa, client);
    expect(r.status).toBe(200);
    return r.body;
  };
  /** Scrapes until the rollout gauges are `want` (they follow the writes the test waited for: bounded), then asserts them and records the scrape at `minute`. */
  const rolloutIs = async (rec: Recording, minute: number, want: ReturnType<typeof rolloutOf>) => {
    let text = await metrics();
    for (let i = 0; i < 500 && JSON.stringify(rolloutOf(text)) !== JSON.stringify(want); i++) {
      await new Promise((r) => setTimeout(r, 20));
      text = await metrics();
    }
    expect(rolloutOf(text)).toEqual(want);
    rec.push([minute, samples(text, 'on_cluster_build_')]);
    return text;
  };
  /** The Events on the rollout's ConfigMap, each checked for its documented reason and object. */
  const rolloutEvents = () => {
    const events = (mgmt.store.list('v1', 'Event', NS) as any[]).filter((e) => e.involvedObject.kind === 'ConfigMap');
    for (const e of events) {
      expect(Object.keys(EVENT_REASONS)).toContain(e.reason);
      expect(e.involvedObject).toMatchObject({ apiVersion: 'v1', kind: 'ConfigMap', namespace: NS, name: ROLLOUT_CONFIGMAP });
    }
    return events;
  };
  afterEach(async () => {
    stop?.abort();
    await fleet?.done.catch(() => {});
    fleet = undefined;
    built = [];
    await mgmt?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('exports NodePools and canaries by rollout state, the halt, the waves to go and the deduplicated build; Events for its milestones; the halted alert fires while halted', async () => {
    await setUp(CLUSTERS);
    await startWith({ type: 'Progressive', canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }], maxConcurrency: 2, maxFailures: 0 });
    const rec: Recording = [];
    try {
      // The canary first; the five others wait for it, in three waves of at most two.
      await waitFor('the canary handed off', () => handedOff().length === 1);
      expect(handedOff()).toEqual(['c0']);
      let text = await rolloutIs(rec, 0, rollout(0, 3, { rolling: 1, pending: 5 }, { rolling: 1 }));
      // One provider image for (R1, amd64): built once; every other NodePool's request deduplicated onto it.
      expect(built).toEqual(['amd64']);
      expect(sample(text, 'on_cluster_build_fleet_build_requests_total', { outcome: 'Started' })).toBe(1);
      expect(sample(text, 'on_cluster_build_fleet_build_requests_total', { outcome: 'Deduplicated' })).toBeGreaterThanOrEqual(CLUSTERS.length - 1);
      expect(sample(text, 'on_cluster_build_fleet_builds_finished_total', { result: 'Succeeded' })).toBe(1);

      // The canary succeeds: the first wave of two starts.
      rolls('c0');
      finishes('c0');
      await waitFor('two more handed off', () => handedOff().length === 3);
      const wave = handedOff().filter((c) => c !== 'c0');
      await rolloutIs(rec, 10, rollout(0, 2, { succeeded: 1, rolling: 2, pending: 3 }, { succeeded: 1 }));

      // One of the wave fails (more than maxFailures 0): halted; the NodePools not started are halted too.
      for (const c of wave) rolls(c);
      fails(wave[0]!);
      await rolloutIs(rec, 20, rollout(1, 0, { succeeded: 1, rolling: 1, failed: 1, halted: 3 }, { succeeded: 1 }));
      // The other one in flight finishes; still halted, nothing new starts.
      finishes(wave[1]!);
      await rolloutIs(rec, 22, rollout(1, 0, { succeeded: 2, failed: 1, halted: 3 }, { succeeded: 1 }));
      expect(handedOff()).toHaveLength(3);

      // `on-cluster-build fleet-rollout resume`: the next two start, one wave left.
      await updateControl(new Kube(mgmt.kubeConfig('system:admin')), NS, (c) => ({ ...c, resume: (c.resume ?? 0) + 1 }));
      await waitFor('the next two handed off', () => handedOff().length === 5);
      await rolloutIs(rec, 40, rollout(0, 1, { succeeded: 2, failed: 1, rolling: 2, pending: 1 }, { succeeded: 1 }));
      const next = handedOff().filter((c) => c !== 'c0' && !wave.includes(c));
      for (const c of next) {
        rolls(c);
        finishes(c);
      }
      await waitFor('the last handed off', () => handedOff().length === 6);
      const last = CLUSTERS.find((c) => !['c0', ...wave, ...next].includes(c))!;
      await rolloutIs(rec, 45, rollout(0, 0, { succeeded: 4, failed: 1, rolling: 1 }, { succeeded: 1 }));
      rolls(last);
      finishes(last);
      await rolloutIs(rec, 50, rollout(0, 0, { succeeded: 5, failed: 1 }, { succeeded: 1 }));

      // Events on the rollout's ConfigMap, one per milestone, in fixed words (no HyperShift message).
      await waitFor('the resume Event', () => mgmt.store.list('v1', 'Event', NS).some((e: any) => e.reason === 'RolloutResumed'));
      const events = rolloutEvents();
      expect(events.map((e) => `${e.reason} ${e.type} ${e.count}`).sort()).toEqual(['RolloutCanariesSucceeded Normal 1', 'RolloutHalted Warning 1', 'RolloutResumed Normal 1']);
      expect(events.find((e) => e.reason === 'RolloutHalted').message).toMatch(/^the rollout halted with 1 NodePool\(s\) failed: nothing starts until `on-cluster-build fleet-rollout resume`/);
      expect(JSON.stringify(events)).not.toMatch(/rebase failed|degraded/);
      expect(mgmt.audit.filter((e) => e.user === FLEET_USER && (e.code === 401 || e.code === 403))).toEqual([]);
    } finally {
      stop!.abort();
      await fleet!.done.catch(() => {});
    }

    const target = { namespace: NS, job: 'on-cluster-build-fleet-metrics', service: 'on-cluster-build-fleet-metrics' };
    const { check, test } = checkAndTest(dir, fleetAlerts(), inputSeries(rec, 60, target), [
      { minute: 5, alert: 'OnClusterBuildRolloutHalted', firing: [] },
      { minute: 19, alert: 'OnClusterBuildRolloutHalted', firing: [] },
      // Halted at 20; `for: 5m`: pending until 25.
      { minute: 24, alert: 'OnClusterBuildRolloutHalted', firing: [] },
      { minute: 25, alert: 'OnClusterBuildRolloutHalted', firing: [{ severity: 'critical', ...target }] },
      { minute: 39, alert: 'OnClusterBuildRolloutHalted', firing: [{ severity: 'critical', ...target }] },
      { minute: 41, alert: 'OnClusterBuildRolloutHalted', firing: [] },
      { minute: 60, alert: 'OnClusterBuildRolloutHalted', firing: [] },
      // The rest of the fleet's alerts stay silent through a rollout that builds once and holds nothing.
      { minute: 30, alert: 'OnClusterBuildProviderBuildsFailing', firing: [] },
      { minute: 30, alert: 'OnClusterBuildHoldNearBound', firing: [] },
    ]);
    expect(check.out).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.code).toBe(0);
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  }, 180_000);
  it('a rollout that never fails: the canary, then the rest, complete; no halt, and the halted alert stays silent', async () => {
    const three = ['c0', 'c1', 'c2'];
    await setUp(three);
    await startWith({ type: 'Progressive', canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }], maxConcurrency: 2 });
    const rec: Recording = [];
    try {
      await waitFor('the canary handed off', () => handedOff().length === 1);
      await rolloutIs(rec, 0, rollout(0, 1, { rolling: 1, pending: 2 }, { rolling: 1 }));
      rolls('c0');
      finishes('c0');
      await waitFor('the other two handed off', () => handedOff().length === 3);
      await rolloutIs(rec, 10, rollout(0, 0, { succeeded: 1, rolling: 2 }, { succeeded: 1 }));
      for (const c of ['c1', 'c2']) {
        rolls(c);
        finishes(c);
      }
      await rolloutIs(rec, 20, rollout(0, 0, { succeeded: 3 }, { succeeded: 1 }));
      await waitFor('the completion Event', () => mgmt.store.list('v1', 'Event', NS).some((e: any) => e.reason === 'RolloutCompleted'));
      const events = rolloutEvents();
      expect(events.map((e) => `${e.reason} ${e.type} ${e.count}`).sort()).toEqual(['RolloutCanariesSucceeded Normal 1', 'RolloutCompleted Normal 1']);
      expect(events.find((e) => e.reason === 'RolloutCompleted').message).toBe('every NodePool is on the layer (3)');
    } finally {
      stop!.abort();
      await fleet!.done.catch(() => {});
    }
    const target = { namespace: NS, job: 'on-cluster-build-fleet-metrics', service: 'on-cluster-build-fleet-metrics' };
    const { test } = checkAndTest(dir, fleetAlerts(), inputSeries(rec, 30, target), [0, 10, 15, 25, 30].map((minute) => ({ minute, alert: 'OnClusterBuildRolloutHalted', firing: [] })));
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  }, 180_000);

  it('a provider layer that cannot be built, Events refused, a webhook fed garbage: the provider-build and webhook alerts fire and clear; dropped Events counted', async () => {
    // c0 and c1 need (R1, amd64) and (R1, arm64), whose builds fail; c2, the canary, needs (R2, amd64), built late.
    await setUp(['c0', 'c1', 'c2'], { canary: 'c2', events: false, shape: (c) => ({ arch: c === 'c1' ? 'arm64' : 'amd64', release: c === 'c2' ? R2 : R1 }) });
    const pending: { key: BuildKey; resolve: (r: { image: string }) => void; reject: (e: Error) => void }[] = [];
    await startWith({ type: 'Progressive', canaries: [{ matchLabels: { 'provider.example.com/ring': 'canary' } }], maxConcurrency: 2 }, (key) => new Promise((resolve, reject) => pending.push({ key, resolve, reject })));
    const rec: Recording = [];
    /** Scrapes until `ready` holds (bounded), asserts it, and records the scrape at `minute`. */
    const scrapeAt = async (minute: number, ready: (t: string) => boolean) => {
      let text = await metrics();
      for (let i = 0; i < 500 && !ready(text); i++) {
        await new Promise((r) => setTimeout(r, 20));
        text = await metrics();
      }
      expect(ready(text)).toBe(true);
      rec.push([minute, samples(text, 'on_cluster_build_')]);
      return text;
    };
    const ca = readFileSync(pki.serverCa, 'utf8');
    /** Reviews the fleet's webhook cannot read (a client that is not the API server): each answered 400, counted as an error. */
    const garbage = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const status = await new Promise<number>((resolve, reject) => {
          const req = https.request({ host: '127.0.0.1', port: fleet!.webhookPort, path: MUTATE_NODEPOOL_PATH, method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          });
          req.on('error', reject);
          req.end(JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `g-${i}` } }));
        });
        expect(status).toBe(400);
      }
    };
    const errors = (t: string) => sample(t, 'on_cluster_build_admission_requests_total', { result: 'Error' });
    const finished = (t: string, result: string) => sample(t, 'on_cluster_build_fleet_builds_finished_total', { result });
    try {
      await waitFor('three builds asked for', () => pending.length === 3);
      let text = await scrapeAt(0, (t) => sample(t, 'on_cluster_build_fleet_builds', { state: 'Running' }) === 3);
      expect(sample(text, 'on_cluster_build_fleet_build_requests_total', { outcome: 'Started' })).toBe(3);
      expect(errors(text)).toBe(0);

      // Both R1 builds fail; the webhook is fed garbage for a quarter of an hour.
      for (const p of pending.filter((p) => p.key.releaseDigest === D('1'))) p.reject(new Error('RUN dnf install -y provider-agent: exit status 1'));
      await garbage(5);
      text = await scrapeAt(5, (t) => finished(t, 'Failed') === 2 && errors(t) === 5);
      expect(sample(text, 'on_cluster_build_admission_errors_total', { error: 'BadRequest' })).toBe(5);
      expect(finished(text, 'Succeeded')).toBe(0);
      // Nothing rolls without an image: the canary waits for its build, the others for the canary.
      expect(rolloutOf(text)).toEqual(rollout(0, 2, { pending: 3 }, { pending: 1 }));
      for (const [minute, n] of [[10, 10], [15, 15], [20, 20]] as const) {
        await garbage(5);
        await scrapeAt(minute, (t) => errors(t) === n);
      }

      // The canary's image lands: it rolls and succeeds; its Event is refused (no `events` rights) and counted.
      const late = pending.find((p) => p.key.releaseDigest === D('2'))!;
      late.resolve({ image: imageOfKey(late.key) });
      await waitFor('the canary handed off', () => handoff('c2') !== undefined);
      rolls('c2');
      finishes('c2');
      text = await scrapeAt(30, (t) => finished(t, 'Succeeded') === 1 && sample(t, CANARY, { state: 'succeeded' }) === 1 && sample(t, 'on_cluster_build_events_dropped_total', { cause: 'WriteFailed' }) === 1);
      expect(mgmt.store.list('v1', 'Event', NS)).toEqual([]);
      expect(mgmt.audit.some((e) => e.user === FLEET_USER && e.code === 403 && e.resource === 'events')).toBe(true);
      await scrapeAt(40, () => true);
    } finally {
      stop!.abort();
      await fleet!.done.catch(() => {});
    }
    const target = { namespace: NS, job: 'on-cluster-build-fleet-metrics', service: 'on-cluster-build-fleet-metrics' };
    const webhookFiring = [{ severity: 'warning', namespace: NS, service: target.service }];
    const { check, test } = checkAndTest(dir, fleetAlerts(), inputSeries(rec, 60, target), [
      // Two failed builds at 5 and none succeeding: pending for 15 minutes, then a page until one succeeds.
      { minute: 4, alert: 'OnClusterBuildProviderBuildsFailing', firing: [] },
      { minute: 19, alert: 'OnClusterBuildProviderBuildsFailing', firing: [] },
      { minute: 21, alert: 'OnClusterBuildProviderBuildsFailing', firing: [{ severity: 'critical', namespace: NS }] },
      { minute: 29, alert: 'OnClusterBuildProviderBuildsFailing', firing: [{ severity: 'critical', namespace: NS }] },
      { minute: 31, alert: 'OnClusterBuildProviderBuildsFailing', firing: [] },
      // Every request an error from 5 to 20: pending for 10 minutes, firing until the errors age out of the 10-minute rate.
      { minute: 4, alert: 'OnClusterBuildFleetWebhookErrors', firing: [] },
      { minute: 13, alert: 'OnClusterBuildFleetWebhookErrors', firing: [] },
      { minute: 17, alert: 'OnClusterBuildFleetWebhookErrors', firing: webhookFiring },
      { minute: 29, alert: 'OnClusterBuildFleetWebhookErrors', firing: webhookFiring },
      { minute: 40, alert: 'OnClusterBuildFleetWebhookErrors', firing: [] },
      { minute: 30, alert: 'OnClusterBuildRolloutHalted', firing: [] },
    ]);
    expect(check.code).toBe(0);
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  }, 180_000);
});
