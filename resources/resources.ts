/**
 * Entry point of our bundle: on-cluster OS image builds for HyperShift hosted clusters.
 * `make package` runs `pkogen generate` on the compiled form of this module.
 */
import { TENANT_LAYER_DEFAULT_KEY } from '../builder/policy/layers.js';
import {
  asFindings,
  checkWebhookRegistry,
  crdEstablishedProbe,
  deploymentAvailabilityProbe,
  emitRolloutTemplate,
  lintRolloutTemplate,
  packageOutput,
  renderObjectTemplateText,
  rolloutSchemaValidator,
  type GeneratedOutput,
  type PackageDefinition,
  type RolloutTemplateOptions,
} from 'pkogen';
import { configSchema, testCases } from './config.js';
import { CONTROLLER, controllerDeployment, controllerRbac, hostedApi } from './builder-controller.js';
import { WEBHOOK_SERVER, webhookConfigurations, webhookRegistry, webhookServer } from './webhooks.js';
import { hcpMonitoring } from './monitoring.js';
import { buildNamespace } from './build-namespace.js';

export const PACKAGE_NAME = 'on-cluster-build';

export function definition(): PackageDefinition {
  const problems = checkWebhookRegistry(webhookRegistry);
  if (problems.length) throw new Error(`webhook registry: ${problems.join('; ')}`);
  return {
    name: PACKAGE_NAME,
    // Hosted-cluster phases only work for a namespaced Package in an HCP namespace.
    scopes: ['Namespaced'],
    phases: [
      // First: the API users create objects of, and the controller's identity there.
      { name: 'hosted-api', class: 'hosted-cluster' },
      { name: 'rbac' },
      { name: 'deploy' },
      // Last, so the Deployments' availability probes gate webhook registration in the hosted cluster.
      { name: 'hosted-webhooks', class: 'hosted-cluster' },
    ],
    availabilityProbes: [crdEstablishedProbe(), deploymentAvailabilityProbe()],
    config: configSchema,
    testCases,
    objects: [
      ...hostedApi(),
      ...buildNamespace(),
      ...controllerRbac(),
      ...webhookServer(),
      controllerDeployment(),
      ...hcpMonitoring({ controller: CONTROLLER, webhook: WEBHOOK_SERVER, controllerSelector: { app: CONTROLLER }, webhookSelector: { app: WEBHOOK_SERVER } }),
      ...webhookConfigurations(),
    ],
  };
}

export const ROLLOUT_PATH = `hack/${PACKAGE_NAME}.SelectorSyncSet.yaml.tmpl`;

/**
 * How the rollout fills the package config: our own image by digest (the only fleet-wide image:
 * every NodePool's build images come from its own release), and the management cluster's service
 * CA read in each HCP namespace.
 */
export function rolloutOptions(): RolloutTemplateOptions {
  return {
    packageName: PACKAGE_NAME,
    config: [
      { parameter: 'ON_CLUSTER_BUILD_IMAGE', configKey: 'image', format: 'image-digest' },
      // The provider's default for HostedClusters without their own tenant-layer annotation (builder/policy/layers.ts).
      { parameter: 'TENANT_LAYER_DEFAULT', configKey: TENANT_LAYER_DEFAULT_KEY, optional: true, value: 'Disabled' },
    ],
    sources: [{ configKey: 'serviceCA', apiVersion: 'v1', kind: 'ConfigMap', name: 'openshift-service-ca.crt', dataKey: 'service-ca.crt' }],
  };
}

export default async function generate(): Promise<GeneratedOutput> {
  const rollout = emitRolloutTemplate(rolloutOptions());
  const out = await packageOutput(definition(), { files: { [ROLLOUT_PATH]: rollout } });
  const lint = lintRolloutTemplate(ROLLOUT_PATH, rollout, { schema: rolloutSchemaValidator(), renderTemplate: renderObjectTemplateText });
  return { ...out, findings: [...out.findings, ...asFindings(lint.findings)] };
}
