/**
 * The fleet component's mutating webhook (`/mutate-nodepool`) over real HTTPS on 127.0.0.1: the
 * shared admission server (builder/webhook/server.ts) with the gate's admission mutation. The
 * JSONPatch it answers is applied to the NodePool as the API server would.
 */
import * as https from 'node:https';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { makeCa } from '../../pkogen/test/oci/registry-harness.js';
import { GATED_LABEL, HELD_SINCE_ANNOTATION, PAUSED_FOR_ANNOTATION, PAUSED_UNTIL_ANNOTATION, RELEASED_FOR_ANNOTATION, TARGET_SEEN_ANNOTATION } from '../../builder/fleet/gate.js';
import { MUTATE_NODEPOOL_PATH, startFleetWebhook } from '../../builder/fleet/webhook.js';
import type { WebhookServer } from '../../builder/webhook/server.js';

const D = (c: string) => 'sha256:' + c.repeat(64);
const R1 = `quay.io/openshift-release-dev/ocp-release@${D('1')}`;
const R2 = `quay.io/openshift-release-dev/ocp-release@${D('2')}`;
const NOW = new Date('2026-11-25T00:00:00Z');

let dir: string;
let ca: string;
let server: WebhookServer;
const logs: object[] = [];

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'fleet-webhook-'));
  const c = makeCa(dir);
  ca = readFileSync(c.caFile, 'utf8');
  server = await startFleetWebhook({ port: 0, host: '127.0.0.1', certFile: c.cert, keyFile: c.key, maxBodyBytes: 64 * 1024, now: () => NOW, maxHoldSeconds: 3600, log: (l) => logs.push(l) });
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

function post(body: string | object, urlPath = MUTATE_NODEPOOL_PATH): Promise<{ status: number; text: string }> {
  const data = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port: server.port, path: urlPath, method: 'POST', ca, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, text }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

const nodePool = (release: string, o: { labels?: Record<string, string>; annotations?: Record<string, string>; pausedUntil?: string } = {}) => ({
  apiVersion: 'hypershift.openshift.io/v1beta1',
  kind: 'NodePool',
  metadata: { name: 'workers', namespace: 'clusters', labels: { [GATED_LABEL]: 'true', ...(o.labels ?? {}) }, ...(o.annotations ? { annotations: o.annotations } : {}) },
  spec: { clusterName: 'banana', replicas: 3, release: { image: release }, ...(o.pausedUntil ? { pausedUntil: o.pausedUntil } : {}) },
});
const review = (oldObject: object, object: object, operation = 'UPDATE') => ({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u-1', kind: { group: 'hypershift.openshift.io', version: 'v1beta1', kind: 'NodePool' }, resource: { group: 'hypershift.openshift.io', version: 'v1beta1', resource: 'nodepools' }, namespace: 'clusters', name: 'workers', operation, object, oldObject },
});

/** RFC 6902 add/replace, as the API server applies a webhook's patch. */
function applyPatch(obj: any, ops: { op: string; path: string; value: unknown }[]): any {
  const out = JSON.parse(JSON.stringify(obj));
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    let at = out;
    for (const p of parts.slice(0, -1)) at = at[p];
    if (op.op !== 'add' && op.op !== 'replace') throw new Error(`unexpected op ${op.op}`);
    at[parts[parts.length - 1]!] = op.value;
  }
  return out;
}

