/**
 * `npm run fuzz [-- --count N --seed S --target NAME... --batch N]`: runs N inputs per target
 * (default 10,000), each batch in a child process with a heap limit and a stall limit. A crash
 * (an exception that is not one of the project's error types), a hang (no input finished within
 * the stall limit) or a blow-up (the child ran out of memory) is saved, minimised when cheap,
 * under test/fuzz/corpus/<target>/, where `make test` replays it. Prints a summary table; exits 1
 * when anything was found.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crashKey } from './classify.js';
import { inputFor } from './mutate.js';
import { makeTarget, projectRoot, SCRATCH_PREFIX, TARGET_NAMES } from './targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));

interface Options {
  count: number;
  seed: number;
  targets: string[];
  batch: number;
  stallMs: number;
  batchMs: number;
  heapMb: number;
  corpus: string;
  save: boolean;
}

const USAGE = 'usage: npm run fuzz -- [--count N] [--seed N] [--target NAME]... [--batch N] [--stall-ms N] [--heap-mb N] [--no-save]';

function parseArgs(argv: string[]): Options {
  const o: Options = { count: 10_000, seed: 1, targets: [], batch: 1000, stallMs: 10_000, batchMs: 600_000, heapMb: 512, corpus: path.join(projectRoot(), 'test', 'fuzz', 'corpus'), save: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    const num = () => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 0) usage(`${a} needs a non-negative integer`);
      return v;
    };
    if (a === '--count') o.count = num();
    else if (a === '--seed') o.seed = num();
    else if (a === '--batch') o.batch = Math.max(1, num());
    else if (a === '--stall-ms') o.stallMs = Math.max(100, num());
    else if (a === '--heap-mb') o.heapMb = Math.max(64, num());
    else if (a === '--target') {
      const t = argv[++i] ?? '';
      if (!(TARGET_NAMES as readonly string[]).includes(t)) usage(`unknown target ${JSON.stringify(t)} (one of ${TARGET_NAMES.join(', ')})`);
      o.targets.push(t);
    } else if (a === '--no-save') o.save = false;
    else if (a === '--help' || a === '-h') {
      process.stdout.write(USAGE + '\n');
      process.exit(0);
    } else usage(`unknown argument ${JSON.stringify(a)}`);
  }
  if (o.targets.length === 0) o.targets = [...TARGET_NAMES];
  return o;
}

function usage(msg: string): never {
  process.stderr.write(`fuzz: ${msg}\n${USAGE}\n`);
  process.exit(2);
}

interface Finding {
  kind: 'crash' | 'hang' | 'blow-up';
  index: number;
  error: string;
  input: Uint8Array;
}

interface BatchResult {
  ok: number;
  rejected: number;
  findings: Finding[];
  /** Next index to run (after a killed input). */
  next: number;
  /** Indexes with a result line. */
  seen: Set<number>;
  /** How the child ended, for inputs that got no result at all. */
  exit: string;
}

/** Runs inputs [from, from+count) in one child; stops at the first hang/blow-up/uncaught crash. */
function runBatch(o: Options, target: string, from: number, count: number): Promise<BatchResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [`--max-old-space-size=${o.heapMb}`, path.join(here, 'worker.js'), target, String(o.seed), String(from), String(count), 'minimise'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const r: BatchResult = { ok: 0, rejected: 0, findings: [], next: from + count, seen: new Set(), exit: '' };
    let at = from;
    let finished = from - 1;
    let buf = '';
    let stderr = '';
    let killedFor: 'hang' | undefined;
    let lastProgress = Date.now();
    const started = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - lastProgress > o.stallMs || Date.now() - started > o.batchMs) {
        killedFor = 'hang';
        child.kill('SIGKILL');
      }
    }, 100);
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        let m: { at?: number; i?: number; r?: string; error?: string; min?: string };
        try {
          m = JSON.parse(line);
        } catch {
          continue;
        }
        lastProgress = Date.now();
        if (m.i !== undefined) r.seen.add(m.i);
        if (m.at !== undefined) at = m.at;
        else if (m.r === 'ok') (r.ok++, (finished = m.i!));
        else if (m.r === 'rejected') (r.rejected++, (finished = m.i!));
        else if (m.r === 'crash') {
          finished = m.i!;
          r.findings.push({ kind: 'crash', index: m.i!, error: m.error ?? '?', input: m.min ? new Uint8Array(Buffer.from(m.min, 'base64')) : new Uint8Array() });
        }
      }
    });
    child.stderr.on('data', (d: Buffer) => (stderr = (stderr + d.toString('utf8')).slice(-4000)));
    child.on('close', (code, signal) => {
      clearInterval(timer);
      const mine = `${SCRATCH_PREFIX}${child.pid}-`;
      for (const d of readdirSync(tmpdir())) if (d.startsWith(mine)) rmSync(path.join(tmpdir(), d), { recursive: true, force: true });
      r.exit = `exit ${code ?? signal}${stderr.trim() ? `: ${stderr.trim().split('\n').slice(-1)[0]}` : ''}`;
      if (code === 0) return resolve(r);
      const blowUp = /heap out of memory|Allocation failed|Invalid array length/.test(stderr) || code === 134 || signal === 'SIGABRT';
      if (finished < at) {
        // Input `at` started and never ended.
        const kind = killedFor === 'hang' ? 'hang' : blowUp ? 'blow-up' : 'crash';
        const error = kind === 'hang' ? `no result within ${o.stallMs} ms` : kind === 'blow-up' ? `out of memory (heap limit ${o.heapMb} MiB)` : `child exited ${code ?? signal}: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`;
        if (!r.findings.some((f) => f.index === at)) r.findings.push({ kind, index: at, error, input: new Uint8Array() });
      }
      r.next = Math.max(at, finished) + 1;
      resolve(r);
    });
  });
}

