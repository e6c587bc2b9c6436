/**
 * `npm run bench -- fleet` (after `make build`): the fleet component (`on-cluster-build fleet`)
 * as it runs in its pod: `node bin/on-cluster-build.js fleet` with the fleet
 * Deployment's args (resources/fleet/objects.ts `fleetArgs`, the config's defaults, a prebuilt
 * `--provider-image` by digest), its NODE_OPTIONS, leader election on and its real HTTPS webhook,
 * pinned to core 0 with taskset. Against everything on 127.0.0.1, nothing from the network:
 * - Debian's docker-registry with basic auth, started as the tests start it
 *   (pkogen/test/oci/registry-harness.ts `startRegistry('basic')`), holding three fake release
 *   payloads R1, R2, R3 (the shape of test/builder/fixtures.ts `releaseImage` and
 *   `imageReferences`: the release-manifests layer with `image-references` and
 *   `release-metadata`) that are a z-stream series sharing one RHCOS: their `rhel-coreos` names the
 *   SAME base OS image (amd64), pushed there, and the prebuilt provider image = that base's layers
 *   plus one layer. So `prebuiltProviderImage` (builder/fleet/provider-build.ts) resolves each
 *   key's release through the registry (builder/registry/release.ts ReleaseResolver, with the push Secret's
 *   credentials) and verifies the image is a layer on its base (builder/registry/image-check.ts) before it
 *   is answered, as in a real fleet whose NodePools move between z-streams. The fleet may reach the
 *   registry by `--registry-allow=127.0.0.1:<port>` (builder/registry/net-guard.ts; the Deployment has none:
 *   a real registry is public). R3 exists so that the second upgrade day asks for a key the build
 *   registry has not answered yet, as the first does.
 * - the project's API test server (pkogen/test/kube/api-server.ts) as the management cluster, in
 *   this process, pinned to core 1, with the fleet identity holding exactly the package's rules
 *   (`FLEET_CLUSTER_RULES`; `FLEET_NAMESPACE_RULES` in its namespace; `FLEET_BUILD_NAMESPACE_RULES`
 *   in the build namespace, unused with a prebuilt image; the per-HCP package's `HANDOFF_RULES` in
 *   every HCP namespace), so a denied request shows; the fleet's Namespace (the owner of the
 *   provider-images ConfigMaps), the push Secret `provider-push` with the registry's credentials.
 * - HCS HostedClusters: an HCP namespace each with its HostedControlPlane (`spec.releaseImage`,
 *   HyperShift-sized), 2 NodePools each (spec.release.image = R1 by digest, HyperShift-sized), and a
 *   provider-only hand-off of the prebuilt image for R1 for the first NodePool of each (a fleet the
 *   component already served: this is a new leader taking it in); the second NodePool has none
 *   (the gate creates it).
 * The servers the child opens (webhook, health) are bound to 127.0.0.1 by a two-line `--require`
 * preload (the fleet command has no bind-address flag; its Deployment listens on every address).
 *
 * Phases, each bounded: idle (Lease held, the NodePool list done, empty cluster); take-in (every
 * object put at once; until every NodePool carries the gate's label and has a hand-off, every HCP
 * namespace has its provider-images ConfigMap, and the hand-off and HostedControlPlane watches are
 * open), then a quiet window; upgrade day 1, NodePools only (every NodePool's spec.release.image
 * R1 → R2, open loop at RATE/s: each bump's AdmissionReview goes to the running webhook and its
 * JSONPatch is applied in the same write as the release change, as the API server does; until
 * every hand-off names R2 and no NodePool is paused), a quiet window; upgrade day 2, control
 * planes first (every HostedControlPlane's spec.releaseImage R2 → R3 at RATE/s, as HyperShift
 * copies a HostedCluster's release; until the fleet has pre-built for every HCP; then the NodePools
 * R2 → R3 as on day 1), a quiet window; then, unless FLEET_BENCH_RESYNC=0, the window around the
 * first resync (the Deployment's 300 s period). Hold time: from the write that put a NodePool's
 * hold (the bump) to the write that lifted it, from the server's own event stream. RSS is VmRSS
 * (VmHWM: peak) from /proc; CPU is utime+stime of the child.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import { cpus, loadavg, tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Blob, Image, MediaType, parseReference, RegistryClient, writeTar, type TarWriteEntry } from 'pkogen/oci';
import type { ApiTestServer, jsonPatch as JsonPatch, startApiServer as StartApiServer } from '../../pkogen/test/kube/api-server.js';
import type { cleanupRegistry as CleanupRegistry, startRegistry as StartRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { clusterWide } from '../builder/clusters.js';
import { providerHandoff } from '../builder/fleet-fixtures.js';
import { FLEET_BUILD_NAMESPACE, FLEET_BUILD_NAMESPACE_RULES, FLEET_CLUSTER_RULES, FLEET_LEASE_NAME, FLEET_NAMESPACE_RULES, HANDOFF_RULES, PUSH_SECRET_NAME } from '../../builder/fleet/rbac.js';
import { GATED_LABEL } from '../../builder/fleet/gate-names.js';
import { hcpNamespaceOf } from '../../builder/fleet/pass.js';
import { HANDOFF_RELEASE_ANNOTATION, handoffName, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY } from '../../builder/controller/handoff.js';
import { MUTATE_NODEPOOL_PATH } from '../../builder/fleet/webhook.js';
import { FLEET_NODE_OPTIONS, fleetArgs, RESYNC_SECONDS } from '../../resources/fleet/objects.js';
import { fleetConfigSchema } from '../../resources/fleet/config.js';
import { FLEET_NAMESPACE, FLEET_USERNAME } from '../../resources/fleet/identity.js';
import { cpuSeconds, procStatus, stopChild } from './_proc.js';
import { countRequests, describeCount, gateReads, MAX_REQUESTS_PER_STEP, perStep } from '../builder/request-count.js';
import { PULL_KEYS_CONFIGMAP } from '../../builder/api/types.js';
import { HyperShiftStandIn, type SimClock } from '../builder/hypershift-standin.js';
import { MANAGED_BY, MANAGED_BY_VALUE } from '../../builder/controller/build-job.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const HCS = Number(process.env.FLEET_BENCH_HCS ?? 500);
const POOLS_PER_HC = 2;
/** Release bumps (each one admission) per second on the upgrade day. */
const RATE = Number(process.env.FLEET_BENCH_RATE ?? 50);
/** kube-apiserver sends a watch a bookmark about once a minute (cacher.go defaultBookmarkFrequency); the test server's default is 1 s. */
const BOOKMARK_S = Number(process.env.FLEET_BENCH_BOOKMARK_S ?? 60);
const WAIT_RESYNC = process.env.FLEET_BENCH_RESYNC !== '0';
const STEP_TIMEOUT_MS = Number(process.env.FLEET_BENCH_STEP_TIMEOUT_S ?? 600) * 1000;
const SETTLE_MS = 5000;
/** FLEET_BENCH_LOG: a file the fleet's log lines are appended to. */
const LOG_FILE = process.env.FLEET_BENCH_LOG;
const DAY2 = process.env.FLEET_BENCH_DAY2 !== '0';
const BUMPS = Number(process.env.FLEET_BENCH_BUMPS ?? Infinity);
/** The HyperShift stand-in's machines (real ms): a Replace NodePool of 3 replicas rolls in about 3 boots. */
const BOOT_MS = Number(process.env.FLEET_BENCH_BOOT_MS ?? 1000);
const WINDOW_MS = Number(process.env.FLEET_BENCH_WINDOW_S ?? 40) * 1000;
/** The Deployment's NODE_OPTIONS unless FLEET_BENCH_NODE_OPTIONS is set (to try another heap cap). */
const NODE_OPTIONS = process.env.FLEET_BENCH_NODE_OPTIONS ?? FLEET_NODE_OPTIONS;

