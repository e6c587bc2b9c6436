import { parseArgs, ParseArgsConfig } from 'node:util';
import { UsageError } from '../core/errors.js';
import { didYouMean } from './suggest.js';

export type OptionSpec = NonNullable<ParseArgsConfig['options']>;

/** What parseArgs gives for these options (named, so the declaration of parseCommandArgs can refer to it). */
export type ParsedValues<O extends OptionSpec> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O & { help: { type: 'boolean'; short: 'h' } }; allowPositionals: true; strict: true }>
>['values'];

/**
 * node:util parseArgs with our error contract: any mistake is a UsageError with one line.
 * `--help`/`-h` is always accepted and reported as `help: true`.
 */
export function parseCommandArgs<O extends OptionSpec>(
  command: string,
  args: string[],
  options: O,
  positionals: { min: number; max: number; names: string },
): { values: ParsedValues<O>; positionals: string[]; help: boolean } {
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...options, help: { type: 'boolean', short: 'h' } }, allowPositionals: true, strict: true });
  } catch (e) {
    const err = e as Error & { code?: string };
    const unknown = err.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /^Unknown option '(-{1,2}[^']+)'/.exec(err.message)?.[1] : undefined;
    if (unknown !== undefined) {
      const longs = Object.keys(options).map((k) => `--${k}`).concat('--help');
      const flag = unknown.split('=')[0];
      const hint = flag.startsWith('--') ? didYouMean(flag, longs) : undefined;
      throw new UsageError(`${command}: unknown option ${flag}${hint ? `; did you mean ${hint}?` : ''} (run 'pkogen ${command} --help')`);
    }
    throw new UsageError(`${command}: ${err.message.split('\n')[0]}`);
  }
  const help = (parsed.values as Record<string, unknown>).help === true;
  if (!help) {
    if (parsed.positionals.length < positionals.min) throw new UsageError(`${command}: missing ${positionals.names}`);
    if (parsed.positionals.length > positionals.max) throw new UsageError(`${command}: unexpected argument ${JSON.stringify(parsed.positionals[positionals.max])}`);
  }
  return { values: parsed.values, positionals: parsed.positionals, help };
}

/** Parses repeated `k=v` options (labels, parameters). */
export function parseKeyValues(command: string, flag: string, items: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const it of items ?? []) {
    const i = it.indexOf('=');
    if (i <= 0) throw new UsageError(`${command}: ${flag} expects KEY=VALUE, got ${JSON.stringify(it)}`);
    out[it.slice(0, i)] = it.slice(i + 1);
  }
  return out;
}
