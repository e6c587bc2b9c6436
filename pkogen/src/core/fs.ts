import { chmodSync, lstatSync, mkdirSync, promises as fsp, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { hostname } from 'node:os';
import { FileMap, sortedPaths } from './filemap.js';
import { UserError } from './errors.js';

export interface ReadDirOptions {
  /** PKO's rule: skip every file or directory whose base name starts with `.`. */
  skipDotFiles?: boolean;
  /** Receives the relative path of every symlink skipped, so a caller can say so. */
  skippedSymlinks?: string[];
}

/**
 * Reads a directory into a FileMap the way PKO's folder importer does: symlinks are skipped
 * (never followed), dot-files and dot-directories are skipped when asked, paths are posix.
 * Synchronous inside: a package is a few dozen small files, and one event-loop turn per file
 * (the promise API) was most of the wall time a command spent reading them.
 */
export async function readDirToFileMap(root: string, opts: ReadDirOptions = {}): Promise<FileMap> {
  return readDirToFileMapSync(root, opts);
}

export function readDirToFileMapSync(root: string, opts: ReadDirOptions = {}): FileMap {
  const skipDot = opts.skipDotFiles ?? true;
  const fm: FileMap = new Map();
  let st;
  try {
    st = lstatSync(root);
  } catch {
    throw new UserError(`no such directory`, { file: root });
  }
  if (!st.isDirectory()) throw new UserError(`not a directory`, { file: root });
  const walk = (dir: string, rel: string): void => {
    const entries = readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (skipDot && e.name.startsWith('.')) continue;
      const abs = path.join(dir, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isSymbolicLink()) {
        opts.skippedSymlinks?.push(r);
        continue;
      }
      if (e.isDirectory()) walk(abs, r);
      else if (e.isFile()) fm.set(r, new Uint8Array(readFileSync(abs)));
    }
  };
  walk(root, '');
  return fm;
}

/**
 * Replaces the directory `target` with exactly the files of `fm`, atomically: everything is
 * written into a sibling temp directory first, then swapped in with renames. A failure before
 * the swap leaves `target` as it was.
 */
export async function writeFileMapAtomic(target: string, fm: FileMap): Promise<void> {
  const abs = path.resolve(target);
  const parent = path.dirname(abs);
  await fsp.mkdir(parent, { recursive: true });
  const tmp = await fsp.mkdtemp(path.join(parent, `.${path.basename(abs)}.tmp-`));
  try {
    for (const p of sortedPaths(fm)) {
      if (p.split('/').some((seg) => seg === '..' || seg === '')) throw new UserError(`refusing to write outside the target`, { file: p });
      const dest = path.join(tmp, p);
      await fsp.mkdir(path.dirname(dest), { recursive: true });
      await fsp.writeFile(dest, fm.get(p)!, { mode: 0o644 });
      await fsp.chmod(dest, 0o644);
    }
    const old = `${tmp}.old`;
    // Writers of the same target take turns (the lock is per target, in its parent): two swaps
    // interleaving would fail with ENOTEMPTY or leave the wrong directory in place.
    await withDirLock(
      parent,
      async () => {
        let hadOld = false;
        try {
          await fsp.rename(abs, old);
          hadOld = true;
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
        }
        try {
          await fsp.rename(tmp, abs);
        } catch (e) {
          if (hadOld) await fsp.rename(old, abs);
          throw e;
        }
      },
      { name: `.${path.basename(abs)}.lock`, purpose: `write of ${path.basename(abs)}/` },
    );
    await fsp.rm(old, { recursive: true, force: true });
  } finally {
    await fsp.rm(tmp, { recursive: true, force: true });
  }
}

let tmpSerial = 0;

/**
 * Writes one file atomically (temp file in the same directory, then rename). Synchronous: a
 * command writes its output once, at its end, and node:fs/promises would load ~10 more Node
 * modules (its FileHandle's readline) into every build.
 */
export function writeFileAtomic(file: string, data: Uint8Array | string, mode = 0o644): void {
  const abs = path.resolve(file);
  mkdirSync(path.dirname(abs), { recursive: true });
  // The pid keeps concurrent processes apart; the serial, the writes of this one.
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.tmp-${process.pid}-${++tmpSerial}`);
  try {
    writeFileSync(tmp, data, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, abs);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export interface DirLockOptions {
  /** Name of the lock file inside the directory. */
  name?: string;
  /** How long to wait for another holder before giving up, in ms. */
  waitMs?: number;
  /** What the holder is doing, for the message a waiting run prints when it gives up. */
  purpose?: string;
  /** Run unlocked when the directory is not writable (a reader on a read-only tree: no writer can race it). */
  readOnlyOk?: boolean;
}

/** True when a process with this pid exists on this machine (EPERM: it exists, not ours). */
function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs `fn` holding an exclusive lock file in `dir` (created with O_EXCL, holding our pid and
 * host). Concurrent `generate`/`verify` runs on one tree take turns instead of racing the
 * directory swap. A lock whose pid no longer runs on this host is stale and is taken over;
 * a live holder is waited for, at most `waitMs`, then a located error names it.
 */
export async function withDirLock<T>(dir: string, fn: () => Promise<T>, opts: DirLockOptions = {}): Promise<T> {
  const lockFile = path.join(path.resolve(dir), opts.name ?? '.pkogen.lock');
  const waitMs = opts.waitMs ?? 300_000;
  const me = `${process.pid} ${hostname()}\n`;
  if (!opts.readOnlyOk) await fsp.mkdir(path.dirname(lockFile), { recursive: true });
  const start = Date.now();
  let delay = 20;
  for (;;) {
    try {
      await fsp.writeFile(lockFile, me, { flag: 'wx', mode: 0o644 });
      break;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (opts.readOnlyOk && (code === 'EROFS' || code === 'EACCES' || code === 'EPERM' || code === 'ENOENT')) return fn();
      if (code !== 'EEXIST') throw new UserError(`cannot create lock file: ${(e as Error).message}`, { file: lockFile });
    }
    let held = '';
    try {
      held = await fsp.readFile(lockFile, 'utf8');
    } catch {
      continue; // released between our create and read: try again at once
    }
    const [pidText, host] = held.trim().split(/\s+/, 2);
    const pid = Number(pidText);
    // A lock from a dead process on this host (or an unreadable one left by a crash mid-write)
    // is stale. Remove it only if it still holds what we read, so a fresh lock is never removed.
    const stale = host === hostname() ? !(Number.isInteger(pid) && pid > 0 && pidAlive(pid)) : held === '' && Date.now() - start > 2000;
    if (stale) {
      const again = await fsp.readFile(lockFile, 'utf8').catch(() => null);
      if (again === held) await fsp.rm(lockFile, { force: true });
      continue;
    }
    if (Date.now() - start > waitMs) {
      throw new UserError(`another pkogen ${opts.purpose ?? 'run'} holds the lock (pid ${pidText} on ${host ?? 'unknown host'}); remove the file if that process is gone`, { file: lockFile });
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 250);
  }
  try {
    return await fn();
  } finally {
    // Release only our own lock: never remove one a stale-lock takeover gave to someone else.
    const now = await fsp.readFile(lockFile, 'utf8').catch(() => null);
    if (now === me) await fsp.rm(lockFile, { force: true });
  }
}
