/** `pkogen/model`: describing a package in TypeScript and generating it (files, findings, the bundle contract, YAML with template fragments). */
export { type FileMap, fileMap, toBytes, toText, sortedPaths } from '../core/filemap.js';
export { type Finding, type Location, type Severity, UserError, formatFinding, countBySeverity } from '../core/errors.js';
export type { KubeObject, PackageDefinition, PackageObject } from '../model/package.js';
export { defaultObjectPath } from '../model/package.js';
export type { BundleModule, GeneratedOutput } from '../model/bundle.js';
export { buildPackage, type BuiltPackage } from '../model/build-package.js';
export type { CheckOptions } from '../model/checks.js';
export { packageOutput, type PackageOutputOptions } from '../model/package-output.js';
export { synthesize } from '../model/synthesize.js';
export { RawEntry, RawValue, type YamlValue, emitDocument, emitDocuments } from '../yaml/emit.js';
export { scopeOf, isClusterScoped } from '../schema/scope.js';
export { templateBoolean, TemplateExpressionError, templateNumber, templateObject } from '../model/template-values.js';
