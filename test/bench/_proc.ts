/**
 * What the benches read of a child process they started (one home; `_` keeps the bench runner
 * from taking this file for a bench): its memory and CPU from /proc, and how it is stopped.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
