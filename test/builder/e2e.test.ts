/**
 * End to end on this machine: the project's API test server plays the management cluster (HCP
 * namespace `clusters-banana`: token Secrets, Cluster API objects, the HostedControlPlane) and
 * the hosted cluster (our API, Nodes, the build namespace). The release resolver and the registry
 * check of built images are in-memory fakes keyed the way the real ones are (release, arch, OS
 * stream; pushed digest, arch, base). A user's NodePoolOSConfig becomes a build Job in the
 * hosted cluster's data plane with that NodePool's own base image; the test plays the Job
 * controller and kubelet (and a hostile tenant) and checks the build record, the config status,
 * the hand-off to HyperShift, idempotence, and that every request the controller made is granted
 * by the package's Roles and every grant is used.
 */
import { createHash } from 'node:crypto';
import { ApiTestServer, AuditEntry, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, KubeObject, RESOURCES, type Resource } from '../../builder/clusters/kube.js';
import { REBUILD_ANNOTATION } from '../../builder/controller/decide.js';
import { Reconciler } from '../../builder/controller/reconciler.js';
import type { ReconcilerOptions, ResolveOptions, VerifyImageInput } from '../../builder/controller/options.js';
import { runController } from '../../builder/controller/run.js';
import { WorkQueue } from '../../builder/controller/queue.js';
import { LeaderElector } from '../../builder/clusters/leader.js';
import { wiring } from '../../builder/wiring.js';
import { HOSTED_NAMESPACED_RULES, HOSTED_RULES, LEASE_NAME, MANAGEMENT_RULES, PolicyRule } from '../../builder/policy/rbac.js';
import { CONTROLLER_USERNAME } from '../../builder/cli.js';
import { managementUser, startClusters } from './clusters.js';
import { HANDOFF_PREFIX, HANDOFF_RELEASE_ANNOTATION, NO_PROVIDER_LAYER, OS_IMAGE_MACHINE_CONFIG, PROVIDER_IMAGES_CONFIGMAP, PROVIDER_LAYER_KEY, providerImageEntryText, WANTED_RELEASE_ANNOTATION } from '../../builder/controller/handoff.js';
import { b64, dockerConfigJson, pullSecret, tokenSecret } from './fixtures.js';
import { nodePoolOSConfig, RECONCILER_DEFAULTS } from './hcp-fixtures.js';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { PULL_KEYS_CONFIGMAP } from '../../builder/api/types.js';
import { startWebhookServer } from '../../builder/webhook/server.js';
import { WEBHOOK_PATHS } from '../../builder/api/types.js';
import { makeCert, post } from './webhook-client.js';
import { ControllerTelemetry } from '../../builder/metrics/controller.js';
import { METRICS } from '../../builder/metrics/catalogue.js';
import { Metrics } from '../../builder/metrics/registry.js';
import { EventObject, EventRecorder } from '../../builder/metrics/events.js';

const NS = 'clusters-banana';
const HOSTED_NS = 'openshift-on-cluster-build';
const BUILD_NS = 'on-cluster-build-jobs';
const MGMT_USER = managementUser(NS);
const USER_MC = 'apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: 99-worker-ssh\n';
const CONTAINERFILE = 'FROM configs AS final\nRUN echo layered > /etc/layered\n';
const DIGEST = (c: string) => 'sha256:' + c.repeat(64);
const sha = (s: string) => 'sha256:' + createHash('sha256').update(s).digest('hex');
const PUSH_HOST = 'quay.example.com';
const RELEASE_419 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('b')}`;
const RELEASE_50 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('c')}`;
const RELEASE_416 = `quay.io/openshift-release-dev/ocp-release@${DIGEST('d')}`;
const VERSION: Record<string, string> = { [RELEASE_419]: '4.19.0', [RELEASE_50]: '5.0.0', [RELEASE_416]: '4.16.3' };
const HOSTED_PULL = dockerConfigJson('quay.io', 'hosted-pull', 'hosted-pull-password');
const HCP_PULL = JSON.stringify({ auths: { 'quay.io': { auth: b64('hcp:hcp-password') }, [PUSH_HOST]: { auth: b64('nodes:nodes-password') } } });


