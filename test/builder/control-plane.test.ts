/**
 * `on-cluster-build control-plane`: the controller and the admission webhook in one process, run
 * as the real program (`node bin/on-cluster-build.js`) twice, as two replicas of one Deployment,
 * against the project's API test servers (management and hosted) on 127.0.0.1. Both replicas
 * answer admission from start-up; only the Lease holder runs the loop; one /metrics per process
 * carries the admission counters and the controller's gauges; a replica whose Lease is taken
 * stops its loop but keeps serving admission and takes the Lease back once it is free; when the
 * holder stops, the other replica takes over the loop; a replica whose hosted kubeconfig never
 * appears (no token minted) serves admission past --hosted-kubeconfig-wait instead of exiting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { CONTROLLER_USERNAME } from '../../builder/cli.js';
import { WEBHOOK_PATHS } from '../../builder/api/types.js';
import { LEASE_NAME } from '../../builder/policy/rbac.js';
import { managementUser, startClusters } from './clusters.js';
import { b64, dockerConfigJson, pullSecret, tokenSecret } from './fixtures.js';
import { GV, nodePoolOSConfig } from './hcp-fixtures.js';
import { metricsPki, MetricsPki, scrape } from './metrics-harness.js';
import { post } from './webhook-client.js';

/** The repository (jest runs from it); the program runs from its build (`make build`). */
const root = process.cwd();
const NS = 'clusters-banana';
const HOSTED_NS = 'openshift-on-cluster-build';
const MGMT_USER = managementUser(NS);
const SCRAPER = 'system:serviceaccount:hypershift:prometheus';
const RELEASE = `quay.io/openshift-release-dev/ocp-release@sha256:${'b'.repeat(64)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Replica {
  child: ChildProcess;
  port: number;
  metricsPort: number;
  log: string;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });

const review = (name: string, valid: boolean) =>
  JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `u-${name}`,
      kind: { group: 'on-cluster-build.pkogen.io', version: 'v1alpha1', kind: 'NodePoolOSConfig' },
      operation: 'CREATE',
      userInfo: { username: 'kube:admin' },
      object: nodePoolOSConfig(name, valid ? {} : { containerFile: [{ containerfileArch: 'NoArch', content: 'FROM quay.io/evil/x AS final\n' }] }),
    },
  });

describe('on-cluster-build control-plane: two replicas of one process', () => {
  let mgmt: ApiTestServer;
  let hosted: ApiTestServer;
  let dir: string;
  let pki: MetricsPki;
  let client: { cert: string; key: string };
  const replicas: Replica[] = [];

  const lease = () => mgmt.store.get({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', name: LEASE_NAME, namespace: NS });
  /** The replica whose identity (logged when it became leader) holds the Lease now. */
  const holder = () => {
    const id = lease()?.spec?.holderIdentity;
    return id ? replicas.find((r) => r.child.exitCode === null && r.log.includes(`"identity":"${id}"`)) : undefined;
  };
  const reconciled = (name: string) => (hosted.store.get({ apiVersion: GV, kind: 'NodePoolOSConfig', name })?.status?.conditions ?? []).length > 0;
  const waitFor = async (what: string, cond: () => boolean, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!cond()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}; logs:\n${replicas.map((r) => r.log.slice(-1500)).join('\n---\n')}`);
      await sleep(100);
    }
  };
  const admit = async (r: Replica, name: string, valid: boolean) => {
    const reply = await post(r.port, readFileSync(pki.serverCa, 'utf8'), WEBHOOK_PATHS.nodePoolOSConfigs, review(name, valid));
    expect(reply.status).toBe(200);
    return JSON.parse(reply.body).response.allowed as boolean;
  };

  async function startReplica(extra: string[] = []): Promise<Replica> {
    const metricsPort = await freePort();
    const args = [
      path.join(root, 'bin', 'on-cluster-build.js'),
      'control-plane',
      `--namespace=${NS}`,
      `--management-kubeconfig=${dir}/management.kubeconfig`,
      `--hosted-kubeconfig=${dir}/hosted.kubeconfig`,
      '--leader-elect-lease-duration=3',
      '--leader-elect-renew-deadline=2',
      '--leader-elect-retry-period=1',
      '--health-port=0',
      '--port=0',

      `--tls-cert-file=${pki.certDir}/tls.crt`,
      `--tls-private-key-file=${pki.certDir}/tls.key`,
      `--metrics-port=${metricsPort}`,
      `--metrics-cert-dir=${pki.certDir}`,
      `--metrics-client-ca=${pki.clientCa}`,
    ];
    // `extra` replaces a flag of the same name.
    const named = (a: string) => a.split('=')[0];
    const argv = [...args.filter((a) => !extra.some((e) => named(e) === named(a))), ...extra];
    const child = spawn(process.execPath, argv, { cwd: root, stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, NODE_EXTRA_CA_CERTS: '' } });
    const r: Replica = { child, port: 0, metricsPort, log: '' };
    child.stderr!.on('data', (d: Buffer) => {
      r.log = (r.log + d.toString()).slice(-200_000);
    });
    replicas.push(r);
    await waitFor('the replica to serve admission', () => /"msg":"serving","port":\d+/.test(r.log) || child.exitCode !== null, 30_000);
    r.port = Number(/"msg":"serving","port":(\d+)/.exec(r.log)?.[1]);
    if (!r.port) throw new Error(`the replica did not serve: ${r.log}`);
    return r;
  }

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'control-plane-'));
    pki = metricsPki(dir);
    client = pki.client(SCRAPER);
    ({ mgmt, hosted } = await startClusters(startApiServer, NS));
    mgmt.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
    mgmt.store.put(pullSecret(NS, 'pull-secret', JSON.stringify({ auths: { 'quay.io': { auth: b64('hcp:hcp-password') } } })));
    mgmt.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedControlPlane', metadata: { name: 'banana', namespace: NS }, spec: { releaseImage: RELEASE } });
    for (const ns of [HOSTED_NS, 'on-cluster-build-jobs', 'openshift-config']) hosted.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    hosted.store.put(pullSecret('openshift-config', 'pull-secret', dockerConfigJson('quay.io', 'hosted-pull', 'hosted-pull-password')));
    for (const name of ['workers-a', 'workers-b', 'workers-c']) {
      mgmt.store.put(tokenSecret({ namespace: NS, nodePoolNamespace: 'clusters', nodePool: name, hash: '1a2b3c4d', release: RELEASE, config: 'kind: MachineConfig\n', created: '2026-11-23T09:00:00Z' }));
    }
    writeFileSync(path.join(dir, 'management.kubeconfig'), mgmt.kubeconfig(MGMT_USER), { mode: 0o600 });
    writeFileSync(path.join(dir, 'hosted.kubeconfig'), hosted.kubeconfig(CONTROLLER_USERNAME), { mode: 0o600 });
    await startReplica();
    await startReplica();
  }, 120_000);

  afterAll(async () => {
    for (const r of replicas) {
      if (r.child.exitCode === null && r.child.signalCode === null) {
        const exited = new Promise((res) => r.child.once('exit', res));
        r.child.kill('SIGTERM');
        await exited;
      }
    }
    await mgmt?.stop();
    await hosted?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('both replicas answer admission; exactly one holds the Lease and runs the loop', async () => {
    for (const r of replicas) {
      expect(await admit(r, 'workers-a', true)).toBe(true);
      expect(await admit(r, 'workers-a', false)).toBe(false);
    }
    await waitFor('a Lease holder', () => holder() !== undefined);
    expect(replicas.filter((r) => r.log.includes('"msg":"became leader"'))).toHaveLength(1);
    hosted.store.put(nodePoolOSConfig('workers-a'));
    await waitFor('workers-a reconciled', () => reconciled('workers-a'));
  }, 120_000);

  it('one /metrics per process carries the admission counters and the controller gauges', async () => {
    for (const r of replicas) {
      const { status, body } = await scrape(r.metricsPort, pki.serverCa, client);
      expect(status).toBe(200);
      expect(body).toMatch(/^on_cluster_build_admission_requests_total\{webhook="NodePoolOSConfig",result="Allowed"\} [1-9]/m);
      expect(body).toContain('# TYPE on_cluster_build_nodepools gauge');
      expect(body).toContain('# TYPE on_cluster_build_builds_started_total counter');
      // Node's process metrics once, not once per catalogue.
      expect(body.match(/^# TYPE process_resident_memory_bytes /gm)).toHaveLength(1);
    }
  }, 60_000);

  it('a replica whose Lease is taken stops its loop, keeps serving admission, and leads again once the Lease is free', async () => {
    const leader = holder()!;
    const l = lease()!;
    const renew = new Date().toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    mgmt.store.put({ ...l, spec: { ...l.spec, holderIdentity: 'someone-else', renewTime: renew, leaseDurationSeconds: 3600 } });
    await waitFor('the loop to stop', () => leader.log.includes('"msg":"standing for the Lease again'));
    expect(leader.child.exitCode).toBeNull();
    expect(await admit(leader, 'workers-b', true)).toBe(true);
    hosted.store.put(nodePoolOSConfig('workers-b'));
    await sleep(3000);
    expect(reconciled('workers-b')).toBe(false);
    const now = lease()!;
    mgmt.store.put({ ...now, spec: { ...now.spec, renewTime: '2020-01-01T00:00:00.000000Z', leaseDurationSeconds: 1 } });
    await waitFor('workers-b reconciled by a new term', () => reconciled('workers-b'));
    expect(replicas.every((r) => r.child.exitCode === null)).toBe(true);
  }, 120_000);

  it('when the holder stops, the other replica takes the loop over', async () => {
    const leader = holder()!;
    const other = replicas.find((r) => r !== leader)!;
    const exited = new Promise<number | null>((res) => leader.child.once('exit', (c) => res(c)));
    leader.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(await admit(other, 'workers-c', true)).toBe(true);
    hosted.store.put(nodePoolOSConfig('workers-c'));
    await waitFor('workers-c reconciled by the other replica', () => reconciled('workers-c'), 90_000);
    expect(other.log).toContain('"msg":"became leader"');
  }, 120_000);

  it('a replica whose hosted kubeconfig never appears keeps serving admission past the wait, and stops cleanly', async () => {
    const r = await startReplica(['--hosted-kubeconfig=/nonexistent/kubeconfig', '--hosted-kubeconfig-wait=1']);
    await sleep(3000);
    expect(r.child.exitCode).toBeNull();
    expect(r.log).toContain('"msg":"waiting for the hosted kubeconfig"');
    expect(await admit(r, 'workers-d', false)).toBe(false);
    const exited = new Promise<number | null>((res) => r.child.once('exit', (c) => res(c)));
    r.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }, 60_000);
});
