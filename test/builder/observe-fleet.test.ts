/**
 * The fleet component as a running process (as test/builder/fleet-run.test.ts starts it: its own
 * flags, watch loop, webhook on 127.0.0.1, injected clock; only the provider build is faked),
 * scraped on 127.0.0.1 through its /metrics with the platform scraper's client certificate while
 * a release bump is held, one hold lifted by hand, built once per key, released, and timed out: holds in force and the
 * age of the oldest, gate actions, build requests deduplicated, build outcomes; Events on the
 * NodePools with the documented reasons. The scrapes are the input of `promtool test rules` for
 * the hold alert: silent while holds are young, firing near the bound, silent once released.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type { ApiTestServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES } from '../../builder/clusters/kube.js';
import { parseCommand } from '../../builder/cli.js';
import { BuildKey } from '../../builder/fleet/build-registry.js';
import { GATED_LABEL, NODEPOOLS } from '../../builder/fleet/gate.js';
import { startFleet } from '../../builder/fleet/main.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { MUTATE_NODEPOOL_PATH } from '../../builder/fleet/webhook.js';
import { EVENT_REASONS } from '../../builder/metrics/events.js';
import { PLATFORM_SCRAPER } from '../../builder/metrics/server.js';
import { fleetAlerts } from '../../resources/monitoring.js';
import { providerHandoff } from './fleet-fixtures.js';
import { D, FLEET_USER, freePort, imageOfKey, NS, R1, R2, REPO, startFleetApi } from './fleet-harness.js';
import { metricsPki, sample, samples, scrape } from './metrics-harness.js';
import { checkAndTest, inputSeries, Recording } from './promtool.js';

const AMD = ['apple', 'banana'];
const ARM = 'elder';
const ALL = [...AMD, ARM];
const npName = (c: string) => `${c}-workers`;
/** The NodePool whose hold a human lifts. */
const OVERRIDDEN = 'banana';
const waitFor = async (what: string, cond: () => boolean) => {
  for (let i = 0; i < 1000 && !cond(); i++) await new Promise((r) => setTimeout(r, 20));
  if (!cond()) throw new Error(`timed out waiting for ${what}`);
};

