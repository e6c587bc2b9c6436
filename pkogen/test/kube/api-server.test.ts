/**
 * The API test server through a real client (@kubernetes/client-node 1.4.0): what a controller or
 * `pkogen status` would see from a kube-apiserver, and where this server knowingly differs.
 */
import {
  AppsV1Api,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  KubernetesObjectApi,
  makeInformer,
  PatchStrategy,
  setHeaderOptions,
  V1ConfigMap,
  Watch,
} from '@kubernetes/client-node';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { load } from 'js-yaml';
import { ApiTestServer, AuditEntry, KubeObject, startApiServer } from './api-server.js';
import { eventually, raw, statusOf } from './helpers.js';

const ADMIN = { name: 'admin', token: 'admin-token-0123456789' };
const BUILDER = {
  name: 'system:serviceaccount:hcp-one:machine-os-builder',
  token: 'builder-token-abcdef',
  groups: ['system:serviceaccounts'],
  rules: [
    { apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'], namespaces: ['hcp-one'] },
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'get', 'list', 'watch', 'delete'], namespaces: ['hcp-one'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'], resourceNames: ['machine-os-builder'], namespaces: ['hcp-one'] },
    { apiGroups: ['apps'], resources: ['deployments/status'], verbs: ['get'], namespaces: ['hcp-one'] },
  ],
};

const cm = (name: string, namespace: string, extra: Partial<V1ConfigMap> = {}): V1ConfigMap => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace, ...(extra.metadata ?? {}) },
  data: extra.data ?? { key: 'value' },
});

const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

let server: ApiTestServer;
let core: CoreV1Api;
let apps: AppsV1Api;
let objects: KubernetesObjectApi;

beforeAll(async () => {
  server = await startApiServer({ identities: [ADMIN, BUILDER], bookmarkIntervalMs: 50 });
  const kc = server.kubeConfig('admin');
  core = kc.makeApiClient(CoreV1Api);
  apps = kc.makeApiClient(AppsV1Api);
  objects = KubernetesObjectApi.makeApiClient(kc);
  for (const n of ['hcp-one', 'crud', 'patch', 'sel', 'watch', 'gc', 'fin', 'crd', 'hook']) server.store.put(ns(n));
});

afterAll(async () => {
  await server.stop();
});

describe('kubeconfig', () => {
  it('names the server, its CA and the bearer token, and client-node loads it', () => {
    const text = server.kubeconfig('admin', { namespace: 'crud' });
    const doc = load(text) as any;
    expect(doc.clusters[0].cluster.server).toBe(server.url);
    expect(Buffer.from(doc.clusters[0].cluster['certificate-authority-data'], 'base64').toString()).toBe(server.caPem);
    expect(doc.users[0].user.token).toBe(ADMIN.token);
    expect(doc.contexts[0].context.namespace).toBe('crud');
    expect(server.kubeConfig('admin').getCurrentUser()?.token).toBe(ADMIN.token);
    expect(() => server.kubeconfig('nobody')).toThrow(/no identity named "nobody"/);
  });

  it('serves /version and discovery that KubernetesObjectApi resolves plurals with', async () => {
    expect((await raw(server, 'GET', '/version')).body.gitVersion).toMatch(/^v1\./);
    const apis = await raw(server, 'GET', '/apis', { token: ADMIN.token });
    expect(apis.body.kind).toBe('APIGroupList');
    expect(apis.body.groups.map((g: any) => g.name)).toEqual(expect.arrayContaining(['apps', 'batch', 'coordination.k8s.io', 'events.k8s.io']));
    const v1 = await raw(server, 'GET', '/api/v1', { token: ADMIN.token });
    expect(v1.body.resources).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'pods/status', kind: 'Pod' }), expect.objectContaining({ name: 'secrets', namespaced: true })]));
    expect((await raw(server, 'GET', '/api', { token: ADMIN.token })).body.versions).toEqual(['v1']);
    const lease = await objects.read({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'x', namespace: 'crud' } }).catch((e) => e);
    expect(lease.code).toBe(404); // resolved through /apis/coordination.k8s.io/v1, then a clean NotFound
  });
});

