/**
 * pkogen's public API: what a bundle module (a team's `resources/*.ts`) imports. Everything else
 * under src/ is internal and may change without notice; add here deliberately. The same names
 * are grouped by subject under sub-paths: `pkogen/model`, `pkogen/hypershift`, `pkogen/pko`,
 * `pkogen/oci`, `pkogen/rollout`, `pkogen/k8s` (types only) (src/public/).
 */
export * from './public/model.js';
export * as hypershift from './public/hypershift.js';
/** Types only (`import type { k8s } from 'pkogen'`, or `pkogen/k8s`): every kind pkogen validates. */
export type * as k8s from './public/k8s.js';
export { crdEstablishedProbe, deploymentAvailabilityProbe, HCP_NAMESPACE } from './model/hypershift.js';
export * from './model/webhooks.js';
export * from './public/pko.js';
export * from './public/rollout.js';
export * from './public/oci.js';
