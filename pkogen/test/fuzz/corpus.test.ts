/**
 * Replays the fuzz corpus (test/fuzz/corpus/, written by `npm run fuzz`) and a small fixed-seed
 * sample of every target, each in a child process with a heap limit and a time limit, so a
 * hang or a memory blow-up fails the test instead of taking jest down.
 *
 * An entry with status "open" is a problem found by the fuzzer whose fix belongs to another
 * change (issue 11 items 1–6): it must still fail as recorded. Once it passes, set its status to
 * "fixed" in index.json; from then on it must end as accepted or a project error.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { crashKey } from './classify.js';
import { ROOT } from '../helpers.js';

const WORKER = path.join(ROOT, 'dist', 'test', 'fuzz', 'worker.js');
const CORPUS = path.join(ROOT, 'test', 'fuzz', 'corpus');
const TARGETS = ['yaml', 'yaml-config', 'gotemplate', 'tar-gzip', 'oci-layout', 'docker-archive', 'registry', 'rollout'];

interface Entry {
  target: string;
  kind: 'crash' | 'hang' | 'blow-up';
  error: string;
  status: 'open' | 'fixed';
}

const index: Record<string, Entry> = existsSync(path.join(CORPUS, 'index.json')) ? JSON.parse(readFileSync(path.join(CORPUS, 'index.json'), 'utf8')) : {};

/** One child, 256 MiB heap (a blow-up shows sooner), killed after `ms`: returns the worker's result lines and how it ended. */
function worker(args: string[], ms: number): { lines: { i?: number; r?: string; error?: string }[]; status: number | null; signal: string | null; stderr: string } {
  const p = spawnSync(process.execPath, ['--max-old-space-size=256', WORKER, ...args], { cwd: ROOT, encoding: 'utf8', timeout: ms, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024 });
  // A killed child leaves its scratch directory behind.
  for (const d of readdirSync(tmpdir())) if (d.startsWith(`pkogen-fuzz-${p.pid}-`)) rmSync(path.join(tmpdir(), d), { recursive: true, force: true });
  const lines = (p.stdout ?? '').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
  return { lines, status: p.status, signal: p.signal, stderr: p.stderr ?? '' };
}

/** What replaying one saved input gives: ok, rejected (a project error), crash, hang or blow-up. */
function replay(file: string, target: string): { outcome: string; error?: string } {
  const w = worker(['--replay', target, path.join(CORPUS, file)], 15_000);
  if (w.signal === 'SIGKILL') return { outcome: 'hang' };
  if (w.status === 134 || /heap out of memory/.test(w.stderr)) return { outcome: 'blow-up' };
  const last = w.lines[w.lines.length - 1];
  return { outcome: last?.r ?? `exit ${w.status}`, error: last?.error };
}

describe('fuzz corpus replay', () => {
  test('the worker is built (make unit builds dist/ first)', () => {
    expect(existsSync(WORKER)).toBe(true);
  });

  const entries = Object.entries(index);
  const fixed = entries.filter(([, e]) => e.status === 'fixed');
  const open = entries.filter(([, e]) => e.status === 'open');

  if (fixed.length) {
    test.each(fixed)('%s ends as accepted or a project error', (file, e) => {
      const r = replay(file, e.target);
      expect([r.outcome, r.error]).toEqual([expect.stringMatching(/^(ok|rejected)$/), r.outcome === 'rejected' ? expect.any(String) : undefined]);
    });
  }
  if (open.length) {
    test.each(open)('%s (open, fixed by another change) still fails as recorded; mark it "fixed" once it passes', (file, e) => {
      const r = replay(file, e.target);
      // A blow-up may end as a stall first on a busy machine: both are "still failing".
      if (e.kind === 'crash') expect([r.outcome, crashKey(r.error ?? '')]).toEqual(['crash', crashKey(e.error)]);
      else expect(['hang', 'blow-up']).toContain(r.outcome);
    });
  }
  test('every saved input is listed in index.json and every listed one exists', () => {
    for (const file of Object.keys(index)) expect(existsSync(path.join(CORPUS, file))).toBe(true);
  });
});

describe('fuzz sample: 100 fixed-seed inputs per target', () => {
  test.each(TARGETS)('%s: no crash, hang or blow-up beyond the open corpus entries', (target) => {
    const known = new Set(Object.values(index).filter((e) => e.target === target && e.status === 'open' && e.kind === 'crash').map((e) => crashKey(e.error)));
    const w = worker([target, '7', '0', '100'], 60_000);
    expect({ signal: w.signal, status: w.status }).toEqual({ signal: null, status: 0 });
    const results = w.lines.filter((l) => l.r !== undefined);
    expect(results).toHaveLength(100);
    const unknown = results.filter((l) => l.r === 'crash' && !known.has(crashKey(l.error ?? ''))).map((l) => `input ${l.i}: ${l.error}`);
    expect(unknown).toEqual([]);
  });
});
