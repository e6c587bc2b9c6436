/**
 * `npm run bench -- rebuild`: the time from an edit of one resources/*.ts file to a
 * regenerated package/ (`make -s package`: the incremental tsc -b of resources/ and builder/, then
 * pkogen generate). Appends a comment to resources/config.ts, runs it, restores the file; five
 * rounds after one warm-up. Run from the repository root after `make build`.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import * as path from 'node:path';

const ROUNDS = 5;

export async function bench(): Promise<string> {
  const file = path.resolve('resources', 'config.ts');
  const original = readFileSync(file, 'utf8');
  const times: number[] = [];
  try {
    for (let i = 0; i <= ROUNDS; i++) {
      writeFileSync(file, `${original}// bench round ${i}\n`);
      const t0 = process.hrtime.bigint();
      execFileSync('make', ['-s', 'package'], { stdio: 'pipe', timeout: 300_000 });
      if (i > 0) times.push(Number(process.hrtime.bigint() - t0) / 1e9);
    }
  } finally {
    writeFileSync(file, original);
    execFileSync('make', ['-s', 'package'], { stdio: 'pipe', timeout: 300_000 });
  }
  times.sort((a, b) => a - b);
  return [
    '## From an edit in resources/ to a regenerated package/',
    '',
    `Command: \`make build && npm run bench -- rebuild\` (test/bench/rebuild.ts). ${ROUNDS} rounds after a warm-up; load average at the end ${loadavg()[0]!.toFixed(1)}.`,
    '',
    '| median | min | max | target |',
    '|---|---|---|---|',
    `| ${times[Math.floor(times.length / 2)]!.toFixed(2)} s | ${times[0]!.toFixed(2)} s | ${times[times.length - 1]!.toFixed(2)} s | under 5 s |`,
  ].join('\n');
}
