/** The only things a command may touch from the outside world; tests pass their own. */
export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export const processIO: CliIO = {
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  env: process.env,
  cwd: process.cwd(),
};

export interface Command {
  name: string;
  /** One line for `pkogen --help`. */
  summary: string;
  /** Full help text for `pkogen <name> --help`, starting with the usage line. */
  help: string;
  /** Returns the exit code. Throws UsageError (exit 2) or UserError (exit 1) for user mistakes. */
  run(args: string[], io: CliIO): Promise<number>;
}
