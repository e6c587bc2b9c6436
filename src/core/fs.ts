import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { FileMap, sortedPaths } from './filemap.js';
import { UserError } from './errors.js';

export interface ReadDirOptions {
  /** PKO's rule: skip every file or directory whose base name starts with `.`. */
  skipDotFiles?: boolean;
  /** Receives the relative path of every symlink skipped, so a caller can say so. */
  skippedSymlinks?: string[];
}

/**
 * Reads a directory into a FileMap the way PKO's folder importer does: symlinks are skipped
 * (never followed), dot-files and dot-directories are skipped when asked, paths are posix.
 */
export async function readDirToFileMap(root: string, opts: ReadDirOptions = {}): Promise<FileMap> {
  const skipDot = opts.skipDotFiles ?? true;
  const fm: FileMap = new Map();
  let st;
  try {
    st = await fsp.lstat(root);
  } catch {
    throw new UserError(`no such directory`, { file: root });
  }
  if (!st.isDirectory()) throw new UserError(`not a directory`, { file: root });
  const walk = async (dir: string, rel: string): Promise<void> => {
    const entries = await fsp.readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (skipDot && e.name.startsWith('.')) continue;
      const abs = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) {
        opts.skippedSymlinks?.push(r);
        continue;
      }
      if (e.isDirectory()) await walk(abs, r);
      else if (e.isFile()) fm.set(r, new Uint8Array(await fsp.readFile(abs)));
    }
  };
  await walk(root, '');
  return fm;
}

/**
 * Replaces the directory `target` with exactly the files of `fm`, atomically: everything is
 * written into a sibling temp directory first, then swapped in with renames. A failure before
 * the swap leaves `target` as it was.
 */
export async function writeFileMapAtomic(target: string, fm: FileMap): Promise<void> {
  const abs = path.resolve(target);
  const parent = path.dirname(abs);
  await fsp.mkdir(parent, { recursive: true });
  const tmp = await fsp.mkdtemp(path.join(parent, `.${path.basename(abs)}.tmp-`));
  try {
    for (const p of sortedPaths(fm)) {
      if (p.split('/').some((seg) => seg === '..' || seg === '')) throw new UserError(`refusing to write outside the target`, { file: p });
      const dest = path.join(tmp, p);
      await fsp.mkdir(path.dirname(dest), { recursive: true });
      await fsp.writeFile(dest, fm.get(p)!, { mode: 0o644 });
      await fsp.chmod(dest, 0o644);
    }
    const old = `${tmp}.old`;
    let hadOld = false;
    try {
      await fsp.rename(abs, old);
      hadOld = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    try {
      await fsp.rename(tmp, abs);
    } catch (e) {
      if (hadOld) await fsp.rename(old, abs);
      throw e;
    }
    if (hadOld) await fsp.rm(old, { recursive: true, force: true });
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}

/** Writes one file atomically (temp file in the same directory, then rename). */
export async function writeFileAtomic(file: string, data: Uint8Array | string, mode = 0o644): Promise<void> {
  const abs = path.resolve(file);
  await fsp.mkdir(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tmp-${process.pid}-${Date.now()}`);
  try {
    await fsp.writeFile(tmp, data, { mode });
    await fsp.chmod(tmp, mode);
    await fsp.rename(tmp, abs);
  } catch (e) {
    await fsp.rm(tmp, { force: true });
    throw e;
  }
}
