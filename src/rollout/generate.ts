/**
 * Builds the OpenShift Template that app-interface processes to ship a PKO package to every
 * HyperShift hosted-control-plane namespace:
 *   Template → Hive SelectorSyncSet (service clusters = ACM hubs) → ACM Policy (+ placement)
 *   → ConfigurationPolicy (management clusters, HCP namespaces) → ObjectTemplate/Package.
 * Knows nothing about a particular package: everything package-specific is an option.
 * Shapes follow docs/rollout-reference.md §3–§7 and the real templates that converged on them.
 */
import { emitDocument, RawValue, YamlValue } from '../yaml/emit.js';

export const ACM_POLICY_NAMESPACE = 'openshift-acm-policies';
export const HCP_NAMESPACE_LABEL = 'hypershift.openshift.io/hosted-control-plane';
export const MANAGEMENT_CLUSTER_LABEL = 'hypershift.open-cluster-management.io/management-cluster';
export const CLUSTER_TYPE_LABEL = 'ext-hypershift.openshift.io/cluster-type';
export const DISABLE_TEMPLATES_ANNOTATION = 'policy.open-cluster-management.io/disable-templates';
/** Replicated policy name `<ns>.<name>` must fit a 63-char label value (propagator webhook). */
export const POLICY_NAME_BUDGET = 62;

/** A Template parameter whose value becomes one key of the Package config. */
export interface ConfigParameter {
  /** Template parameter name, `[A-Za-z0-9_]+`. */
  parameter: string;
  /** Key in `Package.spec.config`. */
  configKey: string;
  description?: string;
  /** Default false: the SaaS file must supply it. */
  optional?: boolean;
  /** Default value when optional. */
  value?: string;
  /** `image-digest`: the value is a complete `repo@sha256:<hex>` reference (checked by lint). */
  format?: 'string' | 'image-digest';
}

/** A value read on the management cluster (in each HCP namespace) by the PKO ObjectTemplate. */
export interface ConfigSource {
  configKey: string;
  apiVersion: string;
  kind: string;
  name: string;
  /** Key inside the source object's `data` (e.g. `service-ca.crt`). */
  dataKey: string;
  optional?: boolean;
}

export type RolloutStrategy = { instant: Record<string, never> } | { rollingUpgrade: { maxUnavailable: number } };

export interface RolloutTemplateOptions {
  /** Package (and HostedClusterPackage) `metadata.name`. */
  packageName: string;
  /** Template `metadata.name`; default `<packageName>-hs-package-template`. */
  templateName?: string;
  /** Name of SSS, Policy, ConfigurationPolicy; default `hs-mgmt-<packageName>`. */
  policyName?: string;
  /** Value of the `managed.openshift.io/gitRepoName` label; default packageName. */
  repoName?: string;
  /** Parameters mapped to config keys (runtime images, deploy-supplied values). */
  config?: ConfigParameter[];
  /** Values read from each HCP namespace into the config (needs an ObjectTemplate). */
  sources?: ConfigSource[];
  /**
   * How the Package reaches its clusters. Default `ConfigurationPolicy` (HCP namespaces via ACM).
   * `ClusterPackage`: the classic OSD/ROSA rollout, the SelectorSyncSet carries a ClusterPackage
   * that hive applies on every selected cluster (a Cluster-scoped package; no ACM, no sources).
   */
  delivery?: 'ConfigurationPolicy' | 'HostedClusterPackage' | 'ClusterPackage';
  /** Only with delivery ClusterPackage: extra `matchLabels` of the clusterDeploymentSelector. */
  clusterLabels?: Record<string, string>;
  /** Only with delivery HostedClusterPackage. Default instant. */
  strategy?: RolloutStrategy;
  /** ACM placement API. Default `PlacementRule` (what the fleet uses). */
  placement?: 'PlacementRule' | 'Placement';
  /** ManagedClusterSet bound for a Placement; default `global`. */
  clusterSet?: string;
  /** Restrict the SSS to OSD-managed service clusters (`api.openshift.com/managed In [true]`). Default true. */
  managedOnly?: boolean;
  /** Keep the SSS off FedRAMP shards (`api.openshift.com/fedramp NotIn [true]`). Default false. */
  excludeFedramp?: boolean;
  remediationAction?: 'enforce' | 'inform';
  evaluationInterval?: { compliant: string; noncompliant: string };
  severity?: 'low' | 'medium' | 'high' | 'critical';
}

