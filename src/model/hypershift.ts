/**
 * The HyperShift control-plane idioms every package that runs a workload in a hosted-control-plane
 * (HCP) namespace copies by hand today (shared/docs/hypershift-packages-in-the-field.md §1.3, §8.10;
 * on-cluster-builds.md §5.1–5.3, §7.2). Template expressions are PKO `.gotmpl` text.
 */
import { RawEntry, YamlValue } from '../yaml/emit.js';
import type { KubeObject } from './package.js';

/** The HCP namespace the Package is installed in. */
export const HCP_NAMESPACE = '{{ .package.metadata.namespace }}';
export const PRIORITY_CLASS = 'hypershift-control-plane';
export const HOSTED_KUBECONFIG_SECRET = 'service-network-admin-kubeconfig';
export const HOSTED_KUBECONFIG_DIR = '/etc/hosted-kubernetes';
export const NEED_MANAGEMENT_KAS_ACCESS = 'hypershift.openshift.io/need-management-kas-access';
export const ALLOW_GUEST_WEBHOOKS = 'hypershift.openshift.io/allow-guest-webhooks';
export const COLOCATION_LABEL = 'hypershift.openshift.io/hosted-control-plane';
export const CONTROL_PLANE_COMPONENT_LABEL = 'hypershift.openshift.io/control-plane-component';
export const SERVING_CERT_ANNOTATION = 'service.beta.openshift.io/serving-cert-secret-name';
export const INJECT_CABUNDLE_ANNOTATION = 'service.beta.openshift.io/inject-cabundle';

/** Prefer control-plane nodes, and the nodes dedicated to this hosted cluster even more. */
export function controlPlaneNodeAffinity(): YamlValue {
  return {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 50, preference: { matchExpressions: [{ key: 'hypershift.openshift.io/control-plane', operator: 'In', values: ['true'] }] } },
      { weight: 100, preference: { matchExpressions: [{ key: 'hypershift.openshift.io/cluster', operator: 'In', values: [HCP_NAMESPACE] }] } },
    ],
  };
}

/** Colocate with the other pods of this hosted control plane. */
export function hcpPodAffinity(): YamlValue {
  return {
    preferredDuringSchedulingIgnoredDuringExecution: [
      {
        weight: 100,
        podAffinityTerm: { labelSelector: { matchLabels: { [COLOCATION_LABEL]: HCP_NAMESPACE } }, topologyKey: 'kubernetes.io/hostname' },
      },
    ],
  };
}

/** Spread replicas of one workload over zones (required: a webhook backend must survive a zone). */
export function zoneAntiAffinity(selector: Record<string, string>, required: boolean): YamlValue {
  const term = { labelSelector: { matchLabels: selector }, topologyKey: 'topology.kubernetes.io/zone' };
  return required
    ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
}

