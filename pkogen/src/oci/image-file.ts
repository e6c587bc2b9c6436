/**
 * Reads one file of an image we did not build (a layout's index.json or blob, a docker archive)
 * without trusting it: only a regular file is read (a FIFO would block forever, /dev/zero never
 * ends, a symlink could point anywhere), its size is checked before any byte is read, and no
 * more than that size is ever read even if the file grows meanwhile.
 */
import { closeSync, constants, fstatSync, openSync, promises as fsp, readSync, type Stats } from 'node:fs';
import { invalidImage, type ByteSource } from './image.js';

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

const KINDS: [string, (s: Stats) => boolean][] = [
  ['a directory', (s) => s.isDirectory()],
  ['a FIFO', (s) => s.isFIFO()],
  ['a character device', (s) => s.isCharacterDevice()],
  ['a block device', (s) => s.isBlockDevice()],
  ['a socket', (s) => s.isSocket()],
];

/**
 * Opens an image file after the checks above (regular file, size), or undefined when it does not
 * exist; the caller closes the handle.
 */
async function openImageFile(file: string, opts: ReadImageFileOptions): Promise<{ fh: fsp.FileHandle; size: number } | undefined> {
  let fh: fsp.FileHandle;
  try {
    fh = await fsp.open(file, openFlags(opts));
  } catch (e) {
    return openFailed(file, e);
  }
  try {
    return { fh, size: checkStat(file, await fh.stat(), opts) };
  } catch (e) {
    await fh.close();
    throw e;
  }
}

// O_NONBLOCK: opening a FIFO for reading must not wait for a writer; O_NOFOLLOW: a symlink is refused.
const openFlags = (opts: ReadImageFileOptions) => constants.O_RDONLY | constants.O_NONBLOCK | (opts.followSymlink ? 0 : constants.O_NOFOLLOW);

function openFailed(file: string, e: unknown): undefined {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
  if (code === 'ELOOP') throw invalidImage(file, '', 'is a symbolic link; only regular files are read from an image');
  if (code === 'ENXIO') throw invalidImage(file, '', 'is a socket or device; only regular files are read from an image');
  throw invalidImage(file, '', `cannot be read (${code ?? (e as Error).message})`);
}

/** The size of an opened image file, after checking it is a regular file of the size allowed. */
function checkStat(file: string, st: Stats, opts: ReadImageFileOptions): number {
  if (!st.isFile()) {
    const kind = KINDS.find(([, t]) => t(st))?.[0] ?? 'not a regular file';
    throw invalidImage(file, '', `is ${kind}; only regular files are read from an image`);
  }
  const where = opts.field ? [opts.fieldFile ?? file, opts.field] : [file, ''];
  if (opts.expectSize !== undefined && st.size !== opts.expectSize)
    throw invalidImage(where[0], where[1], `${file} has ${st.size} bytes, the descriptor says ${opts.expectSize}`);
  if (st.size > opts.max) throw invalidImage(where[0], where[1], `${file} has ${st.size} bytes, more than the ${opts.max} allowed`);
  return st.size;
}

/** Reads `size` bytes from the start of `fh` into `buf` (or fewer when the file shrank); returns how many. */
async function readFully(fh: fsp.FileHandle, buf: Uint8Array, position: number): Promise<number> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) break;
    off += bytesRead;
  }
  return off;
}

/** Returns undefined when the file does not exist; throws `invalid image: <file>: …` when it is unusable. */
export async function readImageFile(file: string, opts: ReadImageFileOptions): Promise<Uint8Array | undefined> {
  const opened = await openImageFile(file, opts);
  if (!opened) return undefined;
  try {
    const buf = new Uint8Array(opened.size);
    const got = await readFully(opened.fh, buf, 0);
    if (got !== buf.length) throw invalidImage(file, '', `shrank while being read (${got} of ${buf.length} bytes)`);
    return buf;
  } finally {
    await opened.fh.close();
  }
}

/**
 * An image file left on disk and streamed when its bytes are needed (a push sends a layout's layer
 * while reading it, instead of reading 50 MB before the first byte goes out). Checked like
 * readImageFile now (exists, regular file, size) and again at every read: the file may have changed
 * in between. Every read yields exactly `size` bytes or fails.
 */
export async function imageFileSource(file: string, opts: ReadImageFileOptions & { expectSize: number }, chunkBytes = 1 << 20): Promise<ByteSource | undefined> {
  const opened = await openImageFile(file, opts);
  if (!opened) return undefined;
  await opened.fh.close();
  const size = opened.size;
  return {
    size,
    async *read() {
      const again = await openImageFile(file, opts);
      if (!again) throw invalidImage(file, '', 'was removed while the image was in use');
      // One slice read ahead: the disk read of the next overlaps the sending of this one.
      const slice = async (off: number) => {
        const buf = new Uint8Array(Math.min(chunkBytes, size - off));
        const got = await readFully(again.fh, buf, off);
        if (got !== buf.length) throw invalidImage(file, '', `shrank while being read (${off + got} of ${size} bytes)`);
        return buf;
      };
      // Handled at once: a read that fails while this generator waits at `yield` must not be an
      // unhandled rejection (Node ends the process); awaiting it below still throws its error.
      const ahead = (off: number) => {
        const p = slice(off);
        p.catch(() => undefined);
        return p;
      };
      let next: Promise<Uint8Array> | undefined = size > 0 ? ahead(0) : undefined;
      try {
        for (let off = 0; next; ) {
          const buf: Uint8Array = await next;
          off += buf.length;
          next = off < size ? ahead(off) : undefined;
          yield buf;
        }
      } finally {
        // A read still in flight (the consumer stopped early) ends before the file is closed.
        await next?.catch(() => undefined);
        await again.fh.close();
      }
    },
    readAllSync() {
      let fd: number;
      try {
        fd = openSync(file, openFlags(opts));
      } catch (e) {
        throw openFailed(file, e) ?? invalidImage(file, '', 'was removed while the image was in use');
      }
      try {
        checkStat(file, fstatSync(fd), opts);
        const buf = new Uint8Array(size);
        let off = 0;
        while (off < size) {
          const n = readSync(fd, buf, off, size - off, off);
          if (n === 0) throw invalidImage(file, '', `shrank while being read (${off} of ${size} bytes)`);
          off += n;
        }
        return buf;
      } finally {
        closeSync(fd);
      }
    },
  };
}
