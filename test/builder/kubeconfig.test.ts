/**
 * builder/clusters/kubeconfig.ts: the kubeconfig forms our pods use, resolved without
 * @kubernetes/client-node, against the project's API test server on 127.0.0.1; and Kube's own
 * watch (a streamed GET) on such a config.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { load as loadYaml, dump } from 'js-yaml';
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { inClusterConfig, LightKubeConfig, loadLightKubeConfig } from '../../builder/clusters/kubeconfig.js';
import { Kube, RESOURCES, WatchEvent } from '../../builder/clusters/kube.js';
import { hostedKubeconfig } from '../../builder/clusters/token-minter.js';

let api: ApiTestServer;
let dir: string;

beforeAll(async () => {
  api = await startApiServer({ identities: [{ name: 'reader', token: 'reader-token' }] });
  api.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
  dir = mkdtempSync(path.join(tmpdir(), 'kubeconfig-test-'));
});

afterAll(async () => {
  await api?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const caData = () => ((loadYaml(api.kubeconfig('reader')) as { clusters: { cluster: Record<string, string> }[] }).clusters[0]!.cluster['certificate-authority-data'])!;

describe('light kubeconfig', () => {
  it('talks to the server with an inline token and CA data (what the test server writes)', async () => {
    const file = path.join(dir, 'inline');
    writeFileSync(file, api.kubeconfig('reader'));
    const kc = loadLightKubeConfig(file)!;
    expect(kc).toBeDefined();
    expect(kc.getCurrentCluster().server).toBe(api.url);
    expect(await new Kube(kc).get(RESOURCES.configMaps, 'absent', 'ns')).toBeUndefined();
  });

  it('reads the token from the file token-minter writes, and fails without the right one', async () => {
    const token = path.join(dir, 'token');
    writeFileSync(token, 'reader-token\n');
    const file = path.join(dir, 'minted');
    writeFileSync(file, hostedKubeconfig(api.url!, caData(), token));
    expect(await new Kube(loadLightKubeConfig(file)!).get(RESOURCES.configMaps, 'absent', 'ns')).toBeUndefined();
    const bad = path.join(dir, 'bad-token');
    writeFileSync(bad, 'nobody');
    writeFileSync(file, hostedKubeconfig(api.url!, caData(), bad));
    await expect(new Kube(loadLightKubeConfig(file)!).get(RESOURCES.configMaps, 'absent', 'ns')).rejects.toMatchObject({ code: 401 });
  });

  it('leaves exec plugins, other auth-providers and proxies to client-node', () => {
    const base = loadYaml(api.kubeconfig('reader')) as { users: { user: Record<string, unknown> }[]; clusters: { cluster: Record<string, unknown> }[] };
    const variants = [
      (d: typeof base) => (d.users[0]!.user = { exec: { command: 'get-token', apiVersion: 'client.authentication.k8s.io/v1' } }),
      (d: typeof base) => (d.users[0]!.user = { 'auth-provider': { name: 'oidc', config: {} } }),
      (d: typeof base) => (d.clusters[0]!.cluster['proxy-url'] = 'http://127.0.0.1:3128'),
    ];
    for (const [i, change] of variants.entries()) {
      const d = structuredClone(base);
      change(d);
      const file = path.join(dir, `other-${i}`);
      writeFileSync(file, dump(d));
      expect(loadLightKubeConfig(file)).toBeUndefined();
    }
  });

  it('applies client certificates and relative file paths as kubectl does', async () => {
    writeFileSync(path.join(dir, 'ca.crt'), Buffer.from(caData(), 'base64'));
    writeFileSync(path.join(dir, 'client.crt'), 'CERT');
    writeFileSync(path.join(dir, 'client.key'), 'KEY');
    const file = path.join(dir, 'certs');
    writeFileSync(
      file,
      dump({
        apiVersion: 'v1',
        kind: 'Config',
        clusters: [{ name: 'c', cluster: { server: 'https://127.0.0.1:1', 'certificate-authority': 'ca.crt', 'tls-server-name': 'kube-apiserver' } }],
        users: [{ name: 'u', user: { 'client-certificate': 'client.crt', 'client-key': 'client.key' } }],
        contexts: [{ name: 'x', context: { cluster: 'c', user: 'u' } }],
        'current-context': 'x',
      }),
    );
    const opts: Record<string, unknown> = {};
    await loadLightKubeConfig(file)!.applyToHTTPSOptions(opts);
    expect(String(opts.cert)).toBe('CERT');
    expect(String(opts.key)).toBe('KEY');
    expect(opts.servername).toBe('kube-apiserver');
    expect(String(opts.ca)).toContain('BEGIN CERTIFICATE');
    expect((opts.headers as Record<string, string>).Authorization).toBeUndefined();
  });

  it('builds the in-cluster config from the service environment and the ServiceAccount files', async () => {
    writeFileSync(path.join(dir, 'token'), 'sa-token');
    const kc = inClusterConfig({ KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, dir);
    expect(kc.getCurrentCluster()).toMatchObject({ server: 'https://[fd00::1]:443', caFile: `${dir}/ca.crt`, skipTLSVerify: false });
    const opts: Record<string, unknown> = {};
    await kc.applyToHTTPSOptions(opts);
    expect((opts.headers as Record<string, string>).Authorization).toBe('Bearer sa-token');
    expect(() => inClusterConfig({}, dir)).toThrow(/KUBERNETES_SERVICE_HOST/);
  });
});

describe("Kube's watch on a light kubeconfig", () => {
  it('streams events from a resourceVersion and ends once when stopped', async () => {
    const file = path.join(dir, 'watch');
    writeFileSync(file, api.kubeconfig('reader'));
    const kube = await Kube.load(file);
    const { resourceVersion } = await kube.list(RESOURCES.configMaps, { namespace: 'ns' });
    const events: WatchEvent[] = [];
    let ended = 0;
    const handle = await kube.watch(RESOURCES.configMaps, { namespace: 'ns', resourceVersion }, (e) => events.push(e), () => ended++);
    api.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'one', namespace: 'ns' }, data: { a: 'b' } });
    for (let i = 0; i < 200 && !events.some((e) => e.type === 'ADDED'); i++) await new Promise((r) => setTimeout(r, 10));
    expect(events.find((e) => e.type === 'ADDED')?.object.metadata.name).toBe('one');
    handle.stop();
    handle.stop();
    expect(ended).toBe(1);
  });

  it('ends with the HTTP status when the server refuses the watch', async () => {
    const file = path.join(dir, 'refused');
    writeFileSync(file, api.kubeconfig('reader').replace('reader-token', 'wrong-token'));
    const kube = await Kube.load(file);
    const err = await new Promise((resolve) => void kube.watch(RESOURCES.configMaps, { namespace: 'ns' }, () => {}, resolve));
    expect(err).toMatchObject({ code: 401 });
  });
});

describe("client-node's KubeConfig, for the kubeconfigs the light loader leaves to it", () => {
  /**
   * A kubeconfig whose user is an exec plugin (what HyperShift never writes for us, but a provider's
   * kubeconfig may): the plugin is this Node binary printing an ExecCredential with `token`.
   */
  const execKubeconfig = (name: string, token: string) => {
    const d = loadYaml(api.kubeconfig('reader')) as { users: { user: Record<string, unknown> }[] };
    const credential = JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });
    d.users[0]!.user = { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: process.execPath, args: ['-e', `process.stdout.write(${JSON.stringify(credential)})`], interactiveMode: 'Never' } };
    const file = path.join(dir, name);
    writeFileSync(file, dump(d));
    return file;
  };

  it('Kube.load falls back to client-node for an exec plugin, and its requests reach the server with the plugin\'s token', async () => {
    const file = execKubeconfig('exec-good', 'reader-token');
    expect(loadLightKubeConfig(file)).toBeUndefined();
    const kube = await Kube.load(file);
    // The fallback, not the light loader: client-node's KubeConfig.
    expect(kube.config).not.toBeInstanceOf(LightKubeConfig);
    expect(kube.config.constructor.name).toBe('KubeConfig');
    expect(kube.config.getCurrentCluster()?.server).toBe(api.url);
    expect(await kube.get(RESOURCES.configMaps, 'absent', 'ns')).toBeUndefined();
    api.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'via-exec', namespace: 'ns' }, data: { a: 'b' } });
    const { items } = await kube.list(RESOURCES.configMaps, { namespace: 'ns' });
    expect(items.map((o) => o.metadata.name)).toContain('via-exec');
  });

  it("the server sees the plugin's token: a wrong one is refused (401)", async () => {
    const kube = await Kube.load(execKubeconfig('exec-bad', 'wrong-token'));
    expect(kube.config).not.toBeInstanceOf(LightKubeConfig);
    await expect(kube.get(RESOURCES.configMaps, 'absent', 'ns')).rejects.toMatchObject({ code: 401 });
  });
});