describe('fleet mutating webhook over HTTPS', () => {
  it('a gated release change is held in the same write; everything else passes unchanged', async () => {
    const r = await post(review(nodePool(R1), nodePool(R2)));
    expect(r.status).toBe(200);
    const out = JSON.parse(r.text);
    expect(out).toMatchObject({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'u-1', allowed: true, patchType: 'JSONPatch' } });
    const patched = applyPatch(nodePool(R2), JSON.parse(Buffer.from(out.response.patch, 'base64').toString('utf8')));
    expect(patched.spec.pausedUntil).toBe('2026-11-25T01:00:00Z'); // now + maxHoldSeconds: it ends by itself
    expect(patched.metadata.annotations).toEqual({ [PAUSED_FOR_ANNOTATION]: R2, [HELD_SINCE_ANNOTATION]: NOW.toISOString(), [PAUSED_UNTIL_ANNOTATION]: '2026-11-25T01:00:00Z' });
    expect(patched.spec.release.image).toBe(R2);

    // HyperShift's UpdatingConfig target before the change is recorded with the hold: the gate lifts only once it moves.
    const reported = (release: string) => ({ ...nodePool(release), metadata: { ...nodePool(release).metadata, annotations: { 'hypershift.openshift.io/nodePoolCurrentConfig': 'c0ffee01' } }, status: { conditions: [{ type: 'UpdatingConfig', status: 'False', reason: 'AsExpected' }] } });
    const withStatus = JSON.parse((await post(review(reported(R1), reported(R2)))).text);
    const p2 = applyPatch(reported(R2), JSON.parse(Buffer.from(withStatus.response.patch, 'base64').toString('utf8')));
    expect(p2.metadata.annotations[TARGET_SEEN_ANNOTATION]).toBe('current:c0ffee01');

    for (const [old, next] of [
      [nodePool(R1), { ...nodePool(R1), spec: { ...nodePool(R1).spec, replicas: 5 } }], // scaling: no hold
      [nodePool(R1, { labels: { [GATED_LABEL]: 'false' } }), nodePool(R2, { labels: { [GATED_LABEL]: 'false' } })], // not gated
      [nodePool(R1), nodePool(R2, { pausedUntil: '2026-12-01T00:00:00Z' })], // someone else's pause
      [nodePool(R1), nodePool(R2, { annotations: { [RELEASED_FOR_ANNOTATION]: R2 } })], // released for it
    ]) {
      const a = JSON.parse((await post(review(old, next))).text);
      expect(a.response).toEqual({ uid: 'u-1', allowed: true });
    }
    const del = JSON.parse((await post(review(nodePool(R1), nodePool(R1), 'DELETE'))).text);
    expect(del.response).toEqual({ uid: 'u-1', allowed: true });
    // Logs: names and the decision, never the object.
    expect(JSON.stringify(logs)).not.toContain('banana');
    expect(logs[0]).toMatchObject({ msg: 'admission', kind: 'NodePool', namespace: 'clusters', name: 'workers', operation: 'UPDATE', allowed: true, held: true });
  });

  it('fails closed on malformed reviews (400: the API server applies failurePolicy), bounded bodies, other paths 404', async () => {
    expect((await post('not json')).status).toBe(400);
    expect((await post({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' })).status).toBe(400);
    const wrongKind = review(nodePool(R1), nodePool(R2)) as any;
    wrongKind.request.kind.kind = 'HostedCluster';
    const r = await post(wrongKind);
    expect(r).toEqual({ status: 400, text: 'request.kind: this endpoint mutates hypershift.openshift.io/v1beta1, Kind=NodePool\n' });
    const noOld = review(nodePool(R1), nodePool(R2)) as any;
    delete noOld.request.oldObject;
    expect((await post(noOld)).status).toBe(400);
    const badLabels = review(nodePool(R1), { ...nodePool(R2), metadata: { name: 'workers', labels: 'x' } });
    expect((await post(badLabels)).text).toBe('request.object.metadata.labels: not an object\n');
    expect((await post('x'.repeat(65 * 1024))).status).toBe(413);
    expect((await post(review(nodePool(R1), nodePool(R2)), '/validate/nodepoolosconfigs')).status).toBe(404);
    const health = await new Promise<number>((resolve, reject) => https.get({ host: '127.0.0.1', port: server.port, path: '/readyz', ca }, (res) => (res.resume(), resolve(res.statusCode!))).on('error', reject));
    expect(health).toBe(200);
  });
});
