/**
 * The fleet component's package (resources/fleet/, generated into package-fleet/ by `make
 * package`): it generates without findings, its test cases render, its config refuses what it
 * must, its RBAC is exactly builder/fleet/rbac.ts, the Deployment's args are the fleet command's
 * flags, the per-HCP package binds the hand-off rights to the fleet ServiceAccount, and its rollout
 * Template lints and simulates (pkogen's CLI, the one `make` builds).
 */
import { parseCommand } from '../../builder/cli.js';
import { checkFleetFlags } from '../../builder/fleet/main.js';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { readDirToFileMap } from '../../pkogen/src/core/fs.js';
import { loadPackage } from '../../pkogen/src/pko/loader.js';
import { renderPackage } from '../../pkogen/src/pko/render.js';
import { testCaseRequest } from '../../pkogen/src/pko/template-tests.js';
import { admitConfig } from '../../pkogen/src/pko/config-admission.js';
import { buildPackage } from '../../pkogen/src/model/build-package.js';
import { FLEET_BUILD_NAMESPACE_RULES, FLEET_CLUSTER_RULES, FLEET_NAMESPACE_RULES, HANDOFF_RULES } from '../../builder/fleet/rbac.js';
import { buildJob, type BuildJobInput } from '../../builder/controller/build-job.js';
import { podSecurityViolations } from '../builder/kubelet.js';
import { buildNamespace } from '../../resources/build-namespace.js';
import { definition, rolloutOptions } from '../../resources/resources.js';
import { FLEET_HANDOFF_ROLE } from '../../resources/builder-controller.js';
import { FLEET_PACKAGE_DIR, FLEET_ROLLOUT_PATH, fleetDefinition, fleetRolloutOptions } from '../../resources/fleet/fleet.js';
import { buildRolloutTemplate } from '../../pkogen/src/rollout/generate.js';
import { fleetConfigSchema } from '../../resources/fleet/config.js';
import { EXACTLY_ONE, FLEET_NODE_OPTIONS, FLEET_RESOURCES, LAYER_DIR, LAYER_FILE } from '../../resources/fleet/objects.js';
import { FLEET_BUILD_NAMESPACE, FLEET_NAMESPACE, FLEET_SERVICE_ACCOUNT } from '../../resources/fleet/identity.js';

const DIR = path.resolve(FLEET_PACKAGE_DIR);
const norm = (rs: readonly { apiGroups: readonly string[]; resources: readonly string[]; verbs: readonly string[]; resourceNames?: readonly string[] }[]) =>
  rs.map((r) => ({ apiGroups: [...r.apiGroups], resources: [...r.resources], ...(r.resourceNames ? { resourceNames: [...r.resourceNames] } : {}), verbs: [...r.verbs] }));
const D = (c: string) => 'sha256:' + c.repeat(64);
const IMAGE = `quay.io/app-sre/on-cluster-build@${D('3')}`;


async function rendered() {
  const pkg = loadPackage(await readDirToFileMap(DIR));
  return { pkg, cases: Object.fromEntries((pkg.manifest.test?.template ?? []).map((tc) => [tc.name, renderPackage(testCaseRequest(pkg, tc))])) };
}

