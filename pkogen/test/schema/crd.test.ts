import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UserError } from '../../src/core/errors.js';
import { createSchemaRegistry } from '../../src/schema/registry.js';

const registry = createSchemaRegistry();

/** The located one-line text of the UserError fn throws. */
function userError(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof UserError) return e.describe();
    throw e;
  }
  throw new Error('expected a UserError');
}
const issues = (obj: unknown, r = registry): string[] => r.validate(obj).issues.map((i) => `${i.path}: ${i.message}`);

const PKO = 'package-operator.run/v1alpha1';
const image = 'quay.io/app-sre/demo-package@sha256:' + 'b'.repeat(64);

const valid: Record<string, unknown> = {
  Package: { apiVersion: PKO, kind: 'Package', metadata: { name: 'demo', namespace: 'ocm-prod-abc' }, spec: { image, config: { replicas: 2, nested: { any: ['thing'] } } } },
  ClusterPackage: { apiVersion: PKO, kind: 'ClusterPackage', metadata: { name: 'demo' }, spec: { image, component: 'hosted-cluster', paused: false } },
  ObjectTemplate: {
    apiVersion: PKO, kind: 'ObjectTemplate', metadata: { name: 'demo', namespace: 'ocm-prod-abc' },
    spec: {
      template: 'apiVersion: package-operator.run/v1alpha1\nkind: Package\nmetadata:\n  name: demo\nspec:\n  image: x\n  config: {{ toJson .config }}\n',
      sources: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'openshift-service-ca.crt', items: [{ key: ".data['service-ca\\.crt']", destination: '.serviceca' }] }],
    },
  },
  HostedClusterPackage: {
    apiVersion: PKO, kind: 'HostedClusterPackage', metadata: { name: 'demo' },
    spec: {
      hostedClusterSelector: { matchLabels: { 'api.openshift.com/environment': 'production' } },
      strategy: { rollingUpgrade: { maxUnavailable: 2 } },
      partition: { labelKey: 'rollout-group', order: { static: ['canary', '*'] } },
      template: { metadata: { labels: { a: 'b' } }, spec: { image, config: { a: 1 } } },
    },
  },
  ObjectSet: {
    apiVersion: PKO, kind: 'ObjectSet', metadata: { name: 'demo', namespace: 'demo' },
    spec: {
      lifecycleState: 'Active',
      phases: [{ name: 'deploy', objects: [{ object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { a: 'b' } } }] }],
      availabilityProbes: [{ selector: { kind: { group: 'apps', kind: 'Deployment' } }, probes: [{ condition: { type: 'Available', status: 'True' } }] }],
    },
  },
  Policy: {
    apiVersion: 'policy.open-cluster-management.io/v1', kind: 'Policy', metadata: { name: 'demo', namespace: 'openshift-acm-policies' },
    spec: {
      remediationAction: 'enforce', disabled: false,
      'policy-templates': [{ objectDefinition: { apiVersion: 'policy.open-cluster-management.io/v1', kind: 'ConfigurationPolicy', metadata: { name: 'demo' }, spec: { 'object-templates': [] } } }],
    },
  },
  ConfigurationPolicy: {
    apiVersion: 'policy.open-cluster-management.io/v1', kind: 'ConfigurationPolicy', metadata: { name: 'demo', namespace: 'local-cluster' },
    spec: {
      namespaceSelector: { matchLabels: { 'hypershift.openshift.io/hosted-control-plane': 'true' } },
      pruneObjectBehavior: 'DeleteIfCreated', remediationAction: 'enforce', severity: 'low',
      evaluationInterval: { compliant: '2h', noncompliant: '45s' },
      'object-templates': [{ complianceType: 'MustHave', objectDefinition: { apiVersion: PKO, kind: 'Package', metadata: { name: 'demo' }, spec: { image } } }],
    },
  },
  PlacementRule: {
    apiVersion: 'apps.open-cluster-management.io/v1', kind: 'PlacementRule', metadata: { name: 'demo', namespace: 'openshift-acm-policies' },
    spec: { clusterSelector: { matchExpressions: [{ key: 'hypershift.open-cluster-management.io/management-cluster', operator: 'In', values: ['true'] }] } },
  },
  Placement: {
    apiVersion: 'cluster.open-cluster-management.io/v1beta1', kind: 'Placement', metadata: { name: 'demo', namespace: 'openshift-acm-policies' },
    spec: { clusterSets: ['global'], predicates: [{ requiredClusterSelector: { labelSelector: { matchLabels: { 'hypershift.open-cluster-management.io/management-cluster': 'true' } } } }], tolerations: [{ key: 'cluster.open-cluster-management.io/unreachable', operator: 'Exists' }] },
  },
  PlacementBinding: {
    apiVersion: 'policy.open-cluster-management.io/v1', kind: 'PlacementBinding', metadata: { name: 'demo', namespace: 'openshift-acm-policies' },
    placementRef: { name: 'demo', kind: 'PlacementRule', apiGroup: 'apps.open-cluster-management.io' },
    subjects: [{ name: 'demo', kind: 'Policy', apiGroup: 'policy.open-cluster-management.io' }],
  },
  ManagedClusterSetBinding: { apiVersion: 'cluster.open-cluster-management.io/v1beta2', kind: 'ManagedClusterSetBinding', metadata: { name: 'global', namespace: 'openshift-acm-policies' }, spec: { clusterSet: 'global' } },
  PolicySet: { apiVersion: 'policy.open-cluster-management.io/v1beta1', kind: 'PolicySet', metadata: { name: 'demo', namespace: 'openshift-acm-policies' }, spec: { description: 'd', policies: ['demo'] } },
  SelectorSyncSet: {
    apiVersion: 'hive.openshift.io/v1', kind: 'SelectorSyncSet', metadata: { name: 'demo' },
    spec: { clusterDeploymentSelector: { matchLabels: { 'ext-hypershift.openshift.io/cluster-type': 'service-cluster' } }, resourceApplyMode: 'Sync', resources: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }] },
  },
  MachineOSConfig: {
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSConfig', metadata: { name: 'worker' },
    spec: {
      machineConfigPool: { name: 'worker' },
      imageBuilder: { imageBuilderType: 'Job' },
      renderedImagePushSecret: { name: 'push-secret' },
      renderedImagePushSpec: 'image-registry.openshift-image-registry.svc:5000/openshift-machine-config-operator/os-image:latest',
      containerFile: [{ containerfileArch: 'NoArch', content: 'FROM configs AS final\nRUN dnf install -y tmux\n' }],
    },
  },
  MachineOSBuild: {
    apiVersion: 'machineconfiguration.openshift.io/v1', kind: 'MachineOSBuild', metadata: { name: 'worker-abc' },
    spec: { machineConfig: { name: 'rendered-worker-abc' }, machineOSConfig: { name: 'worker' }, renderedImagePushSpec: 'quay.io/example/os-image:worker-abc' },
  },
};

