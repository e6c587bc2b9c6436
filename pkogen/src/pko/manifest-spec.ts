/**
 * The Go shapes of PackageManifest and PackageManifestLock (apis/manifests/v1alpha1), as decoder
 * specs: which keys exist, and which JSON types fit them.
 */
import { ANY, B, FieldSpec, I, S, strMap } from './go-json-decode.js';

const list = (of: FieldSpec, goType: string): FieldSpec => ({ t: 'list', of, goType });
const struct = (goName: string, fields: Record<string, FieldSpec>, ignoreUnknown = false): FieldSpec => ({ t: 'struct', goName, fields, ignoreUnknown });

const objectMeta = struct('ObjectMeta', {
  name: S, generateName: S, namespace: S, selfLink: S, uid: S, resourceVersion: S, generation: I,
  creationTimestamp: ANY, deletionTimestamp: ANY, deletionGracePeriodSeconds: I,
  labels: strMap, annotations: strMap, ownerReferences: ANY, finalizers: ANY, managedFields: ANY,
});

const templateMeta = (goName: string): FieldSpec => struct(goName, { name: S, namespace: S, labels: strMap, annotations: strMap });

const labelSelector = struct('LabelSelector', {
  matchLabels: strMap,
  matchExpressions: list(struct('LabelSelectorRequirement', { key: S, operator: S, values: list(S, '[]string') }), '[]v1.LabelSelectorRequirement'),
});

const probe = struct('Probe', {
  condition: struct('ProbeConditionSpec', { type: S, status: S }),
  fieldsEqual: struct('ProbeFieldsEqualSpec', { fieldA: S, fieldB: S }),
  cel: struct('ProbeCELSpec', { rule: S, message: S }),
});

const objectSetProbe = struct('ObjectSetProbe', {
  probes: list(probe, '[]v1alpha1.Probe'),
  selector: struct('ProbeSelector', { kind: struct('PackageProbeKindSpec', { group: S, kind: S }), selector: labelSelector }),
});

/**
 * apiextensions.k8s.io/v1 JSONSchemaProps, as PKO decodes `spec.config.openAPIV3Schema` into it
 * (kubernetes/apiextensions-apiserver 1aa2717a552ee6ca1e2a18f1f8ffccde981db923,
 * pkg/apis/apiextensions/v1/types_jsonschema.go and marshal.go). Unknown keys are ignored, as Go
 * does; the config-schema checks report what matters about them.
 */
const jsonSchemaProps: FieldSpec = { t: 'struct', goName: 'JSONSchemaProps', goType: 'v1.JSONSchemaProps', fields: {}, ignoreUnknown: true };
const schemaRef: FieldSpec = { t: 'lazy', get: () => jsonSchemaProps };
const JSONV: FieldSpec = { t: 'json' };
const I64: FieldSpec = { t: 'int', goType: 'int64' };
const F64: FieldSpec = { t: 'float', goType: 'float64' };
Object.assign((jsonSchemaProps as { fields: Record<string, FieldSpec> }).fields, {
  id: S,
  $schema: { t: 'string', goType: 'v1.JSONSchemaURL' },
  $ref: S,
  description: S,
  type: S,
  format: S,
  title: S,
  default: JSONV,
  maximum: F64,
  exclusiveMaximum: B,
  minimum: F64,
  exclusiveMinimum: B,
  maxLength: I64,
  minLength: I64,
  pattern: S,
  maxItems: I64,
  minItems: I64,
  uniqueItems: B,
  multipleOf: F64,
  enum: list(JSONV, '[]v1.JSON'),
  maxProperties: I64,
  minProperties: I64,
  required: list(S, '[]string'),
  items: { t: 'orArray', schema: schemaRef, goType: 'v1.JSONSchemaPropsOrArray' },
  allOf: list(schemaRef, '[]v1.JSONSchemaProps'),
  oneOf: list(schemaRef, '[]v1.JSONSchemaProps'),
  anyOf: list(schemaRef, '[]v1.JSONSchemaProps'),
  not: schemaRef,
  properties: { t: 'map', of: schemaRef, goType: 'map[string]v1.JSONSchemaProps' },
  additionalProperties: { t: 'orBool', schema: schemaRef },
  patternProperties: { t: 'map', of: schemaRef, goType: 'map[string]v1.JSONSchemaProps' },
  dependencies: { t: 'map', of: { t: 'orStringArray', schema: schemaRef }, goType: 'v1.JSONSchemaDependencies' },
  additionalItems: { t: 'orBool', schema: schemaRef },
  definitions: { t: 'map', of: schemaRef, goType: 'v1.JSONSchemaDefinitions' },
  externalDocs: struct('ExternalDocumentation', { description: S, url: S }),
  example: JSONV,
  nullable: B,
  'x-kubernetes-preserve-unknown-fields': B,
  'x-kubernetes-embedded-resource': B,
  'x-kubernetes-int-or-string': B,
  'x-kubernetes-list-map-keys': list(S, '[]string'),
  'x-kubernetes-list-type': S,
  'x-kubernetes-map-type': S,
  'x-kubernetes-validations': list(
    struct('ValidationRule', { rule: S, message: S, messageExpression: S, reason: { t: 'string', goType: 'v1.FieldValueErrorReason' }, fieldPath: S, optionalOldSelf: B }),
    'v1.ValidationRules',
  ),
});

