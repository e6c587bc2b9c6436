/**
 * Pod Security and image pinning on a classic package (no hosted-cluster phase, no HyperShift
 * test case): each workload is held to the level of its namespace (the enforce label of the
 * Namespace the package ships, else restricted), and only what is set against it is reported:
 * OpenShift's restricted-v2 SCC fills in what is left unset.
 */
import { toBytes, type FileMap } from '../../src/core/filemap.js';
import type { Finding } from '../../src/core/errors.js';
import { validatePackage } from '../../src/pko/validate.js';
import { renderUntestedTemplates } from '../../src/pko/validate-template-tests.js';

/** As `pkogen validate` does: templates without a test case rendered once with the schema defaults. */
const validate = (fm: FileMap) => validatePackage(fm, { untestedTemplates: async (p, component) => renderUntestedTemplates(p, component, {}) });

const DIGEST = 'quay.io/app-sre/example@sha256:' + 'a'.repeat(64);

function pkg(opts: { nsLabels?: string; pod: string; image?: string; tests?: string; container?: string }): FileMap {
  const fm: FileMap = new Map();
  fm.set('manifest.yaml', toBytes(`apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: example\nspec:\n  scopes: [Cluster]\n  phases:\n  - name: namespace\n  - name: deploy\n  config:\n    openAPIV3Schema:\n      type: object\n      properties:\n        image: {type: string, default: None}\n${opts.tests ?? ''}`));
  fm.set('ns.yaml', toBytes(`apiVersion: v1\nkind: Namespace\nmetadata:\n  name: openshift-example\n  annotations:\n    package-operator.run/phase: namespace\n${opts.nsLabels ? `  labels:\n    ${opts.nsLabels}\n` : ''}`));
  fm.set('deploy.yaml.gotmpl', toBytes(`apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: example\n  namespace: openshift-example\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  selector:\n    matchLabels: {app: example}\n  template:\n    metadata:\n      labels: {app: example}\n    spec:\n${opts.pod}      containers:\n      - name: example\n        image: ${opts.image ?? DIGEST}\n${opts.container ?? ''}`));
  return fm;
}

const rules = (fs: Finding[]) => fs.filter((f) => f.rule.startsWith('pod-security/') || f.rule === 'image/not-pinned').map((f) => `${f.rule}: ${f.message}`).sort();

test('a classic package that pins its images and sets nothing against restricted is silent (the SCC fills in the rest)', async () => {
  expect(rules(await validate(pkg({ pod: '' })))).toEqual([]);
  // An in-cluster image stream tag, an image the test case's config gives, the schema default: none is the package's to pin.
  expect(rules(await validate(pkg({ pod: '', image: 'image-registry.openshift-image-registry.svc:5000/openshift/cli:latest' })))).toEqual([]);
  const tests = '  test:\n    template:\n    - name: t\n      context:\n        config:\n          image: quay.io/x/y:latest\n';
  expect(rules(await validate(pkg({ pod: '', image: "'{{ .config.image }}'", tests })))).toEqual([]);
  expect(rules(await validate(pkg({ pod: '', image: "'{{ .config.image }}'" })))).toEqual([]);
});

test('what a classic package sets against restricted, and a tag it writes itself, are warnings at their lines', async () => {
  const pod = '      hostNetwork: true\n      securityContext:\n        runAsUser: 0\n      volumes:\n      - name: h\n        hostPath: {path: /etc}\n';
  const fs = await validate(pkg({ pod, image: 'quay.io/x/y:v1' }));
  expect(rules(fs)).toEqual([
    'image/not-pinned: container "example" image quay.io/x/y:v1 is not pinned by digest (@sha256:…)',
    'pod-security/host-namespaces: hostNetwork is not allowed by Pod Security "restricted"',
    'pod-security/host-path: hostPath volumes are not allowed by Pod Security "restricted"',
    'pod-security/run-as-user: container "example" must not run as UID 0',
  ]);
  expect(fs.find((f) => f.rule === 'pod-security/host-namespaces')).toMatchObject({ severity: 'warning', file: 'deploy.yaml.gotmpl', path: 'spec.template.spec.hostNetwork' });
});

test('the Namespace the package ships decides the level: privileged is silent, baseline allows its default capabilities', async () => {
  const pod = '      hostNetwork: true\n';
  expect(rules(await validate(pkg({ pod, nsLabels: 'pod-security.kubernetes.io/enforce: privileged' })))).toEqual([]);
  const caps = (add: string) => ({ pod: '', container: `        securityContext:\n          allowPrivilegeEscalation: true\n          capabilities:\n            add: [${add}]\n` });
  const base = await validate(pkg({ ...caps('SYS_CHROOT, NET_ADMIN'), nsLabels: 'pod-security.kubernetes.io/enforce: baseline' }));
  expect(rules(base)).toEqual(['pod-security/capabilities: container "example" adds capability NET_ADMIN; only the default set is allowed by Pod Security "baseline"']);
  // A value that is no level is restricted (pod-security-admission's ParseLevel).
  const odd = await validate(pkg({ ...caps('SYS_CHROOT'), nsLabels: 'pod-security.kubernetes.io/enforce: strict' }));
  expect(rules(odd)).toEqual([
    'pod-security/capabilities: container "example" adds capability SYS_CHROOT; only NET_BIND_SERVICE is allowed by Pod Security "restricted"',
    'pod-security/privilege-escalation: container "example" sets allowPrivilegeEscalation: true, not allowed by Pod Security "restricted"',
  ]);
});
