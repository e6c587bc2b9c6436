/**
 * The validation `pkogen build` runs before building: first the manifest files themselves
 * (exactly one, parseable, right GroupKind and version; PKO's messages, §1.3), then PKO's whole
 * package validation (src/pko/validate.ts, PKO rules only: build is not the place for lint).
 */
import { formatLocation, UserError } from '../core/errors.js';
import { FileMap, toText } from '../core/filemap.js';
import { parseYaml11, YamlParseError } from '../yaml/parse.js';
import { formatViolation, ViolationReason } from './types.js';
import { validatePackage, type ValidateOptions } from './validate.js';

export interface ManifestDoc {
  file: string;
  value: Record<string, unknown>;
}

function readKind(files: FileMap, names: [string, string], kind: string, dup: string): ManifestDoc | undefined {
  const present = names.filter((n) => files.has(n));
  if (present.length > 1) throw new UserError(formatViolation({ reason: dup }), { file: present[1] });
  if (present.length === 0) return undefined;
  const file = present[0];
  let value: unknown;
  try {
    value = parseYaml11(toText(files.get(file)!), file);
  } catch (e) {
    if (e instanceof YamlParseError) throw new UserError(formatViolation({ reason: ViolationReason.InvalidYAML, path: file, details: e.message }), { file, line: e.line, column: e.column });
    throw e;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new UserError(formatViolation({ reason: ViolationReason.InvalidYAML, path: file, details: 'not a mapping' }), { file });
  const v = value as Record<string, unknown>;
  const [group, version] = String(v.apiVersion ?? '').includes('/') ? String(v.apiVersion).split('/', 2) : ['', String(v.apiVersion ?? '')];
  const gk = group ? `${String(v.kind ?? '')}.${group}` : String(v.kind ?? '');
  const want = `${kind}.manifests.package-operator.run`;
  if (gk !== want) throw new UserError(formatViolation({ reason: ViolationReason.UnknownGVK, path: file, details: `GroupKind must be ${want}, is: ${gk}` }), { file });
  if (version !== 'v1alpha1') throw new UserError(formatViolation({ reason: ViolationReason.UnknownGVK, path: file, details: `unknown version ${version}, supported versions: v1alpha1` }), { file });
  return { file, value: v };
}

export function readManifest(files: FileMap): ManifestDoc {
  const m = readKind(files, ['manifest.yaml', 'manifest.yml'], 'PackageManifest', ViolationReason.PackageManifestDuplicated);
  if (!m) throw new UserError(formatViolation({ reason: ViolationReason.PackageManifestNotFound, details: 'searched at manifest.yaml and manifest.yml' }));
  return m;
}

export function readManifestLock(files: FileMap): ManifestDoc | undefined {
  return readKind(files, ['manifest.lock.yaml', 'manifest.lock.yml'], 'PackageManifestLock', ViolationReason.PackageManifestLockDuplicated);
}

/**
 * Throws a located UserError when the package folder cannot become a package image. `opts` can
 * add template tests (fixtures of the source directory), as `kubectl package build` runs them.
 */
export async function validateBeforeBuild(files: FileMap, opts: ValidateOptions = {}): Promise<void> {
  if (files.size === 0) throw new UserError(ViolationReason.EmptyPackage);
  readManifest(files);
  readManifestLock(files);
  const errors = (await validatePackage(files, { ...opts, pkoOnly: true })).filter((f) => f.severity === 'error');
  if (errors.length === 0) return;
  const first = errors[0];
  const rest = errors.slice(1).map((f) => {
    const where = formatLocation(f);
    return `\n${where ? where + ': ' : ''}${f.message}`;
  });
  throw new UserError(first.message + rest.join(''), { file: first.file, doc: first.doc, path: first.path, line: first.line, column: first.column });
}
