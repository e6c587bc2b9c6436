/**
 * The API test server's parts that need no client: patch engines, selector parsing, the direct
 * store (seeding, simulating other actors) and cluster-scoped custom resources.
 */
import { CoreV1Api, KubernetesObjectApi } from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { matchesSelector } from '../../src/rollout/selectors.js';
import { jsonPatch, KubeObject, mergePatch, parseFieldSelector, parseLabelSelector, startApiServer, StatusError } from './api-server.js';
import { raw, statusOf } from './helpers.js';

function failure(f: () => unknown): { code: number; message: string } {
  try {
    f();
  } catch (e) {
    if (e instanceof StatusError) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error('expected a StatusError');
}

describe('JSON patch', () => {
  const doc = { a: { b: [1, 2, 3] }, 'x/y': 'slash', 'm~n': 'tilde' };

  it.each([
    ['append with -', [{ op: 'add', path: '/a/b/-', value: 4 }], { ...doc, a: { b: [1, 2, 3, 4] } }],
    ['insert at an index', [{ op: 'add', path: '/a/b/0', value: 0 }], { ...doc, a: { b: [0, 1, 2, 3] } }],
    ['escaped keys', [{ op: 'replace', path: '/x~1y', value: 's' }, { op: 'remove', path: '/m~0n' }], { a: { b: [1, 2, 3] }, 'x/y': 's' }],
    ['move', [{ op: 'move', from: '/a/b', path: '/c' }], { a: {}, c: [1, 2, 3], 'x/y': 'slash', 'm~n': 'tilde' }],
    ['copy', [{ op: 'copy', from: '/a/b/1', path: '/d' }], { ...doc, d: 2 }],
    ['test then remove an element', [{ op: 'test', path: '/a/b', value: [1, 2, 3] }, { op: 'remove', path: '/a/b/1' }], { ...doc, a: { b: [1, 3] } }],
  ])('%s', (_name, ops, want) => {
    expect(jsonPatch(doc, ops)).toEqual(want);
    expect(doc.a.b).toEqual([1, 2, 3]); // the input is never modified
  });

  it.each([
    ['a missing path', [{ op: 'remove', path: '/nope' }], 'operation 0: path "/nope" does not exist'],
    ['an index past the end', [{ op: 'replace', path: '/a/b/3', value: 1 }], 'operation 0: array index 3 out of range'],
    ['a pointer without /', [{ op: 'add', path: 'a', value: 1 }], 'path "a" must start with "/"'],
    ['an unknown op', [{ op: 'merge', path: '/a' }], 'operation 0: unsupported operation "merge"'],
    ['a failed test', [{ op: 'add', path: '/z', value: 1 }, { op: 'test', path: '/z', value: 2 }], 'operation 1: test failed'],
  ])('refuses %s with a 422 naming the operation', (_name, ops, msg) => {
    const f = failure(() => jsonPatch(doc, ops));
    expect(f.code).toBe(422);
    expect(f.message).toContain(msg);
  });

  it('refuses a body that is not a list of operations', () => {
    expect(failure(() => jsonPatch(doc, { op: 'add' })).code).toBe(400);
  });
});

describe('merge patch', () => {
  it('follows RFC 7386: objects merge, null deletes, arrays and scalars replace', () => {
    expect(mergePatch({ a: { b: 1, c: [1, 2] }, d: 1 }, { a: { b: null, c: [3] }, d: { e: 1 } })).toEqual({ a: { c: [3] }, d: { e: 1 } });
    expect(mergePatch({ a: 1 }, 'scalar')).toBe('scalar');
  });
});

describe('selector strings', () => {
  it.each([
    ['a=b', { a: 'b' }, true],
    ['a=b', {}, false],
    ['a!=b', {}, true], // a missing key is "not equal", as in apimachinery's labels.Requirement
    ['a notin (b)', {}, true],
    ['a in (b,c)', { a: 'c' }, true],
    ['a,!c', { a: '', c: 'x' }, false],
    ['a=', { a: '' }, true],
    ['example.com/tier = web', { 'example.com/tier': 'web' }, true],
  ])('%s on %j → %s', (sel, labels, want) => {
    expect(matchesSelector(parseLabelSelector(sel), labels)).toBe(want);
  });

  it.each(['a in (b', 'a)', '=b', 'a in b', 'a>1', 'a=b c'])('refuses %j with a 400', (sel) => {
    const f = failure(() => parseLabelSelector(sel));
    expect(f.code).toBe(400);
    expect(f.message).toContain('unable to parse requirement');
  });

  it('reads field selectors on metadata.name and metadata.namespace only', () => {
    expect(parseFieldSelector('metadata.name=a,metadata.namespace!=b')).toEqual([
      { field: 'metadata.name', equal: true, value: 'a' },
      { field: 'metadata.namespace', equal: false, value: 'b' },
    ]);
    expect(failure(() => parseFieldSelector('status.phase=Running')).message).toContain('field label not supported: status.phase');
    expect(failure(() => parseFieldSelector('metadata.name')).message).toContain('expected field=value');
  });
});

describe('direct store and cluster-scoped custom resources', () => {
  const ADMIN = { name: 'admin', token: 'tok-admin' };

  it('seeds and inspects objects without HTTP, emitting what watches and lists see', async () => {
    const s = await startApiServer({ identities: [ADMIN], clock: () => new Date('2026-01-02T03:04:05.678Z') });
    try {
      s.store.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hcp' } });
      const job = s.store.put({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'build-1', namespace: 'hcp' }, spec: { template: {} } });
      expect(job.metadata).toMatchObject({ generation: 1, creationTimestamp: '2026-01-02T03:04:05Z' });
      // Another actor (the Job controller) writes status directly; the spec did not change, so neither does generation.
      const done = s.store.put({ ...job, status: { succeeded: 1 } });
      expect(done.status).toEqual({ succeeded: 1 });
      expect(done.metadata?.generation).toBe(1);
      expect(Number(done.metadata?.resourceVersion)).toBeGreaterThan(Number(job.metadata?.resourceVersion));

      const listed = await raw(s, 'GET', '/apis/batch/v1/namespaces/hcp/jobs', { token: ADMIN.token });
      expect(listed.body.items.map((j: KubeObject) => j.status)).toEqual([{ succeeded: 1 }]);
      expect(s.store.list('batch/v1', 'Job', 'hcp').map((j) => j.metadata?.name)).toEqual(['build-1']);

      // The returned copies are the caller's: changing one changes nothing stored.
      done.status.succeeded = 99;
      expect(s.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: 'build-1', namespace: 'hcp' })?.status).toEqual({ succeeded: 1 });

      s.store.put({ ...done, metadata: { ...done.metadata, finalizers: ['hold'] } });
      expect(s.store.delete({ apiVersion: 'batch/v1', kind: 'Job', name: 'build-1', namespace: 'hcp' })).toBe(false);
      expect(s.store.delete({ apiVersion: 'batch/v1', kind: 'Job', name: 'build-1', namespace: 'hcp' }, { force: true })).toBe(true);
      expect(s.store.get({ apiVersion: 'batch/v1', kind: 'Job', name: 'build-1', namespace: 'hcp' })).toBeUndefined();

      expect(() => s.store.put({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'x' } })).toThrow('store.put: Job "x" needs metadata.namespace');
      expect(() => s.store.put({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } })).toThrow('no registered kind Widget in example.com/v1');
      expect(() => s.store.put({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'Bad_Name', namespace: 'hcp' } })).toThrow(/store.put: ConfigMap "Bad_Name" is invalid: metadata.name: Invalid value/);
    } finally {
      await s.stop();
    }
  });

  it('serves a cluster-scoped CRD (ClusterPackage) without namespaces in its paths', async () => {
    const s = await startApiServer({ identities: [ADMIN] });
    try {
      const crd = load(readFileSync(path.join('..', '..', 'shared', 'reference', 'crds', 'pko', 'package-operator.run_clusterpackages.yaml'), 'utf8')) as KubeObject;
      expect(s.registerCRD(crd)).toMatchObject({ kind: 'ClusterPackage', namespaced: false });
      const objects = KubernetesObjectApi.makeApiClient(s.kubeConfig('admin'));
      await objects.create({ apiVersion: 'package-operator.run/v1alpha1', kind: 'ClusterPackage', metadata: { name: 'cluster-one' }, spec: { image: 'quay.io/x@sha256:' + 'b'.repeat(64) } } as KubeObject);
      const list = await raw(s, 'GET', '/apis/package-operator.run/v1alpha1/clusterpackages', { token: ADMIN.token });
      expect(list.body).toMatchObject({ kind: 'ClusterPackageList', items: [expect.objectContaining({ metadata: expect.objectContaining({ name: 'cluster-one' }) })] });
      const namespaced = await raw(s, 'GET', '/apis/package-operator.run/v1alpha1/namespaces/x/clusterpackages', { token: ADMIN.token });
      expect(namespaced.status).toBe(404);
      // A namespaced kind has no cluster-scoped create.
      const core = s.kubeConfig('admin').makeApiClient(CoreV1Api);
      const r = await raw(s, 'POST', '/api/v1/configmaps', { token: ADMIN.token, body: '{}' });
      expect(r.status).toBe(404);
      expect((await statusOf(core.readNamespacedConfigMap({ name: 'x', namespace: 'y' }))).code).toBe(404);
    } finally {
      await s.stop();
    }
  });
});
