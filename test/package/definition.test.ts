import { toText, sortedPaths } from '../../pkogen/src/core/filemap.js';
import { buildPackage } from '../../pkogen/src/model/build-package.js';
import { parseAllYaml11 } from '../../pkogen/src/yaml/parse.js';
import { definition } from '../../resources/resources.js';

/**
 * Golden test: the whole generated package, file by file, so a reviewer sees every object the
 * bundle produces and every change to it.
 */
describe('the on-cluster-build package', () => {
  it('generates without findings', async () => {
    const pkg = await buildPackage(definition());
    expect(pkg.findings).toEqual([]);
  });

  it('matches the golden files', async () => {
    const pkg = await buildPackage(definition());
    for (const p of sortedPaths(pkg.files)) {
      expect(`# ${p}\n${toText(pkg.files.get(p)!)}`).toMatchSnapshot(p);
    }
  });

  it('puts every object in a declared phase: the hosted API first, the webhooks last', () => {
    const def = definition();
    expect(def.phases.map((p) => p.name)).toEqual(['hosted-api', 'rbac', 'deploy', 'hosted-webhooks']);
    expect(def.phases.map((p) => p.class)).toEqual(['hosted-cluster', undefined, undefined, 'hosted-cluster']);
    const kinds = (phase: string) => def.objects.filter((o) => o.phase === phase).map((o) => `${o.object.kind}/${o.object.metadata.name}${o.object.metadata.namespace ? ` @${o.object.metadata.namespace}` : ''}`).sort();
    expect(kinds('hosted-api')).toEqual([
      'ClusterRole/on-cluster-build-controller',
      'ClusterRoleBinding/on-cluster-build-controller',
      'CustomResourceDefinition/nodepoolosbuilds.on-cluster-build.pkogen.io',
      'CustomResourceDefinition/nodepoolosconfigs.on-cluster-build.pkogen.io',
      'Namespace/on-cluster-build-jobs',
      'Namespace/openshift-on-cluster-build',
      'PriorityClass/on-cluster-build-low',
      // One Role per hosted namespace the controller touches: its Events (default), the builds, the hosted pull secret (by name), the entitlement (by name), the push Secrets.
      'Role/on-cluster-build-controller @default',
      'Role/on-cluster-build-controller @on-cluster-build-jobs',
      'Role/on-cluster-build-controller @openshift-config',
      'Role/on-cluster-build-controller @openshift-config-managed',
      'Role/on-cluster-build-controller @openshift-on-cluster-build',
      'RoleBinding/on-cluster-build-builder-scc-anyuid @on-cluster-build-jobs',
      'RoleBinding/on-cluster-build-controller @default',
      'RoleBinding/on-cluster-build-controller @on-cluster-build-jobs',
      'RoleBinding/on-cluster-build-controller @openshift-config',
      'RoleBinding/on-cluster-build-controller @openshift-config-managed',
      'RoleBinding/on-cluster-build-controller @openshift-on-cluster-build',
      'ServiceAccount/on-cluster-build-builder @on-cluster-build-jobs',
      'ServiceAccount/on-cluster-build-controller @openshift-on-cluster-build',
    ]);
    expect(kinds('hosted-webhooks')).toEqual(['ValidatingWebhookConfiguration/on-cluster-build']);
  });

  it('grants the builder no wildcard and nothing cluster-wide', () => {
    const def = definition();
    const rbac = def.objects.filter((o) => o.phase === 'rbac').map((o) => o.object);
    // The controller's Role and binding, and the fleet component's hand-off Role bound to its ServiceAccount.
    expect(rbac.map((o) => o.kind).sort()).toEqual(['Role', 'Role', 'RoleBinding', 'RoleBinding', 'ServiceAccount', 'ServiceAccount']);
    expect(def.objects.filter((o) => o.phase !== 'hosted-api').map((o) => o.object.kind)).not.toContain('ClusterRole');
    const role = rbac.find((o) => o.kind === 'Role' && o.metadata.name === 'on-cluster-build-controller')!;
    const rules = role.rules as { apiGroups: string[]; resources: string[]; verbs: string[] }[];
    for (const r of rules) {
      expect(r.verbs).not.toContain('*');
      expect(r.resources).not.toContain('*');
      expect(r.apiGroups).not.toContain('*');
      for (const v of ['escalate', 'bind', 'impersonate']) expect(r.verbs).not.toContain(v);
    }
    const covered = new Set(rules.flatMap((r) => r.resources));
    // On the management side the controller reads NodePool facts and writes only the hand-off and its Lease:
    // no Job, Pod or anything of a tenant build runs in the HCP namespace.
    for (const res of ['secrets', 'configmaps', 'leases', 'machines', 'hostedcontrolplanes']) expect(covered.has(res)).toBe(true);
    for (const res of ['jobs', 'pods']) expect(covered.has(res)).toBe(false);
    // Secrets are only read there (token Secrets and the pull secret), never written.
    expect(rules.filter((r) => r.resources.includes('secrets')).flatMap((r) => r.verbs).sort()).toEqual(['list', 'watch']);
    // In the hosted build namespace, Pods are only read (their termination message carries the digest): no exec, no create.
    const hostedBuilds = def.objects.find((o) => o.object.kind === 'Role' && o.object.metadata.namespace === 'on-cluster-build-jobs')!.object.rules as { resources: string[]; verbs: string[] }[];
    expect(hostedBuilds.filter((r) => r.resources.includes('pods')).flatMap((r) => r.verbs).sort()).toEqual(['list', 'watch']);
  });

  it('static files are valid YAML with the phase annotation', async () => {
    const pkg = await buildPackage(definition());
    for (const p of sortedPaths(pkg.files)) {
      if (!p.endsWith('.yaml') || p === 'manifest.yaml') continue;
      for (const doc of parseAllYaml11(toText(pkg.files.get(p)!)) as { metadata: { annotations: Record<string, string> } }[]) {
        expect(doc.metadata.annotations['package-operator.run/phase']).toBeDefined();
      }
    }
  });

  it('webhooks call the HCP service by URL with the management CA and no CA injection', () => {
    const def = definition();
    for (const o of def.objects.filter((x) => x.phase === 'webhooks')) {
      expect((o.object.metadata.annotations as Record<string, string>)['service.beta.openshift.io/inject-cabundle']).toBe('false');
      for (const w of o.object.webhooks as { clientConfig: { url: string; caBundle: string } }[]) {
        expect(w.clientConfig.url).toMatch(/^https:\/\/on-cluster-build-webhook\.\{\{ \.package\.metadata\.namespace \}\}\.svc\.cluster\.local\/validate\//);
        expect(w.clientConfig.caBundle).toBe('{{ .config.serviceCA | b64enc }}');
      }
    }
  });
});
