/** Go text/template for TypeScript: public API. */
export { TemplateSet, type TemplateOptions } from './template.js';
export { GoTemplateError } from './exec.js';
export type { FuncSignature } from './builtins.js';
export { formatValue, sprintf, sprint, sprintln, goTypeName } from './fmt.js';
export { fieldReads, referencedFields, type ReferencedFieldsOptions } from './fields.js';
export type { Tree } from './parse.js';
export * from './types.js';