describe('CRUD', () => {
  it('creates with server-set metadata, reads, updates with optimistic concurrency and deletes', async () => {
    const created = await core.createNamespacedConfigMap({ namespace: 'crud', body: cm('one', 'crud') });
    expect(created.metadata).toEqual(expect.objectContaining({ name: 'one', namespace: 'crud', generation: 1 }));
    expect(created.metadata?.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(created.metadata?.resourceVersion)).toBeGreaterThan(0);
    expect(created.metadata?.creationTimestamp).toBeInstanceOf(Date);

    const read = await core.readNamespacedConfigMap({ name: 'one', namespace: 'crud' });
    expect(read.data).toEqual({ key: 'value' });

    const updated = await core.replaceNamespacedConfigMap({ name: 'one', namespace: 'crud', body: { ...read, data: { key: 'v2' } } });
    expect(updated.data).toEqual({ key: 'v2' });
    expect(Number(updated.metadata?.resourceVersion)).toBeGreaterThan(Number(read.metadata?.resourceVersion));

    // The copy read before the update is stale now.
    const stale = await statusOf(core.replaceNamespacedConfigMap({ name: 'one', namespace: 'crud', body: { ...read, data: { key: 'v3' } } }));
    expect(stale).toMatchObject({ code: 409, reason: 'Conflict', kind: 'Status' });
    expect(stale.message).toBe('Operation cannot be fulfilled on configmaps "one": the object has been modified; please apply your changes to the latest version and try again');

    const dup = await statusOf(core.createNamespacedConfigMap({ namespace: 'crud', body: cm('one', 'crud') }));
    expect(dup).toMatchObject({ code: 409, reason: 'AlreadyExists', message: 'configmaps "one" already exists' });

    await core.deleteNamespacedConfigMap({ name: 'one', namespace: 'crud' });
    const gone = await statusOf(core.readNamespacedConfigMap({ name: 'one', namespace: 'crud' }));
    expect(gone).toMatchObject({ code: 404, reason: 'NotFound', message: 'configmaps "one" not found' });
  });

  it('generates names from generateName and refuses objects without a name or with invalid labels', async () => {
    const a = await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { generateName: 'build-' }, data: {} } });
    const b = await core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { generateName: 'build-' }, data: {} } });
    expect(a.metadata?.name).toMatch(/^build-[a-z0-9]{5}$/);
    expect(b.metadata?.name).not.toBe(a.metadata?.name);

    const noName = await statusOf(core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: {}, data: {} } }));
    expect(noName).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(noName.message).toContain('metadata.name: Required value: name or generateName is required');

    const badLabel = await statusOf(core.createNamespacedConfigMap({ namespace: 'crud', body: { metadata: { name: 'x', labels: { a: 'not valid!' } } } }));
    expect(badLabel.code).toBe(422);
    expect(badLabel.message).toContain('metadata.labels: Invalid value: "not valid!"');
  });

  it('refuses a namespace that does not exist and a body that disagrees with the URL', async () => {
    expect(await statusOf(core.createNamespacedConfigMap({ namespace: 'nowhere', body: cm('x', 'nowhere') }))).toMatchObject({ code: 404, message: 'namespaces "nowhere" not found' });
    const other = await statusOf(core.createNamespacedConfigMap({ namespace: 'crud', body: cm('x', 'patch') }));
    expect(other).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(other.message).toContain('does not match the namespace sent on the request');
    const notJson = await raw(server, 'POST', '/api/v1/namespaces/crud/configmaps', { token: ADMIN.token, body: '{"metadata":' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/not valid JSON/);
    const unknown = await raw(server, 'GET', '/apis/example.com/v1/widgets', { token: ADMIN.token });
    expect(unknown.body).toMatchObject({ kind: 'Status', code: 404, message: 'the server could not find the requested resource' });
  });

  it('caps request bodies at 3 MiB with a 413 Status', async () => {
    const big = JSON.stringify(cm('big', 'crud', { data: { blob: 'x'.repeat(3 * 1024 * 1024) } }));
    const r = await raw(server, 'POST', '/api/v1/namespaces/crud/configmaps', { token: ADMIN.token, body: big });
    expect(r.status).toBe(413);
    expect(r.body).toMatchObject({ kind: 'Status', reason: 'RequestEntityTooLarge', code: 413 });
    expect(server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'big', namespace: 'crud' })).toBeUndefined();
  });
});

describe('write hook', () => {
  it('tells each stored change, synchronously, in the state it made, with the identity that asked', async () => {
    const seen: string[] = [];
    const off = server.onWrite((e) => {
      // Synchronous: the store already holds what the event says, and nothing later.
      const now = server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: e.object.metadata!.name, namespace: 'hook' });
      seen.push(`${e.type} ${e.object.metadata!.name} ${e.object.data?.key ?? ''} by ${e.user ?? '(store)'} prev=${e.previous?.data?.key ?? '-'} stored=${now?.data?.key ?? 'gone'}`);
    });
    try {
      await core.createNamespacedConfigMap({ namespace: 'hook', body: cm('a', 'hook', { data: { key: '1' } }) });
      server.store.put(cm('b', 'hook', { data: { key: '9' } }) as KubeObject);
      await core.patchNamespacedConfigMap({ name: 'a', namespace: 'hook', body: { data: { key: '2' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'hook' });
    } finally {
      off();
    }
    await core.deleteNamespacedConfigMap({ name: 'b', namespace: 'hook' });
    expect(seen).toEqual([
      'ADDED a 1 by admin prev=- stored=1',
      'ADDED b 9 by (store) prev=- stored=9',
      'MODIFIED a 2 by admin prev=1 stored=2',
      'DELETED a 2 by admin prev=- stored=gone',
    ]);
  });
});

