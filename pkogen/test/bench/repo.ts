/**
 * The repository pkogen lives in (on-cluster-build, one folder up): its generated package/ and
 * its built bundle (dist/resources/resources.js, `make build` at the repository root) are the
 * real-world input several benches measure.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { RolloutTemplateOptions } from '../../src/rollout/generate.js';

/** pkogen's folder: the nearest one up with pkogen's package.json (from test/bench or dist/test/bench). */
function pkogenRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (existsSync(pj) && (JSON.parse(readFileSync(pj, 'utf8')) as { name?: string }).name === 'pkogen') return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new Error('bench: not inside pkogen');
    dir = up;
  }
}

export const REPO = path.dirname(pkogenRoot());
export const OUR_PACKAGE = path.join(REPO, 'package');

/** The rollout Template options our bundle passes (resources/resources.ts `rolloutOptions`). */
export async function ourRolloutOptions(): Promise<RolloutTemplateOptions> {
  const bundle = path.join(REPO, 'dist', 'resources', 'resources.js');
  const m = (await import(pathToFileURL(bundle).href)) as { rolloutOptions: () => RolloutTemplateOptions };
  return m.rolloutOptions();
}