describe('the fleet package', () => {
  test('generates without findings, a ClusterPackage with its phases in order', async () => {
    const built = await buildPackage(fleetDefinition());
    expect(built.findings).toEqual([]);
    const { pkg } = await rendered();
    expect(pkg.manifest.spec.scopes).toEqual(['Cluster']);
    expect(pkg.manifest.spec.phases.map((p) => p.name)).toEqual(['namespace', 'rbac', 'policies', 'deploy', 'webhooks']);
  });

  test('every test case renders; args, the layer file and resources as configured', async () => {
    const { cases } = await rendered();
    expect(Object.keys(cases).sort()).toEqual(['fleet-layer', 'fleet-prebuilt-image']);
    const deploymentOf = (name: string) => cases[name].objects.find((o) => o.object.kind === 'Deployment')!.object as any;
    for (const [name, r] of Object.entries(cases)) {
      expect([name, r.configErrors]).toEqual([name, []]);
      const c = deploymentOf(name).spec.template.spec.containers[0];
      const flags = (c.args as string[]).slice(1).map((a) => /^--([a-z-]+)=/.exec(a)?.[1]);
      expect(c.args[0]).toBe('fleet');
      // Every arg is a flag `on-cluster-build fleet` accepts, and the combination passes its checks.
      expect(() => checkFleetFlags(parseCommand('fleet', c.args.slice(1), { POD_NAMESPACE: 'on-cluster-build-fleet' }))).not.toThrow();
      expect(new Set(flags).size).toBe(flags.length);
      expect(c.resources).toEqual(FLEET_RESOURCES);
      // The measured figures (docs/benchmarks.md "Fleet component footprint"); V8's heap cap stays under the memory limit.
      expect(c.env).toContainEqual({ name: 'NODE_OPTIONS', value: FLEET_NODE_OPTIONS });
      const mb = (o: string) => Number(new RegExp(`--${o}=(\\d+)`).exec(FLEET_NODE_OPTIONS)?.[1]);
      expect(mb('max-old-space-size') + 3 * mb('max-semi-space-size')).toBeLessThan(parseInt(FLEET_RESOURCES.limits.memory, 10) / 2);
      expect(c.env).toContainEqual({ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } });
      expect(c.image).toMatch(/@sha256:[0-9a-f]{64}$/);
    }
    const args = (name: string) => Object.fromEntries((deploymentOf(name).spec.template.spec.containers[0].args as string[]).slice(1).map((a) => a.slice(2).split(/=(.*)/s).slice(0, 2)));
    expect(args('fleet-layer')).toMatchObject({ 'provider-layer-file': `${LAYER_DIR}/${LAYER_FILE}`, 'provider-image': '', 'max-hold-seconds': '3600', 'provider-repository': 'quay.io/provider/os-layered', 'push-secret-name': 'provider-push', 'provider-trust-bundle': 'provider-registry-ca', 'build-placement': '{"arm64":{"nodeSelector":{"node-role.kubernetes.io/builder":""},"tolerations":[{"key":"builder","operator":"Exists","effect":"NoSchedule"}]}}' });
    expect(args('fleet-prebuilt-image')).toMatchObject({ 'provider-layer-file': '', 'provider-image': `registry.example.com:5000/provider/os@${D('4')}`, 'max-hold-seconds': '7200', 'provider-trust-bundle': '', 'build-placement': '' });
    // The Containerfile reaches the pod byte for byte (a ConfigMap key mounted at the flag's path).
    const cm = cases['fleet-layer'].objects.find((o) => o.object.kind === 'ConfigMap')!.object as any;
    expect(cm.data[LAYER_FILE]).toBe('FROM configs\nRUN dnf install -y provider-agent && dnf clean all\nCOPY --from=configs /etc/provider /etc/provider\n');
    // A new layer restarts the pods.
    const ann = (name: string) => deploymentOf(name).spec.template.metadata.annotations['on-cluster-build.pkogen.io/provider-layer-sha256'];
    expect(ann('fleet-layer')).toMatch(/^[0-9a-f]{64}$/);
    expect(ann('fleet-layer')).not.toBe(ann('fleet-prebuilt-image'));
  });

  test('the config refuses what it must: digests, enums, bounds', () => {
    const base = { image: IMAGE, providerRepository: 'quay.io/provider/os' };
    const errors = (c: Record<string, unknown>) => admitConfig(c, fleetConfigSchema).errors.map((e) => e.field);
    expect(errors({ ...base, providerLayer: 'RUN true' })).toEqual([]);
    expect(errors({ ...base, providerImage: `quay.io/provider/os@${D('5')}` })).toEqual([]);
    expect(admitConfig({ ...base, providerLayer: 'RUN true' }, fleetConfigSchema).config).toMatchObject({ providerImage: '', maxHoldSeconds: 3600 });
    // The tenant-layer default is the per-HCP package's (its Template's TENANT_LAYER_DEFAULT), not the fleet's.
    expect(admitConfig({ ...base, providerLayer: 'RUN true', tenantLayerDefault: 'Enabled' }, fleetConfigSchema).config).not.toHaveProperty('tenantLayerDefault');
    expect(fleetConfigSchema.properties).not.toHaveProperty('tenantLayerDefault');
    expect(errors({ ...base, providerImage: 'quay.io/provider/os:latest' })).toContain('spec.config.providerImage');
    expect(errors({ ...base, providerLayer: 'RUN true', image: 'quay.io/app-sre/on-cluster-build:latest' })).toContain('spec.config.image');
    expect(errors({ ...base, providerLayer: 'RUN true', providerRepository: 'quay.io/provider/os:tag' })).toContain('spec.config.providerRepository');
    expect(errors({ ...base, providerLayer: 'RUN true', providerRepository: 'os' })).toContain('spec.config.providerRepository');
    expect(errors({ ...base, providerLayer: 'RUN true', maxHoldSeconds: 10 })).toContain('spec.config.maxHoldSeconds');
    expect(errors({ ...base, providerLayer: 'x'.repeat(65537) })).toContain('spec.config.providerLayer');
    expect(admitConfig({ ...base, providerLayer: 'RUN true' }, fleetConfigSchema).config).toMatchObject({ providerTrustBundleConfigMap: '', buildPlacement: '' });
    expect(errors({ ...base, providerLayer: 'RUN true', providerTrustBundleConfigMap: 'Provider CA' })).toContain('spec.config.providerTrustBundleConfigMap');
    expect(errors({ ...base, providerLayer: 'RUN true', buildPlacement: `{"arm64":{"nodeSelector":{"a":"it's"}}}` })).toContain('spec.config.buildPlacement');
    expect(errors({ ...base, providerLayer: 'RUN true', buildPlacement: '{"arm64":{\n}}' })).toContain('spec.config.buildPlacement');
  });

  test('exactly one of providerLayer and providerImage, or the render fails with one message', async () => {
    const { pkg } = await rendered();
    const tc = pkg.manifest.test!.template!.find((t) => t.name === 'fleet-layer')!;
    const render = (config: Record<string, unknown>) => {
      try {
        const r = renderPackage(testCaseRequest(pkg, { ...tc, context: { ...tc.context, config: { image: IMAGE, providerRepository: 'quay.io/provider/os', ...config } } }));
        return r.configErrors.length ? `config: ${JSON.stringify(r.configErrors)}` : 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(render({ providerLayer: 'RUN true' })).toBe('ok');
    expect(render({ providerImage: `quay.io/provider/os@${D('5')}` })).toBe('ok');
    for (const c of [{}, { providerLayer: '', providerImage: '' }, { providerLayer: 'RUN true', providerImage: `quay.io/provider/os@${D('5')}` }]) {
      expect(render(c)).toContain(EXACTLY_ONE);
    }
  });

  test('its RBAC is exactly builder/fleet/rbac.ts, bound to the fleet ServiceAccount', () => {
    const objs = fleetDefinition().objects.map((o) => o.object as any);
    const one = (kind: string) => {
      const xs = objs.filter((o) => o.kind === kind);
      expect(xs).toHaveLength(1);
      return xs[0];
    };
    expect(one('ClusterRole').rules).toEqual(norm(FLEET_CLUSTER_RULES));
    const subject = [{ kind: 'ServiceAccount', name: FLEET_SERVICE_ACCOUNT, namespace: FLEET_NAMESPACE }];
    expect(one('ClusterRoleBinding').subjects).toEqual(subject);
    // Two Roles, each bound to the fleet ServiceAccount: its own namespace (Lease, push Secret) and
    // the build namespace (build Jobs and their volumes). The build namespace's other binding is
    // the build ServiceAccount's SCC (below).
    const roles = objs.filter((o) => o.kind === 'Role');
    expect(roles.map((r) => r.metadata.namespace).sort()).toEqual([FLEET_NAMESPACE, FLEET_BUILD_NAMESPACE].sort());
    const roleIn = (ns: string) => roles.find((r) => r.metadata.namespace === ns);
    expect(roleIn(FLEET_NAMESPACE).rules).toEqual(norm(FLEET_NAMESPACE_RULES));
    expect(roleIn(FLEET_BUILD_NAMESPACE).rules).toEqual(norm(FLEET_BUILD_NAMESPACE_RULES));
    const fleetBindings = objs.filter((o) => o.kind === 'RoleBinding' && o.roleRef.kind === 'Role');
    expect(fleetBindings.map((b) => b.metadata.namespace).sort()).toEqual([FLEET_NAMESPACE, FLEET_BUILD_NAMESPACE].sort());
    for (const b of fleetBindings) {
      expect(b.subjects).toEqual(subject);
      expect(b.roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: roleIn(b.metadata.namespace).metadata.name });
    }
    expect(one('ClusterRoleBinding').roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: one('ClusterRole').metadata.name });
    expect(one('Deployment').spec.template.spec.serviceAccountName).toBe(FLEET_SERVICE_ACCOUNT);
    // No wildcard, no escalation verb anywhere.
    for (const r of [...FLEET_CLUSTER_RULES, ...FLEET_NAMESPACE_RULES, ...FLEET_BUILD_NAMESPACE_RULES, ...HANDOFF_RULES]) {
      for (const x of [...r.verbs, ...r.resources, ...r.apiGroups]) expect(x).not.toBe('*');
      for (const v of ['escalate', 'bind', 'impersonate']) expect(r.verbs).not.toContain(v);
    }
  });

  test("a provider build's pod is admitted where it runs: its namespace, ServiceAccount, SCC binding and PriorityClass are the package's", async () => {
    // The build Job as the fleet process makes it (builder/fleet/provider-build.ts: buildJob, in
    // the --build-namespace the Deployment passes), and every name below read from that Job.
    const { cases } = await rendered();
    const deployment = cases['fleet-layer'].objects.find((o) => o.object.kind === 'Deployment')!.object as any;
    const flags = parseCommand('fleet', deployment.spec.template.spec.containers[0].args.slice(1), { POD_NAMESPACE: FLEET_NAMESPACE });
    const input: BuildJobInput = {
      namespace: String(flags['build-namespace']),
      jobName: 'provider-ocb-x',
      buildName: 'ocb-x',
      configName: 'provider-layer',
      nodePool: 'provider-layer',
      releaseImage: `quay.io/openshift-release-dev/ocp-release@${D('1')}`,
      baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('2')}`,
      builderImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('6')}`,
      pushTag: 'quay.io/provider/os-layered:ocb-x',
      containerfile: 'FROM configs AS final\n',
      activeDeadlineSeconds: 3600,
      backoffLimit: 2,
      arch: 'amd64',
    };
    const job = buildJob(input) as any;
    const pod = job.spec.template.spec;
    const ns = job.metadata.namespace;
    const objs = cases['fleet-layer'].objects.map((o) => o.object as any);
    const find = (kind: string, name: string, namespace?: string) => objs.filter((o) => o.kind === kind && o.metadata.name === name && o.metadata.namespace === namespace);
    const fleetNs = find('Namespace', FLEET_NAMESPACE)[0];

    // Not the fleet namespace: that one is restricted, which the build pod is not.
    expect(ns).not.toBe(FLEET_NAMESPACE);
    expect(fleetNs.metadata.labels['pod-security.kubernetes.io/enforce']).toBe('restricted');
    expect(podSecurityViolations(pod, 'restricted')).toEqual(['allowPrivilegeEscalation', 'capabilities_restricted', 'seccompProfile_restricted']);
    // Its own namespace: the lowest level that admits the pod, enforced, audited and warned.
    const [bns] = find('Namespace', ns);
    expect(bns).toBeDefined();
    const level = bns.metadata.labels['pod-security.kubernetes.io/enforce'];
    expect(level).toBe('baseline');
    expect(podSecurityViolations(pod, level)).toEqual([]);
    expect(bns.metadata.labels).toMatchObject({ 'pod-security.kubernetes.io/audit': level, 'pod-security.kubernetes.io/warn': level, 'security.openshift.io/scc.podSecurityLabelSync': 'false' });
    // Its ServiceAccount, without a token (the pod mounts none either).
    const [sa] = find('ServiceAccount', pod.serviceAccountName, ns);
    expect(sa).toMatchObject({ automountServiceAccountToken: false });
    expect(pod.automountServiceAccountToken).toBe(false);
    // The SCC the pod requires, bound to that ServiceAccount in that namespace only.
    const scc = job.spec.template.metadata.annotations['openshift.io/required-scc'];
    const sccBindings = objs.filter((o) => o.kind === 'RoleBinding' && o.roleRef.kind === 'ClusterRole');
    expect(sccBindings).toHaveLength(1);
    expect(sccBindings[0].metadata.namespace).toBe(ns);
    expect(sccBindings[0].roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `system:openshift:scc:${scc}` });
    expect(sccBindings[0].subjects).toEqual([{ kind: 'ServiceAccount', name: pod.serviceAccountName, namespace: ns }]);
    expect(objs.filter((o) => o.kind === 'ClusterRoleBinding').every((b) => b.roleRef.name !== `system:openshift:scc:${scc}`)).toBe(true);
    // Its PriorityClass, the tenant side's (same value, never preempting).
    const [pc] = find('PriorityClass', pod.priorityClassName);
    const tenant = buildNamespace().map((o) => o.object as any).find((o) => o.kind === 'PriorityClass');
    expect(pc).toMatchObject({ value: tenant.value, preemptionPolicy: 'Never', globalDefault: false });
    expect(tenant.metadata.name).toBe(pod.priorityClassName);
    // The fleet may run the build there: its Role in that namespace creates Jobs.
    const role = objs.find((o) => o.kind === 'Role' && o.metadata.namespace === ns);
    expect(role.rules).toContainEqual({ apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'create'] });
    // The namespace exists before anything is put in it.
    const phases = fleetDefinition().phases.map((p) => p.name);
    const phaseOf = (kind: string, name: string) => fleetDefinition().objects.find((o) => o.object.kind === kind && o.object.metadata.name === name)!.phase;
    expect(phases.indexOf(phaseOf('Namespace', ns))).toBeLessThan(phases.indexOf(phaseOf('ServiceAccount', pod.serviceAccountName)));
    expect(phases.indexOf(phaseOf('ServiceAccount', pod.serviceAccountName))).toBeLessThan(phases.indexOf('deploy'));
  });

  test('the per-HCP package binds HANDOFF_RULES to the fleet ServiceAccount in its HCP namespace only', () => {
    const objs = definition().objects.filter((o) => o.object.metadata.name === FLEET_HANDOFF_ROLE);
    expect(objs.map((o) => [o.phase, o.object.kind, o.object.metadata.namespace])).toEqual([
      ['rbac', 'Role', undefined], // the Package's own (HCP) namespace
      ['rbac', 'RoleBinding', undefined],
    ]);
    expect((objs[0].object as any).rules).toEqual(norm(HANDOFF_RULES));
    expect((objs[1].object as any).subjects).toEqual([{ kind: 'ServiceAccount', name: FLEET_SERVICE_ACCOUNT, namespace: FLEET_NAMESPACE }]);
    expect((objs[1].object as any).roleRef).toEqual({ apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: FLEET_HANDOFF_ROLE });
  });

  test('the mutating webhook: the fleet Service, service-ca, Fail, release changes of gated NodePools only', () => {
    const w = (fleetDefinition().objects.find((o) => o.object.kind === 'MutatingWebhookConfiguration')!.object as any);
    expect(w.metadata.annotations).toEqual({ 'service.beta.openshift.io/inject-cabundle': 'true' });
    const svc = fleetDefinition().objects.find((o) => o.object.kind === 'Service')!.object as any;
    expect(svc.metadata.annotations['service.beta.openshift.io/serving-cert-secret-name']).toBe('on-cluster-build-fleet-serving-cert');
    expect(w.webhooks).toHaveLength(1);
    expect(w.webhooks[0]).toMatchObject({
      clientConfig: { service: { namespace: FLEET_NAMESPACE, name: svc.metadata.name, path: '/mutate-nodepool', port: 443 } },
      rules: [{ apiGroups: ['hypershift.openshift.io'], operations: ['UPDATE'], resources: ['nodepools'] }],
      objectSelector: { matchLabels: { 'on-cluster-build.pkogen.io/upgrade-gate': 'true' } },
      failurePolicy: 'Fail',
      sideEffects: 'None',
    });
    // After the Deployment: PKO's availability probe gates the registration.
    const phases = fleetDefinition().phases.map((p) => p.name);
    expect(phases.indexOf('webhooks')).toBeGreaterThan(phases.indexOf('deploy'));
    expect(phases.indexOf('policies')).toBeLessThan(phases.indexOf('deploy'));
  });

  describe('its rollout Template', () => {
    const pkogen = (args: string[]) => {
      try {
        return { code: 0, out: execFileSync(process.execPath, ['pkogen/bin/pkogen.js', ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) };
      } catch (e) {
        const x = e as { status: number; stdout: string; stderr: string };
        return { code: x.status, out: `${x.stdout}${x.stderr}` };
      }
    };
    const params = (over: Record<string, string> = {}) =>
      Object.entries({ REGISTRY_IMG: 'quay.io/app-sre/on-cluster-build-fleet-package', ON_CLUSTER_BUILD_IMAGE: IMAGE, PROVIDER_REPOSITORY: 'quay.io/provider/os', PROVIDER_LAYER: 'RUN dnf install -y agent\nCOPY a b\n', ...over }).flatMap(([k, v]) => ['-p', `${k}=${v}`]);

    test('lints against the package and simulates on a management cluster', () => {
      const lint = pkogen(['lint-rollout', FLEET_ROLLOUT_PATH, '--package', FLEET_PACKAGE_DIR, ...params()]);
      expect(lint).toMatchObject({ code: 0 });
      expect(lint.out).toContain('0 error(s), 0 warning(s)');
      const sim = pkogen(['simulate', FLEET_ROLLOUT_PATH, '--package', FLEET_PACKAGE_DIR, '--hcp-namespaces', '2', '-o', 'json', ...params()]);
      expect(sim.code).toBe(0);
      const r = JSON.parse(sim.out);
      expect(r.totals).toMatchObject({ validPackages: 1, errors: 0 });
      // As the per-HCP package: from the service cluster (ACM hub) through the Policy to the
      // management cluster, where one ClusterPackage is created (no HCP namespace involved).
      expect(r.packages.map((p: any) => [p.serviceCluster, p.managementCluster, p.namespace, p.package.name])).toEqual([['sc-01', 'mc-01', '', fleetDefinition().name]]);
    });

    test('is the per-HCP chain: SelectorSyncSet on service clusters, ACM Policy placed on management clusters, a ClusterPackage in its ConfigurationPolicy', () => {
      const own = buildRolloutTemplate(fleetRolloutOptions()) as any;
      const perHcp = buildRolloutTemplate(rolloutOptions()) as any;
      const sss = own.objects[0];
      expect(sss.spec.clusterDeploymentSelector).toEqual(perHcp.objects[0].spec.clusterDeploymentSelector);
      expect(sss.spec.resources.map((r: any) => r.kind)).toEqual(perHcp.objects[0].spec.resources.map((r: any) => r.kind));
      expect(sss.spec.resources[1].spec).toEqual(perHcp.objects[0].spec.resources[1].spec);
      const cp = sss.spec.resources[0].spec['policy-templates'][0].objectDefinition;
      expect(cp.spec.namespaceSelector).toBeUndefined();
      const pkg = cp.spec['object-templates'][0].objectDefinition;
      expect([pkg.kind, pkg.metadata]).toEqual(['ClusterPackage', { name: fleetDefinition().name }]);
      expect(Object.keys(pkg.spec.config).sort()).toEqual(['image', 'maxHoldSeconds', 'providerLayer', 'providerRepository', 'rollout']);
    });

    test('fails on a config the package refuses', () => {
      const bad = pkogen(['simulate', FLEET_ROLLOUT_PATH, '--package', FLEET_PACKAGE_DIR, '--hcp-namespaces', '1', ...params({ MAX_HOLD_SECONDS: '10' })]);
      expect(bad.code).toBe(1);
      expect(bad.out).toContain('maxHoldSeconds');
      const noLayer = pkogen(['lint-rollout', FLEET_ROLLOUT_PATH, '--package', FLEET_PACKAGE_DIR, ...params({ PROVIDER_LAYER: '' })]);
      expect(noLayer.code).toBe(1);
    });
  });
});
