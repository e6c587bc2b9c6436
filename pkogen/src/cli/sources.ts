/** Reads command-line SOURCE arguments (files or directories) into FileMaps. */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { UserError } from '../core/errors.js';
import { type FileMap } from '../core/filemap.js';
import { readDirToFileMap } from '../core/fs.js';

export interface SourceArg {
  name: string;
  files: FileMap;
  isDirectory: boolean;
}

/** Bounds what one command reads, so a wrong argument (a home directory) fails fast. */
const MAX_BYTES = 64 * 1024 * 1024;

export async function readSourceArgs(args: string[], cwd: string): Promise<SourceArg[]> {
  const out: SourceArg[] = [];
  let total = 0;
  for (const a of args) {
    const abs = path.resolve(cwd, a);
    let st;
    try {
      st = await fsp.stat(abs);
    } catch {
      throw new UserError('no such file or directory', { file: a });
    }
    let files: FileMap;
    if (st.isDirectory()) files = await readDirToFileMap(abs);
    else if (st.isFile()) {
      if (st.size > MAX_BYTES) throw new UserError(`larger than ${MAX_BYTES} bytes`, { file: a });
      files = new Map([[path.basename(abs), new Uint8Array(await fsp.readFile(abs))]]);
    } else throw new UserError('not a file or directory', { file: a });
    for (const b of files.values()) total += b.length;
    if (total > MAX_BYTES) throw new UserError(`sources are larger than ${MAX_BYTES} bytes in total`, { file: a });
    out.push({ name: a, files, isDirectory: st.isDirectory() });
  }
  return out;
}

/** An output directory a command may fill: missing or empty, unless the user passed --force. */
export async function checkOutputDir(dir: string, shown: string, force: boolean): Promise<void> {
  let entries: string[];
  try {
    entries = await fsp.readdir(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') throw new UserError('exists and is not a directory', { file: shown });
    throw e;
  }
  if (entries.length > 0 && !force) throw new UserError('directory is not empty (use --force to replace its contents)', { file: shown });
}
