/**
 * What the HCP namespace's processes export while they run: the controller on the project's API
 * test servers (its real watches, queue and reconciler; the build Jobs' outcomes written as the
 * Job controller would) and the webhook over HTTPS, each scraped on 127.0.0.1 through its /metrics
 * server with the scraper's client certificate. The counters move as the run does (a failed build
 * counts under its reason, NodePools by state), Events appear in the hosted cluster's `default`
 * namespace with the documented reasons, deduplicated, under the Events Role only. The scrapes are
 * the input of `promtool test rules` for the per-HCP alerts: they fire when builds keep failing,
 * the webhook errors or denies nearly everything, and are silent once a build succeeds or the
 * webhook answers and allows.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/clusters/kube.js';
import { kubeEventSink } from '../../builder/clusters/event-sink.js';
import { Reconciler } from '../../builder/controller/reconciler.js';
import { runController } from '../../builder/controller/run.js';
import { wiring } from '../../builder/wiring.js';
import { CONTROLLER_USERNAME } from '../../builder/cli.js';
import { WEBHOOK_PATHS } from '../../builder/api/types.js';
import { EVENTS_NAMESPACE, HOSTED_EVENT_RULES } from '../../builder/policy/rbac.js';
import { METRICS } from '../../builder/metrics/catalogue.js';
import { CONTROLLER_METRICS, ControllerTelemetry, countNodePools } from '../../builder/metrics/controller.js';
import { ADMISSION_METRICS, AdmissionMetrics } from '../../builder/metrics/admission.js';
import { EventRecorder, EVENT_REASONS } from '../../builder/metrics/events.js';
import { Metrics } from '../../builder/metrics/registry.js';
import { MetricsServer, startMetricsServer } from '../../builder/metrics/server.js';
import { startWebhookServer, WebhookServer } from '../../builder/webhook/server.js';
import { fleetAlerts, hcpAlerts } from '../../resources/monitoring.js';
import { managementUser, startClusters, withNamespace } from './clusters.js';
import { BASE, BUILD_NS, DIGEST, GV, hostedReads, NS, RECONCILER_DEFAULTS, seedHcp } from './hcp-fixtures.js';
import { metricsPki, MetricsPki, sample, samples, scrape } from './metrics-harness.js';
import { checkAndTest, inputSeries, Recording } from './promtool.js';
import { post } from './webhook-client.js';

const MGMT_USER = managementUser(NS);
const RELEASE = `quay.io/openshift-release-dev/ocp-release@${DIGEST('b')}`;
const SCRAPER = 'system:serviceaccount:hypershift:prometheus';
const POOLS = ['workers-a', 'workers-b', 'workers-c', 'workers-d'];
const FAILING = ['workers-b', 'workers-c', 'workers-d'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const waitFor = async (what: string, cond: () => boolean) => {
  for (let i = 0; i < 600 && !cond(); i++) await sleep(50);
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};

describe('the HCP namespace processes, observed', () => {
  let mgmt: ApiTestServer;
  let hosted: ApiTestServer;
  let dir: string;
  let pki: MetricsPki;
  let client: { cert: string; key: string };
  let controllerMetrics: MetricsServer;
  let webhookMetrics: MetricsServer;
  let webhook: WebhookServer;
  let events: EventRecorder;
  const stop = new AbortController();
  let running: Promise<void>;
  const controllerRec: Recording = [];
  const webhookRec: Recording = [];
  const scrapeController = async () => (await scrape(controllerMetrics.port, pki.serverCa, client)).body;
  const scrapeWebhook = async () => (await scrape(webhookMetrics.port, pki.serverCa, client)).body;
  const { config, jobOf, cond } = hostedReads(() => hosted);

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'observe-hcp-'));
    pki = metricsPki(dir);
    client = pki.client(SCRAPER);
    ({ mgmt, hosted } = await startClusters(startApiServer, NS, withNamespace(HOSTED_EVENT_RULES, EVENTS_NAMESPACE)));
    seedHcp(mgmt, hosted, { release: RELEASE, pools: POOLS, nodes: 1, hostedNamespaces: [EVENTS_NAMESPACE] });
    // The controller as builder/cli.ts assembles it: its registry, Events into the hosted cluster, /metrics.
    const hostedKube = new Kube(hosted.kubeConfig(CONTROLLER_USERNAME));
    const management = new Kube(mgmt.kubeConfig(MGMT_USER));
    let reconciler: Reconciler | undefined;
    const metrics = new Metrics(CONTROLLER_METRICS, { collectors: { [METRICS.nodePools.name]: () => countNodePools(reconciler?.retained().observed?.configs.values() ?? []) } });
    events = new EventRecorder({ sink: kubeEventSink(hostedKube), component: 'on-cluster-build-controller', instance: 'pod-1', onDrop: (cause) => metrics.inc(METRICS.eventsDropped, { cause }) });
    const telemetry = new ControllerTelemetry(metrics, events);
    const w = wiring({ cacheSize: 4, telemetry });
    const common = { host: '127.0.0.1', port: 0, certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), clientCAFile: pki.clientCa, allowedClients: [SCRAPER] };
    controllerMetrics = await startMetricsServer({ ...common, render: () => metrics.render() });
    controllerRec.push([0, samples(await scrapeController(), 'on_cluster_build_')]);
    reconciler = new Reconciler({
      management,
      hosted: hostedKube,
      namespace: NS,
      resolveRelease: async (release) => {
        telemetry.releaseResolved(true);
        return { releaseDigest: release.split('@')[1]!, baseOSImage: BASE, machineConfigOperatorImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST('f')}`, version: '4.19.0' };
      },
      verifyImage: async () => {
        telemetry.imageVerified('Verified');
        return { ok: true };
      },
      nodePoolInputs: w.nodePoolInputs,
      validateConfig: w.validateConfig,
      ...RECONCILER_DEFAULTS,
      maxConcurrentBuilds: 8,
      telemetry,
    });
    running = runController({ management, hosted: hostedKube, namespace: NS, reconciler, resyncSeconds: 3600, debounceMs: 20 }, stop.signal);
    // The webhook with its own registry and /metrics.
    const webhookRegistry = new Metrics(ADMISSION_METRICS);
    webhook = await startWebhookServer({ port: 0, host: '127.0.0.1', certFile: path.join(dir, 'tls.crt'), keyFile: path.join(dir, 'tls.key'), controllerUsername: CONTROLLER_USERNAME, log: () => {}, telemetry: new AdmissionMetrics(webhookRegistry) });
    webhookMetrics = await startMetricsServer({ ...common, render: () => webhookRegistry.render() });
    webhookRec.push([0, samples(await scrapeWebhook(), 'on_cluster_build_')]);
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await running;
    await events?.flush();
    await controllerMetrics?.close();
    await webhookMetrics?.close();
    await webhook?.close();
    await mgmt?.stop();
    await hosted?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('counts the builds it starts and the NodePools building, and says so in Events', async () => {
    await waitFor('a Job per NodePool', () => hosted.store.list('batch/v1', 'Job', BUILD_NS).length === POOLS.length);
    await waitFor('every config Building', () => POOLS.every((p) => cond(config(p), 'Building')?.status === 'True'));
    const text = await scrapeController();
    expect(sample(text, 'on_cluster_build_builds_started_total')).toBe(POOLS.length);
    expect(sample(text, 'on_cluster_build_nodepools', { state: 'Building', reason: 'BuildRunning' })).toBe(POOLS.length);
    expect(sample(text, 'on_cluster_build_release_resolutions_total', { result: 'Resolved' })).toBeGreaterThan(0);
    controllerRec.push([5, samples(text, 'on_cluster_build_')]);
  });

  it('a failed build increments the failure counter under its reason; the config is Degraded by it', async () => {
    for (const name of FAILING) {
      const job = jobOf(name);
      hosted.store.put({ ...job, status: { startTime: '2026-11-23T10:00:00Z', failed: 3, conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', lastTransitionTime: '2026-11-23T10:04:00Z' }] } });
    }
    await waitFor('the failing configs Degraded', () => FAILING.every((p) => cond(config(p), 'Degraded')?.status === 'True'));
    const text = await scrapeController();
    expect(sample(text, 'on_cluster_build_builds_finished_total', { result: 'Failed', reason: 'BackoffLimitExceeded' })).toBe(FAILING.length);
    expect(sample(text, 'on_cluster_build_builds_finished_total', { result: 'Succeeded' })).toBe(0);
    expect(sample(text, 'on_cluster_build_build_duration_seconds_count', { result: 'Failed' })).toBe(FAILING.length);
    expect(sample(text, 'on_cluster_build_build_duration_seconds_sum', { result: 'Failed' })).toBe(FAILING.length * 240);
    expect(sample(text, 'on_cluster_build_nodepools', { state: 'Degraded', reason: 'BackoffLimitExceeded' })).toBe(FAILING.length);
    controllerRec.push([10, samples(text, 'on_cluster_build_')]);
  });

  it('a successful build counts as Succeeded, with its duration, and the NodePool is Available', async () => {
    const name = 'workers-a';
    const job = jobOf(name);
    hosted.store.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${job.metadata!.name}-x7k2p`, namespace: BUILD_NS, labels: { ...job.spec.template.metadata.labels, 'batch.kubernetes.io/job-name': job.metadata!.name }, creationTimestamp: '2026-11-23T10:00:00Z' },
      spec: job.spec.template.spec,
      status: { phase: 'Succeeded', containerStatuses: [{ name: 'build', state: { terminated: { exitCode: 0, reason: 'Completed', message: DIGEST('1') } } }] },
    });
    hosted.store.put({ ...job, status: { startTime: '2026-11-23T10:00:00Z', completionTime: '2026-11-23T10:07:00Z', succeeded: 1, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: '2026-11-23T10:07:00Z' }] } });
    await waitFor('the config Available', () => cond(config(name), 'Available')?.status === 'True');
    const text = await scrapeController();
    expect(sample(text, 'on_cluster_build_builds_finished_total', { result: 'Succeeded', reason: 'BuildSucceeded' })).toBe(1);
    expect(sample(text, 'on_cluster_build_build_duration_seconds_sum', { result: 'Succeeded' })).toBe(420);
    expect(sample(text, 'on_cluster_build_image_verifications_total', { result: 'Verified' })).toBe(1);
    expect(sample(text, 'on_cluster_build_nodepools', { state: 'Available', reason: 'ImageBuilt' })).toBe(1);
    controllerRec.push([40, samples(text, 'on_cluster_build_')]);
  });

  it('Events in the hosted cluster carry the documented reasons, one object per repeated Event, no config content', async () => {
    await events.flush();
    const written = hosted.store.list('v1', 'Event', EVENTS_NAMESPACE) as any[];
    const reasons = written.map((e) => e.reason);
    for (const r of reasons) expect(Object.keys(EVENT_REASONS)).toContain(r);
    expect(reasons.filter((r) => r === 'BuildStarted')).toHaveLength(POOLS.length);
    expect(reasons.filter((r) => r === 'BuildFailed')).toHaveLength(FAILING.length);
    expect(reasons.filter((r) => r === 'BuildSucceeded')).toHaveLength(1);
    expect(reasons.filter((r) => r === 'ImageHandedOff')).toHaveLength(1);
    expect(reasons.filter((r) => r === 'ConfigDegraded')).toHaveLength(FAILING.length);
    const failed = written.find((e) => e.reason === 'BuildFailed');
    expect(failed).toMatchObject({ type: 'Warning', involvedObject: { kind: 'NodePoolOSBuild' }, message: "build failed: BackoffLimitExceeded (the record's status says more)", count: 1 });
    const everything = JSON.stringify(written);
    for (const secret of ['push-password', 'hosted-pull-password', 'hcp-password', 'echo layered', 'backoff limit']) expect(everything).not.toContain(secret);
    // Only the Events Role's verbs were used for them.
    const verbs = new Set(hosted.audit.filter((e) => e.user === CONTROLLER_USERNAME && e.resource === 'events').map((e) => `${e.verb} ${e.namespace}`));
    for (const v of verbs) expect(['create default', 'patch default']).toContain(v);
    expect(hosted.audit.filter((e) => e.user === CONTROLLER_USERNAME && e.code === 403)).toEqual([]);
  });

  it('the webhook counts decisions, denials by reason and errors', async () => {
    let uid = 0;
    const review = (user: string, operation: 'CREATE' | 'DELETE') =>
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: `u-${++uid}`, kind: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', kind: 'NodePoolOSBuild' }, resource: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', resource: 'nodepoolosbuilds' }, operation, name: 'b', userInfo: { username: user }, ...(operation === 'CREATE' ? { object: { apiVersion: GV, kind: 'NodePoolOSBuild', metadata: { name: 'b' }, spec: {} } } : { oldObject: { apiVersion: GV, kind: 'NodePoolOSBuild', metadata: { name: 'b' } } }) },
      });
    const ca = (await import('node:fs')).readFileSync(pki.serverCa, 'utf8');
    // Errors: bodies that are not AdmissionReviews (the API server's failurePolicy answers then),
    // two per recorded minute from minute 5 to 20.
    let text = '';
    for (let minute = 5; minute <= 20; minute++) {
      for (let i = 0; i < 2; i++) expect((await post(webhook.port, ca, WEBHOOK_PATHS.nodePoolOSBuilds, '{not json')).status).toBe(400);
      text = await scrapeWebhook();
      webhookRec.push([minute, samples(text, 'on_cluster_build_')]);
    }
    expect(sample(text, 'on_cluster_build_admission_errors_total', { error: 'BadRequest' })).toBe(32);
    expect(sample(text, 'on_cluster_build_admission_requests_total', { result: 'Error' })).toBe(32);
    // Then decisions: a tenant creating a build record is refused (Forbidden); the controller's deletes are allowed.
    const tenant = await post(webhook.port, ca, WEBHOOK_PATHS.nodePoolOSBuilds, review('alice', 'CREATE'));
    expect(JSON.parse(tenant.body).response).toMatchObject({ allowed: false, status: { reason: 'Forbidden' } });
    for (let i = 0; i < 200; i++) await post(webhook.port, ca, WEBHOOK_PATHS.nodePoolOSBuilds, review(CONTROLLER_USERNAME, 'DELETE'));
    text = await scrapeWebhook();
    expect(sample(text, 'on_cluster_build_admission_denials_total', { webhook: 'NodePoolOSBuild', reason: 'Forbidden' })).toBe(1);
    expect(sample(text, 'on_cluster_build_admission_requests_total', { webhook: 'NodePoolOSBuild', result: 'Allowed' })).toBe(200);
    expect(sample(text, 'on_cluster_build_admission_duration_seconds_count', { webhook: 'NodePoolOSBuild' })).toBe(201);
    webhookRec.push([30, samples(text, 'on_cluster_build_')]);
  });

  it('a tenant retrying a refused write for over an hour: every request denied, counted under Forbidden', async () => {
    const ca = (await import('node:fs')).readFileSync(pki.serverCa, 'utf8');
    const create = JSON.stringify({
      apiVersion: 'admission.k8s.io/v1',
      kind: 'AdmissionReview',
      request: { uid: 'retry', kind: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', kind: 'NodePoolOSBuild' }, resource: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', resource: 'nodepoolosbuilds' }, operation: 'CREATE', name: 'b', userInfo: { username: 'alice' }, object: { apiVersion: GV, kind: 'NodePoolOSBuild', metadata: { name: 'b' }, spec: {} } },
    });
    // Ten denials per 5 recorded minutes, from minute 35 to 100.
    let text = '';
    for (let minute = 35; minute <= 100; minute += 5) {
      for (let i = 0; i < 10; i++) expect(JSON.parse((await post(webhook.port, ca, WEBHOOK_PATHS.nodePoolOSBuilds, create)).body).response).toMatchObject({ allowed: false, status: { reason: 'Forbidden' } });
      text = await scrapeWebhook();
      webhookRec.push([minute, samples(text, 'on_cluster_build_')]);
    }
    expect(sample(text, 'on_cluster_build_admission_denials_total', { webhook: 'NodePoolOSBuild', reason: 'Forbidden' })).toBe(1 + 140);
    expect(sample(text, 'on_cluster_build_admission_requests_total', { webhook: 'NodePoolOSBuild', result: 'Denied' })).toBe(1 + 140);
  });

  it('the per-HCP alerts pass promtool check rules and fire on these recordings when they should', () => {
    const target = { namespace: NS, job: 'on-cluster-build-controller-metrics', service: 'on-cluster-build-controller-metrics' };
    const wtarget = { namespace: NS, job: 'on-cluster-build-webhook-metrics', service: 'on-cluster-build-webhook-metrics' };
    const series = [...inputSeries(controllerRec, 70, target), ...inputSeries(webhookRec, 150, wtarget)];
    const { check, test } = checkAndTest(dir, hcpAlerts(), series, [
      // Builds: three failures from minute 10 and no success: fires after its 15 minutes; silent before, and once one succeeds (minute 40).
      { minute: 9, alert: 'OnClusterBuildBuildsFailing', firing: [] },
      { minute: 30, alert: 'OnClusterBuildBuildsFailing', firing: [{ severity: 'warning', namespace: NS }] },
      { minute: 45, alert: 'OnClusterBuildBuildsFailing', firing: [] },
      // Webhook: only errors from minute 5 to 20: fires after its 10 minutes; silent before, and once errors stop.
      { minute: 14, alert: 'OnClusterBuildWebhookErrors', firing: [] },
      { minute: 20, alert: 'OnClusterBuildWebhookErrors', firing: [{ severity: 'warning', namespace: NS, service: wtarget.service }] },
      { minute: 45, alert: 'OnClusterBuildWebhookErrors', firing: [] },
      // One denial in 201 decisions is not "denying everything"; then only denials from minute 35:
      // once the 200 allowed requests of minute 30 leave the 30-minute window (about minute 60),
      // pending for its 30 minutes, firing, silent again once the retries stop (minute 100) and age out.
      { minute: 60, alert: 'OnClusterBuildWebhookDenyingAll', firing: [] },
      { minute: 88, alert: 'OnClusterBuildWebhookDenyingAll', firing: [] },
      { minute: 95, alert: 'OnClusterBuildWebhookDenyingAll', firing: [{ severity: 'warning', namespace: NS, service: wtarget.service }] },
      { minute: 125, alert: 'OnClusterBuildWebhookDenyingAll', firing: [{ severity: 'warning', namespace: NS, service: wtarget.service }] },
      { minute: 140, alert: 'OnClusterBuildWebhookDenyingAll', firing: [] },
    ]);
    expect(check.out).toMatch(/SUCCESS: 3 rules found/);
    expect(check.code).toBe(0);
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  });

  it('the fleet-wide build alert fires when this run happens in three hosted clusters, and is silent before their builds fail', () => {
    const fleetDir = mkdtempSync(path.join(dir, 'fleet-'));
    const series = ['clusters-apple', 'clusters-banana', 'clusters-cherry'].flatMap((namespace) => inputSeries(controllerRec, 70, { namespace, job: 'on-cluster-build-controller-metrics', service: 'on-cluster-build-controller-metrics' }));
    const rules = fleetAlerts().filter((r) => r.alert === 'OnClusterBuildBuildsFailingFleetWide');
    const { check, test } = checkAndTest(fleetDir, rules, series, [
      { minute: 9, alert: 'OnClusterBuildBuildsFailingFleetWide', firing: [] },
      { minute: 30, alert: 'OnClusterBuildBuildsFailingFleetWide', firing: [{ severity: 'critical' }] },
      // One success in each for three failures: 75% failed, still paging.
      { minute: 45, alert: 'OnClusterBuildBuildsFailingFleetWide', firing: [{ severity: 'critical' }] },
    ]);
    expect(check.code).toBe(0);
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  });
});
