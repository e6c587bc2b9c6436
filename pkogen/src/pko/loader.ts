/**
 * PKO's structural loader (packagestructure): FileMap → LoadedPackage. The first structural
 * problem ends loading with PKO's Violation, as PKO does.
 */
import type { FileMap } from '../core/filemap.js';
import { lineOfField } from '../yaml/positions.js';
import { dropNullSchemaPointers } from './config-schema.js';
import { goJsonDecode, GoJsonDecodeError, DecodeResult } from './go-json-decode.js';
import { PACKAGE_MANIFEST_LOCK_SPEC, PACKAGE_MANIFEST_SPEC } from './manifest-spec.js';
import { decodeYamlBytes, parseYamlSafe, YamlLimitError, YamlParseError } from './safe-yaml.js';
import {
  LoadedPackage,
  PackageManifest,
  PackageManifestLock,
  Violation,
  ViolationReason,
} from './types.js';

export const MANIFEST_FILES = ['manifest.yaml', 'manifest.yml'];
export const LOCK_FILES = ['manifest.lock.yaml', 'manifest.lock.yml'];
const MANIFEST_GROUP = 'manifests.package-operator.run';
const SUPPORTED_VERSIONS = ['v1alpha1'];

/** What decoding noticed beyond PKO's result: ignored keys and case-only matches, per file. */
export interface DecodeNotes {
  file: string;
  unknownKeys: string[];
  caseMismatches: { path: string; canonical: string }[];
}

/** Side information about a load, keyed by the LoadedPackage object. */
const notesByPackage = new WeakMap<LoadedPackage, DecodeNotes[]>();

export function decodeNotes(pkg: LoadedPackage): DecodeNotes[] {
  return notesByPackage.get(pkg) ?? [];
}

/** Parses YAML for the loader; errors become PKO's `Invalid YAML in <path>: <err>`. */
function parseOrViolation(path: string, bytes: Uint8Array): unknown {
  try {
    return parseYamlSafe(decodeYamlBytes(bytes));
  } catch (e) {
    // A limit error is also a YamlParseError: test it first so it keeps its own wording.
    if (e instanceof YamlLimitError) return fail({ reason: ViolationReason.InvalidYAML, path, details: e.message, line: e.line });
    if (e instanceof YamlParseError) {
      return fail({ reason: ViolationReason.InvalidYAML, path, details: `error converting YAML to JSON: yaml: ${e.line !== undefined ? `line ${e.line}: ` : ''}${e.message}`, line: e.line });
    }
    throw e;
  }
}

function fail(f: ConstructorParameters<typeof Violation>[0]): never {
  throw new Violation(f);
}

/** apimachinery's schema.ParseGroupVersion + GroupKind.String, as TypeMeta.GroupVersionKind() uses them. */
export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const parts = apiVersion.split('/');
  if (parts.length === 1) return { group: '', version: apiVersion };
  if (parts.length === 2) return { group: parts[0], version: parts[1] };
  return { group: '', version: '' };
}

function groupKindString(group: string, kind: string): string {
  return group ? `${kind}.${group}` : kind;
}