const D = (c: string) => `sha256:${c.repeat(64)}`;
const NP_NS = 'clusters';
const NODEPOOL = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'NodePool' };
const HCP = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane' };
const HC = { apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (kb: number) => (kb / 1024).toFixed(1);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');


const fds = (pid: number) => readdirSync(`/proc/${pid}/fd`).length;
const hcName = (h: number) => `hc-${String(h).padStart(4, '0')}`;
const npName = (h: number, p: number) => `${hcName(h)}-${String.fromCharCode(97 + p)}`;
const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, observedGeneration: 1, lastTransitionTime: '2026-11-20T08:00:00Z' });

/** A NodePool as HyperShift keeps it (AWS platform, 13 status conditions): ~3 KB of JSON. */
function nodePool(h: number, p: number, release: string): object {
  return {
    ...NODEPOOL,
    metadata: { name: npName(h, p), namespace: NP_NS, labels: { 'hypershift.openshift.io/auto-created-for-infra': `${hcName(h)}-x7k2p` }, annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'a1b2c3d4', 'hypershift.openshift.io/nodePoolCurrentConfigVersion': 'e5f6a7b8' }, finalizers: ['hypershift.openshift.io/finalizer'] },
    spec: {
      clusterName: hcName(h),
      arch: 'amd64',
      release: { image: release },
      replicas: 3,
      management: { autoRepair: true, upgradeType: 'Replace', replace: { strategy: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } },
      nodeDrainTimeout: '0s',
      nodeVolumeDetachTimeout: '0s',
      platform: { type: 'AWS', aws: { instanceType: 'm5.xlarge', instanceProfile: `${hcName(h)}-x7k2p-worker`, subnet: { id: 'subnet-0a1b2c3d4e5f60718' }, ami: '', rootVolume: { size: 120, type: 'gp3' }, securityGroups: [{ id: 'sg-0a1b2c3d4e5f60718' }], resourceTags: [{ key: 'red-hat-managed', value: 'true' }, { key: 'api.openshift.com/id', value: `2k${h}abcdefghijklmnopqrstu` }] } },
    },
    status: {
      replicas: 3,
      version: '4.20.1',
      platform: { aws: { ami: 'ami-0a1b2c3d4e5f60718' } },
      conditions: [
        cond('AutorepairEnabled', 'True', 'AsExpected', ''),
        cond('AutoscalingEnabled', 'False', 'AsExpected', ''),
        cond('UpdateManagementEnabled', 'True', 'AsExpected', ''),
        cond('ValidReleaseImage', 'True', 'AsExpected', 'Using release image: ' + release),
        cond('ValidArchPlatform', 'True', 'AsExpected', ''),
        cond('ValidMachineConfig', 'True', 'AsExpected', ''),
        cond('ValidTuningConfig', 'True', 'AsExpected', ''),
        cond('UpdatingConfig', 'False', 'AsExpected', ''),
        cond('UpdatingVersion', 'False', 'AsExpected', ''),
        cond('ReconciliationActive', 'True', 'ReconciliationActive', 'Reconciliation active on resource'),
        cond('AllMachinesReady', 'True', 'AsExpected', 'All is well'),
        cond('AllNodesHealthy', 'True', 'AsExpected', 'All is well'),
        cond('Ready', 'True', 'AsExpected', ''),
      ],
    },
  };
}

