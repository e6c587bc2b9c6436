/**
 * Model → files. Pure and deterministic: the same PackageDefinition always gives the same
 * FileMap, byte for byte.
 */
import { FileMap, toBytes } from '../core/filemap.js';
import { emitDocument, YamlValue } from '../yaml/emit.js';
import { MANIFEST_API_VERSION, PHASE_ANNOTATION } from '../pko/types.js';
import { defaultObjectPath, KubeObject, PackageDefinition, PackageObject } from './package.js';

export const TEMPLATE_SUFFIX = '.gotmpl';

/** The PackageManifest document for a definition. */
export function manifestObject(def: PackageDefinition): Record<string, YamlValue> {
  const spec: Record<string, YamlValue> = {
    scopes: def.scopes,
    phases: def.phases.map((p) => (p.class ? { name: p.name, class: p.class } : { name: p.name })),
  };
  if (def.availabilityProbes?.length) spec.availabilityProbes = def.availabilityProbes as unknown as YamlValue;
  if (def.config) spec.config = { openAPIV3Schema: def.config as YamlValue };
  if (def.images?.length) spec.images = def.images as unknown as YamlValue;
  if (def.constraints?.length) spec.constraints = def.constraints as unknown as YamlValue;
  if (def.components) spec.components = {};
  if (def.filter) spec.filter = def.filter as unknown as YamlValue;
  if (def.repositories?.length) spec.repositories = def.repositories as unknown as YamlValue;
  if (def.dependencies?.length) spec.dependencies = def.dependencies as unknown as YamlValue;
  const doc: Record<string, YamlValue> = {
    apiVersion: MANIFEST_API_VERSION,
    kind: 'PackageManifest',
    metadata: { name: def.name },
    spec,
  };
  if (def.testCases?.length || def.kubeconform) {
    const test: Record<string, YamlValue> = {};
    if (def.testCases?.length) test.template = def.testCases as unknown as YamlValue;
    if (def.kubeconform) test.kubeconform = def.kubeconform as unknown as YamlValue;
    doc.test = test;
  }
  return doc;
}

/** The object with its phase annotation set (other annotations kept). */
export function annotatedObject(o: PackageObject): KubeObject {
  const meta = o.object.metadata;
  const annotations = { ...((meta.annotations as Record<string, YamlValue>) ?? {}), [PHASE_ANNOTATION]: o.phase };
  return { ...o.object, metadata: { ...meta, annotations } };
}

/** Groups objects by file path, keeping the given order within a file. */
export function objectFiles(def: PackageDefinition): Map<string, PackageObject[]> {
  const files = new Map<string, PackageObject[]>();
  for (const o of def.objects) {
    const p = o.file ?? defaultObjectPath(o);
    const list = files.get(p) ?? [];
    list.push(o);
    files.set(p, list);
  }
  return files;
}

/**
 * Synthesizes the package directory (without fixtures): `manifest.yaml`, one file per object
 * group (`.gotmpl` when it holds template text) and the extra files.
 */
export function synthesize(def: PackageDefinition): FileMap {
  const out = new Map<string, string>();
  out.set('manifest.yaml', emitDocument(manifestObject(def)));
  for (const [p, objs] of objectFiles(def)) {
    const text = objs.map((o) => emitDocument(annotatedObject(o) as unknown as YamlValue)).join('---\n');
    const path = text.includes('{{') ? p + TEMPLATE_SUFFIX : p;
    if (out.has(path)) throw new Error(`two outputs for ${path}`);
    out.set(path, text);
  }
  for (const [p, text] of Object.entries(def.files ?? {})) {
    if (out.has(p)) throw new Error(`extra file ${p} collides with a generated file`);
    out.set(p, text);
  }
  const fm: FileMap = new Map();
  for (const p of [...out.keys()].sort()) fm.set(p, toBytes(out.get(p)!));
  return fm;
}
