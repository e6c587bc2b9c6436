/**
 * Entry point of our bundle: on-cluster OS image builds for HyperShift hosted clusters.
 * `make package` runs `pkogen generate` on the compiled form of this module.
 */
import type { GeneratedOutput } from '../src/model/bundle.js';
import type { PackageDefinition } from '../src/model/package.js';
import { deploymentAvailabilityProbe } from '../src/model/hypershift.js';
import { buildPackage } from '../src/model/build-package.js';
import { configSchema, testCases } from './config.js';
import { buildConfigMaps, builderDeployment, builderRbac } from './builder-controller.js';
import { checkRegistry, webhookConfigurations, webhookRegistry, webhookServer } from './webhooks.js';

export const PACKAGE_NAME = 'on-cluster-build';

export function definition(): PackageDefinition {
  const problems = checkRegistry(webhookRegistry);
  if (problems.length) throw new Error(`webhook registry: ${problems.join('; ')}`);
  return {
    name: PACKAGE_NAME,
    // Hosted-cluster phases only work for a namespaced Package in an HCP namespace.
    scopes: ['Namespaced'],
    phases: [
      { name: 'config' },
      { name: 'rbac' },
      { name: 'deploy' },
      // Last, so the Deployments' availability probes gate webhook registration in the hosted cluster.
      { name: 'webhooks', class: 'hosted-cluster' },
    ],
    availabilityProbes: [deploymentAvailabilityProbe()],
    config: configSchema,
    testCases,
    objects: [...buildConfigMaps(), ...builderRbac(), ...webhookServer(), builderDeployment(), ...webhookConfigurations()],
  };
}

export default async function generate(): Promise<GeneratedOutput> {
  const pkg = await buildPackage(definition());
  return { directories: { package: pkg.files }, files: {}, findings: pkg.findings };
}