export class RolloutOptionsError extends Error {}

const PARAM_NAME = /^[A-Za-z0-9_]+$/;
const CONFIG_KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;

interface Resolved {
  packageName: string;
  templateName: string;
  policyName: string;
  repoName: string;
  config: ConfigParameter[];
  sources: ConfigSource[];
  delivery: 'ConfigurationPolicy' | 'HostedClusterPackage' | 'ClusterPackage';
  clusterLabels: Record<string, string>;
  strategy: RolloutStrategy;
  placement: 'PlacementRule' | 'Placement';
  clusterSet: string;
  managedOnly: boolean;
  excludeFedramp: boolean;
  remediationAction: 'enforce' | 'inform';
  evaluationInterval: { compliant: string; noncompliant: string };
  severity: string;
}

function resolve(o: RolloutTemplateOptions): Resolved {
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (!dns.test(o.packageName) || o.packageName.length > 63) throw new RolloutOptionsError(`packageName ${JSON.stringify(o.packageName)} is not a DNS-1123 label`);
  const classic = o.delivery === 'ClusterPackage';
  const policyName = o.policyName ?? (classic ? o.packageName : `hs-mgmt-${o.packageName}`);
  if (!dns.test(policyName)) throw new RolloutOptionsError(`policyName ${JSON.stringify(policyName)} is not a DNS-1123 label`);
  if (!classic && ACM_POLICY_NAMESPACE.length + policyName.length > POLICY_NAME_BUDGET) {
    throw new RolloutOptionsError(
      `policyName ${JSON.stringify(policyName)} has ${policyName.length} characters; with namespace ${ACM_POLICY_NAMESPACE} the limit is ${POLICY_NAME_BUDGET - ACM_POLICY_NAMESPACE.length}`,
    );
  }
  const config = o.config ?? [];
  const sources = o.sources ?? [];
  const seenParams = new Set(['REGISTRY_IMG', 'IMAGE_DIGEST', 'IMAGE_TAG']);
  const seenKeys = new Set<string>();
  for (const c of config) {
    if (!PARAM_NAME.test(c.parameter)) throw new RolloutOptionsError(`parameter name ${JSON.stringify(c.parameter)} must match [A-Za-z0-9_]+`);
    if (seenParams.has(c.parameter)) throw new RolloutOptionsError(`parameter ${c.parameter} is declared twice (REGISTRY_IMG, IMAGE_DIGEST and IMAGE_TAG are always declared)`);
    seenParams.add(c.parameter);
  }
  for (const k of [...config.map((c) => c.configKey), ...sources.map((s) => s.configKey)]) {
    if (!CONFIG_KEY.test(k)) throw new RolloutOptionsError(`config key ${JSON.stringify(k)} must be an identifier (it is used as a Go template field)`);
    if (seenKeys.has(k)) throw new RolloutOptionsError(`config key ${k} is mapped twice`);
    seenKeys.add(k);
  }
  const delivery = o.delivery ?? 'ConfigurationPolicy';
  if (delivery === 'HostedClusterPackage' && sources.length > 0) {
    // HostedClusterPackage.spec.template has no ObjectTemplate-style sources.
    throw new RolloutOptionsError('delivery HostedClusterPackage cannot read per-namespace sources; use ConfigurationPolicy delivery or read the value inside the package');
  }
  if (o.strategy && delivery !== 'HostedClusterPackage') throw new RolloutOptionsError('strategy applies only to delivery HostedClusterPackage');
  if (classic && sources.length > 0) throw new RolloutOptionsError('delivery ClusterPackage cannot read per-namespace sources (hive applies the ClusterPackage as written)');
  if (o.clusterLabels && !classic) throw new RolloutOptionsError('clusterLabels applies only to delivery ClusterPackage');
  // An empty clusterDeploymentSelector is every ClusterDeployment of the shard.
  if (classic && o.managedOnly === false && !o.excludeFedramp && Object.keys(o.clusterLabels ?? {}).length === 0) {
    throw new RolloutOptionsError('delivery ClusterPackage needs a cluster selector: keep managedOnly, set excludeFedramp or clusterLabels');
  }
  const strategy = o.strategy ?? { instant: {} };
  if ('rollingUpgrade' in strategy && !(Number.isInteger(strategy.rollingUpgrade.maxUnavailable) && strategy.rollingUpgrade.maxUnavailable >= 1)) {
    throw new RolloutOptionsError('strategy.rollingUpgrade.maxUnavailable must be an integer >= 1');
  }
  return {
    packageName: o.packageName,
    templateName: o.templateName ?? (classic ? `${o.packageName}-package-template` : `${o.packageName}-hs-package-template`),
    policyName,
    repoName: o.repoName ?? o.packageName,
    config,
    sources,
    delivery,
    clusterLabels: o.clusterLabels ?? {},
    strategy,
    placement: o.placement ?? 'PlacementRule',
    clusterSet: o.clusterSet ?? 'global',
    managedOnly: o.managedOnly ?? true,
    excludeFedramp: o.excludeFedramp ?? false,
    remediationAction: o.remediationAction ?? 'enforce',
    evaluationInterval: o.evaluationInterval ?? { compliant: '2m', noncompliant: '45s' },
    severity: o.severity ?? 'low',
  };
}

