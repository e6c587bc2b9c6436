/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions for NodePoolOSConfig and NodePoolOSBuild, as
 * plain objects (the package generator emits them into the hosted-cluster phase).
 *
 * Rules mirror MachineOSConfig/MachineOSBuild v1 (docs/design/api-and-admission.md "API and admission"), with two
 * deliberate differences: names are checked with an OpenAPI `pattern` rather than CEL's
 * `format.*` library (that library is newer than some hosted clusters' Kubernetes), and every
 * string and list has a bound so the API server's CEL cost estimate stays small.
 */
import {
  BUILD_CONDITION_TYPES, BUILD_KIND, BUILD_PLURAL, BUILD_SHORT_NAME, BUILD_SINGULAR, CATEGORY,
  CONFIG_KIND, CONFIG_PLURAL, CONFIG_SHORT_NAME, CONFIG_SINGULAR, CONTAINERFILE_ARCHES, DEFAULT_CONTAINERFILE_ARCH,
  BUILD_NAMESPACE, DIGESTED_PULL_SPEC_RE, DNS1123_SUBDOMAIN_RE, FINAL_STAGE_RE, GROUP, HOSTED_NAMESPACE, IMAGE_BUILDER_TYPES, IMAGE_REF_RE, LIMITS,
  NODE_POOL_NAME_MAX, PUSH_SPEC_RE, VERSION,
} from './types.js';

type Json = Record<string, unknown>;

const str = (description: string, extra: Json = {}): Json => ({ type: 'string', description, ...extra });

const obj = (description: string, properties: Record<string, Json>, required: string[] = [], extra: Json = {}): Json => ({
  type: 'object',
  description,
  properties,
  ...(required.length ? { required } : {}),
  ...extra,
});

/** A Kubernetes object name: DNS-1123 subdomain. */
const dnsName = (description: string, maxLength: number = LIMITS.name): Json =>
  str(description, { minLength: 1, maxLength, pattern: DNS1123_SUBDOMAIN_RE.source });

const secretRef = (description: string): Json =>
  obj(description, { name: dnsName(`name of the Secret (a DNS-1123 subdomain, at most ${LIMITS.name} characters)`) }, ['name']);

/** A CEL rule on a string, with the same regex the webhook uses (RE2 and JavaScript read it alike). */
const matches = (re: RegExp, message: string): Json => ({ rule: `self.matches(${JSON.stringify(re.source)})`, message });

const pushSpec = (description: string): Json =>
  str(description, {
    minLength: 1,
    maxLength: LIMITS.imageSpec,
    'x-kubernetes-validations': [
      matches(PUSH_SPEC_RE, 'must be host[:port][/namespace]/name:tag, without a digest (e.g. quay.example.com/org/os-images:latest)'),
    ],
  });

const digestedPullSpec = (description: string): Json =>
  str(description, {
    minLength: 1,
    maxLength: LIMITS.imageSpec,
    'x-kubernetes-validations': [matches(DIGESTED_PULL_SPEC_RE, 'must be host[:port][/namespace]/name@sha256:<64 lowercase hex>')],
  });

/** metav1.Condition, the shape MachineOSConfig/MachineOSBuild v1 use. */
function conditions(description: string, types?: readonly string[]): Json {
  const typeField = str('type of condition in CamelCase or in foo.example.com/CamelCase', {
    maxLength: LIMITS.conditionType,
    pattern: '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
    ...(types ? { enum: [...types] } : {}),
  });
  return {
    type: 'array',
    description,
    maxItems: LIMITS.conditions,
    'x-kubernetes-list-type': 'map',
    'x-kubernetes-list-map-keys': ['type'],
    items: obj(
      'one aspect of the current state of this object',
      {
        type: typeField,
        status: str('status of the condition: True, False or Unknown', { enum: ['True', 'False', 'Unknown'] }),
        reason: str('programmatic identifier (CamelCase) of the reason for the last transition', {
          minLength: 1,
          maxLength: LIMITS.conditionReason,
          pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$',
        }),
        message: str('human-readable details about the last transition; may be empty', { maxLength: LIMITS.conditionMessage }),
        lastTransitionTime: str('when the condition last changed status', { format: 'date-time' }),
        observedGeneration: {
          type: 'integer',
          format: 'int64',
          minimum: 0,
          description: 'metadata.generation the condition was set from',
        },
      },
      ['type', 'status', 'reason', 'message', 'lastTransitionTime'],
    ),
  };
}

const observedGeneration = (description: string): Json => ({
  type: 'integer',
  format: 'int64',
  minimum: 0,
  description,
  'x-kubernetes-validations': [{ rule: 'self >= oldSelf', message: 'observedGeneration must not move backwards' }],
});

const objectReference = (description: string, namespaced: boolean): Json =>
  obj(
    description,
    {
      group: str('API group of the referenced object; empty for the core group', { maxLength: LIMITS.name }),
      resource: str('resource (plural, lowercase) of the referenced object', { minLength: 1, maxLength: 63 }),
      ...(namespaced ? { namespace: dnsName('namespace of the referenced object', 63) } : {}),
      name: dnsName('name of the referenced object'),
    },
    ['group', 'resource', 'name'],
  );

const TYPE_META = {
  apiVersion: str('versioned schema of this representation of an object', { maxLength: LIMITS.name }),
  kind: str('REST resource this object represents', { maxLength: 63 }),
  metadata: { type: 'object' as const },
};

function crd(kind: string, plural: string, singular: string, shortName: string, schema: Json, columns: Json[]): Json {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${GROUP}` },
    spec: {
      group: GROUP,
      names: { kind, listKind: `${kind}List`, plural, singular, shortNames: [shortName], categories: [CATEGORY] },
      scope: 'Cluster',
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: columns,
          schema: { openAPIV3Schema: schema },
        },
      ],
    },
  };
}

const AGE = { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' };

export function nodePoolOSConfigCRD(): Json {
  const spec = obj(
    'what to build for one NodePool and where to push it',
    {
      nodePool: obj(
        'the NodePool (in the HostedCluster\'s namespace on the management cluster) whose nodes run the built image; metadata.name must equal its name',
        {
          name: dnsName(
            `name of the NodePool; at most ${NODE_POOL_NAME_MAX} characters so the build Job name "build-<name>-<10 hex>" fits in 63`,
            NODE_POOL_NAME_MAX,
          ),
        },
        ['name'],
      ),
      imageBuilder: obj(
        'which builder runs each build',
        { imageBuilderType: str('the build backend; only Job is supported', { enum: [...IMAGE_BUILDER_TYPES] }) },
        ['imageBuilderType'],
      ),
      baseImagePullSecret: secretRef(
        `Secret in the hosted cluster's namespace ${HOSTED_NAMESPACE} used to pull the base OS image; when unset, the hosted cluster's own pull secret (openshift-config/pull-secret) is used`,
      ),
      renderedImagePushSecret: secretRef(
        `a kubernetes.io/dockerconfigjson Secret in the hosted cluster's namespace ${HOSTED_NAMESPACE} used to push the built image`,
      ),
      renderedImagePushSpec: pushSpec(
        `where the built image is pushed: host[:port][/namespace]/name:tag, at most ${LIMITS.imageSpec} characters; the tag is replaced by the build's name`,
      ),
      containerFile: {
        type: 'array',
        description: `custom Containerfiles, at most one per architecture (${LIMITS.containerFileItems} in all); each must define the stage "FROM configs AS final"`,
        minItems: 0,
        maxItems: LIMITS.containerFileItems,
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['containerfileArch'],
        items: obj(
          'a Containerfile for one architecture',
          {
            containerfileArch: str('architecture this Containerfile is built for; NoArch applies to every architecture', {
              enum: [...CONTAINERFILE_ARCHES],
              default: DEFAULT_CONTAINERFILE_ARCH,
            }),
            content: str(`the Containerfile, 1 to ${LIMITS.containerFileContent} characters`, {
              minLength: 1,
              maxLength: LIMITS.containerFileContent,
              'x-kubernetes-validations': [
                matches(FINAL_STAGE_RE, 'must contain the line "FROM configs AS final"'),
              ],
            }),
          },
          ['content'],
        ),
      },
    },
    ['nodePool', 'imageBuilder', 'renderedImagePushSecret', 'renderedImagePushSpec'],
  );
  const status = obj('what the controller observed and built', {
    conditions: conditions('state of the configuration as the controller sees it'),
    observedGeneration: observedGeneration('metadata.generation the controller last acted on'),
    currentImagePullSpec: digestedPullSpec('the last successfully built image, by digest'),
    nodePoolOSBuild: objectReference('the NodePoolOSBuild of the current or latest build', false),
  });
  const schema = obj(
    'NodePoolOSConfig: an on-cluster OS image build configuration for one NodePool of this hosted cluster',
    { ...TYPE_META, spec, status },
    ['spec'],
    {
      'x-kubernetes-validations': [
        {
          rule: 'self.metadata.name == self.spec.nodePool.name',
          message: 'metadata.name must equal spec.nodePool.name: one NodePoolOSConfig per NodePool',
        },
      ],
    },
  );
  return crd(CONFIG_KIND, CONFIG_PLURAL, CONFIG_SINGULAR, CONFIG_SHORT_NAME, schema, [
    { name: 'NodePool', type: 'string', jsonPath: '.spec.nodePool.name' },
    { name: 'Image', type: 'string', jsonPath: '.status.currentImagePullSpec' },
    AGE,
  ]);
}