/** The fake release payloads: one base OS per release, arch and stream, as a real multi-arch payload has. */
const baseFor = (release: string, arch: string, stream?: string) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${sha(`${release} ${arch} ${stream ?? 'rhel-9'} base`)}`;
const mcoFor = (release: string, arch: string) => `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${sha(`${release} ${arch} mco`)}`;

describe('on-cluster-build controller, end to end', () => {
  let mgmt: ApiTestServer;
  let hosted: ApiTestServer;
  /** What the registry holds: pushed image → its arch and base (what verifyBuiltImage reads). */
  const registry = new Map<string, { arch: string; base: string }>();
  const resolves: (ResolveOptions & { release: string })[] = [];
  const verifies: VerifyImageInput[] = [];
  let hang: string | undefined;
  const logs: string[] = [];

  const options = (over: Partial<ReconcilerOptions> = {}): ReconcilerOptions => {
    const w = wiring({ cacheSize: 4 });
    return {
      management: new Kube(mgmt.kubeConfig(MGMT_USER)),
      hosted: new Kube(hosted.kubeConfig(CONTROLLER_USERNAME)),
      namespace: NS,
      resolveRelease: async (release, o) => {
        resolves.push({ release, ...o });
        if (release === hang) return new Promise(() => {}); // a registry that never answers
        if (!VERSION[release]) throw new Error(`release ${release}: manifest unknown`);
        return { releaseDigest: release.split('@')[1], baseOSImage: baseFor(release, o.arch, o.stream), machineConfigOperatorImage: mcoFor(release, o.arch), version: VERSION[release] };
      },
      verifyImage: async (i) => {
        verifies.push(i);
        const r = registry.get(i.pushRef);
        if (!r) return { ok: false, reason: `${i.pushRef}: manifest unknown` };
        if (r.arch !== i.arch) return { ok: false, reason: `${i.pushRef} is for ${r.arch}, not ${i.arch}` };
        if (r.base !== i.baseImageRef) return { ok: false, reason: `${i.pushRef} does not descend from ${i.baseImageRef}` };
        return { ok: true };
      },
      nodePoolInputs: w.nodePoolInputs,
      validateConfig: w.validateConfig,
      ...RECONCILER_DEFAULTS,
      log: (msg, fields) => logs.push(JSON.stringify({ msg, ...fields })),
      ...over,
    };
  };
  const reconciler = (over: Partial<ReconcilerOptions> = {}) => new Reconciler(options(over));
  const jobs = () => hosted.store.list('batch/v1', 'Job', BUILD_NS);
  const build = (name: string) => hosted.store.get({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSBuild', name });
  const config = (name: string) => hosted.store.get({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name })!;
  const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
  const jobsFor = (nodePool: string) => jobs().filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === nodePool);
  const jobFor = (nodePool: string) => jobsFor(nodePool).find((j) => !(j.status?.conditions ?? []).length) ?? jobsFor(nodePool)[0];
  const handoff = (np: string) => mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}${np}`, namespace: NS });

  /** A NodePool as the HCP namespace shows it: token Secret, MachineDeployment, Machines. */
  function nodePool(name: string, o: { release: string; arch?: string; archFrom?: 'autoscaler' | 'machine'; stream?: string; taints?: object[]; hash?: string }) {
    const key = `clusters/${name}`;
    const secret = tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: name, hash: o.hash ?? '1a2b3c4d', release: o.release, config: USER_MC, created: '2026-11-23T09:00:00Z' });
    if (o.stream) (secret.data as Record<string, string>)['os-stream'] = b64(o.stream);
    mgmt.store.put(secret);
    mgmt.store.put({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'MachineDeployment',
      metadata: {
        name: `banana-${name}`,
        namespace: NS,
        annotations: { 'hypershift.openshift.io/nodePool': key, ...(o.arch && o.archFrom !== 'machine' ? { 'capacity.cluster-autoscaler.kubernetes.io/labels': `kubernetes.io/arch=${o.arch},team=a` } : {}) },
      },
      spec: { template: { metadata: { annotations: { 'hypershift.openshift.io/nodePool': key } } } },
    });
    mgmt.store.put({
      apiVersion: 'cluster.x-k8s.io/v1beta1',
      kind: 'Machine',
      metadata: { name: `banana-${name}-x1`, namespace: NS, annotations: { 'hypershift.openshift.io/nodePool': key, 'hypershift.openshift.io/nodePoolTaints': JSON.stringify(o.taints ?? []) } },
      spec: { bootstrap: { dataSecretName: `user-data-${name}-1a2b3c4d` } },
      status: o.archFrom === 'machine' ? { nodeInfo: { architecture: o.arch, osImage: 'Red Hat Enterprise Linux CoreOS' } } : {},
    });
  }

  function node(name: string, arch: string, ready = true) {
    hosted.store.put({
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name, labels: { 'kubernetes.io/arch': arch, 'kubernetes.io/hostname': name } },
      spec: {},
      status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], images: [{ names: ['x'], sizeBytes: 1 }] },
    });
  }

  /** What the Job controller and kubelet would write once the build pod ends. */
  function finishJob(jobName: string, outcome: { digest?: string; failed?: { reason: string; message: string; log: string } }) {
    const job = hosted.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: BUILD_NS })!;
    const t0 = '2026-11-23T10:00:00Z';
    const t1 = '2026-11-23T10:07:00Z';
    const terminated = outcome.digest ? { exitCode: 0, reason: 'Completed', message: outcome.digest } : { exitCode: 1, reason: 'Error', message: outcome.failed!.log };
    hosted.store.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${jobName}-x7k2p`, namespace: BUILD_NS, labels: { ...job.spec.template.metadata.labels, 'batch.kubernetes.io/job-name': jobName }, creationTimestamp: t0 },
      spec: job.spec.template.spec,
      status: { phase: outcome.digest ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'build', state: { terminated } }] },
    });
    const conditions = outcome.digest
      ? [{ type: 'Complete', status: 'True', lastTransitionTime: t1 }]
      : [{ type: 'Failed', status: 'True', reason: outcome.failed!.reason, message: outcome.failed!.message, lastTransitionTime: t1 }];
    hosted.store.put({ ...job, status: { startTime: t0, ...(outcome.digest ? { completionTime: t1, succeeded: 1 } : { failed: 3 }), conditions } });
  }

  /** The image a build of `nodePool` would push, present in the registry with the right arch and base. */
  function pushed(nodePoolName: string, digest: string, arch: string, base: string): string {
    const ref = `${PUSH_HOST}/layered/${nodePoolName}@${digest}`;
    registry.set(ref, { arch, base });
    return ref;
  }

  beforeAll(async () => {
    ({ mgmt, hosted } = await startClusters(startApiServer, NS));

    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgmt.store.put(pullSecret(NS, 'pull-secret', HCP_PULL));
    mgmt.store.put({
      apiVersion: 'hypershift.openshift.io/v1beta1',
      kind: 'HostedControlPlane',
      metadata: { name: 'banana', namespace: NS },
      spec: { releaseImage: RELEASE_419, imageContentSources: [{ source: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev', mirrors: ['mirror.example.com/ocp/art-dev'] }] },
    });
    nodePool('workers-a', { release: RELEASE_419, arch: 'amd64', taints: [{ key: 'dedicated', value: 'build', effect: 'NoSchedule' }] });
    nodePool('workers-arm', { release: RELEASE_419, arch: 'arm64', archFrom: 'machine' });
    nodePool('workers-rhel10', { release: RELEASE_50, arch: 'amd64', stream: 'rhel-10' });
    nodePool('workers-s390', { release: RELEASE_50, arch: 's390x', archFrom: 'machine' });

    for (const ns of [HOSTED_NS, BUILD_NS, 'openshift-config', 'openshift-config-managed']) hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    // RHEL entitlements as insights-operator writes them on a cluster with nodes of several architectures.
    for (const [name, marker] of [['etc-pki-entitlement', 'DEFAULT'], ['etc-pki-entitlement-arm64', 'ARM64']]) {
      hosted.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name, namespace: 'openshift-config-managed' }, data: { 'entitlement.pem': b64(`CERT-${marker}`), 'entitlement-key.pem': b64(`KEY-${marker}`) } });
    }
    // The tenant's repository definitions (e.g. Satellite), under MCO's name.
    hosted.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'etc-yum-repos-d', namespace: HOSTED_NS }, data: { 'satellite.repo': '[satellite]\nbaseurl=https://satellite.example.com/\n' } });
    hosted.store.put(pullSecret('openshift-config', 'pull-secret', HOSTED_PULL));
    hosted.store.put(pullSecret(HOSTED_NS, 'push-creds', dockerConfigJson(PUSH_HOST, 'robot', 'push-password')));
    node('ip-10-0-1-1', 'amd64');
    node('ip-10-0-1-2', 'arm64');
    node('ip-10-0-1-3', 's390x', false); // not Ready: no capacity
    for (const np of ['workers-a', 'workers-arm', 'workers-rhel10', 'workers-s390']) hosted.store.put(nodePoolOSConfig(np));
  }, 60_000);

  afterAll(async () => {
    await mgmt?.stop();
    await hosted?.stop();
  });

  it('runs each build in the hosted cluster, from its own NodePool\'s base image, and nothing of it in the HCP namespace', async () => {
    await reconciler().reconcileAll();
    expect(jobs().map((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool']).sort()).toEqual(['workers-a', 'workers-arm', 'workers-rhel10']);
    // Nothing of a tenant build on the management side.
    expect(mgmt.store.list('batch/v1', 'Job', NS)).toEqual([]);
    expect(mgmt.store.list('v1', 'Pod', NS)).toEqual([]);
    // The one ConfigMap: the pull secret's auth keys for the webhook, no credential.
    expect(mgmt.store.list('v1', 'ConfigMap', NS).map((c) => c.metadata!.name)).toEqual([PULL_KEYS_CONFIGMAP.name]);
    const keys = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PULL_KEYS_CONFIGMAP.name, namespace: NS })!;
    expect(keys.data).toEqual({ [PULL_KEYS_CONFIGMAP.key]: `${PUSH_HOST}\nquay.io\n` });
    expect(JSON.stringify(keys)).not.toMatch(/password|bm9kZXM6|aGNwOm/);
    expect(mgmt.store.list('v1', 'Secret', NS).map((s) => s.metadata!.name).sort()).toEqual(['pull-secret', 'token-workers-a-1a2b3c4d', 'token-workers-arm-1a2b3c4d', 'token-workers-rhel10-1a2b3c4d', 'token-workers-s390-1a2b3c4d']);

    const cf = (np: string) => hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: jobFor(np).metadata!.name, namespace: BUILD_NS })!;
    expect(cf('workers-a').data.Containerfile).toContain(`FROM ${baseFor(RELEASE_419, 'amd64')} AS configs`);
    expect(cf('workers-arm').data.Containerfile).toContain(`FROM ${baseFor(RELEASE_419, 'arm64')} AS configs`);
    expect(cf('workers-rhel10').data.Containerfile).toContain(`FROM ${baseFor(RELEASE_50, 'amd64', 'rhel-10')} AS configs`);
    expect(resolves).toEqual(expect.arrayContaining([
      expect.objectContaining({ release: RELEASE_419, arch: 'arm64' }),
      expect.objectContaining({ release: RELEASE_50, arch: 'amd64', stream: 'rhel-10' }),
    ]));
    // Resolved with the HCP's pull secret on the management side; the build pulls with the hosted cluster's own.
    expect(resolves.every((r) => r.pullSecret === HCP_PULL)).toBe(true);
    const creds = hosted.store.get({ apiVersion: 'v1', kind: 'Secret', name: jobFor('workers-a').metadata!.name, namespace: BUILD_NS })!;
    expect(Buffer.from(creds.data['base.json'], 'base64').toString()).toBe(HOSTED_PULL);
    expect(JSON.parse(Buffer.from(creds.data['push.json'], 'base64').toString())).toEqual(JSON.parse(dockerConfigJson(PUSH_HOST, 'robot', 'push-password')));
    expect(Buffer.from(creds.data['base.json'], 'base64').toString()).not.toContain(b64('hcp:hcp-password'));
    // Entitlements: the hosted cluster's own, for the build's architecture first, mounted apart from the registry credentials.
    const entOf = (np: string) => {
      const sec = hosted.store.get({ apiVersion: 'v1', kind: 'Secret', name: jobFor(np).metadata!.name, namespace: BUILD_NS })!;
      return Buffer.from(sec.data['entitlement.entitlement.pem'] ?? '', 'base64').toString();
    };
    expect(entOf('workers-a')).toBe('CERT-DEFAULT');
    expect(entOf('workers-arm')).toBe('CERT-ARM64');
    expect(jobFor('workers-arm').spec.template.spec.volumes.find((v: any) => v.name === 'entitlement').secret.items.map((i: any) => i.path)).toEqual(['entitlement-key.pem', 'entitlement.pem']);
    expect(jobFor('workers-arm').spec.template.spec.volumes.find((v: any) => v.name === 'yum-repos').secret.items).toEqual([{ key: 'yum-repos.satellite.repo', path: 'satellite.repo' }]);
    expect(logs.join('\n')).not.toMatch(/CERT-|KEY-|Q0VSVC|S0VZL/);
    // Mirrors from the HostedControlPlane.
    expect(cf('workers-a').data['registries.conf']).toContain('location = "mirror.example.com/ocp/art-dev"');
    expect(cf('workers-a').data['registries.conf']).toContain('location = "quay.io/openshift-release-dev/ocp-v4.0-art-dev"');

    // Placement: a node of the NodePool's architecture, tolerating the NodePool's taints.
    const a = jobFor('workers-a').spec.template.spec;
    expect(a.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64' });
    expect(a.tolerations).toEqual([{ key: 'dedicated', operator: 'Equal', value: 'build', effect: 'NoSchedule' }]);
    expect(jobFor('workers-arm').spec.template.spec.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' });
    expect(jobFor('workers-arm').spec.template.spec.containers[0].image).toBe(mcoFor(RELEASE_419, 'arm64'));

    const recA = build(jobFor('workers-a').metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(recA.spec).toMatchObject({ nodePool: { name: 'workers-a' }, releaseImage: RELEASE_419, baseOSImage: baseFor(RELEASE_419, 'amd64') });
    expect(recA.status.builder.job).toEqual({ group: 'batch', resource: 'jobs', namespace: BUILD_NS, name: jobFor('workers-a').metadata!.name });
    expect(condition(config('workers-a'), 'Building')).toMatchObject({ status: 'True' });
  });

  it('a NodePool with no Ready node of its architecture waits for capacity, with no Job', async () => {
    const c = config('workers-s390');
    expect(condition(c, 'WaitingForCapacity')).toMatchObject({ status: 'True', reason: 'NoReadyNodeOfArchitecture' });
    expect(condition(c, 'WaitingForCapacity').message).toContain('s390x');
    expect(jobsFor('workers-s390')).toEqual([]);
  });

  it('creates no second Job after a restart or a retry', async () => {
    const before = jobs().map((j) => j.metadata!.uid).sort();
    await reconciler().reconcileAll();
    await reconciler().reconcileAll();
    expect(jobs().map((j) => j.metadata!.uid).sort()).toEqual(before);
  });

  it('never hands off on the tenant\'s word: a forged Succeeded record while the Job runs', async () => {
    const name = jobFor('workers-a').metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'];
    const rec = build(name)!;
    const forged = `${PUSH_HOST}/evil/rootkit@${DIGEST('6')}`;
    registry.set(forged, { arch: 'amd64', base: baseFor(RELEASE_419, 'amd64') });
    // The tenant writes nodepoolosbuilds/status as cluster admin (bypassing our webhook).
    hosted.store.put({ ...rec, status: { ...rec.status, digestedImagePushSpec: forged, conditions: [{ type: 'Succeeded', status: 'True', reason: 'BuildSucceeded', message: 'trust me', lastTransitionTime: '2026-11-23T10:01:00Z' }] } });
    await reconciler().reconcileAll();
    expect(handoff('workers-a')).toBeUndefined();
    expect(config('workers-a').status.currentImagePullSpec).toBeUndefined();
    expect(condition(config('workers-a'), 'Available')).toMatchObject({ status: 'False' });
    // The forged record is replaced by one that says what the controller observed.
    const now = build(name)!;
    expect(now.metadata!.uid).not.toBe(rec.metadata!.uid);
    expect(condition(now, 'Building')).toMatchObject({ status: 'True' });
    expect(now.status.digestedImagePushSpec).toBeUndefined();
  });

  it('hands off a verified image once the Job completes', async () => {
    const j = jobFor('workers-arm');
    const image = pushed('workers-arm', DIGEST('9'), 'arm64', baseFor(RELEASE_419, 'arm64'));
    finishJob(j.metadata!.name, { digest: DIGEST('9') });
    await reconciler().reconcileAll();
    expect(verifies).toContainEqual({ pushRef: image, arch: 'arm64', baseImageRef: baseFor(RELEASE_419, 'arm64'), credentials: dockerConfigJson(PUSH_HOST, 'robot', 'push-password'), baseCredentials: HCP_PULL });
    const rec = build(j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(condition(rec, 'Succeeded')).toMatchObject({ status: 'True' });
    expect(rec.status.digestedImagePushSpec).toBe(image);
    expect(config('workers-arm').status.currentImagePullSpec).toBe(image);
    expect(condition(config('workers-arm'), 'Available')).toMatchObject({ status: 'True' });
    const cm = handoff('workers-arm')!;
    expect(cm.metadata!.labels).toMatchObject({ 'hypershift.openshift.io/nto-generated-machine-config': 'true', 'hypershift.openshift.io/nodePool': 'workers-arm' });
    // The release it was built for, which the fleet component's upgrade gate compares with the NodePool's.
    expect(cm.metadata!.annotations).toMatchObject({ 'on-cluster-build.pkogen.io/release-image': RELEASE_419 });
    expect(JSON.parse(cm.data.config)).toMatchObject({ kind: 'MachineConfig', metadata: { name: OS_IMAGE_MACHINE_CONFIG }, spec: { osImageURL: image } });
  });

  it('a tenant-edited termination message whose digest fails verification: Failed, no hand-off', async () => {
    const j = jobFor('workers-rhel10');
    // Nothing at this digest in the registry (or an image of another base): verification fails.
    finishJob(j.metadata!.name, { digest: DIGEST('5') });
    await reconciler().reconcileAll();
    const rec = build(j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(condition(rec, 'Failed')).toMatchObject({ status: 'True', reason: 'ImageVerificationFailed' });
    expect(condition(rec, 'Failed').message).toContain('manifest unknown');
    expect(rec.status.digestedImagePushSpec).toBeUndefined();
    expect(condition(config('workers-rhel10'), 'Degraded')).toMatchObject({ status: 'True', reason: 'ImageVerificationFailed' });
    expect(handoff('workers-rhel10')).toBeUndefined();
  });

  it('does not rebuild when the NodePool config changes (it never enters the image)', async () => {
    const old = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'token-workers-arm-1a2b3c4d', namespace: NS })!;
    old.metadata!.annotations['hypershift.openshift.io/ignition-token-expiration-timestamp'] = '2026-11-23T11:00:00Z';
    mgmt.store.put(old);
    const ours = `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  name: ${OS_IMAGE_MACHINE_CONFIG}\nspec:\n  osImageURL: ${config('workers-arm').status.currentImagePullSpec}\n`;
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-arm', hash: '9f9f9f9f', release: RELEASE_419, config: [ours, USER_MC.replace('ssh', 'chrony')].join('\n---\n'), created: '2026-11-23T10:10:00Z' }));
    const before = jobs().length;
    await reconciler().reconcileAll();
    expect(jobs()).toHaveLength(before);
    expect(condition(config('workers-arm'), 'Available')).toMatchObject({ status: 'True' });
  });

  it('says how many of the NodePool\'s machines run the image, from management-side state', async () => {
    // The machine still boots from the config before the hand-off.
    expect(condition(config('workers-arm'), 'NodesUpdated')).toMatchObject({ status: 'False', reason: 'RollingOut' });
    expect(condition(config('workers-arm'), 'NodesUpdated').message).toMatch(/^0\/1 machines of NodePool workers-arm run /);
    // A tenant labelling Nodes changes nothing but the count shown.
    hosted.store.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'fake', labels: { 'hypershift.openshift.io/nodePool': 'workers-arm' } }, spec: {}, status: {} });
    // Replace: CAPI rolls the MachineDeployment to the new user-data Secret (same hash as the new token Secret).
    const m = mgmt.store.get({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'banana-workers-arm-x1', namespace: NS })!;
    mgmt.store.put({ ...m, metadata: { ...m.metadata, name: 'banana-workers-arm-x2', uid: undefined, resourceVersion: undefined }, spec: { bootstrap: { dataSecretName: 'user-data-workers-arm-9f9f9f9f' } } });
    await reconciler().reconcileAll();
    const c = condition(config('workers-arm'), 'NodesUpdated');
    expect(c).toMatchObject({ status: 'False', reason: 'RollingOut' });
    expect(c.message).toMatch(/^1\/2 machines of NodePool workers-arm run .*\(the hosted cluster lists 1 Node labelled with this NodePool\)$/);
    mgmt.store.delete({ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'Machine', name: 'banana-workers-arm-x1', namespace: NS }, { force: true });
    await reconciler().reconcileAll();
    expect(condition(config('workers-arm'), 'NodesUpdated')).toMatchObject({ status: 'True', reason: 'AllNodesUpdated' });
    hosted.store.delete({ apiVersion: 'v1', kind: 'Node', name: 'fake' }, { force: true });
  });

  it('fails closed when the hand-off cannot take effect (NodeTuning disabled)', async () => {
    const hcp = mgmt.store.get({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', name: 'banana', namespace: NS })!;
    mgmt.store.put({ ...hcp, spec: { ...hcp.spec, capabilities: { disabled: ['NodeTuning'] } } });
    await reconciler().reconcileAll();
    expect(condition(config('workers-arm'), 'Degraded')).toMatchObject({ status: 'True', reason: 'HandoffUnavailable' });
    expect(condition(config('workers-arm'), 'Available')).toMatchObject({ status: 'False' });
    mgmt.store.put(hcp);
    await reconciler().reconcileAll();
    expect(condition(config('workers-arm'), 'Available')).toMatchObject({ status: 'True' });
  });

  it("reports a failed build with the Job's reason and the end of the pod's log", async () => {
    const j = jobFor('workers-a');
    const log = `${'Copying blob sha256:abc done\n'.repeat(200)}STEP 2/2: RUN echo layered\nerror: RUN echo layered: exit status 1`;
    finishJob(j.metadata!.name, { failed: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', log } });
    await reconciler().reconcileAll();
    const rec = build(j.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    const failed = condition(rec, 'Failed');
    expect(failed).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(failed.message).toContain('Job has reached the specified backoff limit');
    expect(failed.message).toMatch(/STEP 2\/2: RUN echo layered\nerror: RUN echo layered: exit status 1$/);
    expect(failed.message.length).toBeLessThanOrEqual(1024);
    expect(condition(config('workers-a'), 'Degraded')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    const count = jobs().length;
    await reconciler().reconcileAll();
    expect(jobs()).toHaveLength(count);
  });

  it('refuses a push target the nodes cannot pull at first boot', async () => {
    hosted.store.put(nodePoolOSConfig('workers-a', { renderedImagePushSpec: 'registry.private.example.com/os/workers-a:latest' }));
    await reconciler().reconcileAll();
    const c = condition(config('workers-a'), 'Degraded');
    expect(c).toMatchObject({ status: 'True', reason: 'PushTargetNotPullableByNodes' });
    expect(c.message).toContain('registry.private.example.com');
    expect(c.message).not.toContain('password');
    hosted.store.put(nodePoolOSConfig('workers-a'));
  });

  it('and the webhook refuses it at admission, from the keys the controller published (as its ConfigMap volume shows them)', async () => {
    await reconciler().reconcileAll();
    // The covered target built (earlier tests); the kubelet writes the published ConfigMap into the webhook's volume.
    expect(jobsFor('workers-a').length).toBeGreaterThan(0);
    const cm = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PULL_KEYS_CONFIGMAP.name, namespace: NS })!;
    const dir = mkdtempSync(path.join(tmpdir(), 'e2e-webhook-'));
    const server = await (async () => {
      const tls = makeCert(dir, 'ca');
      writeFileSync(path.join(dir, PULL_KEYS_CONFIGMAP.key), cm.data[PULL_KEYS_CONFIGMAP.key]);
      const srv = await startWebhookServer({ port: 0, host: '127.0.0.1', certFile: tls.cert, keyFile: tls.key, controllerUsername: CONTROLLER_USERNAME, log: () => {}, pullKeysFile: path.join(dir, PULL_KEYS_CONFIGMAP.key) });
      return { srv, ca: tls.ca };
    })();
    const admit = async (obj: object) => {
      const review = { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'u1', kind: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', kind: 'NodePoolOSConfig' }, operation: 'CREATE', userInfo: { username: 'tenant-admin' }, object: obj } };
      return JSON.parse((await post(server.srv.port, server.ca, WEBHOOK_PATHS.nodePoolOSConfigs, JSON.stringify(review))).body).response;
    };
    try {
      expect(await admit(nodePoolOSConfig('workers-a'))).toMatchObject({ allowed: true });
      const r = await admit(nodePoolOSConfig('workers-a', { renderedImagePushSpec: 'registry.private.example.com/os/workers-a:latest' }));
      expect(r).toMatchObject({ allowed: false, status: { code: 422 } });
      expect(r.status.message).toMatch(/^spec\.renderedImagePushSpec: .*registry\.private\.example\.com\/os\/workers-a/);
      expect(r.status.message).not.toMatch(/password|bm9kZXM6/);
    } finally {
      await server.srv.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a config the webhook would refuse, naming the field', async () => {
    hosted.store.put(nodePoolOSConfig('workers-c', { renderedImagePushSpec: 'not a pullspec' }));
    await reconciler().reconcileAll();
    const c = condition(config('workers-c'), 'Degraded');
    expect(c).toMatchObject({ status: 'True', reason: 'InvalidSpec' });
    expect(c.message).toContain('spec.renderedImagePushSpec');
    hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers-c' }, { force: true });
  });

  it('says so when a NodePool has no token Secret', async () => {
    hosted.store.put(nodePoolOSConfig('workers-z'));
    await reconciler().reconcileAll();
    expect(condition(config('workers-z'), 'Degraded')).toMatchObject({ status: 'True', reason: 'NodePoolNotFound' });
    hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers-z' }, { force: true });
  });

  it("one NodePool's release that never resolves does not delay another's build", async () => {
    nodePool('workers-hang', { release: `quay.io/openshift-release-dev/ocp-release@${DIGEST('d')}`, arch: 'amd64' });
    nodePool('workers-quick', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-hang'));
    hosted.store.put(nodePoolOSConfig('workers-quick'));
    hang = `quay.io/openshift-release-dev/ocp-release@${DIGEST('d')}`;
    const r = reconciler();
    await r.observe();
    // The hung key is queued first, with room for two workers.
    const q = new WorkQueue({ concurrency: 2, process: (k) => r.reconcileKey(k) });
    try {
      q.add('workers-hang');
      q.add('workers-quick');
      for (let i = 0; i < 400 && !(jobsFor('workers-quick').length && q.size().processing === 1); i++) await new Promise((res) => setTimeout(res, 10));
      expect(jobsFor('workers-quick')).toHaveLength(1);
      expect(jobsFor('workers-hang')).toEqual([]);
      expect(q.size().processing).toBe(1); // only the hung one is still held
      expect(condition(config('workers-quick'), 'Building')).toMatchObject({ status: 'True' });
    } finally {
      q.stop();
      hang = undefined;
      for (const n of ['workers-hang', 'workers-quick']) hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: n }, { force: true });
    }
    await reconciler().reconcileAll();
    expect(jobsFor('workers-quick')).toEqual([]);
  });

  it('runs leader-elected on watches: a new config becomes a Job without being asked', async () => {
    const stop = new AbortController();
    const management = new Kube(mgmt.kubeConfig(MGMT_USER));
    const elector = new LeaderElector(management, { namespace: NS, name: LEASE_NAME, identity: 'test-pod_1', leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 1 });
    const running = elector.run(stop.signal, (signal) =>
      runController({ management, hosted: new Kube(hosted.kubeConfig(CONTROLLER_USERNAME)), namespace: NS, reconciler: reconciler(), resyncSeconds: 3600, debounceMs: 50 }, signal),
    );
    try {
      nodePool('workers-d', { release: RELEASE_50, arch: 'amd64' });
      hosted.store.put(nodePoolOSConfig('workers-d'));
      for (let i = 0; i < 400 && !jobsFor('workers-d').length; i++) await new Promise((r) => setTimeout(r, 50));
      expect(jobsFor('workers-d')).toHaveLength(1);
      const lease = mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: LEASE_NAME, namespace: NS })!;
      expect(lease.spec.holderIdentity).toBe('test-pod_1');
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      stop.abort();
      await running;
    }
  }, 40_000);

  it('rebuilds on request, supersedes the running build, moves the NodePool to the new image and keeps a bounded history', async () => {
    const images: string[] = [];
    for (const [i, c] of [['1', '7'], ['2', '8']] as const) {
      const cfg = config('workers-arm');
      hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: i } } });
      await reconciler().reconcileAll();
      const running = jobsFor('workers-arm').filter((j) => !(j.status?.conditions ?? []).length);
      expect(running).toHaveLength(1);
      images.push(pushed('workers-arm', DIGEST(c), 'arm64', baseFor(RELEASE_419, 'arm64')));
      finishJob(running[0].metadata!.name, { digest: DIGEST(c) });
      await reconciler().reconcileAll();
      expect(JSON.parse(handoff('workers-arm')!.data.config).spec.osImageURL).toBe(images[images.length - 1]);
      expect(config('workers-arm').status.currentImagePullSpec).toBe(images[images.length - 1]);
    }
    expect(jobsFor('workers-arm')).toHaveLength(2);
    expect(hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSBuild').filter((b) => b.spec.nodePool.name === 'workers-arm')).toHaveLength(2);
    // A rebuild requested while one runs: the superseded Job is deleted, one build runs.
    for (const i of ['3', '4']) {
      const cfg = config('workers-arm');
      hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: i } } });
      await reconciler().reconcileAll();
    }
    expect(jobsFor('workers-arm').filter((j) => !(j.status?.conditions ?? []).length)).toHaveLength(1);
  });

  it('a superseded build is recorded, counted and told as Interrupted (Superseded), once each', async () => {
    const records = () => hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSBuild').filter((b) => b.spec.nodePool.name === 'workers-arm');
    const open = () => records().filter((b) => !['Succeeded', 'Failed', 'Interrupted'].some((t) => condition(b, t)?.status === 'True')).map((b) => b.metadata!.name as string);
    const metrics = new Metrics([METRICS.buildsFinished], { processMetrics: false });
    const written: EventObject[] = [];
    const events = new EventRecorder({ sink: { create: async (e) => (written.push(e), e), patch: async () => ({}) }, component: 'c', instance: 'i', now: () => 0 });
    const telemetry = new ControllerTelemetry(metrics, events);
    const superseded: string[] = [];
    for (const i of ['4a', '4b']) {
      // One build runs (the test before left rebuild 4 running); a new rebuild request supersedes it.
      expect(open()).toHaveLength(1);
      superseded.push(open()[0]!);
      const cfg = config('workers-arm');
      hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: i } } });
      await reconciler({ telemetry }).reconcileAll();
      // A record still kept (history is bounded) says why it ended and which build replaces it.
      const old = build(superseded[superseded.length - 1]!);
      if (old) expect(condition(old, 'Interrupted')).toMatchObject({ status: 'True', reason: 'Superseded', message: `newer inputs: build ${open()[0]} replaces it` });
    }
    expect(open()).toHaveLength(1);
    expect(superseded).not.toContain(open()[0]);
    await reconciler({ telemetry }).reconcileAll();
    await events.flush();
    expect(written.filter((e) => e.reason === 'BuildInterrupted').map((e) => (e as { involvedObject: { name: string } }).involvedObject.name).sort()).toEqual([...superseded].sort());
    expect(await metrics.text()).toContain('on_cluster_build_builds_finished_total{result="Interrupted",reason="Superseded"} 2');
  });

  it('rate-limits rebuilds of one config', async () => {
    const last = Math.max(...jobsFor('workers-arm').map((j) => Date.parse(j.metadata!.creationTimestamp)));
    const cfg = config('workers-arm');
    hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: '5' } } });
    const before = jobsFor('workers-arm').map((j) => j.metadata!.name).sort();
    const r = reconciler({ minRebuildIntervalSeconds: 600, now: () => new Date(last + 10_000) });
    await r.observe();
    const res = await r.reconcileKey('workers-arm');
    expect(res.requeueAfterMs).toBe(590_000);
    expect(jobsFor('workers-arm').map((j) => j.metadata!.name).sort()).toEqual(before);
    expect(condition(config('workers-arm'), 'Building')).toMatchObject({ status: 'False', reason: 'RebuildRateLimited' });
  });

  it('caps the builds running at once in one hosted cluster', async () => {
    await reconciler().reconcileAll(); // settle: the rebuild asked for above starts, superseding the one before
    const running = jobs().filter((j) => !(j.status?.conditions ?? []).length).length;
    nodePool('workers-e', { release: RELEASE_50, arch: 'amd64' });
    nodePool('workers-f', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-e'));
    hosted.store.put(nodePoolOSConfig('workers-f'));
    await reconciler({ maxConcurrentBuilds: running + 1 }).reconcileAll();
    expect(jobsFor('workers-e').length + jobsFor('workers-f').length).toBe(1);
    const waiting = jobsFor('workers-e').length ? 'workers-f' : 'workers-e';
    expect(condition(config(waiting), 'Building')).toMatchObject({ status: 'False', reason: 'WaitingForBuildSlot' });
    for (const n of ['workers-e', 'workers-f']) hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: n }, { force: true });
  });

  it('a Job that could not be made gives its build slot back (the workers share one observation)', async () => {
    await reconciler().reconcileAll();
    const running = jobs().filter((j) => !(j.status?.conditions ?? []).length).length;
    nodePool('workers-g', { release: RELEASE_50, arch: 'amd64' });
    nodePool('workers-h', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-g'));
    hosted.store.put(nodePoolOSConfig('workers-h'));
    // The hosted API refuses every build Job once (a tenant's admission webhook, a quota).
    let refuse = true;
    class Refusing extends Kube {
      override async create<T extends KubeObject>(r: Resource, o: T): Promise<T> {
        if (r.plural === RESOURCES.jobs.plural && refuse) throw new Error('admission webhook "quota.example.com" denied the request');
        return super.create(r, o);
      }
    }
    const r = reconciler({ maxConcurrentBuilds: running + 1, hosted: new Refusing(hosted.kubeConfig(CONTROLLER_USERNAME)) });
    await r.observe();
    await expect(r.reconcileKey('workers-g')).rejects.toThrow(/denied the request/);
    expect(jobsFor('workers-g')).toEqual([]);
    refuse = false;
    // The one free slot is free again: the other config builds in the same observation.
    await r.reconcileKey('workers-h');
    expect(jobsFor('workers-h')).toHaveLength(1);
    for (const n of ['workers-g', 'workers-h']) hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: n }, { force: true });
    await reconciler().reconcileAll();
  });

  it('cleans up when a config is deleted: the NodePool goes back to its release image', async () => {
    hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers-arm' }, { force: true });
    await reconciler().reconcileAll();
    expect(handoff('workers-arm')).toBeUndefined();
    expect(jobsFor('workers-arm')).toEqual([]);
  });

  it("uses exactly the package's RBAC on each cluster", () => {
    const key = (e: { verb: string; apiGroup: string; resource: string; subresource?: string; namespace?: string }) => `${e.verb} ${e.apiGroup}/${e.resource}${e.subresource ? `/${e.subresource}` : ''}${e.namespace ? ` in ${e.namespace}` : ''}`;
    const used = (audit: AuditEntry[], user: string) => new Set(audit.filter((e) => e.user === user && !e.nonResourcePath).map((e) => key({ ...e, namespace: e.namespace || undefined })));
    const granted = (rules: readonly PolicyRule[], namespace?: string) =>
      rules.flatMap((r) => r.verbs.flatMap((v) => r.apiGroups.flatMap((g) => r.resources.map((res) => key({ verb: v, apiGroup: g, resource: res.split('/')[0], subresource: res.split('/')[1], namespace })))));
    const denied = (audit: AuditEntry[], user: string) => audit.filter((e) => e.user === user && e.code === 403);
    expect(denied(mgmt.audit, MGMT_USER)).toEqual([]);
    expect(denied(hosted.audit, CONTROLLER_USERNAME)).toEqual([]);
    expect([...used(mgmt.audit, MGMT_USER)].sort()).toEqual([...new Set(granted(MANAGEMENT_RULES, NS))].sort());
    const hostedGranted = [...granted(HOSTED_RULES), ...Object.entries(HOSTED_NAMESPACED_RULES).flatMap(([ns, rs]) => granted(rs, ns))];
    expect([...used(hosted.audit, CONTROLLER_USERNAME)].sort()).toEqual([...new Set(hostedGranted)].sort());
    expect(mgmt.audit.filter((e) => e.user === MGMT_USER && e.namespace !== NS && !e.nonResourcePath)).toEqual([]);
  });

  it('never puts a credential in a status, a record or a log line', () => {
    expect(logs.some((l) => l.includes('build job created'))).toBe(true);
    const everything = JSON.stringify([...logs, ...hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSConfig'), ...hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSBuild')]);
    for (const secret of ['push-password', 'hosted-pull-password', 'hcp-password', 'nodes-password', b64('robot:push-password'), b64('nodes:nodes-password')]) expect(everything).not.toContain(secret);
  });

  it("builds a NodePool before 4.17 with our own image (its release's machine-config-operator image has no buildah), or says why not", async () => {
    nodePool('workers-416', { release: RELEASE_416, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-416'));
    await reconciler().reconcileAll();
    expect(jobs().filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === 'workers-416')).toEqual([]);
    const degraded = (config('workers-416').status.conditions ?? []).find((c: any) => c.reason === 'NoBuilderImage');
    expect(degraded?.message).toMatch(/release 4\.16's machine-config-operator image has no buildah/);
    const OWN = `quay.io/app-sre/on-cluster-build@${DIGEST('e')}`;
    await reconciler({ ownBuilderImage: OWN, maxConcurrentBuilds: 10 }).reconcileAll();
    expect(jobFor('workers-416').spec.template.spec.containers[0].image).toBe(OWN);
  });

  it('builds a tenant layer FROM the provider-layered image the fleet published, waits while none is published, and hands off only an image that descends from it', async () => {
    const provider = (release: string, arch: string) => `quay.example.com/provider/rhcos@${sha(`provider ${release} ${arch}`)}`;
    const r = () => reconciler({ maxConcurrentBuilds: 20 });
    const layer = `provider-layer@${sha('layer 1')}`;
    /** The fleet component's channel in the HCP namespace, as the fleet gate writes it (builder/fleet/gate.ts publishProviderImage). */
    const publish = (entries: Record<string, { release: string; arch: string; image: string }>) =>
      mgmt.store.put({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: PROVIDER_IMAGES_CONFIGMAP, namespace: NS, labels: { 'app.kubernetes.io/managed-by': 'on-cluster-build' } },
        data: { [PROVIDER_LAYER_KEY]: layer, ...Object.fromEntries(Object.entries(entries).map(([np, e]) => [np, providerImageEntryText(e)])) },
      });
    nodePool('workers-layered', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-layered'));
    const want = provider(RELEASE_50, 'amd64');
    // The provider's layer is in force, but nothing is published for this NodePool yet: no build on the bare release OS.
    publish({});
    await r().reconcileAll();
    expect(jobsFor('workers-layered')).toEqual([]);
    expect(condition(config('workers-layered'), 'Building')).toMatchObject({ status: 'False', reason: 'WaitingForProviderImage' });
    expect(condition(config('workers-layered'), 'Building').message).toMatch(/has not yet published its image for NodePool workers-layered \(release .*, amd64\)/);
    // Published for another release only: still waiting.
    publish({ 'workers-layered': { release: RELEASE_419, arch: 'amd64', image: provider(RELEASE_419, 'amd64') } });
    await r().reconcileAll();
    expect(jobsFor('workers-layered')).toEqual([]);
    expect(condition(config('workers-layered'), 'Building').message).toMatch(/at another release or architecture/);
    publish({ 'workers-layered': { release: RELEASE_50, arch: 'amd64', image: want } });
    await r().reconcileAll();
    const j1 = jobFor('workers-layered');
    const cf = hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: j1.metadata!.name, namespace: BUILD_NS })!;
    expect(cf.data.Containerfile).toContain(`FROM ${want} AS configs`);
    expect(build(j1.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!.spec.baseOSImage).toBe(want);
    // An image built on the release's plain base OS (skipping the provider layer) is refused.
    pushed('workers-layered', DIGEST('3'), 'amd64', baseFor(RELEASE_50, 'amd64'));
    finishJob(j1.metadata!.name, { digest: DIGEST('3') });
    await r().reconcileAll();
    expect(verifies.filter((v) => v.pushRef === `${PUSH_HOST}/layered/workers-layered@${DIGEST('3')}`).map((v) => v.baseImageRef)).toEqual([want]);
    expect(condition(config('workers-layered'), 'Degraded')).toMatchObject({ status: 'True', reason: 'ImageVerificationFailed' });
    expect(handoff('workers-layered')).toBeUndefined();
    // Rebuilt, and this time it descends from the provider's image: handed off.
    const cfg = config('workers-layered');
    hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: '1' } } });
    await r().reconcileAll();
    const j2 = jobFor('workers-layered');
    expect(j2.metadata!.name).not.toBe(j1.metadata!.name);
    const image = pushed('workers-layered', DIGEST('4'), 'amd64', want);
    finishJob(j2.metadata!.name, { digest: DIGEST('4') });
    await r().reconcileAll();
    expect(JSON.parse(handoff('workers-layered')!.data.config).spec.osImageURL).toBe(image);
    // A new provider image for the release rebuilds the tenant layer FROM it.
    const want2 = provider(`${RELEASE_50} hotfix`, 'amd64');
    publish({ 'workers-layered': { release: RELEASE_50, arch: 'amd64', image: want2 } });
    await r().reconcileAll();
    const j3 = jobFor('workers-layered');
    expect(j3.metadata!.name).not.toBe(j2.metadata!.name);
    expect(hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: j3.metadata!.name, namespace: BUILD_NS })!.data.Containerfile).toContain(`FROM ${want2} AS configs`);
    // The tenant deletes the config: the NodePool goes back to the provider's image, not to the bare release OS.
    hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers-layered' }, { force: true });
    await r().reconcileAll();
    const back = handoff('workers-layered') as any;
    expect(JSON.parse(back.data.config).spec.osImageURL).toBe(want2);
    expect(back.metadata.labels['on-cluster-build.pkogen.io/nodepoolosconfig']).toBeUndefined();
    expect(back.metadata.labels['hypershift.openshift.io/nto-generated-machine-config']).toBe('true');
    expect(back.metadata.annotations[HANDOFF_RELEASE_ANNOTATION]).toBe(RELEASE_50);
    // A provider-only hand-off is not an orphan: the next pass keeps it.
    await r().reconcileAll();
    expect(JSON.parse((handoff('workers-layered') as any).data.config).spec.osImageURL).toBe(want2);
    // The fleet withdraws its layer: tenant builds no longer wait for it.
    mgmt.store.put({ ...mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: NS })!, data: { [PROVIDER_LAYER_KEY]: NO_PROVIDER_LAYER } });
    nodePool('workers-unlayered', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-unlayered'));
    await r().reconcileAll();
    expect(hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: jobFor('workers-unlayered').metadata!.name, namespace: BUILD_NS })!.data.Containerfile).toContain(`FROM ${baseFor(RELEASE_50, 'amd64')} AS configs`);
    mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: PROVIDER_IMAGES_CONFIGMAP, namespace: NS }, { force: true });
  });

  it('with the tenant layer off, refuses every NodePoolOSConfig with a clear message and builds nothing', async () => {
    nodePool('workers-off', { release: RELEASE_50, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-off'));
    const before = jobs().length;
    await reconciler({ tenantLayer: 'Disabled', maxConcurrentBuilds: 20 }).reconcileAll();
    expect(jobs()).toHaveLength(before);
    expect(jobsFor('workers-off')).toEqual([]);
    const c = condition(config('workers-off'), 'Degraded');
    expect(c).toMatchObject({ status: 'True', reason: 'TenantLayerDisabled' });
    expect(c.message).toMatch(/^the provider has turned the tenant OS layer off for this hosted cluster \(HostedCluster annotation on-cluster-build\.pkogen\.io\/tenant-layer: Disabled\): NodePoolOSConfigs are not accepted or built here/);
  });
  it("builds for the release the fleet gate names on a held NodePool's hand-off (wanted-release), not the token Secret's older one", async () => {
    nodePool('workers-wanted', { release: RELEASE_419, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-wanted'));
    const r = () => reconciler({ maxConcurrentBuilds: 20 });
    await r().reconcileAll();
    const j1 = jobFor('workers-wanted');
    expect(j1.metadata!.annotations['on-cluster-build.pkogen.io/release-image']).toBe(RELEASE_419);
    pushed('workers-wanted', DIGEST('5'), 'amd64', baseFor(RELEASE_419, 'amd64'));
    finishJob(j1.metadata!.name, { digest: DIGEST('5') });
    await r().reconcileAll();
    expect((handoff('workers-wanted') as any).metadata.annotations[HANDOFF_RELEASE_ANNOTATION]).toBe(RELEASE_419);
    // The fleet gate holds the NodePool for 5.0 and names it on the hand-off; no token Secret names it yet.
    const h = handoff('workers-wanted') as any;
    mgmt.store.put({ ...h, metadata: { ...h.metadata, annotations: { ...h.metadata.annotations, [WANTED_RELEASE_ANNOTATION]: RELEASE_50 } } });
    await r().reconcileAll();
    const j2 = jobFor('workers-wanted');
    expect(j2.metadata!.name).not.toBe(j1.metadata!.name);
    expect(j2.metadata!.annotations['on-cluster-build.pkogen.io/release-image']).toBe(RELEASE_50);
    const cf = hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: j2.metadata!.name, namespace: BUILD_NS })!;
    expect(cf.data.Containerfile).toContain(`FROM ${baseFor(RELEASE_50, 'amd64')} AS configs`);
    // Verified against 5.0's base before it is handed off, with the release it was built for.
    pushed('workers-wanted', DIGEST('6'), 'amd64', baseFor(RELEASE_419, 'amd64'));
    finishJob(j2.metadata!.name, { digest: DIGEST('6') });
    await r().reconcileAll();
    expect((handoff('workers-wanted') as any).metadata.annotations[HANDOFF_RELEASE_ANNOTATION]).toBe(RELEASE_419);
    const cfg = config('workers-wanted');
    hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: 'wanted' } } });
    await r().reconcileAll();
    const j3 = jobFor('workers-wanted');
    const image = pushed('workers-wanted', DIGEST('7'), 'amd64', baseFor(RELEASE_50, 'amd64'));
    finishJob(j3.metadata!.name, { digest: DIGEST('7') });
    await r().reconcileAll();
    const after = handoff('workers-wanted') as any;
    expect(after.metadata.annotations[HANDOFF_RELEASE_ANNOTATION]).toBe(RELEASE_50);
    expect(after.metadata.annotations[WANTED_RELEASE_ANNOTATION]).toBe(RELEASE_50); // kept: the token Secret catches up later
    expect(JSON.parse(after.data.config).spec.osImageURL).toBe(image);
    // The hold is lifted and HyperShift writes the token Secret for 5.0: the annotation has done its work and goes.
    const old = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'token-workers-wanted-1a2b3c4d', namespace: NS })!;
    old.metadata!.annotations['hypershift.openshift.io/ignition-token-expiration-timestamp'] = '2026-11-23T11:00:00Z';
    mgmt.store.put(old);
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-wanted', hash: '5a5a5a5a', release: RELEASE_50, config: USER_MC, created: '2026-11-23T10:20:00Z' }));
    const jobsBefore = jobsFor('workers-wanted').length;
    await r().reconcileAll();
    expect((handoff('workers-wanted') as any).metadata.annotations[WANTED_RELEASE_ANNOTATION]).toBeUndefined();
    expect(jobsFor('workers-wanted')).toHaveLength(jobsBefore); // same release: nothing rebuilt
    // Later, with the fleet component gone, the NodePool moves to another release: built for it, not pinned to 5.0.
    const cur = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'token-workers-wanted-5a5a5a5a', namespace: NS })!;
    cur.metadata!.annotations['hypershift.openshift.io/ignition-token-expiration-timestamp'] = '2026-11-23T12:00:00Z';
    mgmt.store.put(cur);
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-wanted', hash: '6b6b6b6b', release: RELEASE_419, config: USER_MC, created: '2026-11-23T11:20:00Z' }));
    await r().reconcileAll();
    expect(jobFor('workers-wanted').metadata!.annotations['on-cluster-build.pkogen.io/release-image']).toBe(RELEASE_419);
  });

  it("gives the build the HostedCluster's additional trust bundle (HyperShift's user-ca-bundle in the HCP namespace), and says why not when it is unusable", async () => {
    nodePool('workers-trust', { release: RELEASE_419, arch: 'amd64' });
    hosted.store.put(nodePoolOSConfig('workers-trust'));
    const r = () => reconciler({ maxConcurrentBuilds: 20, minRebuildIntervalSeconds: 0 });
    const bundle = (pem: string) => mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'user-ca-bundle', namespace: NS }, data: { 'ca-bundle.crt': pem } });
    const built = () => hosted.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: jobFor('workers-trust').metadata!.name, namespace: BUILD_NS })!;
    await r().reconcileAll();
    const without = jobFor('workers-trust').metadata!.name;
    expect(built().data['additional-ca-bundle.crt']).toBeUndefined();
    bundle('not a certificate');
    await r().reconcileAll();
    expect(condition(config('workers-trust'), 'Degraded')).toMatchObject({ status: 'True', reason: 'TrustBundleInvalid' });
    const PEM = '-----BEGIN CERTIFICATE-----\nMIIBprivateCA\n-----END CERTIFICATE-----\n';
    bundle(PEM);
    await r().reconcileAll();
    // A bundle given is a new build (its content is not hashed: a renewed CA does not rebuild).
    expect(jobFor('workers-trust').metadata!.name).not.toBe(without);
    expect(built().data['additional-ca-bundle.crt']).toBe(PEM);
    const name = jobFor('workers-trust').metadata!.name;
    bundle(PEM.replace('privateCA', 'renewedCA'));
    await r().reconcileAll();
    expect(jobFor('workers-trust').metadata!.name).toBe(name);
    mgmt.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'user-ca-bundle', namespace: NS });
  });
});