describe('bundled CRDs', () => {
  test.each(Object.entries(valid))('valid %s passes', (_kind, obj) => {
    const r = registry.validate(obj);
    expect(r).toMatchObject({ known: true, source: 'crd' });
    expect(r.issues).toEqual([]);
  });

  test('typos are unknown fields with their path', () => {
    const p = structuredClone(valid.HostedClusterPackage) as any;
    p.spec.template.spec.imagee = p.spec.template.spec.image;
    delete p.spec.template.spec.image;
    p.spec.strategy.rollingUpgrade.maxUnavaliable = 1;
    expect(issues(p).sort()).toEqual([
      'spec.strategy.rollingUpgrade.maxUnavaliable: unknown field "maxUnavaliable" (did you mean "maxUnavailable"?)',
      'spec.template.spec.image: missing required field "image"',
      'spec.template.spec.imagee: unknown field "imagee" (did you mean "image"?)',
    ]);
    const b = structuredClone(valid.PlacementBinding) as any;
    b.spec = { placementRef: b.placementRef };
    expect(issues(b)).toEqual(['spec: unknown field "spec"']);
  });

  test('a required field with a CRD default is not missing (the API server defaults before validating)', () => {
    const c = structuredClone(valid.ConfigurationPolicy) as any;
    delete c.spec.remediationAction;
    expect(issues(c)).toEqual([]);
    delete c.spec['object-templates'][0].complianceType; // required, no default
    expect(issues(c)).toEqual(['spec.object-templates[0].complianceType: missing required field "complianceType"']);
  });

  test('preserve-unknown-fields: anything goes below it (Package config, ConfigurationPolicy objectDefinition)', () => {
    const p = structuredClone(valid.Package) as any;
    p.spec.config = { whatever: { deep: [1, { x: null }] }, Typo: true };
    expect(issues(p)).toEqual([]);
  });

  test('embedded resources: apiVersion/kind/metadata allowed, metadata checked', () => {
    const o = structuredClone(valid.ObjectSet) as any;
    o.spec.phases[0].objects[0].object.metadata.labels = { 'bad key!': 'x' };
    expect(issues(o)).toEqual([
      expect.stringMatching(/^spec\.phases\[0\]\.objects\[0\]\.object\.metadata\.labels\["bad key!"\]: invalid key: must be a qualified name/),
    ]);
  });

  test('embedded resources need apiVersion and kind', () => {
    const o = structuredClone(valid.ObjectSet) as any;
    delete o.spec.phases[0].objects[0].object.apiVersion;
    expect(issues(o)).toEqual(['spec.phases[0].objects[0].object.apiVersion: missing required field "apiVersion"']);
  });

  test('every served version of every bundled CRD compiles', () => {
    const kinds = [
      'Package', 'ClusterPackage', 'HostedClusterPackage', 'ObjectTemplate', 'ClusterObjectTemplate', 'ObjectDeployment',
      'ClusterObjectDeployment', 'ObjectSet', 'ClusterObjectSet', 'ObjectSetPhase', 'ClusterObjectSetPhase', 'ObjectSlice', 'ClusterObjectSlice',
    ];
    for (const k of kinds) expect(registry.notes(PKO, k)).toMatchObject({ droppedPatterns: [] });
    for (const [av, k] of [
      ['policy.open-cluster-management.io/v1', 'Policy'], ['policy.open-cluster-management.io/v1', 'ConfigurationPolicy'],
      ['policy.open-cluster-management.io/v1', 'PlacementBinding'], ['policy.open-cluster-management.io/v1beta1', 'PolicySet'],
      ['apps.open-cluster-management.io/v1', 'PlacementRule'], ['cluster.open-cluster-management.io/v1beta1', 'Placement'],
      ['cluster.open-cluster-management.io/v1beta2', 'ManagedClusterSetBinding'], ['hive.openshift.io/v1', 'SelectorSyncSet'],
      ['machineconfiguration.openshift.io/v1', 'MachineOSConfig'], ['machineconfiguration.openshift.io/v1', 'MachineOSBuild'],
    ]) {
      expect(registry.knows(av!, k!)).toBe(true);
      expect(registry.notes(av!, k!)).toBeDefined();
    }
  });

  test('list types: set items and map keys must be unique', () => {
    const h = structuredClone(valid.HostedClusterPackage) as any;
    h.spec.partition.order.static = ['canary', 'canary'];
    expect(issues(h)).toEqual(['spec.partition.order.static: duplicate entry: items 0 and 1 are identical (the list is a set)']);
    const m = structuredClone(valid.MachineOSConfig) as any;
    m.spec.containerFile.push({ containerfileArch: 'NoArch', content: 'RUN true' });
    expect(issues(m)).toEqual(['spec.containerFile: duplicate entry: items 0 and 1 both have containerfileArch="NoArch"']);
  });

  test('enums and wrong types', () => {
    const b = structuredClone(valid.PlacementBinding) as any;
    b.placementRef.kind = 'Placementrule';
    b.subjects[0].name = 5;
    expect(issues(b)).toEqual([
      'placementRef.kind: must be one of "PlacementRule", "Placement"; got string "Placementrule"',
      'subjects[0].name: must be string, got integer 5',
    ]);
  });

  test('apiVersion and kind must match the schema found; metadata strict', () => {
    const p = structuredClone(valid.Package) as any;
    p.metadata.nmae = 'x';
    expect(issues(p)).toEqual(['metadata.nmae: unknown field "nmae" (did you mean "name"?)']);
    delete p.metadata.nmae;
    p.metadata.name = 'Demo';
    expect(issues(p)[0]).toMatch(/^metadata\.name: must be a lowercase RFC 1123 subdomain/);
  });

  test('CEL rules (x-kubernetes-validations) with standard CEL are evaluated', () => {
    const m = structuredClone(valid.MachineOSConfig) as any;
    m.spec.renderedImagePushSpec = 'not a pullspec';
    expect(issues(m)).toEqual([
      expect.stringMatching(/^spec\.renderedImagePushSpec: /),
    ]);
    const h = structuredClone(valid.HostedClusterPackage) as any;
    h.spec.partition.order.static = ['*', 'a', '*'];
    expect(issues(h)).toEqual([
      "spec.partition.order.static: catch all '*' group may only be used once",
      'spec.partition.order.static: duplicate entry: items 0 and 2 are identical (the list is a set)',
    ]);
    h.spec.partition.order.static = ['bad value!'];
    expect(issues(h)).toHaveLength(1);
    h.spec.partition.order.static = Array.from({ length: 21 }, (_, i) => `g${i}`);
    expect(issues(h)).toEqual(['spec.partition.order.static: must have at most 20 items']);
  });

  test("Kubernetes' format library idiom (!format.dns1123Subdomain().validate(x).hasValue()) is evaluated", () => {
    const m = structuredClone(valid.MachineOSConfig) as any;
    m.spec.machineConfigPool.name = 'Not_A_Subdomain';
    expect(issues(m)).toEqual([
      "spec.machineConfigPool.name: a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character.",
    ]);
    const notes = registry.notes('machineconfiguration.openshift.io/v1', 'MachineOSConfig');
    expect(notes?.celRules).toBeGreaterThan(0);
  });

  test('scopes come from the CRDs', () => {
    expect(registry.scopeOf(PKO, 'Package')).toBe('Namespaced');
    expect(registry.scopeOf(PKO, 'ClusterPackage')).toBe('Cluster');
    expect(registry.scopeOf(PKO, 'HostedClusterPackage')).toBe('Cluster');
    expect(registry.scopeOf('hive.openshift.io/v1', 'SelectorSyncSet')).toBe('Cluster');
    expect(registry.scopeOf('policy.open-cluster-management.io/v1', 'Policy')).toBe('Namespaced');
    expect(registry.scopeOf('machineconfiguration.openshift.io/v1', 'MachineOSConfig')).toBe('Cluster');
  });

  test('unknown kinds and versions are reported as unknown, not as errors', () => {
    expect(registry.validate({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'x' } })).toEqual({
      known: false, issues: [], reason: 'no schema for Widget in example.com/v1',
    });
    expect(registry.validate({ apiVersion: 'package-operator.run/v1', kind: 'Package', metadata: { name: 'x' } }).known).toBe(false);
    expect(registry.knows('example.com/v1', 'Widget')).toBe(false);
    expect(registry.knows(PKO, 'Package')).toBe(true);
    expect(registry.validate({ kind: 'Package' })).toMatchObject({ known: false, issues: [{ path: 'apiVersion', message: 'missing required field "apiVersion"' }] });
    expect(registry.validate('text').known).toBe(false);
  });
});