export function nodePoolOSBuildCRD(): Json {
  const spec = obj(
    'the inputs of one build; set by the controller and immutable',
    {
      nodePoolOSConfig: obj('the NodePoolOSConfig this build is for', { name: dnsName('name of the NodePoolOSConfig', NODE_POOL_NAME_MAX) }, ['name']),
      nodePool: obj('the NodePool this build is for', { name: dnsName('name of the NodePool', NODE_POOL_NAME_MAX) }, ['name']),
      releaseImage: str('the NodePool\'s release image', { minLength: 1, maxLength: LIMITS.imageSpec, pattern: IMAGE_REF_RE.source }),
      baseOSImage: digestedPullSpec('the release\'s rhel-coreos image the build starts from, by digest'),
      renderedImagePushSpec: pushSpec('where the built image is pushed (host[:port][/namespace]/name:tag)'),
    },
    ['nodePoolOSConfig', 'nodePool', 'releaseImage', 'baseOSImage', 'renderedImagePushSpec'],
    { 'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: 'spec is immutable' }] },
  );
  const buildTime = (what: string): Json =>
    str(`when the build ${what}; immutable once set`, {
      format: 'date-time',
      'x-kubernetes-validations': [{ rule: 'self == oldSelf', message: `build${what === 'started' ? 'Start' : 'End'} is immutable once set` }],
    });
  const status = obj('progress and result of the build', {
    conditions: conditions(`state of the build: ${BUILD_CONDITION_TYPES.join(', ')}`, BUILD_CONDITION_TYPES),
    builder: obj(
      'the builder running this build',
      {
        imageBuilderType: str('the build backend', { enum: [...IMAGE_BUILDER_TYPES] }),
        job: obj(
          `the build Job, in the hosted cluster's namespace ${BUILD_NAMESPACE}`,
          {
            group: str('API group of the Job', { enum: ['batch'] }),
            resource: str('resource of the Job', { enum: ['jobs'] }),
            namespace: dnsName('namespace of the Job in the hosted cluster', 63),
            name: dnsName('name of the Job', 63),
          },
          ['group', 'resource', 'namespace', 'name'],
        ),
      },
      ['imageBuilderType'],
      { 'x-kubernetes-validations': [{ rule: "self.imageBuilderType == 'Job' ? has(self.job) : !has(self.job)", message: 'job is required when imageBuilderType is Job, and forbidden otherwise' }] },
    ),
    buildStart: buildTime('started'),
    buildEnd: buildTime('ended'),
    digestedImagePushSpec: digestedPullSpec('the pushed image, by digest'),
    relatedObjects: {
      type: 'array',
      description: `objects the build created or used (ConfigMaps, Secrets) in the hosted cluster's namespace ${BUILD_NAMESPACE}`,
      maxItems: LIMITS.relatedObjects,
      'x-kubernetes-list-type': 'atomic',
      items: objectReference('an object the build created or used', true),
    },
  });
  const schema = obj(
    'NodePoolOSBuild: one on-cluster OS image build, created and updated by the on-cluster-build controller only',
    { ...TYPE_META, spec, status },
    ['spec'],
  );
  const condColumn = (t: string): Json => ({ name: t, type: 'string', jsonPath: `.status.conditions[?(@.type=="${t}")].status` });
  return crd(BUILD_KIND, BUILD_PLURAL, BUILD_SINGULAR, BUILD_SHORT_NAME, schema, [
    { name: 'NodePool', type: 'string', jsonPath: '.spec.nodePool.name' },
    ...BUILD_CONDITION_TYPES.map(condColumn),
    AGE,
  ]);
}

/** Both CRDs, in a stable order. */
export function onClusterBuildCRDs(): Json[] {
  return [nodePoolOSConfigCRD(), nodePoolOSBuildCRD()];
}