function decodeTyped<T>(path: string, bytes: Uint8Array, kind: 'PackageManifest' | 'PackageManifestLock'): DecodeResult<T> {
  const raw = parseOrViolation(path, bytes);
  // Peek TypeMeta first, as PKO does.
  if (raw !== null && raw !== undefined && (typeof raw !== 'object' || Array.isArray(raw))) {
    fail({ reason: ViolationReason.InvalidYAML, path, details: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${Array.isArray(raw) ? 'array' : typeof raw === 'number' ? 'number' : typeof raw === 'boolean' ? 'bool' : 'string'} into Go value of type v1.TypeMeta` });
  }
  const obj = (raw ?? {}) as Record<string, unknown>;
  const av = typeof obj.apiVersion === 'string' ? obj.apiVersion : '';
  const k = typeof obj.kind === 'string' ? obj.kind : '';
  const gv = parseApiVersion(av);
  if (gv.group !== MANIFEST_GROUP || k !== kind) {
    fail({ reason: ViolationReason.UnknownGVK, path, details: `GroupKind must be ${kind}.${MANIFEST_GROUP}, is: ${groupKindString(gv.group, k)}` });
  }
  if (!SUPPORTED_VERSIONS.includes(gv.version)) {
    fail({ reason: ViolationReason.UnknownGVK, path, details: `unknown version ${gv.version}, supported versions: ${SUPPORTED_VERSIONS.join(', ')}` });
  }
  try {
    return goJsonDecode<T>(raw, kind === 'PackageManifest' ? PACKAGE_MANIFEST_SPEC : PACKAGE_MANIFEST_LOCK_SPEC);
  } catch (e) {
    if (e instanceof GoJsonDecodeError) {
      // PKO's text; the line of the value it could not decode is ours.
      const line = e.yamlPath ? lineOfField({ text: new TextDecoder().decode(bytes), firstLine: 1 }, e.yamlPath) : undefined;
      fail({ reason: ViolationReason.InvalidYAML, path, details: `error unmarshaling JSON: while decoding JSON: ${e.message}`, ...(line !== undefined ? { line } : {}) });
    }
    throw e;
  }
}

/** Decodes a manifest file like PKO's manifestFromFile; throws Violation. */
export function decodeManifest(path: string, bytes: Uint8Array): DecodeResult<PackageManifest> {
  const r = decodeTyped<PackageManifest>(path, bytes, 'PackageManifest');
  normalizeManifest(r.value);
  return r;
}

export function decodeManifestLock(path: string, bytes: Uint8Array): DecodeResult<PackageManifestLock> {
  const r = decodeTyped<PackageManifestLock>(path, bytes, 'PackageManifestLock');
  const v = r.value as unknown as { metadata?: unknown; spec?: { images?: unknown[] } };
  v.metadata ??= {};
  v.spec ??= { images: [] };
  v.spec.images ??= [];
  return r;
}

/** Zero values where Go would have them, so validators can read fields without guards. */
function normalizeManifest(m: PackageManifest): void {
  const mm = m as unknown as Record<string, unknown>;
  mm.metadata ??= {};
  mm.spec ??= {};
  const spec = m.spec as unknown as Record<string, unknown>;
  spec.scopes ??= [];
  spec.phases ??= [];
  spec.images ??= [];
  const config = spec.config as { openAPIV3Schema?: unknown } | undefined;
  if (config) dropNullSchemaPointers(config.openAPIV3Schema);
}

function bothExtensions(files: FileMap, names: string[]): boolean {
  return names.every((n) => files.has(n));
}

function getFile(files: FileMap, names: string[]): { path: string; bytes: Uint8Array } | undefined {
  for (const n of names) {
    const b = files.get(n);
    if (b !== undefined) return { path: n, bytes: b };
  }
  return undefined;
}

/**
 * Loads a package and its components (StructuralLoader.Load). Throws Violation on the first
 * structural problem; `component` is set when loading a component directory.
 */
export function loadPackage(files: FileMap, component = ''): LoadedPackage {
  const notes: DecodeNotes[] = [];
  const pkg = loadInner(files, component, notes);
  notesByPackage.set(pkg, notes);
  return pkg;
}

function loadInner(files: FileMap, component: string, notes: DecodeNotes[]): LoadedPackage {
  const prefix = component ? `components/${component}/` : '';
  if (bothExtensions(files, MANIFEST_FILES)) fail({ reason: ViolationReason.PackageManifestDuplicated });
  const mf = getFile(files, MANIFEST_FILES);
  if (!mf) fail({ reason: ViolationReason.PackageManifestNotFound, details: 'searched at manifest.yaml and manifest.yml' });
  const m = decodeManifest(mf.path, mf.bytes);
  notes.push({ file: prefix + mf.path, unknownKeys: m.unknownKeys, caseMismatches: m.caseMismatches });
  const manifest = m.value;
  if (component) manifest.metadata.name = component;

  if (bothExtensions(files, LOCK_FILES)) fail({ reason: ViolationReason.PackageManifestLockDuplicated });
  let manifestLock: PackageManifestLock | undefined;
  const lf = getFile(files, LOCK_FILES);
  if (lf) {
    const l = decodeManifestLock(lf.path, lf.bytes);
    notes.push({ file: prefix + lf.path, unknownKeys: l.unknownKeys, caseMismatches: l.caseMismatches });
    manifestLock = l.value;
  }

  const rest: FileMap = new Map();
  for (const [p, b] of files) if (!MANIFEST_FILES.includes(p) && !LOCK_FILES.includes(p)) rest.set(p, b);
  const pkg: LoadedPackage = { manifest, files: rest };
  if (manifestLock) pkg.manifestLock = manifestLock;

  if (manifest.spec.components === undefined || manifest.spec.components === null) return pkg;
  if (component) fail({ reason: ViolationReason.NestedMultiComponentPkg, component });

  const byComponent = new Map<string, FileMap>();
  for (const p of [...rest.keys()].sort()) {
    if (!p.startsWith('components/')) continue;
    const parts = splitN(p, '/', 3);
    if (parts.length === 2) fail({ reason: ViolationReason.InvalidFileInComponentsDir, path: p });
    if (parts.length < 3) fail({ reason: ViolationReason.InvalidComponentPath, path: p });
    const name = parts[1];
    if (!byComponent.has(name)) byComponent.set(name, new Map());
    byComponent.get(name)!.set(parts[2], rest.get(p)!);
    rest.delete(p);
  }
  const components: Record<string, LoadedPackage> = {};
  for (const name of [...byComponent.keys()].sort()) components[name] = loadInner(byComponent.get(name)!, name, notes);
  pkg.components = components;
  return pkg;
}

/** Go's strings.SplitN. */
function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** LoadComponent(raw, name): the root alone ("") or one component. */
export function loadComponent(files: FileMap, name: string): LoadedPackage {
  const pkg = loadPackage(files);
  if (pkg.manifest.spec.components === undefined || pkg.manifest.spec.components === null) {
    if (!name) return pkg;
    fail({ reason: ViolationReason.ComponentsNotEnabled });
  }
  if (!name) return { ...pkg, components: undefined };
  const c = pkg.components?.[name];
  if (!c) fail({ reason: ViolationReason.ComponentNotFound, component: name });
  return c;
}
