/**
 * `--parametrize` for plain manifests, as `kubectl package kickstart --parametrize` does it
 * (package-operator e03279db, internal/packages/internal/packagekickstart/presets/param*.go and
 * kickstart.go addMissingNamespaces): the same flag values and the same config keys and template
 * expressions, written as typed template values in the objects.
 *   namespaces     metadata.namespace of namespaced objects and ClusterRoleBinding subjects'
 *                  namespaces → `default (index .config.namespaces "NS") .config.namespace`;
 *                  config.namespace (default "") and config.namespaces.NS (default NS)
 *   replicas       Deployment spec.replicas → config.deployments.NS.NAME.replicas (default: as is)
 *   nodeselectors  Deployment pod nodeSelector → config.deployments.NS.NAME.nodeSelector (toJson)
 *   tolerations    Deployment pod tolerations: the input's, then config.deployments.NS.NAME.tolerations
 *                  (default []) appended, as upstream's MergeBlock concatenates a list
 *   resources      each container's resources → config.deployments.NS.NAME.containers.C.resources
 *                  (default: the input's, toJson)
 *   env            each container's env: the input's, then
 *                  config.deployments.NS.NAME.containers.C.env (default []) appended
 * Upstream: package-operator e03279db54c3fb57b195f76b8d0bf79f2bc024c8,
 * internal/packages/internal/packagekickstart/presets/param_deployment.go (keys, schemas,
 * expressions) and parametrize/mergeblock.go (a list is `concat` of the input's and config's).
 * Upstream writes the input's list into a `define` block and reads it back with fromYAML; here it
 * is a JSON string literal in the same expression (`concat (fromJson "…") (index …) | toJson`).
 * One difference: upstream leaves the name of a Namespace object that is in the input as it is, so
 * that config.namespace moves the objects but not their Namespace; here the Namespace follows.
 * Not yet: images (upstream moves images to spec.images, which needs a lock file) and `all`: the
 * CLI refuses them by name.
 */
import type { KubeObject, PackageObject } from '../model/package.js';
import { templateNumber, templateObject } from '../model/template-values.js';
import type { RawValue } from '../yaml/emit.js';
import { KickstartTemplateValue } from './templated.js';
import type { JSONSchemaProps } from '../pko/types.js';
import { groupOf, isClusterScoped } from '../schema/scope.js';

export const PARAMETRIZE_SUPPORTED = ['namespaces', 'replicas', 'nodeselectors', 'tolerations', 'resources', 'env'] as const;
export const PARAMETRIZE_UPSTREAM = ['namespaces', 'replicas', 'tolerations', 'nodeselectors', 'resources', 'env', 'images', 'all'] as const;
export type ParametrizeOption = (typeof PARAMETRIZE_SUPPORTED)[number];

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const q = (s: string) => JSON.stringify(s);
/** The library's typed template value, remembered with the call that makes it (for the TypeScript). */
function typed(helper: 'templateNumber' | 'templateObject', arg: string): KickstartTemplateValue {
  const v = (helper === 'templateNumber' ? templateNumber(arg) : templateObject(arg)) as unknown as RawValue;
  return new KickstartTemplateValue({ helper, arg }, v.render);
}
const DEPLOYMENT_OPTIONS: ParametrizeOption[] = ['replicas', 'nodeselectors', 'tolerations', 'resources', 'env'];

function podSpecOf(spec: Record<string, unknown>): Record<string, unknown> {
  const tpl = (isMap(spec.template) ? spec.template : (spec.template = {})) as Record<string, unknown>;
  return (isMap(tpl.spec) ? tpl.spec : (tpl.spec = {})) as Record<string, unknown>;
}

/** The input's list with the config's appended (upstream's MergeBlock over a list). */
function appended(original: unknown[], access: string): KickstartTemplateValue {
  return typed('templateObject', `concat (fromJson ${q(JSON.stringify(original))}) (${access}) | toJson`);
}

/** Upstream's item schemas (param_deployment.go). */
const TOLERATION: JSONSchemaProps = {
  type: 'object',
  properties: { effect: { type: 'string' }, key: { type: 'string' }, operator: { type: 'string' }, tolerationSeconds: { type: 'integer', format: 'int64' }, value: { type: 'string' } },
};
const KEY_REF: JSONSchemaProps = { type: 'object', required: ['key'], properties: { key: { type: 'string' }, name: { type: 'string' }, optional: { type: 'boolean' } } };
const ENV_VAR: JSONSchemaProps = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    value: { type: 'string' },
    valueFrom: {
      type: 'object',
      properties: {
        configMapKeyRef: KEY_REF,
        fieldRef: { type: 'object', required: ['fieldPath'], properties: { apiVersion: { type: 'string' }, fieldPath: { type: 'string' } } },
        secretKeyRef: KEY_REF,
      },
    },
  },
};
const RESOURCE_LIST: JSONSchemaProps = {
  type: 'object',
  additionalProperties: {
    anyOf: [{ type: 'integer' }, { type: 'string' }],
    pattern: '^(\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE](\\+|-)?(([0-9]+(\\.[0-9]*)?)|(\\.[0-9]+))))?$',
    'x-kubernetes-int-or-string': true,
  },
};

const nsExpr = (ns: string) => `{{ default (index .config.namespaces ${q(ns)}) .config.namespace }}`;