describe('status subresource and generation', () => {
  const deployment = (image: string) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'builder', namespace: 'crud' },
    spec: { selector: { matchLabels: { app: 'b' } }, template: { metadata: { labels: { app: 'b' } }, spec: { containers: [{ name: 'c', image }] } } },
    status: { replicas: 99 },
  });

  it('drops status on create, changes only status through /status, and bumps generation only for spec changes', async () => {
    const created = await apps.createNamespacedDeployment({ namespace: 'crud', body: deployment('a') });
    expect(created.status).toBeUndefined();

    const withStatus = await apps.replaceNamespacedDeploymentStatus({
      name: 'builder',
      namespace: 'crud',
      body: { ...created, spec: { ...created.spec!, replicas: 7 }, status: { availableReplicas: 1, replicas: 1 } },
    });
    expect(withStatus.status).toEqual({ availableReplicas: 1, replicas: 1 });
    expect(withStatus.spec?.replicas).toBeUndefined(); // the spec in a /status write is ignored
    expect(withStatus.metadata?.generation).toBe(1);

    const relabelled = await apps.replaceNamespacedDeployment({
      name: 'builder',
      namespace: 'crud',
      body: { ...withStatus, metadata: { ...withStatus.metadata, labels: { team: 'x' } }, status: { replicas: 0 } },
    });
    expect(relabelled.metadata?.generation).toBe(1);
    expect(relabelled.status).toEqual({ availableReplicas: 1, replicas: 1 }); // main-resource writes keep status

    const newImage = await apps.replaceNamespacedDeployment({
      name: 'builder',
      namespace: 'crud',
      body: { ...relabelled, spec: { ...relabelled.spec!, template: { ...relabelled.spec!.template, spec: { containers: [{ name: 'c', image: 'b' }] } } } },
    });
    expect(newImage.metadata?.generation).toBe(2);

    const statusPatch = await apps.patchNamespacedDeploymentStatus(
      { name: 'builder', namespace: 'crud', body: { status: { observedGeneration: 2 }, spec: { replicas: 3 } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
    expect(statusPatch.status?.observedGeneration).toBe(2);
    expect(statusPatch.spec?.replicas).toBeUndefined();
    expect(statusPatch.metadata?.generation).toBe(2);

    // ConfigMaps have no status subresource.
    const r = await raw(server, 'GET', '/api/v1/namespaces/crud/configmaps/x/status', { token: ADMIN.token });
    expect(r.status).toBe(404);
  });
});

describe('patch', () => {
  beforeAll(async () => {
    await core.createNamespacedConfigMap({ namespace: 'patch', body: cm('p', 'patch', { data: { a: '1', b: '2' }, metadata: { labels: { x: 'y' } } as any }) });
  });

  it('applies a JSON merge patch (null deletes a key)', async () => {
    const out = await objects.patch(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'patch', labels: { x: null as any, z: 'w' } }, data: { a: null as any, c: '3' } },
      undefined, undefined, undefined, undefined,
      PatchStrategy.MergePatch,
    );
    expect((out as any).data).toEqual({ b: '2', c: '3' });
    expect(out.metadata?.labels).toEqual({ z: 'w' });
  });

  it('treats a strategic merge patch as a merge patch and refuses its directives', async () => {
    const out = await objects.patch({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'p', namespace: 'patch' }, data: { d: '4' } } as any);
    expect((out as any).data).toEqual({ b: '2', c: '3', d: '4' });
    const directive = await raw(server, 'PATCH', '/api/v1/namespaces/patch/configmaps/p', {
      token: ADMIN.token,
      contentType: PatchStrategy.StrategicMergePatch,
      body: JSON.stringify({ data: { $patch: 'replace' } }),
    });
    expect(directive.status).toBe(415);
    expect(directive.body.message).toContain('"$patch" at data is not supported');
  });

  it('applies a JSON patch with add, remove, replace and test, and refuses a failed test', async () => {
    // CoreV1Api's patch sends application/json-patch+json by default.
    const out = await core.patchNamespacedConfigMap({
      name: 'p',
      namespace: 'patch',
      body: [
        { op: 'test', path: '/data/b', value: '2' },
        { op: 'add', path: '/data/e~1f', value: '5' },
        { op: 'remove', path: '/data/c' },
        { op: 'replace', path: '/data/d', value: 'four' },
      ],
    });
    expect(out.data).toEqual({ b: '2', d: 'four', 'e/f': '5' });
    const failed = await statusOf(core.patchNamespacedConfigMap({ name: 'p', namespace: 'patch', body: [{ op: 'test', path: '/data/b', value: 'nope' }] }));
    expect(failed.code).toBe(422);
    expect(failed.message).toContain('operation 0: test failed');
    expect(server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'p', namespace: 'patch' })?.data).toEqual(out.data);
  });

  it('refuses server-side apply and a patch with a stale resourceVersion', async () => {
    const apply = await raw(server, 'PATCH', '/api/v1/namespaces/patch/configmaps/p', { token: ADMIN.token, contentType: PatchStrategy.ServerSideApply, body: '{}' });
    expect(apply.status).toBe(415);
    const stale = await raw(server, 'PATCH', '/api/v1/namespaces/patch/configmaps/p', {
      token: ADMIN.token,
      contentType: PatchStrategy.MergePatch,
      body: JSON.stringify({ metadata: { resourceVersion: '1' }, data: { z: '1' } }),
    });
    expect(stale.body).toMatchObject({ code: 409, reason: 'Conflict' });
  });
});

