/**
 * The package follows the controller: what PKO would render into an HCP namespace starts our own
 * image by digest with args our own parser accepts, gates on ready pods, and registers webhooks
 * only for kinds that exist in the hosted cluster.
 */
import * as path from 'node:path';
import { readDirToFileMap } from '../../pkogen/src/core/fs.js';
import { loadPackage } from '../../pkogen/src/pko/loader.js';
import { renderPackage } from '../../pkogen/src/pko/render.js';
import { testCaseRequest } from '../../pkogen/src/pko/template-tests.js';
import { commandHelp, parseCommand } from '../../builder/cli.js';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../../builder/api/crds.js';
import { WEBHOOK_PATHS } from '../../builder/webhook/server.js';
import { MANAGEMENT_RULES, HOSTED_RULES, HOSTED_NAMESPACED_RULES, EVENTS_NAMESPACE, HOSTED_EVENT_RULES } from '../../builder/policy/rbac.js';

const DIR = path.resolve('package');

async function rendered(testCase: string) {
  const pkg = loadPackage(await readDirToFileMap(DIR));
  const tc = pkg.manifest.test!.template!.find((t) => t.name === testCase)!;
  const r = renderPackage(testCaseRequest(pkg, tc));
  expect(r.configErrors).toEqual([]);
  return { pkg, objects: r.objects.map((o) => ({ phase: o.phase, obj: o.object as any })) };
}

