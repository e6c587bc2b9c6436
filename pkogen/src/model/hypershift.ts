/**
 * The HyperShift control-plane idioms every package that runs a workload in a hosted-control-plane
 * (HCP) namespace copies by hand today (placement, HCP affinity, management KAS access, the hosted
 * kubeconfig, proxy variables, restricted security; pkogen's docs/library.md names each idiom's
 * HyperShift source). Template expressions are PKO `.gotmpl` text.
 */
import { RawEntry, YamlValue } from '../yaml/emit.js';
import type { KubeObject } from './package.js';
import type { ContainerPort, EnvVar, NodeAffinity, PodAffinity, PodAntiAffinity, PodSecurityContext, Probe, SecurityContext, Toleration, Volume, VolumeMount } from '../schema/generated/k8s-types.js';

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
export function controlPlaneNodeAffinity(): NodeAffinity {
  return {
    preferredDuringSchedulingIgnoredDuringExecution: [
      { weight: 50, preference: { matchExpressions: [{ key: 'hypershift.openshift.io/control-plane', operator: 'In', values: ['true'] }] } },
      { weight: 100, preference: { matchExpressions: [{ key: 'hypershift.openshift.io/cluster', operator: 'In', values: [HCP_NAMESPACE] }] } },
    ],
  };
}

/** Colocate with the other pods of this hosted control plane. */
export function hcpPodAffinity(): PodAffinity {
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
export function zoneAntiAffinity(selector: Record<string, string>, required: boolean): PodAntiAffinity {
  const term = { labelSelector: { matchLabels: selector }, topologyKey: 'topology.kubernetes.io/zone' };
  return required
    ? { requiredDuringSchedulingIgnoredDuringExecution: [term] }
    : { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: term }] };
}

/** The three tolerations of HCP components. */
export function controlPlaneTolerations(): Toleration[] {
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

export function hostedKubeconfigVolume(): Volume {
  return { name: 'hosted-kubeconfig', secret: { secretName: HOSTED_KUBECONFIG_SECRET, defaultMode: 0o440 } };
}

export function hostedKubeconfigMount(): VolumeMount {
  return { name: 'hosted-kubeconfig', mountPath: HOSTED_KUBECONFIG_DIR, readOnly: true };
}

export function hostedKubeconfigEnv(): EnvVar {
  return { name: 'KUBECONFIG', value: `${HOSTED_KUBECONFIG_DIR}/kubeconfig` };
}

/** Pod Security "restricted" at pod level. */
export function restrictedPodSecurityContext(): PodSecurityContext {
  return { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } };
}

/** Pod Security "restricted" at container level, plus a read-only root filesystem. */
export function restrictedContainerSecurityContext(): SecurityContext {
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
  env?: EnvVar[];
  ports?: ContainerPort[];
  volumeMounts?: VolumeMount[];
  resources: { requests: { cpu: string; memory: string }; limits: { cpu?: string; memory: string } };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  /**
   * Mount the hosted cluster's admin kubeconfig (`service-network-admin-kubeconfig`) and set
   * KUBECONFIG to it. Opt-in: it is cluster-admin in the hosted cluster, so only a container
   * that needs that (a token minter, say) should see it.
   */
  hostedKubeconfig?: boolean;
}

export interface HcpDeploymentOptions {
  name: string;
  /** A number, or `templateNumber('.config.replicas')` (pkogen/model) for a template expression. */
  replicas: number;
  serviceAccountName: string;
  automountServiceAccountToken: boolean;
  /** Needs the management cluster's kube-apiserver (NetworkPolicy `management-kas`). */
  managementKasAccess: boolean;
  containers: HcpContainer[];
  volumes?: Volume[];
  /** Required zone anti-affinity between replicas (for HA backends). */
  spreadOverZones?: boolean;
  maxUnavailable?: number;
  maxSurge?: number;
  /** Schedule next to the hosted control plane (affinity, tolerations, HostedCluster nodeSelector, labels). Default true. */
  placement?: boolean;
  /** Priority class; false for none. Default `hypershift-control-plane`. */
  priorityClass?: string | false;
  /** The cluster-wide proxy settings in every container's env. Default true. */
  proxy?: boolean;
  /** Restricted pod security (pod and container security contexts). Default true. */
  restricted?: boolean;
  /** A writable /tmp (emptyDir) in every container, for a read-only root filesystem. Default true. */
  tmpVolume?: boolean;
}

/** The pod template spec of a Deployment (or any workload with spec.template), created when absent. */
function podSpec(d: KubeObject): Record<string, YamlValue> {
  const spec = ((d.spec as Record<string, YamlValue> | undefined) ??= {}) as Record<string, YamlValue>;
  const template = (spec.template ??= {}) as Record<string, YamlValue>;
  return (template.spec ??= {}) as Record<string, YamlValue>;
}

function podLabels(d: KubeObject): Record<string, YamlValue> {
  const template = (d.spec as Record<string, YamlValue>).template as Record<string, YamlValue>;
  const metadata = (template.metadata ??= {}) as Record<string, YamlValue>;
  return (metadata.labels ??= {}) as Record<string, YamlValue>;
}

function containersOf(d: KubeObject, names?: readonly string[]): Record<string, YamlValue>[] {
  const all = ((podSpec(d).containers ??= []) as Record<string, YamlValue>[]);
  return names ? all.filter((c) => names.includes(c.name as string)) : all;
}

function append(o: Record<string, YamlValue>, key: string, items: YamlValue[]): void {
  o[key] = [...((o[key] as YamlValue[] | undefined) ?? []), ...items];
}

/**
 * Scheduling next to the hosted control plane: node affinity to control-plane nodes, pod
 * affinity to the HCP, the control-plane tolerations, the HostedCluster nodeSelector and the
 * colocation labels; with `spreadOverZones`, required zone anti-affinity between replicas
 * (`selector` = the pods' own labels). Changes and returns `d`.
 */
