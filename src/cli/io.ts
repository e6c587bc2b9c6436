/** The only things a command may touch from the outside world; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Asks the user a question; present only when a terminal is attached (commands never prompt otherwise). */
  prompt?: (question: string) => Promise<string>;
}

export const processIO: CliIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
  // A getter: touching process.stdin builds its stream (~10 ms), which `--help` must not pay for.
  get prompt() {
    return process.stdin.isTTY && process.stdout.isTTY ? askOnTerminal : undefined;
  },
};

async function askOnTerminal(question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stdout });
  try {
    return (await rl.question(question)).trim();
  } finally {
    rl.close();
  }
}

export interface Command {
  name: string;
  /** One line for `pkogen --help`. */
  summary: string;
  /** Full help text for `pkogen <name> --help`, starting with the usage line. */
  help: string;
  /** Returns the exit code. Throws UsageError (exit 2) or UserError (exit 1) for user mistakes. */
  run(args: string[], io: CliIO): Promise<number>;
}
