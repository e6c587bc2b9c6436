/**
 * processIO writes with write(2) and falls back to Node's stream when write(2) fails: whatever the
 * pipe does (full, closed early), the reader gets every byte once and in order.
 */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

const ROOT = process.cwd();
// The compiled module (make test builds dist/ first), run as the CLI runs it: in its own process.
const IO = pathToFileURL(path.join(ROOT, 'dist', 'src', 'cli', 'io.js')).href;

// Python sets O_NONBLOCK on the pipe (shared with the child through exec), as a parent whose own
// end is non-blocking would leave it: write(2) then fails with EAGAIN once the pipe is full.
const NONBLOCK = 'import fcntl, os, sys; fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK); os.execv(sys.argv[1], sys.argv[1:])';

/** Runs a child script on Node; the parent starts reading its stdout after `delayMs`. */
function child(script: string, delayMs: number, nonBlocking = false): Promise<{ out: Buffer; err: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const node = [process.execPath, '--input-type=module', '-e', script];
    const [cmd, ...args] = nonBlocking ? ['python3', '-c', NONBLOCK, ...node] : node;
    const p = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    p.stdout.pause();
    setTimeout(() => p.stdout.resume(), delayMs);
    p.stdout.on('data', (d: Buffer) => out.push(d));
    p.stderr.on('data', (d: Buffer) => (err += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 30_000);
    p.on('error', reject);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ out: Buffer.concat(out), err, code });
    });
  });
}

// 3 MiB in pieces of different sizes, each numbered: a lost, repeated or reordered byte shows.
const LINES = 3000;
const line = (i: number) => String(i).padStart(6, '0') + 'x'.repeat((i * 7919) % 2000);
const WRITER = `
  const { processIO } = await import(${JSON.stringify(IO)});
  for (let i = 0; i < ${LINES}; i++) processIO.stdout(String(i).padStart(6, '0') + 'x'.repeat((i * 7919) % 2000) + '\\n');
  processIO.stderr('done\\n');
`;

test.each([
  ['a blocking pipe (write(2) waits)', false],
  ['a non-blocking pipe (write(2) fails with EAGAIN; the stream takes the rest)', true],
])('a report larger than the pipe arrives whole and in order on %s, to a reader slow to start', async (_name, nonBlocking) => {
  const r = await child(WRITER, 300, nonBlocking);
  expect({ code: r.code, err: r.err }).toEqual({ code: 0, err: 'done\n' });
  const lines = r.out.toString('utf8').split('\n');
  expect(lines.pop()).toBe('');
  expect(lines).toHaveLength(LINES);
  lines.forEach((l, i) => expect(l).toBe(line(i)));
});

test('one write larger than a non-blocking pipe: the stream takes what write(2) left, not the whole text again', async () => {
  const r = await child(`const { processIO } = await import(${JSON.stringify(IO)}); processIO.stdout(Array.from({ length: ${LINES} }, (_, i) => String(i).padStart(6, '0') + 'x'.repeat((i * 7919) % 2000) + '\\n').join(''));`, 300, true);
  expect(r.code).toBe(0);
  expect(r.out.toString('utf8')).toBe(Array.from({ length: LINES }, (_, i) => line(i) + '\n').join(''));
});

test('multi-byte text is written as UTF-8, unsplit', async () => {
  const r = await child(`const { processIO } = await import(${JSON.stringify(IO)}); processIO.stdout('→ é ✓\\n'.repeat(50000));`, 100);
  expect(r.code).toBe(0);
  expect(r.out.toString('utf8')).toBe('→ é ✓\n'.repeat(50000));
});