export function withHcpPlacement(d: KubeObject, o: { component: string; spreadOverZones?: boolean; selector?: Record<string, string> }): KubeObject {
  const pod = podSpec(d);
  const affinity: Record<string, YamlValue> = { nodeAffinity: controlPlaneNodeAffinity(), podAffinity: hcpPodAffinity() };
  if (o.spreadOverZones) affinity.podAntiAffinity = zoneAntiAffinity(o.selector ?? { app: o.component }, true);
  pod.affinity = affinity;
  pod.tolerations = controlPlaneTolerations();
  pod.nodeSelector = hostedClusterNodeSelector();
  Object.assign(podLabels(d), { [CONTROL_PLANE_COMPONENT_LABEL]: o.component, [COLOCATION_LABEL]: HCP_NAMESPACE });
  return d;
}

/** Lets the pods reach the management cluster's kube-apiserver (HyperShift's `management-kas` NetworkPolicy label). */
export function withManagementKasAccess(d: KubeObject): KubeObject {
  podLabels(d)[NEED_MANAGEMENT_KAS_ACCESS] = 'true';
  return d;
}

/**
 * Mounts the hosted cluster's admin kubeconfig into the named containers and sets KUBECONFIG.
 * It is cluster-admin in the hosted cluster: give it only to the containers that need it.
 */
export function withHostedKubeconfig(d: KubeObject, containers: readonly string[]): KubeObject {
  const targets = containersOf(d, containers);
  if (targets.length === 0) return d;
  for (const c of targets) {
    append(c, 'env', [hostedKubeconfigEnv()]);
    append(c, 'volumeMounts', [hostedKubeconfigMount()]);
  }
  append(podSpec(d), 'volumes', [hostedKubeconfigVolume()]);
  return d;
}

/** The cluster-wide proxy (HTTP_PROXY, HTTPS_PROXY, NO_PROXY from the environment) in the named containers' env (all when omitted). */
export function withProxyEnv(d: KubeObject, containers?: readonly string[]): KubeObject {
  for (const c of containersOf(d, containers)) append(c, 'env', [proxyEnv()]);
  return d;
}

/** Restricted pod security: the pod's and every container's security context. */
export function withRestrictedSecurity(d: KubeObject): KubeObject {
  podSpec(d).securityContext = restrictedPodSecurityContext();
  for (const c of containersOf(d)) c.securityContext = restrictedContainerSecurityContext();
  return d;
}

/** The control plane's priority class (or another). */
export function withPriorityClass(d: KubeObject, name: string = PRIORITY_CLASS): KubeObject {
  podSpec(d).priorityClassName = name;
  return d;
}

/** A writable /tmp (emptyDir) mounted in every container, for a read-only root filesystem. */
export function withTmpVolume(d: KubeObject): KubeObject {
  for (const c of containersOf(d)) append(c, 'volumeMounts', [{ name: 'tmp', mountPath: '/tmp' }]);
  append(podSpec(d), 'volumes', [{ name: 'tmp', emptyDir: {} }]);
  return d;
}

/**
 * A Deployment for an HCP namespace with the idioms above applied; each can be turned off
 * (`placement`, `priorityClass`, `proxy`, `restricted`, `tmpVolume`), and each is exported on its
 * own (`withHcpPlacement`, …) to apply to a Deployment a team writes itself.
 */
export function hcpDeployment(o: HcpDeploymentOptions): KubeObject {
  const selector = { app: o.name };
  const d: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: o.name, labels: { app: o.name } },
    spec: {
      replicas: o.replicas as YamlValue,
      revisionHistoryLimit: 2,
      selector: { matchLabels: selector },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: o.maxSurge ?? 1, maxUnavailable: o.maxUnavailable ?? 1 } },
      template: {
        metadata: { labels: { app: o.name } },
        spec: {
          automountServiceAccountToken: o.automountServiceAccountToken,
          containers: o.containers.map((c) => ({
            name: c.name,
            image: c.image,
            imagePullPolicy: 'IfNotPresent',
            command: c.command,
            args: c.args,
            env: [...(c.env ?? [])],
            ports: c.ports,
            volumeMounts: [...(c.volumeMounts ?? [])],
            resources: c.resources as YamlValue,
            livenessProbe: c.livenessProbe,
            readinessProbe: c.readinessProbe,
            terminationMessagePolicy: 'FallbackToLogsOnError',
          })),
          serviceAccountName: o.serviceAccountName,
          volumes: [...(o.volumes ?? [])],
        },
      },
    },
  };
  if (o.placement !== false) withHcpPlacement(d, { component: o.name, spreadOverZones: o.spreadOverZones, selector });
  if (o.managementKasAccess) withManagementKasAccess(d);
  // Order of env, mounts and volumes: the caller's, then the hosted kubeconfig, then proxy and /tmp.
  withHostedKubeconfig(d, o.containers.filter((c) => c.hostedKubeconfig).map((c) => c.name));
  if (o.proxy !== false) withProxyEnv(d);
  if (o.restricted !== false) withRestrictedSecurity(d);
  if (o.priorityClass !== false) withPriorityClass(d, o.priorityClass ?? PRIORITY_CLASS);
  if (o.tmpVolume !== false) withTmpVolume(d);
  // Lists nothing was added to are left out rather than emitted as `[]`.
  const pod = podSpec(d);
  for (const c of containersOf(d)) for (const k of ['env', 'volumeMounts']) if ((c[k] as YamlValue[]).length === 0) delete c[k];
  if ((pod.volumes as YamlValue[]).length === 0) delete pod.volumes;
  return d;
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
