/**
 * The registry's own schemas (strict ObjectMeta per name rule, LabelSelector) compiled ahead of
 * time, by schema $id. Empty here, in source and in dist/src: the registry then compiles them with
 * ajv on first use. `hack/bundle.mjs` replaces this module in the bundled CLI with ajv standalone
 * code (ajv-setup.ts, precompiledSource), so a start of the bundled CLI does not run ajv's
 * compiler for schemas every object needs.
 */
import type { CompiledValidator } from './types.js';

export const PRECOMPILED: Readonly<Record<string, CompiledValidator>> = {};
