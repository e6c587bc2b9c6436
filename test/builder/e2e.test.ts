/**
 * End to end on this machine: the project's API test server plays the management cluster (HCP
 * namespace `clusters-banana`) and the hosted cluster; Debian's docker-registry serves two
 * synthetic release payloads behind basic auth. A user's NodePoolOSConfig in the hosted API
 * becomes a build Job in the management API with that NodePool's own release images; the test
 * plays the Job controller (completes or fails the Job, writes the pod's termination message)
 * and checks the build record, the config status, the hand-off to HyperShift, idempotence across
 * a controller restart, and that every request the controller made is granted by the package's
 * Roles and every grant is used.
 */
import { parseReference } from '../../pkogen/src/oci/reference.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { ApiTestServer, AuditEntry, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube } from '../../builder/kube.js';
import { REBUILD_ANNOTATION, Reconciler } from '../../builder/controller/reconciler.js';
import { runController } from '../../builder/controller/run.js';
import { LeaderElector } from '../../builder/controller/leader.js';
import { wiring } from '../../builder/wiring.js';
import { HOSTED_NAMESPACE_RULES, HOSTED_RULES, LEASE_NAME, MANAGEMENT_RULES, PolicyRule } from '../../builder/rbac.js';
import { CONTROLLER_USERNAME } from '../../builder/cli.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../../builder/api/crds.js';
import { HANDOFF_PREFIX, OS_IMAGE_MACHINE_CONFIG } from '../../builder/controller/handoff.js';
import { b64, dockerConfigJson, imageReferences, pullSecret, releaseImage, tokenSecret } from './fixtures.js';

const NS = 'clusters-banana';
const HOSTED_NS = 'openshift-on-cluster-build';
const MGMT_USER = `system:serviceaccount:${NS}:on-cluster-build-controller`;
const USER_MC = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  labels:
    machineconfiguration.openshift.io/role: worker
  name: 99-worker-ssh
spec:
  config:
    ignition:
      version: 3.2.0