describe('selectors', () => {
  beforeAll(() => {
    const put = (name: string, labels: Record<string, string>) => server.store.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'sel', labels } });
    put('a', { tier: 'web', env: 'prod' });
    put('b', { tier: 'web', env: 'dev' });
    put('c', { tier: 'db' });
    put('d', {});
  });
  const names = async (labelSelector?: string, fieldSelector?: string) =>
    (await core.listNamespacedSecret({ namespace: 'sel', labelSelector, fieldSelector })).items.map((s) => s.metadata?.name);

  it.each([
    ['tier=web', ['a', 'b']],
    ['tier==web', ['a', 'b']],
    ['tier!=web', ['c', 'd']],
    ['env in (prod, staging)', ['a']],
    ['env notin (prod)', ['b', 'c', 'd']],
    ['env', ['a', 'b']],
    ['!env', ['c', 'd']],
    ['tier=web,env!=dev', ['a']],
  ])('label selector %s', async (sel, want) => {
    expect(await names(sel)).toEqual(want);
  });

  it('field selectors on metadata.name and metadata.namespace, and clear 400s otherwise', async () => {
    expect(await names(undefined, 'metadata.name=c')).toEqual(['c']);
    expect(await names(undefined, 'metadata.name!=c,metadata.namespace=sel')).toEqual(['a', 'b', 'd']);
    const all = await core.listSecretForAllNamespaces({ fieldSelector: 'metadata.namespace=sel', labelSelector: 'tier' });
    expect(all.items.map((s) => s.metadata?.name)).toEqual(['a', 'b', 'c']);
    expect(await statusOf(names(undefined, 'spec.nodeName=x'))).toMatchObject({ code: 400, message: expect.stringContaining('field label not supported: spec.nodeName') });
    expect(await statusOf(names('tier in (web'))).toMatchObject({ code: 400, reason: 'BadRequest' });
  });
});

describe('paging over 5,000 objects', () => {
  let big: ApiTestServer;
  beforeAll(async () => {
    big = await startApiServer({ identities: [ADMIN] });
    // 5,000 namespaces with one Package-like ConfigMap each, as `pkogen status` will see them.
    for (let i = 0; i < 5000; i++) {
      const n = `hcp-${String(i).padStart(4, '0')}`;
      big.store.put(ns(n));
      big.store.put(cm('on-cluster-build', n, { metadata: { labels: { i: String(i % 2) } } as any }));
    }
  });
  afterAll(() => big.stop());

  it('pages with limit=500 and continue, in a stable order, with the list resourceVersion', async () => {
    const api = big.kubeConfig('admin').makeApiClient(CoreV1Api);
    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    let firstRv: string | undefined;
    do {
      const page = await api.listConfigMapForAllNamespaces({ limit: 500, _continue: token });
      pages++;
      firstRv ??= page.metadata?.resourceVersion;
      expect(page.metadata?.resourceVersion).toBe(firstRv);
      if (pages === 1) expect(page.metadata?.remainingItemCount).toBe(4500);
      expect(page.items.length).toBeLessThanOrEqual(500);
      seen.push(...page.items.map((c) => c.metadata!.namespace!));
      token = page.metadata?._continue;
    } while (token && pages < 20);
    expect(pages).toBe(10);
    expect(seen).toHaveLength(5000);
    expect(seen).toEqual([...seen].sort());
    expect(new Set(seen).size).toBe(5000);

    const odd = await api.listConfigMapForAllNamespaces({ limit: 500, labelSelector: 'i=1' });
    expect(odd.items).toHaveLength(500);
    expect(odd.items.every((c) => c.metadata?.labels?.i === '1')).toBe(true);
    expect(odd.metadata?.remainingItemCount).toBeUndefined(); // not counted with a selector, as in Kubernetes
  });

  it('answers a damaged continue token with 400 and an expired one with 410 Expired', async () => {
    const api = big.kubeConfig('admin').makeApiClient(CoreV1Api);
    expect(await statusOf(api.listConfigMapForAllNamespaces({ limit: 10, _continue: 'garbage' }))).toMatchObject({ code: 400, reason: 'BadRequest' });
    const first = await api.listConfigMapForAllNamespaces({ limit: 10 });
    big.store.put(cm('later', 'hcp-0000'));
    big.compact(); // like an etcd compaction: the first page's snapshot is gone
    const expired = await statusOf(api.listConfigMapForAllNamespaces({ limit: 10, _continue: first.metadata?._continue }));
    expect(expired).toMatchObject({ code: 410, reason: 'Expired' });
    expect(expired.message).toMatch(/^The provided continue parameter is too old/);
  });
});

interface Seen {
  type: string;
  name?: string;
  rv?: string;
  code?: number;
}

function watchInto(s: ApiTestServer, identity: string, p: string, params: Record<string, string | number | boolean | undefined>): { events: Seen[]; done: { err?: unknown; ended: boolean }; stop: () => void } {
  const events: Seen[] = [];
  const done: { err?: unknown; ended: boolean } = { ended: false };
  let ctrl: AbortController | undefined;
  let stopped = false;
  new Watch(s.kubeConfig(identity))
    .watch(p, params, (type, obj) => events.push({ type, name: obj?.metadata?.name, rv: obj?.metadata?.resourceVersion, code: obj?.code }), (err) => {
      done.err = err;
      done.ended = true;
    })
    .then((c) => {
      ctrl = c;
      if (stopped) c.abort();
    });
  return { events, done, stop: () => ((stopped = true), ctrl?.abort()) };
}

