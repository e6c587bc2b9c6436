/**
 * Admission webhooks for a HyperShift package: a registry of webhook configurations (Validating or
 * Mutating, any number of webhooks each), checked before generation, and the configurations that
 * go into a hosted-cluster phase, calling a backend Service in the HCP namespace.
 */
import type { YamlValue } from '../yaml/emit.js';
import { hcpWebhookClientConfig, INJECT_CABUNDLE_ANNOTATION } from './hypershift.js';
import type { KubeObject } from './package.js';

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface RuleSpec {
  apiGroups: string[];
  apiVersions: string[];
  operations: ('CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT' | '*')[];
  resources: string[];
  scope: 'Cluster' | 'Namespaced' | '*';
}

export interface WebhookSpec {
  /** Fully qualified webhook name (at least three DNS labels). */
  name: string;
  /** URL path on the webhook server. */
  path: string;
  rules: RuleSpec[];
  failurePolicy: 'Fail' | 'Ignore';
  sideEffects: 'None' | 'NoneOnDryRun';
  timeoutSeconds: number;
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
  /** Mutating webhooks only: may the API server call it again after other mutations. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

export interface WebhookConfigurationSpec {
  name: string;
  /** Default Validating. */
  type?: 'Validating' | 'Mutating';
  webhooks: WebhookSpec[];
}

export interface WebhookBackend {
  /** The Service in the HCP namespace that serves every path of the registry. */
  service: string;
  /** The config key holding the PEM that signs the backend's serving certificate. */
  caConfigKey: string;
}

/** Names and paths must be unique and well-formed; a bundle turns these into a failed generation. */
export function checkWebhookRegistry(registry: WebhookConfigurationSpec[]): string[] {
  const problems: string[] = [];
  const names = new Set<string>();
  const paths = new Set<string>();
  const configs = new Set<string>();
  for (const c of registry) {
    const key = `${c.type ?? 'Validating'}/${c.name}`;
    if (configs.has(key)) problems.push(`webhook configuration ${c.name} is registered twice`);
    configs.add(key);
    if (c.webhooks.length === 0) problems.push(`webhook configuration ${c.name} has no webhooks`);
    for (const w of c.webhooks) {
      if (w.name.split('.').length < 3) problems.push(`webhook ${w.name}: name must be fully qualified (at least three DNS labels)`);
      if (names.has(w.name)) problems.push(`webhook ${w.name} is registered twice`);
      names.add(w.name);
      if (!w.path.startsWith('/')) problems.push(`webhook ${w.name}: path must start with "/"`);
      if (paths.has(w.path)) problems.push(`webhook ${w.name}: path ${w.path} is used twice`);
      paths.add(w.path);
      if (w.rules.length === 0) problems.push(`webhook ${w.name} has no rules`);
      if (w.timeoutSeconds < 1 || w.timeoutSeconds > 30) problems.push(`webhook ${w.name}: timeoutSeconds must be 1..30`);
      if (w.reinvocationPolicy && (c.type ?? 'Validating') !== 'Mutating') problems.push(`webhook ${w.name}: reinvocationPolicy is for Mutating configurations only`);
    }
  }
  return problems;
}

/** One configuration for the hosted cluster, calling `backend` in the HCP namespace. */
export function hcpWebhookConfiguration(c: WebhookConfigurationSpec, backend: WebhookBackend): KubeObject {
  const mutating = c.type === 'Mutating';
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: mutating ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
    metadata: {
      name: c.name,
      // The hosted cluster's own service-ca must not replace the management cluster's CA.
      annotations: { [INJECT_CABUNDLE_ANNOTATION]: 'false' },
    },
    webhooks: c.webhooks.map((w) => ({
      name: w.name,
      admissionReviewVersions: ['v1'],
      clientConfig: hcpWebhookClientConfig(backend.service, w.path, backend.caConfigKey),
      failurePolicy: w.failurePolicy,
      matchPolicy: 'Equivalent',
      namespaceSelector: w.namespaceSelector as unknown as YamlValue,
      objectSelector: w.objectSelector as unknown as YamlValue,
      ...(mutating ? { reinvocationPolicy: w.reinvocationPolicy ?? 'Never' } : {}),
      rules: w.rules as unknown as YamlValue,
      sideEffects: w.sideEffects,
      timeoutSeconds: w.timeoutSeconds,
    })),
  };
}
