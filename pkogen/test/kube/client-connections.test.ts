/**
 * kubeRequest's connections: requests through one kubeconfig share keep-alive TLS connections
 * instead of a TCP connection and TLS handshake each (client-node's own agent keeps none).
 */
import { kubeRequest } from '../../src/kube/client.js';
import { ApiTestServer, startApiServer } from './api-server.js';

let server: ApiTestServer;

beforeAll(async () => {
  server = await startApiServer({ identities: [{ name: 'admin', token: 'admin-token-0123456789' }] });
  server.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'keep' } });
});

afterAll(async () => {
  await server.stop();
});

it('sends 40 sequential requests over one TLS connection', async () => {
  const kc = server.kubeConfig('admin');
  const before = server.tlsConnections;
  for (let i = 0; i < 40; i++) {
    if (i % 2 === 0) await kubeRequest(kc, 'POST', '/api/v1/namespaces/keep/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `cm-${i}` }, data: { i: String(i) } } });
    else await kubeRequest(kc, 'GET', `/api/v1/namespaces/keep/configmaps/cm-${i - 1}`);
  }
  expect(server.tlsConnections - before).toBe(1);
});

it('keeps one pool per kubeconfig user: 10 concurrent requests open at most 10 connections and later ones reuse them', async () => {
  const kc = server.kubeConfig('admin');
  const before = server.tlsConnections;
  await Promise.all(Array.from({ length: 10 }, () => kubeRequest(kc, 'GET', '/api/v1/namespaces/keep/configmaps')));
  const opened = server.tlsConnections - before;
  expect(opened).toBeLessThanOrEqual(10);
  for (let i = 0; i < 20; i++) await kubeRequest(kc, 'GET', '/api/v1/namespaces/keep/configmaps/cm-0');
  expect(server.tlsConnections - before).toBe(opened);
});
