/** What every beyond-PKO check sees, and how it makes a located Finding. */
import type { Finding, Severity } from '../../core/errors.js';
import type { FileMap } from '../../core/filemap.js';
import type { ObjectRef } from '../objects.js';
import type { PackageManifest } from '../types.js';
import { lineOfField } from '../../yaml/positions.js';
import { isObj } from '../../core/guards.js';
export { isObj };

export type ScopeLookup = (group: string, version: string, kind: string) => 'Namespaced' | 'Cluster' | undefined;

export interface CheckContext {
  manifest: PackageManifest;
  /** `components/<name>/` or ''. */
  filePrefix: string;
  objects: ObjectRef[];
  /** Namespace the package is installed into, when known (from a test case). */
  packageNamespace?: string;
  scopeOf?: ScopeLookup;
  /** The (component) package's own files, for rules that look at the template behind an object. */
  files?: FileMap;
  /** The config of the test case the objects were rendered with, when they were. */
  config?: unknown;
}

export function objectFinding(ctx: CheckContext, ref: ObjectRef, severity: Severity, rule: string, message: string, path?: string): Finding {
  const f: Finding = { severity, rule, message, file: ctx.filePrefix + ref.path, doc: ref.doc };
  if (path) f.path = path;
  const line = path ? lineOfField({ text: ref.text, firstLine: ref.line }, path) : ref.line;
  if (line !== undefined) f.line = line;
  return f;
}

export function phaseOf(ref: ObjectRef): string {
  const a = ref.object.metadata?.annotations;
  const v = a && typeof a === 'object' ? (a as Record<string, unknown>)['package-operator.run/phase'] : undefined;
  return typeof v === 'string' ? v : '';
}

export function phaseClass(manifest: PackageManifest, phase: string): string | undefined {
  return manifest.spec.phases?.find((p) => p.name === phase)?.class;
}

