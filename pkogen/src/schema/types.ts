import type { ErrorObject } from 'ajv';

/** One schema violation. `path` is kubectl style: spec.template.spec.containers[0].image. */
export interface SchemaIssue {
  path: string;
  message: string;
  /** The JSON-schema keyword that failed (additionalProperties, type, required, enum, format, pattern, x-kubernetes-validations, …). */
  keyword?: string;
}

export type Scope = 'Namespaced' | 'Cluster';

/** Result of validating one object. `known: false` = no schema for its apiVersion/kind (callers warn). */
export type SchemaResult =
  | { known: true; source: 'builtin' | 'crd'; issues: SchemaIssue[] }
  | { known: false; issues: SchemaIssue[]; reason: string };

/** A keyword's validator as ajv calls it: a verdict, and its errors set on the function. */
export type KeywordValidator = ((data: never) => boolean) & { errors?: unknown };

/** A validator as ajv's standalone code exports it (kubernetes-models' kinds, precompiled CRDs): a verdict, and its errors set on the function. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };
