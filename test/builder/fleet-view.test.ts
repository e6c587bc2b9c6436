/**
 * The fleet view (builder/fleet/view.ts, `on-cluster-build fleet-status`) on the API test server:
 * which NodePools run which layer, which are held and why, failing provider builds; paged lists,
 * capped rows, only list calls with the rights it declares, nothing of Secrets or Job specs.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/clusters/kube.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffConfigMap } from '../../builder/controller/handoff.js';
import { CONFIG_LABEL } from '../../builder/controller/build-job.js';
import { BLOCKED_ANNOTATION, GATED_LABEL, HELD_SINCE_ANNOTATION, PAUSED_FOR_ANNOTATION, REASON_ANNOTATION, RELEASED_FOR_ANNOTATION } from '../../builder/fleet/gate.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_BUILD_NAMESPACE } from '../../builder/fleet/rbac.js';
import { DEFERRED_PREFIX } from '../../builder/fleet/gate-names.js';
import { FLEET_STATUS_NAMESPACED_READS, FLEET_STATUS_READS, fleetStatus, fleetStatusMain, formatFleetStatus, formatRolloutPlan } from '../../builder/fleet/view.js';
import { formatPolicy, parsePolicy } from '../../builder/fleet/rollout/policy.js';
import type { RolloutState } from '../../builder/fleet/rollout/planner.js';
import { encodeState, ROLLOUT_CONFIGMAP, ROLLOUT_LABEL } from '../../builder/fleet/rollout/state.js';
import { fleetRolloutMain } from '../../builder/fleet/rollout/command.js';
import { main } from '../../builder/cli.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const IMG = (c: string) => `quay.example.com/provider/rhcos@${D(c)}`;
const BUILD_NS = FLEET_BUILD_NAMESPACE;
const SRE = 'sre-viewer';
const SECRET_VALUE = 'c2VjcmV0LXB1c2gtdG9rZW4tdmFsdWU=';
const copy = (r: { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[] }) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs] });

describe('fleet-status', () => {
  let mgmt: ApiTestServer;
  let dir: string;
  beforeAll(async () => {
    mgmt = await startApiServer({
      identities: [
        { name: SRE, token: 'sre-token', rules: [...FLEET_STATUS_READS.map(copy), ...FLEET_STATUS_NAMESPACED_READS.map((r) => ({ ...copy(r), namespaces: [BUILD_NS] }))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true });
    const np = (name: string, release: string, extra: { labels?: Record<string, string>; annotations?: Record<string, string>; pausedUntil?: string } = {}) =>
      mgmt.store.put({
        apiVersion: 'hypershift.openshift.io/v1beta1',
        kind: 'NodePool',
        metadata: { name: `${name}-workers`, namespace: 'clusters', labels: { [GATED_LABEL]: 'true', ...extra.labels }, annotations: extra.annotations ?? {} },
        spec: { clusterName: name, release: { image: release }, arch: name === 'banana' ? 'arm64' : undefined, platform: { type: 'AWS', aws: { secret: SECRET_VALUE } }, ...(extra.pausedUntil ? { pausedUntil: extra.pausedUntil } : {}) },
      });
    const handoff = (name: string, config: string, release: string, image: string) => {
      const cm = handoffConfigMap(hcpNamespaceOf('clusters', name), `${name}-workers`, config, image);
      cm.metadata.annotations = { [HANDOFF_RELEASE_ANNOTATION]: release };
      if (!config) delete cm.metadata.labels![CONFIG_LABEL];
      mgmt.store.put(cm);
    };
    // apple: provider layer, consistent.
    np('apple', R1);
    handoff('apple', '', R1, IMG('a'));
    // banana: tenant layer, held for R2 while its image is built.
    np('banana', R2, { annotations: { [PAUSED_FOR_ANNOTATION]: R2, [HELD_SINCE_ANNOTATION]: '2026-11-25T01:00:00.000Z', [REASON_ANNOTATION]: `waiting for the image for (release ${R2}, arm64, layer tenant): building since 2026-11-25T01:00:00.000Z` }, pausedUntil: 'true' });
    handoff('banana', 'my-config', R1, IMG('b'));
    // cherry: no hand-off (our package not installed, or nothing layered).
    np('cherry', R2);
    // date: hold timed out, released with the old image.
    np('date', R2, { annotations: { [RELEASED_FOR_ANNOTATION]: R2, [REASON_ANNOTATION]: 'UpgradeGateTimedOut: held 3600s (max 3600s), the image for … failed: build failed' } });
    handoff('date', '', R1, IMG('d'));
    // elder: a human's dated pause.
    np('elder', R2, { pausedUntil: '2030-01-01T00:00:00Z' });
    handoff('elder', '', R1, IMG('e'));
    // Not a hand-off (no label): never read into the view, even when it names a NodePool.
    mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'other', namespace: hcpNamespaceOf('clusters', 'cherry'), labels: { 'hypershift.openshift.io/nodePool': 'cherry-workers' } }, data: { token: SECRET_VALUE } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'provider-push', namespace: BUILD_NS }, data: { '.dockerconfigjson': SECRET_VALUE } });
    const job = (name: string, ns: string, status: Record<string, unknown>) =>
      mgmt.store.put({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name, namespace: ns }, spec: { template: { spec: { containers: [{ name: 'b', image: 'x', env: [{ name: 'TOKEN', value: SECRET_VALUE }] }] } } }, status });
    job('provider-build-aaaa', BUILD_NS, { succeeded: 1, startTime: '2026-11-25T00:00:00Z', conditions: [{ type: 'Complete', status: 'True' }] });
    job('provider-build-bbbb', BUILD_NS, { failed: 3, startTime: '2026-11-25T00:10:00Z', conditions: [{ type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] });
    job('provider-build-cccc', BUILD_NS, { active: 1, startTime: '2026-11-25T01:00:00Z' });
    job('tenant-build', 'clusters-apple', { failed: 1, conditions: [{ type: 'Failed', status: 'True' }] }); // not the fleet's
    dir = mkdtempSync(path.join(tmpdir(), 'fleet-view-'));
  });
  afterAll(async () => {
    await mgmt?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('which NodePools run which layer, which are held and why, failing builds first', async () => {
    mgmt.clearAudit();
    const s = await fleetStatus({ management: new Kube(mgmt.kubeConfig(SRE)), buildNamespace: BUILD_NS, maxRows: 100, pageSize: 2 });
    expect(s.nodePools.map((r) => [r.name, r.hcpNamespace, r.layer, r.state, r.arch, r.image, r.imageRelease])).toEqual([
      ['apple-workers', 'clusters-apple', 'provider', 'Consistent', 'amd64', IMG('a'), R1],
      ['banana-workers', 'clusters-banana', 'tenant', 'Held', 'arm64', IMG('b'), R1],
      ['cherry-workers', 'clusters-cherry', 'none', 'NotLayered', 'amd64', undefined, undefined],
      ['date-workers', 'clusters-date', 'provider', 'Released', 'amd64', IMG('d'), R1],
      ['elder-workers', 'clusters-elder', 'provider', 'PausedByOther', 'amd64', IMG('e'), R1],
    ]);
    const banana = s.nodePools[1];
    expect(banana.heldSince).toBe('2026-11-25T01:00:00.000Z');
    expect(banana.reason).toMatch(/^waiting for the image for \(release .*, arm64, layer tenant\)/);
    expect(s.nodePools[3].reason).toMatch(/^UpgradeGateTimedOut/);
    expect(s.builds).toEqual([
      { name: 'provider-build-bbbb', state: 'Failed', started: '2026-11-25T00:10:00Z', reason: 'BackoffLimitExceeded: Job has reached the specified backoff limit' },
      { name: 'provider-build-cccc', state: 'Running', started: '2026-11-25T01:00:00Z' },
      { name: 'provider-build-aaaa', state: 'Succeeded', started: '2026-11-25T00:00:00Z' },
    ]);
    expect(s.summary).toEqual({
      hostedClusters: 5,
      nodePools: 5,
      byLayer: { provider: 3, tenant: 1, none: 1 },
      byState: { Blocked: 0, Deferred: 0, Held: 1, Released: 1, Pending: 0, PausedByOther: 1, Consistent: 1, NotLayered: 1 },
      builds: { Failed: 1, Running: 1, Pending: 0, Succeeded: 1 },
    });
    expect(s.omitted).toEqual({ nodePools: 0, builds: 0 });
    // Only paged list calls, all allowed: five NodePools in pages of two is three calls.
    const calls = mgmt.audit.filter((e) => e.user === SRE && e.resource);
    expect(calls.every((e) => e.verb === 'list' && (e.code ?? 200) < 400)).toBe(true);
    expect(calls.filter((e) => e.resource === 'nodepools')).toHaveLength(3);
    expect([...new Set(calls.map((e) => `${e.resource} ${e.namespace || '*'}`))].sort()).toEqual(['configmaps *', 'configmaps on-cluster-build-fleet', 'hostedclusters *', `jobs ${BUILD_NS}`, 'nodepools *']);
  });

  test('a release change without the gate shows as Pending', async () => {
    const admin = new Kube(mgmt.kubeConfig('system:admin'));
    const s0 = await fleetStatus({ management: admin, buildNamespace: BUILD_NS, maxRows: 100 });
    expect(s0.summary.byState.Pending).toBe(0);
    mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'fig-workers', namespace: 'clusters' }, spec: { clusterName: 'fig', release: { image: R2 } } });
    const cm = handoffConfigMap(hcpNamespaceOf('clusters', 'fig'), 'fig-workers', '', IMG('f'));
    cm.metadata.annotations = { [HANDOFF_RELEASE_ANNOTATION]: R1 };
    mgmt.store.put(cm);
    const s = await fleetStatus({ management: admin, buildNamespace: BUILD_NS, maxRows: 100 });
    expect(s.nodePools.find((r) => r.name === 'fig-workers')!.state).toBe('Pending');
    mgmt.store.delete({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: 'fig-workers', namespace: 'clusters' });
    mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: cm.metadata.name!, namespace: cm.metadata.namespace! });
  });

  test('rows are capped, the summary still counts everything', async () => {
    const s = await fleetStatus({ management: new Kube(mgmt.kubeConfig(SRE)), buildNamespace: BUILD_NS, maxRows: 2 });
    expect(s.nodePools.map((r) => r.name)).toEqual(['apple-workers', 'banana-workers']);
    expect(s.builds.map((b) => b.name)).toEqual(['provider-build-bbbb', 'provider-build-cccc']);
    expect(s.omitted).toEqual({ nodePools: 3, builds: 1 });
    expect(s.summary.nodePools).toBe(5);
    const text = formatFleetStatus(s, 'text');
    expect(text).toContain('… 3 more NodePool(s) (--max-rows)');
    expect(text).toContain('… 1 more build(s) (--max-rows)');
  });

  test('the command: text and -o json, deterministic, no secret or spec value; usage errors exit 2, failures exit 1', async () => {
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, mgmt.kubeconfig(SRE));
    const run = async (args: string[], env: Record<string, string | undefined> = {}) => {
      let out = '';
      let err = '';
      const code = await fleetStatusMain(args, env, (s) => (out += s), (s) => (err += s));
      return { code, out, err };
    };
    const text = await run([`--kubeconfig=${kubeconfig}`]);
    expect(text).toMatchObject({ code: 0, err: '' });
    expect(text.out.split('\n')[0]).toBe('5 hosted cluster(s), 5 NodePool(s); layers: provider 3, tenant 1, none 1; gate: Blocked 0, Deferred 0, Held 1, Released 1, Pending 0, PausedByOther 1, Consistent 1, NotLayered 1; provider builds: Failed 1, Running 1, Pending 0, Succeeded 1');
    expect(text.out).toMatch(/clusters\/banana-workers\s+banana\s+tenant\s+Held\s+-\s+quay\.io\/openshift-release-dev\/ocp-release@sha256:222222222222…\s+quay\.example\.com\/provider\/rhcos@sha256:bbbbbbbbbbbb…/);
    expect(text.out).toMatch(/provider-build-bbbb\s+Failed\s+2026-11-25T00:10:00Z\s+BackoffLimitExceeded/);
    expect((await run([`--kubeconfig=${kubeconfig}`])).out).toBe(text.out);
    // KUBECONFIG works as kubectl's does; -o is --output.
    const json = await run(['-o', 'json'], { KUBECONFIG: kubeconfig });
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.out);
    expect(parsed.summary.nodePools).toBe(5);
    expect(parsed.nodePools[1].image).toBe(IMG('b'));
    for (const o of [text.out, json.out]) {
      expect(o).not.toContain(SECRET_VALUE);
      expect(o).not.toContain('TOKEN');
      expect(o).not.toContain('tenant-build');
    }
    // Usage errors: exit 2, one line.
    for (const args of [['-o', 'yaml'], ['--max-rows=0'], ['--bogus'], ['extra']]) {
      const r = await run([`--kubeconfig=${kubeconfig}`, ...args]);
      expect(r).toMatchObject({ code: 2, out: '' });
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
    // A read that fails: exit 1, one located line, no stack.
    const missing = await run([`--kubeconfig=${path.join(dir, 'nope')}`]);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/^on-cluster-build fleet-status: .*nope/);
    expect(missing.err.trim().split('\n')).toHaveLength(1);
    expect(missing.err).not.toMatch(/\n\s+at /);
    // Without the rights: the refusal, named.
    writeFileSync(kubeconfig, mgmt.kubeconfig('system:admin').replace(/token: .*/, 'token: wrong-token'));
    const denied = await run([`--kubeconfig=${kubeconfig}`]);
    expect(denied.code).toBe(1);
    expect(denied.err.trim().split('\n')).toHaveLength(1);
  });

  test('the rollout plan: for a policy and the fleet as it is, the waves, what is blocked and why, the expected duration; halts in the view', async () => {
    mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'apple', namespace: 'clusters', labels: { ring: 'canary' } }, spec: {} });
    const admin = new Kube(mgmt.kubeConfig(SRE));
    const policy = parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: { ring: 'canary' } }], maxConcurrency: 2, minSuccessTime: '10m' });
    const now = Date.parse('2026-11-27T10:00:00Z');
    const planned = await fleetStatus({ management: admin, buildNamespace: BUILD_NS, maxRows: 500, namespace: 'nowhere', policy, now });
    expect(planned.rollout.waves).toEqual([
      { index: 1, canary: true, count: 1, nodePools: ['clusters/apple-workers'] },
      { index: 2, canary: false, count: 2, nodePools: ['clusters/banana-workers', 'clusters/cherry-workers'] },
      { index: 3, canary: false, count: 2, nodePools: ['clusters/date-workers', 'clusters/elder-workers'] },
    ]);
    expect(planned.nodePools.every((r) => r.rollout === undefined)).toBe(true); // nothing planned by the fleet yet
    expect(formatRolloutPlan(planned.rollout, 'text')).toBe(
      [
        'rollout policy (--rollout): {"type":"Progressive","maxConcurrency":2,"maxConcurrencyPerHostedCluster":1,"progressDeadline":"2h","canaries":[{"matchLabels":{"ring":"canary"}}],"maxFailures":0,"minSuccessTime":"10m"}',
        'NodePools: pending 5, rolling 0, succeeded 0, failed 0, halted 0, blocked 0; rolling now 0 of at most 2; canaries 0/1 done',
        '',
        'WAVE  CANARY  NODEPOOLS  FIRST',
        '1     yes     1          clusters/apple-workers',
        '2     no      2          clusters/banana-workers, clusters/cherry-workers',
        '3     no      2          clusters/date-workers, clusters/elder-workers',
        'expected: about 2h (3 wave(s) to go, 30m per NodePool: assumed 1800s per NodePool (none finished yet); waves are a bound, the window slides)',
        '',
        'NOT STARTING NOW, AND WHY:',
        '  4× waiting for the canaries: 0/1 succeeded and soaked 600s (clusters/banana-workers, clusters/cherry-workers, clusters/date-workers, clusters/elder-workers)',
        '',
      ].join('\n'),
    );
    // The fleet's own state: its policy, a failed canary: the view says the rollout halted and why.
    const state: RolloutState = { layer: 'L', resumes: 0, entries: { 'clusters/apple-workers': { change: 'layer-change', target: 't', admittedAt: now - 3_600_000, startedAt: now - 3_600_000, failedAt: now - 60_000, reason: 'UpdatingConfig InplaceUpgradeFailed: Node a-1 in nodepool degraded', canary: true } } };
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet-ns' } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROLLOUT_CONFIGMAP, namespace: 'fleet-ns', labels: { [ROLLOUT_LABEL]: 'true' } }, data: { 'state.json': encodeState(state), 'policy.json': JSON.stringify(formatPolicy(policy)) } });
    const s = await fleetStatus({ management: admin, buildNamespace: BUILD_NS, maxRows: 500, namespace: 'fleet-ns', now });
    expect(s.rollout.policySource).toBe('fleet');
    expect(s.rollout.halted).toBe('canary failed (canaries tolerate no failure): clusters/apple-workers: UpdatingConfig InplaceUpgradeFailed: Node a-1 in nodepool degraded');
    expect(s.nodePools.map((r) => [r.name, r.rollout?.state])).toEqual([['apple-workers', 'failed'], ['banana-workers', 'halted'], ['cherry-workers', 'halted'], ['date-workers', 'halted'], ['elder-workers', 'halted']]);
    const text = formatFleetStatus(s, 'text');
    expect(text.split('\n').slice(1, 3)).toEqual([
      'rollout (Progressive): pending 0, rolling 0, succeeded 0, failed 1, halted 4, blocked 0; rolling now 0 of at most 2; canaries 0/1 done',
      'ROLLOUT HALTED: canary failed (canaries tolerate no failure): clusters/apple-workers: UpdatingConfig InplaceUpgradeFailed: Node a-1 in nodepool degraded',
    ]);
    expect(text).toMatch(/clusters\/apple-workers\s+apple\s+provider\s+Consistent\s+failed \(canary\)\s/);
  });

  test('fleet-rollout pause|resume|rollback: one write of the control key; usage errors exit 2, a refused write exits 1', async () => {
    const kubeconfig = path.join(dir, 'kubeconfig-admin');
    writeFileSync(kubeconfig, mgmt.kubeconfig('system:admin'));
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet-cmd' } });
    const run = async (args: string[]) => {
      let out = '';
      let err = '';
      const code = await fleetRolloutMain(args, { KUBECONFIG: kubeconfig }, (s) => (out += s), (s) => (err += s), () => Date.parse('2026-11-27T10:00:00Z'));
      return { code, out, err };
    };
    const control = () => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: 'fleet-cmd' })?.data?.['control.json'];
    expect(await run(['pause', '--namespace=fleet-cmd', '--by=alice'])).toEqual({ code: 0, err: '', out: 'pause: written to ConfigMap fleet-cmd/on-cluster-build-fleet-rollout ({"paused":{"at":1795773600000,"by":"alice"}}); the fleet component acts on it at once\n' });
    expect((await run(['rollback', '--namespace=fleet-cmd', '--by=bob'])).code).toBe(0);
    expect(JSON.parse(control()!)).toEqual({ paused: { at: 1795773600000, by: 'alice' }, rollback: { at: 1795773600000, by: 'bob' } });
    expect((await run(['resume', '--namespace=fleet-cmd'])).code).toBe(0);
    expect(JSON.parse(control()!)).toEqual({ resume: 1 });
    // The fleet's state key is never touched by the command.
    expect(Object.keys(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: 'fleet-cmd' })!.data!)).toEqual(['control.json']);
    for (const args of [[], ['halt'], ['pause', '--bogus']]) expect(await run(args)).toMatchObject({ code: 2, out: '' });
    // The view's identity may not write: one located line, exit 1.
    writeFileSync(kubeconfig, mgmt.kubeconfig(SRE));
    const denied = await run(['pause', '--namespace=fleet-cmd']);
    expect(denied.code).toBe(1);
    expect(denied.err.trim().split('\n')).toHaveLength(1);
    expect(denied.err).toMatch(/^on-cluster-build fleet-rollout pause: /);
  });

  test('Blocked and Deferred NodePools with their reasons, in text and JSON', async () => {
    const BLOCKED = 'no Ready, schedulable management cluster Node of architecture arm64 (kubernetes.io/arch=arm64) to run the provider build on, no build placement for arm64 (--build-placement) and no prebuilt provider image';
    const put = (name: string, annotations: Record<string, string>, extra: Record<string, unknown> = {}) =>
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: `${name}-workers`, namespace: 'clusters', annotations }, spec: { clusterName: name, release: { image: R1 }, ...extra } });
    // grape: a precondition fails (no label: the gate took it off); lime: held while the policy defers it; kiwi: unheld, on its release, not admitted by the plan.
    put('grape', { [BLOCKED_ANNOTATION]: BLOCKED }, { arch: 'arm64' });
    put('lime', { [PAUSED_FOR_ANNOTATION]: R1, [HELD_SINCE_ANNOTATION]: '2026-11-27T09:00:00.000Z', [REASON_ANNOTATION]: `${DEFERRED_PREFIX}the window is full: 2 of at most 2 rolling` }, { pausedUntil: '2026-11-27T11:00:00Z' });
    put('kiwi', {});
    const handoff = handoffConfigMap(hcpNamespaceOf('clusters', 'kiwi'), 'kiwi-workers', '', IMG('c'));
    handoff.metadata.annotations = { [HANDOFF_RELEASE_ANNOTATION]: R1 };
    delete handoff.metadata.labels![CONFIG_LABEL];
    mgmt.store.put(handoff);
    mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'apple', namespace: 'clusters', labels: { ring: 'canary' } }, spec: {} });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fleet-defer' } });
    const policy = parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: { ring: 'canary' } }], maxConcurrency: 2, minSuccessTime: '10m' });
    const state: RolloutState = { layer: 'L', resumes: 0, entries: {} };
    mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROLLOUT_CONFIGMAP, namespace: 'fleet-defer', labels: { [ROLLOUT_LABEL]: 'true' } }, data: { 'state.json': encodeState(state), 'policy.json': JSON.stringify(formatPolicy(policy)) } });
    try {
      const s = await fleetStatus({ management: new Kube(mgmt.kubeConfig(SRE)), buildNamespace: BUILD_NS, maxRows: 100, namespace: 'fleet-defer', now: Date.parse('2026-11-27T10:00:00Z') });
      const row = (n: string) => s.nodePools.find((r) => r.name === `${n}-workers`)!;
      expect(row('grape')).toMatchObject({ state: 'Blocked', arch: 'arm64', reason: BLOCKED });
      expect(row('grape').heldSince).toBeUndefined();
      expect(row('lime')).toMatchObject({ state: 'Deferred', heldSince: '2026-11-27T09:00:00.000Z', reason: `${DEFERRED_PREFIX}the window is full: 2 of at most 2 rolling` });
      expect(row('kiwi')).toMatchObject({ state: 'Deferred', layer: 'provider', reason: 'waiting for the canaries: 0/1 succeeded and soaked 600s' });
      // The canary itself is admissible: Consistent, no reason; held, released and others' pauses keep their states.
      expect(row('apple')).toMatchObject({ state: 'Consistent' });
      expect(row('apple').reason).toBeUndefined();
      expect([row('banana').state, row('date').state, row('elder').state]).toEqual(['Held', 'Released', 'PausedByOther']);
      expect(s.summary.byState).toMatchObject({ Blocked: 1, Deferred: 3, Held: 1 });
      const text = formatFleetStatus(s, 'text');
      expect(text).toMatch(/gate: Blocked 1, Deferred 3, Held 1,/);
      expect(text).toContain(`clusters/grape-workers   grape          none      Blocked`);
      expect(text).toMatch(new RegExp(`clusters/grape-workers .*Blocked .*${BLOCKED.slice(0, 60).replace(/[()]/g, '\\$&')}`));
      expect(text).toMatch(/clusters\/kiwi-workers .*Deferred .*waiting for the canaries: 0\/1 succeeded and soaked 600s$/m);
      expect(text).toMatch(/clusters\/lime-workers .*Deferred .*deferred by the rollout policy: the window is full/);
      const json = JSON.parse(formatFleetStatus(s, 'json'));
      expect(json.nodePools.filter((r: { state: string }) => r.state === 'Blocked' || r.state === 'Deferred').map((r: { name: string; state: string; reason: string }) => [r.name, r.state, r.reason])).toEqual([
        ['cherry-workers', 'Deferred', 'waiting for the canaries: 0/1 succeeded and soaked 600s'],
        ['grape-workers', 'Blocked', BLOCKED],
        ['kiwi-workers', 'Deferred', 'waiting for the canaries: 0/1 succeeded and soaked 600s'],
        ['lime-workers', 'Deferred', `${DEFERRED_PREFIX}the window is full: 2 of at most 2 rolling`],
      ]);
    } finally {
      for (const n of ['grape', 'lime', 'kiwi']) mgmt.store.delete({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: `${n}-workers`, namespace: 'clusters' });
      mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: handoff.metadata.name!, namespace: handoff.metadata.namespace! });
      mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: ROLLOUT_CONFIGMAP, namespace: 'fleet-defer' });
    }
  });

  test('is a command of on-cluster-build, with its flags in --help', async () => {
    const chunks: string[] = [];
    const write = process.stdout.write;
    process.stdout.write = ((s: string) => (chunks.push(String(s)), true)) as typeof process.stdout.write;
    try {
      expect(await main(['fleet-status', '--help'])).toBe(0);
      expect(await main(['--help'])).toBe(0);
    } finally {
      process.stdout.write = write;
    }
    const out = chunks.join('');
    expect(out).toContain('usage: on-cluster-build fleet-status [flags]');
    expect(out).toContain('--max-rows');
    expect(out).toMatch(/fleet-status\s+show which hosted clusters/);
  });
});
