/** Reads a package directory's fixture trees (`.test-fixtures/`, also per component): dot-dirs the package FileMap skips. */
import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import type { FileMap } from '../core/filemap.js';
import { readDirToFileMap } from '../core/fs.js';
import { FIXTURES_DIR } from './template-tests.js';

async function isDir(p: string): Promise<boolean> {
  try {
    return (await fsp.lstat(p)).isDirectory();
  } catch {
    return false;
  }
}

export async function readFixtureDirs(root: string): Promise<FileMap> {
  const out: FileMap = new Map();
  const add = async (rel: string) => {
    const abs = path.join(root, rel, FIXTURES_DIR);
    if (!(await isDir(abs))) return;
    for (const [p, b] of await readDirToFileMap(abs)) out.set(`${rel ? rel + '/' : ''}${FIXTURES_DIR}/${p}`, b);
  };
  await add('');
  const comps = path.join(root, 'components');
  if (await isDir(comps)) {
    for (const e of (await fsp.readdir(comps, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && !e.name.startsWith('.')) await add(`components/${e.name}`);
    }
  }
  return out;
}