`;
const CONTAINERFILE = 'FROM configs AS final\nRUN echo layered > /etc/layered\n';
const DIGEST = (c: string) => 'sha256:' + c.repeat(64);

const withNamespace = (rules: readonly PolicyRule[], ns: string) => rules.map((r) => ({ ...r, apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], resourceNames: r.resourceNames ? [...r.resourceNames] : undefined, namespaces: [ns] }));
const cluster = (rules: readonly PolicyRule[]) => rules.map((r) => ({ ...r, apiGroups: [...r.apiGroups], resources: [...r.resources], verbs: [...r.verbs], resourceNames: r.resourceNames ? [...r.resourceNames] : undefined }));

describe('on-cluster-build controller, end to end', () => {
  let registry: TestRegistry;
  let mgmt: ApiTestServer;
  let hosted: ApiTestServer;
  const releases: Record<string, { ref: string; base: string; mco: string }> = {};

  const reconciler = () => {
    const w = wiring({ cacheSize: 4, registryAllow: [registry.host] });
    return new Reconciler({
      management: new Kube(mgmt.kubeConfig(MGMT_USER)),
      hosted: new Kube(hosted.kubeConfig(CONTROLLER_USERNAME)),
      namespace: NS,
      resolveRelease: w.resolveRelease,
      nodePoolInputs: w.nodePoolInputs,
      validateConfig: w.validateConfig,
      pullSecretName: 'pull-secret',
      activeDeadlineSeconds: 3600,
      backoffLimit: 2,
      historyLimit: 2,
      userNamespaces: false,
    });
  };
  const jobs = () => mgmt.store.list('batch/v1', 'Job', NS);
  const build = (name: string) => hosted.store.get({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSBuild', name });
  const config = (name: string) => hosted.store.get({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name })!;
  const condition = (o: any, type: string) => (o?.status?.conditions ?? []).find((c: any) => c.type === type);
  const jobFor = (nodePool: string) => jobs().find((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === nodePool)!;

  const nodePoolOSConfig = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'on-cluster-build.pkogen.io/v1alpha1',
    kind: 'NodePoolOSConfig',
    metadata: { name },
    spec: {
      nodePool: { name },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-creds' },
      renderedImagePushSpec: `${registry.host}/layered/${name}:latest`,
      containerFile: [{ containerfileArch: 'NoArch', content: CONTAINERFILE }],
      ...extra,
    },
  });

  /** What the Job controller and kubelet would write once the build pod ends. */
  function finishJob(jobName: string, outcome: { digest?: string; failed?: { reason: string; message: string; log: string } }) {
    const job = mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: jobName, namespace: NS })!;
    const t0 = '2026-11-23T10:00:00Z';
    const t1 = '2026-11-23T10:07:00Z';
    const terminated = outcome.digest ? { exitCode: 0, reason: 'Completed', message: outcome.digest } : { exitCode: 1, reason: 'Error', message: outcome.failed!.log };
    mgmt.store.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${jobName}-x7k2p`, namespace: NS, labels: { ...job.spec.template.metadata.labels, 'batch.kubernetes.io/job-name': jobName }, creationTimestamp: t0 },
      spec: job.spec.template.spec,
      status: { phase: outcome.digest ? 'Succeeded' : 'Failed', containerStatuses: [{ name: 'build', state: { terminated } }] },
    });
    const conditions = outcome.digest
      ? [{ type: 'Complete', status: 'True', lastTransitionTime: t1 }]
      : [{ type: 'Failed', status: 'True', reason: outcome.failed!.reason, message: outcome.failed!.message, lastTransitionTime: t1 }];
    mgmt.store.put({ ...job, status: { startTime: t0, ...(outcome.digest ? { completionTime: t1, succeeded: 1 } : { failed: 3 }), conditions } });
  }

  beforeAll(async () => {
    registry = await startRegistry('basic');
    const client = new RegistryClient({ credentials: async () => ({ username: registry.user!, password: registry.password! }) });
    for (const [v, c] of [['4.19.7', 'b'], ['4.20.2', 'c']] as const) {
      const base = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST(c)}`;
      const mco = `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST(c === 'b' ? 'd' : 'e')}`;
      const image = releaseImage({ version: v, refs: imageReferences(v, { 'rhel-coreos': base, 'machine-config-operator': mco, cli: `quay.io/x/cli@${DIGEST('f')}` }) });
      const { digest } = await client.push(image, [parseReference(`${registry.host}/ocp/release:${v}-x86_64`)]);
      releases[v] = { ref: `${registry.host}/ocp/release@${digest}`, base, mco };
    }

    mgmt = await startApiServer({
      identities: [
        { name: MGMT_USER, token: 'mgmt-controller-token', rules: withNamespace(MANAGEMENT_RULES, NS) },
        { name: 'system:admin', token: 'mgmt-admin-token' },
      ],
    });
    hosted = await startApiServer({
      identities: [
        { name: CONTROLLER_USERNAME, token: 'hosted-controller-token', rules: [...cluster(HOSTED_RULES), ...withNamespace(HOSTED_NAMESPACE_RULES, HOSTED_NS)] },
        { name: 'system:admin', token: 'hosted-admin-token' },
      ],
    });
    hosted.registerCRD(nodePoolOSConfigCRD());
    hosted.registerCRD(nodePoolOSBuildCRD());

    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgmt.store.put(pullSecret(NS, 'pull-secret', dockerConfigJson(registry.host, registry.user!, registry.password!)));
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-a', hash: '1a2b3c4d', release: releases['4.19.7'].ref, config: USER_MC, created: '2026-11-23T09:00:00Z' }));
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-b', hash: '5e6f7a8b', release: releases['4.20.2'].ref, config: '', created: '2026-11-23T09:00:00Z' }));
    // An expiring token Secret of an older config: never used.
    mgmt.store.put({
      ...tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-a', hash: '00000000', release: releases['4.20.2'].ref, config: '', created: '2026-11-22T09:00:00Z' }),
    });
    const expiring = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'token-workers-a-00000000', namespace: NS })!;
    expiring.metadata!.annotations['hypershift.openshift.io/ignition-token-expiration-timestamp'] = '2026-11-23T10:00:00Z';
    mgmt.store.put(expiring);

    hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: HOSTED_NS } });
    hosted.store.put(pullSecret(HOSTED_NS, 'push-creds', dockerConfigJson('quay.io', 'robot', 'push-password')));
    hosted.store.put(nodePoolOSConfig('workers-a'));
    hosted.store.put(nodePoolOSConfig('workers-b'));
  }, 60_000);

  afterAll(async () => {
    await mgmt?.stop();
    await hosted?.stop();
    await registry?.stop();
  });

  it('starts one build Job per NodePool, each from its own release', async () => {
    await reconciler().reconcileAll();
    expect(jobs()).toHaveLength(2);
    const a = jobFor('workers-a');
    const b = jobFor('workers-b');
    expect(a.spec.template.spec.containers[0].image).toBe(releases['4.19.7'].mco);
    expect(b.spec.template.spec.containers[0].image).toBe(releases['4.20.2'].mco);
    const cfA = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: a.metadata!.name, namespace: NS })!;
    const cfB = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: b.metadata!.name, namespace: NS })!;
    expect(cfA.data.Containerfile).toContain(`FROM ${releases['4.19.7'].base} AS configs`);
    expect(cfB.data.Containerfile).toContain(`FROM ${releases['4.20.2'].base} AS configs`);
    expect(cfA.data.Containerfile).toContain(CONTAINERFILE.trim());
    // Owned by the Job, so they go when it goes.
    expect(cfA.metadata!.ownerReferences[0]).toMatchObject({ kind: 'Job', name: a.metadata!.name, uid: a.metadata!.uid });
    const creds = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: a.metadata!.name, namespace: NS })!;
    expect(JSON.parse(Buffer.from(creds.data['push.json'], 'base64').toString())).toEqual(JSON.parse(dockerConfigJson('quay.io', 'robot', 'push-password')));
    expect(Buffer.from(creds.data['base.json'], 'base64').toString()).toBe(dockerConfigJson(registry.host, registry.user!, registry.password!));

    // The build user under anyuid (test/builder/build-pod.test.ts runs it), no API token, bounded run.
    const pod = a.spec.template.spec;
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.securityContext).toEqual({ runAsUser: 1000, runAsGroup: 1000, runAsNonRoot: true });
    expect(pod.containers[0].securityContext).toMatchObject({ allowPrivilegeEscalation: true, readOnlyRootFilesystem: true, runAsNonRoot: true });
    expect(a.spec.activeDeadlineSeconds).toBe(3600);
    expect(a.spec.backoffLimit).toBe(2);

    const recA = build(a.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(recA.spec).toMatchObject({ nodePool: { name: 'workers-a' }, releaseImage: releases['4.19.7'].ref, baseOSImage: releases['4.19.7'].base });
    expect(condition(recA, 'Prepared').status).toBe('True');
    expect(condition(recA, 'Building').status).toBe('True');
    expect(recA.status.builder.job).toEqual({ group: 'batch', resource: 'jobs', namespace: NS, name: a.metadata!.name });
    expect(condition(config('workers-a'), 'Building')).toMatchObject({ status: 'True' });
  });

  it('creates no second Job after a restart or a retry', async () => {
    const before = jobs().map((j) => j.metadata!.uid).sort();
    await reconciler().reconcileAll();
    await reconciler().reconcileAll();
    expect(jobs().map((j) => j.metadata!.uid).sort()).toEqual(before);
  });

  it('records a successful build and hands the image to the NodePool', async () => {
    const a = jobFor('workers-a');
    finishJob(a.metadata!.name, { digest: DIGEST('9') });
    await reconciler().reconcileAll();
    const rec = build(a.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    const pushed = `${registry.host}/layered/workers-a@${DIGEST('9')}`;
    expect(condition(rec, 'Succeeded')).toMatchObject({ status: 'True' });
    expect(condition(rec, 'Building')).toMatchObject({ status: 'False' });
    expect(rec.status.digestedImagePushSpec).toBe(pushed);
    expect(rec.status.buildStart).toBe('2026-11-23T10:00:00Z');
    expect(rec.status.buildEnd).toBe('2026-11-23T10:07:00Z');
    const cfg = config('workers-a');
    expect(cfg.status.currentImagePullSpec).toBe(pushed);
    expect(condition(cfg, 'Available')).toMatchObject({ status: 'True' });
    const handoff = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}workers-a`, namespace: NS })!;
    expect(handoff.metadata!.labels).toMatchObject({ 'hypershift.openshift.io/nto-generated-machine-config': 'true', 'hypershift.openshift.io/nodePool': 'workers-a' });
    const mc = JSON.parse(handoff.data.config);
    expect(mc).toMatchObject({ kind: 'MachineConfig', metadata: { name: OS_IMAGE_MACHINE_CONFIG }, spec: { osImageURL: pushed } });
  });

  it('does not rebuild when HyperShift rolls the NodePool out with our own MachineConfig', async () => {
    const handoff = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}workers-a`, namespace: NS })!;
    // The NodePool controller re-encodes our MachineConfig and appends it to the NodePool's config.
    const ours = `apiVersion: machineconfiguration.openshift.io/v1\nkind: MachineConfig\nmetadata:\n  labels:\n    machineconfiguration.openshift.io/role: worker\n  name: ${OS_IMAGE_MACHINE_CONFIG}\nspec:\n  osImageURL: ${JSON.parse(handoff.data.config).spec.osImageURL}\n`;
    const old = mgmt.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'token-workers-a-1a2b3c4d', namespace: NS })!;
    old.metadata!.annotations['hypershift.openshift.io/ignition-token-expiration-timestamp'] = '2026-11-23T11:00:00Z';
    mgmt.store.put(old);
    mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-a', hash: '9f9f9f9f', release: releases['4.19.7'].ref, config: [ours, USER_MC].join('\n---\n'), created: '2026-11-23T10:10:00Z' }));
    const before = jobs().length;
    await reconciler().reconcileAll();
    expect(jobs()).toHaveLength(before);
    expect(condition(config('workers-a'), 'Available')).toMatchObject({ status: 'True' });
  });

  it("reports a failed build with the Job's reason and the pod's last words", async () => {
    const b = jobFor('workers-b');
    finishJob(b.metadata!.name, { failed: { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit', log: 'error: RUN echo layered: exit status 1' } });
    await reconciler().reconcileAll();
    const rec = build(b.metadata!.labels['on-cluster-build.pkogen.io/nodepoolosbuild'])!;
    expect(condition(rec, 'Failed')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(condition(rec, 'Failed').message).toContain('Job has reached the specified backoff limit');
    expect(condition(rec, 'Failed').message).toContain('exit status 1');
    const cfg = config('workers-b');
    expect(condition(cfg, 'Degraded')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded' });
    expect(cfg.status.currentImagePullSpec).toBeUndefined();
    // A failed build is final: no new Job until its inputs change.
    const count = jobs().length;
    await reconciler().reconcileAll();
    expect(jobs()).toHaveLength(count);
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

  it('runs leader-elected on watches: a new config becomes a Job without being asked', async () => {
    const stop = new AbortController();
    const management = new Kube(mgmt.kubeConfig(MGMT_USER));
    const elector = new LeaderElector(management, { namespace: NS, name: LEASE_NAME, identity: 'test-pod_1', leaseDurationSeconds: 15, renewDeadlineSeconds: 10, retryPeriodSeconds: 1 });
    const running = elector.run(stop.signal, (signal) =>
      runController({ management, hosted: new Kube(hosted.kubeConfig(CONTROLLER_USERNAME)), namespace: NS, reconciler: reconciler(), resyncSeconds: 3600, debounceMs: 50 }, signal),
    );
    try {
      mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: 'workers-d', hash: 'dddddddd', release: releases['4.20.2'].ref, config: '', created: '2026-11-23T09:00:00Z' }));
      hosted.store.put(nodePoolOSConfig('workers-d'));
      const deadline = Date.now() + 20_000;
      while (!jobs().some((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === 'workers-d') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(jobFor('workers-d')).toBeDefined();
      const lease = mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: LEASE_NAME, namespace: NS })!;
      expect(lease.spec.holderIdentity).toBe('test-pod_1');
      // Let the leader renew at least once.
      await new Promise((r) => setTimeout(r, 1500));
    } finally {
      stop.abort();
      await running;
    }
  }, 40_000);

  it('rebuilds on request, moves the NodePool to the new image and keeps a bounded history', async () => {
    const images: string[] = [];
    for (const [i, c] of [['1', '7'], ['2', '8']] as const) {
      const cfg = config('workers-a');
      hosted.store.put({ ...cfg, metadata: { ...cfg.metadata, annotations: { [REBUILD_ANNOTATION]: i } } });
      await reconciler().reconcileAll();
      const running = jobs().filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === 'workers-a' && !(j.status?.conditions ?? []).length);
      expect(running).toHaveLength(1);
      finishJob(running[0].metadata!.name, { digest: DIGEST(c) });
      await reconciler().reconcileAll();
      images.push(`${registry.host}/layered/workers-a@${DIGEST(c)}`);
      const handoff = mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}workers-a`, namespace: NS })!;
      expect(JSON.parse(handoff.data.config).spec.osImageURL).toBe(images[images.length - 1]);
      expect(config('workers-a').status.currentImagePullSpec).toBe(images[images.length - 1]);
    }
    // historyLimit 2: the first build of workers-a is gone on both sides.
    expect(jobs().filter((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === 'workers-a')).toHaveLength(2);
    expect(hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSBuild').filter((b) => b.spec.nodePool.name === 'workers-a')).toHaveLength(2);
  });

  it('cleans up when a config is deleted: the NodePool goes back to its release image', async () => {
    hosted.store.delete({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', name: 'workers-a' }, { force: true });
    await reconciler().reconcileAll();
    expect(mgmt.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: `${HANDOFF_PREFIX}workers-a`, namespace: NS })).toBeUndefined();
    expect(jobs().some((j) => j.metadata!.labels['on-cluster-build.pkogen.io/nodepool'] === 'workers-a')).toBe(false);
  });

  it("uses exactly the package's RBAC on each cluster", () => {
    const key = (e: { verb: string; apiGroup: string; resource: string; subresource?: string }) => `${e.verb} ${e.apiGroup}/${e.resource}${e.subresource ? `/${e.subresource}` : ''}`;
    const used = (audit: AuditEntry[], user: string) => new Set(audit.filter((e) => e.user === user && !e.nonResourcePath).map(key));
    const granted = (rules: readonly PolicyRule[]) =>
      new Set(rules.flatMap((r) => r.verbs.flatMap((v) => r.apiGroups.flatMap((g) => r.resources.map((res) => key({ verb: v, apiGroup: g, resource: res.split('/')[0], subresource: res.split('/')[1] }))))));
    const denied = (audit: AuditEntry[], user: string) => audit.filter((e) => e.user === user && e.code === 403);
    expect(denied(mgmt.audit, MGMT_USER)).toEqual([]);
    expect(denied(hosted.audit, CONTROLLER_USERNAME)).toEqual([]);
    expect([...used(mgmt.audit, MGMT_USER)].sort()).toEqual([...granted(MANAGEMENT_RULES)].sort());
    expect([...used(hosted.audit, CONTROLLER_USERNAME)].sort()).toEqual([...granted([...HOSTED_RULES, ...HOSTED_NAMESPACE_RULES])].sort());
    // Namespaced calls stay in the HCP namespace.
    expect(mgmt.audit.filter((e) => e.user === MGMT_USER && e.namespace !== NS && !e.nonResourcePath)).toEqual([]);
  });

  it('never puts a credential in a status or a record', () => {
    const everything = JSON.stringify([...hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSConfig'), ...hosted.store.list('on-cluster-build.pkogen.io/v1alpha1', 'NodePoolOSBuild')]);
    for (const secret of ['push-password', registry.password!, b64(`robot:push-password`)]) expect(everything).not.toContain(secret);
  });
});

