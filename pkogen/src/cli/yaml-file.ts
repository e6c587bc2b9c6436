/** YAML files named on the command line (configs, environments): read, parse, located errors. */
import * as path from 'node:path';
import { UserError } from '../core/errors.js';
import { parseYaml11, readYamlFileText, YamlParseError } from '../yaml/parse.js';

export async function readYamlFile(cwd: string, file: string): Promise<unknown> {
  let text: string;
  try {
    // Regular files only, bounded in size, UTF-8: a FIFO or /dev/zero is refused, not read.
    text = readYamlFileText(path.resolve(cwd, file));
  } catch (e) {
    throw new UserError((e as Error).message, { file });
  }
  try {
    return parseYaml11(text, file);
  } catch (e) {
    const pe = e as YamlParseError;
    throw new UserError(`invalid YAML: ${pe.message}`, { file, line: pe.line, column: pe.column });
  }
}

export function asObject(v: unknown, file: string): Record<string, unknown> {
  if (v === null || v === undefined) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw new UserError('must be a YAML mapping', { file });
  return v as Record<string, unknown>;
}

/** A config file: a YAML mapping (empty file = `{}`). */
export async function readConfigFile(cwd: string, file: string): Promise<Record<string, unknown>> {
  return asObject(await readYamlFile(cwd, file), file);
}
