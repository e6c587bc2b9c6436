/**
 * A provider build executed against a registry whose TLS certificate a private CA signed: the
 * fleet's ProviderBuilds (builder/fleet/provider-build.ts) makes the Job, ConfigMap and Secret on
 * the API test server; the pod they describe runs as a kubelet with CRI-O would run it
 * (test/builder/kubelet.ts, the SCC the package binds, Debian's buildah), pulling the base from
 * and pushing to Debian's docker-registry with TLS on 127.0.0.1; its end is reported back as the
 * Job controller would. With `--provider-trust-bundle` naming a ConfigMap holding the CA the build
 * pushes, its digest is verified and the fleet's own look-up finds it; without it the pull fails
 * x509 and the build's failure says so.
 */
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { cleanupRegistry, run, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { CRIO_DEFAULT_CAPABILITIES, JOB_NAME_LABEL } from '../../builder/controller/build-job.js';
import { TRUST_BUNDLE_KEY } from '../../builder/controller/build-script.js';
import { BuildKey, buildTag } from '../../builder/fleet/build-registry.js';
import { ProviderBuilds } from '../../builder/fleet/provider-build.js';
import { FLEET_BUILD_NAMESPACE, FLEET_BUILD_NAMESPACE_RULES, FLEET_NAMESPACE_RULES } from '../../builder/fleet/rbac.js';
import { verifyBuiltImage } from '../../builder/registry/image-check.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { dockerConfigCredentials } from '../../builder/registry/dockerconfig.js';
import { removeWorkDir, requireKubeletEmulation, runPod, Scc } from './kubelet.js';
import { builderImage, sccBoundInPackage } from './build-pod-fixtures.js';
import { b64 } from './fixtures.js';
import { withNamespace } from './clusters.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const NS = 'on-cluster-build-fleet';
const BNS = FLEET_BUILD_NAMESPACE;
const FLEET_USER = `system:serviceaccount:${NS}:fleet`;
const NO_AUTH = '{"auths":{}}';

describe('a provider build against a registry signed by a private CA', () => {
  let tls: TestRegistry;
  let mgmt: ApiTestServer;
  let work: string;
  let scc: Scc;
  let baseRef: string;
  const stop = new AbortController();

  beforeAll(async () => {
    // Fails (never skips) where this machine cannot run rootless buildah the way the pod does.
    requireKubeletEmulation();
    work = mkdtempSync(path.join(tmpdir(), 'fleet-provider-pod-'));
    scc = sccBoundInPackage();
    tls = await startRegistry('tls');
    // The release's base OS: one layer, pushed by skopeo trusting the CA.
    const root = path.join(work, 'base');
    mkdirSync(path.join(root, 'usr/lib'), { recursive: true });
    mkdirSync(path.join(root, 'tmp'));
    chmodSync(path.join(root, 'tmp'), 0o1777);
    writeFileSync(path.join(root, 'usr/lib/os-release'), 'ID=rhcos\nVERSION_ID=4.99\n');
    const layout = path.join(work, 'oci');
    run('umoci', ['init', '--layout', layout]);
    run('umoci', ['new', '--image', `${layout}:img`]);
    run('tar', ['--numeric-owner', '--owner=0', '--group=0', '--sort=name', '--mtime=@0', '-C', root, '-cf', path.join(work, 'base.tar'), '.']);
    run('umoci', ['raw', 'add-layer', '--image', `${layout}:img`, path.join(work, 'base.tar')]);
    const repo = `${tls.host}/ocp/rhcos`;
    run('skopeo', ['copy', '--quiet', '--dest-cert-dir', tls.certDir!, `oci:${layout}:img`, `docker://${repo}:base`]);
    const raw = run('skopeo', ['inspect', '--raw', '--cert-dir', tls.certDir!, `docker://${repo}:base`]);
    baseRef = `${repo}@sha256:${createHash('sha256').update(Buffer.from(raw)).digest('hex')}`;

    mgmt = await startApiServer({ identities: [{ name: FLEET_USER, token: 'fleet-token', rules: [...withNamespace(FLEET_NAMESPACE_RULES, NS), ...withNamespace(FLEET_BUILD_NAMESPACE_RULES, BNS)] }, { name: 'system:admin', token: 'admin-token' }] });
    for (const n of [NS, BNS]) mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: n } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Secret', type: 'kubernetes.io/dockerconfigjson', metadata: { name: 'provider-push', namespace: NS }, data: { '.dockerconfigjson': b64(NO_AUTH) } });
    mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'provider-ca', namespace: NS }, data: { 'ca-bundle.crt': readFileSync(tls.caFile!, 'utf8') } });
  }, 120_000);

  afterAll(async () => {
    stop.abort();
    await mgmt?.stop();
    await cleanupRegistry(tls);
    if (work) removeWorkDir(work);
  });

  const builds = (trustBundleConfigMap?: string) =>
    new ProviderBuilds({
      management: new Kube(mgmt.kubeConfig(FLEET_USER)),
      namespace: NS,
      buildNamespace: BNS,
      repository: `${tls.host}/provider/os`,
      containerfile: 'FROM configs AS final\nLABEL provider=layer\n',
      pushSecretName: 'provider-push',
      connectPolicy: new NetGuard({ allow: [tls.host] }),
      resolveBase: async () => ({ baseOSImage: baseRef, builderImage: `${tls.host}/ocp/mco@${D('c')}` }),
      // The fleet's own check, as main.ts wires it: trusting the CA ProviderBuilds hands it.
      verify: async (i) => {
        const r = await verifyBuiltImage({ pushRef: i.pushRef, arch: i.arch, baseImageRef: i.baseImageRef, credentials: dockerConfigCredentials(i.credentials, { file: 'push secret', path: '.dockerconfigjson' }), connectPolicy: new NetGuard({ allow: [tls.host] }), ...(i.ca !== undefined ? { ca: i.ca } : {}) });
        return r.ok ? { ok: true } : { ok: false, reason: `${r.reason}: ${r.message}` };
      },
      pollMs: 50,
      signal: stop.signal,
      ...(trustBundleConfigMap ? { trustBundleConfigMap } : {}),
    });

  /** Starts the key's build, runs the pod its Job describes, reports its end as the Job controller would; the build's answer and the pod's run. */
  const keyOf = (c: string): BuildKey => ({ releaseDigest: D(c), arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b') });
  async function execute(trust: string | undefined, c: string) {
    const key = keyOf(c);
    const name = `provider-${buildTag(key)}`;
    const answer = builds(trust).build(key).then((r) => r, (e: Error) => e);
    const get = (apiVersion: string, kind: string) => mgmt.store.get({ apiVersion, kind, name, namespace: BNS }) as (KubeObject & { data?: Record<string, string> }) | undefined;
    for (let i = 0; i < 500 && !get('v1', 'Secret'); i++) await new Promise((r) => setTimeout(r, 10));
    const job = get('batch/v1', 'Job')!;
    const cm = get('v1', 'ConfigMap')!;
    const pod = await runPod({
      job,
      configMaps: { [name]: cm.data! },
      secrets: { [name]: get('v1', 'Secret')!.data! },
      scc,
      runtimeDefaultCapabilities: CRIO_DEFAULT_CAPABILITIES,
      image: builderImage(),
      workDir: mkdtempSync(path.join(work, 'pod-')),
    });
    mgmt.store.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: `${name}-x`, namespace: BNS, labels: { [JOB_NAME_LABEL]: name }, creationTimestamp: '2026-11-27T00:00:00Z' }, status: { containerStatuses: [{ name: 'push', state: { terminated: { exitCode: pod.exitCode, message: pod.terminationMessage } } }] } });
    mgmt.store.put({ ...job, status: { conditions: [pod.exitCode === 0 ? { type: 'Complete', status: 'True' } : { type: 'Failed', status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' }] } });
    return { answer: await answer, pod, cm };
  }

  it('with --provider-trust-bundle the pull and push trust the CA: pushed, verified, answered by digest', async () => {
    const { answer, pod, cm } = await execute('provider-ca', '1');
    expect(cm.data![TRUST_BUNDLE_KEY]).toBe(readFileSync(tls.caFile!, 'utf8'));
    expect({ exitCode: pod.exitCode, evicted: pod.evicted, tail: pod.exitCode ? pod.terminationMessage : '' }).toEqual({ exitCode: 0, evicted: undefined, tail: '' });
    expect(answer).toEqual({ image: `${tls.host}/provider/os@${pod.terminationMessage}` });
    const raw = run('skopeo', ['inspect', '--raw', '--cert-dir', tls.certDir!, `docker://${tls.host}/provider/os@${pod.terminationMessage}`]);
    expect(`sha256:${createHash('sha256').update(Buffer.from(raw)).digest('hex')}`).toBe(pod.terminationMessage);
    // The fleet's own look-up of the tag (after a restart) trusts the same bundle; without it TLS fails.
    expect(await builds('provider-ca').lookup(keyOf('1'))).toEqual(answer);
    await expect(builds().lookup(keyOf('1'))).rejects.toThrow(/^registry 127\.0\.0\.1:\d+: TLS certificate not trusted/);
  }, 300_000);

  it('without it the pull fails x509, and the build fails saying so', async () => {
    const { answer, pod, cm } = await execute(undefined, '2');
    expect(cm.data![TRUST_BUNDLE_KEY]).toBeUndefined();
    expect(pod.exitCode).not.toBe(0);
    expect(pod.containers.map((x) => [x.name, x.exitCode === 0])).toEqual([['pull', false]]);
    expect(answer).toBeInstanceOf(Error);
    expect((answer as Error).message).toMatch(/^provider build job provider-ocb-[0-9a-f]{40} failed: Job has reached the specified backoff limit; last pod: [\s\S]*x509: certificate signed by unknown authority/);
  }, 300_000);

  it('a named ConfigMap that is missing or holds no certificate fails the build before any Job, named', async () => {
    const key: BuildKey = { releaseDigest: D('3'), arch: 'amd64', layerDigest: D('a'), builderImageDigest: D('b') };
    await expect(builds('nope').build(key)).rejects.toThrow(`ConfigMap ${NS}/nope (--provider-trust-bundle) is missing`);
    mgmt.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-pem', namespace: NS }, data: { 'ca-bundle.crt': 'hello' } });
    await expect(builds('not-pem').build(key)).rejects.toThrow(`ConfigMap ${NS}/not-pem key ca-bundle.crt holds no PEM certificate`);
    expect(mgmt.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: `provider-${buildTag(key)}`, namespace: BNS })).toBeUndefined();
  });
});
