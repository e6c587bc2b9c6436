/**
 * Token Secrets as HyperShift writes them (gzip, then base64, then the API's base64), several
 * generations per NodePool, malformed ones and a gzip bomb.
 */
import { gzipSync } from 'node:zlib';
import { UserError } from '../../pkogen/src/core/errors.js';
import { currentNodePoolInputs, parseTokenSecret, SecretObject } from '../../builder/clusters/token-secret.js';

const CONFIG = `apiVersion: machineconfiguration.openshift.io/v1
kind: MachineConfig
metadata:
  name: 99-worker-ssh
spec:
  config:
    ignition:
      version: 3.2.0
`;
const RELEASE = 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64);

import { b64, hypershiftConfig } from './fixtures.js';

interface Opts {
  np?: string;
  hash?: string;
  created?: string;
  expires?: string;
  config?: string;
  release?: string;
  data?: Record<string, string>;
  annotations?: Record<string, string>;
}

function tokenSecret(o: Opts = {}): SecretObject {
  const np = o.np ?? 'clusters/workers';
  const name = np.split('/')[1];
  const annotations: Record<string, string> = {
    'hypershift.openshift.io/ignition-config': 'true',
    'hypershift.openshift.io/nodePool': np,
    'hypershift.openshift.io/node-pool-upgrade-type': 'Replace',
    'hypershift.openshift.io/last-token-generation-time': '2026-11-20T10:00:00.123456789Z',
    ...(o.expires ? { 'hypershift.openshift.io/ignition-token-expiration-timestamp': o.expires } : {}),
    ...(o.annotations ?? {}),
  };
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `token-${name}-${o.hash ?? '0a1b2c3d'}`, namespace: 'clusters-hc1', annotations, creationTimestamp: o.created ?? '2026-11-20T10:00:00Z' },
    type: 'Opaque',
    data: o.data ?? {
      token: b64('6f1c2d3e-0000-4000-8000-000000000000'),
      release: b64(o.release ?? RELEASE),
      'release-version': b64('4.20.1'),
      config: o.config ?? hypershiftConfig(CONFIG),
      'pull-secret-hash': b64('1234abcd'),
      'os-stream': b64(''),
    },
  };
}

function errorOf(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e.describe();
    throw e;
  }
  throw new Error('expected an error');
}