describe('watch', () => {
  it('streams ADDED for current state, then changes, with bookmarks when allowed', async () => {
    server.store.put(cm('w0', 'watch'));
    const w = watchInto(server, 'admin', '/api/v1/namespaces/watch/configmaps', { allowWatchBookmarks: true });
    await eventually(() => (w.events.some((e) => e.type === 'ADDED' && e.name === 'w0') ? true : undefined), 'the synthetic ADDED');
    await core.createNamespacedConfigMap({ namespace: 'watch', body: cm('w1', 'watch') });
    await core.deleteNamespacedConfigMap({ name: 'w0', namespace: 'watch' });
    await eventually(() => (w.events.some((e) => e.type === 'DELETED' && e.name === 'w0') ? true : undefined), 'the DELETED');
    const bookmark = await eventually(() => w.events.find((e) => e.type === 'BOOKMARK'), 'a bookmark');
    expect(Number(bookmark.rv)).toBeGreaterThan(0);
    expect(w.events.filter((e) => e.type !== 'BOOKMARK').map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED w0', 'ADDED w1', 'DELETED w0']);
    w.stop();
  });

  it('resumes from a resourceVersion with exactly the events after it, filtered by selectors', async () => {
    const start = (await core.listNamespacedConfigMap({ namespace: 'watch' })).metadata!.resourceVersion!;
    await core.createNamespacedConfigMap({ namespace: 'watch', body: cm('r1', 'watch', { metadata: { labels: { pick: 'yes' } } as any }) });
    await core.createNamespacedConfigMap({ namespace: 'watch', body: cm('r2', 'watch') });
    await core.patchNamespacedConfigMap({ name: 'r1', namespace: 'watch', body: [{ op: 'replace', path: '/metadata/labels/pick', value: 'no' }] });
    const all = watchInto(server, 'admin', '/api/v1/namespaces/watch/configmaps', { resourceVersion: start });
    const picked = watchInto(server, 'admin', '/api/v1/namespaces/watch/configmaps', { resourceVersion: start, labelSelector: 'pick=yes' });
    await eventually(() => (all.events.length >= 3 && picked.events.length >= 2 ? true : undefined), 'the replayed events');
    expect(all.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED r1', 'ADDED r2', 'MODIFIED r1']);
    // r1 stopped matching: a selector watch sees it leave as DELETED, as Kubernetes sends it.
    expect(picked.events.map((e) => `${e.type} ${e.name}`)).toEqual(['ADDED r1', 'DELETED r1']);
    all.stop();
    picked.stop();
  });

  it('answers a resourceVersion older than the history with an ERROR event carrying 410 Gone, and honours timeoutSeconds', async () => {
    const small = await startApiServer({ identities: [ADMIN], historyLimit: 5 });
    try {
      small.store.put(ns('h'));
      const rv = small.resourceVersion();
      for (let i = 0; i < 10; i++) small.store.put(cm(`c${i}`, 'h'));
      const w = watchInto(small, 'admin', '/api/v1/namespaces/h/configmaps', { resourceVersion: rv });
      await eventually(() => (w.done.ended ? true : undefined), 'the watch to end');
      expect(w.events).toEqual([{ type: 'ERROR', code: 410, name: undefined, rv: undefined }]);

      const timed = watchInto(small, 'admin', '/api/v1/namespaces/h/configmaps', { resourceVersion: small.resourceVersion(), timeoutSeconds: 1 });
      await eventually(() => (timed.done.ended ? true : undefined), 'the timed watch to end');
      expect(timed.done.err).toBeNull();
    } finally {
      await small.stop();
    }
  });

  it('feeds a client-node informer through adds, updates, deletes, dropped watches and a relist after 410', async () => {
    const kc = server.kubeConfig('admin');
    const api = kc.makeApiClient(CoreV1Api);
    const informer = makeInformer<V1ConfigMap>(kc, '/api/v1/namespaces/gc/configmaps', () => api.listNamespacedConfigMap({ namespace: 'gc' }));
    const log: string[] = [];
    informer.on('add', (o) => log.push(`add ${o.metadata?.name}`));
    informer.on('update', (o) => log.push(`update ${o.metadata?.name} ${o.data?.v}`));
    informer.on('delete', (o) => log.push(`delete ${o.metadata?.name}`));
    const errors: unknown[] = [];
    informer.on('error', (e) => errors.push(e));
    server.store.put(cm('i1', 'gc', { data: { v: '1' } }));
    await informer.start();
    try {
      await eventually(() => (log.includes('add i1') ? true : undefined), 'add i1');
      await api.createNamespacedConfigMap({ namespace: 'gc', body: cm('i2', 'gc', { data: { v: '1' } }) });
      await api.replaceNamespacedConfigMap({ name: 'i1', namespace: 'gc', body: { ...(await api.readNamespacedConfigMap({ name: 'i1', namespace: 'gc' })), data: { v: '2' } } });
      await eventually(() => (log.includes('update i1 2') && log.includes('add i2') ? true : undefined), 'update i1 and add i2');

      // Changes made while the watch is down arrive when the informer reconnects from its resourceVersion.
      server.dropWatches();
      server.store.put(cm('i3', 'gc'));
      server.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: 'i2', namespace: 'gc' });
      await eventually(() => (log.includes('add i3') && log.includes('delete i2') ? true : undefined), 'the events missed while disconnected');

      // History gone: the reconnect gets 410 and the informer relists.
      server.compact();
      server.dropWatches();
      server.store.put(cm('i4', 'gc'));
      await eventually(() => (log.includes('add i4') ? true : undefined), 'add i4 after the relist');
      expect(informer.list().map((o) => o.metadata?.name).sort()).toEqual(['i1', 'i3', 'i4']);
      expect(errors).toEqual([]);
    } finally {
      await informer.stop();
    }
    for (const n of ['i1', 'i3', 'i4']) server.store.delete({ apiVersion: 'v1', kind: 'ConfigMap', name: n, namespace: 'gc' });
  });
});

