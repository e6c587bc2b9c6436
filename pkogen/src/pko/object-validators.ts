/**
 * PKO's default object validators (packagevalidation/object.go): phase annotation (present and
 * a manifest phase), duplicates (group+kind+namespace/name), GVK set, labels valid. All run, in
 * PKO's list order (Duplicate, GVK, Labels, PhaseAnnotation), over objects in path order.
 */
import { aggregateText } from './field-errors.js';
import { validateLabels } from './labels.js';
import { parseApiVersion } from './loader.js';
import type { ObjectRef } from './objects.js';
import { PHASE_ANNOTATION, Violation, ViolationReason, type PackageManifest } from './types.js';

function stringMap(v: unknown): Record<string, unknown> | undefined {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return undefined;
  // unstructured's NestedStringMap fails (→ nil) when any value is not a string
  for (const x of Object.values(v as object)) if (typeof x !== 'string') return undefined;
  return v as Record<string, unknown>;
}

export function objectAnnotations(o: ObjectRef['object']): Record<string, string> {
  return (stringMap(o.metadata?.annotations) ?? {}) as Record<string, string>;
}

export function objectLabels(o: ObjectRef['object']): Record<string, string> {
  return (stringMap(o.metadata?.labels) ?? {}) as Record<string, string>;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

const gvkCache = new WeakMap<object, { group: string; version: string; kind: string }>();

/** Every check asks for the GVK; objects are not mutated after parsing, so it is computed once. */
export function gvkOf(o: ObjectRef['object']): { group: string; version: string; kind: string } {
  let g = gvkCache.get(o);
  if (!g) {
    g = { ...parseApiVersion(str(o.apiVersion)), kind: str(o.kind) };
    gvkCache.set(o, g);
  }
  return g;
}

export function validateDuplicates(objs: ObjectRef[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const r of objs) {
    const g = gvkOf(r.object);
    const gk = g.group ? `${g.kind}.${g.group}` : g.kind;
    const ns = str(r.object.metadata?.namespace);
    const name = str(r.object.metadata?.name);
    const key = `${gk} ${ns ? `${ns}/${name}` : name}`;
    if (seen.has(key)) out.push(new Violation({ reason: ViolationReason.DuplicateObject, path: r.path, index: r.index, line: r.line }));
    else seen.add(key);
  }
  return out;
}

export function validateGVK(objs: ObjectRef[]): Violation[] {
  const out: Violation[] = [];
  for (const r of objs) {
    const g = gvkOf(r.object);
    if (!g.version || !g.kind) out.push(new Violation({ reason: ViolationReason.MissingGVK, path: r.path, index: r.index, line: r.line }));
  }
  return out;
}

export function validateObjectLabels(objs: ObjectRef[]): Violation[] {
  const out: Violation[] = [];
  for (const r of objs) {
    const errs = validateLabels(objectLabels(r.object));
    if (errs.length > 0) out.push(new Violation({ reason: ViolationReason.LabelsInvalid, details: aggregateText(errs), path: r.path, index: r.index, line: r.line }));
  }
  return out;
}

export function validatePhaseAnnotation(objs: ObjectRef[], manifest: PackageManifest): Violation[] {
  const out: Violation[] = [];
  const phases = new Set((manifest.spec.phases ?? []).map((p) => p.name));
  for (const r of objs) {
    const phase = objectAnnotations(r.object)[PHASE_ANNOTATION] ?? '';
    if (phase === '') out.push(new Violation({ reason: ViolationReason.MissingPhaseAnnotation, path: r.path, index: r.index, line: r.line }));
    else if (!phases.has(phase)) out.push(new Violation({ reason: ViolationReason.PhaseNotFound, path: r.path, index: r.index, line: r.line }));
  }
  return out;
}

/** DefaultObjectValidators, in PKO's order. */
export function validateObjects(objs: ObjectRef[], manifest: PackageManifest): Violation[] {
  return [...validateDuplicates(objs), ...validateGVK(objs), ...validateObjectLabels(objs), ...validatePhaseAnnotation(objs, manifest)];
}