/** A literal block scalar whose text is kept byte for byte (Go template text included). */
function literalBlock(text: string): RawValue {
  const body = text.endsWith('\n') ? text.slice(0, -1) : text;
  for (const line of body.split('\n')) {
    if (/[ \t]$/.test(line)) throw new RolloutOptionsError(`template line has trailing whitespace: ${JSON.stringify(line)}`);
  }
  return new RawValue((indent) => ' |\n' + body.split('\n').map((l) => (l === '' ? '' : ' '.repeat(indent + 2) + l)).join('\n'));
}

/** A YAML double-quoted scalar (JSON string syntax is valid YAML). */
function quoted(s: string): string {
  return JSON.stringify(s);
}

function parameters(r: Resolved): YamlValue[] {
  const out: YamlValue[] = [
    { name: 'REGISTRY_IMG', required: true, description: 'Package image repository, set by the SaaS resourceTemplate' },
    { name: 'IMAGE_DIGEST', required: true, description: 'sha256 digest of the REGISTRY_IMG image tagged IMAGE_TAG, computed by saasherder' },
    { name: 'IMAGE_TAG', required: true, description: 'Short commit sha, set by saasherder' },
  ];
  for (const c of r.config) {
    out.push({
      name: c.parameter,
      required: !c.optional,
      value: c.optional ? (c.value ?? '') : undefined,
      description: c.description ?? `Package config ${c.configKey}${c.format === 'image-digest' ? ' (image reference pinned by digest: repo@sha256:...)' : ''}`,
    });
  }
  return out;
}

const PACKAGE_IMAGE = '${REGISTRY_IMG}@${IMAGE_DIGEST}';

/** The Package config as plain data (no sources). */
function staticConfig(r: Resolved): Record<string, YamlValue> {
  const cfg: Record<string, YamlValue> = {};
  for (const c of r.config) cfg[c.configKey] = '${' + c.parameter + '}';
  return cfg;
}

/** PKO ObjectTemplate text: the Package, with parameters placed by oc process and sources by PKO. */
function objectTemplateText(r: Resolved): string {
  const lines = ['apiVersion: package-operator.run/v1alpha1', 'kind: Package', 'metadata:', `  name: ${r.packageName}`, 'spec:', `  image: ${PACKAGE_IMAGE}`];
  const keys = [...r.config.map((c) => c.configKey), ...r.sources.map((s) => s.configKey)].sort();
  if (keys.length > 0) {
    lines.push('  config:');
    for (const k of keys) {
      const c = r.config.find((x) => x.configKey === k);
      // Parameter values are double-quoted YAML; source values go through toJson, which
      // yields a JSON string (PEM newlines escaped) or null when an optional source is absent.
      if (c) lines.push(`    ${k}: ${quoted('${' + c.parameter + '}')}`);
      else lines.push(`    ${k}: {{ .config.${k} | toJson }}`);
    }
  }
  return lines.join('\n') + '\n';
}