describe('deletion', () => {
  it('collects dependents through ownerReferences in the background, recursively', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'gc', body: cm('owner', 'gc') });
    const ref = (o: { metadata?: { name?: string; uid?: string } }, kind: string) => [{ apiVersion: 'v1', kind, name: o.metadata!.name!, uid: o.metadata!.uid! }];
    const child = await core.createNamespacedSecret({ namespace: 'gc', body: { metadata: { name: 'child', ownerReferences: ref(owner, 'ConfigMap') } } });
    await core.createNamespacedPod({ namespace: 'gc', body: { metadata: { name: 'grandchild', ownerReferences: ref(child, 'Secret') }, spec: { containers: [{ name: 'c', image: 'i' }] } } });
    const other = await core.createNamespacedConfigMap({ namespace: 'gc', body: cm('other-owner', 'gc') });
    await core.createNamespacedSecret({ namespace: 'gc', body: { metadata: { name: 'shared', ownerReferences: [...ref(owner, 'ConfigMap'), ...ref(other, 'ConfigMap')] } } });
    // Same uid in another namespace is not a dependent.
    await core.createNamespacedSecret({ namespace: 'crud', body: { metadata: { name: 'elsewhere', ownerReferences: ref(owner, 'ConfigMap') } } });

    await core.deleteNamespacedConfigMap({ name: 'owner', namespace: 'gc' });
    await server.idle();
    const get = (kind: string, name: string, namespace = 'gc') => server.store.get({ apiVersion: 'v1', kind, name, namespace });
    expect(get('Secret', 'child')).toBeUndefined();
    expect(get('Pod', 'grandchild')).toBeUndefined();
    expect(get('Secret', 'shared')?.metadata?.ownerReferences.map((r: any) => r.name)).toEqual(['other-owner']);
    expect(get('Secret', 'elsewhere', 'crud')).toBeDefined();
  });

  it('orphans dependents with propagationPolicy Orphan', async () => {
    const owner = await core.createNamespacedConfigMap({ namespace: 'gc', body: cm('parent', 'gc') });
    await core.createNamespacedSecret({ namespace: 'gc', body: { metadata: { name: 'orphan', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: owner.metadata!.uid! }] } } });
    await core.deleteNamespacedConfigMap({ name: 'parent', namespace: 'gc', propagationPolicy: 'Orphan' });
    await server.idle();
    const o = server.store.get({ apiVersion: 'v1', kind: 'Secret', name: 'orphan', namespace: 'gc' });
    expect(o?.metadata?.ownerReferences).toBeUndefined();
  });

  it('honours finalizers: deletionTimestamp first, gone when the last finalizer is removed', async () => {
    await core.createNamespacedConfigMap({ namespace: 'fin', body: cm('f', 'fin', { metadata: { finalizers: ['pkogen.io/cleanup'] } as any }) });
    const w = watchInto(server, 'admin', '/api/v1/namespaces/fin/configmaps', { resourceVersion: server.resourceVersion() });
    // While finalizers hold it, DELETE answers with the object (client-node would type it as a Status).
    const marked = await raw(server, 'DELETE', '/api/v1/namespaces/fin/configmaps/f', { token: ADMIN.token });
    expect(marked.status).toBe(200);
    expect(marked.body.metadata.deletionTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const still = await core.readNamespacedConfigMap({ name: 'f', namespace: 'fin' });
    expect(still.metadata?.deletionTimestamp).toBeInstanceOf(Date);

    const more = await statusOf(core.replaceNamespacedConfigMap({ name: 'f', namespace: 'fin', body: { ...still, metadata: { ...still.metadata, finalizers: ['pkogen.io/cleanup', 'another'] } } }));
    expect(more).toMatchObject({ code: 422, message: expect.stringContaining('no new finalizers can be added if the object is being deleted') });

    await core.patchNamespacedConfigMap({ name: 'f', namespace: 'fin', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    expect(await statusOf(core.readNamespacedConfigMap({ name: 'f', namespace: 'fin' }))).toMatchObject({ code: 404 });
    await eventually(() => (w.events.some((e) => e.type === 'DELETED') ? true : undefined), 'DELETED');
    expect(w.events.map((e) => e.type)).toEqual(['MODIFIED', 'DELETED']);
    w.stop();
  });

  it('deletes a namespace with everything in it', async () => {
    server.store.put(ns('doomed'));
    server.store.put(cm('a', 'doomed'));
    server.store.put(cm('held', 'doomed', { metadata: { finalizers: ['x/y'] } as any }));
    await core.deleteNamespace({ name: 'doomed' });
    expect(server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'a', namespace: 'doomed' })).toBeUndefined();
    expect(server.store.get({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' })?.status?.phase).toBe('Terminating');
    expect(await statusOf(core.createNamespacedConfigMap({ namespace: 'doomed', body: cm('new', 'doomed') }))).toMatchObject({ code: 403 });
    server.store.put({ ...server.store.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'held', namespace: 'doomed' })!, metadata: { name: 'held', namespace: 'doomed', finalizers: [] } });
    expect(server.store.get({ apiVersion: 'v1', kind: 'Namespace', name: 'doomed' })).toBeUndefined();
  });
});

