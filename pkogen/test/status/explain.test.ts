/**
 * `pkogen status --explain` and `pkogen diff live:` against the API test server and a local
 * docker-registry holding our package image.
 */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { startApiServer, type ApiTestServer } from '../kube/api-server.js';
import { cleanupRegistry, startRegistry, type TestRegistry } from '../oci/registry-harness.js';
import { OUR_PACKAGE } from '../helpers.js';
import { registerPkoCrds } from './fleet.js';

async function run(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIO = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: { HOME: '/nonexistent' }, cwd };
  const code = await main(args, io);
  return { code, stdout, stderr };
}

describe('pkogen status --explain and diff live:', () => {
  let server: ApiTestServer;
  let reg: TestRegistry;
  let tmp: string;
  let kubeconfig: string;
  let image: string;

  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-explain-'));
    reg = await startRegistry('http');
    cpSync(OUR_PACKAGE, path.join(tmp, 'package'), { recursive: true });
    const built = await run(['build', 'package', '-t', `${reg.host}/explain/pkg:v1`, '--push', '-o', 'digest'], tmp);
    expect(built.code).toBe(0);
    image = `${reg.host}/explain/pkg@${built.stdout.trim()}`;
    server = await startApiServer({ identities: [{ name: 'admin', token: 'explain-token-0123456789' }] });
    registerPkoCrds(server);
    server.registerType({ group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'HostedCluster', plural: 'hostedclusters', namespaced: true, status: true });
    for (const ns of ['clusters', 'clusters-banana']) server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    server.store.put({ apiVersion: 'hypershift.openshift.io/v1beta1', kind: 'HostedCluster', metadata: { name: 'banana', namespace: 'clusters' }, spec: { nodeSelector: { 'node-role.kubernetes.io/infra': '' } } });
    // An Invalid Package: its config lacks serviceCA, which the package's schema requires.
    const config = { image: `quay.io/app-sre/on-cluster-build@sha256:${'2'.repeat(64)}`, secretToken: 'do-not-print-me' };
    server.store.put({
      apiVersion: 'package-operator.run/v1alpha1',
      kind: 'Package',
      metadata: { name: 'on-cluster-build', namespace: 'clusters-banana' },
      spec: { image, config },
      status: { conditions: [{ type: 'Invalid', status: 'True', reason: 'LoadError', message: 'spec.config.serviceCA: Required value', lastTransitionTime: '2026-01-01T00:00:00Z', observedGeneration: 1 }] },
    });
    server.store.put({
      apiVersion: 'package-operator.run/v1alpha1',
      kind: 'ObjectDeployment',
      metadata: { name: 'on-cluster-build', namespace: 'clusters-banana', annotations: { 'package-operator.run/package-source-image': image, 'package-operator.run/package-config': JSON.stringify(config) } },
      spec: { selector: {}, template: { metadata: {}, spec: { phases: [] } } },
    });
    kubeconfig = path.join(tmp, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeconfig('admin', { namespace: 'clusters-banana' }));
  });
  afterAll(async () => {
    await server?.stop();
    await cleanupRegistry(reg);
    rmSync(tmp, { recursive: true, force: true });
  });

  it('--explain pulls the image and reports located findings for the admitted config', async () => {
    const r = await run(['status', '--explain', 'clusters-banana/on-cluster-build', '--kubeconfig', kubeconfig], tmp);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('Package clusters-banana/on-cluster-build is Invalid (LoadError): spec.config.serviceCA: Required value\n');
    expect(r.stdout).toMatch(/error: [^\n]*serviceCA[^\n]*Required value[^\n]*\[pko\/render-with-config\]\n/);
    expect(r.stdout).toContain('1 error(s) with this Package\'s config and environment\n');
    expect(r.stdout).not.toContain('do-not-print-me');
  });

  it('--explain of a missing Package is one clear error', async () => {
    const r = await run(['status', '--explain', 'clusters-banana/nope', '--kubeconfig', kubeconfig], tmp);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Package clusters-banana\/nope not found at https:\/\/127\.0\.0\.1:\d+\n$/);
  });

  it('diff live:NS/NAME renders what the cluster runs with its admitted config', async () => {
    const r = await run(['diff', 'live:clusters-banana/on-cluster-build', 'package', '--kubeconfig', kubeconfig], tmp);
    // The live config is invalid (no serviceCA): the render of that side fails, located.
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: live:clusters-banana\/on-cluster-build: [^\n]*serviceCA[^\n]*\n$/);
    expect(r.stderr).not.toContain('do-not-print-me');
  });
});