function payload(r: Resolved): { object: Record<string, YamlValue>; templated: boolean } {
  if (r.delivery === 'HostedClusterPackage') {
    const cfg = staticConfig(r);
    return {
      templated: false,
      object: {
        apiVersion: 'package-operator.run/v1alpha1',
        kind: 'HostedClusterPackage',
        metadata: { name: r.packageName },
        spec: {
          hostedClusterSelector: {},
          strategy: r.strategy as unknown as YamlValue,
          template: { spec: { image: PACKAGE_IMAGE, config: Object.keys(cfg).length ? cfg : undefined } },
        },
      },
    };
  }
  if (r.sources.length === 0) {
    const cfg = staticConfig(r);
    return {
      templated: false,
      object: {
        apiVersion: 'package-operator.run/v1alpha1',
        kind: 'Package',
        metadata: { name: r.packageName },
        spec: { image: PACKAGE_IMAGE, config: Object.keys(cfg).length ? cfg : undefined },
      },
    };
  }
  return {
    templated: true,
    object: {
      apiVersion: 'package-operator.run/v1alpha1',
      kind: 'ObjectTemplate',
      metadata: { name: r.packageName },
      spec: {
        template: literalBlock(objectTemplateText(r)),
        sources: r.sources.map((s) => ({
          apiVersion: s.apiVersion,
          kind: s.kind,
          name: s.name,
          optional: s.optional ? true : undefined,
          // PKO's JSONPath: dots inside a key are escaped.
          items: [{ key: `.data['${s.dataKey.replace(/\./g, '\\.')}']`, destination: `.${s.configKey}` }],
        })),
      },
    },
  };
}

function configurationPolicy(r: Resolved): Record<string, YamlValue> {
  const { object, templated } = payload(r);
  return {
    apiVersion: 'policy.open-cluster-management.io/v1',
    kind: 'ConfigurationPolicy',
    metadata: {
      name: r.policyName,
      // ACM would otherwise execute the PKO `{{ }}` in the ObjectTemplate itself.
      annotations: templated ? { [DISABLE_TEMPLATES_ANNOTATION]: 'true' } : undefined,
    },
    spec: {
      remediationAction: r.remediationAction,
      severity: r.severity,
      // On the ConfigurationPolicy, not the Policy: removing the policy deletes what it created.
      pruneObjectBehavior: 'DeleteIfCreated',
      evaluationInterval: r.evaluationInterval,
      namespaceSelector: r.delivery === 'HostedClusterPackage' ? undefined : { matchLabels: { [HCP_NAMESPACE_LABEL]: 'true' } },
      'object-templates': [{ complianceType: 'mustonlyhave', metadataComplianceType: 'musthave', objectDefinition: object }],
    },
  };
}

/** The classic form's one resource: hive applies it on each selected cluster. */
function clusterPackage(r: Resolved): Record<string, YamlValue> {
  const cfg = staticConfig(r);
  return {
    apiVersion: 'package-operator.run/v1alpha1',
    kind: 'ClusterPackage',
    metadata: { name: r.packageName },
    spec: { image: PACKAGE_IMAGE, config: Object.keys(cfg).length ? cfg : undefined },
  };
}

