/**
 * The decision for one NodePoolOSConfig (builder/controller/decide.ts) as tables: no server, no
 * clock. Each row changes one thing of an observation that builds, and names what the decision
 * asks to be read first (in order) and what it decides in the end.
 */
import { decide, type DecideInput, type Decision, Gathered, type Need, type NeedResults } from '../../builder/controller/decide.js';
import type { Observed } from '../../builder/controller/observe.js';
import { CONFIG_LABEL } from '../../builder/controller/build-job.js';

const NP = 'workers';
const NP_NS = 'clusters';
const RELEASE = 'quay.io/openshift-release-dev/ocp-release@sha256:' + '1'.repeat(64);
const WANTED = 'quay.io/openshift-release-dev/ocp-release@sha256:' + '2'.repeat(64);
const BASE_OS = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + '3'.repeat(64);
const MCO = 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + '4'.repeat(64);
const PROVIDER_IMAGE = 'registry.provider.example/layered/os@sha256:' + '5'.repeat(64);
const HANDED_OFF = 'registry.example/tenant/os@sha256:' + '6'.repeat(64);
const NOW = new Date('2026-11-27T12:00:00Z');

function input(): DecideInput {
  const obs: Observed = {
    configs: new Map(),
    refusals: { pending: new Set(), total: 0, untracked: 0 },
    inputs: new Map([[NP, { nodePoolName: NP, nodePoolNamespace: NP_NS, secretName: `token-${NP}-abc`, releaseImage: RELEASE }]]),
    pullSecret: '{"auths":{}}',
    pullKeys: { keys: ['registry.example'] },
    capi: {
      machineDeployments: [{ metadata: { name: NP, annotations: { 'hypershift.openshift.io/nodePool': `${NP_NS}/${NP}`, 'capacity.cluster-autoscaler.kubernetes.io/labels': 'kubernetes.io/arch=arm64' } } }],
      machineSets: [],
      machines: [],
    },
    nodeTuningDisabled: false,
    nodes: [{ metadata: { name: 'node-a', labels: { 'kubernetes.io/arch': 'arm64' } }, spec: {}, status: { conditions: [{ type: 'Ready', status: 'True' }] } }],
    handoffs: new Map(),
    jobs: [],
    imageByHash: new Map(),
    hostedNodesByPool: new Map(),
  };
  return {
    cfg: {
      metadata: { name: NP, uid: 'u1', generation: 1 },
      spec: { nodePool: { name: NP }, renderedImagePushSpec: 'registry.example/tenant/os:latest', renderedImagePushSecret: { name: 'push' }, containerFile: [{ content: 'FROM configs AS final\nRUN true\n' }] },
    },
    obs,
    got: new Gathered(),
    settings: { namespace: 'clusters-hc', buildNamespace: 'on-cluster-build-jobs', pullSecretName: 'pull-secret', validateConfig: () => [], activeDeadlineSeconds: 3600, backoffLimit: 0, userNamespaces: false, maxConcurrentBuilds: 2, minRebuildIntervalSeconds: 60 },
    now: NOW,
  };
}

/** What each need gives when nothing is wrong. */
function goodAnswers(): { [K in Need['need']]: (n: Extract<Need, { need: K }>) => NeedResults[K] } {
  return {
    clearWantedRelease: () => true,
    pushSecret: () => ({ auth: '{"auths":{"registry.example":{"auth":"cHVzaDpw"}}}' }),
    baseSecret: () => ({ auth: '{"auths":{"quay.io":{"auth":"YmFzZTpw"}}}' }),
    runFiles: () => ({ sources: [], files: {} }),
    trustBundle: () => ({}),
    release: () => ({ releaseDigest: 'sha256:' + '7'.repeat(64), baseOSImage: BASE_OS, machineConfigOperatorImage: MCO, version: '4.19.0' }),
  };
}

/** Decides, answering each need, until a decision that is not a need; the needs in the order asked. */
function run(i: DecideInput, answers = goodAnswers()): { needs: Need[]; d: Exclude<Decision, Need> } {
  const needs: Need[] = [];
  for (let round = 0; round < 20; round++) {
    const d = decide(i);
    if (!('need' in d)) return { needs, d };
    needs.push(d);
    i.got.set(d, (answers[d.need] as (n: Need) => NeedResults[Need['need']])(d));
  }
  throw new Error('the decision kept asking');
}

