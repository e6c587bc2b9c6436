/**
 * The machine-os-builder controller, one per hosted-control-plane namespace
 * (shared/docs/on-cluster-builds.md §1, §7.2): its ServiceAccount, a namespaced Role with exactly
 * what it uses, its leader-elected Deployment, and the two ConfigMaps it reads.
 */
import { RawValue, YamlValue } from '../src/yaml/emit.js';
import type { KubeObject, PackageObject } from '../src/model/package.js';
import { hcpDeployment } from '../src/model/hypershift.js';

export const MOB_NAME = 'machine-os-builder';
export const BUILD_CONFIG_MAP = 'on-cluster-build-config';
export const CUSTOM_DOCKERFILE_CONFIG_MAP = 'on-cluster-build-custom-dockerfile';

/** Value of a config key as a JSON string: safe YAML whatever the user typed. */
const configString = (key: string) => new RawValue(() => ` {{ .config.${key} | toJson }}`);

export function buildConfigMaps(): PackageObject[] {
  const buildConfig: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: BUILD_CONFIG_MAP, labels: { app: MOB_NAME } },
    data: {
      baseImagePullSecretName: configString('baseImagePullSecretName'),
      finalImagePushSecretName: configString('finalImagePushSecretName'),
      finalImagePullspec: configString('finalImagePullspec'),
      imageBuilderType: configString('imageBuilderType'),
    },
  };
  const dockerfiles: KubeObject = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: CUSTOM_DOCKERFILE_CONFIG_MAP, labels: { app: MOB_NAME } },
    data: new RawValue((indent) => `{{- toYAML .config.customContainerfiles | nindent ${indent + 2} }}`),
  };
  return [
    { phase: 'config', object: buildConfig },
    { phase: 'config', object: dockerfiles },
  ];
}

/**
 * Least privilege: build Jobs and their pods, the ConfigMaps and Secrets of each build, its own
 * leader Lease (by name once created), and events. No wildcards, nothing cluster-wide.
 */
export function builderRules(): YamlValue[] {
  const rw = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete'];
  return [
    { apiGroups: ['batch'], resources: ['jobs'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
    { apiGroups: [''], resources: ['pods'], verbs: ['get', 'list', 'watch', 'create', 'delete'] },
    { apiGroups: [''], resources: ['configmaps', 'secrets'], verbs: rw },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], resourceNames: [MOB_NAME], verbs: ['get', 'update', 'patch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
  ];
}

export function builderRbac(): PackageObject[] {
  return [
    {
      phase: 'rbac',
      object: {
        apiVersion: 'v1',
        kind: 'ServiceAccount',
        metadata: { name: MOB_NAME, labels: { app: MOB_NAME } },
        automountServiceAccountToken: false,
      },
    },
    {
      phase: 'rbac',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'Role',
        metadata: { name: MOB_NAME, labels: { app: MOB_NAME } },
        rules: builderRules(),
      },
    },
    {
      phase: 'rbac',
      object: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: MOB_NAME, labels: { app: MOB_NAME } },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: MOB_NAME },
        subjects: [{ kind: 'ServiceAccount', name: MOB_NAME, namespace: '{{ .package.metadata.namespace }}' }],
      },
    },
  ];
}

export function builderDeployment(): PackageObject {
  const deployment = hcpDeployment({
    name: MOB_NAME,
    // One active builder per hosted cluster; the Lease keeps a surge pod from acting.
    replicas: 1,
    serviceAccountName: MOB_NAME,
    // Talks to the management API (build Jobs, Secrets, its Lease in this namespace) with its token,
    // and to the hosted cluster through the hosted kubeconfig.
    automountServiceAccountToken: true,
    managementKasAccess: true,
    containers: [
      {
        name: MOB_NAME,
        image: '{{ .config.machineOSBuilderImage }}',
        command: ['/usr/bin/machine-os-builder'],
        args: [
          'start',
          '--v=2',
          '--namespace=$(POD_NAMESPACE)',
          '--leader-elect=true',
          `--leader-elect-lease-name=${MOB_NAME}`,
          `--build-config-configmap=${BUILD_CONFIG_MAP}`,
          `--custom-dockerfile-configmap=${CUSTOM_DOCKERFILE_CONFIG_MAP}`,
        ],
        env: [{ name: 'POD_NAMESPACE', valueFrom: { fieldRef: { fieldPath: 'metadata.namespace' } } }],
        resources: { requests: { cpu: '20m', memory: '50Mi' }, limits: { cpu: '500m', memory: '512Mi' } },
      },
    ],
  });
  return { phase: 'deploy', object: deployment };
}
