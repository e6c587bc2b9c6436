/**
 * Where pkogen itself is installed: the directory of its package.json, found by walking up from
 * this module (src/cli in a checkout, dist/src/cli once built or installed).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: { root: string; version: string } | undefined;

function find(): { root: string; version: string } {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    try {
      const pj = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (pj.name === 'pkogen') return { root: dir, version: String(pj.version ?? '0.0.0') };
    } catch {
      // not here; keep walking up
    }
    dir = path.dirname(dir);
  }
  throw new Error('cannot find pkogen package.json');
}

export function pkogenRoot(): string {
  return (cached ??= find()).root;
}

export function pkogenVersion(): string {
  return (cached ??= find()).version;
}
