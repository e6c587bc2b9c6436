/**
 * The watch's idle timeout (builder/clusters/kube.ts WATCH_IDLE_TIMEOUT_MS): longer than kube-apiserver's
 * bookmark period (about one minute, docs/design/fleet.md), so a quiet watch that gets its bookmarks is
 * never cut, and a stream that goes silent (a dead connection) still ends, saying so. Tested with
 * a short timeout per client on the API test server, never the real one.
 */
import { ApiTestServer, startApiServer } from '../../pkogen/test/kube/api-server.js';
import { Kube, RESOURCES, WATCH_IDLE_TIMEOUT_MS } from '../../builder/clusters/kube.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('watch idle timeout', () => {
  const servers: ApiTestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await s.stop();
  });
  const server = async (bookmarkIntervalMs: number) => {
    const s = await startApiServer({ identities: [{ name: 'system:admin', token: 'admin-token' }], bookmarkIntervalMs });
    servers.push(s);
    s.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns' } });
    return s;
  };

  test('is above the API server bookmark period (one minute) with a margin', () => {
    expect(WATCH_IDLE_TIMEOUT_MS).toBeGreaterThan(60_000 + 1_000);
    expect(WATCH_IDLE_TIMEOUT_MS).toBeLessThan(300_000); // under the watches' own timeoutSeconds
  });

  test('a silent stream ends with a message naming the timeout; bookmarks keep a quiet one open', async () => {
    const silent = await server(3_600_000);
    const ended: unknown[] = [];
    const k = new Kube(silent.kubeConfig('system:admin'), 'test', { watchIdleTimeoutMs: 300 });
    const h = await k.watch(RESOURCES.configMaps, { namespace: 'ns' }, () => {}, (e) => ended.push(e));
    for (let i = 0; i < 100 && ended.length === 0; i++) await sleep(50);
    h.stop();
    expect(ended).toHaveLength(1);
    expect(String((ended[0] as Error).message)).toMatch(/^watch \/api\/v1\/namespaces\/ns\/configmaps: nothing received for 0\.3 s$/);

    const chatty = await server(50);
    const ended2: unknown[] = [];
    let bookmarks = 0;
    const k2 = new Kube(chatty.kubeConfig('system:admin'), 'test', { watchIdleTimeoutMs: 300 });
    const h2 = await k2.watch(RESOURCES.configMaps, { namespace: 'ns' }, (e) => void (e.type === 'BOOKMARK' && bookmarks++), (e) => ended2.push(e));
    for (let i = 0; i < 40 && bookmarks < 10; i++) await sleep(50);
    h2.stop();
    expect(bookmarks).toBeGreaterThanOrEqual(10); // over 0.5 s of bookmarks, longer than the 0.3 s timeout
    expect(ended2.filter((e) => e instanceof Error && /nothing received/.test(e.message))).toEqual([]);
  });
});