const environment = struct('PackageEnvironment', {
  kubernetes: struct('PackageEnvironmentKubernetes', { version: S }),
  openShift: struct('PackageEnvironmentOpenShift', { version: S, managed: struct('PackageEnvironmentOpenShiftManaged', { data: strMap }) }),
  proxy: struct('PackageEnvironmentProxy', { httpProxy: S, httpsProxy: S, noProxy: S }),
  hyperShift: struct('PackageEnvironmentHyperShift', {
    hostedCluster: struct('PackageEnvironmentHyperShiftHostedCluster', {
      metadata: templateMeta('TemplateContextObjectMeta'),
      hostedClusterNamespace: S,
      nodeSelector: strMap,
    }),
  }),
});

export const PACKAGE_MANIFEST_SPEC: FieldSpec = struct('PackageManifest', {
  apiVersion: S,
  kind: S,
  metadata: objectMeta,
  spec: struct('PackageManifestSpec', {
    scopes: list(S, '[]v1alpha1.PackageManifestScope'),
    phases: list(struct('PackageManifestPhase', { name: S, class: S }), '[]v1alpha1.PackageManifestPhase'),
    availabilityProbes: list(objectSetProbe, '[]v1alpha1.ObjectSetProbe'),
    config: struct('PackageManifestSpecConfig', { openAPIV3Schema: jsonSchemaProps }),
    images: list(struct('PackageManifestImage', { name: S, image: S }), '[]v1alpha1.PackageManifestImage'),
    components: struct('PackageManifestComponentsConfig', {}),
    filter: struct('PackageManifestFilter', {
      conditions: list(struct('PackageManifestNamedCondition', { name: S, expression: S }), '[]v1alpha1.PackageManifestNamedCondition'),
      paths: list(struct('PackageManifestPath', { glob: S, expression: S }), '[]v1alpha1.PackageManifestPath'),
    }),
    constraints: list(struct('PackageManifestConstraint', {
      platformVersion: struct('PackageManifestPlatformVersionConstraint', { name: S, range: S }),
      platform: list(S, '[]v1alpha1.PlatformName'),
      uniqueInScope: struct('PackageManifestUniqueInScopeConstraint', {}),
    }), '[]v1alpha1.PackageManifestConstraint'),
    repositories: list(struct('PackageManifestRepository', { file: S, image: S }), '[]v1alpha1.PackageManifestRepository'),
    dependencies: list(struct('PackageManifestDependency', {
      image: struct('PackageManifestDependencyImage', { name: S, package: S, range: S }),
    }), '[]v1alpha1.PackageManifestDependency'),
  }),
  test: struct('PackageManifestTest', {
    template: list(struct('PackageManifestTestCaseTemplate', {
      name: S,
      context: struct('TemplateContext', {
        package: struct('TemplateContextPackage', { metadata: templateMeta('TemplateContextObjectMeta'), image: S }),
        config: ANY,
        environment,
      }),
    }), '[]v1alpha1.PackageManifestTestCaseTemplate'),
    kubeconform: struct('PackageManifestTestKubeconform', { kubernetesVersion: S, schemaLocations: list(S, '[]string') }),
  }),
});

export const PACKAGE_MANIFEST_LOCK_SPEC: FieldSpec = struct('PackageManifestLock', {
  apiVersion: S,
  kind: S,
  metadata: objectMeta,
  spec: struct('PackageManifestLockSpec', {
    images: list(struct('PackageManifestLockImage', { name: S, image: S, digest: S }), '[]v1alpha1.PackageManifestLockImage'),
    dependencies: list(struct('PackageManifestLockDependency', { name: S, image: S, digest: S, version: S }), '[]v1alpha1.PackageManifestLockDependency'),
  }),
});
