/**
 * pkogen's public API: what a bundle module (a team's `resources/*.ts`) imports. Everything else
 * under src/ is internal and may change without notice; add here deliberately.
 */

// Files and findings
export { type FileMap, fileMap, toBytes, toText, sortedPaths } from './core/filemap.js';
export { type Finding, type Location, type Severity, UserError, formatFinding } from './core/errors.js';

// The package model and the bundle contract
export type { KubeObject, PackageDefinition, PackageObject } from './model/package.js';
export { defaultObjectPath } from './model/package.js';
export type { BundleModule, GeneratedOutput } from './model/bundle.js';
export { buildPackage, type BuiltPackage } from './model/build-package.js';
export type { CheckOptions } from './model/checks.js';
export { packageOutput, type PackageOutputOptions } from './model/package-output.js';
export { synthesize } from './model/synthesize.js';

// HyperShift idioms
export * as hypershift from './model/hypershift.js';
export { crdEstablishedProbe, deploymentAvailabilityProbe, HCP_NAMESPACE } from './model/hypershift.js';

// Admission webhooks registered in the hosted cluster, served from the HCP namespace
export {
  checkWebhookRegistry,
  hcpWebhookConfiguration,
  type LabelSelector,
  type RuleSpec,
  type WebhookBackend,
  type WebhookConfigurationSpec,
  type WebhookSpec,
} from './model/webhooks.js';

// YAML values with template fragments
export { RawEntry, RawValue, type YamlValue, emitDocument, emitDocuments } from './yaml/emit.js';

// PKO's manifest types, loading, rendering and validation
export type {
  JSONSchemaProps,
  ObjectSetProbe,
  PackageEnvironment,
  PackageManifest,
  PackageManifestConstraint,
  PackageManifestImage,
  PackageManifestPhase,
  PackageManifestScope,
  PackageManifestTestCaseTemplate,
  Probe,
  ProbeSelector,
} from './pko/types.js';
export { CONDITION_ANNOTATION, MANIFEST_API_VERSION, PHASE_ANNOTATION } from './pko/types.js';
export { loadPackage } from './pko/loader.js';
export { renderPackage, type RenderRequest, type RenderResult, type RenderedObject } from './pko/render.js';
export { packageFixtures, testCaseRequest } from './pko/template-tests.js';
export { validatePackage, hasErrors, type ValidateOptions } from './pko/validate.js';

// Rollout (OpenShift Template → SelectorSyncSet → Policy → Package)
export { emitRolloutTemplate, buildRolloutTemplate, type RolloutTemplateOptions, type ConfigParameter, type ConfigSource } from './rollout/generate.js';
export { lintRolloutTemplate, asFindings } from './rollout/lint.js';
export { rolloutSchemaValidator } from './rollout/schema.js';
export { renderObjectTemplateText } from './rollout/pko-render.js';

// Package images
export { buildPackageImage, packageFilesFromImage } from './oci/package-image.js';