/** A decision in a few words: what it writes or does, with its reason. */
function summary(d: Exclude<Decision, Need>): string {
  if ('none' in d) return 'none';
  if ('build' in d) return `build ${d.build.job.jobName}${d.build.claim ? ' (claims a slot)' : ''}`;
  const s = d.status;
  const what = s.degraded ? `degraded ${s.degraded[0]}` : s.pending ? `pending ${s.pending[0]}` : s.waiting ? `waiting ${s.waiting[0]}` : s.available ? `available ${s.available}` : s.building ? 'building' : 'nothing';
  return `${d.prune ? 'prune, ' : ''}${what}${d.requeueAfterMs !== undefined ? ` (again in ${d.requeueAfterMs} ms)` : ''}`;
}

const ALL_READS = ['pushSecret', 'baseSecret', 'runFiles', 'trustBundle', 'release'];
/** The job name of the unchanged input (the inputs' hash decides it). */
const JOB = run(input()).d;
const JOB_NAME = 'build' in JOB ? JOB.build.job.jobName : '';
const BUILD_NAME = 'build' in JOB ? JOB.build.job.buildName : '';

describe('decide: what one config comes to', () => {
  const rows: [string, (i: DecideInput, a: ReturnType<typeof goodAnswers>) => void, string[], string][] = [
    ['nothing wrong: a new build, with a slot claimed', () => {}, ALL_READS, `build ${JOB_NAME} (claims a slot)`],
    ['being deleted', (i) => (i.cfg.metadata.deletionTimestamp = '2026-11-27T11:00:00Z'), [], 'none'],
    ['the tenant layer is disabled', (i) => (i.settings.tenantLayer = 'Disabled'), [], 'degraded TenantLayerDisabled'],
    ['the webhook rules refuse the config', (i) => (i.settings.validateConfig = () => ['spec.x: bad']), [], 'degraded InvalidSpec'],
    ['no token Secret for the NodePool', (i) => i.obs.inputs.clear(), [], 'degraded NodePoolNotFound'],
    ['the token Secret is malformed', (i) => i.obs.inputs.set(NP, { error: 'bad token Secret' }), [], 'degraded NodePoolInputsInvalid'],
    ['an os-stream HyperShift does not write', (i) => i.obs.inputs.set(NP, { nodePoolName: NP, nodePoolNamespace: NP_NS, secretName: 's', releaseImage: RELEASE, osStream: 'rhel-99' }), [], 'degraded OSStreamUnknown'],
    ['no architecture known', (i) => (i.obs.capi.machineDeployments = []), [], 'degraded ArchitectureUnknown'],
    ['the provider layer is in force, its image not yet published', (i) => (i.obs.providerImages = { layer: 'corp', entries: new Map() }), [], 'pending WaitingForProviderImage'],
    ['no pull secret: nodes could not pull the image', (i) => (i.obs.pullKeys = { error: 'missing' }), [], 'degraded PushTargetNotPullableByNodes'],
    ['the pull secret does not cover the push target', (i) => (i.obs.pullKeys = { keys: ['other.example'] }), [], 'degraded PushTargetNotPullableByNodes'],
    ['no push Secret', (_, a) => (a.pushSecret = () => ({})), ['pushSecret'], 'degraded PushSecretNotFound'],
    ['no base image pull Secret', (_, a) => (a.baseSecret = () => ({})), ['pushSecret', 'baseSecret'], 'degraded BaseImagePullSecretNotFound'],
    ['a bad entitlement', (_, a) => (a.runFiles = () => ({ reason: 'EntitlementInvalid', error: 'too many files' })), ['pushSecret', 'baseSecret', 'runFiles'], 'degraded EntitlementInvalid'],
    ['a bad trust bundle', (_, a) => (a.trustBundle = () => ({ error: 'not PEM' })), ['pushSecret', 'baseSecret', 'runFiles', 'trustBundle'], 'degraded TrustBundleInvalid'],
    ['the release does not resolve', (_, a) => (a.release = () => ({ error: 'manifest unknown' })), ALL_READS, 'degraded ReleaseResolutionFailed'],
    ['a release before 4.17 and no builder image of ours', (_, a) => (a.release = () => ({ releaseDigest: 'sha256:' + '7'.repeat(64), baseOSImage: BASE_OS, machineConfigOperatorImage: MCO, version: '4.16.3' })), ALL_READS, 'degraded NoBuilderImage'],
    ['already handed off', (i) => i.obs.handoffs.set(NP, { name: `on-cluster-build-os-image-${NP}`, image: HANDED_OFF, build: BUILD_NAME, config: NP }), ALL_READS, `prune, available ${HANDED_OFF}`],
    ['already handed off, NodeTuning disabled', (i) => { i.obs.handoffs.set(NP, { name: `on-cluster-build-os-image-${NP}`, image: HANDED_OFF, build: BUILD_NAME, config: NP }); i.obs.nodeTuningDisabled = true; }, ALL_READS, 'degraded HandoffUnavailable'],
    ['handed off for other inputs: builds again', (i) => i.obs.handoffs.set(NP, { name: `on-cluster-build-os-image-${NP}`, image: HANDED_OFF, build: `${NP}-0000000000`, config: NP }), ALL_READS, `build ${JOB_NAME} (claims a slot)`],
    ['no Ready node of the architecture', (i) => (i.obs.nodes[0]!.status!.conditions = [{ type: 'Ready', status: 'False' }]), ALL_READS, 'waiting NoReadyNodeOfArchitecture'],
    ['only nodes of another architecture', (i) => (i.obs.nodes[0]!.metadata.labels = { 'kubernetes.io/arch': 'amd64' }), ALL_READS, 'waiting NoReadyNodeOfArchitecture'],
    ['as many builds of other configs running as the cap', (i) => i.obs.jobs.push(job('build-a-1', 'a'), job('build-b-1', 'b')), ALL_READS, 'pending WaitingForBuildSlot (again in 30000 ms)'],
    ['builds of other configs running, one ended', (i) => i.obs.jobs.push(job('build-a-1', 'a'), job('build-b-1', 'b', 'Complete')), ALL_READS, `build ${JOB_NAME} (claims a slot)`],
    ['this config built 20 s ago for other inputs', (i) => i.obs.jobs.push(job('build-workers-old', NP, 'Complete', '2026-11-27T11:59:40Z')), ALL_READS, 'pending RebuildRateLimited (again in 40000 ms)'],
    ['this config built 61 s ago for other inputs', (i) => i.obs.jobs.push(job('build-workers-old', NP, 'Complete', '2026-11-27T11:58:59Z')), ALL_READS, `build ${JOB_NAME} (claims a slot)`],
    ['its Job is there: followed, no slot, no capacity asked', (i) => { i.obs.jobs.push(job(JOB_NAME, NP, undefined, '2026-11-27T11:59:59Z'), job('build-a-1', 'a'), job('build-b-1', 'b')); i.obs.nodes = []; }, ALL_READS, `build ${JOB_NAME}`],
    ['the wanted release is the current one: cleared first', (i) => i.obs.handoffs.set(NP, { name: `on-cluster-build-os-image-${NP}`, wantedRelease: RELEASE }), ['clearWantedRelease', ...ALL_READS], `build ${JOB_NAME} (claims a slot)`],
  ];

  it.each(rows)('%s', (_, change, reads, decision) => {
    const i = input();
    const a = goodAnswers();
    change(i, a);
    const { needs, d } = run(i, a);
    expect({ reads: needs.map((n) => n.need), decision: summary(d) }).toEqual({ reads, decision });
  });
});

