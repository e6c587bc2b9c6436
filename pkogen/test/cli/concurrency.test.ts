import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import * as path from 'node:path';
import { readDirToFileMap, withDirLock, writeFileMapAtomic } from '../../src/core/fs.js';
import { UserError } from '../../src/core/errors.js';
import { REPO, ROOT, tempDir } from '../helpers.js';

const BIN = path.join(ROOT, 'bin', 'pkogen.js');
const BUNDLE = path.join(REPO, 'dist', 'resources', 'resources.js');

interface Run {
  args: string[];
  code: number | null;
  stderr: string;
}

/** Starts a built CLI process; resolves when it exits, killed after 90 s so the test stays bounded. */
function start(args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    p.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => p.kill('SIGKILL'), 90_000);
    p.on('close', (code) => {
      clearTimeout(timer);
      resolve({ args, code, stderr });
    });
  });
}

describe('concurrent generate and verify on one tree', () => {
  it('never fail and verify never sees package/ missing', async () => {
    const t = tempDir();
    try {
      expect((await start(['generate', BUNDLE, '--root', t.dir])).code).toBe(0);
      // Two rounds of 3 generates and 3 verifies started together, interleaved.
      for (let round = 0; round < 2; round++) {
        const runs = await Promise.all(
          [0, 1, 2].flatMap(() => [start(['generate', BUNDLE, '--root', t.dir]), start(['verify', BUNDLE, '--root', t.dir])]),
        );
        for (const r of runs) expect({ args: r.args[0], code: r.code, stderr: r.stderr }).toEqual({ args: r.args[0], code: 0, stderr: '' });
      }
      // Nothing left behind but the record of what generate wrote: no lock, no temp or old directories.
      expect(readdirSync(t.dir).sort()).toEqual(['.pkogen-generated', 'hack', 'package']);
    } finally {
      t.cleanup();
    }
  }, 240_000);
});

describe('writeFileMapAtomic', () => {
  it('ten overlapping writes of one directory all succeed and leave one whole copy', async () => {
    const t = tempDir();
    try {
      const target = path.join(t.dir, 'package');
      const versions = Array.from({ length: 10 }, (_, i) => new Map([['manifest.yaml', new Uint8Array([48 + i])], [`sub/only-${i}.yaml`, new Uint8Array([10])]]));
      const results = await Promise.allSettled(versions.map((fm) => writeFileMapAtomic(target, fm)));
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const got = await readDirToFileMap(target, { skipDotFiles: false });
      expect(versions.some((v) => [...v.keys()].join() === [...got.keys()].sort().join())).toBe(true);
      expect(readdirSync(t.dir)).toEqual(['package']);
    } finally {
      t.cleanup();
    }
  });
});

describe('withDirLock', () => {
  it('takes over a lock left by a process that no longer runs', async () => {
    const t = tempDir();
    try {
      const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
      const lock = path.join(t.dir, '.pkogen.lock');
      writeFileSync(lock, `${dead.stdout} ${hostname()}\n`);
      const ran = await withDirLock(t.dir, async () => 'ran');
      expect(ran).toBe('ran');
      expect(existsSync(lock)).toBe(false);
    } finally {
      t.cleanup();
    }
  });

  it('waits for a live holder, then names it in a located error', async () => {
    const t = tempDir();
    try {
      const lock = path.join(t.dir, '.pkogen.lock');
      writeFileSync(lock, `${process.pid} ${hostname()}\n`);
      const err = await withDirLock(t.dir, async () => 'ran', { waitMs: 300, purpose: 'generate or verify' }).catch((e) => e);
      expect(err).toBeInstanceOf(UserError);
      expect((err as UserError).describe()).toBe(
        `${lock}: another pkogen generate or verify holds the lock (pid ${process.pid} on ${hostname()}); remove the file if that process is gone`,
      );
      expect(existsSync(lock)).toBe(true); // someone else's lock is left alone
    } finally {
      t.cleanup();
    }
  });

  it('runs one holder at a time within a process too', async () => {
    const t = tempDir();
    try {
      let inside = 0;
      let most = 0;
      await Promise.all(
        [0, 1, 2, 3].map(() =>
          withDirLock(t.dir, async () => {
            inside++;
            most = Math.max(most, inside);
            await new Promise((r) => setTimeout(r, 30));
            inside--;
          }),
        ),
      );
      expect(most).toBe(1);
      expect(readdirSync(t.dir)).toEqual([]);
    } finally {
      t.cleanup();
    }
  });
});
