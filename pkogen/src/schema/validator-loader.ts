/**
 * Where built-in kinds' validators (kubernetes-models' standalone ajv code) come from. Here, in
 * source and dist/src, every kind is imported up front and loading is a no-op. The bundled CLI
 * replaces this module (hack/bundle.mjs) with one that imports a kind's code, as its own chunk,
 * only when `loadBuiltinValidators` is asked for it: a package with ten kinds compiles ten kinds'
 * code, not seventy (1.9 MB).
 */
import type { CompiledValidator } from './types.js';
import { BUILTIN_VALIDATORS } from './generated/builtin-validators.js';

/** The validator of a kubernetes-models schema id; undefined for ids without one (removed APIs). */
export function builtinValidator(schemaId: string): CompiledValidator | undefined {
  return BUILTIN_VALIDATORS[schemaId];
}

/** Loads the validators of these schema ids (all of them when `ids` is undefined). */
export async function loadBuiltinValidators(ids?: readonly string[]): Promise<void> {
  void ids;
}
