import { fstatSync, writeSync } from 'node:fs';

/** The only things a command may touch from the outside world; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Asks the user a question; present only when a terminal is attached (commands never prompt otherwise). */
  prompt?: (question: string) => Promise<string>;
  /** Which of stdout and stderr are terminals (colour and progress: terminal.ts); absent = neither. */
  isTTY?: { stdout: boolean; stderr: boolean };
}

/**
 * Writes to fd 1 or 2 with write(2) until that fails once (EAGAIN on a non-blocking pipe, EPIPE),
 * then through Node's stream for the rest of the run. Building process.stdout or process.stderr
 * costs about 5 ms (it loads the net and stream modules for a pipe), a third of what `--help`
 * may take beyond Node's own start; a short report never needs the stream.
 */
function fdWriter(fd: 1 | 2): (text: string) => void {
  let stream = false;
  return (text) => {
    if (stream) {
      void (fd === 1 ? process.stdout : process.stderr).write(text);
      return;
    }
    const buf = Buffer.from(text);
    let off = 0;
    try {
      while (off < buf.length) off += writeSync(fd, buf, off);
    } catch {
      // The rest (what write(2) did not take) goes through the stream, in order.
      stream = true;
      void (fd === 1 ? process.stdout : process.stderr).write(buf.subarray(off));
    }
  };
}

function isCharDevice(fd: number): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

export const processIO: CliIO = {
  stdout: fdWriter(1),
  stderr: fdWriter(2),
  env: process.env,
  cwd: process.cwd(),
  // A character device (a terminal; /dev/null too, where colour and progress are lost anyway):
  // node:tty's isatty would load net, and process.stdout.isTTY builds the stream, at every start.
  get isTTY() {
    return { stdout: isCharDevice(1), stderr: isCharDevice(2) };
  },
  // A getter: touching process.stdin builds its stream (~10 ms), which `--help` must not pay for.
  get prompt() {
    return process.stdin.isTTY && process.stdout.isTTY ? askOnTerminal : undefined;
  },
};

/** The terminal's input ended (Ctrl+D) before an answer. */
export class PromptEnded extends Error {
  constructor() {
    super('input ended before an answer');
    this.name = 'PromptEnded';
  }
}

async function askOnTerminal(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return await new Promise<string>((resolve, reject) => {
      // Ctrl+D closes the interface; a pending question would otherwise never settle (or reject
      // with an AbortError, depending on the Node version).
      rl.once('close', () => reject(new PromptEnded()));
      rl.question(question).then((a) => resolve(a.trim()), () => reject(new PromptEnded()));
    });
  } finally {
    rl.close();
  }
}

/** One row of main's command table: loaded only when run. */
export interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<{ command: Command }>;
}

export interface Command {
  name: string;
  /** One line for `pkogen --help`. */
  summary: string;
  /** Full help text for `pkogen <name> --help`, starting with the usage line. */
  help: string;
  /**
   * Returns the exit code. Throws UsageError (exit 2) or UserError (exit 1) for user mistakes.
   * `context.commands` is main's command table (for `completion`; passed in, so no command imports main).
   */
  run(args: string[], io: CliIO, context?: { commands: readonly CommandEntry[] }): Promise<number>;
}
