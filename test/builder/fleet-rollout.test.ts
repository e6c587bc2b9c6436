/**
 * Fleet rollouts on simulated time (docs/design/fleet-simulation.md): first the HyperShift
 * stand-in's own behaviour against upstream's semantics, then the invariant recorder, then the
 * fleet component with its rollout policy against a scaled fleet (the recorder finds no
 * violation), one fleet that admits every hand-off (the recorder finds the old behaviour), and
 * the Done-when scenarios.
 *
 * Scale: FLEET_ROLLOUT_NODEPOOLS (default 100, in half as many HCP namespaces: affordable on 2
 * shared cores); the Done-when's 2,000 in 1,000, one scenario at a time (FLEET_ROLLOUT_STATS=1
 * prints steps, requests, wall time and load average per scenario):
 *   FLEET_ROLLOUT_NODEPOOLS=2000 node --experimental-vm-modules node_modules/jest/bin/jest.js test/builder/fleet-rollout.test.ts -t 'Progressive, 5 canary' --maxWorkers=1
 * FLEET_ROLLOUT_SEEDS (default 3): how many seeded schedules the property test runs.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/clusters/kube.js';
import { NTO_GENERATED_LABEL } from '../../builder/controller/handoff.js';
import { NODEPOOL_LABEL as BUILDER_NODEPOOL_LABEL } from '../../builder/controller/build-job.js';
import { admitNodePoolUpdate, NODEPOOLS, settleGate, type ImageKey } from '../../builder/fleet/gate.js';
import { TARGET_SEEN_ANNOTATION } from '../../builder/fleet/gate-names.js';
import { parsePolicy, type RolloutPolicy } from '../../builder/fleet/rollout/policy.js';
import type { RolloutEngine } from '../../builder/fleet/rollout/engine.js';
import { applyAction } from '../../builder/fleet/rollout/command.js';
import { updateControl } from '../../builder/fleet/rollout/state.js';
import { providerHandoff } from './fleet-fixtures.js';
import {
  ALL_MACHINES_READY,
  conditionOf,
  configHashes,
  CURRENT_CONFIG_ANNOTATION,
  goParseRFC3339,
  hashSimple,
  hcpNamespace,
  HOSTEDCLUSTER_TYPE,
  HyperShiftStandIn,
  mcoRawConfig,
  NODEPOOL_LABEL,
  NODEPOOL_TYPE,
  NTO_GENERATED_CONFIG_LABEL,
  pausedUntilState,
  READY,
  SimClock,
  UPDATING_CONFIG,
  UPDATING_VERSION,
  type UpgradeType,
} from './hypershift-standin.js';
import { InvariantRecorder } from './rollout-recorder.js';
import { FLEET_USER, HUMAN_USER, NEW_LAYER, OLD_LAYER, R1, R2, rng, scenario, type ScenarioContext } from './rollout-scenario.js';

const NODEPOOLS_AT_SCALE = Number(process.env.FLEET_ROLLOUT_NODEPOOLS ?? 100);
/** A scale run's real time grows with NodePools × steps (the harness and the stand-in per write; steps grow with NodePools / the bound), and with the machine's load. */
const SCALE_TIMEOUT_MS = Math.max(600_000, NODEPOOLS_AT_SCALE * 3_000);
const MIN = 60_000;
const API = 'hypershift.openshift.io/v1beta1';

