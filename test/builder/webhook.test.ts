import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { tempDir } from '../../pkogen/test/helpers.js';
import { API_VERSION, BUILD_KIND, CONFIG_KIND, CONTROLLER_USERNAME, GROUP, VERSION } from '../../builder/api/types.js';
import { BadReviewError, readAdmissionReview, validateAdmission, type AdmissionReview } from '../../builder/webhook/validate.js';
import { startWebhookServer, WEBHOOK_PATHS } from '../../builder/webhook/server.js';
import { pullSecretAuthKeys, pushTargetCoveredByKeys, pushTargetProblem, renderPullKeys } from '../../builder/registry/push-target.js';
import { makeCert, post } from './webhook-client.js';

const OPTS = { controllerUsername: CONTROLLER_USERNAME };
const HASH = '0123456789';
const DIGEST = 'sha256:' + 'a'.repeat(64);

function config(over: Record<string, unknown> = {}, name = 'workers'): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: CONFIG_KIND,
    metadata: { name, uid: 'x', generation: 1, managedFields: [{ manager: 'kubectl' }] },
    spec: {
      nodePool: { name: 'workers' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-secret' },
      renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
      containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN dnf install -y tree\n' }],
      ...over,
    },
  };
}

function build(over: Record<string, unknown> = {}, name = `workers-${HASH}`): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: BUILD_KIND,
    metadata: { name },
    spec: {
      nodePoolOSConfig: { name: 'workers' },
      nodePool: { name: 'workers' },
      releaseImage: `quay.io/openshift-release-dev/ocp-release@${DIGEST}`,
      baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST}`,
      renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
      ...over,
    },
  };
}

function review(kind: string, object: unknown, extra: Record<string, unknown> = {}): AdmissionReview & { request: never } {
  return {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-123',
      kind: { group: GROUP, version: VERSION, kind },
      operation: 'CREATE',
      userInfo: { username: 'alice' },
      object,
      ...extra,
    },
  } as never;
}

function decide(kind: string, object: unknown, extra: Record<string, unknown> = {}) {
  const r = validateAdmission(readAdmissionReview(review(kind, object, extra), kind as never), OPTS);
  return r.response!;
}

const AS_CONTROLLER = { userInfo: { username: CONTROLLER_USERNAME } };

describe('NodePoolOSConfig admission', () => {
  test('a valid config is allowed and the uid echoed', () => {
    expect(decide(CONFIG_KIND, config())).toEqual({ uid: 'uid-123', allowed: true });
  });

  test.each<[string, Record<string, unknown>, string, string]>([
    ['name differs from the NodePool', config({}, 'other'), '', 'metadata.name must equal spec.nodePool.name'],
    ['generateName instead of a name', { ...config(), metadata: { generateName: 'workers-' } }, 'metadata.name', 'must be set to spec.nodePool.name ("workers")'],
    ['no final stage', config({ containerFile: [{ content: 'FROM configs AS other\n' }] }), 'spec.containerFile[0].content', 'must contain the line "FROM configs AS final"'],
    ['final stage only inside a comment word', config({ containerFile: [{ content: '# not FROM configs AS final really\n' }] }), 'spec.containerFile[0].content', 'FROM configs AS final'],
    ['empty Containerfile', config({ containerFile: [{ content: '' }] }), 'spec.containerFile[0].content', 'must be at least 1 characters long'],
    ['Containerfile too long', config({ containerFile: [{ content: 'FROM configs AS final\n' + 'x'.repeat(4096) }] }), 'spec.containerFile[0].content', 'at most 4096'],
    ['duplicate arch', config({ containerFile: [{ containerfileArch: 'AMD64', content: 'FROM configs AS final' }, { containerfileArch: 'AMD64', content: 'FROM configs AS final' }] }), 'spec.containerFile[1].containerfileArch', 'duplicate architecture "AMD64": spec.containerFile[0] already has it'],
    ['duplicate default arch', config({ containerFile: [{ content: 'FROM configs AS final' }, { containerfileArch: 'NoArch', content: 'FROM configs AS final' }] }), 'spec.containerFile[1].containerfileArch', 'duplicate architecture "NoArch"'],
    ['unknown arch', config({ containerFile: [{ containerfileArch: 'RISCV', content: 'FROM configs AS final' }] }), 'spec.containerFile[0].containerfileArch', 'must be one of "ARM64", "AMD64", "PPC64LE", "S390X", "NoArch"'],
    ['five Containerfiles', config({ containerFile: ['ARM64', 'AMD64', 'PPC64LE', 'S390X', 'NoArch'].map((a) => ({ containerfileArch: a, content: 'FROM configs AS final' })) }), 'spec.containerFile', 'must have at most 4 items'],
    ['digest in push spec', config({ renderedImagePushSpec: `quay.example.com/org/os@${DIGEST}` }), 'spec.renderedImagePushSpec', 'must name a tag, not a digest'],
    ['no tag in push spec', config({ renderedImagePushSpec: 'quay.example.com/org/os' }), 'spec.renderedImagePushSpec', 'must end with :tag'],
    ['host without a dot', config({ renderedImagePushSpec: 'registry/org/os:latest' }), 'spec.renderedImagePushSpec', 'host[:port][/namespace]/name:tag'],
    ['push spec too long', config({ renderedImagePushSpec: `quay.example.com/${'a'.repeat(440)}:latest` }), 'spec.renderedImagePushSpec', 'at most 447'],
    ['push secret not DNS-1123', config({ renderedImagePushSecret: { name: 'Push_Secret' } }), 'spec.renderedImagePushSecret.name', 'must be a Secret name: a DNS-1123 subdomain'],
    ['pull secret not DNS-1123', config({ baseImagePullSecret: { name: '-bad' } }), 'spec.baseImagePullSecret.name', 'DNS-1123'],
    ['builder type', config({ imageBuilder: { imageBuilderType: 'Pod' } }), 'spec.imageBuilder.imageBuilderType', 'must be one of "Job"'],
    ['push secret missing', config({ renderedImagePushSecret: undefined }), 'spec.renderedImagePushSecret', 'missing required field'],
    ['NodePool name too long for the Job name', { ...config({ nodePool: { name: 'n'.repeat(47) } }, 'n'.repeat(47)) }, 'spec.nodePool.name', 'at most 46'],
  ])('%s is denied with a located message', (_, obj, at, text) => {
    const r = decide(CONFIG_KIND, obj);
    expect(r.allowed).toBe(false);
    expect(r.uid).toBe('uid-123');
    expect(r.status?.code).toBe(422);
    expect(r.status?.message).toContain(at ? `${at}: ` : text);
    expect(r.status?.message).toContain(text);
  });

  test('a valid push spec with a port and a .svc host is allowed', () => {
    expect(decide(CONFIG_KIND, config({ renderedImagePushSpec: 'image-registry.openshift-image-registry.svc:5000/ns/os:latest' })).allowed).toBe(true);
  });

  test('lower-case instruction keywords still make the final stage', () => {
    expect(decide(CONFIG_KIND, config({ containerFile: [{ content: 'from configs as final\r\nRUN true' }] })).allowed).toBe(true);
  });

  test('one message lists every problem, each once', () => {
    const r = decide(CONFIG_KIND, config({ renderedImagePushSpec: 'nope', renderedImagePushSecret: { name: 'UPPER' } }));
    const msg = r.status!.message;
    expect(msg.match(/spec\.renderedImagePushSpec: /g)).toHaveLength(1);
    expect(msg.match(/spec\.renderedImagePushSecret\.name: /g)).toHaveLength(1);
  });

  test('observedGeneration moving backwards is denied on update', () => {
    const old = { ...config(), status: { observedGeneration: 3 } };
    const now = { ...config(), status: { observedGeneration: 2 } };
    const r = decide(CONFIG_KIND, now, { operation: 'UPDATE', oldObject: old });
    expect(r.status?.message).toContain('status.observedGeneration: must not move backwards (3 → 2)');
  });

  test('a status with a non-digested currentImagePullSpec is denied', () => {
    const r = decide(CONFIG_KIND, { ...config(), status: { currentImagePullSpec: 'quay.example.com/org/os:latest' } });
    expect(r.status?.message).toContain('status.currentImagePullSpec: must be host[:port][/namespace]/name@sha256:');
  });

  test('DELETE is allowed without looking at the object', () => {
    expect(decide(CONFIG_KIND, undefined, { operation: 'DELETE', oldObject: config({}, 'other') }).allowed).toBe(true);
  });
});

describe('NodePoolOSBuild admission', () => {
  test('the controller may create a build', () => {
    expect(decide(BUILD_KIND, build(), AS_CONTROLLER)).toEqual({ uid: 'uid-123', allowed: true });
  });

  test('anyone else is refused with 403, even for a valid build', () => {
    const r = decide(BUILD_KIND, build());
    expect(r.allowed).toBe(false);
    expect(r.status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(r.status?.message).toContain(`written by the on-cluster-build controller only (${CONTROLLER_USERNAME})`);
  });

  test('a build name that is not <config>-<10 hex> is denied', () => {
    const r = decide(BUILD_KIND, build({}, 'workers-xyz'), AS_CONTROLLER);
    expect(r.status?.message).toContain('metadata.name: must be "workers-" followed by 10 lowercase hex digits');
  });

  test('the spec never changes', () => {
    const r = decide(BUILD_KIND, build({ releaseImage: 'quay.io/x/y:4.17' }), { ...AS_CONTROLLER, operation: 'UPDATE', oldObject: build() });
    expect(r.allowed).toBe(false);
    expect(r.status?.message).toContain('spec: is immutable; changed: spec.releaseImage');
  });

  test('status updates by the controller are allowed; buildStart cannot change once set', () => {
    const old = { ...build(), status: { buildStart: '2026-01-01T00:00:00Z' } };
    const ok = { ...build(), status: { buildStart: '2026-01-01T00:00:00Z', buildEnd: '2026-01-01T00:10:00Z', digestedImagePushSpec: `quay.example.com/org/os-images@${DIGEST}` } };
    expect(decide(BUILD_KIND, ok, { ...AS_CONTROLLER, operation: 'UPDATE', subResource: 'status', oldObject: old }).allowed).toBe(true);
    const moved = { ...build(), status: { buildStart: '2026-01-02T00:00:00Z' } };
    expect(decide(BUILD_KIND, moved, { ...AS_CONTROLLER, operation: 'UPDATE', oldObject: old }).status?.message).toContain('status.buildStart: is immutable once set');
  });

  test('conditions are frozen once the build has succeeded', () => {
    const cond = (type: string, status: string) => ({ type, status, reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' });
    const old = { ...build(), status: { conditions: [cond('Succeeded', 'True')] } };
    const now = { ...build(), status: { conditions: [cond('Succeeded', 'False')] } };
    expect(decide(BUILD_KIND, now, { ...AS_CONTROLLER, operation: 'UPDATE', oldObject: old }).status?.message).toContain('status.conditions: are immutable once the build is Succeeded');
  });

  test('an unknown condition type is denied', () => {
    const obj = { ...build(), status: { conditions: [{ type: 'Exploded', status: 'True', reason: 'R', message: '', lastTransitionTime: '2026-01-01T00:00:00Z' }] } };
    expect(decide(BUILD_KIND, obj, AS_CONTROLLER).status?.message).toContain('status.conditions[0].type: must be one of "Prepared"');
  });

  test('a tagged baseOSImage is denied', () => {
    expect(decide(BUILD_KIND, build({ baseOSImage: 'quay.io/x/rhcos:latest' }), AS_CONTROLLER).status?.message).toContain('spec.baseOSImage: ');
  });
});

describe('readAdmissionReview', () => {
  test.each<[string, unknown, string]>([
    ['not an object', [], 'body must be a JSON object'],
    ['v1beta1', { apiVersion: 'admission.k8s.io/v1beta1', kind: 'AdmissionReview', request: {} }, 'must be an admission.k8s.io/v1 AdmissionReview'],
    ['no request', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview' }, 'request: missing'],
    ['no uid', { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { kind: {} } }, 'request.uid: missing'],
    ['wrong kind', review(BUILD_KIND, build()), `this endpoint validates ${API_VERSION}, Kind=${CONFIG_KIND}; got ${GROUP}/${VERSION}, Kind=${BUILD_KIND}`],
  ])('%s is a bad review', (_, body, text) => {
    expect(() => readAdmissionReview(body, CONFIG_KIND)).toThrow(BadReviewError);
    expect(() => readAdmissionReview(body, CONFIG_KIND)).toThrow(text);
  });
});

// ---- the HTTPS server ---------------------------------------------------------------------------

describe('webhook server over HTTPS', () => {
  const tmp = tempDir('pkogen-webhook-');
  const logs: Record<string, unknown>[] = [];
  let first: { ca: string; cert: string; key: string };
  let certFile: string;
  let keyFile: string;
  let server: { port: number; close(): Promise<void> };

  beforeAll(async () => {
    first = makeCert(tmp.dir, 'ca-one');
    certFile = path.join(tmp.dir, 'tls.crt');
    keyFile = path.join(tmp.dir, 'tls.key');
    writeFileSync(certFile, readFileSync(first.cert));
    writeFileSync(keyFile, readFileSync(first.key));
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certFile, keyFile, controllerUsername: CONTROLLER_USERNAME, log: (l: object) => logs.push(l as Record<string, unknown>), certPollMs: 50 });
  });
  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  test('WEBHOOK_PATHS name one path per kind', () => {
    expect(WEBHOOK_PATHS).toEqual({ nodePoolOSConfigs: '/validate/nodepoolosconfigs', nodePoolOSBuilds: '/validate/nodepoolosbuilds' });
  });

  test('health and readiness answer 200', async () => {
    expect((await post(server.port, first.ca, '/healthz', '', 'GET')).status).toBe(200);
    expect((await post(server.port, first.ca, '/readyz', '', 'GET')).status).toBe(200);
  });

  test('a good config is allowed, a bad one denied, uid echoed; the log has no object content', async () => {
    const good = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, JSON.stringify(review(CONFIG_KIND, config())));
    expect(good.status).toBe(200);
    expect(JSON.parse(good.body)).toEqual({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid: 'uid-123', allowed: true } });
    const badObj = config({ renderedImagePushSpec: `quay.example.com/org/os@${DIGEST}`, containerFile: [{ content: 'RUN echo s3cr3t-token' }] });
    const bad = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, JSON.stringify(review(CONFIG_KIND, badObj, { uid: 'uid-bad' })));
    const resp = JSON.parse(bad.body).response;
    expect(resp).toMatchObject({ uid: 'uid-bad', allowed: false, status: { code: 422 } });
    expect(resp.status.message).toContain('spec.containerFile[0].content: must contain the line "FROM configs AS final"');
    const line = logs.find((l) => l.uid === 'uid-bad')!;
    expect(line).toMatchObject({ uid: 'uid-bad', kind: CONFIG_KIND, name: 'workers', allowed: false });
    expect(JSON.stringify(logs)).not.toContain('s3cr3t-token');
  });

  test('a build from a user is denied over the wire', async () => {
    const r = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSBuilds, JSON.stringify(review(BUILD_KIND, build())));
    expect(JSON.parse(r.body).response).toMatchObject({ allowed: false, status: { code: 403 } });
  });

  test('bad JSON and a wrong kind are 400 with a message; unknown path 404; GET on a webhook 405', async () => {
    const notJson = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, '{"apiVersion":');
    expect(notJson.status).toBe(400);
    expect(notJson.body).toContain('not valid JSON');
    const wrong = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, JSON.stringify(review(BUILD_KIND, build())));
    expect(wrong.status).toBe(400);
    expect(wrong.body).toContain('this endpoint validates');
    expect((await post(server.port, first.ca, '/validate/pods', '{}')).status).toBe(404);
    expect((await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, '', 'GET')).status).toBe(405);
  });

  test('a body over 3 MiB is refused with 413', async () => {
    const big = Buffer.alloc(3 * 1024 * 1024 + 1, 0x20);
    const r = await post(server.port, first.ca, WEBHOOK_PATHS.nodePoolOSConfigs, big).catch((e: Error) => ({ status: -1, body: e.message }));
    // The server answers 413 and closes; a client still writing may see the reset instead.
    expect([413, -1]).toContain(r.status);
    if (r.status === 413) expect(r.body).toContain('3 MiB');
  });

  test('a certificate rotated on disk is served afterwards', async () => {
    const second = makeCert(tmp.dir, 'ca-two');
    // service-ca writes new files; an atomic rename is what a projected Secret volume does.
    writeFileSync(certFile + '.new', readFileSync(second.cert));
    writeFileSync(keyFile + '.new', readFileSync(second.key));
    renameSync(keyFile + '.new', keyFile);
    renameSync(certFile + '.new', certFile);
    let served = false;
    for (let i = 0; i < 100 && !served; i++) {
      served = await post(server.port, second.ca, '/healthz', '', 'GET').then((r) => r.status === 200, () => false);
      if (!served) await new Promise((r) => setTimeout(r, 50));
    }
    expect(served).toBe(true);
    await expect(post(server.port, first.ca, '/healthz', '', 'GET')).rejects.toThrow();
  });
});

describe('push targets nodes cannot pull at first boot, refused at admission', () => {
  // What the controller publishes from the HCP's pull secret: keys only (renderPullKeys).
  const KEYS = ['quay.example.com/org', 'registry.redhat.io'];
  const pullable = (spec: string) => {
    const r = pushTargetCoveredByKeys(spec, KEYS, "the HostedCluster's pull secret");
    return r.covered ? undefined : r.reason;
  };
  const decide = (obj: unknown, extra: Record<string, unknown> = {}) => validateAdmission(readAdmissionReview(review(CONFIG_KIND, obj, extra), CONFIG_KIND), { ...OPTS, pushTargetPullable: pullable }).response!;

  test('a covered target is admitted; an uncovered one is refused at its field, naming the host, 422', () => {
    expect(decide(config())).toMatchObject({ allowed: true });
    const r = decide(config({ renderedImagePushSpec: 'private.example.net/os/workers:latest' }));
    expect(r).toMatchObject({ allowed: false, status: { code: 422, reason: 'Invalid' } });
    expect(r.status!.message).toMatch(/^spec\.renderedImagePushSpec: the HostedCluster's pull secret has no credentials for private\.example\.net\/os\/workers /);
    expect(r.status!.message).toContain('could not join');
  });

  test('only a new or changed target is checked: edits of other fields and status writes are not blocked by a later pull-secret change', () => {
    const old = config({ renderedImagePushSpec: 'private.example.net/os/workers:latest' });
    const edited = config({ renderedImagePushSpec: 'private.example.net/os/workers:latest', containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\n' }] });
    expect(decide(edited, { operation: 'UPDATE', oldObject: old })).toMatchObject({ allowed: true });
    expect(decide(config(), { operation: 'UPDATE', oldObject: old })).toMatchObject({ allowed: true });
    expect(decide(old, { operation: 'UPDATE', oldObject: config() })).toMatchObject({ allowed: false });
    expect(decide(old, { operation: 'UPDATE', oldObject: old, subResource: 'status', userInfo: { username: CONTROLLER_USERNAME } })).toMatchObject({ allowed: true });
  });

  test('an internal push target is named once, at its field (pushTargetProblem names the field itself)', () => {
    const obj = config({ renderedImagePushSpec: '10.0.0.1:5000/os/workers:latest' });
    const r = validateAdmission(readAdmissionReview(review(CONFIG_KIND, obj), CONFIG_KIND), { ...OPTS, pushTarget: (s: string) => pushTargetProblem(s) }).response!;
    expect(r.status!.message).toBe('spec.renderedImagePushSpec: the registry "10.0.0.1:5000" is a private address; push to a registry outside the cluster, or ask the provider to allow-list it');
  });

  test('without the rule (no published keys), the same config is admitted', () => {
    const obj = config({ renderedImagePushSpec: 'private.example.net/os/workers:latest' });
    expect(validateAdmission(readAdmissionReview(review(CONFIG_KIND, obj), CONFIG_KIND), OPTS).response).toMatchObject({ allowed: true });
  });
});

describe('the webhook server reads the published pull keys from its volume', () => {
  const tmp = tempDir('pkogen-webhook-keys-');
  const logs: Record<string, unknown>[] = [];
  let tls: { ca: string; cert: string; key: string };
  let keysFile: string;
  let server: { port: number; close(): Promise<void> };
  const uncovered = () => JSON.stringify(review(CONFIG_KIND, config({ renderedImagePushSpec: 'private.example.net/os/workers:latest' })));
  const answer = async (body: string) => JSON.parse((await post(server.port, tls.ca, WEBHOOK_PATHS.nodePoolOSConfigs, body)).body).response;
  async function until(want: boolean): Promise<boolean> {
    for (let i = 0; i < 100; i++) {
      if ((await answer(uncovered())).allowed === want) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return false;
  }

  beforeAll(async () => {
    tls = makeCert(tmp.dir, 'ca-keys');
    keysFile = path.join(tmp.dir, 'auth-keys');
    // As the controller renders it from a pull secret with these entries (credentials never reach the file).
    writeFileSync(keysFile, renderPullKeys(pullSecretAuthKeys(JSON.stringify({ auths: { 'quay.example.com/org': { auth: Buffer.from('u:p4ss').toString('base64') }, 'https://registry.redhat.io/v1/': { auth: Buffer.from('u:p4ss').toString('base64') } } })))!);
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certFile: tls.cert, keyFile: tls.key, controllerUsername: CONTROLLER_USERNAME, log: (l: object) => logs.push(l as Record<string, unknown>), certPollMs: 50, pullKeysFile: keysFile });
  });
  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  test('a covered target is admitted, an uncovered one refused with the host named; the file holds no credential', async () => {
    expect(readFileSync(keysFile, 'utf8')).toBe('quay.example.com/org\nregistry.redhat.io\n');
    expect(await answer(JSON.stringify(review(CONFIG_KIND, config())))).toMatchObject({ allowed: true });
    const r = await answer(uncovered());
    expect(r).toMatchObject({ allowed: false, status: { code: 422 } });
    expect(r.status.message).toContain('private.example.net/os/workers');
    expect(JSON.stringify(logs)).not.toMatch(/p4ss|dTpwNHNz/);
  });

  test('the file updated in place (a ConfigMap volume) is picked up; missing, the check is not made (fail open)', async () => {
    writeFileSync(keysFile + '.new', 'quay.example.com/org\nprivate.example.net\n');
    renameSync(keysFile + '.new', keysFile);
    expect(await until(true)).toBe(true);
    writeFileSync(keysFile + '.new', 'quay.example.com/org\n');
    renameSync(keysFile + '.new', keysFile);
    expect(await until(false)).toBe(true);
    rmSync(keysFile);
    expect(await until(true)).toBe(true);
    expect(logs.some((l) => String(l.msg).startsWith('pull keys unavailable'))).toBe(true);
  });
});
