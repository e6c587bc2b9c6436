/**
 * The fleet component's package (issue 27): a ClusterPackage, one per HyperShift management
 * cluster, generated beside the per-HCP package (`make package`: `pkogen generate` on this module
 * writes package-fleet/ and its rollout Template). Phases in order: the namespace; the identity
 * and its rights; the ValidatingAdmissionPolicies that narrow those rights, in place before the
 * process runs; the process; last the admission mutation, registered only once the Deployment is
 * available (its failurePolicy is Fail).
 */
import {
  asFindings,
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
import { fleetConfigSchema, fleetTestCases } from './config.js';
import { fleetBuildNamespace, fleetDeployment, fleetNamespace, fleetPolicies, fleetRbac, fleetWebhook } from './objects.js';
import { FLEET_NAME } from './identity.js';

export const FLEET_PACKAGE_NAME = FLEET_NAME;
export const FLEET_PACKAGE_DIR = 'package-fleet';
export const FLEET_ROLLOUT_PATH = `hack/${FLEET_PACKAGE_NAME}.SelectorSyncSet.yaml.tmpl`;

export function fleetDefinition(): PackageDefinition {
  return {
    name: FLEET_PACKAGE_NAME,
    // One per management cluster, over every HostedCluster namespace there.
    scopes: ['Cluster'],
    phases: [{ name: 'namespace' }, { name: 'rbac' }, { name: 'policies' }, { name: 'deploy' }, { name: 'webhooks' }],
    availabilityProbes: [deploymentAvailabilityProbe()],
    config: fleetConfigSchema,
    testCases: fleetTestCases,
    objects: [...fleetNamespace(), ...fleetBuildNamespace(), ...fleetRbac(), ...fleetPolicies(), ...fleetDeployment(), ...fleetWebhook()],
  };
}

/**
 * The rollout, the per-HCP package's chain (resources/resources.ts rolloutOptions): a
 * SelectorSyncSet on the service clusters (ACM hubs) carrying an ACM Policy, placed (PlacementRule
 * + PlacementBinding) on the ManagedClusters labelled as HyperShift management clusters, whose
 * ConfigurationPolicy creates the ClusterPackage there, once per management cluster (pkogen's
 * `PolicyClusterPackage` delivery). Removing the Policy removes the ClusterPackage
 * (`pruneObjectBehavior: DeleteIfCreated`).
 *
 * PROVIDER_LAYER is required in the Template: the ConfigurationPolicy applies the ClusterPackage
 * as written and cannot leave an empty key out (pkogen refuses an optional parameter without a
 * default there), so the Template carries the Containerfile form; the prebuilt-image form
 * (providerImage) is for a ClusterPackage written by hand or another Template.
 */
export function fleetRolloutOptions(): RolloutTemplateOptions {
  return {
    packageName: FLEET_PACKAGE_NAME,
    delivery: 'PolicyClusterPackage',
    configSchema: fleetConfigSchema as RolloutTemplateOptions['configSchema'],
    config: [
      { parameter: 'ON_CLUSTER_BUILD_IMAGE', configKey: 'image', format: 'image-digest' },
      { parameter: 'PROVIDER_REPOSITORY', configKey: 'providerRepository' },
      { parameter: 'PROVIDER_LAYER', configKey: 'providerLayer', optional: false },
      { parameter: 'MAX_HOLD_SECONDS', configKey: 'maxHoldSeconds', value: '3600' },
      { parameter: 'ROLLOUT_POLICY', configKey: 'rollout', value: '{"type":"RideReleaseChange"}' },
    ],
  };
}

export default async function generate(): Promise<GeneratedOutput> {
  const rollout = emitRolloutTemplate(fleetRolloutOptions());
  const out = await packageOutput(fleetDefinition(), { dir: FLEET_PACKAGE_DIR, files: { [FLEET_ROLLOUT_PATH]: rollout } });
  const lint = lintRolloutTemplate(FLEET_ROLLOUT_PATH, rollout, { schema: rolloutSchemaValidator(), renderTemplate: renderObjectTemplateText });
  return { ...out, findings: [...out.findings, ...asFindings(lint.findings)] };
}
