/**
 * What only a terminal gets: colour and progress. Colour follows the common conventions
 * (https://no-color.org: `NO_COLOR` set and not empty turns it off; `FORCE_COLOR` turns it on, `0`
 * off; otherwise only on a terminal, never with `TERM=dumb`), and colours only the severity word
 * of text findings. Progress is one line on stderr, shown when work has taken over a second, on a
 * terminal only, and never for machine formats; it is erased when the work ends.
 */
import type { CliIO } from './io.js';

/** Whether output to a stream with this TTY state gets colour. */
export function useColor(env: NodeJS.ProcessEnv, isTTY: boolean | undefined): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined) return !['0', 'false'].includes(env.FORCE_COLOR);
  return isTTY === true && env.TERM !== 'dumb';
}

/** Colour for a command's stdout (fd 1) or stderr (fd 2). */
export function colorFor(io: CliIO, fd: 1 | 2): boolean {
  return useColor(io.env, fd === 1 ? io.isTTY?.stdout : io.isTTY?.stderr);
}

const SGR: Record<string, string> = { error: '1;31', warning: '1;33', info: '36' };

/** The severity word at the start of each finding line (`error:`, `  warning:`) in its colour. */
export function colorSeverities(text: string): string {
  return text.replace(/^( *)(error|warning|info):/gm, (_, pad: string, sev: string) => `${pad}\x1b[${SGR[sev]}m${sev}\x1b[0m:`);
}

export interface Progress {
  stop(): void;
}

/**
 * `label…` with a spinner on stderr once the work has lasted `delayMs` (1 s), on a terminal only
 * and only when `enabled` (commands pass false for json and the other machine formats). Timers run
 * between the work's awaits; stop() erases the line.
 */
export function progress(io: CliIO, label: string, opts: { enabled?: boolean; delayMs?: number } = {}): Progress {
  if (opts.enabled === false || io.isTTY?.stderr !== true || io.env.TERM === 'dumb') return { stop() {} };
  const frames = '|/-\\';
  let i = 0;
  let shown = false;
  let tick: ReturnType<typeof setInterval> | undefined;
  const start = setTimeout(() => {
    const draw = () => {
      shown = true;
      io.stderr(`\r${frames[i++ % frames.length]} ${label}…`);
    };
    draw();
    tick = setInterval(draw, 120);
    tick.unref?.();
  }, opts.delayMs ?? 1000);
  start.unref?.();
  return {
    stop() {
      clearTimeout(start);
      if (tick) clearInterval(tick);
      if (shown) io.stderr('\r\x1b[K');
      shown = false;
    },
  };
}
