/** Reads a package directory's fixture trees (`.test-fixtures/`, also per component): dot-dirs the package FileMap skips. */
import { lstatSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import type { FileMap } from '../core/filemap.js';
import { readDirToFileMapSync } from '../core/fs.js';
import { FIXTURES_DIR } from './template-tests.js';

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

export async function readFixtureDirs(root: string): Promise<FileMap> {
  const out: FileMap = new Map();
  // Synchronous reads, as in readDirToFileMap: a few small files, no event-loop turn for each.
  const add = (rel: string) => {
    const abs = path.join(root, rel, FIXTURES_DIR);
    if (!isDir(abs)) return;
    for (const [p, b] of readDirToFileMapSync(abs)) out.set(`${rel ? rel + '/' : ''}${FIXTURES_DIR}/${p}`, b);
  };
  add('');
  const comps = path.join(root, 'components');
  if (isDir(comps)) {
    for (const e of readdirSync(comps, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && !e.name.startsWith('.')) add(`components/${e.name}`);
    }
  }
  return out;
}
