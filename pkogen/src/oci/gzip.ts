/**
 * Deterministic gzip. Node's zlib writes mtime 0 and no name already; the OS byte is 3 on Unix
 * and 10 on Windows, so we pin it to 255 ("unknown", what Go writes) for the same bytes
 * everywhere. The level is fixed too: zlib's default (6), which on package YAML gives layers ~3 %
 * larger than level 9 in a quarter of the time (docs/benchmarks.md, start-up's fourth round).
 * The deflate stream itself comes from the zlib bundled with Node; docs/oci.md says what that
 * means for digests across Node releases.
 */
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { UserError } from '../core/errors.js';

export const GZIP_LEVEL = 6;

export function gzipDeterministic(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(gzipSync(data, { level: GZIP_LEVEL, memLevel: 8, windowBits: 15, strategy: constants.Z_DEFAULT_STRATEGY }));
  out[4] = out[5] = out[6] = out[7] = 0; // mtime
  out[9] = 0xff; // OS: unknown
  return out;
}

export function isGzip(data: Uint8Array): boolean {
  return data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b;
}

/** Gunzips with a ceiling on the output, so a hostile layer cannot exhaust memory. */
export function gunzipBounded(data: Uint8Array, maxBytes: number, what = 'layer'): Uint8Array {
  try {
    return new Uint8Array(gunzipSync(data, { maxOutputLength: maxBytes }));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || /maxOutputLength|Cannot create a Buffer larger/.test((e as Error).message))
      throw new UserError(`${what} uncompresses to more than ${maxBytes} bytes; refusing it`);
    throw new UserError(`${what} is not valid gzip: ${(e as Error).message}`);
  }
}