describe('extra CRD files (--crd)', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'pkogen-schema-'));
    mkdirSync(join(dir, 'nested'));
    writeFileSync(join(dir, 'nested', 'widgets.yaml'), WIDGET_CRD);
    writeFileSync(join(dir, 'notes.txt'), 'not yaml, ignored in directories');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const widget = (spec: unknown, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w', namespace: 'demo' }, spec, ...extra,
  });
  const base = { size: 3, port: 8080, mode: 'fast', labels: { a: 'b' }, payload: { free: [1] }, template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { anything: 1 } } };

  test('a directory of CRDs is read recursively; served versions only', () => {
    const r = createSchemaRegistry({ crdFiles: [dir] });
    expect(r.knows('example.com/v1', 'Widget')).toBe(true);
    expect(r.knows('example.com/v1alpha1', 'Widget')).toBe(false);
    expect(r.scopeOf('example.com/v1', 'Widget')).toBe('Namespaced');
    expect(r.scopeOf('example.com/v1', 'Gadget')).toBe('Cluster');
    expect(issues(widget(base), r)).toEqual([]);
  });

  test('CEL rules with oldSelf or Kubernetes-only libraries are skipped, never failed', () => {
    const r = createSchemaRegistry({ crdFiles: [dir] });
    // size differs from any "old" value and a is not a URL: neither rule can run offline.
    expect(issues(widget({ ...base, a: 'not a url' }), r)).toEqual([]);
    expect(r.celStats()).toEqual({ evaluated: 1, skipped: 2 });
    const off = createSchemaRegistry({ crdFiles: [dir], cel: false });
    expect(issues(widget({ ...base, size: 20 }), off)).toEqual([]);
    expect(off.celStats()).toEqual({ evaluated: 0, skipped: 0 });
  });

  test('conversion rules: int-or-string, nullable, enum, formats, patterns, preserve, embedded, oneOf, CEL', () => {
    const r = createSchemaRegistry({ crdFiles: [join(dir, 'nested', 'widgets.yaml')] });
    expect(issues(widget({ ...base, port: 'http' }), r)).toEqual([]);
    expect(issues(widget({ ...base, port: 1.5 }), r)).toEqual(['spec.port: must be integer or string, got number 1.5']);
    expect(issues(widget({ ...base, port: null }), r)).toEqual([]); // optional null = unset
    expect(issues(widget({ ...base, note: null }), r)).toEqual([]);
    expect(issues(widget({ ...base, items: ['a', null] }), r)).toEqual(['spec.items[1]: must be string, got null']);
    expect(issues(widget({ ...base, nitems: ['a', null] }), r)).toEqual([]); // items nullable: true
    expect(issues(widget({ ...base, mode: 'slow' }), r)).toEqual(['spec.mode: must be one of "fast", "safe"; got string "slow"']);
    expect(issues(widget({ ...base, mode: 'safe', size: 2 ** 31 }), r)).toEqual(['spec.size: must be a 32-bit integer; got integer 2147483648']);
    expect(issues(widget({ ...base, timeout: '1h30m' }), r)).toEqual([]);
    expect(issues(widget({ ...base, timeout: 'soon' }), r)[0]).toMatch(/^spec\.timeout: must be a duration/);
    expect(issues(widget({ ...base, when: 'yesterday' }), r)[0]).toMatch(/^spec\.when: must be an RFC 3339 date-time/);
    expect(issues(widget({ ...base, odd: 'anything' }), r)).toEqual([]); // unknown format ignored
    expect(issues(widget({ ...base, goRegex: 'anything' }), r)).toEqual([]); // Go-only regex not checked
    expect(issues(widget({ ...base, name: 'UPPER' }), r)).toEqual(['spec.name: must match the regular expression ^[a-z]+$; got string "UPPER"']);
    expect(issues(widget({ ...base, payload: { free: { x: 1 }, more: true } }), r)).toEqual([]);
    expect(issues(widget({ ...base, labels: { a: 1 } }), r)).toEqual(['spec.labels.a: must be string, got integer 1']);
    expect(issues(widget({ ...base, template: { ...base.template, metadata: { name: 'p', bogus: 1 } } }), r)).toEqual([
      'spec.template.metadata.bogus: unknown field "bogus"',
    ]);
    expect(issues(widget({ ...base, size: 0 }), r)).toEqual(['spec.size: must be >= 1; got integer 0']);
    expect(issues(widget({ ...base, size: 20 }), r)).toEqual(['spec: size must not exceed 10 in fast mode']);
    expect(issues(widget({ ...base, a: 'x', b: 'y' }), r)).toEqual([
      'spec: must match exactly one of the allowed forms, but matches several',
    ]);
    expect(issues(widget(base, { status: { ready: true } }), r)).toEqual([]);
    expect(issues(widget(base, { statuss: {} }), r)).toEqual(['statuss: unknown field "statuss" (did you mean "status"?)']);
    expect(r.notes('example.com/v1', 'Widget')).toEqual({ droppedPatterns: ['^(?i)[a-z]+$'], celRules: 3 });
  });

  test('a later CRD file overrides the bundled CRD of the same group/kind', () => {
    const file = join(dir, 'package-override.yaml');
    writeFileSync(file, PACKAGE_OVERRIDE);
    const r = createSchemaRegistry({ crdFiles: [file] });
    expect(r.knows(PKO, 'Package')).toBe(true);
    expect(r.knows('package-operator.run/v1', 'Package')).toBe(true);
    expect(issues(valid.Package, r).sort()).toEqual(['spec.config: unknown field "config"', 'spec.image: unknown field "image"']);
  });

  test('an overriding CRD replaces every version of the bundled one', () => {
    const file = join(dir, 'hcp-override.yaml');
    writeFileSync(file, PACKAGE_OVERRIDE.replace(/packages/g, 'hostedclusterpackages').replace(/kind: Package/, 'kind: HostedClusterPackage').replace(/v1alpha1/g, 'v1beta1').replace('scope: Namespaced', 'scope: Cluster'));
    const r = createSchemaRegistry({ crdFiles: [file] });
    expect(r.knows(PKO, 'HostedClusterPackage')).toBe(false);
    expect(r.knows('package-operator.run/v1beta1', 'HostedClusterPackage')).toBe(true);
  });

  test('missing and malformed CRD files are user errors', () => {
    expect(() => createSchemaRegistry({ crdFiles: [join(dir, 'nope.yaml')] })).toThrow(UserError);
    const empty = mkdtempSync(join(tmpdir(), 'pkogen-schema-empty-'));
    try {
      expect(() => createSchemaRegistry({ crdFiles: [empty] })).toThrow(/no CustomResourceDefinition found/);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
    const bad = join(dir, 'bad.yaml');
    writeFileSync(bad, 'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: {}\n');
    expect(() => createSchemaRegistry({ crdFiles: [bad] })).toThrow(/no spec.names/);
    const notCrd = join(dir, 'not-a-crd.yaml');
    writeFileSync(notCrd, 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n');
    expect(userError(() => createSchemaRegistry({ crdFiles: [notCrd] }))).toMatch(/not-a-crd\.yaml: no CustomResourceDefinition found/);
    const badType = join(dir, 'bad-type.yaml');
    writeFileSync(badType, PACKAGE_OVERRIDE.replace('{other: {type: string}}', '{other: {type: strnig}}'));
    const r = createSchemaRegistry({ crdFiles: [badType] });
    // Compilation is lazy: a broken schema surfaces on first use, naming the file.
    expect(() => r.validate(valid.Package)).toThrow(UserError);
    expect(() => r.validate(valid.Package)).toThrow(/cannot compile the schema of package-operator.run\/v1alpha1\/Package from .*bad-type.yaml/);
    const broken = join(dir, 'broken.yaml');
    writeFileSync(broken, 'a: [\n');
    expect(userError(() => createSchemaRegistry({ crdFiles: [broken] }))).toMatch(/broken\.yaml:2:1: invalid YAML in CRD file: /);
  });
});