describe('the fleet component, observed', () => {
  let mgmt: ApiTestServer;
  let dir: string;
  let offsetMs = 0;
  const now = () => new Date('2026-11-25T00:00:00Z').getTime() + offsetMs;
  const np = (c: string) => mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: npName(c), namespace: 'clusters' }) as KubeObject & { spec: any };

  beforeAll(async () => {
    // HostedClusters carry no labels here: the default policy.
    mgmt = await startFleetApi(ALL);
    for (const c of ALL) {
      const arch = c === ARM ? 'arm64' : 'amd64';
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: c, namespace: hcpNamespaceOf('clusters', c) }, spec: { releaseImage: R1 } });
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: npName(c), namespace: 'clusters' }, spec: { clusterName: c, arch, release: { image: R1 }, replicas: 2 } });
      mgmt.store.put(providerHandoff(hcpNamespaceOf('clusters', c), npName(c), imageOfKey({ releaseDigest: D('1'), arch }), R1));
    }
    dir = mkdtempSync(path.join(tmpdir(), 'observe-fleet-'));
    writeFileSync(path.join(dir, 'Containerfile'), 'FROM configs AS final\nRUN dnf install -y provider-agent && dnf clean all\n');
  }, 60_000);
  afterAll(async () => {
    await mgmt?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('exports holds, their age, gate actions, deduplicated builds and their outcomes; Events on the NodePools; the hold alert fires near the bound', async () => {
    const pki = metricsPki(dir);
    const client = pki.client(PLATFORM_SCRAPER);
    const metricsPort = await freePort();
    const flags = parseCommand('fleet', ['--provider-repository', REPO, '--provider-layer-file', path.join(dir, 'Containerfile'), '--tls-dir', dir, '--webhook-port', '0', '--health-port', '0', '--metrics-port', String(metricsPort), '--metrics-cert-dir', dir, '--metrics-client-ca', pki.clientCa], { POD_NAMESPACE: NS });
    const pending: { key: BuildKey; resolve: (r: { image: string }) => void; reject: (e: Error) => void }[] = [];
    const stop = new AbortController();
    const fleet = await startFleet(flags, () => {}, stop.signal, {
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      preconditions: () => undefined, // builder/fleet/preconditions.ts has its own tests (fleet-gate.test.ts)
      now,
      waitingRecheckMs: 50,
      host: '127.0.0.1',
      providerBuilds: {
        build: (key) => new Promise((resolve, reject) => pending.push({ key, resolve, reject })),
        lookup: async (k) => (k.releaseDigest === D('1') ? { image: imageOfKey(k) } : undefined),
      },
    });
    const rec: Recording = [];
    const metrics = async () => {
      const r = await scrape(fleet.metricsPort!, pki.serverCa, client);
      expect(r.status).toBe(200);
      return r.body;
    };
    /** Scrapes until `ready` holds (the counters follow the writes the test waited for: bounded). */
    const metricsWhen = async (ready: (text: string) => boolean) => {
      let text = await metrics();
      for (let i = 0; i < 250 && !ready(text); i++) {
        await new Promise((r) => setTimeout(r, 20));
        text = await metrics();
      }
      return text;
    };
    try {
      expect(fleet.metricsPort).toBe(metricsPort);
      const admin = new Kube(mgmt.kubeConfig('system:admin'));
      await waitFor('labels', () => ALL.every((c) => np(c).metadata.labels?.[GATED_LABEL] === 'true'));
      let text = await metricsWhen((t) => sample(t, 'on_cluster_build_fleet_gate_actions_total', { action: 'Labelled' }) === ALL.length);
      expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'Labelled' })).toBe(ALL.length);
      expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(0);
      expect(sample(text, 'on_cluster_build_fleet_hold_bound_seconds')).toBe(3600);
      rec.push([0, samples(text, 'on_cluster_build_')]);

      // Release bumps through the running webhook: each NodePool held in the same write.
      const ca = readFileSync(pki.serverCa, 'utf8');
      for (const c of ALL) {
        const old = np(c);
        const next = { ...old, spec: { ...old.spec, release: { image: R2 } } };
        const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `u-${c}`, kind: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool' }, namespace: 'clusters', name: npName(c), operation: 'UPDATE', object: next, oldObject: old } });
        const answer = await new Promise<any>((resolve, reject) => {
          const req = https.request({ host: '127.0.0.1', port: fleet.webhookPort, path: MUTATE_NODEPOOL_PATH, method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
            let t = '';
            res.on('data', (d) => (t += d));
            res.on('end', () => resolve(JSON.parse(t)));
          });
          req.on('error', reject);
          req.end(body);
        });
        const ops = [{ op: 'replace', path: '/spec/release/image', value: R2 }, ...(answer.response.patch ? JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) : [])];
        await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(c)), ops, 'application/json-patch+json');
      }
      await waitFor('holds seen and builds asked for', () => pending.length === 2 && ALL.every((c) => np(c).metadata.annotations?.['on-cluster-build.pkogen.io/gate-reason'] !== undefined));
      offsetMs = 60_000;
      text = await metricsWhen((t) => sample(t, 'on_cluster_build_fleet_holds') === ALL.length && sample(t, 'on_cluster_build_fleet_gate_nodepools', { state: 'Waiting' }) === ALL.length);
      expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(ALL.length);
      expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(60);
      // One entry per key (R1's two found in the registry at start, R2's two built); the second amd64
      // NodePool's requests are deduplicated onto the first's.
      expect(sample(text, 'on_cluster_build_fleet_build_requests_total', { outcome: 'Started' })).toBe(4);
      expect(sample(text, 'on_cluster_build_fleet_build_requests_total', { outcome: 'Deduplicated' })).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'on_cluster_build_fleet_builds', { state: 'Running' })).toBe(2);
      expect(sample(text, 'on_cluster_build_fleet_gate_nodepools', { state: 'Waiting' })).toBe(ALL.length);
      rec.push([1, samples(text, 'on_cluster_build_')]);

      // Someone lifts banana's hold by hand: the gate steps back for this release, loudly.
      offsetMs = 2 * 60_000;
      await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(OVERRIDDEN)), { spec: { pausedUntil: null } }, 'application/merge-patch+json');
      text = await metricsWhen((t) => sample(t, 'on_cluster_build_fleet_gate_actions_total', { action: 'Overridden' }) === 1 && sample(t, 'on_cluster_build_fleet_holds') === ALL.length - 1);
      expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'Overridden' })).toBe(1);
      expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(ALL.length - 1);
      expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(120);
      rec.push([2, samples(text, 'on_cluster_build_')]);

      // 50 minutes on: the holds are old.
      offsetMs = 50 * 60_000;
      text = await metrics();
      expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(3000);
      rec.push([50, samples(text, 'on_cluster_build_')]);

      // The amd64 build lands, the arm64 one fails: two released, one still held.
      pending.find((p) => p.key.arch === 'amd64')!.resolve({ image: imageOfKey({ releaseDigest: D('2'), arch: 'amd64' }) });
      pending.find((p) => p.key.arch === 'arm64')!.reject(new Error('RUN dnf install -y provider-agent: exit status 1'));
      await waitFor('amd64 released', () => AMD.every((c) => np(c).spec.pausedUntil === undefined));
      // banana is settled again only on an event of its own (it waits for nothing): its NodePool changes.
      await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(OVERRIDDEN)), { metadata: { labels: { 'example.com/touched': 'yes' } } }, 'application/merge-patch+json');
      offsetMs = 52 * 60_000;
      text = await metricsWhen((t) => sample(t, 'on_cluster_build_fleet_holds') === 1 && sample(t, 'on_cluster_build_fleet_gate_actions_total', { action: 'HandedOff' }) === AMD.length - 1 && sample(t, 'on_cluster_build_fleet_gate_nodepools', { state: 'Deferred' }) === 1);
      expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(1);
      // R1's two images found in the registry, R2's amd64 built; R2's arm64 failed.
      expect(sample(text, 'on_cluster_build_fleet_builds_finished_total', { result: 'Succeeded' })).toBe(3);
      expect(sample(text, 'on_cluster_build_fleet_builds_finished_total', { result: 'Failed' })).toBe(1);
      // banana's release rolled out without the image when its hold was lifted; the default policy
      // (RideReleaseChange) defers the layer to its next release change.
      expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'HandedOff' })).toBe(AMD.length - 1);
      expect(sample(text, 'on_cluster_build_fleet_gate_nodepools', { state: 'Deferred' })).toBe(1);
      rec.push([52, samples(text, 'on_cluster_build_')]);

      // At the bound the last hold is lifted loudly.
      offsetMs = 61 * 60_000;
      await waitFor('timed out', () => np(ARM).spec.pausedUntil === undefined);
      text = await metricsWhen((t) => sample(t, 'on_cluster_build_fleet_holds') === 0 && sample(t, 'on_cluster_build_fleet_gate_actions_total', { action: 'TimedOut' }) === 1);
      expect(sample(text, 'on_cluster_build_fleet_holds')).toBe(0);
      expect(sample(text, 'on_cluster_build_fleet_hold_oldest_age_seconds')).toBe(0);
      expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'TimedOut' })).toBe(1);
      // Every action and state of the run has its own label value.
      expect(sample(text, 'on_cluster_build_fleet_gate_actions_total', { action: 'Other' })).toBe(0);
      expect(sample(text, 'on_cluster_build_fleet_gate_nodepools', { state: 'Other' })).toBe(0);
      rec.push([61, samples(text, 'on_cluster_build_')]);

      // Events on the NodePools, with the documented reasons, deduplicated per NodePool and reason.
      await waitFor('events', () => mgmt.store.list('v1', 'Event', 'clusters').some((e: any) => e.reason === 'UpgradeGateTimedOut'));
      const events = mgmt.store.list('v1', 'Event', 'clusters') as any[];
      for (const e of events) expect(Object.keys(EVENT_REASONS)).toContain(e.reason);
      const of = (c: string, reason: string) => events.filter((e) => e.involvedObject.name === npName(c) && e.reason === reason);
      for (const c of ALL) expect(of(c, 'UpgradeHeld')).toHaveLength(1);
      for (const c of AMD.filter((c) => c !== OVERRIDDEN)) expect(of(c, 'UpgradeReleased')).toHaveLength(1);
      expect(of(OVERRIDDEN, 'UpgradeReleased')).toEqual([]);
      expect(of(OVERRIDDEN, 'UpgradeHoldOverridden')).toHaveLength(1);
      expect(of(OVERRIDDEN, 'UpgradeHoldOverridden')[0]).toMatchObject({ type: 'Warning', message: 'the hold was lifted by someone else: not held again for this release' });
      expect(of(ARM, 'UpgradeGateTimedOut')[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'NodePool', namespace: 'clusters' } });
      expect(JSON.stringify(events)).not.toMatch(/dnf|quay\.example\.com/);
      expect(mgmt.audit.filter((e) => e.user === FLEET_USER && (e.code === 401 || e.code === 403))).toEqual([]);
    } finally {
      stop.abort();
      await fleet.done.catch(() => {});
    }

    const series = inputSeries(rec, 70, { namespace: NS, job: 'on-cluster-build-fleet-metrics', service: 'on-cluster-build-fleet-metrics' });
    const { check, test } = checkAndTest(dir, fleetAlerts(), series, [
      { minute: 30, alert: 'OnClusterBuildHoldNearBound', firing: [] },
      { minute: 50, alert: 'OnClusterBuildHoldNearBound', firing: [{ severity: 'warning', namespace: NS, job: 'on-cluster-build-fleet-metrics', service: 'on-cluster-build-fleet-metrics' }] },
      { minute: 62, alert: 'OnClusterBuildHoldNearBound', firing: [] },
      // One failed provider build is not yet a page (two in an hour with none succeeding is).
      { minute: 60, alert: 'OnClusterBuildProviderBuildsFailing', firing: [] },
    ]);
    expect(check.out).toMatch(/SUCCESS: \d+ rules found/);
    expect(check.code).toBe(0);
    expect(test.out).toMatch(/SUCCESS/);
    expect(test.code).toBe(0);
  }, 120_000);
});