/** A HostedControlPlane as HyperShift keeps it in the HCP namespace (AWS, networking, services, 12 conditions): ~5 KB of JSON. */
function hostedControlPlane(h: number, release: string): object {
  const infra = `${hcName(h)}-x7k2p`;
  const svc = (service: string, type: string) => ({ service, servicePublishingStrategy: { type, ...(type === 'Route' ? { route: { hostname: `${service.toLowerCase()}-${infra}.apps.example.com` } } : {}) } });
  return {
    ...HCP,
    metadata: { name: hcName(h), namespace: hcpNamespaceOf(NP_NS, hcName(h)), annotations: { 'hypershift.openshift.io/cluster': `${NP_NS}/${hcName(h)}`, 'hypershift.openshift.io/control-plane-operator-image': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('9')}` }, finalizers: ['hypershift.openshift.io/finalizer'] },
    spec: {
      releaseImage: release,
      clusterID: `0f1e2d3c-${String(h).padStart(4, '0')}-4b5a-6978-8a9b0c1d2e3f`,
      infraID: infra,
      issuerURL: `https://oidc.example.com/${infra}`,
      networking: { networkType: 'OVNKubernetes', clusterNetwork: [{ cidr: '10.128.0.0/14' }], serviceNetwork: [{ cidr: '172.30.0.0/16' }], machineNetwork: [{ cidr: '10.0.0.0/16' }] },
      platform: { type: 'AWS', aws: { region: 'us-east-1', endpointAccess: 'Public', cloudProviderConfig: { vpc: 'vpc-0a1b2c3d4e5f60718', subnet: { id: 'subnet-0a1b2c3d4e5f60718' }, zone: 'us-east-1a' }, rolesRef: Object.fromEntries(['ingressARN', 'imageRegistryARN', 'storageARN', 'networkARN', 'kubeCloudControllerARN', 'nodePoolManagementARN', 'controlPlaneOperatorARN'].map((k) => [k, `arn:aws:iam::123456789012:role/${infra}-${k}`])), resourceTags: [{ key: 'red-hat-managed', value: 'true' }] } },
      services: [svc('APIServer', 'LoadBalancer'), svc('OAuthServer', 'Route'), svc('Konnectivity', 'Route'), svc('Ignition', 'Route'), svc('OVNSbDb', 'Route')],
      dns: { baseDomain: 'example.com', publicZoneID: 'Z0123456789ABCDEFGHIJ', privateZoneID: 'Z9876543210ABCDEFGHIJ' },
      etcd: { managementType: 'Managed', managed: { storage: { type: 'PersistentVolume', persistentVolume: { size: '8Gi' } } } },
      pullSecret: { name: 'pull-secret' },
      sshKey: { name: 'ssh-key' },
      controllerAvailabilityPolicy: 'HighlyAvailable',
      infrastructureAvailabilityPolicy: 'HighlyAvailable',
    },
    status: {
      ready: true,
      initialized: true,
      version: '4.20.1',
      releaseImage: release,
      controlPlaneEndpoint: { host: `api.${infra}.example.com`, port: 443 },
      kubeConfig: { name: 'admin-kubeconfig', key: 'kubeconfig' },
      conditions: ['Available', 'Degraded', 'EtcdAvailable', 'KubeAPIServerAvailable', 'InfrastructureReady', 'ValidHostedControlPlaneConfiguration', 'ValidReleaseInfo', 'ClusterVersionAvailable', 'ClusterVersionProgressing', 'ClusterVersionUpgradeable', 'EtcdSnapshotRestored', 'ReconciliationActive'].map((t) => cond(t, t === 'Degraded' || t === 'ClusterVersionProgressing' ? 'False' : 'True', 'AsExpected', `${t}: all is well`)),
    },
  };
}

/** The fleet Deployment's args with the config's defaults and the prebuilt provider image; ports 0, paths to the bench's files; the registry allowed. */
function args(dir: string, repo: string, providerImage: string, registryHost: string): string[] {
  const props = fleetConfigSchema.properties as Record<string, { default?: unknown }>;
  // The default rollout policy (RideReleaseChange: maxConcurrency 50, one NodePool per HostedCluster
  // at a time): the HyperShift stand-in writes NodePool status and finishes rollouts, so slots free.
  const rollout = '';
  const config: Record<string, string> = { providerRepository: repo, providerImage, providerLayer: '', maxHoldSeconds: String(props.maxHoldSeconds?.default), rollout };
  const deployment = fleetArgs().map((a) =>
    a
      .replace(/\{\{ if \.config\.(\w+) \}\}(.*?)\{\{ end \}\}/g, (_, k: string, v: string) => (config[k] ? v : ''))
      .replace(/\{\{ \.config\.(\w+) \}\}/g, (_, k: string) => config[k] ?? '')
      .replace(/^--tls-dir=.*/, `--tls-dir=${dir}`)
      .replace(/^--webhook-port=.*/, '--webhook-port=0')
      .replace(/^--health-port=.*/, '--health-port=0'),
  );
  for (const a of deployment) if (a.includes('{{')) throw new Error(`fleet bench: an arg left unrendered: ${a}`);
  return [...deployment, `--registry-allow=${registryHost}`, `--kubeconfig=${dir}/fleet.kubeconfig`];
}

/**
 * Binds the child's servers to 127.0.0.1 (webhook and health listen on 0.0.0.0 in the pod), and
 * writes `process.memoryUsage()` to MEMFILE on SIGUSR2 (where the RSS is: V8 heap or outside it).
 */
const preload = (memFile: string) => `const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...a) { if (a[1] === '0.0.0.0' || a[1] === '::') a[1] = '127.0.0.1'; return listen.apply(this, a); };
process.on('SIGUSR2', () => require('node:fs').writeFileSync(${JSON.stringify(memFile)}, JSON.stringify(process.memoryUsage())));
`;

function pct(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : NaN;
}

// Images the shape of test/builder/fixtures.ts (which loads pkogen's sources by path, so it cannot
// run from dist/): layers from tar entries, a config with their diff_ids.
const enc = new TextEncoder();
const file = (name: string, text: string): TarWriteEntry => ({ name, type: 'file', data: enc.encode(text) });
function layerOf(entries: TarWriteEntry[]): { blob: Blob; diffId: string } {
  const tar = writeTar(entries);
  return { blob: new Blob(MediaType.OciLayerGzip, gzipSync(tar, { level: 6 })), diffId: `sha256:${createHash('sha256').update(tar).digest('hex')}` };
}
function imageOf(layers: { blob: Blob; diffId: string }[], extra: Record<string, unknown> = {}): Image {
  const config = { architecture: 'amd64', os: 'linux', ...extra, rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) } };
  return Image.fromBlobs(new Blob(MediaType.OciConfig, enc.encode(JSON.stringify(config))), layers.map((l) => l.blob));
}
/** An ImageStream as `oc adm release new` writes `image-references` (fixtures.ts `imageReferences`). */
const imageReferences = (version: string, tags: Record<string, string>) =>
  JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', metadata: { name: version, creationTimestamp: null }, spec: { lookupPolicy: { local: false }, tags: Object.entries(tags).map(([name, from]) => ({ name, annotations: {}, from: { kind: 'DockerImage', name: from } })) } });
/** A release payload for linux/amd64 (fixtures.ts `releaseImage`): a base layer, then release-manifests. */
const releaseImage = (version: string, refs: string) =>
  imageOf(
    [
      layerOf([{ name: 'usr', type: 'dir' }, { name: 'usr/bin', type: 'dir' }, file('usr/bin/cluster-version-operator', '#!/bin/true\n')]),
      layerOf([{ name: 'release-manifests', type: 'dir' }, file('release-manifests/image-references', refs), file('release-manifests/release-metadata', JSON.stringify({ kind: 'cincinnati-metadata-v0', version }))]),
    ],
    { config: { Labels: { 'io.openshift.release': version } } },
  );