describe('decide: what a build is made of', () => {
  const built = (change: (i: DecideInput, a: ReturnType<typeof goodAnswers>) => void = () => {}) => {
    const i = input();
    const a = goodAnswers();
    change(i, a);
    const { needs, d } = run(i, a);
    if (!('build' in d)) throw new Error(`no build: ${summary(d)}`);
    return { needs, plan: d.build, job: d.build.job };
  };

  it('builds FROM the release base OS with the release MCO image, for the NodePool arch, under a name from the inputs hash', () => {
    const { job, plan } = built();
    expect(job).toMatchObject({ arch: 'arm64', baseOSImage: BASE_OS, builderImage: MCO, releaseImage: RELEASE, nodePool: NP, configName: NP, namespace: 'on-cluster-build-jobs' });
    expect(job.buildName).toMatch(/^workers-[0-9a-f]{10}$/);
    expect(job.jobName).toBe(`build-${job.buildName}`);
    expect(job.pushTag).toBe(`registry.example/tenant/os:${job.buildName}`);
    expect(plan.pushAuth).toContain('registry.example');
    expect(plan.baseAuth).toContain('quay.io');
  });

  const rows: [string, (i: DecideInput, a: ReturnType<typeof goodAnswers>) => void, boolean][] = [
    ['a rebuild annotation', (i) => (i.cfg.metadata.annotations = { 'on-cluster-build.pkogen.io/rebuild': '1' }), true],
    ['another Containerfile', (i) => (i.cfg.spec!.containerFile = [{ content: 'FROM configs AS final\nRUN false\n' }]), true],
    ['another release digest', (_, a) => (a.release = () => ({ releaseDigest: 'sha256:' + '8'.repeat(64), baseOSImage: BASE_OS, machineConfigOperatorImage: MCO, version: '4.19.0' })), true],
    ['a RUN file source', (_, a) => (a.runFiles = () => ({ sources: ['Secret openshift-config-managed/etc-pki-entitlement'], files: { entitlement: { 'e.pem': 'x' } } })), true],
    ['a trust bundle', (_, a) => (a.trustBundle = () => ({ pem: '-----BEGIN CERTIFICATE-----' })), true],
    ['another NodePool machine config (not a build input)', (i) => i.obs.imageByHash.set(`${NP}/abc`, HANDED_OFF), false],
    ['another generation of the same spec', (i) => (i.cfg.metadata.generation = 7), false],
  ];
  it.each(rows.map(([t, change, renamed]) => [`${t}: ${renamed ? 'a new build name' : 'the same build name'}`, change, renamed] as const))('%s', (_, change, renamed) => {
    expect(built(change).job.buildName !== BUILD_NAME).toBe(renamed);
  });

  it('the fleet gate wanted release, when not yet the current one, is the release resolved and built for', () => {
    const { needs, job } = built((i) => i.obs.handoffs.set(NP, { name: `on-cluster-build-os-image-${NP}`, wantedRelease: WANTED }));
    expect(needs.find((n) => n.need === 'release')).toMatchObject({ releaseImage: WANTED, options: { arch: 'arm64', pullSecret: '{"auths":{}}' } });
    expect(job.releaseImage).toBe(WANTED);
  });

  it('with the provider layer in force and its image published, builds FROM that image', () => {
    const { job } = built((i) => (i.obs.providerImages = { layer: 'corp', entries: new Map([[NP, { release: RELEASE, arch: 'arm64', image: PROVIDER_IMAGE }]]) }));
    expect(job.baseOSImage).toBe(PROVIDER_IMAGE);
  });

  it('a release before 4.17 builds with our own image when there is one', () => {
    const { job } = built((i, a) => {
      i.settings.ownBuilderImage = 'quay.io/example/on-cluster-build@sha256:' + '9'.repeat(64);
      a.release = () => ({ releaseDigest: 'sha256:' + '7'.repeat(64), baseOSImage: BASE_OS, machineConfigOperatorImage: MCO, version: '4.16.3' });
    });
    expect(job.builderImage).toBe('quay.io/example/on-cluster-build@sha256:' + '9'.repeat(64));
  });

  it('superseded Jobs of the config are handed to the act; those of other configs are not', () => {
    const { plan } = built((i) => i.obs.jobs.push(job('build-workers-old', NP, 'Complete', '2026-11-27T11:00:00Z'), job('build-a-1', 'a')));
    expect(plan.mine.map((j) => j.metadata.name)).toEqual(['build-workers-old']);
  });

  it('is pure: the same input decides the same, and the input is not changed', () => {
    const i = input();
    const before = JSON.stringify({ ...i, got: undefined, obs: { ...i.obs, inputs: [...i.obs.inputs], handoffs: [...i.obs.handoffs] } });
    const first = run(i);
    expect(JSON.stringify({ ...i, got: undefined, obs: { ...i.obs, inputs: [...i.obs.inputs], handoffs: [...i.obs.handoffs] } })).toBe(before);
    expect(decide(i)).toEqual(first.d);
  });
});

/** A trimmed build Job of `config`, running unless `ended` names its final condition. */
function job(name: string, config: string, ended?: string, created = '2026-11-27T10:00:00Z') {
  return { metadata: { name, creationTimestamp: created, labels: { [CONFIG_LABEL]: config } }, status: { conditions: ended ? [{ type: ended, status: 'True' }] : [] } };
}
