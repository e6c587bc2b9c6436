/**
 * LockfileConsistencyValidator (packagevalidation/lockfile.go): root package only. PKO stops at
 * the first mismatch; we report each one, every message in PKO's text.
 */
import { LoadedPackage, Violation, ViolationReason } from './types.js';

const LOCK_PATH = 'manifest.lock.yaml';

export function validateLockConsistency(pkg: LoadedPackage): Violation[] {
  const images = pkg.manifest.spec.images ?? [];
  const lock = pkg.manifestLock;
  if (!lock) {
    if (images.length > 0) return [new Violation({ reason: ViolationReason.LockfileMissing, path: LOCK_PATH })];
    return [];
  }
  const out: Violation[] = [];
  const lockImages = lock.spec?.images ?? [];
  for (const img of images) {
    const l = lockImages.find((x) => x.name === img.name);
    if (!l) out.push(new Violation({ reason: ViolationReason.LockfileMissing, details: img.name }));
    else if (l.image !== img.image) {
      out.push(new Violation({ reason: ViolationReason.ImageMismatchInLockfile, details: `"${img.name}": "${img.image}" vs "${l.image}"` }));
    }
  }
  for (const l of lockImages) {
    if (!images.some((i) => i.name === l.name)) out.push(new Violation({ reason: ViolationReason.ImageMismatchInLockfile, details: l.name }));
  }
  return out;
}
