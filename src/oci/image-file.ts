/**
 * Reads one file of an image we did not build (a layout's index.json or blob, a docker archive)
 * without trusting it: only a regular file is read (a FIFO would block forever, /dev/zero never
 * ends, a symlink could point anywhere), its size is checked before any byte is read, and no
 * more than that size is ever read even if the file grows meanwhile.
 */
import { constants, promises as fsp } from 'node:fs';
import { invalidImage } from './image.js';

export interface ReadImageFileOptions {
  /** Largest size accepted. */
  max: number;
  /** The size the file must have (a descriptor's `size`). */
  expectSize?: number;
  /** Follow a symlink at `file` itself (true for a path the user typed; never inside a layout). */
  followSymlink?: boolean;
  /** The field the size comes from, for messages (e.g. `layers[0].size`). */
  field?: string;
  /** The document holding `field` (e.g. the manifest's file); defaults to `file`. */
  fieldFile?: string;
}

const KINDS: [string, (s: import('node:fs').Stats) => boolean][] = [
  ['a directory', (s) => s.isDirectory()],
  ['a FIFO', (s) => s.isFIFO()],
  ['a character device', (s) => s.isCharacterDevice()],
  ['a block device', (s) => s.isBlockDevice()],
  ['a socket', (s) => s.isSocket()],
];

/** Returns undefined when the file does not exist; throws `invalid image: <file>: …` when it is unusable. */
export async function readImageFile(file: string, opts: ReadImageFileOptions): Promise<Uint8Array | undefined> {
  // O_NONBLOCK: opening a FIFO for reading must not wait for a writer; O_NOFOLLOW: a symlink is refused.
  const flags = constants.O_RDONLY | constants.O_NONBLOCK | (opts.followSymlink ? 0 : constants.O_NOFOLLOW);
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(file, flags);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    if (code === 'ELOOP') throw invalidImage(file, '', 'is a symbolic link; only regular files are read from an image');
    if (code === 'ENXIO') throw invalidImage(file, '', 'is a socket or device; only regular files are read from an image');
    throw invalidImage(file, '', `cannot be read (${code ?? (e as Error).message})`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) {
      const kind = KINDS.find(([, t]) => t(st))?.[0] ?? 'not a regular file';
      throw invalidImage(file, '', `is ${kind}; only regular files are read from an image`);
    }
    const where = opts.field ? [opts.fieldFile ?? file, opts.field] : [file, ''];
    if (opts.expectSize !== undefined && st.size !== opts.expectSize)
      throw invalidImage(where[0], where[1], `${file} has ${st.size} bytes, the descriptor says ${opts.expectSize}`);
    if (st.size > opts.max) throw invalidImage(where[0], where[1], `${file} has ${st.size} bytes, more than the ${opts.max} allowed`);
    const buf = new Uint8Array(st.size);
    let off = 0;
    while (off < buf.length) {
      const { bytesRead } = await fh.read(buf, off, buf.length - off, off);
      if (bytesRead === 0) break;
      off += bytesRead;
    }
    if (off !== buf.length) throw invalidImage(file, '', `shrank while being read (${off} of ${buf.length} bytes)`);
    return buf;
  } finally {
    await fh.close();
  }
}
