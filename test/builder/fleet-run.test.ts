/**
 * The fleet component as a running process (end to end), on the API test server: the
 * `fleet` command's own flags parsed, started in-process (its real watch loop, work queue, leader
 * election, webhook over HTTPS on 127.0.0.1, injectable clock); only the provider build's pod is
 * faked (the API test server runs no pods: test/builder/fleet-provider.test.ts covers the Job).
 *
 * Release bumps are made as the API server makes them: the AdmissionReview goes to the running
 * process's /mutate-nodepool, its JSONPatch is applied in the same write as the release change.
 * HyperShift's NodePool controller is modelled as in fleet-gate.test.ts: after every write to
 * the management API, each NodePool's (release, hand-off) hash is recorded when it is not paused.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import * as http from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeCa } from '../../pkogen/test/oci/registry-harness.js';
import type { ApiTestServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES } from '../../builder/clusters/kube.js';
import { parseCommand } from '../../builder/cli.js';
import { FlagError } from '../../builder/flags.js';
import { BuildKey } from '../../builder/fleet/build-registry.js';
import { admitNodePoolUpdate, GATED_LABEL, HANDOFF_RELEASE_ANNOTATION, isPaused, NODEPOOLS, RELEASED_FOR_ANNOTATION, WANTED_RELEASE_ANNOTATION } from '../../builder/fleet/gate.js';
import { startFleet } from '../../builder/fleet/main.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { FLEET_BUILD_NAMESPACE } from '../../builder/fleet/rbac.js';
import { MUTATE_NODEPOOL_PATH } from '../../builder/fleet/webhook.js';
import { handedOffImage, handoffName, parseProviderImages, PROVIDER_IMAGES_CONFIGMAP } from '../../builder/controller/handoff.js';
import { providerHandoff, tenantHandoff } from './fleet-fixtures.js';
import { D, FLEET_USER, imageOfKey, NS, R1, R2, REPO, startFleetApi } from './fleet-harness.js';

const builtFromRelease = (image: string | undefined) => [R1, R2].find((r) => image === imageOfKey({ releaseDigest: r.split('@')[1]!, arch: 'amd64' }));
const PROVIDER = ['apple', 'banana', 'cherry'];
const TENANT = 'date';
const FAILING = 'elder'; // arm64: its own key, whose build fails
const ALL = [...PROVIDER, TENANT, FAILING];
const npName = (c: string) => `${c}-workers`;

let afterWait: () => void = () => {};
const waitFor = async (what: string, cond: () => boolean, ms = 20_000) => {
  for (let t = Date.now(); !cond(); ) {
    if (Date.now() - t > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  // The state the condition saw may be a write whose client has not returned (and observed) yet.
  afterWait();
};

describe('the fleet component, running', () => {
  let mgmt: ApiTestServer;
  let dir: string;
  let ca: string;
  let offsetMs = 0;
  const now = () => new Date('2026-11-25T00:00:00Z').getTime() + offsetMs;
  const seen = new Map<string, string[]>();
  const hashes = new Map<string, { release: string; image?: string }>();
  const np = (c: string) => mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', name: npName(c), namespace: 'clusters' }) as KubeObject & { spec: any };
  const cm = (c: string) => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(npName(c)), namespace: hcpNamespaceOf('clusters', c) }) as KubeObject & { data: Record<string, string> };
  const observe = () => {
    for (const c of ALL) {
      const n = np(c);
      if (!n || isPaused(n.spec.pausedUntil, new Date(now()))) continue;
      const config = cm(c)?.data?.config ?? '';
      const h = createHash('sha256').update(`${n.spec.release.image}\n${config}`).digest('hex').slice(0, 12);
      hashes.set(h, { release: n.spec.release.image, image: handedOffImage(config) });
      const s = seen.get(c) ?? [];
      if (s[s.length - 1] !== h) s.push(h);
      seen.set(c, s);
    }
  };
  class Observed extends Kube {
    override async request(method: string, p: string, body?: unknown, contentType?: string): Promise<unknown> {
      const r = await super.request(method, p, body, contentType);
      if (method !== 'GET') observe();
      return r;
    }
  }
  const describeSeen = (c: string) => (seen.get(c) ?? []).map((h) => { const v = hashes.get(h)!; return `${v.release === R1 ? 'R1' : 'R2'} ${v.image === undefined ? '-' : builtFromRelease(v.image) === R1 ? 'image(R1)' : builtFromRelease(v.image) === R2 ? 'image(R2)' : v.image}`; });

  beforeAll(async () => {
    // HostedClusters carry no labels here: the default policy.
    mgmt = await startFleetApi(ALL);
    for (const c of ALL) mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: c, namespace: hcpNamespaceOf('clusters', c) }, spec: { releaseImage: R1 } });
    for (const c of ALL) {
      const arch = c === FAILING ? 'arm64' : 'amd64';
      mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool', metadata: { name: npName(c), namespace: 'clusters' }, spec: { clusterName: c, arch, release: { image: R1 }, replicas: 2 } });
      const image = imageOfKey({ releaseDigest: D('1'), arch });
      mgmt.store.put(c === TENANT ? tenantHandoff(hcpNamespaceOf('clusters', c), npName(c), 'my-config', `quay.example.com/tenant/os@${D('8')}`, R1) : providerHandoff(hcpNamespaceOf('clusters', c), npName(c), image, R1));
    }
    dir = mkdtempSync(path.join(tmpdir(), 'fleet-run-'));
    const certs = makeCa(dir);
    copyFileSync(certs.cert, path.join(dir, 'tls.crt'));
    copyFileSync(certs.key, path.join(dir, 'tls.key'));
    ca = readFileSync(certs.caFile, 'utf8');
    writeFileSync(path.join(dir, 'Containerfile'), 'FROM configs AS final\nRUN dnf install -y provider-agent && dnf clean all\n');
    observe();
    afterWait = observe;
  });
  afterAll(async () => {
    await mgmt?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('parses its flags as the Deployment passes them, and refuses bad ones as usage errors', () => {
    const args = ['--provider-repository', REPO, '--provider-layer-file', '/etc/provider/Containerfile', '--tls-dir', '/var/run/tls'];
    const f = parseCommand('fleet', args, { POD_NAMESPACE: NS });
    expect(f).toMatchObject({ namespace: NS, 'build-namespace': FLEET_BUILD_NAMESPACE, kubeconfig: '', 'push-secret-name': 'provider-push', 'max-hold-seconds': 3600, 'resync-period': 300, 'webhook-port': 9443, 'health-port': 8081, 'leader-elect': true, 'registry-allow': '', 'provider-image': '' });
    const bad = (extra: string[]) => { try { parseCommand('fleet', [...args, ...extra], { POD_NAMESPACE: NS }); return 'accepted'; } catch (e) { return e instanceof FlagError ? e.message : `not a usage error: ${e}`; } };
    expect(bad(['--provider-image', `${REPO}@${D('9')}`])).toBe('on-cluster-build fleet: give --provider-layer-file or --provider-image, not both');
    expect(bad(['--provider-repository', `${REPO}:latest`])).toBe('on-cluster-build fleet: --provider-repository names a repository (registry/path), without a tag or digest');
    // The tenant-layer default is the per-HCP package's, rendered from the HostedCluster's annotation.
    expect(bad(['--tenant-layer-default', 'Enabled'])).toMatch(/tenant-layer-default/);
    expect(bad(['--build-namespace', 'Not_A_Namespace'])).toBe('on-cluster-build fleet: --build-namespace "Not_A_Namespace" is not a namespace name');
    expect(bad(['--max-hold-seconds', '0'])).toBe('on-cluster-build fleet: --max-hold-seconds must be a positive number of seconds');
    expect(() => parseCommand('fleet', args, {})).toThrow(/--namespace/);
  });

  it('a release bump under the gate is one config change to an image built from the new release; three HCPs cause one build; a hold that cannot end times out loudly; a tenant layer is built by the per-HCP controller for the wanted release', async () => {
    const calls: BuildKey[] = [];
    const pending: { key: BuildKey; resolve: (r: { image: string }) => void; reject: (e: Error) => void }[] = [];
    const logs: { msg: string; [k: string]: unknown }[] = [];
    const flags = parseCommand('fleet', ['--provider-repository', REPO, '--provider-layer-file', path.join(dir, 'Containerfile'), '--tls-dir', dir, '--webhook-port', '0', '--health-port', '0'], { POD_NAMESPACE: NS });
    const stop = new AbortController();
    const fleet = await startFleet(flags, (msg, fields = {}) => logs.push({ msg, ...fields }), stop.signal, {
      preconditions: () => undefined, // builder/fleet/preconditions.ts has its own tests (fleet-gate.test.ts)
      management: new Observed(mgmt.kubeConfig(FLEET_USER)),
      now,
      waitingRecheckMs: 50,
      host: '127.0.0.1',
      providerBuilds: {
        build: (key) => {
          calls.push(key);
          return new Promise((resolve, reject) => pending.push({ key, resolve, reject }));
        },
        // The registry has the images of the hand-offs in place (built before for R1); R2's are built.
        lookup: async (k) => (k.releaseDigest === D('1') ? { image: imageOfKey({ releaseDigest: D('1'), arch: k.arch }) } : undefined),
      },
    });
    let stopped = false;
    try {
      const admin = new Observed(mgmt.kubeConfig('system:admin'));
      const get = (port: number, p: string, tls: boolean) =>
        new Promise<number>((resolve, reject) => (tls ? https : http).get({ host: '127.0.0.1', port, path: p, ...(tls ? { ca } : {}) } as https.RequestOptions, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject));
      expect(await get(fleet.healthPort, '/readyz', false)).toBe(200);
      expect(await get(fleet.healthPort, '/healthz', false)).toBe(200);
      await waitFor('the Lease', () => !!mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: 'on-cluster-build-fleet', namespace: NS }));
      // Its first pass labels every NodePool with a hand-off for the admission gate.
      await waitFor('labels', () => ALL.every((c) => np(c).metadata.labels?.[GATED_LABEL] === 'true'));

      /** A release change through the running webhook, applied in one write with its patch. */
      const bump = async (c: string, release: string) => {
        const old = np(c);
        const next = { ...old, spec: { ...old.spec, release: { image: release } } };
        const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `u-${c}`, kind: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool' }, namespace: 'clusters', name: npName(c), operation: 'UPDATE', object: next, oldObject: old } };
        const body = JSON.stringify(review);
        const answer = await new Promise<any>((resolve, reject) => {
          const req = https.request({ host: '127.0.0.1', port: fleet.webhookPort, path: MUTATE_NODEPOOL_PATH, method: 'POST', ca, headers: { 'content-type': 'application/json' } }, (res) => {
            let t = '';
            res.on('data', (d) => (t += d));
            res.on('end', () => resolve(JSON.parse(t)));
          });
          req.on('error', reject);
          req.end(body);
        });
        expect(answer.response.allowed).toBe(true);
        const ops = [{ op: 'replace', path: '/spec/release/image', value: release }, ...(answer.response.patch ? JSON.parse(Buffer.from(answer.response.patch, 'base64').toString('utf8')) : [])];
        await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(c)), ops, 'application/json-patch+json');
      };

      // The control planes upgrade first (HyperShift copies the HostedCluster's release to the
      // HostedControlPlane): the provider builds for R2 start before any NodePool moves.
      for (const c of ALL) {
        const hcp = mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', name: c, namespace: hcpNamespaceOf('clusters', c) })!;
        await admin.update(RESOURCES.hostedControlPlanes, { ...hcp, spec: { ...hcp.spec, releaseImage: R2 } } as KubeObject);
      }
      await waitFor('pre-builds', () => calls.length === 2);
      expect(calls.every((k) => k.releaseDigest === D('2'))).toBe(true);
      expect(ALL.map((c) => np(c).spec.pausedUntil)).toEqual(ALL.map(() => undefined));
      expect(ALL.map((c) => np(c).spec.release.image)).toEqual(ALL.map(() => R1));
      expect(logs.filter((l) => l.msg === 'prebuild').length).toBeGreaterThanOrEqual(ALL.length);

      // Every HostedCluster's NodePools upgrade at once.
      await Promise.all(ALL.map((c) => bump(c, R2)));
      expect(ALL.map((c) => isPaused(np(c).spec.pausedUntil, new Date(now())))).toEqual(ALL.map(() => true)); // held until a time: it ends by itself
      await waitFor('builds asked for', () => calls.length === 2 && ALL.every((c) => np(c).metadata.annotations?.['on-cluster-build.pkogen.io/gate-reason'] !== undefined));
      await new Promise((r) => setTimeout(r, 300)); // several rechecks: still one build per key
      expect(calls.map((k) => k.arch).sort()).toEqual(['amd64', 'arm64']); // three amd64 HCPs: one build
      expect(calls.find((k) => k.arch === 'amd64')).toMatchObject({ releaseDigest: D('2'), releasePullSpec: R2 });

      // The tenant-layered NodePool: the fleet names the wanted release and writes no image; R1's goes (an expiry rolls R2's own OS).
      await waitFor('wanted release', () => cm(TENANT).metadata.annotations?.[WANTED_RELEASE_ANNOTATION] === R2 && cm(TENANT).data.config === '');

      // The provider build lands: the three are handed off and released.
      pending.find((p) => p.key.arch === 'amd64')!.resolve({ image: imageOfKey(calls.find((k) => k.arch === 'amd64')!) });
      await waitFor('hand-offs', () => PROVIDER.every((c) => cm(c).metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R2 && np(c).spec.pausedUntil === undefined));
      for (const c of PROVIDER) expect(describeSeen(c)).toEqual(['R1 image(R1)', 'R2 image(R2)']);
      // Each HCP namespace is told the provider-layered image for its NodePool's new release: the tenant layer's FROM.
      await waitFor('provider images published', () => [...PROVIDER, TENANT].every((c) => parseProviderImages(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: hcpNamespaceOf('clusters', c) }) as KubeObject)?.entries.get(npName(c))?.release === R2));
      for (const c of [...PROVIDER, TENANT]) {
        const published = parseProviderImages(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: hcpNamespaceOf('clusters', c) }) as KubeObject)!;
        expect(published.layer).toMatch(/^provider-layer@sha256:[0-9a-f]{64}$/);
        expect(builtFromRelease(published.entries.get(npName(c))!.image)).toBe(R2);
        // Owned by the fleet's own Namespace: uninstalling the fleet package garbage-collects the channel.
        const ns = mgmt.store.get({ apiVersion: 'v1', kind: 'Namespace', name: NS })!;
        expect(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: hcpNamespaceOf('clusters', c) })!.metadata!.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Namespace', name: NS, uid: ns.metadata!.uid }]);
      }

      // The per-HCP controller hands off its verified build for the wanted release: the hold ends.
      const t = tenantHandoff(hcpNamespaceOf('clusters', TENANT), npName(TENANT), 'my-config', `quay.example.com/tenant/os@${D('9')}`, R2);
      t.metadata.annotations![WANTED_RELEASE_ANNOTATION] = R2;
      await admin.update(RESOURCES.configMaps, { ...t, metadata: { ...t.metadata, resourceVersion: cm(TENANT).metadata.resourceVersion } });
      await waitFor('tenant released', () => np(TENANT).spec.pausedUntil === undefined && logs.some((l) => l.msg === 'gate Unpaused' && l.nodePool === `clusters/${npName(TENANT)}`));
      expect(describeSeen(TENANT).length).toBe(2);
      expect(hashes.get(seen.get(TENANT)![1]!)).toEqual({ release: R2, image: `quay.example.com/tenant/os@${D('9')}` });

      // The arm64 build fails: held until the bound (the injected clock), then released loudly.
      pending.find((p) => p.key.arch === 'arm64')!.reject(new Error('RUN dnf install -y provider-agent: exit status 1'));
      await new Promise((r) => setTimeout(r, 200));
      expect(isPaused(np(FAILING).spec.pausedUntil, new Date(now()))).toBe(true);
      offsetMs += 3600 * 1000;
      await waitFor('timed out', () => np(FAILING).spec.pausedUntil === undefined && logs.some((l) => l.msg === 'gate TimedOut'));
      expect(np(FAILING).metadata.annotations![RELEASED_FOR_ANNOTATION]).toBe(R2);
      expect(np(FAILING).metadata.annotations!['on-cluster-build.pkogen.io/gate-reason']).toMatch(/^UpgradeGateTimedOut: held 3600s \(max 3600s\), the image for \(release .*2{64}, arm64, layer provider-layer@sha256:[0-9a-f]{64}\) failed: RUN dnf install -y provider-agent: exit status 1; released/);

      // Structured logs for each action; no object content, no credential.
      const actions = (c: string) => logs.filter((l) => l.nodePool === `clusters/${npName(c)}`).map((l) => l.msg);
      expect(actions('apple')).toEqual(expect.arrayContaining(['gate HandedOff', 'gate Unpaused']));
      expect(actions(TENANT)).toEqual(expect.arrayContaining(['gate Wanted', 'gate Unpaused']));
      expect(actions(FAILING)).toContain('gate TimedOut');
      expect(JSON.stringify(logs)).not.toMatch(/osImageURL|dnf clean all/);
      expect(logs.filter((l) => l.msg === 'gate failed')).toEqual([]);
      // Only the rights it is given; nothing refused.
      const mine = mgmt.audit.filter((e) => e.user === FLEET_USER && e.resource);
      expect(mine.filter((e) => e.code === 401 || e.code === 403)).toEqual([]);
    } finally {
      stop.abort();
      await fleet.done.catch(() => {});
      stopped = true;
    }
    expect(stopped).toBe(true);
  });
  it('a held NodePool is handed off as soon as its build lands, not at its next recheck', async () => {
    const R3 = `quay.io/openshift-release-dev/ocp-release@${D('3')}`;
    const calls: BuildKey[] = [];
    const pending: { key: BuildKey; resolve: (r: { image: string }) => void }[] = [];
    const logs: { msg: string; [k: string]: unknown }[] = [];
    const flags = parseCommand('fleet', ['--provider-repository', REPO, '--provider-layer-file', path.join(dir, 'Containerfile'), '--tls-dir', dir, '--webhook-port', '0', '--health-port', '0', '--leader-elect=false'], { POD_NAMESPACE: NS });
    const stop = new AbortController();
    const fleet = await startFleet(flags, (msg, fields = {}) => logs.push({ msg, ...fields }), stop.signal, {
      preconditions: () => undefined, // builder/fleet/preconditions.ts has its own tests (fleet-gate.test.ts)
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      now,
      waitingRecheckMs: 600_000, // far beyond this test: only the build's end can wake the gate
      host: '127.0.0.1',
      providerBuilds: {
        build: (key) => {
          calls.push(key);
          return new Promise((resolve) => pending.push({ key, resolve }));
        },
        lookup: async (k) => (k.releaseDigest === D('3') ? undefined : { image: imageOfKey(k) }),
      },
    });
    try {
      const c = PROVIDER[0]!;
      await waitFor('the fleet to see the NodePools', () => logs.some((l) => l.msg === 'serving'));
      const old = np(c);
      const next = { ...old, spec: { ...old.spec, release: { image: R3 } } };
      const admin = new Kube(mgmt.kubeConfig('system:admin'));
      await admin.request('PATCH', admin.path(NODEPOOLS, 'clusters', npName(c)), [{ op: 'replace', path: '/spec/release/image', value: R3 }, ...admitNodePoolUpdate(old, next, new Date(now()), 3600)], 'application/json-patch+json');
      await waitFor('the R3 build', () => calls.some((k) => k.releaseDigest === D('3')));
      await waitFor('the hold, with its reason', () => isPaused(np(c).spec.pausedUntil, new Date(now())) && /waiting for the image/.test(np(c).metadata.annotations?.['on-cluster-build.pkogen.io/gate-reason'] ?? ''));
      await new Promise((r) => setTimeout(r, 500)); // the events of the gate's own writes drain: it is Waiting, with nothing queued
      pending.find((p) => p.key.releaseDigest === D('3'))!.resolve({ image: imageOfKey(calls.find((k) => k.releaseDigest === D('3'))!) });
      await waitFor('the hand-off for R3', () => cm(c).metadata.annotations?.[HANDOFF_RELEASE_ANNOTATION] === R3 && np(c).spec.pausedUntil === undefined);
      expect(handedOffImage(cm(c).data.config)).toBe(imageOfKey(calls.find((k) => k.releaseDigest === D('3'))!));
    } finally {
      stop.abort();
      await fleet.done.catch(() => {});
    }
  });
});