/** The registry's images: R1-R3 (one RHCOS), the base, the prebuilt provider image; by digest. */
async function pushImages(reg: TestRegistry): Promise<{ releases: string[]; base: string; provider: string; repo: string }> {
  const c = new RegistryClient({ credentials: async () => ({ username: reg.user!, password: reg.password! }) });
  try {
    const os = [layerOf([file('usr/lib/os-release', 'ID=rhcos\nVERSION_ID=9.6\n')]), layerOf([file('usr/bin/rpm-ostree', 'rpm-ostree\n')])];
    const base = imageOf(os);
    await c.push(base, [parseReference(`${reg.host}/ocp/rhcos:9.6`)]);
    const baseRef = `${reg.host}/ocp/rhcos@${base.digest}`;
    const repo = `${reg.host}/provider/os`;
    const provider = imageOf([...os, layerOf([file('usr/bin/provider-agent', 'agent\n')])]);
    await c.push(provider, [parseReference(`${repo}:prebuilt`)]);
    const releases: string[] = [];
    for (const z of [1, 2, 3]) {
      const version = `4.20.${z}`;
      // A z-stream series: each release's own MCO, one RHCOS for all three.
      const tags = { 'machine-config-operator': `${reg.host}/ocp/mco@${D(String(z))}`, 'rhel-coreos': baseRef, 'rhel-coreos-extensions': `${reg.host}/ocp/rhcos-extensions@${D('e')}`, pod: `${reg.host}/ocp/pod@${D('f')}` };
      const r = releaseImage(version, imageReferences(version, tags));
      await c.push(r, [parseReference(`${reg.host}/ocp/release:${version}`)]);
      releases.push(`${reg.host}/ocp/release@${r.digest}`);
    }
    return { releases, base: baseRef, provider: `${repo}@${provider.digest}`, repo };
  } finally {
    c.close();
  }
}

type Window = { label: string; cpu: number; requests: number; watchRequests: number; verbs: string; mem: { rssKb: number; hwmKb: number }; heap: string; watches: number; fds: number; load: string };