describe('parseTokenSecret', () => {
  it('reads NodePool, release and the decoded config of a current HyperShift token Secret', () => {
    const r = parseTokenSecret(tokenSecret());
    expect(r).toEqual({
      nodePoolNamespace: 'clusters',
      nodePoolName: 'workers',
      secretName: 'token-workers-0a1b2c3d',
      secretNamespace: 'clusters-hc1',
      releaseImage: RELEASE,
      releaseVersion: '4.20.1',
      config: CONFIG,
      generatedAt: '2026-11-20T10:00:00.123456789Z',
      upgradeType: 'Replace',
    });
  });

  it('reads a config that is only gzipped (written for a pre-4.12 control-plane operator) and an empty config', () => {
    expect(parseTokenSecret(tokenSecret({ config: b64(gzipSync(CONFIG)) })).config).toBe(CONFIG);
    expect(parseTokenSecret(tokenSecret({ config: '' })).config).toBe('');
  });

  it('refuses a gzip bomb without inflating it past 64 MiB', () => {
    const bomb = gzipSync(Buffer.alloc(65 << 20), { level: 9 });
    expect(bomb.length).toBeLessThan(1 << 20);
    expect(errorOf(() => parseTokenSecret(tokenSecret({ config: b64(b64(bomb)) })))).toBe(
      'Secret clusters-hc1/token-workers-0a1b2c3d data.config: config decompresses to more than 67108864 bytes; refusing it',
    );
  });

  it.each([
    ['no release key', { data: { config: hypershiftConfig(CONFIG) } }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.release: token Secret has no data key "release"'],
    ['no config key', { data: { release: b64(RELEASE) } }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.config: token Secret has no data key "config"'],
    ['release not base64', { data: { release: 'not base64!', config: hypershiftConfig(CONFIG) } }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.release: Secret data value is not valid base64'],
    ['release not a reference', { release: 'Quay.io/UPPER CASE' }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.release: release "Quay.io/UPPER CASE" is not an image reference'],
    ['config base64 but not gzip', { config: b64(b64('plain text')) }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.config: config is not gzip data after base64 decoding'],
    ['config inner text not base64', { config: b64('%%% not base64 %%%') }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.config: config (gzip, base64-encoded) is not valid base64'],
    ['config truncated gzip', { config: b64(b64(gzipSync(CONFIG).subarray(0, 20))) }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.config: config is not valid gzip'],
    ['config not UTF-8', { config: b64(b64(gzipSync(Buffer.from([0xff, 0xfe, 0x00])))) }, 'Secret clusters-hc1/token-workers-0a1b2c3d data.config: decompressed config is not UTF-8 text'],
    ['NodePool annotation without namespace', { annotations: { 'hypershift.openshift.io/nodePool': 'workers' } }, 'Secret clusters-hc1/token-workers-0a1b2c3d metadata.annotations["hypershift.openshift.io/nodePool"]: NodePool annotation "workers" is not "<namespace>/<name>"'],
  ] as [string, Opts, string][])('%s: a located error', (_name, opts, message) => {
    expect(errorOf(() => parseTokenSecret(tokenSecret(opts)))).toContain(message);
  });

  it('refuses objects that are not token Secrets, naming what is missing', () => {
    expect(errorOf(() => parseTokenSecret('x'))).toBe('token Secret is not a JSON object');
    const s = tokenSecret();
    delete s.metadata!.annotations!['hypershift.openshift.io/ignition-config'];
    expect(errorOf(() => parseTokenSecret(s))).toBe(
      'Secret clusters-hc1/token-workers-0a1b2c3d metadata.annotations["hypershift.openshift.io/ignition-config"]: token Secret has no ignition-config annotation',
    );
    const u = tokenSecret();
    u.metadata!.name = 'user-data-workers-0a1b2c3d';
    expect(errorOf(() => parseTokenSecret(u))).toContain('not a token Secret');
  });

  it('never puts a data value into an error', () => {
    const secretish = 'hunter2-super-secret-value';
    const s = tokenSecret({ data: { release: b64(RELEASE), config: b64(secretish) } });
    expect(errorOf(() => parseTokenSecret(s))).not.toContain(secretish);
  });
});

describe('currentNodePoolInputs', () => {
  it('picks the token Secret without the expiration annotation per NodePool, ignoring other Secrets', () => {
    const oldRelease = 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'b'.repeat(64);
    const secrets = [
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull-secret', namespace: 'clusters-hc1' }, data: { '.dockerconfigjson': b64('{}') } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'user-data-workers-0a1b2c3d', namespace: 'clusters-hc1', annotations: { 'hypershift.openshift.io/nodePool': 'clusters/workers' } } },
      // An outdated generation: newer timestamp on purpose, but expiring, so never current.
      tokenSecret({ hash: '11111111', created: '2026-11-21T00:00:00Z', expires: '2026-11-21T02:00:00Z', release: oldRelease }),
      tokenSecret({ hash: '22222222', created: '2026-11-20T12:00:00Z' }),
      tokenSecret({ np: 'clusters/infra', hash: '33333333', config: hypershiftConfig('kind: KubeletConfig\n') }),
    ];
    const r = currentNodePoolInputs(secrets);
    expect(r.problems).toEqual([]);
    expect([...r.nodePools.keys()]).toEqual(['clusters/infra', 'clusters/workers']);
    expect(r.nodePools.get('clusters/workers')).toMatchObject({ secretName: 'token-workers-22222222', releaseImage: RELEASE, config: CONFIG });
    expect(r.nodePools.get('clusters/infra')).toMatchObject({ secretName: 'token-infra-33333333', config: 'kind: KubeletConfig\n' });
  });

  it('when two are active mid-change, takes the newest, the same whatever the list order', () => {
    const a = tokenSecret({ hash: 'aaaaaaaa', created: '2026-11-20T10:00:00Z', config: hypershiftConfig('old\n') });
    const b = tokenSecret({ hash: 'bbbbbbbb', created: '2026-11-20T11:00:00Z', config: hypershiftConfig('new\n') });
    expect(currentNodePoolInputs([a, b]).nodePools.get('clusters/workers')?.config).toBe('new\n');
    expect(currentNodePoolInputs([b, a]).nodePools.get('clusters/workers')?.config).toBe('new\n');
  });

  it('skips Secrets being deleted', () => {
    const gone = tokenSecret({ hash: 'bbbbbbbb', created: '2026-11-20T11:00:00Z', config: hypershiftConfig('new\n') });
    gone.metadata!.deletionTimestamp = '2026-11-20T11:30:00Z';
    const kept = tokenSecret({ hash: 'aaaaaaaa', config: hypershiftConfig('kept\n') });
    expect(currentNodePoolInputs([gone, kept]).nodePools.get('clusters/workers')?.config).toBe('kept\n');
  });

  it('reports a malformed current Secret for its NodePool only, and never falls back to an outdated one', () => {
    const outdated = tokenSecret({ hash: '11111111', expires: '2026-11-21T02:00:00Z' });
    const broken = tokenSecret({ hash: '22222222', config: b64('not-gzip') });
    const other = tokenSecret({ np: 'clusters/infra', hash: '33333333' });
    const r = currentNodePoolInputs([outdated, broken, other]);
    expect([...r.nodePools.keys()]).toEqual(['clusters/infra']);
    expect(r.problems).toEqual([
      {
        nodePool: 'clusters/workers',
        secretName: 'token-workers-22222222',
        message: 'Secret clusters-hc1/token-workers-22222222 data.config: config (gzip, base64-encoded) is not valid base64',
      },
    ]);
  });

  it('says when a NodePool has only expiring token Secrets', () => {
    const r = currentNodePoolInputs([tokenSecret({ expires: '2026-11-21T02:00:00Z' })]);
    expect(r.nodePools.size).toBe(0);
    expect(r.problems).toEqual([{ nodePool: 'clusters/workers', message: 'NodePool clusters/workers has no active token Secret (1 expiring); HyperShift has not written the current one yet' }]);
  });

  it('reports a token Secret without a NodePool annotation by name', () => {
    const s = tokenSecret();
    delete s.metadata!.annotations!['hypershift.openshift.io/nodePool'];
    const r = currentNodePoolInputs([s]);
    expect(r.problems).toEqual([
      {
        secretName: 'token-workers-0a1b2c3d',
        message: 'Secret clusters-hc1/token-workers-0a1b2c3d metadata.annotations["hypershift.openshift.io/nodePool"]: NodePool annotation is missing or empty',
      },
    ]);
  });
});
