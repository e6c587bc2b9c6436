/**
 * The gate's image keys (gate.ts re-exports them): what a NodePool's image is built for, read from
 * the NodePool, and how a key is named in reasons, logs and Events.
 */
import { createHash } from 'node:crypto';
import type { GateNodePool } from './gate-hold.js';

export interface ImageKey {
  /** The NodePool's `spec.release.image`. */
  releaseImage: string;
  /** `spec.arch` (HyperShift defaults it to amd64). */
  arch: string;
  /** `spec.osImageStream.name`, when set. */
  stream?: string;
  /** The layer (provider or tenant) whose image the NodePool is handed. */
  layer: string;
}

export type ImageState = { image: string } | { pending: string } | { failed: string };

export function imageKeyOf(np: GateNodePool, layer: string): ImageKey | undefined {
  const releaseImage = np.spec?.release?.image;
  if (!releaseImage) return undefined;
  const stream = np.spec?.osImageStream?.name || undefined;
  return { releaseImage, arch: np.spec?.arch || 'amd64', ...(stream ? { stream } : {}), layer };
}

export function imageWhy(key: ImageKey, s: { pending: string } | { failed: string }): string {
  return 'pending' in s ? `waiting for the image for ${describe(key)}: ${s.pending}` : `the image for ${describe(key)} failed: ${s.failed}`;
}

function describe(k: ImageKey): string {
  return `(release ${k.releaseImage}, ${k.arch}${k.stream ? `, ${k.stream}` : ''}, layer ${k.layer})`;
}

/** A stable id for an image key (logs, Events). */
export function imageKeyId(k: ImageKey): string {
  return createHash('sha256').update(JSON.stringify([k.releaseImage, k.arch, k.stream ?? '', k.layer])).digest('hex').slice(0, 16);
}
