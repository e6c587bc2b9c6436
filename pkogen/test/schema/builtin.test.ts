import { createSchemaRegistry, type SchemaResult } from '../../src/schema/registry.js';

const registry = createSchemaRegistry();

function issues(obj: unknown): string[] {
  const r = registry.validate(obj);
  return r.issues.map((i) => `${i.path}: ${i.message}`);
}

const meta = (name: string, namespace?: string) => ({ name, ...(namespace ? { namespace } : {}), labels: { 'app.kubernetes.io/name': 'demo' } });

const podSpec = {
  serviceAccountName: 'demo',
  securityContext: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } },
  affinity: {
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 100, podAffinityTerm: { topologyKey: 'kubernetes.io/hostname', labelSelector: { matchLabels: { app: 'demo' } } } },
      ],
    },
  },
  tolerations: [{ key: 'hypershift.openshift.io/control-plane', operator: 'Equal', value: 'true', effect: 'NoSchedule' }],
  containers: [
    {
      name: 'manager',
      image: 'quay.io/example/demo@sha256:' + 'a'.repeat(64),
      args: ['--leader-elect'],
      env: [
        { name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } },
        { name: 'LOG_LEVEL', value: 'info' },
      ],
      ports: [{ name: 'metrics', containerPort: 8080, protocol: 'TCP' }],
      resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '256Mi' } },
      readinessProbe: { httpGet: { path: '/readyz', port: 'metrics' }, periodSeconds: 10 },
      livenessProbe: { httpGet: { path: '/healthz', port: 8081 } },
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
      volumeMounts: [{ name: 'certs', mountPath: '/etc/certs', readOnly: true }],
    },
  ],
  volumes: [{ name: 'certs', secret: { secretName: 'demo-certs', defaultMode: 420 } }],
};