describe('authentication, authorization and audit', () => {
  it('answers a missing or unknown token with 401 and never echoes it', async () => {
    const none = await raw(server, 'GET', '/api/v1/namespaces');
    expect(none.body).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
    const bad = await raw(server, 'GET', '/api/v1/namespaces', { token: 'guessed-token' });
    expect(bad.status).toBe(401);
    expect(bad.text).not.toContain('guessed-token');
  });

  it('enforces rules with Kubernetes-like 403 messages and records every request in the audit log', async () => {
    server.store.put(cm('config', 'hcp-one'));
    server.store.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'machine-os-builder', namespace: 'hcp-one' }, spec: {} });
    server.store.put({ apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'other', namespace: 'hcp-one' }, spec: {} });
    server.clearAudit();
    const kc = server.kubeConfig(BUILDER.name);
    const c = kc.makeApiClient(CoreV1Api);
    const leases = kc.makeApiClient(CoordinationV1Api);

    expect((await c.readNamespacedConfigMap({ name: 'config', namespace: 'hcp-one' })).data).toEqual({ key: 'value' });
    await c.listNamespacedConfigMap({ namespace: 'hcp-one', labelSelector: 'a' });
    const lease = await leases.readNamespacedLease({ name: 'machine-os-builder', namespace: 'hcp-one' });
    await leases.replaceNamespacedLease({ name: 'machine-os-builder', namespace: 'hcp-one', body: { ...lease, spec: { holderIdentity: 'me' } } });

    const otherLease = await statusOf(leases.readNamespacedLease({ name: 'other', namespace: 'hcp-one' }));
    expect(otherLease).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(otherLease.message).toBe(
      'leases.coordination.k8s.io "other" is forbidden: User "system:serviceaccount:hcp-one:machine-os-builder" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "hcp-one"',
    );
    const write = await statusOf(c.createNamespacedConfigMap({ namespace: 'hcp-one', body: cm('new', 'hcp-one') }));
    expect(write.message).toBe('configmaps is forbidden: User "system:serviceaccount:hcp-one:machine-os-builder" cannot create resource "configmaps" in API group "" in the namespace "hcp-one"');
    const clusterWide = await statusOf(c.listConfigMapForAllNamespaces());
    expect(clusterWide.message).toContain('cannot list resource "configmaps" in API group "" at the cluster scope');
    const elsewhere = await statusOf(c.readNamespacedConfigMap({ name: 'x', namespace: 'crud' }));
    expect(elsewhere.code).toBe(403);
    const status = await statusOf(kc.makeApiClient(AppsV1Api).replaceNamespacedDeploymentStatus({ name: 'd', namespace: 'hcp-one', body: { metadata: { name: 'd' } } }));
    expect(status.message).toContain('cannot update resource "deployments/status" in API group "apps"');

    const pick = (e: AuditEntry) => `${e.verb} ${e.apiGroup}/${e.apiVersion} ${e.resource}${e.subresource ? '/' + e.subresource : ''} ${e.namespace}/${e.name} ${e.code}`;
    expect(server.audit.filter((e) => e.resource).map(pick)).toEqual([
      'get /v1 configmaps hcp-one/config 200',
      'list /v1 configmaps hcp-one/ 200',
      'get coordination.k8s.io/v1 leases hcp-one/machine-os-builder 200',
      'update coordination.k8s.io/v1 leases hcp-one/machine-os-builder 200',
      'get coordination.k8s.io/v1 leases hcp-one/other 403',
      'create /v1 configmaps hcp-one/ 403',
      'list /v1 configmaps / 403',
      'get /v1 configmaps crud/x 403',
      'update apps/v1 deployments/status hcp-one/d 403',
    ]);
    expect(server.audit.every((e) => e.user === BUILDER.name)).toBe(true);
    expect(JSON.stringify(server.audit)).not.toContain(BUILDER.token);
  });

  it('takes the name of a list or watch from a metadata.name field selector for resourceNames rules', async () => {
    server.clearAudit();
    const leases = server.kubeConfig(BUILDER.name).makeApiClient(CoordinationV1Api);
    // The builder may only get/update its lease, not list it: the 403 names the request's verb.
    const r = await statusOf(leases.listNamespacedLease({ namespace: 'hcp-one', fieldSelector: 'metadata.name=machine-os-builder' }));
    expect(r.message).toContain('cannot list resource "leases"');
    expect(server.audit[0]).toMatchObject({ verb: 'list', name: 'machine-os-builder', code: 403 });
  });
});