const WIDGET_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1alpha1
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            oneOf:
            - required: [a]
            - required: [b]
            - not:
                anyOf:
                - required: [a]
                - required: [b]
            x-kubernetes-validations:
            - rule: "self.mode != 'fast' || self.size <= 10"
              message: size must not exceed 10 in fast mode
            - rule: "self.size == oldSelf.size"
            - rule: "isURL(self.a)"
              message: needs the Kubernetes URL library, skipped offline
            properties:
              a: {type: string}
              b: {type: string}
              size: {type: integer, format: int32, minimum: 1}
              port:
                x-kubernetes-int-or-string: true
                anyOf: [{type: integer}, {type: string}]
              note: {type: string}
              items: {type: array, items: {type: string}}
              nitems: {type: array, items: {type: string, nullable: true}}
              mode: {type: string, enum: [fast, safe]}
              timeout: {type: string, format: duration}
              when: {type: string, format: date-time}
              odd: {type: string, format: something-custom}
              goRegex: {type: string, pattern: '^(?i)[a-z]+$'}
              name: {type: string, pattern: '^[a-z]+$'}
              labels: {type: object, additionalProperties: {type: string}}
              payload: {type: object, x-kubernetes-preserve-unknown-fields: true}
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
          status:
            type: object
            properties:
              ready: {type: boolean}
---
apiVersion: v1
kind: List
items:
- apiVersion: apiextensions.k8s.io/v1
  kind: CustomResourceDefinition
  metadata: {name: gadgets.example.com}
  spec:
    group: example.com
    scope: Cluster
    names: {kind: Gadget, plural: gadgets}
    versions:
    - name: v1
      served: true
      storage: true
      schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
`;

const PACKAGE_OVERRIDE = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: packages.package-operator.run}
spec:
  group: package-operator.run
  scope: Namespaced
  names: {kind: Package, plural: packages}
  versions:
  - name: v1alpha1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {other: {type: string}}}
  - name: v1
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`;