describe('the package deploys our controller', () => {
  it.each(['hcp-typical', 'proxy-required-only'])('%s: every container is our image by digest, with args its own parser accepts', async (tc) => {
    const { objects } = await rendered(tc);
    const deployments = objects.filter((o) => o.obj.kind === 'Deployment');
    expect(deployments.map((d) => d.obj.metadata.name).sort()).toEqual(['on-cluster-build-controller', 'on-cluster-build-webhook']);
    let checked = 0;
    for (const d of deployments) {
      for (const c of d.obj.spec.template.spec.containers) {
        expect(c.image).toMatch(/^quay\.io\/app-sre\/on-cluster-build@sha256:[0-9a-f]{64}$/);
        expect(c.command).toEqual(['/usr/local/bin/on-cluster-build']);
        const [command, ...args] = c.args as string[];
        const env = Object.fromEntries((c.env ?? []).filter((e: any) => e.valueFrom).map((e: any) => [e.name, 'from-the-downward-api']));
        expect(() => parseCommand(command, args, env)).not.toThrow();
        for (const a of args) expect(commandHelp(command)).toContain(`--${a.slice(2).split('=')[0]}`);
        checked++;
      }
    }
    expect(checked).toBe(3); // control-plane, token-minter, webhook
  });

  it('renders the per-HCP build settings into the controller args', async () => {
    const { objects } = await rendered('hcp-typical');
    const c = objects.find((o) => o.obj.kind === 'Deployment' && o.obj.metadata.name === 'on-cluster-build-controller')!.obj.spec.template.spec.containers[0];
    expect(c.args[0]).toBe('control-plane');
    const flags = parseCommand('control-plane', c.args.slice(1), { POD_NAMESPACE: 'clusters-banana' });
    expect(flags).toMatchObject({ port: 8443, 'tls-cert-file': '/var/run/serving-cert/tls.crt', 'build-active-deadline-seconds': 7200, 'build-history-limit': 5, 'build-user-namespaces': true, 'leader-elect': true, namespace: 'clusters-banana' });
  });

  it("renders the tenant-layer switch from the HostedCluster's annotation, else the package default, into the controller and the webhook", async () => {
    const pkg = loadPackage(await readDirToFileMap(DIR));
    const base = pkg.manifest.test!.template!.find((t) => t.name === 'hcp-typical')!;
    const layerOf = (annotations: Record<string, string> | undefined, tenantLayerDefault?: string) => {
      const tc = JSON.parse(JSON.stringify(base));
      tc.context.environment.hyperShift.hostedCluster.metadata.annotations = annotations;
      if (tenantLayerDefault === undefined) delete tc.context.config.tenantLayerDefault;
      else tc.context.config.tenantLayerDefault = tenantLayerDefault;
      let r;
      try {
        r = renderPackage(testCaseRequest(pkg, tc));
      } catch (e) {
        return `error: ${(e as Error).message}`;
      }
      const seen = new Set<string>();
      for (const name of ['on-cluster-build-controller', 'on-cluster-build-webhook']) {
        const d = r.objects.find((o) => (o.object as any).kind === 'Deployment' && (o.object as any).metadata.name === name)!.object as any;
        const c = d.spec.template.spec.containers[0];
        seen.add(String(parseCommand(c.args[0], c.args.slice(1), { POD_NAMESPACE: 'clusters-banana' })['tenant-layer']));
      }
      return [...seen].join(',');
    };
    const A = 'on-cluster-build.pkogen.io/tenant-layer';
    expect(layerOf(undefined)).toBe('Disabled'); // off by default (the provider opts in)
    expect(layerOf(undefined, 'Enabled')).toBe('Enabled');
    expect(layerOf({ [A]: 'Enabled' })).toBe('Enabled');
    expect(layerOf({ [A]: 'Disabled' }, 'Enabled')).toBe('Disabled');
    expect(layerOf({ other: 'x' }, 'Enabled')).toBe('Enabled');
    expect(layerOf({ [A]: 'yes' })).toMatch(/^error: .*HostedCluster annotation on-cluster-build\.pkogen\.io\/tenant-layer takes Enabled or/);
  });

  it('an empty flag value is the default only where the default is empty', () => {
    const env = { POD_NAMESPACE: 'clusters-banana' };
    expect(parseCommand('controller', ['--hosted-kubeconfig=/k', '--registry-allow='], env)['registry-allow']).toBe('');
    expect(() => parseCommand('controller', ['--hosted-kubeconfig='], env)).toThrow('--hosted-kubeconfig must not be empty');
    expect(() => parseCommand('controller', ['--hosted-kubeconfig=/k', '--pull-secret-name='], env)).toThrow('--pull-secret-name must not be empty');
  });

  it('keeps no fleet-wide MCO image anywhere', async () => {
    const fm = await readDirToFileMap(DIR);
    const all = [...fm.values()].map((b) => Buffer.from(b).toString('utf8')).join('\n');
    expect(all).not.toMatch(/machineOSBuilderImage|machine-os-builder|MACHINE_OS_BUILDER/);
  });

  it('gates on ready pods: maxUnavailable 0 for the controller, availableReplicas == replicas', async () => {
    const { pkg, objects } = await rendered('hcp-typical');
    const ctl = objects.find((o) => o.obj.kind === 'Deployment' && o.obj.metadata.name === 'on-cluster-build-controller')!.obj;
    expect(ctl.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
    const probes = JSON.stringify(pkg.manifest.spec.availabilityProbes);
    expect(probes).toContain('.status.availableReplicas');
  });

  it('serves admission from two pods on two nodes, whatever the availability policy: the controller pod (control-plane) and one webhook pod without API access', async () => {
    for (const tc of ['hcp-typical', 'proxy-required-only']) {
      // hcp-typical: SingleReplica; proxy-required-only: the default, HighlyAvailable.
      const { objects } = await rendered(tc);
      const find = (kind: string, name = 'on-cluster-build-webhook') => objects.find((o) => o.obj.kind === kind && o.obj.metadata.name === name)!.obj;
      const wh = find('Deployment');
      const ctl = find('Deployment', 'on-cluster-build-controller');
      expect([ctl.spec.replicas, wh.spec.replicas]).toEqual([1, 1]);
      // One label on both pod templates; the Service, the PDB and the anti-affinity select it.
      const admission = { 'on-cluster-build.pkogen.io/admission': 'serving' };
      for (const d of [ctl, wh]) {
        expect(d.spec.template.metadata.labels).toMatchObject(admission);
        const anti = d.spec.template.spec.affinity.podAntiAffinity;
        expect(anti.requiredDuringSchedulingIgnoredDuringExecution).toEqual([{ labelSelector: { matchLabels: admission }, topologyKey: 'kubernetes.io/hostname' }]);
        expect(anti.preferredDuringSchedulingIgnoredDuringExecution[0].podAffinityTerm).toEqual({ labelSelector: { matchLabels: admission }, topologyKey: 'topology.kubernetes.io/zone' });
        // The Service's target port, ready only once admission is served.
        const c = d.spec.template.spec.containers[0];
        expect(c.ports.find((p: any) => p.name === 'https')).toEqual({ name: 'https', containerPort: 8443, protocol: 'TCP' });
        expect(c.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'https', scheme: 'HTTPS' });
        expect(d.spec.strategy.rollingUpdate).toEqual({ maxSurge: 1, maxUnavailable: 0 });
      }
      expect(find('Service').spec.selector).toEqual(admission);
      expect(find('PodDisruptionBudget').spec).toEqual({ maxUnavailable: 1, selector: { matchLabels: admission }, unhealthyPodEvictionPolicy: 'AlwaysAllow' });
      // Every admission replica reads the same serving certificate and pull keys.
      for (const d of [ctl, wh]) expect(d.spec.template.spec.volumes.filter((v: any) => ['serving-cert', 'pull-keys'].includes(v.name)).map((v: any) => v.name)).toEqual(['serving-cert', 'pull-keys']);
      expect(wh.spec.template.spec.automountServiceAccountToken).toBe(false);
      expect(wh.spec.template.metadata.labels['hypershift.openshift.io/need-management-kas-access']).toBeUndefined();
      expect(JSON.stringify(wh.spec.template.spec.volumes)).not.toContain('service-network-admin-kubeconfig');
      expect(ctl.spec.template.metadata.labels['hypershift.openshift.io/need-management-kas-access']).toBe('true');
      // Only the token minter sees the admin kubeconfig.
      const mounts = (name: string) => JSON.stringify(ctl.spec.template.spec.containers.find((c: any) => c.name === name).volumeMounts);
      expect(mounts('token-minter')).toContain('hosted-admin-kubeconfig');
      expect(mounts('control-plane')).not.toContain('hosted-admin-kubeconfig');
    }
  });

  it('requests at most 200 MiB of memory per HCP namespace, and every V8 heap cap fits its container limit', async () => {
    for (const tc of ['hcp-typical', 'proxy-required-only']) {
      const { objects } = await rendered(tc);
      const mi = (q: string) => {
        expect(q).toMatch(/^\d+Mi$/);
        return parseInt(q, 10);
      };
      let requested = 0;
      for (const d of objects.filter((o) => o.obj.kind === 'Deployment').map((o) => o.obj)) {
        for (const c of d.spec.template.spec.containers) {
          requested += d.spec.replicas * mi(c.resources.requests.memory);
          const opts = String((c.env ?? []).find((e: any) => e.name === 'NODE_OPTIONS')?.value ?? '');
          const flag = (k: string) => Number(new RegExp(`--${k}=(\\d+)`).exec(opts)?.[1] ?? 0);
          // Old space plus the young generation (3 semi-spaces) below the limit: the heap collects before the cgroup kills.
          expect(flag('max-old-space-size') + 3 * flag('max-semi-space-size')).toBeLessThan(mi(c.resources.limits.memory));
          expect(mi(c.resources.requests.memory)).toBeLessThan(mi(c.resources.limits.memory));
        }
      }
      expect(requested).toBeLessThanOrEqual(200);
    }
  });

  it('registers webhooks only for our own kinds, which the package installs in the hosted cluster', async () => {
    const { objects } = await rendered('hcp-typical');
    const hostedKinds = new Set(objects.filter((o) => o.phase === 'hosted-api' && o.obj.kind === 'CustomResourceDefinition').map((o) => `${o.obj.spec.group}/${o.obj.spec.names.plural}`));
    expect(hostedKinds).toEqual(new Set([`${(nodePoolOSConfigCRD() as any).spec.group}/nodepoolosconfigs`, `${(nodePoolOSBuildCRD() as any).spec.group}/nodepoolosbuilds`]));
    const vwcs = objects.filter((o) => o.obj.kind === 'ValidatingWebhookConfiguration');
    expect(vwcs.every((o) => o.phase === 'hosted-webhooks')).toBe(true);
    const hooks = vwcs.flatMap((o) => o.obj.webhooks);
    expect(hooks.length).toBe(2);
    for (const h of hooks) {
      // A kind and its status subresource (`nodepoolosbuilds/status`).
      for (const r of h.rules) for (const res of r.resources) for (const g of r.apiGroups) expect(hostedKinds.has(`${g}/${res.split('/')[0]}`)).toBe(true);
      expect(Object.values(WEBHOOK_PATHS)).toContain(new URL(h.clientConfig.url).pathname);
      expect(h.failurePolicy).toBe('Fail');
    }
  });

  it("renders the Roles from the controller's own tables", async () => {
    const { objects } = await rendered('hcp-typical');
    const role = (kind: string, phase: string) => objects.find((o) => o.obj.kind === kind && o.phase === phase)!.obj.rules;
    const plain = (rs: readonly any[]) => JSON.parse(JSON.stringify(rs));
    expect(role('Role', 'rbac')).toEqual(plain(MANAGEMENT_RULES));
    expect(role('ClusterRole', 'hosted-api')).toEqual(plain(HOSTED_RULES));
    // One Role per hosted namespace the controller touches, each from its table (and the Events one); no other.
    const hostedRoles = objects.filter((o) => o.obj.kind === 'Role' && o.phase === 'hosted-api');
    expect(Object.fromEntries(hostedRoles.map((o) => [o.obj.metadata.namespace, o.obj.rules]))).toEqual(JSON.parse(JSON.stringify({ ...HOSTED_NAMESPACED_RULES, [EVENTS_NAMESPACE]: HOSTED_EVENT_RULES })));
    // Nothing of a tenant build on the management side: no Job, Pod or Secret writes there.
    const mgmt = plain(MANAGEMENT_RULES) as { resources: string[]; verbs: string[] }[];
    expect(mgmt.filter((r) => r.resources.some((x) => ['jobs', 'pods', 'secrets'].includes(x)) && r.verbs.some((v) => ['create', 'update', 'patch', 'delete'].includes(v)))).toEqual([]);
  });
});