interface CorpusEntry {
  target: string;
  kind: Finding['kind'];
  error: string;
  /** Where the fuzzer found it; null for an input written by hand (see note). */
  seed: number | null;
  index: number | null;
  note?: string;
  /** open: found and not yet fixed (the replay test expects it to fail); fixed: must pass. */
  status: 'open' | 'fixed';
}

function loadIndex(corpus: string): Record<string, CorpusEntry> {
  const f = path.join(corpus, 'index.json');
  return existsSync(f) ? (JSON.parse(readFileSync(f, 'utf8')) as Record<string, CorpusEntry>) : {};
}

function saveIndex(corpus: string, idx: Record<string, CorpusEntry>): void {
  const sorted = Object.fromEntries(Object.keys(idx).sort().map((k) => [k, idx[k]]));
  writeFileSync(path.join(corpus, 'index.json'), JSON.stringify(sorted, null, 2) + '\n');
}

async function main(): Promise<void> {
  const o = parseArgs(process.argv.slice(2));
  const rows: string[] = [];
  let total = 0;
  const idx = loadIndex(o.corpus);
  for (const target of o.targets) {
    const t = await makeTarget(target);
    const seeds = t.seeds;
    const dict = t.dict;
    await t.cleanup();
    const started = Date.now();
    let ok = 0;
    let rejected = 0;
    const found: Finding[] = [];
    for (let i = 0; i < o.count; ) {
      const n = Math.min(o.batch, o.count - i);
      const r = await runBatch(o, target, i, n);
      ok += r.ok;
      rejected += r.rejected;
      for (const f of r.findings) {
        // A killed child cannot send its input: re-create it (inputs are deterministic).
        if (f.input.length === 0) f.input = inputFor(target, o.seed, f.index, seeds, dict);
        found.push(f);
      }
      // Never lose an input silently: one without a result line is reported.
      for (let k = i; k < r.next; k++) {
        if (!r.seen.has(k) && !r.findings.some((f) => f.index === k)) found.push({ kind: 'crash', index: k, error: `no result reported (${r.exit})`, input: inputFor(target, o.seed, k, seeds, dict) });
      }
      i = r.next;
      process.stderr.write(`fuzz: ${target}: ${Math.min(i, o.count)}/${o.count}, ${found.length} found\r`);
    }
    process.stderr.write('\n');
    // One corpus entry per distinct problem (kind + error shape), the smallest input for it.
    const byKey = new Map<string, Finding>();
    for (const f of found) {
      const k = `${f.kind} ${crashKey(f.error)}`;
      const prev = byKey.get(k);
      if (!prev || f.input.length < prev.input.length) byKey.set(k, f);
    }
    if (o.save) {
      for (const f of byKey.values()) {
        const name = `${target}/${f.kind}-${createHash('sha256').update(f.input).digest('hex').slice(0, 16)}.bin`;
        mkdirSync(path.join(o.corpus, target), { recursive: true });
        writeFileSync(path.join(o.corpus, name), f.input);
        idx[name] = { target, kind: f.kind, error: f.error, seed: o.seed, index: f.index, status: 'open' };
      }
    }
    const count = (k: Finding['kind']) => found.filter((f) => f.kind === k).length;
    total += found.length;
    rows.push(`| ${target} | ${ok + rejected + found.length} | ${ok} | ${rejected} | ${count('crash')} | ${count('hang')} | ${count('blow-up')} | ${byKey.size} | ${((Date.now() - started) / 1000).toFixed(0)} s |`);
    for (const [k, f] of byKey) process.stderr.write(`  ${k}  (input ${f.index}, ${f.input.length} bytes)\n`);
  }
  if (o.save) {
    mkdirSync(o.corpus, { recursive: true });
    saveIndex(o.corpus, idx);
  }
  process.stdout.write(
    [
      `fuzz: seed ${o.seed}, ${o.count} inputs per target, batches of ${o.batch} in child processes (heap ${o.heapMb} MiB, stall limit ${o.stallMs} ms)`,
      '',
      '| target | inputs | accepted | rejected (project error) | crashes | hangs | blow-ups | distinct (saved) | time |',
      '|---|---|---|---|---|---|---|---|---|',
      ...rows,
      '',
    ].join('\n'),
  );
  process.exit(total > 0 ? 1 : 0);
}

void main();
