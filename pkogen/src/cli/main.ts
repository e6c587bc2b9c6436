import { UsageError, UserError } from '../core/errors.js';
import { CliIO, Command, processIO } from './io.js';
import { pkogenVersion } from './package-root.js';
import { didYouMean } from './suggest.js';
import { colorFor, colorSeverities } from './terminal.js';

/**
 * Every command, in help order. Each lives in `commands/<file>.ts` and is loaded only when run,
 * so a command's dependencies never slow down another's start-up.
 */
const COMMANDS: { name: string; summary: string; load: () => Promise<{ command: Command }> }[] = [
  { name: 'generate', summary: 'Generate a package (and other artifacts) from a bundle module', load: () => import('./commands/generate.js') },
  { name: 'verify', summary: 'Fail when generated files differ from what the bundle module produces', load: () => import('./commands/verify.js') },
  { name: 'render', summary: 'Render a package like PKO does, for a test case or a config', load: () => import('./commands/render.js') },
  { name: 'tree', summary: "Print a package's phases and objects in PKO's tree format", load: () => import('./commands/tree.js') },
  { name: 'validate', summary: "Validate a package with PKO's rules and stricter checks", load: () => import('./commands/validate.js') },
  { name: 'build', summary: 'Build a reproducible package image; write it or push it', load: () => import('./commands/build.js') },
  { name: 'push', summary: 'Push an already built image (OCI layout or docker archive) to a registry', load: () => import('./commands/push.js') },
  { name: 'update', summary: 'Resolve spec.images to digests and write manifest.lock.yaml', load: () => import('./commands/update.js') },
  { name: 'lint-rollout', summary: 'Lint an OpenShift rollout Template (SelectorSyncSet → Policy → Package)', load: () => import('./commands/lint-rollout.js') },
  { name: 'init', summary: 'Scaffold a new package repository (bundle module, Makefile, CI scripts)', load: () => import('./commands/init.js') },
  { name: 'kickstart', summary: 'Turn manifests, a PKO package or an OpenShift Template into resources/*.ts', load: () => import('./commands/kickstart.js') },
  { name: 'import', summary: 'Generate TypeScript types from CRD schemas', load: () => import('./commands/import.js') },
  { name: 'status', summary: 'Show Package state across namespaces: revision, image, what blocks a rollout', load: () => import('./commands/status.js') },
  { name: 'diff', summary: 'Render two versions of a package and show what a rollout changes, with a verdict per change', load: () => import('./commands/diff.js') },
  { name: 'simulate', summary: 'Process a rollout Template and render the Package for each HCP namespace', load: () => import('./commands/simulate.js') },
  { name: 'completion', summary: 'Print a shell completion script (bash, zsh or fish)', load: () => import('./commands/completion.js') },
];

/**
 * The command `main(argv)` loads and runs, or undefined when main answers by itself (help, version,
 * an unknown name). bin/pkogen.js asks the small CommonJS bundle of this file alone, so those
 * answers load no command and no ES module.
 */
export function commandOf(argv: readonly string[]): string | undefined {
  return COMMANDS.find((c) => c.name === argv[0])?.name;
}

function topHelp(): string {
  const w = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'pkogen: generate, validate, build and ship Package Operator packages for HyperShift',
    '',
    'Usage: pkogen <command> [options]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(w)}  ${c.summary}`),
    '',
    'pkogen --version prints the version.',
    "Run 'pkogen <command> --help' for a command's options.",
    'Exit codes: 0 ok, 1 findings or bad input, 2 usage error.',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    if (name === undefined) {
      io.stderr(topHelp());
      return 2;
    }
    io.stdout(topHelp());
    return 0;
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    io.stdout(`pkogen ${pkogenVersion()}\n`);
    return 0;
  }
  const entry = COMMANDS.find((c) => c.name === name);
  if (!entry) {
    const hint = didYouMean(name, COMMANDS.map((c) => c.name));
    io.stderr(`pkogen: unknown command ${JSON.stringify(name)}${hint ? `; did you mean '${hint}'?` : ''} (run 'pkogen --help')\n`);
    return 2;
  }
  try {
    const { command } = await entry.load();
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout(command.help.endsWith('\n') ? command.help : command.help + '\n');
      return 0;
    }
    return await command.run(rest, io, { commands: COMMANDS });
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`pkogen: ${e.message}\n`);
      return 2;
    }
    if (e instanceof UserError) {
      const line = `error: ${e.describe()}\n`;
      io.stderr(colorFor(io, 2) ? colorSeverities(line) : line);
      return 1;
    }
    const err = e as Error;
    io.stderr(`pkogen: internal error: ${err?.message ?? String(e)}\n`);
    if (io.env.PKOGEN_DEBUG) io.stderr(`${err?.stack ?? ''}\n`);
    return 1;
  }
}
