/**
 * The validation `pkogen build` runs before building, behind one function so the full
 * validator (src/pko/validate.ts, `validate` branch) can replace the minimal checks here:
 * exactly one manifest, parseable, of the right GroupKind and version (PKO's messages, §1.3).
 */
import { UserError } from '../core/errors.js';
import { FileMap, toText } from '../core/filemap.js';
import { parseYaml11, YamlParseError } from '../yaml/parse.js';
import { formatViolation, ViolationReason } from './types.js';

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

/** Throws a located UserError when the package folder cannot become a package image. */
export async function validateBeforeBuild(files: FileMap): Promise<void> {
  if (files.size === 0) throw new UserError(ViolationReason.EmptyPackage);
  readManifest(files);
  readManifestLock(files);
}
