/**
 * The controller's pure parts added for hosted builds: the work queue (per-key isolation,
 * bounded concurrency, per-key backoff on an injected clock), the per-NodePool facts (arch,
 * taints, OS stream, mirrors, capacity, machines on the image), the first-boot pull check, the
 * bounded failure tail, and what an observation retains.
 */
import { gzipSync } from 'node:zlib';
import { Clock, WorkQueue } from '../../builder/controller/queue.js';
import { baseOSTagForStream, nodePoolArch, nodePoolTolerations, nodesOnImage, nodeTuningDisabled, readyNodesOfArch, registriesConf } from '../../builder/hypershift/nodepool-facts.js';
import { parsePullKeys, PULL_KEYS_LIMITS, pullSecretAuthKeys, pushTargetCoveredByKeys, pushTargetCoveredByPullSecret, renderPullKeys } from '../../builder/registry/push-target.js';
import { Reconciler } from '../../builder/controller/reconciler.js';
import { tail } from '../../builder/controller/status.js';
import { wiring } from '../../builder/wiring.js';
import type { Kube, KubeObject } from '../../builder/clusters/kube.js';
import { b64, tokenSecret } from './fixtures.js';

/** A clock whose timers fire only when the test advances it. */
function fakeClock() {
  let now = 0;
  let timers: { at: number; f: () => void; id: number }[] = [];
  let next = 1;
  const clock: Clock = {
    now: () => now,
    setTimeout: (f, ms) => {
      const id = next++;
      timers.push({ at: now + ms, f, id });
      return id;
    },
    clearTimeout: (h) => {
      timers = timers.filter((t) => t.id !== h);
    },
  };
  const advance = (ms: number) => {
    now += ms;
    const due = timers.filter((t) => t.at <= now).sort((a, b) => a.at - b.at);
    timers = timers.filter((t) => t.at > now);
    for (const t of due) t.f();
  };
  return { clock, advance, pending: () => timers.map((t) => t.at - now) };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('work queue', () => {
  it('processes one key at a time, re-runs a key added while it runs, and bounds concurrency', async () => {
    const running = new Map<string, number>();
    let maxAtOnce = 0;
    const calls: string[] = [];
    const gates: (() => void)[] = [];
    const q = new WorkQueue({
      concurrency: 2,
      process: async (k) => {
        calls.push(k);
        running.set(k, (running.get(k) ?? 0) + 1);
        expect(running.get(k)).toBe(1);
        maxAtOnce = Math.max(maxAtOnce, [...running.values()].reduce((a, b) => a + b, 0));
        await new Promise<void>((r) => gates.push(r));
        running.set(k, running.get(k)! - 1);
      },
    });
    for (const k of ['a', 'b', 'c', 'a', 'a']) q.add(k);
    await tick();
    expect(calls).toEqual(['a', 'b']);
    q.add('a'); // while a runs: once more afterwards
    gates.shift()!();
    await tick();
    await tick();
    expect(calls).toEqual(['a', 'b', 'c']);
    while (gates.length) {
      gates.shift()!();
      await tick();
      await tick();
    }
    await q.idle();
    expect(calls).toEqual(['a', 'b', 'c', 'a']);
    expect(maxAtOnce).toBe(2);
  });

  it('retries a failing key with its own exponential backoff while other keys go on', async () => {
    const { clock, advance, pending } = fakeClock();
    const calls: string[] = [];
    const q = new WorkQueue({
      concurrency: 1,
      baseDelayMs: 100,
      maxDelayMs: 1000,
      clock,
      process: async (k) => {
        calls.push(k);
        if (k === 'bad') throw new Error('registry down');
      },
    });
    q.add('bad');
    q.add('good');
    await q.idle();
    expect(calls).toEqual(['bad', 'good']);
    expect(pending()).toEqual([100]);
    for (const want of [200, 400, 800, 1000, 1000]) {
      advance(pending()[0]);
      await q.idle();
      expect(pending()).toEqual([want]);
    }
    expect(calls.filter((c) => c === 'bad')).toHaveLength(6);
    expect(q.size()).toEqual({ queued: 0, processing: 0, delayed: 1, failures: 1 });
    q.stop();
  });

  it('honours requeueAfter and keeps one pending add per key', async () => {
    const { clock, advance, pending } = fakeClock();
    let n = 0;
    const q = new WorkQueue({ concurrency: 1, clock, process: async () => (n++ === 0 ? { requeueAfterMs: 5000 } : undefined) });
    q.add('k');
    await q.idle();
    q.addAfter('k', 9000); // later than the pending one: ignored
    expect(pending()).toEqual([5000]);
    advance(5000);
    await q.idle();
    expect(n).toBe(2);
    expect(pending()).toEqual([]);
  });
});

describe('per-NodePool facts', () => {
  const key = 'clusters/workers';
  const md = (annotations: Record<string, string>) => ({ metadata: { name: 'md', annotations: { 'hypershift.openshift.io/nodePool': key, ...annotations } } });
  const machine = (o: { arch?: string; taints?: unknown; ds?: string; owner?: string; pool?: string } = {}) => ({
    metadata: {
      name: `m-${Math.random()}`,
      annotations: { 'hypershift.openshift.io/nodePool': o.pool ?? key, ...(o.taints !== undefined ? { 'hypershift.openshift.io/nodePoolTaints': typeof o.taints === 'string' ? o.taints : JSON.stringify(o.taints) } : {}) },
      ...(o.owner ? { ownerReferences: [{ apiVersion: 'cluster.x-k8s.io/v1beta1', kind: 'MachineSet', name: o.owner, uid: 'u' }] } : {}),
    },
    ...(o.ds ? { spec: { bootstrap: { dataSecretName: o.ds } } } : {}),
    ...(o.arch ? { status: { nodeInfo: { architecture: o.arch } } } : {}),
  });

  it('architecture: HyperShift\'s annotation first, then what the Machines report, never a guess', () => {
    expect(nodePoolArch(key, { machineDeployments: [md({ 'capacity.cluster-autoscaler.kubernetes.io/labels': 'a=b,kubernetes.io/arch=arm64' })], machineSets: [], machines: [machine({ arch: 'amd64' })] })).toMatchObject({ arch: 'arm64' });
    expect(nodePoolArch(key, { machineDeployments: [md({})], machineSets: [], machines: [machine({ arch: 'arm64' }), machine({ arch: 'arm64' }), machine({ arch: 'amd64', pool: 'clusters/other' })] })).toMatchObject({ arch: 'arm64' });
    expect(nodePoolArch(key, { machineDeployments: [md({})], machineSets: [], machines: [machine({ arch: 'arm64' }), machine({ arch: 'amd64' })] })).toMatchObject({ reason: expect.stringContaining('more than one architecture') });
    expect(nodePoolArch(key, { machineDeployments: [md({})], machineSets: [], machines: [machine({ arch: 'mips' })] })).toMatchObject({ reason: expect.stringContaining('"mips"') });
    expect(nodePoolArch(key, { machineDeployments: [], machineSets: [], machines: [] }).arch).toBeUndefined();
  });

  it('tolerations for the NodePool\'s taints, from the Machines HyperShift annotates', () => {
    const taints = [{ key: 'dedicated', value: 'gpu', effect: 'NoSchedule' }, { key: 'spot', effect: 'NoExecute' }];
    expect(nodePoolTolerations(key, { machineSets: [], machines: [machine({ taints }), machine({ taints }), machine({ taints: 'not json' }), machine({ taints: [{ key: 'x', effect: 'NoSchedule' }], pool: 'clusters/other' })] })).toEqual([
      { key: 'dedicated', operator: 'Equal', value: 'gpu', effect: 'NoSchedule' },
      { key: 'spot', operator: 'Exists', effect: 'NoExecute' },
    ]);
  });

  it('OS stream to base OS tag', () => {
    expect(baseOSTagForStream(undefined)).toEqual({});
    expect(baseOSTagForStream('rhel-9')).toEqual({});
    expect(baseOSTagForStream('rhel-10')).toEqual({ tag: 'rhel-coreos-10' });
    expect(baseOSTagForStream('rhel-11')).toMatchObject({ error: expect.stringContaining('rhel-11') });
  });

  it('registries.conf from imageContentSources; nothing when there are none; junk skipped', () => {
    expect(registriesConf(undefined)).toBeUndefined();
    expect(registriesConf([{ source: 'quay.io/a', mirrors: [] }])).toBeUndefined();
    const conf = registriesConf([{ source: 'quay.io/openshift-release-dev/ocp-release', mirrors: ['mirror.example.com:5000/ocp/release', 'x"]\n[[registry]]'] }, { source: 'bad source' }])!;
    expect(conf).toBe(
      'unqualified-search-registries = []\n\n[[registry]]\n  prefix = ""\n  location = "quay.io/openshift-release-dev/ocp-release"\n  mirror-by-digest-only = true\n\n  [[registry.mirror]]\n    location = "mirror.example.com:5000/ocp/release"\n',
    );
  });

  it('capacity: Ready, schedulable nodes of the architecture', () => {
    const n = (name: string, arch: string, ready: string, unschedulable = false) => ({ metadata: { name, labels: { 'kubernetes.io/arch': arch } }, spec: { unschedulable }, status: { conditions: [{ type: 'Ready', status: ready }] } });
    expect(readyNodesOfArch([n('a', 'amd64', 'True'), n('b', 'arm64', 'True'), n('c', 'amd64', 'False'), n('d', 'amd64', 'True', true)], 'amd64')).toEqual(['a']);
    expect(readyNodesOfArch([n('b', 'arm64', 'True')], 's390x')).toEqual([]);
  });

  it('NodeTuning disabled on the HostedControlPlane', () => {
    expect(nodeTuningDisabled({ metadata: {}, spec: { capabilities: { disabled: ['ImageRegistry', 'NodeTuning'] } } })).toBe(true);
    expect(nodeTuningDisabled({ metadata: {}, spec: { capabilities: { disabled: ['ImageRegistry'] } } })).toBe(false);
    expect(nodeTuningDisabled(undefined)).toBe(false);
  });

  it('machines on the image: Replace by user-data hash, InPlace by the MachineSet\'s current config version', () => {
    const img = 'quay.example.com/os@sha256:' + '1'.repeat(64);
    const byHash = new Map([['workers/bbbb', img], ['workers/cccc', 'other@sha256:' + '2'.repeat(64)]]);
    const ms = { metadata: { name: 'ms', annotations: { 'hypershift.openshift.io/nodePool': key, 'hypershift.openshift.io/nodePoolCurrentConfigVersion': 'bbbb' } } };
    expect(nodesOnImage('workers', key, img, { machineSets: [], machines: [machine({ ds: 'user-data-workers-aaaa' }), machine({ ds: 'user-data-workers-bbbb' }), machine({ ds: 'user-data-workers-cccc' })] }, byHash)).toEqual({ total: 3, onImage: 1 });
    expect(nodesOnImage('workers', key, img, { machineSets: [ms], machines: [machine({ ds: 'user-data-workers-aaaa', owner: 'ms' }), machine({ ds: 'user-data-workers-aaaa', owner: 'other' })] }, byHash)).toEqual({ total: 2, onImage: 1 });
  });
});

describe('first-boot pull check (shared with the webhook)', () => {
  const cfg = (auths: Record<string, unknown>) => JSON.stringify({ auths });
  const auth = { auth: b64('u:p') };
  it.each([
    ['quay.example.com/org/os:latest', { 'quay.example.com': auth }, true],
    ['quay.example.com/org/os:latest', { 'quay.example.com/org': auth }, true],
    ['quay.example.com/org/os:latest', { 'quay.example.com/other': auth }, false],
    ['quay.example.com/org/os:latest', { 'https://quay.example.com/v1/': auth }, true],
    ['registry:5000/os:tag', { registry: auth }, false],
    ['registry:5000/os:tag', { 'registry:5000': auth }, true],
    ['docker.io/library/os:tag', { 'https://index.docker.io/v1/': auth }, true],
    ['quay.example.com/org/os:latest', { 'quay.example.com': {} }, false],
  ])('%s with %j: %s', (spec, auths, covered) => {
    expect(pushTargetCoveredByPullSecret(spec, cfg(auths)).covered).toBe(covered);
    // The webhook's view: the published keys alone give the same answer.
    expect(pushTargetCoveredByKeys(spec, parsePullKeys(renderPullKeys(pullSecretAuthKeys(cfg(auths)))!)!).covered).toBe(covered);
  });
  it('the published keys are the normalized keys that carry a credential, sorted, never a value', () => {
    const keys = pullSecretAuthKeys(cfg({ 'https://quay.example.com/v1/': auth, 'docker.io': { auth: b64('robot:s3cret') }, 'empty.example.com': {}, 'bad.example.com': { auth: b64('no-colon') }, 'q.example.com/org/team': { identitytoken: 'tok' } }));
    expect(keys).toEqual(['index.docker.io', 'q.example.com/org/team', 'quay.example.com']);
    const text = renderPullKeys(keys)!;
    expect(text).toBe('index.docker.io\nq.example.com/org/team\nquay.example.com\n');
    expect(text).not.toMatch(/s3cret|tok|cm9ib3Q6czNjcmV0/);
    expect(parsePullKeys(`\n${text}\n`)).toEqual(keys);
  });
  it('the published list is bounded: over the bounds, nothing is published (the webhook then does not check)', () => {
    const many = Array.from({ length: PULL_KEYS_LIMITS.count + 1 }, (_, n) => `r${n}.example.com`);
    expect(renderPullKeys(many)).toBeUndefined();
    expect(renderPullKeys(['x'.repeat(PULL_KEYS_LIMITS.keyChars + 1)])).toBeUndefined();
    expect(renderPullKeys(many.slice(0, PULL_KEYS_LIMITS.count))).toBeDefined();
    expect(parsePullKeys(many.join('\n'))).toBeUndefined();
    expect(parsePullKeys('x'.repeat(PULL_KEYS_LIMITS.totalChars + 1))).toBeUndefined();
  });
  it('says why, without a credential', () => {
    const r = pushTargetCoveredByPullSecret('quay.example.com/org/os:latest', cfg({ 'quay.io': { auth: b64('robot:s3cret') } }));
    expect(r.covered).toBe(false);
    expect((r as { reason: string }).reason).toContain('quay.example.com/org/os');
    expect((r as { reason: string }).reason).not.toMatch(/s3cret|cm9ib3Q6czNjcmV0/);
    expect(pushTargetCoveredByPullSecret('x', undefined).covered).toBe(false);
    expect((pushTargetCoveredByPullSecret('q.io/a:b', '{not json') as { reason: string }).reason).toContain('not valid JSON');
  });
});

describe('failure messages', () => {
  it('keep the tail, cut at a line, bounded', () => {
    const log = `${'pulling layer…\n'.repeat(500)}STEP 3: RUN dnf install foo\nerror: No package foo available`;
    const t = tail(log, 1024);
    expect(t.length).toBeLessThanOrEqual(1024);
    expect(t.startsWith('…pulling layer…\n') || t.startsWith('…STEP') || t.startsWith('…pulling')).toBe(true);
    expect(t.endsWith('STEP 3: RUN dnf install foo\nerror: No package foo available')).toBe(true);
    expect(tail('short', 1024)).toBe('short');
    expect(tail('x'.repeat(5000), 100)).toBe('…' + 'x'.repeat(99));
  });
});

describe('what an observation retains', () => {
  it('grows with the number of configs and NodePools, not with Secret data or object sizes', async () => {
    const big = 'x'.repeat(200_000);
    const N = 300;
    const secrets: KubeObject[] = [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'pull-secret', namespace: 'ns' }, data: { '.dockerconfigjson': b64('{"auths":{}}') } } as KubeObject];
    const configs: KubeObject[] = [];
    const machines: KubeObject[] = [];
    const nodes: KubeObject[] = [];
    for (let i = 0; i < N; i++) {
      const s = tokenSecret({ namespace: 'ns', nodePoolNamespace: 'clusters', nodePool: `np-${i}`, hash: '1a2b3c4d', release: `quay.io/r@sha256:${'a'.repeat(64)}`, config: `# ${big}\n`, created: '2026-11-23T09:00:00Z' });
      (s.data as Record<string, string>).payload = b64(gzipSync(big));
      secrets.push(s as KubeObject);
      configs.push({ apiVersion: 'on-cluster-build.pkogen.io/v1alpha1', kind: 'NodePoolOSConfig', metadata: { name: `np-${i}` }, spec: { nodePool: { name: `np-${i}` } } } as KubeObject);
      machines.push({ metadata: { name: `m-${i}`, annotations: { 'hypershift.openshift.io/nodePool': `clusters/np-${i}`, 'kubectl.kubernetes.io/last-applied-configuration': big } }, spec: { providerID: big }, status: { nodeInfo: { architecture: 'amd64', osImage: big } } } as KubeObject);
      nodes.push({ metadata: { name: `n-${i}`, labels: { 'kubernetes.io/arch': 'amd64' }, annotations: { big } }, status: { images: [{ names: [big] }], conditions: [{ type: 'Ready', status: 'True' }] } } as KubeObject);
    }
    const lists: Record<string, KubeObject[]> = { secrets, nodepoolosconfigs: configs, machines, nodes };
    let seen = 0;
    const kept: KubeObject[] = [];
    const kube = {
      list: async (r: { plural: string }, o?: { keep?: (x: KubeObject) => KubeObject | undefined }) => {
        const items = (lists[r.plural] ?? []).map((x) => (seen++, o?.keep ? o.keep(x) : x)).filter((x): x is KubeObject => !!x);
        if (r.plural === 'machines' || r.plural === 'nodes') kept.push(...items);
        return { items, resourceVersion: '1' };
      },
    } as unknown as Kube;
    const w = wiring({ cacheSize: 1 });
    const r = new Reconciler({
      management: kube,
      hosted: kube,
      namespace: 'ns',
      resolveRelease: async () => ({ releaseDigest: 'sha256:' + 'a'.repeat(64), baseOSImage: 'b', machineConfigOperatorImage: 'm' }),
      verifyImage: async () => ({ ok: true }),
      nodePoolInputs: w.nodePoolInputs,
      validateConfig: () => [],
      pullSecretName: 'pull-secret',
      activeDeadlineSeconds: 1,
      backoffLimit: 1,
      historyLimit: 1,
      userNamespaces: false,
    });
    await r.observe();
    const { observed } = r.retained();
    expect(observed!.inputs.size).toBe(N);
    expect(observed!.capi.machines).toHaveLength(N);
    expect(observed!.nodes).toHaveLength(N);
    const bytes = JSON.stringify({ ...observed, configs: [...observed!.configs.values()], inputs: [...observed!.inputs.values()], handoffs: [], imageByHash: [...observed!.imageByHash], hostedNodesByPool: [...observed!.hostedNodesByPool] }).length;
    // Each object was ≥ 200 kB; what is kept is a few hundred bytes per NodePool.
    expect(bytes).toBeLessThan(N * 1000);
    expect(JSON.stringify([...observed!.inputs.values()])).not.toContain('xxxxxxxx');
    // Machines and Nodes are trimmed as their page arrives, not after the whole list.
    expect(seen).toBeGreaterThan(3 * N);
    expect(JSON.stringify(kept)).not.toContain('xxxxxxxx');
  });
});
