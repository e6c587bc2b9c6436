/**
 * `pkogen status` against the project's Kubernetes API test server (TLS, bearer token, paging,
 * watch) serving PKO objects that validate against the bundled PKO CRDs.
 */
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { parseProbeFailure, age } from '../../src/status/model.js';
import { createSchemaRegistry } from '../../src/schema/registry.js';
import { startApiServer, type ApiTestServer } from '../kube/api-server.js';
import { tempDir } from '../helpers.js';
import { crdFiles, D1, IMAGE, registerPkoCrds, seedFleet, SPECIAL } from './fleet.js';

const ADMIN = { name: 'admin', token: 'status-admin-token-0123456789' };

async function run(args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: { HOME: '/nonexistent', ...env }, cwd: process.cwd() };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('pkogen status', () => {
  let server: ApiTestServer;
  let kubeconfig: string;
  const tmp = tempDir('pkogen-status-');
  let seeded: ReturnType<typeof seedFleet>;

  beforeAll(async () => {
    server = await startApiServer({ identities: [ADMIN] });
    registerPkoCrds(server);
    seeded = seedFleet(server, 50);
    kubeconfig = path.join(tmp.dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeconfig('admin', { namespace: 'hcp-03' }));
  });
  afterAll(async () => {
    await server.stop();
    tmp.cleanup();
  });

  it('the seeded objects validate against the bundled PKO CRDs', () => {
    const registry = createSchemaRegistry({ crdFiles: crdFiles() });
    const issues = seeded.flatMap((o) => {
      const r = registry.validate(o);
      expect(r.known).toBe(true);
      return r.issues.map((i) => `${o.kind} ${o.metadata?.namespace}/${o.metadata?.name} ${i.path}: ${i.message}`);
    });
    expect(issues).toEqual([]);
  });

  it('-A prints one row per Package with state, reason, age, blocking objects and a summary; exit 1', async () => {
    server.clearAudit();
    const r = await run(['status', '-A', '--kubeconfig', kubeconfig, '--page-size', '7']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    const row = (ns: string) => r.stdout.split('\n').find((l) => l.startsWith(ns + ' '))!.split(/\s{2,}/);
    expect(row('hcp-00')).toEqual(['hcp-00', 'on-cluster-build', '1', D1.slice(0, 19), 'Available', 'Available', '3h30m']);
    expect(row('hcp-03').slice(2, 6)).toEqual(['2', D1.slice(0, 19), 'Progressing', 'RolloutInProgress']);
    expect(row('hcp-07').slice(2, 6)).toEqual(['-', D1.slice(0, 19), 'Unpacking', 'ImagePullBackOff']);
    expect(row('hcp-11').slice(4, 6)).toEqual(['Invalid', 'LoadError']);
    expect(row('hcp-13').slice(4, 6)).toEqual(['Paused', 'Paused']);
    expect(row('hcp-19').slice(4, 6)).toEqual(['NotReady', 'ObjectSetUnavailable']);
    // The blocking phase and objects come from the active ObjectSet's ProbeFailure message.
    expect(r.stdout).toContain(
      [
        'hcp-03/on-cluster-build:',
        '  blocked in phase "deploy"',
        '    apps/Deployment hcp-03/machine-os-builder: Available=False, replicas not updated 0/1',
        '    batch/Job hcp-03/warmup: not found',
      ].join('\n'),
    );
    expect(r.stdout).toContain('hcp-19/on-cluster-build:\n  PreflightError: Phase "rbac", rbac.authorization.k8s.io/v1, Kind=ClusterRole /machine-os-builder: must be namespaced\n');
    expect(r.stdout).toContain('CollisionDetected: refusing adoption, object  /v1, Kind=ConfigMap hcp-23/settings not owned by previous owner');
    expect(r.stdout).toContain('  Unpacking: pulling image: GET https://quay.io/v2/example/on-cluster-build-package/manifests/sha256:1111: MANIFEST_UNKNOWN');
    expect(r.stdout).toContain('hcp-29/on-cluster-build:\n  blocked in phase "hosted-cluster"\n  phase on-cluster-build-6f7d8c9b5-hosted-cluster (class hosted-cluster): Available=False ProbeFailure: Phase "hosted-cluster" failed: apps Deployment openshift-machine-config-operator/machine-os-builder: not found\n');
    expect(r.stdout.trimEnd().split('\n').pop()).toBe('50 package(s): 43 available, 1 progressing, 1 invalid, 5 other');
    // One paged list per kind: 50 Packages by 7 are 8 pages; nothing per namespace.
    const lists = server.audit.filter((e) => e.resource && e.verb === 'list');
    expect(lists.filter((e) => e.resource === 'packages')).toHaveLength(8);
    expect(new Set(lists.map((e) => e.namespace ?? ''))).toEqual(new Set(['']));
    expect([...new Set(lists.map((e) => e.resource))].sort()).toEqual(['clusterpackages', 'hostedclusterpackages', 'objectdeployments', 'objectsetphases', 'objectsets', 'packages']);
    // No config value is printed, even in wide output.
    expect(r.stdout).not.toContain('do-not-print-me');
  });

  it('--expect-image marks drift; JSON carries the same rows and summary', async () => {
    const r = await run(['status', '-A', '--kubeconfig', kubeconfig, '--expect-image', IMAGE, '-o', 'json']);
    expect(r.code).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.totals).toEqual({ total: 50, available: 43, progressing: 1, invalid: 1, other: 5, drift: 1 });
    expect(j).toMatchObject({ command: 'status', subject: 'all namespaces', ok: false, findings: [], summary: { error: 0, warning: 0, info: 0 } });
    const byNs = Object.fromEntries(j.packages.map((p: { namespace: string }) => [p.namespace, p]));
    expect(byNs['hcp-17']).toMatchObject({ state: 'Available', drift: true, ok: false });
    expect(byNs['hcp-00']).toMatchObject({ state: 'Available', drift: false, ok: true, revision: 1, digest: D1 });
    expect(byNs['hcp-03'].blocking).toEqual({
      phase: 'deploy',
      objects: [
        { group: 'apps', kind: 'Deployment', namespace: 'hcp-03', name: 'machine-os-builder', messages: 'Available=False, replicas not updated 0/1' },
        { group: 'batch', kind: 'Job', namespace: 'hcp-03', name: 'warmup', messages: 'not found' },
      ],
    });
    expect(byNs['hcp-03'].history.map((h: { revision: number; lifecycleState: string }) => `${h.revision} ${h.lifecycleState}`)).toEqual(['2 Active', '1 Archived']);
    expect(byNs['hcp-03'].history[0].configKeys).toEqual(['pullSecret', 'replicas']);
    expect(r.stdout).not.toContain('do-not-print-me');
    for (const [i, s] of Object.entries(SPECIAL)) if (s !== 'drift') expect(byNs[`hcp-${String(i).padStart(2, '0')}`].ok).toBe(false);
  });

  it('exit 0 when every selected Package is Available with the expected image; -n uses one namespace', async () => {
    const r = await run(['status', '-n', 'hcp-00', '--kubeconfig', kubeconfig, '--expect-image', D1]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^NAMESPACE\s+NAME\s+REVISION\s+DIGEST\s+STATE\s+REASON\s+AGE\s+DRIFT\n/);
    expect(r.stdout).toContain('1 package(s): 1 available, 0 progressing, 0 invalid, 0 with image drift from sha256:');
  });

  it('uses the context namespace by default and KUBECONFIG like kubectl (missing files skipped, first definition wins); -o wide shows the revision history', async () => {
    const r = await run(['status', '-o', 'wide'], { KUBECONFIG: `${path.join(tmp.dir, 'missing')}:${kubeconfig}:${kubeconfig}` });
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\nhcp-03 +on-cluster-build +2 /);
    expect(r.stdout).not.toContain('hcp-00');
    expect(r.stdout).toMatch(/revision 2 on-cluster-build-7c6b5d4f8: Active, Available=False, image quay\.io\/example\/on-cluster-build-package@sha256:1{64}, config sha256:[0-9a-f]{12} \(keys: pullSecret,replicas\)/);
    expect(r.stdout).toContain('revision 1 on-cluster-build-6f7d8c9b5: Archived, Available=True');
    expect(r.stdout).not.toContain('do-not-print-me');
  });

  it('-l selects by label and NAME by name', async () => {
    const none = await run(['status', '-A', '-l', 'team=nobody', '--kubeconfig', kubeconfig]);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe('No packages found.\n0 package(s): 0 available, 0 progressing, 0 invalid\n');
    const named = await run(['status', 'other', '-A', '--kubeconfig', kubeconfig]);
    expect(named.stdout).toContain('No packages found.');
  });

  it('API errors are one line, exit 1, without the token', async () => {
    server.failNext({ verb: 'list', resource: 'objectsets', code: 403, message: 'objectsets.package-operator.run is forbidden: User "admin" cannot list resource "objectsets"' });
    const r = await run(['status', '-A', '--kubeconfig', kubeconfig]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: GET \/apis\/package-operator\.run\/v1alpha1\/objectsets: objectsets\.package-operator\.run is forbidden: .*\(https:\/\/127\.0\.0\.1:\d+\)\n$/);
    expect(r.stderr + r.stdout).not.toContain(ADMIN.token);
    const bad = await run(['status', '--kubeconfig', path.join(tmp.dir, 'nope')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^error: .*nope: cannot load kubeconfig/);
    const ctx = await run(['status', '--kubeconfig', kubeconfig, '--context', 'prod']);
    expect(ctx.stderr).toMatch(/^error: context "prod" not found in kubeconfig \(have: /);
  });

  it.each([
    [['status', '-A', '-n', 'x'], /status: give -A or -n, not both/],
    [['status', '-o', 'yaml'], /status: -o takes a format \(text, wide, json\), got "yaml"/],
    [['status', '--explain', 'nope'], /--explain expects NS\/NAME/],
    [['status', '--watch-timeout', '3'], /--watch-timeout goes with --watch/],
    [['status', '--page-size', '0'], /--page-size must be an integer/],
  ])('usage error %j exits 2', async (args, msg) => {
    const r = await run(args as string[]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(msg as RegExp);
  });

  it('--watch redraws when a Package changes and survives dropped watches', async () => {
    const p = run(['status', '-n', 'hcp-03', '--kubeconfig', kubeconfig, '--watch', '--watch-timeout', '3']);
    await new Promise((r) => setTimeout(r, 500));
    server.dropWatches();
    await new Promise((r) => setTimeout(r, 300));
    const pkg = server.store.get({ apiVersion: 'package-operator.run/v1alpha1', kind: 'Package', namespace: 'hcp-03', name: 'on-cluster-build' })!;
    const status = pkg.status as { conditions: { type: string; status: string; reason: string }[] };
    status.conditions = status.conditions.map((c) => (c.type === 'Progressing' ? { ...c, status: 'False', reason: 'Idle' } : c.type === 'Available' ? { ...c, status: 'True', reason: 'Available' } : c));
    server.store.put(pkg);
    const r = await p;
    const frames = r.stdout.split('---\n');
    expect(frames.length).toBeGreaterThanOrEqual(2);
    expect(frames[0]).toMatch(/hcp-03\s+on-cluster-build\s+2\s+\S+\s+Progressing/);
    expect(frames[frames.length - 1]).toMatch(/hcp-03\s+on-cluster-build\s+2\s+\S+\s+Available/);
    expect(r.code).toBe(0);
  });
});

describe('pkogen status --watch when the API keeps failing', () => {
  it('gives up after a bounded number of reconnects with one clear error', async () => {
    const server = await startApiServer({ identities: [ADMIN] });
    const tmp = tempDir('pkogen-status-watch-');
    try {
      registerPkoCrds(server);
      seedFleet(server, 1);
      const kubeconfig = path.join(tmp.dir, 'kubeconfig');
      writeFileSync(kubeconfig, server.kubeconfig('admin', { namespace: 'hcp-00' }));
      server.failNext({ verb: 'watch', resource: 'packages', count: 100, code: 500, message: 'etcd is down' });
      const r = await run(['status', '--kubeconfig', kubeconfig, '--watch', '--watch-timeout', '30']);
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^error: watch of packages ended 5 times in a row[^\n]*\n$/);
      expect(r.stdout).toMatch(/^NAMESPACE/);
    } finally {
      await server.stop();
      tmp.cleanup();
    }
  });
});

describe('ProbeFailure parsing (package-operator phase_reconciler format)', () => {
  it('splits objects whose messages contain ", " and keeps core and cluster-scoped objects', () => {
    expect(parseProbeFailure('Phase "deploy" failed:  Service ns/web: not found, rbac.authorization.k8s.io ClusterRole /reader: a, b')).toEqual({
      phase: 'deploy',
      objects: [
        { group: '', kind: 'Service', namespace: 'ns', name: 'web', messages: 'not found' },
        { group: 'rbac.authorization.k8s.io', kind: 'ClusterRole', namespace: '', name: 'reader', messages: 'a, b' },
      ],
    });
    expect(parseProbeFailure('Phase "hosted-cluster" failed: no status reported')).toEqual({ phase: 'hosted-cluster', objects: [] });
    expect(parseProbeFailure('something else')).toBeUndefined();
  });

  it('ages like kubectl', () => {
    const now = new Date('2026-01-03T00:00:00Z');
    expect(age('2026-01-02T23:59:15Z', now)).toBe('45s');
    expect(age('2026-01-02T23:48:00Z', now)).toBe('12m');
    expect(age('2026-01-01T00:00:00Z', now)).toBe('2d');
    expect(age(undefined, now)).toBe('-');
  });
});
