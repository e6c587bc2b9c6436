/**
 * The bundled CRDs' validators compiled ahead of time, by registry key ("apiVersion/Kind"), each
 * loaded on demand. Empty here, in source (tests) and in a plain tsc build: the registry then
 * compiles a CRD's schema with ajv on first use. `make build` and `npm pack` replace this module in
 * dist/src with a table of ajv standalone modules (hack/precompile-crds.mjs, precompile.ts
 * precompiledCrdSources), which the bundled CLI takes over as chunks, so neither runs ajv's
 * compiler for a bundled CRD (20-170 ms each).
 */
import type { CompiledValidator } from './types.js';

export const PRECOMPILED_CRDS: Readonly<Record<string, () => Promise<{ validate: CompiledValidator }>>> = {};
