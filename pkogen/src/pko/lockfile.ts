/**
 * manifest.lock.yaml (PKO §3): what `update` writes. Pure functions: the caller resolves
 * digests and supplies the timestamp, so the same inputs give the same bytes.
 */
import { UserError } from '../core/errors.js';
import { scalarString } from '../yaml/emit.js';
import type { PackageManifest, PackageManifestLock } from './types.js';

export interface LockImage {
  name: string;
  image: string;
  digest: string;
}

export interface ManifestImage {
  name: string;
  image: string;
}

/** spec.images of a manifest, checked enough to resolve them (`file` names it in errors). */
export function manifestImages(m: PackageManifest, file: string): ManifestImage[] {
  const spec = (m.spec ?? {}) as unknown as Record<string, unknown>;
  const deps = spec.dependencies;
  if (Array.isArray(deps) && deps.length > 0)
    throw new UserError('resolving spec.dependencies from package repositories is not supported by pkogen update; use kubectl package update', { file, path: 'spec.dependencies' });
  const images = spec.images ?? [];
  if (!Array.isArray(images)) throw new UserError('must be a list', { file, path: 'spec.images' });
  return images.map((im, i) => {
    const o = (im ?? {}) as Record<string, unknown>;
    if (typeof o.name !== 'string' || o.name === '') throw new UserError('must be non empty', { file, path: `spec.images[${i}].name` });
    if (typeof o.image !== 'string' || o.image === '') throw new UserError('must be non empty', { file, path: `spec.images[${i}].image` });
    return { name: o.name, image: o.image };
  });
}

/** The images of an existing lock (for the up-to-date check); undefined when there is none. */
export function lockImages(lock: PackageManifestLock | undefined): { images: LockImage[]; hasDependencies: boolean } | undefined {
  if (!lock) return undefined;
  const spec = (lock.spec ?? {}) as unknown as Record<string, unknown>;
  const images = Array.isArray(spec.images) ? spec.images : [];
  return {
    images: images.map((im) => {
      const o = (im ?? {}) as Record<string, unknown>;
      return { name: String(o.name ?? ''), image: String(o.image ?? ''), digest: String(o.digest ?? '') };
    }),
    hasDependencies: Array.isArray(spec.dependencies) && spec.dependencies.length > 0,
  };
}

export function sameLockImages(a: LockImage[], b: LockImage[]): boolean {
  return a.length === b.length && a.every((x, i) => x.name === b[i].name && x.image === b[i].image && x.digest === b[i].digest);
}

function q(s: string): string {
  return s.includes('{{') ? JSON.stringify(s) : scalarString(s);
}

/** RFC 3339, UTC, seconds precision (what Kubernetes' metav1.Time marshals). */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** PKO's shape: keys of each image sorted (digest, image, name), images in manifest order. */
export function emitLock(images: LockImage[], creationTimestamp: string): string {
  const lines = [
    'apiVersion: manifests.package-operator.run/v1alpha1',
    'kind: PackageManifestLock',
    'metadata:',
    `  creationTimestamp: ${JSON.stringify(creationTimestamp)}`,
    'spec:',
  ];
  if (images.length === 0) lines.push('  images: []');
  else {
    lines.push('  images:');
    for (const im of images) lines.push(`  - digest: ${q(im.digest)}`, `    image: ${q(im.image)}`, `    name: ${q(im.name)}`);
  }
  return lines.join('\n') + '\n';
}