/** The three tolerations of HCP components. */
export function controlPlaneTolerations(): YamlValue[] {
  return [
    { key: 'hypershift.openshift.io/control-plane', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
    { key: 'hypershift.openshift.io/hosted-control-plane', operator: 'Equal', value: 'true', effect: 'NoSchedule' },
    { key: 'hypershift.openshift.io/cluster', operator: 'Equal', value: HCP_NAMESPACE, effect: 'NoSchedule' },
  ];
}

/**
 * `nodeSelector` from the HostedCluster, only when PKO's environment has one. `dig` keeps
 * `missingkey=error` from failing on environments without HyperShift.
 */
export function hostedClusterNodeSelector(): RawEntry {
  return new RawEntry((indent) => [
    '{{- with dig "hyperShift" "hostedCluster" "nodeSelector" nil .environment }}',
    `nodeSelector: {{- toYAML . | nindent ${indent + 2} }}`,
    '{{- end }}',
  ]);
}

/** HTTP(S)_PROXY / NO_PROXY env entries when the environment has a proxy. */
export function proxyEnv(): RawEntry {
  return new RawEntry(() => [
    '{{- with dig "proxy" nil .environment }}',
    '- name: HTTP_PROXY',
    '  value: {{ dig "httpProxy" "" . | toJson }}',
    '- name: HTTPS_PROXY',
    '  value: {{ dig "httpsProxy" "" . | toJson }}',
    '- name: NO_PROXY',
    '  value: {{ dig "noProxy" "" . | toJson }}',
    '{{- end }}',
  ]);
}

export function hostedKubeconfigVolume(): YamlValue {
  return { name: 'hosted-kubeconfig', secret: { secretName: HOSTED_KUBECONFIG_SECRET, defaultMode: 0o440 } };
}

export function hostedKubeconfigMount(): YamlValue {
  return { name: 'hosted-kubeconfig', mountPath: HOSTED_KUBECONFIG_DIR, readOnly: true };
}

export function hostedKubeconfigEnv(): YamlValue {
  return { name: 'KUBECONFIG', value: `${HOSTED_KUBECONFIG_DIR}/kubeconfig` };
}

/** Pod Security "restricted" at pod level. */
export function restrictedPodSecurityContext(): YamlValue {
  return { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Pod Security "restricted" at container level, plus a read-only root filesystem. */
export function restrictedContainerSecurityContext(): YamlValue {
  return {
    allowPrivilegeEscalation: false,
    capabilities: { drop: ['ALL'] },
    readOnlyRootFilesystem: true,
    runAsNonRoot: true,
    seccompProfile: { type: 'RuntimeDefault' },
  };
}

/** Webhook client config for a backend in the HCP namespace, called by the hosted kube-apiserver. */
export function hcpWebhookClientConfig(service: string, path: string, caConfigKey: string): YamlValue {
  if (!path.startsWith('/')) throw new Error(`webhook path must start with "/": ${path}`);
  return {
    url: `https://${service}.${HCP_NAMESPACE}.svc.cluster.local${path}`,
    caBundle: `{{ .config.${caConfigKey} | b64enc }}`,
  };
}

export interface HcpContainer {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: YamlValue[];
  ports?: YamlValue[];
  volumeMounts?: YamlValue[];
  resources: { requests: { cpu: string; memory: string }; limits: { cpu?: string; memory: string } };
  livenessProbe?: YamlValue;
  readinessProbe?: YamlValue;
  /**
   * Mount the hosted cluster's admin kubeconfig (`service-network-admin-kubeconfig`) and set
   * KUBECONFIG to it. Opt-in: it is cluster-admin in the hosted cluster, so only a container
   * that needs that (a token minter, say) should see it.
   */
  hostedKubeconfig?: boolean;
}

export interface HcpDeploymentOptions {
  name: string;
  replicas: number | string;
  serviceAccountName: string;
  automountServiceAccountToken: boolean;
  /** Needs the management cluster's kube-apiserver (NetworkPolicy `management-kas`). */
  managementKasAccess: boolean;
  containers: HcpContainer[];
  volumes?: YamlValue[];
  /** Required zone anti-affinity between replicas (for HA backends). */
  spreadOverZones?: boolean;
  maxUnavailable?: number;
  maxSurge?: number;
}

/**
 * A Deployment for an HCP namespace with every idiom applied: scheduling next to the hosted
 * control plane, tolerations, HostedCluster nodeSelector, priority class, the hosted kubeconfig,
 * restricted security, a writable /tmp on a read-only root filesystem.
 */
export function hcpDeployment(o: HcpDeploymentOptions): KubeObject {
  const selector = { app: o.name };
  const labels: Record<string, string> = {
    app: o.name,
    [CONTROL_PLANE_COMPONENT_LABEL]: o.name,
    [COLOCATION_LABEL]: HCP_NAMESPACE,
  };
  if (o.managementKasAccess) labels[NEED_MANAGEMENT_KAS_ACCESS] = 'true';
  const affinity: Record<string, YamlValue> = { nodeAffinity: controlPlaneNodeAffinity(), podAffinity: hcpPodAffinity() };
  if (o.spreadOverZones) affinity.podAntiAffinity = zoneAntiAffinity(selector, true);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name, labels: { app: o.name } },
    spec: {
      replicas: o.replicas as YamlValue,
      revisionHistoryLimit: 2,
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: o.maxSurge ?? 1, maxUnavailable: o.maxUnavailable ?? 1 } },
      template: {
        metadata: { labels },
        spec: {
          affinity,
          automountServiceAccountToken: o.automountServiceAccountToken,
          containers: o.containers.map((c) => ({
            name: c.name,
            image: c.image,
            imagePullPolicy: 'IfNotPresent',
            command: c.command,
            args: c.args,
            env: [...(c.env ?? []), ...(c.hostedKubeconfig ? [hostedKubeconfigEnv()] : []), proxyEnv()],
            ports: c.ports,
            volumeMounts: [...(c.volumeMounts ?? []), ...(c.hostedKubeconfig ? [hostedKubeconfigMount()] : []), { name: 'tmp', mountPath: '/tmp' }],
            resources: c.resources as YamlValue,
            livenessProbe: c.livenessProbe,
            readinessProbe: c.readinessProbe,
            securityContext: restrictedContainerSecurityContext(),
            terminationMessagePolicy: 'FallbackToLogsOnError',
          })),
          nodeSelector: hostedClusterNodeSelector(),
          priorityClassName: PRIORITY_CLASS,
          securityContext: restrictedPodSecurityContext(),
          serviceAccountName: o.serviceAccountName,
          tolerations: controlPlaneTolerations(),
          volumes: [...(o.volumes ?? []), ...(o.containers.some((c) => c.hostedKubeconfig) ? [hostedKubeconfigVolume()] : []), { name: 'tmp', emptyDir: {} }],
        },
      },
    },
  };
}

/**
 * Probes that gate later phases on Deployments: every replica updated AND available (ready for
 * minReadySeconds). `Available=True` alone holds at 0 ready pods when maxUnavailable allows it,
 * and `updatedReplicas` counts created pods, ready or not.
 */
export function deploymentAvailabilityProbe() {
  return {
    selector: { kind: { group: 'apps', kind: 'Deployment' } },
    probes: [
      { condition: { type: 'Available', status: 'True' } },
      { fieldsEqual: { fieldA: '.status.updatedReplicas', fieldB: '.status.replicas' } },
      { fieldsEqual: { fieldA: '.status.availableReplicas', fieldB: '.status.replicas' } },
    ],
  };
}

/** CRDs gate later phases once the API server serves them. */
export function crdEstablishedProbe() {
  return {
    selector: { kind: { group: 'apiextensions.k8s.io', kind: 'CustomResourceDefinition' } },
    probes: [{ condition: { type: 'Established', status: 'True' } }],
  };
}
