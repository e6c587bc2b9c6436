/** `pkogen/rollout`: the OpenShift Template that ships a package (SelectorSyncSet → Policy → Package), its linter and simulator. */
export { emitRolloutTemplate, buildRolloutTemplate, type RolloutTemplateOptions, type ConfigParameter, type ConfigSource } from '../rollout/generate.js';
export { lintRolloutTemplate, asFindings } from '../rollout/lint.js';
export { ROLLOUT_RULES, type RolloutRule } from '../rollout/rules/index.js';
export { rolloutSchemaValidator } from '../rollout/schema.js';
import { prepareRolloutKinds } from '../rollout/schema.js';
// rolloutSchemaValidator() is synchronous: the rollout kinds' precompiled validators come with this module.
await prepareRolloutKinds();
export { renderObjectTemplateText } from '../rollout/pko-render.js';
export { simulateRollout, type SimulateOptions, type SimulationResult } from '../rollout/simulate.js';
