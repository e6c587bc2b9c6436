/**
 * The fleet component's upgrade gate on the API test server, management API only.
 * HyperShift's NodePool controller is modelled by what it reacts to: its config hash is a function
 * of the NodePool's release and our hand-off ConfigMap's data (nodepool/config.go Hash(): the
 * release version and mcoRawConfig, which carries the hand-off), and it reconciles only while
 * the NodePool is not paused (support/util/pausereconcile.go). After every write anyone makes to
 * the management API (the test is the only other writer, and runs in sequence with the gate), the
 * test records that hash if the NodePool is not paused: every state the NodePool controller could
 * ever see.
 */
import { createHash } from 'node:crypto';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES } from '../../builder/clusters/kube.js';
import {
  admitNodePoolUpdate,
  GATED_LABEL,
  GateOptions,
  HANDOFF_RELEASE_ANNOTATION,
  HELD_SINCE_ANNOTATION,
  ImageKey,
  ImageState,
  isPaused,
  NODEPOOLS,
  PAUSED_FOR_ANNOTATION,
  PAUSED_UNTIL_ANNOTATION,
  REASON_ANNOTATION,
  RELEASED_FOR_ANNOTATION,
  settleGate,
  WANTED_RELEASE_ANNOTATION,
} from '../../builder/fleet/gate.js';
import { FLEET_CLUSTER_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { fleetPreconditions } from '../../builder/fleet/preconditions.js';
import { BLOCKED_ANNOTATION, CURRENT_CONFIG_ANNOTATION, TARGET_SEEN_ANNOTATION } from '../../builder/fleet/gate-names.js';
import type { RolloutDecision, RolloutRequest } from '../../builder/fleet/gate.js';
import { PULL_KEYS_CONFIGMAP } from '../../builder/api/types.js';
import { handoffName, handedOffImage, NO_PROVIDER_LAYER, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY } from '../../builder/controller/handoff.js';
import { providerHandoff, tenantHandoff } from './fleet-fixtures.js';

const HC_NS = 'clusters';
const HCP_NS = 'clusters-banana';
const FLEET_USER = 'system:serviceaccount:on-cluster-build:fleet';
const DIGEST = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('2')}`;
const R3 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('3')}`;
const imageOf = (release: string) => `quay.example.com/provider/rhcos@sha256:${createHash('sha256').update(`layered ${release}`).digest('hex')}`;
const BUILT_FROM = new Map([R1, R2, R3].map((r) => [imageOf(r), r]));
const rules = (rs: readonly { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[] }[], namespaces?: string[]) =>
  rs.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], ...(namespaces ? { namespaces } : {}) }));

