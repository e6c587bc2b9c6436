/**
 * `pkogen/schema/runtime`: what validators precompiled with pkogen's ajv set-up (ajv standalone
 * code) import when they run, and the error rendering to go with them: Kubernetes formats, the
 * list-map keys keyword, kubectl-style messages. Light by design: no schema compiler, no CEL.
 */
export { FORMAT_DEFINITIONS, isDns1123Subdomain } from '../schema/formats.js';
export { listMapKeysValidator } from '../schema/listtype.js';
export { renderAjvErrors } from '../schema/errors.js';
