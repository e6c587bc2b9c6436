import { nodeCrypto } from '../core/builtins.js';

export function sha256Digest(data: Uint8Array): string {
  return `sha256:${nodeCrypto().createHash('sha256').update(data).digest('hex')}`;
}

const DIGEST_RE = /^sha256:[a-f0-9]{64}$/;

export function isDigest(s: string): boolean {
  return DIGEST_RE.test(s);
}

/** The hex part of a `sha256:` digest (for blob file names). */
export function digestHex(d: string): string {
  return d.slice('sha256:'.length);
}