function hubResources(r: Resolved): Record<string, YamlValue>[] {
  const ns = ACM_POLICY_NAMESPACE;
  const placementName = `placement-${r.policyName}`;
  const policy: Record<string, YamlValue> = {
    apiVersion: 'policy.open-cluster-management.io/v1',
    kind: 'Policy',
    metadata: {
      name: r.policyName,
      namespace: ns,
      annotations: {
        'policy.open-cluster-management.io/categories': 'CM Configuration Management',
        'policy.open-cluster-management.io/controls': 'CM-2 Baseline Configuration',
        'policy.open-cluster-management.io/standards': 'NIST SP 800-53',
      },
    },
    spec: { disabled: false, remediationAction: r.remediationAction, 'policy-templates': [{ objectDefinition: configurationPolicy(r) }] },
  };
  const selector = { matchExpressions: [{ key: MANAGEMENT_CLUSTER_LABEL, operator: 'In', values: ['true'] }] };
  const placement: Record<string, YamlValue>[] =
    r.placement === 'PlacementRule'
      ? [{ apiVersion: 'apps.open-cluster-management.io/v1', kind: 'PlacementRule', metadata: { name: placementName, namespace: ns }, spec: { clusterSelector: selector } }]
      : [
          {
            apiVersion: 'cluster.open-cluster-management.io/v1beta1',
            kind: 'Placement',
            metadata: { name: placementName, namespace: ns },
            spec: { clusterSets: [r.clusterSet], predicates: [{ requiredClusterSelector: { labelSelector: selector } }] },
          },
          // A Placement selects nothing unless a cluster set is bound to its namespace.
          { apiVersion: 'cluster.open-cluster-management.io/v1beta2', kind: 'ManagedClusterSetBinding', metadata: { name: r.clusterSet, namespace: ns }, spec: { clusterSet: r.clusterSet } },
        ];
  const binding: Record<string, YamlValue> = {
    apiVersion: 'policy.open-cluster-management.io/v1',
    kind: 'PlacementBinding',
    metadata: { name: `binding-${r.policyName}`, namespace: ns },
    placementRef:
      r.placement === 'PlacementRule'
        ? { apiGroup: 'apps.open-cluster-management.io', kind: 'PlacementRule', name: placementName }
        : { apiGroup: 'cluster.open-cluster-management.io', kind: 'Placement', name: placementName },
    subjects: [{ apiGroup: 'policy.open-cluster-management.io', kind: 'Policy', name: r.policyName }],
  };
  return [policy, ...placement, binding];
}

/** The Template as plain data (the shape `emitRolloutTemplate` writes). */
export function buildRolloutTemplate(options: RolloutTemplateOptions): Record<string, YamlValue> {
  const r = resolve(options);
  // Classic: the clusters themselves; otherwise the ACM hubs, HyperShift service clusters.
  const classic = r.delivery === 'ClusterPackage';
  const expressions: YamlValue[] = classic ? [] : [{ key: CLUSTER_TYPE_LABEL, operator: 'In', values: ['service-cluster'] }];
  if (r.managedOnly) expressions.push({ key: 'api.openshift.com/managed', operator: 'In', values: ['true'] });
  if (r.excludeFedramp) expressions.push({ key: 'api.openshift.com/fedramp', operator: 'NotIn', values: ['true'] });
  const sss: Record<string, YamlValue> = {
    apiVersion: 'hive.openshift.io/v1',
    kind: 'SelectorSyncSet',
    metadata: {
      name: r.policyName,
      labels: {
        'managed.openshift.io/gitHash': '${IMAGE_TAG}',
        'managed.openshift.io/gitRepoName': r.repoName,
        'managed.openshift.io/osd': 'true',
      },
    },
    spec: {
      clusterDeploymentSelector: {
        matchLabels: Object.keys(r.clusterLabels).length ? r.clusterLabels : undefined,
        matchExpressions: expressions.length ? expressions : undefined,
      },
      resourceApplyMode: 'Sync',
      resources: classic ? [clusterPackage(r)] : hubResources(r),
    },
  };
  return {
    apiVersion: 'template.openshift.io/v1',
    kind: 'Template',
    metadata: { name: r.templateName },
    parameters: parameters(r),
    objects: [sss],
  };
}

/** The Template as YAML text, ready for `hack/<name>.SelectorSyncSet.yaml.tmpl`. */
export function emitRolloutTemplate(options: RolloutTemplateOptions): string {
  return emitDocument(buildRolloutTemplate(options));
}
