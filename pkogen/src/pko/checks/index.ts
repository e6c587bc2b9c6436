/**
 * The beyond-PKO checks run on every object set a package would install (per test case), in
 * order. Each is loaded on first use: `pkogen build` validates with PKO's rules only and never
 * pays for them. The rules each reports are in docs/validate.md's rule table.
 */
import type { Finding } from '../../core/errors.js';
import type { CheckContext } from './context.js';

export interface ObjectCheck {
  readonly id: string;
  /** What it protects against, and where that is documented. */
  readonly docs: string;
  /** The rule ids (or `prefix/*`) it reports. */
  readonly rules: readonly string[];
  load(): Promise<(ctx: CheckContext) => Finding[]>;
}

export const OBJECT_CHECKS: readonly ObjectCheck[] = [
  {
    id: 'scope',
    docs: "PKO's install-time preflight (scope of each object against the package's scope and the phase class)",
    rules: ['scope/cluster-scoped-in-namespaced-package', 'scope/foreign-namespace', 'scope/fixed-namespace'],
    load: async () => (await import('./scope.js')).checkScope,
  },
  {
    id: 'annotation-values',
    docs: 'annotation values PKO panics on (collision protection, condition map)',
    rules: ['collision-protection', 'condition-map'],
    load: async () => (await import('./annotation-values.js')).checkAnnotationValues,
  },
  {
    id: 'webhook-gating',
    docs: "a webhook configuration in a hosted-cluster phase before its backend is probed blocks the hosted cluster's API",
    rules: ['hosted-cluster/webhook-ungated'],
    load: async () => (await import('./webhook-gating.js')).checkWebhookGating,
  },
  {
    id: 'pod-security',
    docs: 'Pod Security Standards "restricted" for workloads in the HCP namespace',
    rules: ['pod-security/*', 'image/not-pinned'],
    load: async () => (await import('./workload-safety.js')).checkPodSecurity,
  },
  {
    id: 'rbac',
    docs: 'RBAC good practices: wildcards and escalation verbs',
    rules: ['rbac/wildcard', 'rbac/escalation-verb'],
    load: async () => (await import('./workload-safety.js')).checkRbac,
  },
  {
    id: 'secret-material',
    docs: 'secret values in ConfigMaps, env values and Secrets shipped in the image (never printed)',
    rules: ['secret/literal', 'secret/in-package'],
    load: async () => (await import('./secret-material.js')).checkSecretMaterial,
  },
  {
    id: 'revision-safety',
    docs: 'objects that stall or fight a later revision (Jobs, adopted Namespaces, cleanup commands)',
    rules: ['revision/job-fixed-name', 'revision/job-ttl', 'revision/job-no-deadline', 'revision/adoption', 'revision/cleanup-deletes-package-object'],
    load: async () => (await import('./revision-safety.js')).checkRevisionSafety,
  },
];