const valid: Record<string, unknown> = {
  Namespace: { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'demo', annotations: { 'openshift.io/node-selector': '' } } },
  ServiceAccount: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta('demo', 'demo'), automountServiceAccountToken: false },
  ConfigMap: { apiVersion: 'v1', kind: 'ConfigMap', metadata: meta('demo-config', 'demo'), data: { 'config.yaml': 'a: 1\n' } },
  Secret: { apiVersion: 'v1', kind: 'Secret', metadata: meta('demo-certs', 'demo'), type: 'kubernetes.io/tls', stringData: { 'tls.crt': 'x' }, data: { 'tls.key': 'eA==' } },
  Service: {
    apiVersion: 'v1', kind: 'Service', metadata: meta('demo', 'demo'),
    spec: { selector: { app: 'demo' }, ports: [{ name: 'https', port: 443, targetPort: 'https' }, { name: 'm', port: 8080, targetPort: 8080 }], type: 'ClusterIP' },
  },
  Deployment: {
    apiVersion: 'apps/v1', kind: 'Deployment', metadata: meta('demo', 'demo'),
    spec: {
      replicas: 2,
      selector: { matchLabels: { app: 'demo' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
      template: { metadata: { labels: { app: 'demo' }, annotations: { 'kubectl.kubernetes.io/default-container': 'manager' } }, spec: podSpec },
    },
  },
  StatefulSet: {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: meta('demo', 'demo'),
    spec: {
      serviceName: 'demo', selector: { matchLabels: { app: 'demo' } }, template: { metadata: { labels: { app: 'demo' } }, spec: podSpec },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  },
  DaemonSet: {
    apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: meta('demo', 'demo'),
    spec: { selector: { matchLabels: { app: 'demo' } }, template: { metadata: { labels: { app: 'demo' } }, spec: podSpec }, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '10%' } } },
  },
  Job: {
    apiVersion: 'batch/v1', kind: 'Job', metadata: meta('demo-migrate', 'demo'),
    spec: { backoffLimit: 3, ttlSecondsAfterFinished: 600, template: { spec: { ...podSpec, restartPolicy: 'Never' } } },
  },
  CronJob: {
    apiVersion: 'batch/v1', kind: 'CronJob', metadata: meta('demo-gc', 'demo'),
    spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } } } } },
  },
  Role: {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta('demo', 'demo'),
    rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'list', 'watch'] }],
  },
  RoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta('demo', 'demo'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'demo' },
    subjects: [{ kind: 'ServiceAccount', name: 'demo', namespace: 'demo' }],
  },
  ClusterRole: {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:openshift:demo' },
    rules: [{ apiGroups: ['machineconfiguration.openshift.io'], resources: ['machineosbuilds', 'machineosbuilds/status'], verbs: ['*'] }, { nonResourceURLs: ['/metrics'], verbs: ['get'] }],
  },
  ClusterRoleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'system:openshift:demo' },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'system:openshift:demo' },
    subjects: [{ kind: 'ServiceAccount', name: 'demo', namespace: 'demo' }],
  },
  PodDisruptionBudget: { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: meta('demo', 'demo'), spec: { minAvailable: 1, selector: { matchLabels: { app: 'demo' } } } },
  ValidatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: 'demo.example.com', annotations: { 'service.beta.openshift.io/inject-cabundle': 'true' } },
    webhooks: [{
      name: 'demo.example.com', admissionReviewVersions: ['v1'], sideEffects: 'None', failurePolicy: 'Ignore', timeoutSeconds: 2,
      clientConfig: { service: { name: 'demo', namespace: 'demo', path: '/validate', port: 443 } },
      rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['pods'], scope: 'Namespaced' }],
      namespaceSelector: { matchExpressions: [{ key: 'openshift.io/run-level', operator: 'NotIn', values: ['0', '1'] }] },
    }],
  },
  MutatingWebhookConfiguration: {
    apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: 'demo.example.com' },
    webhooks: [{ name: 'm.demo.example.com', admissionReviewVersions: ['v1'], sideEffects: 'NoneOnDryRun', reinvocationPolicy: 'IfNeeded', clientConfig: { url: 'https://demo.example.com/mutate', caBundle: 'Y2E=' } }],
  },
  NetworkPolicy: {
    apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: meta('demo', 'demo'),
    spec: { podSelector: {}, policyTypes: ['Ingress'], ingress: [{ from: [{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'openshift-monitoring' } } }], ports: [{ port: 8443, protocol: 'TCP' }, { port: 'metrics' }] }] },
  },
  PriorityClass: { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'hypershift-control-plane' }, value: 100000000, globalDefault: false, preemptionPolicy: 'PreemptLowerPriority' },
  CustomResourceDefinition: {
    apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com', scope: 'Namespaced', names: { kind: 'Widget', plural: 'widgets', singular: 'widget', listKind: 'WidgetList' },
      versions: [{
        name: 'v1', served: true, storage: true, subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { size: { type: 'integer', format: 'int32', minimum: 1 } } } } } },
      }],
    },
  },
  StorageClass: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'ebs.csi.aws.com', parameters: { type: 'gp3' }, reclaimPolicy: 'Delete', volumeBindingMode: 'WaitForFirstConsumer' },
  Ingress: {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: meta('demo', 'demo'),
    spec: { rules: [{ host: 'demo.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'demo', port: { number: 443 } } } }] } }] },
  },
  HorizontalPodAutoscaler: {
    apiVersion: 'autoscaling/v2', kind: 'HorizontalPodAutoscaler', metadata: meta('demo', 'demo'),
    spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'demo' }, minReplicas: 1, maxReplicas: 3, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
  },
  APIService: {
    apiVersion: 'apiregistration.k8s.io/v1', kind: 'APIService', metadata: { name: 'v1beta1.metrics.k8s.io' },
    spec: { group: 'metrics.k8s.io', version: 'v1beta1', groupPriorityMinimum: 100, versionPriority: 100, service: { name: 'metrics-server', namespace: 'kube-system', port: 443 } },
  },
  ResourceQuota: { apiVersion: 'v1', kind: 'ResourceQuota', metadata: meta('demo', 'demo'), spec: { hard: { pods: '10', 'requests.cpu': 2 } } },
};

describe('built-in kinds', () => {
  test.each(Object.entries(valid))('valid %s passes', (_kind, obj) => {
    const r = registry.validate(obj);
    expect(r.known).toBe(true);
    expect(r.issues).toEqual([]);
  });

  test('source is builtin', () => {
    expect((registry.validate(valid.Deployment) as SchemaResult & { source: string }).source).toBe('builtin');
  });

  test('typo deep in a pod template is caught with its path (the PKO/kubeconform example)', () => {
    const d = structuredClone(valid.Deployment) as any;
    d.spec.template.spec.affxxxinity = d.spec.template.spec.affinity;
    delete d.spec.template.spec.affinity;
    expect(registry.validate(d).issues).toEqual([
      { path: 'spec.template.spec.affxxxinity', message: 'unknown field "affxxxinity" (did you mean "affinity"?)', keyword: 'additionalProperties' },
    ]);
  });

  test('typos at every level: top, container, nested map values, arrays of objects', () => {
    const d = structuredClone(valid.Deployment) as any;
    d.specc = {};
    d.spec.template.spec.containers[0].imagePullPolicyy = 'Always';
    d.spec.template.spec.containers[0].env[1].valeu = 'x';
    d.spec.template.spec.volumes[0].secret.secretname = 'x';
    d.spec.template.metadata.label = {};
    expect(issues(d).sort()).toEqual([
      'spec.template.metadata.label: unknown field "label" (did you mean "labels"?)',
      'spec.template.spec.containers[0].env[1].valeu: unknown field "valeu" (did you mean "value"?)',
      'spec.template.spec.containers[0].imagePullPolicyy: unknown field "imagePullPolicyy" (did you mean "imagePullPolicy"?)',
      'spec.template.spec.volumes[0].secret.secretname: unknown field "secretname" (did you mean "secretName"?)',
      'specc: unknown field "specc" (did you mean "spec"?)',
    ]);
  });

  test('wrong types and missing required fields', () => {
    const d = structuredClone(valid.Deployment) as any;
    d.spec.replicas = '2';
    d.spec.template.spec.containers[0].ports[0].containerPort = 80.5;
    delete d.spec.template.spec.containers[0].name;
    d.spec.template.spec.containers[0].args = '--leader-elect';
    expect(issues(d).sort()).toEqual([
      'spec.replicas: must be integer, got string "2"',
      'spec.template.spec.containers[0].args: must be array, got string "--leader-elect"',
      'spec.template.spec.containers[0].name: missing required field "name"',
      'spec.template.spec.containers[0].ports[0].containerPort: must be integer, got number 80.5',
    ]);
  });

  test('int-or-string fields accept both and reject others', () => {
    const s = structuredClone(valid.Service) as any;
    s.spec.ports[0].targetPort = true;
    expect(issues(s)).toEqual(['spec.ports[0].targetPort: must be string or integer, got boolean']);
    const d = structuredClone(valid.Deployment) as any;
    d.spec.strategy.rollingUpdate.maxSurge = 1;
    d.spec.strategy.rollingUpdate.maxUnavailable = '50%';
    expect(issues(d)).toEqual([]);
  });

  test('quantities: strings and numbers, malformed rejected', () => {
    const d = structuredClone(valid.Deployment) as any;
    d.spec.template.spec.containers[0].resources.requests.cpu = 0.5;
    expect(issues(d)).toEqual([]);
    d.spec.template.spec.containers[0].resources.requests.memory = '64 MB';
    expect(issues(d)).toEqual([
      'spec.template.spec.containers[0].resources.requests.memory: must be a quantity such as "100m", "1.5", "512Mi"; got string "64 MB"',
    ]);
  });

  test('base64 data and YAML 1.1 booleans where strings belong', () => {
    const s = structuredClone(valid.Secret) as any;
    s.data['tls.key'] = 'not base64!';
    expect(issues(s)).toEqual(['data["tls.key"]: must be base64-encoded data; got string "not base64!"']);
    const d = structuredClone(valid.Deployment) as any;
    d.spec.template.spec.containers[0].env[1].value = true; // `value: yes` in YAML 1.1
    expect(issues(d)).toEqual(['spec.template.spec.containers[0].env[1].value: must be string, got boolean']);
  });

  test('enums', () => {
    const p = structuredClone(valid.PriorityClass) as any;
    p.preemptionPolicy = 'Sometimes';
    const r = issues(p);
    expect(r).toHaveLength(1);
    expect(r[0]).toMatch(/^preemptionPolicy: must be one of "Never", "PreemptLowerPriority"/);
  });

  test('free-form fields (CRD openAPIV3Schema, RawExtension) are not strict', () => {
    const c = structuredClone(valid.CustomResourceDefinition) as any;
    c.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.anything = { type: 'string', 'x-kubernetes-validations': [{ rule: 'self != ""' }] };
    expect(issues(c)).toEqual([]);
    c.spec.versions[0].schema.openAPIV3Schema.typo = 1;
    expect(issues(c)).toEqual(['spec.versions[0].schema.openAPIV3Schema.typo: unknown field "typo" (did you mean "type"?)']);
  });

  test('a CRD name must be <plural>.<group>', () => {
    const c = structuredClone(valid.CustomResourceDefinition) as any;
    c.metadata.name = 'widget.example.com';
    expect(issues(c)).toEqual(['metadata.name: must be spec.names.plural + "." + spec.group ("widgets.example.com")']);
  });

  test('null optional fields count as unset', () => {
    const d = structuredClone(valid.Deployment) as any;
    d.metadata.creationTimestamp = null;
    d.spec.template.metadata.creationTimestamp = null;
    d.spec.strategy.rollingUpdate = null;
    expect(issues(d)).toEqual([]);
  });

  describe('metadata', () => {
    test('unknown metadata fields, bad label keys and values, bad names', () => {
      const cm = structuredClone(valid.ConfigMap) as any;
      cm.metadata.lables = {};
      cm.metadata.labels['bad key'] = 'x';
      cm.metadata.labels.ok = 'not ok!';
      cm.metadata.labels.num = 1;
      cm.metadata.annotations = { 'example.com/a': 'fine', '/x': 'y' };
      cm.metadata.name = 'Demo_Config';
      cm.metadata.namespace = 'demo.ns';
      const r = issues(cm);
      expect(r.map((s) => s.split(':')[0]).sort()).toEqual([
        'metadata.annotations["/x"]',
        'metadata.labels.num',
        'metadata.labels.ok',
        'metadata.labels["bad key"]',
        'metadata.lables',
        'metadata.name',
        'metadata.namespace',
      ]);
      expect(r).toContain('metadata.labels.num: must be string, got integer 1');
    });

    test('embedded ObjectMeta (pod templates, claim templates) is strict and label-checked too', () => {
      const s = structuredClone(valid.StatefulSet) as any;
      s.spec.template.metadata.labels['app.kubernetes.io/version'] = 'v1.2.3+build';
      s.spec.template.metadata.annotation = {};
      s.spec.volumeClaimTemplates[0].metadata.labels = { 'x/y/z': 'a' };
      const r = issues(s);
      expect(r.map((x) => x.split(': ')[0]).sort()).toEqual([
        'spec.template.metadata.annotation',
        'spec.template.metadata.labels["app.kubernetes.io/version"]',
        'spec.volumeClaimTemplates[0].metadata.labels["x/y/z"]',
      ]);
      expect(r).toContain('spec.template.metadata.annotation: unknown field "annotation" (did you mean "annotations"?)');
    });

    test('label selectors: keys, values and operators checked like the API server', () => {
      const d = structuredClone(valid.Deployment) as any;
      d.spec.selector.matchLabels.app = 'has space';
      d.spec.selector.matchExpressions = [
        { key: 'tier', operator: 'in', values: ['a'] },
        { key: 'zone', operator: 'In', values: [] },
        { key: 'gone', operator: 'Exists', values: ['x'] },
        { key: 'ok', operator: 'NotIn', values: ['b'] },
      ];
      const r = issues(d);
      expect(r.map((x) => x.split(': ')[0])).toEqual([
        'spec.selector.matchLabels.app',
        'spec.selector.matchExpressions[0].operator',
        'spec.selector.matchExpressions[1].values',
        'spec.selector.matchExpressions[2].values',
      ]);
      expect(r.slice(1)).toEqual([
        'spec.selector.matchExpressions[0].operator: must be one of "In", "NotIn", "Exists", "DoesNotExist"; got string "in"',
        'spec.selector.matchExpressions[1].values: must have at least 1 item',
        'spec.selector.matchExpressions[2].values: must be empty',
      ]);
      const n = structuredClone(valid.NetworkPolicy) as any;
      n.spec.ingress[0].from[0].namespaceSelector.matchLabels = { 'kubernetes.io/metadata.name': 'x'.repeat(64) };
      expect(issues(n)).toHaveLength(1);
    });

    test('missing metadata or name', () => {
      expect(issues({ apiVersion: 'v1', kind: 'ConfigMap' })).toEqual(['metadata: missing required field "metadata"']);
      expect(issues({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace: 'x' } })).toEqual(['metadata.name: missing required field "name"']);
      expect(issues({ apiVersion: 'batch/v1', kind: 'Job', metadata: { generateName: 'x-' }, spec: { template: { spec: { containers: [] } } } })).toEqual([]);
    });

    test('name rules per kind: Namespace/Service are DNS labels, RBAC accepts path segments', () => {
      expect(issues({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a.b' } })[0]).toMatch(/^metadata\.name: must be a lowercase RFC 1123 label/);
      expect(issues({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a.b' } })).toEqual([]);
      expect(issues({ apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: 'system:a/b' } })[0]).toMatch(/^metadata\.name: must not be empty/);
      expect(issues({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'x'.repeat(64) } })).toHaveLength(1);
    });
  });

  test('scopes of built-in kinds', () => {
    for (const k of ['Namespace', 'PersistentVolume', 'Node']) expect(registry.scopeOf('v1', k)).toBe('Cluster');
    for (const k of ['ConfigMap', 'Secret', 'Service', 'ServiceAccount']) expect(registry.scopeOf('v1', k)).toBe('Namespaced');
    expect(registry.scopeOf('rbac.authorization.k8s.io/v1', 'ClusterRole')).toBe('Cluster');
    expect(registry.scopeOf('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding')).toBe('Cluster');
    expect(registry.scopeOf('rbac.authorization.k8s.io/v1', 'Role')).toBe('Namespaced');
    expect(registry.scopeOf('apiextensions.k8s.io/v1', 'CustomResourceDefinition')).toBe('Cluster');
    expect(registry.scopeOf('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration')).toBe('Cluster');
    expect(registry.scopeOf('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration')).toBe('Cluster');
    expect(registry.scopeOf('scheduling.k8s.io/v1', 'PriorityClass')).toBe('Cluster');
    expect(registry.scopeOf('storage.k8s.io/v1', 'StorageClass')).toBe('Cluster');
    expect(registry.scopeOf('apiregistration.k8s.io/v1', 'APIService')).toBe('Cluster');
    expect(registry.scopeOf('apps/v1', 'Deployment')).toBe('Namespaced');
    expect(registry.scopeOf('policy/v1', 'PodDisruptionBudget')).toBe('Namespaced');
    expect(registry.scopeOf('config.openshift.io/v1', 'ClusterVersion')).toBe('Cluster');
    expect(registry.scopeOf('example.com/v1', 'Widget')).toBeUndefined();
  });

  test('knows built-in kinds; API versions Kubernetes removed are reported', () => {
    expect(registry.knows('apps/v1', 'Deployment')).toBe(true);
    expect(registry.knows('v1', 'Pod')).toBe(true);
    const d = structuredClone(valid.Deployment) as any;
    d.apiVersion = 'extensions/v1beta1';
    expect(issues(d)).toEqual(['apiVersion: Deployment extensions/v1beta1 is no longer served since Kubernetes 1.16; use apiVersion apps/v1']);
    const psp = { apiVersion: 'policy/v1beta1', kind: 'PodSecurityPolicy', metadata: { name: 'x' }, spec: { seLinux: { rule: 'RunAsAny' }, runAsUser: { rule: 'RunAsAny' }, supplementalGroups: { rule: 'RunAsAny' }, fsGroup: { rule: 'RunAsAny' } } };
    expect(issues(psp)).toEqual(['apiVersion: PodSecurityPolicy policy/v1beta1 is no longer served since Kubernetes 1.25; the kind was removed']);
    const cj = { apiVersion: 'batch/v1beta1', kind: 'CronJob', metadata: { name: 'x' }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { spec: { containers: [] } } } } } };
    expect(issues(cj)).toEqual(['apiVersion: CronJob batch/v1beta1 is no longer served since Kubernetes 1.25; use apiVersion batch/v1']);
  });
});

describe('paths', () => {
  test('pathSegments inverts issue paths', async () => {
    const { parsePath: pathSegments } = await import('../../src/core/field-path.js');
    expect(pathSegments('spec.template.spec.containers[0].image')).toEqual(['spec', 'template', 'spec', 'containers', 0, 'image']);
    expect(pathSegments('metadata.labels["app.kubernetes.io/name"]')).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
    expect(pathSegments('data["a\\"]b"].x[12]')).toEqual(['data', 'a"]b', 'x', 12]);
    expect(pathSegments('')).toEqual([]);
  });

  test('no suggestion when nothing is close', () => {
    const d = structuredClone(valid.ConfigMap) as any;
    d.zzzzzz = 1;
    expect(issues(d)).toEqual(['zzzzzz: unknown field "zzzzzz"']);
  });
});