describe('the HyperShift stand-in', () => {
  let server: ApiTestServer;
  let clock: SimClock;
  let standIn: HyperShiftStandIn;
  let fleet: Kube;
  const NS = 'clusters';
  const np = (name: string) => server.store.get({ apiVersion: API, kind: 'NodePool', namespace: NS, name })!;
  const handoff = (name: string, image: string) => providerHandoff(hcpNamespace(NS, name), name, image, R1);
  const image = (c: string) => `quay.example.com/provider/os@sha256:${c.repeat(64)}`;
  /** A HostedCluster named like its only NodePool, with that NodePool and (optionally) a hand-off. */
  const add = (name: string, upgradeType: UpgradeType, opts: { img?: string; pausedUntil?: string; disabled?: string[] } = {}) => {
    server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hcpNamespace(NS, name) } });
    server.store.put({ apiVersion: API, kind: 'HostedCluster', metadata: { name, namespace: NS }, spec: { release: { image: R1 }, ...(opts.disabled ? { capabilities: { disabled: opts.disabled } } : {}) } });
    server.store.put({ apiVersion: API, kind: 'NodePool', metadata: { name, namespace: NS }, spec: { clusterName: name, release: { image: R1 }, replicas: 2, management: { upgradeType }, ...(opts.pausedUntil ? { pausedUntil: opts.pausedUntil } : {}) } });
    if (opts.img) server.store.put(handoff(name, opts.img));
  };
  const setHandoff = (name: string, img: string) => server.store.put(handoff(name, img));
  const patchNp = (name: string, patch: unknown) => fleet.mergePatch(NODEPOOLS, name, NS, patch);
  const run = (ms: number, step = 10_000) => {
    for (let t = 0; t < ms; t += step) clock.advance(step);
  };

  beforeEach(async () => {
    clock = new SimClock();
    server = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet' }, { name: HUMAN_USER, token: 'admin' }], clock: () => new Date(clock.now()) });
    server.registerType(NODEPOOL_TYPE);
    server.registerType(HOSTEDCLUSTER_TYPE);
    server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    fleet = new Kube(server.kubeConfig(FLEET_USER));
  });
  afterEach(async () => {
    standIn?.stop();
    await server.stop();
  });

  it("reads pausedUntil as HyperShift does: Go's ParseBool, else RFC3339 in the future (requeued at it), else not paused", () => {
    const now = Date.parse('2026-11-25T00:00:00Z');
    const at = (v: string | undefined) => pausedUntilState(v, now);
    for (const v of ['true', 'True', 'TRUE', 't', 'T', '1']) expect(at(v)).toEqual({ paused: true, requeueAfterMs: 0, invalid: false });
    for (const v of ['false', 'F', '0']) expect(at(v)).toEqual({ paused: false, requeueAfterMs: 0, invalid: false });
    expect(at(undefined)).toEqual({ paused: false, requeueAfterMs: 0, invalid: false });
    expect(at('2026-11-25T01:00:00Z')).toEqual({ paused: true, requeueAfterMs: 3600_000, invalid: false });
    expect(at('2026-11-25T01:00:00+01:00')).toEqual({ paused: false, requeueAfterMs: 0, invalid: false }); // that is midnight UTC: not before it
    expect(at('2026-11-25T00:00:00.5Z')).toEqual({ paused: true, requeueAfterMs: 500, invalid: false }); // Go parses a fraction the layout lacks
    expect(at('2026-11-24T23:00:00Z')).toEqual({ paused: false, requeueAfterMs: -3600_000, invalid: false });
    // Strings the CRD admits but Go cannot parse: NOT paused.
    for (const v of ['yes', 'tomorrow', '2026-11-25 01:00:00Z', '2026-11-25t01:00:00z', '2026-02-30T00:00:00Z', '2026-11-25T24:00:00Z', '2026-11-25T01:00:00', '']) expect(at(v)).toEqual({ paused: false, requeueAfterMs: 0, invalid: true });
    expect(goParseRFC3339('2028-02-29T00:00:00Z')).toBe(Date.parse('2028-02-29T00:00:00Z'));
    // HashSimple: FNV-1a 32, %08x (Go's hash/fnv New32a of "" and "a").
    expect(hashSimple('')).toBe('811c9dc5');
    expect(hashSimple('a')).toBe('e40c292c');
  });

  it('selects hand-offs by the labels HyperShift lists (the same names the builder writes)', () => {
    expect(NTO_GENERATED_CONFIG_LABEL).toBe(NTO_GENERATED_LABEL);
    expect(NODEPOOL_LABEL).toBe(BUILDER_NODEPOOL_LABEL);
  });

  it('a hand-off change rolls a Replace NodePool machine by machine with one surge machine, and reports it done as upstream does', () => {
    add('rep', 'Replace', { img: image('1') });
    standIn = new HyperShiftStandIn({ server, clock, machineBootMs: 8 * MIN });
    standIn.start();
    run(MIN);
    const first = configHashes(mcoRawConfig([handoff('rep', image('1'))]), standIn.versionOf(R1));
    expect(np('rep').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).toBe(first.config);
    expect(conditionOf(np('rep'), UPDATING_CONFIG)).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(np('rep').status!.version).toBe(standIn.versionOf(R1));

    setHandoff('rep', image('2'));
    const next = configHashes(mcoRawConfig([handoff('rep', image('2'))]), standIn.versionOf(R1));
    run(MIN);
    expect(conditionOf(np('rep'), UPDATING_CONFIG)).toMatchObject({ status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${next.config}` });
    expect(conditionOf(np('rep'), UPDATING_VERSION)).toMatchObject({ status: 'False' });
    let v = standIn.view(`${NS}/rep`)!;
    expect(v.machines.map((m) => `${m.payload === next.payload ? 'new' : 'old'} ${m.ready ? 'ready' : 'booting'}`)).toEqual(['old ready', 'old ready', 'new booting']);
    expect(conditionOf(np('rep'), ALL_MACHINES_READY)?.status).toBe('False');
    run(8 * MIN);
    v = standIn.view(`${NS}/rep`)!;
    expect(v.machines.map((m) => `${m.payload === next.payload ? 'new' : 'old'} ${m.ready ? 'ready' : 'booting'}`)).toEqual(['old ready', 'new ready', 'new booting']);
    expect(np('rep').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).toBe(first.config);
    run(8 * MIN);
    expect(standIn.view(`${NS}/rep`)!.rolling).toBe(false);
    expect(np('rep').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).toBe(next.config);
    expect(conditionOf(np('rep'), UPDATING_CONFIG)).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(conditionOf(np('rep'), READY)?.status).toBe('True');

    // A release change alone: the config hash stays (HashWithoutVersion), the version moves and machines roll.
    server.store.put({ ...np('rep'), spec: { ...np('rep').spec, release: { image: R2 } } });
    run(MIN);
    expect(conditionOf(np('rep'), UPDATING_VERSION)).toMatchObject({ status: 'True', message: `Updating version in progress. Target version: ${standIn.versionOf(R2)}` });
    expect(conditionOf(np('rep'), UPDATING_CONFIG)).toMatchObject({ status: 'False' });
    run(20 * MIN);
    expect(np('rep').status!.version).toBe(standIn.versionOf(R2));
    expect(conditionOf(np('rep'), UPDATING_VERSION)).toMatchObject({ status: 'False', reason: 'AsExpected' });
  });

  it('the machines run what each NodePool says when the stand-in starts: a write before the first clock step rolls them', () => {
    add('early', 'Replace', { img: image('1') });
    standIn = new HyperShiftStandIn({ server, clock });
    standIn.start();
    setHandoff('early', image('2'));
    run(MIN);
    expect(standIn.view(`${NS}/early`)!.rolling).toBe(true);
  });

  it('InPlace reports "Total Nodes: N. Upgraded: M", and a degraded node fails it with reason InplaceUpgradeFailed', () => {
    add('inp', 'InPlace', { img: image('1') });
    add('bad', 'InPlace', { img: image('1') });
    standIn = new HyperShiftStandIn({ server, clock, nodeUpgradeMs: 6 * MIN });
    standIn.fail(`${NS}/bad`, 'error pulling image: unauthorized');
    standIn.start();
    run(MIN);
    setHandoff('inp', image('2'));
    setHandoff('bad', image('2'));
    run(MIN);
    const target = configHashes(mcoRawConfig([handoff('inp', image('2'))]), standIn.versionOf(R1));
    expect(conditionOf(np('inp'), UPDATING_CONFIG)).toMatchObject({ status: 'True', reason: 'AsExpected', message: `Nodepool update in progress. Target Config version: ${target.payload}. Total Nodes: 2. Upgraded: 0` });
    run(6 * MIN);
    expect(conditionOf(np('inp'), UPDATING_CONFIG)!.message).toMatch(/Total Nodes: 2\. Upgraded: 1$/);
    expect(conditionOf(np('bad'), UPDATING_CONFIG)).toMatchObject({ status: 'False', reason: 'InplaceUpgradeFailed', message: 'Node bad-1 in nodepool degraded: error pulling image: unauthorized' });
    run(10 * MIN);
    expect(np('inp').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).toBe(target.config);
    expect(conditionOf(np('inp'), UPDATING_CONFIG)).toMatchObject({ status: 'False', reason: 'AsExpected' });
    expect(conditionOf(np('bad'), UPDATING_CONFIG)).toMatchObject({ status: 'False', reason: 'InplaceUpgradeFailed' });
    expect(np('bad').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).not.toBe(target.config);
  });

  it('while paused the Target config still moves and no machine changes; an RFC3339 hold expires by itself on simulated time', async () => {
    add('held', 'Replace', { img: image('1'), pausedUntil: '2026-11-25T01:00:00Z' });
    standIn = new HyperShiftStandIn({ server, clock });
    standIn.start();
    run(MIN);
    const before = standIn.view(`${NS}/held`)!.machines;
    setHandoff('held', image('2'));
    run(MIN);
    const target = configHashes(mcoRawConfig([handoff('held', image('2'))]), standIn.versionOf(R1));
    expect(conditionOf(np('held'), UPDATING_CONFIG)?.message).toBe(`Updating config in progress. Target config: ${target.config}`);
    expect(conditionOf(np('held'), 'ReconciliationActive')).toMatchObject({ status: 'False', message: 'Reconciliation paused until: 2026-11-25T01:00:00Z' });
    expect(standIn.view(`${NS}/held`)!).toMatchObject({ capiPaused: true, machines: before });
    run(55 * MIN);
    expect(standIn.view(`${NS}/held`)!.machines).toEqual(before);
    // No write at expiry: the requeue HyperShift asked for (RequeueAfter) lifts it.
    run(5 * MIN);
    expect(standIn.view(`${NS}/held`)!.capiPaused).toBe(false);
    expect(standIn.view(`${NS}/held`)!.machines.some((m) => m.payload === target.payload)).toBe(true);
    // A value Go cannot parse is not a hold.
    add('typo', 'Replace', { img: image('1') });
    run(MIN);
    await patchNp('typo', { spec: { pausedUntil: '2026-11-25 03:00:00' } });
    setHandoff('typo', image('2'));
    run(MIN);
    expect(standIn.view(`${NS}/typo`)!.rolling).toBe(true);
    expect(conditionOf(np('typo'), 'ReconciliationActive')).toMatchObject({ status: 'True', reason: 'InvalidPausedUntilValue' });
  });

  it('a lagging ConfigMap cache rolls an intermediate hash when the hand-off is written and the hold lifted at once', async () => {
    const lifted = async (lagMs: number) => {
      add(`lag${lagMs}`, 'Replace', { img: image('1'), pausedUntil: 'true' });
      const name = `lag${lagMs}`;
      standIn = new HyperShiftStandIn({ server, clock, configMapLagMs: lagMs, reconcileDelayMs: 1000 });
      standIn.start();
      run(MIN);
      // The gate's way: release and hand-off change while held, then the hold goes.
      await patchNp(name, { spec: { release: { image: R2 } } });
      setHandoff(name, image('2'));
      await patchNp(name, { spec: { pausedUntil: null } });
      const targets: string[] = [];
      for (let i = 0; i < 60; i++) {
        clock.advance(1000);
        const t = standIn.view(`${NS}/${name}`)!.target!.payload;
        if (targets[targets.length - 1] !== t) targets.push(t);
      }
      standIn.stop();
      const intermediate = configHashes(mcoRawConfig([handoff(name, image('1'))]), standIn.versionOf(R2)).payload;
      const final = configHashes(mcoRawConfig([handoff(name, image('2'))]), standIn.versionOf(R2)).payload;
      return targets.map((t) => (t === intermediate ? '(R2, old image)' : t === final ? '(R2, new image)' : t));
    };
    expect(await lifted(0)).toEqual(['(R2, new image)']);
    expect(await lifted(30_000)).toEqual(['(R2, old image)', '(R2, new image)']);
  });

  it('the gate at a release change of an InPlace NodePool mid-upgrade: HyperShift shows only the upgrade\'s progress, so the hand-off waits for a target config to show and the hold for it to move; never a target of the new release with the old image', async () => {
    const name = 'inp';
    add(name, 'InPlace', { img: image('1') });
    standIn = new HyperShiftStandIn({ server, clock, configMapLagMs: 30_000, reconcileDelayMs: 1000, nodeUpgradeMs: 6 * MIN });
    standIn.start();
    const gate = { management: fleet, nodePoolNamespace: NS, nodePoolName: name, hcpNamespace: hcpNamespace(NS, name), layer: 'provider', maxHoldSeconds: 3600, now: () => new Date(clock.now()), imageFor: (k: ImageKey) => ({ image: k.releaseImage === R2 ? image('3') : image('1') }) };
    const did = async () => (await settleGate(gate)).steps.map((s) => ('did' in s ? s.did : s.state));
    run(MIN);
    expect(await did()).toEqual(['Labelled', 'Consistent']);
    // An in-place upgrade of the NodePool's own (a new hand-off for R1), then its release changes through the admission mutation.
    setHandoff(name, image('2'));
    run(2 * MIN);
    expect(conditionOf(np(name), UPDATING_CONFIG)!.message).toMatch(/^Nodepool update in progress\. Target Config version: \w+\. Total Nodes: 2\. Upgraded: 0$/);
    const old = np(name);
    const ops = [{ op: 'replace', path: '/spec/release/image', value: R2 }, ...admitNodePoolUpdate(old as never, { ...old, spec: { ...old.spec, release: { image: R2 } } } as never, new Date(clock.now()), 3600)];
    await fleet.request('PATCH', fleet.path(NODEPOOLS, NS, name), ops, 'application/json-patch+json');
    expect(np(name).metadata!.annotations![TARGET_SEEN_ANNOTATION]).toBeUndefined(); // nothing to record: the message has no hash
    const label = new Map([
      [configHashes(mcoRawConfig([handoff(name, image('2'))]), standIn.versionOf(R1)).payload, '(R1, image 2)'],
      [configHashes(mcoRawConfig([handoff(name, image('2'))]), standIn.versionOf(R2)).payload, '(R2, image 2 built for R1)'],
      [configHashes(mcoRawConfig([handoff(name, image('3'))]), standIn.versionOf(R2)).payload, '(R2, image 3)'],
    ]);
    const targets: string[] = [];
    const steps: string[] = [];
    for (let t = 0; t < 40 * MIN; t += 10_000) {
      if (t % 30_000 === 0) for (const s of await did()) if (steps[steps.length - 1] !== s) steps.push(s);
      clock.advance(10_000);
      const p = standIn.view(`${NS}/${name}`)!.target!.payload;
      const l = label.get(p) ?? `other ${p}`;
      if (targets[targets.length - 1] !== l) targets.push(l);
    }
    expect(targets).toEqual(['(R1, image 2)', '(R2, image 3)']);
    // Emptied while held (an expiry rolls the release's own OS), noted once a target shows, handed off, lifted once the target moved.
    expect(steps.filter((s) => !['Waiting', 'Paused'].includes(s))).toEqual(['Neutralised', 'Noted', 'HandedOff', 'Unpaused', 'Consistent']);
    expect(np(name).status!.version).toBe(standIn.versionOf(R2));
  });

  it('NodeTuning disabled: HyperShift ignores the hand-off', () => {
    add('notune', 'Replace', { img: image('1'), disabled: ['NodeTuning'] });
    standIn = new HyperShiftStandIn({ server, clock });
    standIn.start();
    run(MIN);
    setHandoff('notune', image('2'));
    run(MIN);
    expect(standIn.view(`${NS}/notune`)!.rolling).toBe(false);
    expect(np('notune').metadata!.annotations![CURRENT_CONFIG_ANNOTATION]).toBe(hashSimple(''));
  });
});

describe('the invariant recorder', () => {
  let server: ApiTestServer;
  let clock: SimClock;
  let standIn: HyperShiftStandIn;
  let recorder: InvariantRecorder;
  let fleet: Kube;
  const NS = 'clusters';
  const img = (release: string) => `quay.example.com/provider/os@sha256:${(release === R1 ? 'e' : 'f').repeat(64)}`;

  beforeEach(async () => {
    clock = new SimClock();
    server = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet' }, { name: HUMAN_USER, token: 'admin' }], clock: () => new Date(clock.now()) });
    server.registerType(NODEPOOL_TYPE);
    server.registerType(HOSTEDCLUSTER_TYPE);
    server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    for (const n of ['a', 'b', 'c']) {
      server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hcpNamespace(NS, n) } });
      server.store.put({ apiVersion: API, kind: 'HostedCluster', metadata: { name: n, namespace: NS }, spec: {} });
      server.store.put({ apiVersion: API, kind: 'NodePool', metadata: { name: n, namespace: NS }, spec: { clusterName: n, release: { image: R1 }, replicas: 1, management: { upgradeType: 'Replace' } } });
      server.store.put(providerHandoff(hcpNamespace(NS, n), n, img(R1), R1));
    }
    standIn = new HyperShiftStandIn({ server, clock, machineBootMs: 5 * MIN });
    recorder = new InvariantRecorder({ server, clock, standIn, fleetWriters: [FLEET_USER], maxConcurrency: 2, maxHoldSeconds: 3600, maxFailures: 0, progressDeadlineMs: 30 * MIN, imageRelease: (i) => (i === img(R1) ? R1 : i === img(R2) ? R2 : undefined) });
    standIn.start();
    recorder.start();
    fleet = new Kube(server.kubeConfig(FLEET_USER));
    clock.advance(MIN);
  });
  afterEach(async () => {
    recorder.stop();
    standIn.stop();
    await server.stop();
  });

  const cm = (n: string) => server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: hcpNamespace(NS, n), name: `on-cluster-build-os-image-${n}` })!;
  const writeHandoff = (n: string, image: string) => fleet.update({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, { ...providerHandoff(hcpNamespace(NS, n), n, image, R1), metadata: { ...cm(n).metadata! } } as any);

  it('counts NodePools rolling because of fleet writes, at the write that starts each, until HyperShift reports them done', async () => {
    await writeHandoff('a', img(R2).replace('f', 'd'));
    await writeHandoff('b', img(R2).replace('f', 'd'));
    expect(recorder.violations).toEqual([]);
    await writeHandoff('c', img(R2).replace('f', 'd'));
    expect(recorder.violations).toEqual([expect.objectContaining({ property: 1, write: expect.stringMatching(new RegExp(`^${FLEET_USER} MODIFIED ConfigMap clusters-c/on-cluster-build-os-image-c rv=\\d+$`)), message: expect.stringMatching(/^3 NodePools rolling because of the fleet > maxConcurrency 2/) })]);
    for (let i = 0; i < 20; i++) clock.advance(MIN), recorder.tick();
    expect(recorder.rollingNow()).toEqual([]);
    expect(recorder.log.filter((l) => l.startsWith('succeeded')).length).toBe(3);
    // A human's change is not the fleet's.
    await new Kube(server.kubeConfig(HUMAN_USER)).update({ group: '', version: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true }, { ...cm('a'), data: { config: 'x: 1\n' } } as any);
    expect(recorder.rollingNow()).toEqual([]);
  });

  it('finds a NodePool outside the canaries started before every canary succeeded', async () => {
    const canaryFirst = new InvariantRecorder({ server, clock, standIn, fleetWriters: [FLEET_USER], canaries: new Set([`${NS}/a`]) });
    canaryFirst.start();
    try {
      await writeHandoff('b', img(R2).replace('f', 'd'));
      expect(canaryFirst.violations.map((v) => `${v.property} ${v.message}`)).toEqual(['2 clusters/b (not a canary) started before every canary succeeded (1 pending, e.g. clusters/a)']);
      await writeHandoff('a', img(R2).replace('f', 'd'));
      for (let i = 0; i < 20; i++) clock.advance(MIN), canaryFirst.tick();
      await writeHandoff('c', img(R2).replace('f', 'd'));
      expect(canaryFirst.violations.length).toBe(1);
    } finally {
      canaryFirst.stop();
    }
  });

  it('finds a hold that never expires or outlives the bound, an unpaused NodePool on another release’s image, and a start after a halt', async () => {
    await fleet.mergePatch(NODEPOOLS, 'a', NS, { spec: { pausedUntil: 'true' } });
    await fleet.mergePatch(NODEPOOLS, 'b', NS, { spec: { pausedUntil: new Date(clock.now() + 3600_000).toISOString() } });
    await fleet.mergePatch(NODEPOOLS, 'c', NS, { spec: { pausedUntil: new Date(clock.now() + 3601_000).toISOString() } });
    expect(recorder.violations.map((v) => `${v.property} ${v.message}`)).toEqual([
      '5 clusters/a: pausedUntil "true" holds until someone removes it',
      `5 clusters/c: pausedUntil ${new Date(clock.now() + 3601_000).toISOString()} is later than now + 3600s`,
    ]);
    recorder.violations.length = 0;
    // The release moves while b is held (fine); the hold expires with the old image in place: found by time alone.
    await fleet.mergePatch(NODEPOOLS, 'b', NS, { spec: { release: { image: R2 } } });
    expect(recorder.violations).toEqual([]);
    clock.advance(3600_000);
    recorder.tick();
    // Told at the first write after expiry: HyperShift's own requeue at pausedUntil (no one else wrote).
    expect(recorder.violations).toEqual([expect.objectContaining({ property: 4, write: expect.stringMatching(/^\(store\) MODIFIED NodePool clusters\/b rv=/), message: `clusters/b: not paused on release ${R2} with a hand-off image built for ${R1}` })]);
    recorder.violations.length = 0;
    // A failure beyond maxFailures (0) halts: the next start is a violation until resumed.
    await fleet.mergePatch(NODEPOOLS, 'a', NS, { spec: { pausedUntil: null } });
    standIn.fail(`${NS}/c`, 'never joins');
    await fleet.mergePatch(NODEPOOLS, 'c', NS, { spec: { pausedUntil: null } });
    await writeHandoff('c', img(R2).replace('f', '9'));
    for (let i = 0; i < 40; i++) clock.advance(MIN), recorder.tick();
    expect(recorder.isHalted).toBe(true);
    await writeHandoff('a', img(R2).replace('f', '8'));
    expect(recorder.violations.map((v) => v.property)).toContain(3);
    recorder.resumed();
    recorder.violations.length = 0;
    await writeHandoff('a', img(R2).replace('f', '7'));
    expect(recorder.violations.filter((v) => v.property === 3)).toEqual([]);
  });
});


/** The fleet's namespace in the scenarios (its rollout ConfigMap). */
const FLEET_NS = 'on-cluster-build-fleet';
/** runFleet options for a rollout policy; the engine is handed to `onEngine`. */
const withPolicy = (policy: RolloutPolicy, onEngine?: (e: RolloutEngine) => void) => (ctx: ScenarioContext) => {
  if (!ctx.server.store.get({ apiVersion: 'v1', kind: 'Namespace', name: FLEET_NS })) ctx.server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: FLEET_NS } });
  return { rollout: { policy, namespace: FLEET_NS, ...(onEngine ? { onEngine } : {}) }, waitingRecheckMs: MIN };
};
/** A human's `on-cluster-build fleet-rollout <action>`: the command's own write (command.ts applyAction through updateControl). */
const command = (ctx: ScenarioContext, action: 'pause' | 'resume' | 'rollback') => updateControl(ctx.human, FLEET_NS, (c) => applyAction(action, c, 'sre', ctx.clock.now()));

const clusters = Math.max(1, Math.round(NODEPOOLS_AT_SCALE / 2));
const common = { hostedClusters: clusters, nodePoolsPerCluster: 2, replicas: 1, stepMs: 2 * MIN, machineBootMs: 8 * MIN, nodeUpgradeMs: 6 * MIN };

/**
 * The fleet component with its rollout policy against a scaled fleet: what the rollout work
 * fixed holds (the recorder finds no violation), and one fleet that admits every hand-off shows
 * the recorder still finds the old behaviour.
 */
describe('the fleet component under its default policy: the recorder finds nothing', () => {
  const bounds = { maxConcurrency: 50, perHostedCluster: 1, maxHoldSeconds: 3600 };
  const defaultPolicy = withPolicy(parsePolicy(undefined));

  it(`a fleet that admits every hand-off (no rollout policy) rolls every NodePool at once: the recorder finds it (${NODEPOOLS_AT_SCALE} NodePools)`, async () => {
    const r = await scenario({ ...common, bounds, maxSteps: 40, layer: NEW_LAYER });
    const p1 = r.violations.filter((v) => v.property === 1);
    expect(p1.length).toBeGreaterThan(0);
    expect(r.ctx.recorder.maxRolling).toBe(NODEPOOLS_AT_SCALE);
    expect(p1[0]!.write).toMatch(new RegExp(`^${FLEET_USER} ADDED ConfigMap `));
  }, SCALE_TIMEOUT_MS);

  it(`installing the fleet rolls no NodePool (${NODEPOOLS_AT_SCALE} NodePools)`, async () => {
    const r = await scenario({ ...common, bounds, maxSteps: 10, layer: NEW_LAYER, fleetOptions: defaultPolicy });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.starts).toBe(0);
  }, SCALE_TIMEOUT_MS);

  it(`a new provider layer rolls no NodePool (${NODEPOOLS_AT_SCALE} NodePools)`, async () => {
    const r = await scenario({ ...common, bounds, maxSteps: 10, initialLayer: OLD_LAYER, layer: NEW_LAYER, fleetOptions: defaultPolicy });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.starts).toBe(0);
  }, SCALE_TIMEOUT_MS);

  it('a release change is held until an RFC3339 time within the bound, and rolls once to the new release with its own image', async () => {
    const r = await scenario({
      hostedClusters: 5,
      nodePoolsPerCluster: 2,
      initialLayer: NEW_LAYER,
      layer: NEW_LAYER,
      bounds: { maxConcurrency: 50, perHostedCluster: 1, maxHoldSeconds: 3600 },
      stepMs: MIN,
      maxSteps: 40,
      fleetOptions: defaultPolicy,
      during: async (ctx, step) => {
        if (step === 0) for (const k of ctx.nodePools.filter((_, i) => i % 2 === 0).slice(0, 3)) await ctx.bump(k, R2);
      },
    });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.starts).toBe(3);
  }, 120_000);

  it('a z-stream release change while its image is still building: the stale hand-off is emptied while held and the same config comes back; every NodePool finishes, one per HostedCluster at a time, long before the hold bound', async () => {
    let engine: RolloutEngine | undefined;
    let landsAt = Infinity;
    const r = await scenario({
      hostedClusters: 3,
      nodePoolsPerCluster: 2,
      initialLayer: NEW_LAYER,
      layer: NEW_LAYER,
      bounds: { maxConcurrency: 50, perHostedCluster: 1, maxHoldSeconds: 3600 },
      stepMs: MIN,
      maxSteps: 40,
      zStream: true,
      // HyperShift's ConfigMap cache lags: it still shows the emptied hand-off's target when the same config is back and the hold lifted.
      configMapLagMs: 30_000,
      fleetOptions: (ctx) => ({ ...withPolicy(parsePolicy(undefined), (e) => (engine = e))(ctx), imageFor: (k: ImageKey) => (k.releaseImage === R2 && ctx.clock.now() < landsAt ? { pending: 'build running' } : { image: ctx.imageOf(k.releaseImage, k.arch, k.layer) }) }),
      during: async (ctx, step) => {
        if (step !== 0) return;
        landsAt = ctx.clock.now() + 3 * MIN;
        for (const k of ctx.nodePools) await ctx.bump(k, R2);
      },
      until: (ctx) => (engine?.current()?.summary.succeeded ?? 0) === ctx.nodePools.length,
    });
    expect(r.violations).toEqual([]);
    expect(engine!.current()!.summary).toMatchObject({ succeeded: 6, rolling: 0 });
    // Every hold was lifted by the gate, none expired (maxHoldSeconds is an hour; the scenario ran at most 40 minutes).
    for (const k of r.ctx.nodePools) expect(r.ctx.server.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', namespace: k.slice(0, k.indexOf('/')), name: k.slice(k.indexOf('/') + 1) })!.spec?.pausedUntil).toBeUndefined();
    expect(r.ctx.logs.some((l) => l.msg === 'gate Neutralised')).toBe(true);
  }, 120_000);

  it('a build that does not land by maxHoldSeconds: the hold ends with the new release on its own OS, never the old image', async () => {
    const r = await scenario({
      hostedClusters: 2,
      nodePoolsPerCluster: 1,
      initialLayer: NEW_LAYER,
      layer: NEW_LAYER,
      bounds: { maxHoldSeconds: 1800 },
      stepMs: 5 * MIN,
      maxSteps: 12,
      fleetOptions: (ctx) => ({ ...defaultPolicy(ctx), imageFor: (k: ImageKey) => (k.releaseImage === R2 ? { pending: 'build Job Pending: no node of arch arm64' } : { image: ctx.imageOf(k.releaseImage, k.arch, k.layer) }) }),
      during: async (ctx, step) => {
        if (step === 0) await ctx.bump(ctx.nodePools[0]!, R2);
      },
      until: () => false,
    });
    expect(r.violations).toEqual([]);
    expect(r.ctx.logs.some((l) => l.msg === 'gate TimedOut' && l.nodePool === r.ctx.nodePools[0])).toBe(true);
  }, 120_000);
});

/**
 * The Done-when scenarios: canaries by `hostedClusterLabels`/`canary`, failures by `failing`, the
 * policy by `fleetOptions`, human commands (the rollout command's own write) and crashes in `during`.
 */
describe('fleet rollouts under the rollout policy (the Done-when scenarios)', () => {
  const CANARY = { 'provider.example.com/ring': 'canary' };
  const progressive = (maxFailures = 3, maxConcurrency = 50) => parsePolicy({ type: 'Progressive', canaries: [{ matchLabels: CANARY }], maxConcurrency, maxFailures, progressDeadline: '2h' });
  const canaryOpts = { hostedClusterLabels: (c: number) => (c < 5 ? CANARY : {}), canary: (l: Record<string, string>) => l['provider.example.com/ring'] === 'canary' };
  /** Five NodePools of HostedClusters 5.. (not canaries), among the first 200 after the canaries, InPlace (odd index: a failure is reported, not only a deadline). */
  const FAILING = [0, 1, 2, 3, 4].map((i) => 11 + 2 * Math.floor((i * (Math.min(NODEPOOLS_AT_SCALE, 210) - 12)) / 10));
  const bounds = (maxFailures: number, maxConcurrency = 50) => ({ maxConcurrency, perHostedCluster: 1, maxFailures, progressDeadlineMs: 2 * 3600_000, maxHoldSeconds: 3600 });

  it(`Progressive, 5 canary HostedClusters, maxConcurrency 50, maxFailures 3 (${NODEPOOLS_AT_SCALE} NodePools): never more than 50 rolling; canaries first; 5 failing after the canaries halt it at the fourth failure and nothing starts after; resume completes it`, async () => {
    let engine: RolloutEngine | undefined;
    const failing = new Set(FAILING);
    let haltedAt: { starts: number; reason: string } | undefined;
    let resumed = false;
    const r = await scenario({
      ...common,
      ...canaryOpts,
      initialLayer: OLD_LAYER,
      layer: NEW_LAYER,
      bounds: bounds(3),
      maxSteps: 400,
      failing: (_k, i) => (failing.has(i) ? 'failed to rebase: error pulling image: unauthorized' : undefined),
      fleetOptions: withPolicy(progressive(), (e) => (engine = e)),
      during: async (ctx) => {
        const halted = engine?.current()?.halted;
        if (halted && !haltedAt) haltedAt = { starts: ctx.recorder.starts, reason: halted };
        // Resume once the halt held through what was in flight (nothing rolling) and some time after.
        if (haltedAt && !resumed && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling()) {
          expect(ctx.recorder.starts).toBe(haltedAt.starts);
          expect(ctx.recorder.isHalted).toBe(true);
          await command(ctx, 'resume');
          ctx.recorder.resumed();
          resumed = true;
        }
      },
      until: (ctx) => resumed && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling() && (engine?.current()?.summary.pending ?? 1) === 0,
    });
    expect(r.violations).toEqual([]);
    // Failures are seen as HyperShift reports them: the halt comes with the fourth (or with the fifth, when both were in flight and reported in one step).
    expect(haltedAt?.reason).toMatch(/^[45] NodePools failed, more than maxFailures 3: /);
    expect(r.ctx.recorder.maxRolling).toBeLessThanOrEqual(50);
    // Every NodePool but the failing ones is on the new layer.
    const ok = r.ctx.recorder.log.filter((l) => l.startsWith('succeeded')).length;
    expect(ok).toBe(NODEPOOLS_AT_SCALE - failing.size);
    expect(engine!.current()!.summary.failed).toBe(failing.size);
  }, SCALE_TIMEOUT_MS);

  it(`Progressive: a failing canary halts the rollout before any other NodePool starts (${NODEPOOLS_AT_SCALE} NodePools)`, async () => {
    let engine: RolloutEngine | undefined;
    const r = await scenario({
      ...common,
      ...canaryOpts,
      initialLayer: OLD_LAYER,
      layer: NEW_LAYER,
      bounds: bounds(3),
      maxSteps: 60,
      failing: (_k, i) => (i === 3 ? 'failed to rebase: error pulling image: unauthorized' : undefined),
      fleetOptions: withPolicy(progressive(), (e) => (engine = e)),
    });
    expect(r.violations).toEqual([]);
    expect(engine!.current()!.halted).toMatch(/canar/);
    expect(r.ctx.recorder.starts).toBe(10);
    expect(r.ctx.recorder.log.filter((l) => l.startsWith('start') && !/hc-000[0-4]-/.test(l))).toEqual([]);
  }, 300_000);

  /** The rollback's bound: below the non-canary HostedClusters of the default scale (45), so the bound fills before the rollback. */
  const ROLLBACK_BOUND = Math.min(40, Math.max(1, Math.floor(NODEPOOLS_AT_SCALE / 2) - 6));
  it(`rollback returns every changed NodePool to its previous image under the same bound (${NODEPOOLS_AT_SCALE} NodePools, maxConcurrency ${ROLLBACK_BOUND})`, async () => {
    let engine: RolloutEngine | undefined;
    let rolledBack = false;
    const r = await scenario({
      ...common,
      ...canaryOpts,
      initialLayer: OLD_LAYER,
      layer: NEW_LAYER,
      bounds: bounds(3, ROLLBACK_BOUND),
      maxSteps: 400,
      fleetOptions: withPolicy(progressive(3, ROLLBACK_BOUND), (e) => (engine = e)),
      during: async (ctx) => {
        // Rolled back when the bound is full (the canaries done, the bound's worth rolling forward): the finished canaries' rollbacks must wait for slots.
        if (!rolledBack && ctx.recorder.rollingNow().length >= ROLLBACK_BOUND) {
          await command(ctx, 'rollback');
          ctx.recorder.newRollout();
          rolledBack = true;
        }
      },
      until: (ctx) => rolledBack && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling() && engine!.rollbackKeys().length === 0,
    });
    expect(r.violations).toEqual([]);
    expect(rolledBack).toBe(true);
    expect(r.ctx.recorder.maxRolling).toBe(ROLLBACK_BOUND);
    // The bound was reached: rollbacks waited for a slot (and every one was written later: no hand-off carries the new layer).
    expect(r.ctx.logs.filter((l) => l.msg === 'rollback deferred' && String(l.message).startsWith(`maxConcurrency ${ROLLBACK_BOUND} reached`)).length).toBeGreaterThan(0);
    // Every rollback finished as HyperShift reports it (none failed by the deadline).
    expect(engine!.current()!.summary.failed).toBe(0);
    // Every hand-off carries the old layer's image again.
    const store = r.ctx.server.store;
    const onNew = r.ctx.nodePools.filter((k) => {
      const name = k.slice(k.indexOf('/') + 1);
      const cm = store.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: `clusters-${name.replace(/-pool-\d+$/, '')}`, name: `on-cluster-build-os-image-${name}` });
      return (cm?.data?.config ?? '').includes(r.ctx.imageOf(R1, 'amd64', NEW_LAYER));
    });
    expect(onNew).toEqual([]);
    expect(engine!.current()!.rolledBack).toBeDefined();
  }, SCALE_TIMEOUT_MS);

  it(`installing the fleet under Progressive changes no NodePool before its policy does (${NODEPOOLS_AT_SCALE} NodePools)`, async () => {
    const r = await scenario({ ...common, ...canaryOpts, layer: NEW_LAYER, bounds: bounds(3), maxSteps: 400, fleetOptions: withPolicy(progressive()) });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.maxRolling).toBeLessThanOrEqual(50);
    expect(r.ctx.recorder.starts).toBe(NODEPOOLS_AT_SCALE);
  }, SCALE_TIMEOUT_MS);

  it('default policy (RideReleaseChange): a new layer causes 0 rollouts; each next release bump causes exactly one, with the new layer on the new release', async () => {
    const bumped = 20;
    let bumpedAt = -1;
    const r = await scenario({
      ...common,
      hostedClusters: 20,
      initialLayer: OLD_LAYER,
      layer: NEW_LAYER,
      bounds: { maxConcurrency: 50, perHostedCluster: 1, maxHoldSeconds: 3600 },
      maxSteps: 60,
      fleetOptions: withPolicy(parsePolicy(undefined)),
      during: async (ctx, step) => {
        if (step === 3) {
          expect(ctx.recorder.starts).toBe(0);
          for (const k of ctx.nodePools.slice(0, bumped)) await ctx.bump(k, R2);
          bumpedAt = step;
        }
      },
      until: (ctx) => bumpedAt >= 0 && ctx.recorder.rollingNow().length === 0 && !ctx.standIn.anyRolling(),
    });
    expect(r.violations).toEqual([]);
    expect(r.ctx.recorder.starts).toBe(bumped);
    const store = r.ctx.server.store;
    for (const k of r.ctx.nodePools) {
      const name = k.slice(k.indexOf('/') + 1);
      const cm = store.get({ apiVersion: 'v1', kind: 'ConfigMap', namespace: `clusters-${name.replace(/-pool-\d+$/, '')}`, name: `on-cluster-build-os-image-${name}` })!;
      const i = r.ctx.nodePools.indexOf(k);
      expect(cm.data!.config).toContain(i < bumped ? r.ctx.imageOf(R2, 'amd64', NEW_LAYER) : r.ctx.imageOf(R1, 'amd64', OLD_LAYER));
    }
  }, 300_000);

  const SEEDS = Number(process.env.FLEET_ROLLOUT_SEEDS ?? 3);
  it(`randomized schedules (${SEEDS} seeds: build times, fleet crashes, the bound reached, human pauses): never unpaused on (R, image built for R' != R); no pausedUntil we wrote is "true" or later than now + bound`, async () => {
    for (let seed = 1; seed <= SEEDS; seed++) {
      const g = rng(seed * 7919);
      const lands = new Map<string, number>();
      const r = await scenario({
        hostedClusters: 8,
        nodePoolsPerCluster: 2,
        replicas: 1,
        initialLayer: OLD_LAYER,
        layer: NEW_LAYER,
        bounds: { maxConcurrency: 4, perHostedCluster: 1, maxHoldSeconds: 1800 },
        stepMs: 3 * MIN,
        maxSteps: 50,
        machineBootMs: 8 * MIN,
        nodeUpgradeMs: 6 * MIN,
        configMapLagMs: g.int(3) * 20_000,
        fleetOptions: (ctx) => ({
          ...withPolicy(parsePolicy(g.next() < 0.5 ? undefined : { type: 'Progressive', maxConcurrency: 4 }))(ctx),
          // Build times: an image lands at a random time after it is first asked for (some only after the bound).
          imageFor: (k: ImageKey) => {
            const id = `${k.releaseImage} ${k.arch} ${k.layer}`;
            if (!lands.has(id)) lands.set(id, ctx.clock.now() + g.int(50) * MIN);
            return ctx.clock.now() >= lands.get(id)! ? { image: ctx.imageOf(k.releaseImage, k.arch, k.layer) } : { pending: 'build running' };
          },
        }),
        during: async (ctx, step) => {
          const x = g.next();
          if (x < 0.15) await ctx.bump(g.pick(ctx.nodePools), g.next() < 0.5 ? R2 : R1);
          else if (x < 0.22) {
            await ctx.crash();
            ctx.clock.advance(g.int(20) * MIN);
            ctx.recorder.tick();
            ctx.restart();
          } else if (x < 0.27) await ctx.humanPause(g.pick(ctx.nodePools), g.next() < 0.5 ? null : new Date(ctx.clock.now() + g.int(40) * MIN).toISOString());
          if (step === 0) for (const k of ctx.nodePools.slice(0, 4)) await ctx.bump(k, R2);
        },
        until: () => false,
      });
      const found = r.violations.filter((v) => v.property === 4 || v.property === 5);
      expect({ seed, found }).toEqual({ seed, found: [] });
    }
  }, 900_000);
});
