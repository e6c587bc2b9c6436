/** `pkogen/pko`: PKO's manifest types, and loading, rendering and validating a package as PKO does. */
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
} from '../pko/types.js';
export { CONDITION_ANNOTATION, MANIFEST_API_VERSION, PHASE_ANNOTATION, Violation } from '../pko/types.js';
export { loadPackage } from '../pko/loader.js';
export { renderPackage, type RenderRequest, type RenderResult, type RenderedObject } from '../pko/render.js';
export { packageFixtures, testCaseRequest } from '../pko/template-tests.js';
export { validatePackage, hasErrors, type ValidateOptions } from '../pko/validate.js';