/** Rewrites the objects in place (new objects) and returns the config schema to merge. */
export function parametrize(objects: PackageObject[], opts: ReadonlySet<ParametrizeOption>): { objects: PackageObject[]; schema: JSONSchemaProps } {
  const props: Record<string, JSONSchemaProps> = {};
  const namespaces = new Set<string>();
  const deployments: Record<string, Record<string, JSONSchemaProps>> = {};
  const out = objects.map((po) => {
    const o = structuredClone(po.object) as KubeObject & Record<string, unknown>;
    const group = groupOf(o.apiVersion);
    if (opts.has('namespaces')) {
      const ns = typeof o.metadata.namespace === 'string' ? o.metadata.namespace : '';
      if (group === '' && o.kind === 'Namespace') {
        namespaces.add(o.metadata.name);
        o.metadata.name = nsExpr(o.metadata.name);
      } else if (group === 'rbac.authorization.k8s.io' && o.kind === 'ClusterRoleBinding' && Array.isArray(o.subjects)) {
        for (const s of o.subjects) {
          if (!isMap(s) || typeof s.namespace !== 'string') continue;
          if (s.namespace) namespaces.add(s.namespace);
          s.namespace = s.namespace ? nsExpr(s.namespace) : '{{ .config.namespace }}';
        }
      } else if (!isClusterScoped(o.apiVersion, o.kind)) {
        if (ns) namespaces.add(ns);
        o.metadata.namespace = ns ? nsExpr(ns) : '{{ .config.namespace }}';
      }
    }
    if (group === 'apps' && o.kind === 'Deployment' && DEPLOYMENT_OPTIONS.some((x) => opts.has(x))) {
      const ns = typeof po.object.metadata.namespace === 'string' ? po.object.metadata.namespace : '';
      const name = po.object.metadata.name;
      const access = `index .config "deployments" ${q(ns)} ${q(name)}`;
      const own: Record<string, JSONSchemaProps> = {};
      const spec = (isMap(o.spec) ? o.spec : (o.spec = {})) as Record<string, unknown>;
      if (opts.has('replicas')) {
        own.replicas = { type: 'integer', format: 'int32', description: `Replica count for Deployment ${ns}/${name}.`, default: typeof spec.replicas === 'number' ? spec.replicas : 1 };
        spec.replicas = typed('templateNumber', `${access} "replicas"`);
      }
      if (opts.has('nodeselectors')) {
        own.nodeSelector = { type: 'object', description: `NodeSelector for Deployment ${ns}/${name}.`, 'x-kubernetes-preserve-unknown-fields': true };
        const podSpec = podSpecOf(spec);
        podSpec.nodeSelector = typed('templateObject', `${access} "nodeSelector" | toJson`);
      }
      if (opts.has('tolerations')) {
        own.tolerations = { type: 'array', description: `Additional tolerations for Deployment ${ns}/${name}.`, default: [], items: TOLERATION };
        const podSpec = podSpecOf(spec);
        podSpec.tolerations = appended(Array.isArray(podSpec.tolerations) ? podSpec.tolerations : [], `${access} "tolerations"`);
      }
      if (opts.has('resources') || opts.has('env')) {
        const containers: Record<string, JSONSchemaProps> = {};
        const list = podSpecOf(spec).containers;
        for (const c of Array.isArray(list) ? list : []) {
          if (!isMap(c) || typeof c.name !== 'string') continue;
          const cAccess = `${access} "containers" ${q(c.name)}`;
          const cProps: Record<string, JSONSchemaProps> = {};
          if (opts.has('env')) {
            cProps.env = { type: 'array', description: `Additional environment variables for container ${c.name}.`, default: [], items: ENV_VAR };
            c.env = appended(Array.isArray(c.env) ? c.env : [], `${cAccess} "env"`);
          }
          if (opts.has('resources')) {
            cProps.resources = { type: 'object', description: `Resources of container ${c.name}.`, default: isMap(c.resources) ? structuredClone(c.resources) : {}, properties: { limits: RESOURCE_LIST, requests: RESOURCE_LIST } };
            c.resources = typed('templateObject', `${cAccess} "resources" | toJson`);
          }
          containers[c.name] = { type: 'object', description: `Settings of container ${c.name}.`, default: {}, properties: cProps };
        }
        own.containers = { type: 'object', description: `Settings per container of Deployment ${ns}/${name}.`, default: {}, properties: containers };
      }
      (deployments[ns] ??= {})[name] = { type: 'object', default: {}, properties: own };
    }
    return { ...po, object: o as KubeObject };
  });
  if (opts.has('namespaces')) {
    props.namespace = { type: 'string', description: 'Namespace for every namespaced object (empty: each keeps its own, see namespaces).', default: '' };
    if (namespaces.size) {
      props.namespaces = {
        type: 'object',
        description: 'Namespace per namespace of the input, by its name there.',
        default: {},
        properties: Object.fromEntries([...namespaces].sort().map((n) => [n, { type: 'string', description: `Namespace for the objects in ${n}.`, default: n }])),
      };
    }
  }
  if (Object.keys(deployments).length) {
    props.deployments = {
      type: 'object',
      description: 'Settings per Deployment, by namespace and name.',
      default: {},
      properties: Object.fromEntries(Object.entries(deployments).map(([ns, d]) => [ns, { type: 'object', description: `Deployments in ${ns || 'no namespace'}.`, default: {}, properties: d }])),
    };
  }
  return { objects: out, schema: { type: 'object', properties: props } };
}
