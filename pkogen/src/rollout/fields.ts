/**
 * The few facts about the ACM/Hive/PKO kinds the rollout rules need by name (scopes come from the
 * one scope table, src/schema/scope.ts): the known fields at the levels where the field mistakes of
 * docs/rollout-reference.md §11 happen (a selector that slid one level up, `pruneObjectBehavior`
 * on the Policy). Full CRD validation is the schema registry's job (see SchemaValidator); this
 * table keeps those mistakes caught even when no registry is wired in.
 */

/** kind → dotted path below the object → known keys. */
export const KNOWN_FIELDS: Record<string, Record<string, string[]>> = {
  SelectorSyncSet: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['applyBehavior', 'clusterDeploymentSelector', 'enablePatchTemplates', 'enableResourceTemplates', 'patches', 'resourceApplyMode', 'resources', 'secretMappings'],
    'spec.clusterDeploymentSelector': ['matchExpressions', 'matchLabels'],
  },
  Policy: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['copyPolicyMetadata', 'dependencies', 'disabled', 'hubTemplateOptions', 'policy-templates', 'remediationAction'],
  },
  ConfigurationPolicy: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['customMessage', 'evaluationInterval', 'namespaceSelector', 'object-templates', 'object-templates-raw', 'pruneObjectBehavior', 'remediationAction', 'severity'],
    'spec.namespaceSelector': ['exclude', 'include', 'matchExpressions', 'matchLabels', 'terminatingInclusion'],
    'spec.evaluationInterval': ['compliant', 'noncompliant'],
  },
  PlacementBinding: {
    '': ['apiVersion', 'bindingOverrides', 'kind', 'metadata', 'placementRef', 'status', 'subFilter', 'subjects'],
  },
  PlacementRule: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['clusterConditions', 'clusterReplicas', 'clusterSelector', 'clusters', 'policies', 'resourceHint', 'schedulerName'],
    'spec.clusterSelector': ['matchExpressions', 'matchLabels'],
  },
  Placement: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['clusterSets', 'decisionStrategy', 'numberOfClusters', 'predicates', 'prioritizerPolicy', 'spreadPolicy', 'tolerations'],
  },
  ManagedClusterSetBinding: { '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'], spec: ['clusterSet'] },
  Package: { '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'], spec: ['component', 'config', 'image', 'paused'] },
  ObjectTemplate: { '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'], spec: ['sources', 'template'] },
  HostedClusterPackage: {
    '': ['apiVersion', 'kind', 'metadata', 'spec', 'status'],
    spec: ['hostedClusterSelector', 'partition', 'strategy', 'template'],
    'spec.template': ['metadata', 'spec'],
    'spec.template.spec': ['component', 'config', 'image', 'paused'],
  },
};

export const OBJECT_TEMPLATE_ITEM_FIELDS = ['complianceType', 'metadataComplianceType', 'objectDefinition', 'objectSelector', 'recordDiff', 'recreateOption'];

export const REMEDIATION = ['Inform', 'inform', 'Enforce', 'enforce'];
export const SEVERITY = ['low', 'Low', 'medium', 'Medium', 'high', 'High', 'critical', 'Critical'];
export const PRUNE = ['DeleteAll', 'DeleteIfCreated', 'None'];
export const COMPLIANCE = ['MustHave', 'Musthave', 'musthave', 'MustOnlyHave', 'Mustonlyhave', 'mustonlyhave', 'MustNotHave', 'Mustnothave', 'mustnothave'];
export const METADATA_COMPLIANCE = ['MustHave', 'Musthave', 'musthave', 'MustOnlyHave', 'Mustonlyhave', 'mustonlyhave'];
export const EVALUATION_INTERVAL = /^(?:(?:(?:[0-9]+(?:.[0-9])?)(?:h|m|s|(?:ms)|(?:us)|(?:ns)))|never|watch)+$/;