export async function bench(): Promise<string> {
  const api = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/kube/api-server.js')).href)) as { startApiServer: typeof StartApiServer; jsonPatch: typeof JsonPatch };
  const harness = (await import(pathToFileURL(path.join(root, 'pkogen/dist/test/oci/registry-harness.js')).href)) as { startRegistry: typeof StartRegistry; cleanupRegistry: typeof CleanupRegistry };
  const pinned = cpus().length >= 2 && (() => { try { execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'pipe' }); return true; } catch { return false; } })();
  const dir = mkdtempSync(path.join(tmpdir(), 'fleet-bench-'));
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', `${dir}/tls.key`, '-out', `${dir}/tls.crt`, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  const ca = readFileSync(`${dir}/tls.crt`, 'utf8');
  writeFileSync(`${dir}/loopback.cjs`, preload(`${dir}/mem.json`));
  const hcpNamespaces = Array.from({ length: HCS }, (_, h) => hcpNamespaceOf(NP_NS, hcName(h)));
  let mgmt: ApiTestServer | undefined;
  let reg: TestRegistry | undefined;
  let child: ChildProcess | undefined;
  let stopStandIn = () => {};
  try {
    reg = await harness.startRegistry('basic');
    const images = await pushImages(reg);
    const [R1, R2, R3] = images.releases as [string, string, string];
    const PROVIDER_IMAGE = images.provider;
    mgmt = await api.startApiServer({
      identities: [
        // Every per-HCP package's Role (HANDOFF_RULES in its HCP namespace), as one rule over all of them.
        { name: FLEET_USERNAME, token: 'fleet-token', rules: [...clusterWide(FLEET_CLUSTER_RULES), ...clusterWide(HANDOFF_RULES).map((r) => ({ ...r, namespaces: hcpNamespaces })), ...clusterWide(FLEET_NAMESPACE_RULES).map((r) => ({ ...r, namespaces: [FLEET_NAMESPACE] })), ...clusterWide(FLEET_BUILD_NAMESPACE_RULES).map((r) => ({ ...r, namespaces: [FLEET_BUILD_NAMESPACE] }))] },
        { name: 'system:admin', token: 'admin-token' },
      ],
      // A real apiserver keeps far more than the test server's default 1,000 events for resuming watches.
      historyLimit: 100_000,
      bookmarkIntervalMs: BOOKMARK_S * 1000,
    });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool', plural: 'nodepools', namespaced: true, status: true });
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedControlPlane', plural: 'hostedcontrolplanes', namespaced: true, status: true });
    // The rollout policy's canary selectors read HostedCluster labels.
    mgmt.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true });
    mgmt.registerType({ group: '', version: 'v1', kind: 'Node', plural: 'nodes', namespaced: false, status: true });
    for (const n of [NP_NS, FLEET_NAMESPACE, FLEET_BUILD_NAMESPACE]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: PUSH_SECRET_NAME, namespace: FLEET_NAMESPACE }, data: { '.dockerconfigjson': Buffer.from(JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`${reg.user}:${reg.password}`).toString('base64') } } })).toString('base64') } });
    writeFileSync(path.join(dir, 'fleet.kubeconfig'), mgmt.kubeconfig(FLEET_USERNAME), { mode: 0o600 });

    // Hold times from the server's own event stream: the write that put a NodePool's hold, the one that lifted it.
    const holds = new Map<string, { at: number; released?: number }>();
    {
      type Ev = { type: string; coll: { type: { kind: string } }; obj: { metadata?: { name?: string }; spec?: { pausedUntil?: unknown } }; prev?: { spec?: { pausedUntil?: unknown } } };
      const srv = mgmt as unknown as { emit(e: Ev): void };
      const emit = srv.emit.bind(mgmt);
      srv.emit = (e: Ev) => {
        emit(e);
        if (e.type !== 'MODIFIED' || e.coll.type.kind !== 'NodePool') return;
        const was = e.prev?.spec?.pausedUntil != null;
        const is = e.obj.spec?.pausedUntil != null;
        const name = e.obj.metadata?.name ?? '';
        if (!was && is) holds.set(name, { at: performance.now() });
        else if (was && !is) {
          const h = holds.get(name);
          if (h && h.released === undefined) h.released = performance.now();
        }
      };
    }

    // HyperShift's NodePool controller: the test stand-in (test/builder/hypershift-standin.ts, faithful to
    // upstream's config hashes and pause semantics) on real time: it writes each NodePool's status
    // (UpdatingConfig's target moves when it reads a hand-off) and rolls machines, so rollouts finish.
    const realClock = { now: () => Date.now(), setTimeout: (f: () => void, ms: number) => setTimeout(f, ms), clearTimeout: (h: unknown) => clearTimeout(h as NodeJS.Timeout) } as unknown as SimClock;
    const standIn = new HyperShiftStandIn({ server: mgmt, clock: realClock, reconcileDelayMs: 200, machineBootMs: BOOT_MS, nodeUpgradeMs: BOOT_MS });
    standIn.start();
    stopStandIn = () => standIn.stop();

    const argv = args(dir, images.repo, PROVIDER_IMAGE, reg.host);
    child = spawn(pinned ? 'taskset' : process.execPath, [...(pinned ? ['-c', '0', process.execPath] : []), '--require', `${dir}/loopback.cjs`, path.join(root, 'bin', 'on-cluster-build.js'), ...argv], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { ...process.env, POD_NAMESPACE: FLEET_NAMESPACE, NODE_EXTRA_CA_CERTS: '', NODE_OPTIONS },
    });
    const c = child;
    const pid = c.pid!;
    let tailBuf = '';
    let rest = '';
    let webhookPort = 0;
    const counts = new Map<string, number>();
    const firstOf = new Map<string, string>();
    c.stderr!.on('data', (d: Buffer) => {
      const lines = (rest + d.toString()).split('\n');
      rest = lines.pop()!;
      if (LOG_FILE) appendFileSync(LOG_FILE, lines.map((l) => `${l}\n`).join(''));
      for (const l of lines) {
        const msg = /"msg":"([^"]*)"/.exec(l)?.[1] ?? '?';
        const k = msg === 'prebuild' ? `prebuild ${/"state":"(\w+)"/.exec(l)?.[1] ?? '?'}` : msg;
        counts.set(k, (counts.get(k) ?? 0) + 1);
        if (!firstOf.has(k) && /failed/.test(k)) firstOf.set(k, l.slice(0, 600));
        if (msg === 'serving') webhookPort = Number(/"webhookPort":(\d+)/.exec(l)?.[1] ?? 0);
        if (msg !== 'admission') tailBuf = (tailBuf + l + '\n').slice(-3000);
      }
    });
    const tail = () => tailBuf.slice(-1500);
    const m = mgmt;
    const until = async (what: string, cond: () => boolean, pollMs = 250): Promise<number> => {
      const t0 = Date.now();
      while (!cond()) {
        if (c.exitCode !== null || c.signalCode !== null) throw new Error(`the fleet process exited (${c.exitCode ?? c.signalCode}) waiting for ${what}: ${tail()}`);
        if (Date.now() - t0 > STEP_TIMEOUT_MS) throw new Error(`timed out after ${STEP_TIMEOUT_MS / 1000} s waiting for ${what}: ${tail()}`);
        await sleep(pollMs);
      }
      return (Date.now() - t0) / 1000;
    };
    const mine = (from = 0) => m.audit.slice(from).filter((e) => e.user === FLEET_USERNAME);
    const byVerb = (from: number) => {
      const acc = new Map<string, number>();
      for (const e of mine(from)) {
        const k = `${e.verb} ${e.resource}`;
        acc.set(k, (acc.get(k) ?? 0) + 1);
      }
      return [...acc].sort().map(([k, n]) => `${n} ${k}`).join(', ') || 'none';
    };
    /** The child's process.memoryUsage() in MiB: heap used/total, external (of which array buffers). */
    const heap = async () => {
      rmSync(`${dir}/mem.json`, { force: true });
      c.kill('SIGUSR2');
      for (let i = 0; i < 40; i++) {
        await sleep(50);
        try {
          const u = JSON.parse(readFileSync(`${dir}/mem.json`, 'utf8')) as Record<string, number>;
          const f = (k: string) => (u[k]! / 1048576).toFixed(1);
          return `used ${f('heapUsed')} of ${f('heapTotal')}, external ${f('external')} (buffers ${f('arrayBuffers')})`;
        } catch {
          // not written yet
        }
      }
      return 'heap: no answer';
    };
    const openWatches = () => (m as unknown as { watchers: Set<unknown> }).watchers.size;
    const nodePoolLists = () => mine().filter((e) => e.verb === 'list' && e.resource === 'nodepools').length;
    const window = async (label: string): Promise<Window> => {
      const from = m.audit.length;
      const cpu0 = cpuSeconds(pid);
      await sleep(WINDOW_MS);
      return { label, cpu: cpuSeconds(pid) - cpu0, requests: mine(from).length, watchRequests: mine(from).filter((e) => e.verb === 'watch').length, verbs: byVerb(from), mem: procStatus(pid), heap: await heap(), watches: openWatches(), fds: fds(pid), load: load() };
    };

    // Idle: serving, Lease held, the (empty) NodePool list done.
    const leased = () => m.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: FLEET_LEASE_NAME, namespace: FLEET_NAMESPACE })?.spec?.holderIdentity !== undefined;
    const startS = await until('the Lease and the NodePool list', () => webhookPort > 0 && leased() && nodePoolLists() > 0);
    /** The loop (and its resync clock) starts once the Lease is held. */
    const leasedAt = Date.now();
    await sleep(SETTLE_MS);
    const idle = { mem: procStatus(pid), heap: await heap(), cpu: cpuSeconds(pid), fds: fds(pid), load: load() };

    // Take-in: the fleet, all at once (a new leader over a fleet already served: the first NodePool of each HC handed off for R1).
    const takeFrom = m.audit.length;
    const cpuTake0 = cpuSeconds(pid);
    // The management cluster's workers (amd64, Ready): build capacity for the arch (the precondition asks only without a prebuilt image).
    for (let i = 0; i < 3; i++) m.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: `worker-${i}`, labels: { 'kubernetes.io/arch': 'amd64', 'kubernetes.io/os': 'linux' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    for (let h = 0; h < HCS; h++) {
      m.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: hcpNamespaces[h]! } });
      m.store.put({ ...HC, metadata: { name: hcName(h), namespace: NP_NS, labels: { 'provider.example.com/ring': h < 5 ? 'canary' : 'main' } }, spec: { release: { image: R1 } } });
      m.store.put(hostedControlPlane(h, R1));
      // The per-HCP controller's published pull secret keys (no credential): they cover the provider repository.
      m.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: PULL_KEYS_CONFIGMAP.name, namespace: hcpNamespaces[h]!, labels: { [MANAGED_BY]: MANAGED_BY_VALUE } }, data: { [PULL_KEYS_CONFIGMAP.key]: `${reg.host}\n` } });
    }
    for (let h = 0; h < HCS; h++) {
      for (let p = 0; p < POOLS_PER_HC; p++) m.store.put(nodePool(h, p, R1));
      m.store.put(providerHandoff(hcpNamespaces[h]!, npName(h, 0), PROVIDER_IMAGE, R1));
    }
    const nps = () => m.store.list(NODEPOOL.apiVersion, NODEPOOL.kind, NP_NS);
    const gated = () => nps().filter((o) => o.metadata?.labels?.[GATED_LABEL] === 'true').length;
    const handoffRelease = (h: number, p: number) => m.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: handoffName(npName(h, p)), namespace: hcpNamespaces[h]! })?.metadata?.annotations?.[HANDOFF_RELEASE_ANNOTATION] as string | undefined;
    const handedOff = (release?: string) => {
      let n = 0;
      for (let h = 0; h < HCS; h++) for (let p = 0; p < POOLS_PER_HC; p++) if (release ? handoffRelease(h, p) === release : handoffRelease(h, p) !== undefined) n++;
      return n;
    };
    /** HCP namespaces with the provider-images ConfigMap, and NodePool entries in them (for `release`, if given). */
    const published = (release?: string) => {
      let namespaces = 0;
      let entries = 0;
      for (const ns of hcpNamespaces) {
        const cm = m.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: ns });
        if (!cm) continue;
        namespaces++;
        for (const [k, v] of Object.entries((cm.data ?? {}) as Record<string, string>)) if (k !== PROVIDER_LAYER_KEY && (!release || (JSON.parse(v) as { release?: string }).release === release)) entries++;
      }
      return { namespaces, entries };
    };
    const watchesOpened = (resource: string, from: number) => new Set(mine(from).filter((e) => e.verb === 'watch' && e.resource === resource).map((e) => e.namespace)).size;
    const NPS = HCS * POOLS_PER_HC;
    const takeS = await until(
      'every NodePool labelled, its provider-images entry published (no new hand-off: RideReleaseChange), the hand-off and HostedControlPlane watches open',
      () => gated() === NPS && handedOff() === HCS && published(R1).entries === NPS && watchesOpened('configmaps', takeFrom) === HCS && watchesOpened('hostedcontrolplanes', 0) >= 1,
      500,
    );
    await sleep(SETTLE_MS);
    const took = { cpu: cpuSeconds(pid) - cpuTake0, mem: procStatus(pid), requests: mine(takeFrom).length, verbs: byVerb(takeFrom), watches: openWatches(), fds: fds(pid), load: load(), entries: published(R1).entries, created: handedOff() - HCS };
    const steady = await window('fleet taken in');

    const agent = new https.Agent({ keepAlive: true, maxSockets: 16 });
    const admit = (body: string, sent: number[]) =>
      new Promise<{ status: number; review: { response?: { allowed?: boolean; patch?: string } } }>((resolve, reject) => {
        const ts = performance.now();
        const req = https.request({ host: '127.0.0.1', port: webhookPort, path: MUTATE_NODEPOOL_PATH, method: 'POST', ca, agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
          let t = '';
          res.setEncoding('utf8');
          res.on('data', (x: string) => (t += x));
          res.on('end', () => {
            sent.push(performance.now() - ts);
            try {
              resolve({ status: res.statusCode ?? 0, review: JSON.parse(t) });
            } catch (e) {
              reject(e);
            }
          });
        });
        req.on('error', reject);
        req.end(body);
      });
    const order: [number, number][] = [];
    for (let h = 0; h < HCS; h++) for (let p = 0; p < POOLS_PER_HC; p++) order.push([h, p]);
    // FLEET_BENCH_BUMPS: only the first N NodePools (both of a HostedCluster, HostedCluster by HostedCluster) move on an upgrade day; the fleet still holds them all.
    order.splice(BUMPS);

    /** Every NodePool's release `to` at RATE/s through the webhook; until every hand-off names it and no NodePool is paused. */
    const nodePoolDay = async (to: string) => {
      const from = m.audit.length;
      const cpu0 = cpuSeconds(pid);
      holds.clear();
      const lat: number[] = [];
      /** From handing the request to https to its answer (without the load generator's own delay). */
      const sent: number[] = [];
      let errors = 0;
      let held = 0;
      /** Release changes applied (a refused admission leaves its NodePool where it was, as the API server would). */
      let moved = 0;
      const t0 = performance.now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < order.length; i++) {
        const due = t0 + (i * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 1) await sleep(wait);
        const [h, p] = order[i]!;
        const ref = { ...NODEPOOL, name: npName(h, p), namespace: NP_NS };
        const old = m.store.get(ref)!;
        const next = { ...old, spec: { ...old.spec, release: { image: to } } };
        const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: `bump-${i}`, kind: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool' }, resource: { group: 'hypershift.openshift.io', version: 'v1beta1', resource: 'nodepools' }, namespace: NP_NS, name: ref.name, operation: 'UPDATE', userInfo: { username: 'system:serviceaccount:ocm:upgrade-service' }, object: next, oldObject: old } });
        pending.push(
          admit(body, sent).then(
            (a) => {
              lat.push(performance.now() - due);
              if (a.status !== 200 || a.review.response?.allowed !== true) {
                errors++;
                return;
              }
              // The API server applies the patch to the object it is writing: the release change and the hold in one write.
              const ops = a.review.response.patch ? (JSON.parse(Buffer.from(a.review.response.patch, 'base64').toString('utf8')) as unknown[]) : [];
              if (ops.length) held++;
              const cur = m.store.get(ref)!;
              m.store.put(api.jsonPatch({ ...cur, spec: { ...cur.spec, release: { image: to } } }, ops) as never);
              moved++;
            },
            () => {
              errors++;
            },
          ),
        );
      }
      await Promise.all(pending);
      const sentS = (performance.now() - t0) / 1000;
      const loadDuringBumps = load();
      const paused = () => nps().filter((o) => o.spec?.pausedUntil !== undefined).length;
      const doneS = await until(`every hand-off rewritten for ${to}, no NodePool paused, no rollout going on`, () => handedOff(to) === moved && paused() === 0 && !standIn.anyRolling(), 500).catch((e: Error) => {
        const stuck = nps().find((o) => o.spec?.pausedUntil !== undefined);
        throw new Error(`${e.message}\n(handed off for it: ${handedOff(to)} of ${NPS}; paused: ${paused()}; rolling: ${standIn.anyRolling()}; a paused one: ${JSON.stringify({ name: stuck?.metadata?.name, annotations: stuck?.metadata?.annotations, conditions: (stuck?.status as { conditions?: unknown[] } | undefined)?.conditions })})`);
      });
      await sleep(SETTLE_MS);
      const hold = [...holds.values()].map((x) => (x.released ?? NaN) - x.at).sort((a, b) => a - b);
      lat.sort((a, b) => a - b);
      sent.sort((a, b) => a - b);
      const counted = countRequests(m.audit.slice(from), FLEET_USERNAME);
      const perNodePool = { total: perStep(counted, moved), reads: gateReads(m.audit.slice(from), FLEET_USERNAME, FLEET_NAMESPACE) / moved, what: describeCount(counted) };
      return { perNodePool, moved, sentS, doneS, loadDuringBumps, lat, sent, errors, held, hold, cpu: cpuSeconds(pid) - cpu0, mem: procStatus(pid), requests: mine(from).length, verbs: byVerb(from), watches: openWatches(), fds: fds(pid), load: load(), entries: published(to).entries };
    };

    // Upgrade day 1, NodePools only (no control plane moves first): R1 → R2.
    const day1 = await nodePoolDay(R2);
    const afterDay1 = await window('after upgrade day 1');

    // Upgrade day 2 (unless FLEET_BENCH_DAY2=0), control planes first: every HostedControlPlane R2 → R3 at RATE/s (pre-builds), then the NodePools.
    const upgradeDay2 = async () => {
        const hcpFrom = m.audit.length;
      const cpuHcp0 = cpuSeconds(pid);
      const prebuilds = () => [...counts].filter(([k]) => k.startsWith('prebuild')).reduce((a, [, n]) => a + n, 0);
      const prebuilds0 = prebuilds();
      const exists0 = counts.get('prebuild Exists') ?? 0;
      {
        const t0 = performance.now();
        for (let h = 0; h < HCS; h++) {
          const wait = t0 + (h * 1000) / RATE - performance.now();
          if (wait > 1) await sleep(wait);
          const ref = { ...HCP, name: hcName(h), namespace: hcpNamespaces[h]! };
          const cur = m.store.get(ref)!;
          m.store.put({ ...cur, spec: { ...cur.spec, releaseImage: R3 } } as never);
        }
      }
      // Every control plane's pre-build asked (the lines say Exists or Building: a pre-build asked while the image's first look-up runs says Building, and nothing asks again until the NodePools move).
      const hcpS = await until('a pre-build asked for every control plane', () => prebuilds() - prebuilds0 >= HCS, 500);
      await sleep(SETTLE_MS);
      const hcpDay = { cpu: cpuSeconds(pid) - cpuHcp0, requests: mine(hcpFrom).length, verbs: byVerb(hcpFrom), prebuilds: prebuilds() - prebuilds0, exists: (counts.get('prebuild Exists') ?? 0) - exists0, building: counts.get('prebuild Building') ?? 0, failed: (counts.get('prebuild Failed') ?? 0) + (counts.get('prebuild failed') ?? 0), paused: nps().filter((o) => o.spec?.pausedUntil !== undefined).length, mem: procStatus(pid), load: load() };
      const day2 = await nodePoolDay(R3);
      const afterDay2 = await window('after upgrade day 2');
      return { hcpS, hcpDay, day2, afterDay2 };
    };
    const d2 = DAY2 ? await upgradeDay2() : undefined;

    // The resync: RESYNC_SECONDS after the Lease; a window from 5 s before it.
    let resync: Window | undefined;
    let resyncLate = false;
    if (WAIT_RESYNC) {
      const at = leasedAt + (RESYNC_SECONDS - 5) * 1000;
      resyncLate = at <= Date.now();
      if (!resyncLate) await until('the resync', () => Date.now() >= at, 1000);
      resync = await window(`around the first resync (${RESYNC_SECONDS} s after the Lease)${resyncLate ? ', LATE: the phases before it ran past it' : ''}`);
    }
    const final = procStatus(pid);
    const denied = mine().filter((e) => e.code === 403).length;
    const buildNamespaceRequests = mine().filter((e) => e.namespace === FLEET_BUILD_NAMESPACE).length;
    const n = (k: string) => counts.get(k) ?? 0;
    agent.destroy();

    const cmd = `node --require $DIR/loopback.cjs bin/on-cluster-build.js ${argv.map((a) => a.replace(dir, '$DIR')).join(' ')}`;
    const win = (w: Window, what = 'with no change') => [
      `| ${w.label}: fleet CPU / its requests over ${WINDOW_MS / 1000} s ${what} (of which watch requests) | ${w.cpu.toFixed(2)} s / ${w.requests} (${w.verbs}) (watch: ${w.watchRequests}) |`,
      `| … RSS at its end (peak so far) / V8 heap (MiB) / watches open / fds | ${mib(w.mem.rssKb)} MiB (${mib(w.mem.hwmKb)}) / ${w.heap} / ${w.watches} / ${w.fds} (load ${w.load}) |`,
    ];
    const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
    const dayRows = (label: string, d: Awaited<ReturnType<typeof nodePoolDay>>, to: string) => [
      `| ${label}: ${order.length} bumps sent in / all handed off for ${to} and unpaused after | ${d.sentS.toFixed(1)} s / ${d.doneS.toFixed(1)} s more (load during bumps ${d.loadDuringBumps}) |`,
      `| … admission latency from the scheduled send, p50 / p99 / max (${d.lat.length} admissions, ${d.errors} errors, ${d.held} held) | ${pct(d.lat, 50).toFixed(2)} / ${pct(d.lat, 99).toFixed(2)} / ${(d.lat[d.lat.length - 1] ?? NaN).toFixed(2)} ms |`,
      `| … from the actual send (without the load generator's delay) p50 / p99 / max | ${pct(d.sent, 50).toFixed(2)} / ${pct(d.sent, 99).toFixed(2)} / ${(d.sent[d.sent.length - 1] ?? NaN).toFixed(2)} ms |`,
      `| … **hold time** (hold written → lifted), p50 / p90 / p99 / max over ${d.hold.length} holds; held > 1 s | ${ms(pct(d.hold, 50))} / ${ms(pct(d.hold, 90))} / ${ms(pct(d.hold, 99))} / ${ms(d.hold[d.hold.length - 1] ?? NaN)} ms; ${d.hold.filter((x) => !(x <= 1000)).length} |`,
      `| … fleet CPU over the day / its requests | ${d.cpu.toFixed(1)} s / ${d.requests} (${d.verbs}) |`,
      `| … **API requests per NodePool per rollout step** (${d.moved} NodePools moved once each, until every rollout finished; the issue's bound ${MAX_REQUESTS_PER_STEP}) / of them gate-path reads | **${d.perNodePool.total.toFixed(2)}** / ${d.perNodePool.reads.toFixed(2)} (${d.perNodePool.what}) |`,
      `| … RSS after it (peak so far) / watches / fds / provider-images entries for ${to} | ${mib(d.mem.rssKb)} MiB (${mib(d.mem.hwmKb)}) / ${d.watches} / ${d.fds} / ${d.entries} (load ${d.load}) |`,
    ];
    return [
      '## Fleet component footprint (on-cluster-build fleet)',
      '',
      `Command: \`make build && npm run bench -- fleet\` (test/bench/fleet.ts). ${pinned ? 'Fleet pinned to core 0 (`taskset -c 0`), API test server and load generator to core 1.' : 'Not pinned.'}`,
      `NODE_OPTIONS \`${NODE_OPTIONS || '(none)'}\`${NODE_OPTIONS === FLEET_NODE_OPTIONS ? " (the Deployment's)" : ' (FLEET_BENCH_NODE_OPTIONS)'}, POD_NAMESPACE=${FLEET_NAMESPACE}:`,
      `\`${cmd.split(reg.host).join('$REGISTRY')}\``,
      `${HCS} HCP namespaces (a HostedControlPlane, a HostedCluster and published pull keys each; 3 amd64 Nodes), ${NPS} NodePools, ${HCS} hand-offs to start with; releases R1-R3 and the provider image in docker-registry (basic auth) at $REGISTRY; bookmarks every ${BOOKMARK_S} s; upgrade days at ${RATE} bumps/s; the default rollout policy (RideReleaseChange); HyperShift's NodePool controller: the test stand-in on real time (Replace, 3 replicas, a machine boots in ${BOOT_MS} ms).`,
      '',
      '| | value |',
      '|---|---:|',
      `| start → serving, Lease held, NodePool list done | ${startS.toFixed(1)} s |`,
      `| RSS idle, empty cluster (peak so far) / V8 heap (MiB) / CPU to start / fds | ${mib(idle.mem.rssKb)} MiB (${mib(idle.mem.hwmKb)}) / ${idle.heap} / ${idle.cpu.toFixed(2)} s / ${idle.fds} (load ${idle.load}) |`,
      `| take-in: wall until all ${NPS} NodePools labelled and their provider-images entries published (${took.created} hand-offs created: the default policy writes none before a release change), ${HCS} hand-off watches and the HostedControlPlane watch open / fleet CPU | ${takeS.toFixed(1)} s / ${took.cpu.toFixed(1)} s |`,
      `| … provider-images entries for R1 at its end (of ${NPS} NodePools) | ${took.entries} |`,
      `| … its requests | ${took.requests} (${took.verbs}) |`,
      `| RSS after take-in (peak so far) / watches open at the server / fds | ${mib(took.mem.rssKb)} MiB (${mib(took.mem.hwmKb)}) / ${took.watches} / ${took.fds} (load ${took.load}) |`,
      ...win(steady),
      ...dayRows('upgrade day 1, NodePools only (R1 → R2)', day1, 'R2'),
      ...win(afterDay1),
      ...(d2
        ? [
            `| upgrade day 2, control planes first: ${HCS} HostedControlPlanes R2 → R3 at ${RATE}/s, until a pre-build per HCP was asked | ${d2.hcpS.toFixed(1)} s after the last (pre-build lines: ${d2.hcpDay.prebuilds}, of which Exists ${d2.hcpDay.exists}, Building ${d2.hcpDay.building}, failed ${d2.hcpDay.failed}; NodePools paused: ${d2.hcpDay.paused}) |`,
            `| … fleet CPU / its requests (bumps + ${SETTLE_MS / 1000} s) / RSS (peak so far) | ${d2.hcpDay.cpu.toFixed(1)} s / ${d2.hcpDay.requests} (${d2.hcpDay.verbs}) / ${mib(d2.hcpDay.mem.rssKb)} MiB (${mib(d2.hcpDay.mem.hwmKb)}) (load ${d2.hcpDay.load}) |`,
            ...dayRows('… then the NodePools (R2 → R3)', d2.day2, 'R3'),
            ...win(d2.afterDay2),
          ]
        : ['| upgrade day 2 | not run (FLEET_BENCH_DAY2=0) |']),
      ...(resync ? win(resync, 'from 5 s before it') : []),
      `| provider-images entries after the run: for R3 / all | ${published(R3).entries} / ${published().entries} |`,
      `| peak RSS over the run (VmHWM) | ${mib(final.hwmKb)} MiB |`,
      `| gate log lines: Paused / HandedOff / Unpaused / TimedOut; gate failed / watch failed / resync failed / prebuild failed | ${n('gate Paused')} / ${n('gate HandedOff')} / ${n('gate Unpaused')} / ${n('gate TimedOut')}; ${n('gate failed')} / ${n('watch failed')} / ${n('resync failed')} / ${n('prebuild failed')} |`,
      ...[...firstOf].map(([k, l]) => `| first '${k}' line | \`${l.replace(/\|/g, '\\|').split(reg!.host).join('$REGISTRY')}\` |`),
      `| requests denied by the package's RBAC / requests in the build namespace | ${denied} / ${buildNamespaceRequests} |`,
      `| load average at the end (1 min, 2 cores shared) | ${loadavg()[0]!.toFixed(2)}${resyncLate ? ' (resync window late)' : ''} |`,
      '',
    ].join('\n');
  } finally {
    stopStandIn();
    await stopChild(child);
    await mgmt?.stop();
    await harness.cleanupRegistry(reg);
    rmSync(dir, { recursive: true, force: true });
  }
}

// `node dist/test/bench/fleet.js` runs this section alone.
if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  bench().then((s) => process.stdout.write(`${s}\n`), (e) => {
    process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  });
}
