/**
 * What the benches read of a child process they started (one home; `_` keeps the bench runner
 * from taking this file for a bench): its memory and CPU from /proc, and how it is stopped.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';
import { cpus } from 'node:os';

/** VmRSS and VmHWM (peak) in KiB. */
export function procStatus(pid: number): { rssKb: number; hwmKb: number } {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/** utime + stime in seconds. */
export function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

/** SIGTERM, SIGKILL after 10 s; resolves when it has exited (at once if it already has). */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(t);
}

/**
 * The physical pages a process has resident (page frame numbers from /proc/PID/pagemap, which
 * shows them to a process with CAP_SYS_ADMIN; without it every frame reads 0 and this returns
 * undefined). The union over a pod's processes is what its cgroup is charged if none of those
 * pages was charged elsewhere first: shared pages (the node executable above all) count once per
 * pod, not once per process and not in shares as Pss does.
 */
export function residentFrames(pid: number): Set<number> | undefined {
  const frames = new Set<number>();
  const smaps = readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n');
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  let sawZero = false;
  try {
    let range: [number, number] | undefined;
    for (const line of smaps) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) /.exec(line);
      if (m) {
        range = [parseInt(m[1]!, 16), parseInt(m[2]!, 16)];
        continue;
      }
      const rss = /^Rss:\s+(\d+) kB/.exec(line);
      if (!rss || !range || rss[1] === '0') continue;
      const pages = (range[1] - range[0]) / 4096;
      const buf = Buffer.alloc(pages * 8);
      readSync(fd, buf, 0, buf.length, (range[0] / 4096) * 8);
      for (let i = 0; i < pages; i++) {
        const v = buf.readBigUInt64LE(i * 8);
        if (!(v >> 63n)) continue; // not present
        const pfn = Number(v & ((1n << 55n) - 1n));
        if (pfn === 0) sawZero = true;
        else frames.add(pfn);
      }
    }
  } finally {
    closeSync(fd);
  }
  return sawZero && frames.size === 0 ? undefined : frames;
}

/** KiB of the union of the processes' resident frames (see residentFrames). */
export function unionKb(sets: (Set<number> | undefined)[]): number {
  if (sets.some((s) => s === undefined)) return NaN;
  const all = new Set<number>();
  for (const s of sets) for (const f of s!) all.add(f);
  return all.size * 4;
}

/** Pins this process (and the children it starts then) to core 1, leaving core 0 to the process measured; false where it cannot. */
export function pinToCore1(): boolean {
  if (cpus().length < 2) return false;
  try {
    execFileSync('taskset', ['-p', '-c', '1', String(process.pid)], { stdio: 'pipe' });
    return true;
  } catch {
    return false;
  }
}