describe('TokenRequest', () => {
  it('mints a token for an existing ServiceAccount that authenticates with the rules of the identity of that name', async () => {
    server.store.put({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'machine-os-builder', namespace: 'hcp-one' } });
    server.store.put(cm('minted', 'hcp-one'));
    const body = JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 900 } });
    const res = await raw(server, 'POST', '/api/v1/namespaces/hcp-one/serviceaccounts/machine-os-builder/token', { token: ADMIN.token, body });
    expect(res.status).toBe(201);
    const tr = res.body as { kind: string; spec: { expirationSeconds: number }; status: { token: string; expirationTimestamp: string } };
    expect(tr).toMatchObject({ kind: 'TokenRequest', spec: { expirationSeconds: 900 } });
    expect(Date.parse(tr.status.expirationTimestamp) - Date.now()).toBeGreaterThan(800_000);
    // BUILDER's rules: configmaps in hcp-one may be read, not written.
    expect((await raw(server, 'GET', '/api/v1/namespaces/hcp-one/configmaps/minted', { token: tr.status.token })).status).toBe(200);
    expect((await raw(server, 'POST', '/api/v1/namespaces/hcp-one/configmaps', { token: tr.status.token, body: JSON.stringify(cm('x', 'hcp-one')) })).status).toBe(403);
  });

  it('refuses an absent ServiceAccount (404), a short expiry (422), other verbs (405), and checks create on serviceaccounts/token', async () => {
    const body = (seconds: number) => JSON.stringify({ apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: seconds } });
    expect((await raw(server, 'POST', '/api/v1/namespaces/hcp-one/serviceaccounts/absent/token', { token: ADMIN.token, body: body(3600) })).status).toBe(404);
    const short = await raw(server, 'POST', '/api/v1/namespaces/hcp-one/serviceaccounts/machine-os-builder/token', { token: ADMIN.token, body: body(60) });
    expect(short.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await raw(server, 'GET', '/api/v1/namespaces/hcp-one/serviceaccounts/machine-os-builder/token', { token: ADMIN.token })).status).toBe(405);
    const denied = await raw(server, 'POST', '/api/v1/namespaces/hcp-one/serviceaccounts/machine-os-builder/token', { token: BUILDER.token, body: body(3600) });
    expect(denied.body).toMatchObject({ code: 403 });
    expect((denied.body as { message: string }).message).toContain('cannot create resource "serviceaccounts/token"');
  });
});

describe('faults', () => {
  it('fails the next N matching requests with the given code, then recovers', async () => {
    server.store.put(cm('flaky', 'crud'));
    server.failNext({ verb: 'get', resource: 'configmaps', count: 2, code: 503 });
    const first = await statusOf(core.readNamespacedConfigMap({ name: 'flaky', namespace: 'crud' }));
    expect(first).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    // Other verbs are unaffected.
    await core.listNamespacedConfigMap({ namespace: 'crud' });
    expect((await statusOf(core.readNamespacedConfigMap({ name: 'flaky', namespace: 'crud' }))).code).toBe(503);
    expect((await core.readNamespacedConfigMap({ name: 'flaky', namespace: 'crud' })).metadata?.name).toBe('flaky');
  });
});

describe('CRDs', () => {
  it('serves PKO Packages from the reference CRD, with a status subresource', async () => {
    const crd = load(readFileSync(path.join('..', '..', 'shared', 'reference', 'crds', 'pko', 'package-operator.run_packages.yaml'), 'utf8')) as KubeObject;
    const t = server.registerCRD(crd);
    expect(t).toMatchObject({ group: 'package-operator.run', kind: 'Package', plural: 'packages', namespaced: true, status: true });
    const pkg = {
      apiVersion: 'package-operator.run/v1alpha1',
      kind: 'Package',
      metadata: { name: 'on-cluster-build', namespace: 'crd' },
      spec: { image: 'quay.io/app-sre/on-cluster-build-hs-package@sha256:' + 'a'.repeat(64) },
      status: { phase: 'Available' },
    };
    const created = (await objects.create(pkg)) as KubeObject;
    expect(created.status).toBeUndefined();
    expect(created.metadata?.generation).toBe(1);

    const custom = server.kubeConfig('admin').makeApiClient(CustomObjectsApi);
    const withStatus = (await custom.replaceNamespacedCustomObjectStatus({
      group: 'package-operator.run',
      version: 'v1alpha1',
      namespace: 'crd',
      plural: 'packages',
      name: 'on-cluster-build',
      body: { ...created, status: { conditions: [{ type: 'Available', status: 'True' }] } },
    })) as KubeObject;
    expect(withStatus.status.conditions[0].type).toBe('Available');
    expect(withStatus.metadata?.generation).toBe(1);

    const listed = await objects.list('package-operator.run/v1alpha1', 'Package', 'crd');
    expect(listed.items.map((p) => p.metadata?.name)).toEqual(['on-cluster-build']);

    // Custom resources refuse an update without metadata.resourceVersion, as the real API does.
    const { resourceVersion: _rv, ...meta } = withStatus.metadata!;
    const unconditional = await statusOf(objects.replace({ ...withStatus, metadata: meta }));
    expect(unconditional).toMatchObject({ code: 422, message: expect.stringContaining('metadata.resourceVersion: Invalid value: 0: must be specified for an update') });
  });

  it('refuses a malformed CRD with a message naming it', () => {
    expect(() => server.registerCRD({ kind: 'CustomResourceDefinition', metadata: { name: 'x.example.com' }, spec: { group: 'example.com', names: { kind: 'X', plural: 'xs' }, scope: 'Everywhere', versions: [] } })).toThrow(
      'api test server: CustomResourceDefinition "x.example.com": spec.scope must be Namespaced or Cluster, got "Everywhere"',
    );
  });
});
