/**
 * pkogen's public API: what a bundle module (a team's `resources/*.ts`) imports. Everything else
 * under src/ is internal and may change without notice; add here deliberately. The same names
 * are grouped by subject under sub-paths: `pkogen/model`, `pkogen/hypershift`, `pkogen/pko`,
 * `pkogen/oci`, `pkogen/rollout` (src/public/).
 */
export * from './public/model.js';
export * as hypershift from './public/hypershift.js';
export { crdEstablishedProbe, deploymentAvailabilityProbe, HCP_NAMESPACE } from './model/hypershift.js';
export * from './model/webhooks.js';
export * from './public/pko.js';
export * from './public/rollout.js';
export * from './public/oci.js';
