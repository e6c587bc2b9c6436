/**
 * Where the registry's Ajv comes from. Here, in source and dist/src, ajv is imported up front and
 * loading is a no-op. The bundled CLI replaces this module (hack/bundle.mjs) with one that imports
 * ajv (~0.25 MB) only when `loadAjv` is awaited, which SchemaRegistry.prepare does when an object
 * needs a CRD's schema compiled: a package of built-in kinds never loads it.
 */
import { newAjv } from './ajv-setup.js';

export function ajvFactory(): typeof newAjv {
  return newAjv;
}

export async function loadAjv(): Promise<void> {}