describe('fleet upgrade gate', () => {
  let mgmt: ApiTestServer;
  let clock: Date;
  const now = () => clock;
  const advance = (s: number) => (clock = new Date(clock.getTime() + s * 1000));
  /** What the registry holds, by release: the seam a real fleet component answers from its build registry. */
  let images: Map<string, ImageState>;
  /** Every (release, hand-off) hash the NodePool controller could have seen, in order. */
  let seen: string[];
  const hashes = new Map<string, { release: string; image?: string }>();

  const np = (name = 'workers') => mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name, namespace: HC_NS }) as KubeObject & { spec: any };
  const cm = (name = 'workers') => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(name), namespace: HCP_NS }) as (KubeObject & { data: Record<string, string> }) | undefined;
  /** The NodePool controller's view: a hash when it would reconcile, nothing while paused. */
  const observe = () => {
    const n = np();
    if (isPaused(n.spec.pausedUntil, clock)) return;
    const config = cm()?.data?.config ?? '';
    const h = createHash('sha256').update(`${n.spec.release.image}\n${config}`).digest('hex').slice(0, 12);
    hashes.set(h, { release: n.spec.release.image, image: handedOffImage(config) });
    if (seen[seen.length - 1] !== h) seen.push(h);
  };
  const hashOf = (release: string, image: string | undefined) => [...hashes].find(([, v]) => v.release === release && v.image === image)?.[0];

  /** A Kube whose every write is followed by the NodePool controller's look. */
  class Observed extends Kube {
    override async request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
      const r = await super.request(method, path, body, contentType);
      if (method !== 'GET') observe();
      return r;
    }
  }
  let fleet: Kube;
  let admin: Kube;

  const gate = (over: Partial<GateOptions> = {}): GateOptions => ({
    management: fleet,
    nodePoolNamespace: HC_NS,
    nodePoolName: 'workers',
    hcpNamespace: HCP_NS,
    layer: 'provider-layer@sha256:' + 'a'.repeat(64),
    imageFor: (k: ImageKey) => images.get(k.releaseImage) ?? { pending: 'build queued' },
    maxHoldSeconds: 3600,
    now,
    ...over,
  });
  const did = async (o: GateOptions = gate()) => (await settleGate(o)).steps.map((s) => ('did' in s ? s.did : s.state));

  /** A release change as a user or the service makes it; through the admission mutation when `admitted`. */
  async function bump(release: string, admitted: boolean) {
    const old = np();
    const next = { ...old, spec: { ...old.spec, release: { image: release } } };
    const ops = [{ op: 'replace', path: '/spec/release/image', value: release }, ...(admitted ? admitNodePoolUpdate(old, next, clock, 3600) : [])];
    await admin.request('PATCH', admin.path(NODEPOOLS, HC_NS, 'workers'), ops, 'application/json-patch+json');
  }

  beforeEach(async () => {
    clock = new Date('2026-11-25T00:00:00Z');
    images = new Map([[R1, { image: imageOf(R1) }]]);
    seen = [];
    hashes.clear();
    mgmt = await startApiServer({
      identities: [
        { name: FLEET_USER, token: 'fleet-token', rules: [...rules(FLEET_CLUSTER_RULES), ...rules(HANDOFF_RULES, [HCP_NS])] },
        { name: 'system:admin', token: 'admin-token' },
      ],
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    for (const name of [HC_NS, HCP_NS]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'workers', namespace: HC_NS }, spec: { clusterName: 'banana', arch: 'amd64', release: { image: R1 }, replicas: 3 } });
    mgmt.store.put(providerHandoff(HCP_NS, 'workers', imageOf(R1), R1));
    fleet = new Observed(mgmt.kubeConfig(FLEET_USER));
    admin = new Observed(mgmt.kubeConfig('system:admin'));
    observe();
    expect(await did()).toEqual(['Labelled', 'Consistent']);
  });
  afterEach(async () => {
    await mgmt.stop();
  });

  it("a lift tells the NodePool's owner (an Event) only after a hold it gave a reason for: a routine lift is marked so", async () => {
    // The image for R2 exists before the bump: the webhook's hold is lifted at once, with no reason ever written.
    images.set(R2, { image: imageOf(R2) });
    await bump(R2, true);
    const quick = (await settleGate(gate())).steps.filter((s) => 'did' in s && s.did === 'Unpaused');
    expect(quick).toEqual([expect.objectContaining({ did: 'Unpaused', routine: true })]);
    // A hold that waited for a build: the reason was on the NodePool (UpgradeHeld), so its lift is no routine one.
    images.delete(R3);
    await bump(R3, true);
    expect(await did()).toEqual(['Neutralised', 'Paused', 'Waiting']);
    expect(np().metadata.annotations![REASON_ANNOTATION]).toBeDefined();
    images.set(R3, { image: imageOf(R3) });
    const told = (await settleGate(gate())).steps.filter((s) => 'did' in s && s.did === 'Unpaused');
    expect(told).toHaveLength(1);
    expect(told[0]).not.toHaveProperty('routine');
  });

  it('a release bump under the gate is one change of (release, hand-off), to an image built from the new release', async () => {
    await bump(R2, true);
    expect(np().spec.pausedUntil).toBe('2026-11-25T01:00:00Z'); // a time: the hold ends by itself
    expect(np().metadata.annotations![PAUSED_UNTIL_ANNOTATION]).toBe('2026-11-25T01:00:00Z');
    expect(await did()).toEqual(['Neutralised', 'Paused', 'Waiting']); // the old release's hand-off emptied; the reason annotation written
    expect(np().metadata.annotations![REASON_ANNOTATION]).toMatch(/^waiting for the image for \(release .*2{64}, amd64, layer provider-layer@sha256:a+\): build queued$/);
    advance(600);
    expect(await did()).toEqual(['Waiting']); // idempotent: nothing written
    images.set(R2, { image: imageOf(R2) });
    expect(await did()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
    expect(await did()).toEqual(['Consistent']);

    const before = hashOf(R1, imageOf(R1));
    const after = hashOf(R2, imageOf(R2));
    expect(before).toBeDefined();
    expect(after).toBeDefined();
    expect(seen).toEqual([before, after]);
    expect(BUILT_FROM.get(hashes.get(after!)!.image!)).toBe(R2);
    const n = np();
    expect(n.spec.pausedUntil).toBeUndefined();
    expect(Object.keys(n.metadata.annotations ?? {}).filter((k) => k.startsWith('on-cluster-build'))).toEqual([]);
    expect(cm()!.metadata.annotations![HANDOFF_RELEASE_ANNOTATION]).toBe(R2);
    expect(cm()!.metadata.labels).toEqual(providerHandoff(HCP_NS, 'workers', imageOf(R1), R1).metadata.labels);
    // Only the rights the fleet component is given, all used as granted, none refused.
    const mine = mgmt.audit.filter((e) => e.user === FLEET_USER && e.resource);
    expect(mine.filter((e) => (e.code ?? 0) >= 400 && e.code !== 404)).toEqual([]);
    expect([...new Set(mine.map((e) => `${e.verb} ${e.resource}`))].sort()).toEqual(['get configmaps', 'get nodepools', 'patch nodepools', 'update configmaps']);
  });

  it('without the admission mutation the gate reacts after the change: the NodePool controller can see the new release with the old image', async () => {
    await bump(R2, false);
    images.set(R2, { image: imageOf(R2) });
    await did();
    expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, imageOf(R1)), hashOf(R2, imageOf(R2))]);
  });

  it('a release that changes again while held: the hold follows it, one change to the newest', async () => {
    await bump(R2, true);
    await did();
    await bump(R3, true); // already paused (ours): the mutation leaves it; the gate moves its hold
    expect(await did()).toEqual(['Paused', 'Waiting']);
    expect(np().metadata.annotations![PAUSED_FOR_ANNOTATION]).toBe(R3);
    images.set(R2, { image: imageOf(R2) });
    expect(await did()).toEqual(['Waiting']);
    images.set(R3, { image: imageOf(R3) });
    expect(await did()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
    expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R3, imageOf(R3))]);
  });

  it('never unpauses a NodePool a human paused; hands off and leaves the pause', async () => {
    await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { pausedUntil: 'true' } });
    await bump(R2, true); // paused already: the mutation adds nothing
    expect(np().metadata.annotations?.[PAUSED_FOR_ANNOTATION]).toBeUndefined();
    expect(await did()).toEqual(['Neutralised', 'HeldByOther']); // whoever unpauses it gets the new release's own OS
    images.set(R2, { image: imageOf(R2) });
    expect(await did()).toEqual(['HandedOff', 'Consistent']);
    expect(np().spec.pausedUntil).toBe('true');
    // A human's time-bounded pause is not ours either.
    await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { pausedUntil: '2026-11-26T00:00:00Z' } });
    await bump(R3, true);
    expect(await did()).toEqual(['Neutralised', 'HeldByOther']);
    images.set(R3, { image: imageOf(R3) });
    expect(await did()).toEqual(['HandedOff', 'Consistent']);
    expect(np().spec.pausedUntil).toBe('2026-11-26T00:00:00Z');
    expect(seen).toEqual([hashOf(R1, imageOf(R1))]); // never reconciled while paused
  });

  it('a hold is bounded: released loudly at the maximum, not held again for that release, handed off when the image lands', async () => {
    await bump(R2, true);
    images.set(R2, { failed: 'provider layer: RUN dnf install agent: exit status 1' });
    expect(await did()).toEqual(['Neutralised', 'Paused', 'Waiting']);
    advance(3599);
    expect(await did()).toEqual(['Waiting']);
    expect(isPaused(np().spec.pausedUntil, clock)).toBe(true);
    advance(1);
    observe(); // HyperShift's own clock: the hold ends by itself, whether or not the fleet is there
    expect(await did()).toEqual(['TimedOut', 'Released']);
    const n = np();
    expect(n.spec.pausedUntil).toBeUndefined();
    expect(n.metadata.annotations![RELEASED_FOR_ANNOTATION]).toBe(R2);
    expect(n.metadata.annotations![HELD_SINCE_ANNOTATION]).toBeUndefined();
    expect(n.metadata.annotations![REASON_ANNOTATION]).toMatch(/^UpgradeGateTimedOut: held 3600s \(max 3600s\), the image for \(release .*2{64}, amd64, layer .*\) failed: provider layer: RUN dnf install agent: exit status 1; released: the new release rolls out with its own OS \(the previous release's hand-off was neutralised when the hold began\), and again when its own image lands$/);
    expect(await did()).toEqual(['Released']);
    images.set(R2, { image: imageOf(R2) });
    expect(await did()).toEqual(['HandedOff', 'Consistent']);
    // The price of the bound, as the reason says: two rollouts, the first to the release's own OS, never to R1's.
    expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, undefined), hashOf(R2, imageOf(R2))]);
    // The next release is gated again.
    await bump(R3, true);
    expect(np().spec.pausedUntil).toBe('2026-11-25T02:00:00Z');
  });

  it('a hold whose start cannot be read is released at once, saying so', async () => {
    await bump(R2, true);
    await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { metadata: { annotations: { [HELD_SINCE_ANNOTATION]: 'yesterday' } } });
    expect(await did()).toEqual(['Neutralised', 'TimedOut', 'Released']);
    expect(np().metadata.annotations![REASON_ANNOTATION]).toMatch(/^UpgradeGateTimedOut: held since an unreadable on-cluster-build\.pkogen\.io\/gate-held-since \(max 3600s\), waiting for/);
  });

  it('a human who lifts our hold overrides the gate for that release', async () => {
    await bump(R2, true);
    await did();
    await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { pausedUntil: null } });
    expect(await did()).toEqual(['Overridden', 'Released']);
    expect(np().spec.pausedUntil).toBeUndefined();
    expect(np().metadata.annotations![PAUSED_FOR_ANNOTATION]).toBeUndefined();
  });

  it('a concurrent edit between the gate reading and writing the NodePool is kept (the write is conditional)', async () => {
    await bump(R2, true);
    let calls = 0;
    const o = gate({
      imageFor: async () => {
        if (calls++ === 1) {
          // a human edits the NodePool while the gate decides (its second step: the first neutralised the hand-off)
          await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { replicas: 5 } });
        }
        return { pending: 'build running' };
      },
    });
    expect(await did(o)).toEqual(['Neutralised', 'Paused', 'Waiting']);
    expect(np().spec.replicas).toBe(5);
    expect(mgmt.audit.filter((e) => e.user === FLEET_USER && e.code === 409).length).toBe(1);
  });

  it("hands off without adding the per-HCP controller's NodePoolOSConfig label (a provider-only hand-off is not a tenant's)", async () => {
    await bump(R2, true);
    images.set(R2, { image: imageOf(R2) });
    expect(await did()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
    expect(cm()!.metadata.labels!['on-cluster-build.pkogen.io/nodepoolosconfig']).toBeUndefined();
    expect(handedOffImage(cm()!.data.config)).toBe(imageOf(R2));
  });

  it("a tenant-layered hand-off: the gate names the wanted release and waits for the per-HCP controller's verified hand-off, never writing an image itself", async () => {
    mgmt.store.put(tenantHandoff(HCP_NS, 'workers', 'my-config', imageOf(R1), R1));
    await bump(R2, true);
    images.set(R2, { image: imageOf(R2) }); // a provider image exists: not what a tenant NodePool runs
    expect(await did()).toEqual(['Wanted', 'Neutralised', 'Paused', 'Waiting']);
    expect(cm()!.metadata.annotations![WANTED_RELEASE_ANNOTATION]).toBe(R2);
    expect(cm()!.data.config).toBe(''); // R1's image is gone: an expiry rolls R2 with its own OS; the gate never writes a tenant image
    expect(cm()!.metadata.labels!['on-cluster-build.pkogen.io/nodepoolosconfig']).toBe('my-config');
    expect(np().metadata.annotations![REASON_ANNOTATION]).toMatch(/the per-HCP controller builds the tenant layer for .*2{64} and hands it off$/);
    expect(await did()).toEqual(['Waiting']);
    // The per-HCP controller hands off its verified build for R2 (as reconciler.ts does).
    const tenantR2 = `quay.example.com/tenant/os@sha256:${'7'.repeat(64)}`;
    const h = tenantHandoff(HCP_NS, 'workers', 'my-config', tenantR2, R2);
    h.metadata.annotations![WANTED_RELEASE_ANNOTATION] = R2;
    await admin.update(RESOURCES.configMaps, { ...h, metadata: { ...h.metadata, resourceVersion: cm()!.metadata.resourceVersion } });
    expect(await did()).toEqual(['Unpaused', 'Consistent']);
    expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, tenantR2)]);
  });

  it('leaves alone a NodePool that has no hand-off, and lifts a hold of its own if the hand-off goes', async () => {
    await bump(R2, true);
    await did();
    mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName('workers'), namespace: HCP_NS });
    expect(await did()).toEqual(['Forgot', 'NotGated']);
    expect(np().spec.pausedUntil).toBeUndefined();
    expect(await did(gate({ nodePoolName: 'absent' }))).toEqual(['NotGated']);
  });

  it("isPaused is upstream's ProcessPausedUntilField", () => {
    const t = new Date('2026-11-25T00:00:00Z');
    expect(isPaused(undefined, t)).toBe(false);
    for (const v of ['true', 'True', 'TRUE', 't', 'T', '1']) expect(isPaused(v, t)).toBe(true);
    for (const v of ['false', 'False', 'FALSE', 'f', 'F', '0', 'yes', '', '2026-11-25 01:00:00']) expect(isPaused(v, t)).toBe(false);
    expect(isPaused('2026-11-25T00:00:01Z', t)).toBe(true);
    expect(isPaused('2026-11-25T01:00:00+02:00', t)).toBe(false); // 2026-11-24T23:00Z: past
    expect(isPaused('2026-11-25T00:00:00Z', t)).toBe(false); // now.Before(t) is false at t
  });

  it('the admission mutation holds only gated NodePools whose release changes and that nobody paused', () => {
    const base = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: 'w', namespace: HC_NS, labels: { [GATED_LABEL]: 'true' } }, spec: { release: { image: R1 } } };
    const to = (o: any) => ({ ...base, ...o, spec: { ...base.spec, ...o.spec }, metadata: { ...base.metadata, ...o.metadata } });
    expect(admitNodePoolUpdate(base, to({ spec: { release: { image: R2 } } }), clock, 3600).map((p) => p.path)).toEqual([
      '/metadata/annotations',
      '/metadata/annotations/on-cluster-build.pkogen.io~1gate-paused-for',
      '/metadata/annotations/on-cluster-build.pkogen.io~1gate-held-since',
      '/metadata/annotations/on-cluster-build.pkogen.io~1gate-paused-until',
      '/spec/pausedUntil',
    ]);
    expect(admitNodePoolUpdate(base, to({ spec: { replicas: 4 } }), clock, 3600)).toEqual([]);
    expect(admitNodePoolUpdate(base, to({ metadata: { labels: {} }, spec: { release: { image: R2 } } }), clock, 3600)).toEqual([]);
    expect(admitNodePoolUpdate(base, to({ spec: { release: { image: R2 }, pausedUntil: 'false' } }), clock, 3600)).toEqual([]);
    expect(admitNodePoolUpdate(base, to({ metadata: { annotations: { [RELEASED_FOR_ANNOTATION]: R2 } }, spec: { release: { image: R2 } } }), clock, 3600)).toEqual([]);
  });
  describe('with a provider layer', () => {
    const published = () => parseProviderImages(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: HCP_NS }) as KubeObject | undefined);
    const fresh = () => {
      mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName('workers'), namespace: HCP_NS }, { force: true });
      observe();
    };

    it('gives a NodePool without a hand-off the provider image, without holding it while the image is built', async () => {
      fresh();
      images = new Map();
      expect(await did(gate({ providerLayer: true }))).toEqual(['Waiting']);
      expect(np().spec.pausedUntil).toBeUndefined(); // nothing changes on it until the image lands: no reason to freeze its scaling
      expect(cm()).toBeUndefined();
      expect(published()).toBeUndefined();
      images.set(R1, { image: imageOf(R1) });
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'HandedOff', 'Consistent']);
      expect(published()!.entries.get('workers')).toEqual({ release: R1, arch: 'amd64', image: imageOf(R1) });
      expect(handedOffImage(cm()!.data.config)).toBe(imageOf(R1));
      expect(cm()!.metadata.labels).toEqual(providerHandoff(HCP_NS, 'workers', imageOf(R1), R1).metadata.labels);
      expect(cm()!.metadata.annotations).toEqual({ [HANDOFF_RELEASE_ANNOTATION]: R1 });
    });

    it('a release bump of a NodePool without a hand-off, held by the admission mutation, is still one change: the hand-off is created with the new image, then the hold lifted', async () => {
      fresh();
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'HandedOff', 'Consistent']);
      fresh(); // e.g. the NodePool's hand-off was removed while the fleet was down
      seen = [];
      observe();
      const before = seen[0]!;
      await bump(R2, true);
      expect(await did(gate({ providerLayer: true }))).toEqual(['Paused', 'Waiting']);
      images.set(R2, { image: imageOf(R2) });
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'HandedOff', 'Unpaused', 'Consistent']);
      expect(seen).toEqual([before, hashOf(R2, imageOf(R2))]);
      expect(published()!.entries.get('workers')!.release).toBe(R2);
    });

    it('a tenant-layered NodePool gets the provider image for its new release published (its FROM) and the wanted release', async () => {
      mgmt.store.put(tenantHandoff(HCP_NS, 'workers', 'my-config', 'quay.example.com/tenant@' + DIGEST('7'), R1));
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'Consistent']);
      await bump(R2, true);
      expect(await did(gate({ providerLayer: true }))).toEqual(['Wanted', 'Neutralised', 'Paused', 'Waiting']);
      expect(published()!.entries.get('workers')!.release).toBe(R1);
      images.set(R2, { image: imageOf(R2) });
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'Waiting']);
      expect(published()!.entries.get('workers')).toEqual({ release: R2, arch: 'amd64', image: imageOf(R2) });
      expect(cm()!.data.config).toBe(''); // neutralised, never replaced by the gate: the per-HCP controller hands off its build
    });

    it('a new provider layer rolls provider-only hand-offs to its image (no hold: the release does not change); withdrawn, tenant builds stop waiting for it', async () => {
      expect(await did(gate({ providerLayer: true }))).toEqual(['Published', 'Consistent']);
      const layer2 = 'provider-layer@sha256:' + 'b'.repeat(64);
      const hotfix = imageOf(`${R1} hotfix`);
      images.set(R1, { image: hotfix });
      expect(await did(gate({ providerLayer: true, layer: layer2 }))).toEqual(['Published', 'HandedOff', 'Consistent']);
      expect(published()).toEqual({ layer: layer2, entries: new Map([['workers', { release: R1, arch: 'amd64', image: hotfix }]]) });
      expect(handedOffImage(cm()!.data.config)).toBe(hotfix);
      expect(np().spec.pausedUntil).toBeUndefined();
      // The provider removes the layer: the channel says so (the per-HCP controller stops waiting), hand-offs stay.
      expect(await did(gate())).toEqual(['Published', 'Consistent']);
      expect((mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: HCP_NS }) as any).data).toEqual({ [PROVIDER_LAYER_KEY]: NO_PROVIDER_LAYER });
      expect(await did(gate())).toEqual(['Consistent']);
    });
  });

  describe('the rollout hook', () => {
    /** A policy that records what it is asked and answers `answer`. */
    const policy = (answer: () => RolloutDecision) => {
      const asked: RolloutRequest[] = [];
      const started: RolloutRequest[] = [];
      return {
        asked,
        started,
        changes: () => asked.map((r) => r.change),
        over: { admitRollout: (r: RolloutRequest) => (asked.push(r), answer()), onRolloutStarted: (r: RolloutRequest) => void started.push(r) } as Partial<GateOptions>,
      };
    };
    const NOT_NOW = { admit: false as const, reason: 'wave 2 of 40: 50 NodePools rolling' };
    const ADMIT = { admit: true as const };

    it('a release change under handOffWhileHeld (RideReleaseChange): the hand-off written while held without asking, the policy asked before the lift; not admitted, held with its hand-off, no reason written', async () => {
      let answer: RolloutDecision = NOT_NOW;
      const p = policy(() => answer);
      const o = gate({ ...p.over, handOffWhileHeld: () => true });
      await bump(R2, true);
      images.set(R2, { image: imageOf(R2) });
      const reason = np().metadata.annotations![REASON_ANNOTATION];
      expect(await did(o)).toEqual(['HandedOff', 'Deferred']); // HyperShift never reported on this NodePool: nothing to wait for but the policy
      expect(handedOffImage(cm()!.data.config)).toBe(imageOf(R2));
      expect(p.changes()).toEqual(['release-change']); // asked once, at the lift
      expect(np().metadata.annotations![REASON_ANNOTATION]).toBe(reason);
      expect(await did(o)).toEqual(['Deferred']);
      expect(isPaused(np().spec.pausedUntil, clock)).toBe(true);
      answer = ADMIT;
      expect(await did(o)).toEqual(['Unpaused', 'Consistent']);
      expect(p.started.map((r) => r.change)).toEqual(['release-change']);
      expect(p.started[0]).toMatchObject({ image: imageOf(R2), releaseImage: R2 });
    });

    it('a release change: asked before the hand-off is written; not admitted, the NodePool stays held with a neutral hand-off until admitted', async () => {
      let answer: RolloutDecision = NOT_NOW;
      const p = policy(() => answer);
      await bump(R2, true);
      images.set(R2, { image: imageOf(R2) });
      expect(await did(gate(p.over))).toEqual(['Neutralised', 'Paused', 'Deferred']);
      expect(cm()!.data.config).toBe('');
      expect(isPaused(np().spec.pausedUntil, clock)).toBe(true);
      expect(np().metadata.annotations![REASON_ANNOTATION]).toBe('deferred by the rollout policy: wave 2 of 40: 50 NodePools rolling');
      expect(new Set(p.changes())).toEqual(new Set(['release-change']));
      expect(p.asked[0]).toMatchObject({ key: `${HC_NS}/workers`, image: imageOf(R2), releaseImage: R2 });
      expect(p.started).toEqual([]);
      answer = ADMIT;
      expect(await did(gate(p.over))).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
      expect(p.started.map((r) => r.change)).toEqual(['release-change']);
      expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, imageOf(R2))]);
    });

    it("an unheld NodePool on a new release with the old release's hand-off: emptying it rolls the NodePool, so it is asked of the policy (change neutralise) like any hand-off write", async () => {
      let answer: RolloutDecision = NOT_NOW;
      const p = policy(() => answer);
      await bump(R2, false); // no hold: the admission mutation was not in front (or the hold was lifted)
      expect(await did(gate(p.over))).toEqual(['Deferred']);
      expect(handedOffImage(cm()!.data.config)).toBe(imageOf(R1));
      expect(p.asked.map((r) => [r.change, r.image, r.releaseImage])).toEqual([['neutralise', '', R2]]);
      expect(p.started).toEqual([]);
      answer = ADMIT;
      expect(await did(gate(p.over))).toEqual(['Neutralised', 'Paused', 'Waiting']);
      expect(cm()!.data.config).toBe('');
      expect(p.started.map((r) => r.change)).toEqual(['neutralise']);
      // Held now: a stale hand-off is emptied without asking (nothing rolls while held).
      expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, imageOf(R1)), hashOf(R2, undefined)]);
    });

    it('a new provider layer: asked before the hand-off is rewritten; not admitted, nothing changes', async () => {
      const p = policy(() => NOT_NOW);
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Published', 'Consistent']);
      expect(p.asked).toEqual([]); // publishing for a provider-only NodePool changes nothing it runs
      const layer2 = 'provider-layer@sha256:' + 'b'.repeat(64);
      images.set(R1, { image: imageOf(`${R1} hotfix`) });
      expect(await did(gate({ providerLayer: true, layer: layer2, ...p.over }))).toEqual(['Published', 'Deferred']);
      expect(handedOffImage(cm()!.data.config)).toBe(imageOf(R1));
      expect(p.changes()).toEqual(['layer-change']);
      const q = policy(() => ADMIT);
      expect(await did(gate({ providerLayer: true, layer: layer2, ...q.over }))).toEqual(['HandedOff', 'Consistent']);
      expect(q.started.map((r) => r.change)).toEqual(['layer-change']);
      expect(np().spec.pausedUntil).toBeUndefined();
    });

    it('a first hand-off: asked before it is created; not admitted, the NodePool is neither held nor handed off', async () => {
      mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName('workers'), namespace: HCP_NS }, { force: true });
      const p = policy(() => NOT_NOW);
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Published', 'Deferred']);
      expect(cm()).toBeUndefined();
      expect(np().spec.pausedUntil).toBeUndefined();
      expect(p.changes()).toEqual(['first-handoff']);
      const q = policy(() => ADMIT);
      expect(await did(gate({ providerLayer: true, ...q.over }))).toEqual(['HandedOff', 'Consistent']);
      expect(q.started.map((r) => r.change)).toEqual(['first-handoff']);
    });

    it('a tenant-layered NodePool: asked before the provider image it builds FROM changes, and before the hold of its release change is lifted', async () => {
      mgmt.store.put(tenantHandoff(HCP_NS, 'workers', 'my-config', 'quay.example.com/tenant@' + DIGEST('7'), R1));
      let answer: RolloutDecision = NOT_NOW;
      const p = policy(() => answer);
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Deferred']);
      expect(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: HCP_NS })).toBeUndefined(); // no rebuild starts
      expect(p.changes()).toEqual(['first-handoff']);
      await bump(R2, true);
      images.set(R2, { image: imageOf(R2) });
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Published', 'Wanted', 'Neutralised', 'Paused', 'Waiting']);
      const t = tenantHandoff(HCP_NS, 'workers', 'my-config', 'quay.example.com/tenant@' + DIGEST('9'), R2);
      await admin.update(RESOURCES.configMaps, { ...t, metadata: { ...t.metadata, resourceVersion: cm()!.metadata.resourceVersion } });
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Paused', 'Deferred']);
      expect(isPaused(np().spec.pausedUntil, clock)).toBe(true);
      answer = ADMIT;
      expect(await did(gate({ providerLayer: true, ...p.over }))).toEqual(['Unpaused', 'Consistent']);
      expect(p.started.map((r) => [r.change, r.image])).toEqual([['release-change', 'quay.example.com/tenant@' + DIGEST('9')]]);
    });
  });

  describe('holds that expire', () => {
    it('a dead fleet: the hold ends by itself at its time, and the new release rolls with its own OS, never the old one', async () => {
      await bump(R2, true);
      expect(await did()).toEqual(['Neutralised', 'Paused', 'Waiting']);
      // The fleet is gone. HyperShift requeues at the time it was given (nodepool_controller.go) and reconciles.
      advance(3600);
      observe();
      expect(seen).toEqual([hashOf(R1, imageOf(R1)), hashOf(R2, undefined)]);
      expect(hashOf(R2, imageOf(R1))).toBeUndefined();
    });

    it('an older fleet\'s "true" becomes a time within the bound of its start; a lowered bound shortens it; a time a human set is theirs', async () => {
      await bump(R2, true);
      await did();
      await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { metadata: { annotations: { [PAUSED_UNTIL_ANNOTATION]: null } }, spec: { pausedUntil: 'true' } });
      advance(600);
      expect(await did()).toEqual(['Paused', 'Waiting']);
      expect(np().spec.pausedUntil).toBe('2026-11-25T01:00:00Z'); // HELD_SINCE + 3600 s, not now + 3600 s
      expect(np().metadata.annotations![PAUSED_UNTIL_ANNOTATION]).toBe('2026-11-25T01:00:00Z');
      expect(await did(gate({ maxHoldSeconds: 1800 }))).toEqual(['Paused', 'Waiting']);
      expect(np().spec.pausedUntil).toBe('2026-11-25T00:30:00Z');
      expect(await did(gate({ maxHoldSeconds: 1800 }))).toEqual(['Waiting']);
      await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { pausedUntil: '2026-11-25T06:00:00Z' } });
      expect(await did()).toEqual(['Overridden', 'Released']);
      expect(np().spec.pausedUntil).toBe('2026-11-25T06:00:00Z'); // not ours to lift
    });
  });

  describe('lifting only once HyperShift read the hand-off', () => {
    /** HyperShift's ConfigMap informer: what the NodePool controller reads the hand-off from. */
    let cached = '';
    const sync = () => (cached = cm()?.data?.config ?? '');
    const hashOfConfig = (c: string) => createHash('sha256').update(c).digest('hex').slice(0, 8);
    /** One NodePool reconcile as nodepool_controller.go does it: conditions (UpdatingConfig from the cache) first, then the pause check, then the rollout. */
    const reconcile = () => {
      const n = np() as any;
      const target = hashOfConfig(cached);
      const current = n.metadata.annotations?.[CURRENT_CONFIG_ANNOTATION];
      const updating = target !== current;
      n.status = { conditions: [updating ? { type: 'UpdatingConfig', status: 'True', reason: 'AsExpected', message: `Updating config in progress. Target config: ${target}` } : { type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }] };
      if (!isPaused(n.spec.pausedUntil, clock)) {
        n.metadata.annotations = { ...(n.metadata.annotations ?? {}), [CURRENT_CONFIG_ANNOTATION]: target };
        n.status = { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }] };
        rolledTo.push(cached);
      }
      mgmt.store.put(n);
    };
    let rolledTo: string[];
    beforeEach(() => {
      rolledTo = [];
      sync();
      reconcile();
    });

    it('HyperShift reading a stale cache keeps the hold; the target moving lifts it; the NodePool rolls once, to the new image', async () => {
      await bump(R2, true);
      expect(np().metadata.annotations![TARGET_SEEN_ANNOTATION]).toBe(`current:${hashOfConfig(cm()!.data.config)}`); // recorded by the admission mutation
      images.set(R2, { image: imageOf(R2) });
      expect(await did()).toEqual(['HandedOff', 'Waiting']); // a short wait: no reason written for it
      reconcile(); // the informer has not delivered the new hand-off yet
      expect(await did()).toEqual(['Waiting']);
      expect(isPaused(np().spec.pausedUntil, clock)).toBe(true);
      sync();
      reconcile(); // paused: the target moves, nothing rolls
      expect((np() as any).status.conditions[0].message).toBe(`Updating config in progress. Target config: ${hashOfConfig(cm()!.data.config)}`);
      expect(await did()).toEqual(['Unpaused', 'Consistent']);
      reconcile();
      expect(rolledTo.map(handedOffImage)).toEqual([imageOf(R1), imageOf(R2)]); // the first: the beforeEach's steady state
    });

    it('the target moves twice while the image is built (the neutral hand-off read): noted, and only a move after the hand-off lifts', async () => {
      await bump(R2, true);
      expect(await did()).toEqual(['Noted', 'Neutralised', 'Waiting']); // Noted: the target with the config it was shown for, and the reason, before the hand-off is emptied
      sync();
      reconcile(); // HyperShift reads the neutral hand-off
      expect(await did()).toEqual(['Noted', 'Waiting']);
      images.set(R2, { image: imageOf(R2) });
      expect(await did()).toEqual(['HandedOff', 'Waiting']); // a short wait: no reason written for it
      sync();
      reconcile();
      expect(await did()).toEqual(['Unpaused', 'Consistent']);
      reconcile();
      expect(rolledTo.map(handedOffImage)).toEqual([imageOf(R1), imageOf(R2)]);
    });

    it('releases sharing one OS image (a z-stream): the hand-off keeps its config, HyperShift hashes nothing new, so the hold is lifted without waiting for the target', async () => {
      await bump(R2, true);
      images.set(R2, { image: imageOf(R1) }); // the image for R2 is the one for R1
      expect(await did()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
      expect(cm()!.metadata.annotations![HANDOFF_RELEASE_ANNOTATION]).toBe(R2);
      reconcile();
      expect(rolledTo.map(handedOffImage)).toEqual([imageOf(R1), imageOf(R1)]);
    });

    it('a z-stream whose image is resolved after the release change: emptied while it is, written back the same, HyperShift never showed another target: lifted (the target was recorded with the config it was shown for)', async () => {
      await bump(R2, true);
      expect(await did()).toEqual(['Noted', 'Neutralised', 'Waiting']);
      expect(cm()!.data.config).toBe('');
      images.set(R2, { image: imageOf(R1) }); // resolved: the image for R2 is the one for R1; HyperShift has not reconciled meanwhile
      expect(await did()).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
      reconcile();
      expect(rolledTo.map(handedOffImage)).toEqual([imageOf(R1), imageOf(R1)]);
    });

    it('a z-stream whose image is resolved after the release change: emptied while it is, HyperShift showed the emptied config\'s target, written back the same: held until HyperShift shows the recorded target again, never rolled to the emptied config', async () => {
      await bump(R2, true);
      expect(await did()).toEqual(['Noted', 'Neutralised', 'Waiting']);
      sync();
      reconcile(); // HyperShift read the emptied hand-off: its target moved (held: no machine changes)
      images.set(R2, { image: imageOf(R1) });
      // The emptied config's target is recorded before the write back: the hold waits for HyperShift to move past it.
      expect(await did()).toEqual(['Noted', 'HandedOff', 'Waiting']);
      expect(np().spec.pausedUntil).toBeDefined();
      sync();
      reconcile(); // it read the config back: the recorded target again
      expect(await did()).toEqual(['Unpaused', 'Consistent']);
      reconcile();
      expect(rolledTo.map(handedOffImage)).toEqual([imageOf(R1), imageOf(R1)]);
    });

    it('a z-stream under a policy that defers it: nothing written (the hand-off is already its image), then one hand-off write and the lift', async () => {
      let answer: RolloutDecision = { admit: false, reason: 'maxConcurrency 50 reached' };
      const o = gate({ admitRollout: () => answer });
      await bump(R2, true);
      images.set(R2, { image: imageOf(R1) });
      const before = cm()!.metadata.resourceVersion;
      const reason = np().metadata.annotations![REASON_ANNOTATION];
      expect(await did(o)).toEqual(['Deferred']);
      expect(cm()!.metadata.resourceVersion).toBe(before); // not neutralised: at an expiry R2 rolls with its own image
      expect(np().metadata.annotations![REASON_ANNOTATION]).toBe(reason);
      answer = { admit: true };
      expect(await did(o)).toEqual(['HandedOff', 'Unpaused', 'Consistent']);
    });

    it('a target that never moves: the hold ends at its time, with the hand-off for the release in place', async () => {
      await bump(R2, true);
      images.set(R2, { image: imageOf(R2) });
      expect(await did()).toEqual(['HandedOff', 'Waiting']); // a short wait: no reason written for it
      advance(3600);
      expect(await did()).toEqual(['TimedOut', 'Consistent']);
      expect(np().metadata.annotations![REASON_ANNOTATION]).toMatch(/waiting for HyperShift to read it .*; released: the hand-off is for .*2{64}$/);
      expect(np().spec.pausedUntil).toBeUndefined();
    });
  });

  describe('preconditions', () => {
    const PUSH_REPO = 'quay.example.com/provider/rhcos';
    beforeEach(() => {
      mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
      mgmt.registerType({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, status: true });
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: HCP_NS }, spec: { releaseImage: R1 } });
      mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: HCP_NS }, data: { [PULL_KEYS_CONFIGMAP.key]: 'quay.example.com\nregistry.redhat.io\n' } });
      mgmt.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'm-1', labels: { 'kubernetes.io/arch': 'amd64' } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    });
    const pre = (repository = PUSH_REPO) => gate({ providerLayer: true, preconditions: fleetPreconditions({ management: fleet, repository, builds: 'nodes', cacheMs: 0 }) });

    it.each([
      ['the pull secret does not cover the provider repository', () => mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: HCP_NS }, data: { [PULL_KEYS_CONFIGMAP.key]: 'registry.redhat.io\n' } }), /^the HostedCluster pull secret \(Secret clusters-banana\/pull-secret\) has no credentials for quay\.example\.com\/provider\/rhcos/],
      ['NodeTuning is disabled', () => mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: HCP_NS }, spec: { releaseImage: R1, capabilities: { disabled: ['NodeTuning'] } } }), /^the HostedCluster disables the NodeTuning capability .*HyperShift ignores the hand-off ConfigMap$/],
      ['no management Node can build for the arch', () => mgmt.store.delete({ apiVersion: 'v1', kind: 'Node', name: 'm-1' }), /^no Ready, schedulable management cluster Node of architecture amd64/],
    ] as const)('%s: no hold, no hand-off, the reason on the NodePool', async (_, breakIt, why) => {
      expect(await did(pre())).toEqual(['Published', 'Consistent']);
      breakIt();
      expect(await did(pre())).toEqual(['Blocked', 'Blocked']);
      expect(np().metadata.labels?.[GATED_LABEL]).toBeUndefined(); // the admission mutation no longer selects it
      expect(np().metadata.annotations![BLOCKED_ANNOTATION]).toMatch(why);
      await bump(R2, true);
      expect(np().spec.pausedUntil).toBeUndefined();
      images.set(R2, { image: imageOf(R2) });
      expect(await did(pre())).toEqual(['Neutralised', 'Blocked']); // its hand-off for R1 goes (R2 with R1's OS is never run); no image for R2 is handed
      expect(cm()!.data.config).toBe('');
      expect(np().spec.pausedUntil).toBeUndefined();
      // A NodePool without a hand-off is given none.
      mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName('workers'), namespace: HCP_NS }, { force: true });
      expect(await did(pre())).toEqual(['Blocked']);
      expect(cm()).toBeUndefined();
    });

    it('a hold of ours is lifted when a precondition fails; mended, the NodePool is gated again', async () => {
      expect(await did(pre())).toEqual(['Published', 'Consistent']);
      await bump(R2, true);
      expect(await did(pre())).toEqual(['Neutralised', 'Paused', 'Waiting']);
      mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: HCP_NS }, data: { [PULL_KEYS_CONFIGMAP.unavailableKey]: 'the HostedCluster pull secret has more auth keys than the published list holds' } });
      expect(await did(pre())).toEqual(['Blocked', 'Blocked']);
      expect(np().spec.pausedUntil).toBeUndefined();
      expect(np().metadata.annotations![PAUSED_FOR_ANNOTATION]).toBeUndefined();
      expect(np().metadata.annotations![BLOCKED_ANNOTATION]).toMatch(/more auth keys than the published list holds$/);
      mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: HCP_NS }, data: { [PULL_KEYS_CONFIGMAP.key]: 'quay.example.com\n' } });
      images.set(R2, { image: imageOf(R2) });
      expect(await did(pre())).toEqual(['Labelled', 'Published', 'HandedOff', 'Consistent']);
      expect(np().metadata.annotations![BLOCKED_ANNOTATION]).toBeUndefined();
      // The fleet's reads for it: only what it is granted (FLEET_CLUSTER_RULES, HANDOFF_RULES).
      expect(mgmt.audit.filter((e) => e.user === FLEET_USER && (e.code === 401 || e.code === 403))).toEqual([]);
    });
  });

  describe('properties over randomized schedules', () => {
    /** mulberry32: a seeded, deterministic schedule. */
    const rng = (seed: number) => () => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    /** Unpaused while the hand-off carries an image built for another release than the NodePool's. */
    const violating = () => {
      const n = np();
      const c = cm();
      return !isPaused(n.spec.pausedUntil, clock) && !!c && (c.data?.config ?? '') !== '' && c.metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] !== n.spec.release.image;
    };

    it.each([1, 2, 3, 4, 5, 6, 7, 8])('seed %i: the fleet never makes (release R, image for R\' != R) unpaused, and settles out of it unless the policy defers that write; no hold it writes is "true" or past now + bound', async (seed) => {
      const r = rng(seed);
      const pick = <T,>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
      const problems: string[] = [];
      const MAX = 3600;
      // Every write the fleet makes is checked as it lands.
      class Checked extends Kube {
        override async request(method: string, path: string, body?: unknown, contentType?: string): Promise<unknown> {
          const before = violating();
          const out = await super.request(method, path, body, contentType);
          if (method === 'GET') return out;
          observe();
          if (!before && violating()) problems.push(`${method} ${path}: made (release, image of another release) unpaused`);
          const n = np();
          const ours = n.metadata.annotations?.[PAUSED_UNTIL_ANNOTATION];
          if (ours !== undefined && n.spec.pausedUntil === ours) {
            if (ours === 'true' || !(Date.parse(ours) <= clock.getTime() + MAX * 1000)) problems.push(`${method} ${path}: pausedUntil ${ours}`);
          }
          return out;
        }
      }
      const checked = new Checked(mgmt.kubeConfig(FLEET_USER));
      let admitAll = true;
      for (let i = 0; i < 120; i++) {
        const a = r();
        if (a < 0.2) {
          const to = pick([R1, R2, R3].filter((x) => x !== np().spec.release.image));
          await bump(to, r() < 0.9); // now and then without the admission mutation (webhook down, failurePolicy Ignore)
        } else if (a < 0.35) {
          const built = pick([R1, R2, R3]); // a build lands
          images.set(built, { image: imageOf(built) });
        }
        else if (a < 0.4) images.set(pick([R1, R2, R3]), { failed: 'exit status 1' });
        else if (a < 0.6) {
          advance(Math.floor(r() * 1500)); // the fleet may be down meanwhile: HyperShift's clock runs
          observe();
        } else if (a < 0.85) {
          admitAll = r() < 0.7;
          const o = gate({ management: checked, admitRollout: () => (admitAll ? { admit: true } : { admit: false, reason: 'not now' }) });
          const { steps } = await settleGate(o);
          const last = steps[steps.length - 1]!;
          // Unheld, emptying the stale hand-off is a rollout: only a policy that says not now leaves it (Deferred, with its reason).
          const deferred = !admitAll && 'state' in last && last.state === 'Deferred' && last.message === 'not now';
          if (violating() && !deferred) problems.push(`step ${i}: settled in (release, image of another release) unpaused`);
        } else {
          const v = pick([null, 'true', new Date(clock.getTime() + 1800_000).toISOString().replace(/\.\d{3}Z$/, 'Z')]);
          await admin.mergePatch(NODEPOOLS, 'workers', HC_NS, { spec: { pausedUntil: v } });
        }
      }
      expect(problems).toEqual([]);
    });
  });
});
