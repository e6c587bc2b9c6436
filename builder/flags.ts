/**
 * Go-style flags (`--name=value`, `--name value`, `--bool`, `--bool=false`), driven by one table
 * per command so that parsing, defaults and `--help` can never disagree. The package's tests parse
 * the Deployment's rendered args with this same parser.
 */

export interface FlagSpec {
  name: string;
  type: 'string' | 'int' | 'bool';
  description: string;
  default?: string | number | boolean;
  /** Environment variable read when the flag is absent. */
  env?: string;
  required?: boolean;
}

export type FlagValues = Record<string, string | number | boolean | undefined>;

export class FlagError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FlagError';
  }
}

export function parseFlags(command: string, specs: FlagSpec[], args: string[], env: Record<string, string | undefined> = {}): FlagValues {
  const byName = new Map(specs.map((s) => [s.name, s]));
  const values: FlagValues = {};
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('--')) throw new FlagError(`${command}: unexpected argument ${JSON.stringify(a)}`);
    const eq = a.indexOf('=');
    const name = a.slice(2, eq < 0 ? undefined : eq);
    const spec = byName.get(name);
    if (!spec) throw new FlagError(`${command}: unknown flag --${name} (see ${command} --help)`);
    let raw: string;
    if (eq >= 0) raw = a.slice(eq + 1);
    else if (spec.type === 'bool') raw = 'true';
    else if (i + 1 < args.length) raw = args[++i];
    else throw new FlagError(`${command}: flag --${name} needs a value`);
    values[name] = convert(command, spec, raw);
  }
  for (const s of specs) {
    if (values[s.name] !== undefined) continue;
    const fromEnv = s.env ? env[s.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') values[s.name] = convert(command, s, fromEnv);
    else if (s.default !== undefined) values[s.name] = s.default;
    else if (s.required) throw new FlagError(`${command}: --${s.name} is required${s.env ? ` (or set ${s.env})` : ''}`);
  }
  return values;
}

function convert(command: string, s: FlagSpec, raw: string): string | number | boolean {
  if (s.type === 'string') {
    // An empty value is the default only for flags whose default is empty (a package renders
    // `--provider-image=` when its config leaves the key empty); elsewhere it is a mistake.
    if (raw === '' && s.default !== '') throw new FlagError(`${command}: --${s.name} must not be empty`);
    return raw;
  }
  if (s.type === 'bool') {
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    throw new FlagError(`${command}: --${s.name} takes true or false, got ${JSON.stringify(raw)}`);
  }
  if (!/^\d{1,9}$/.test(raw)) throw new FlagError(`${command}: --${s.name} takes a whole number, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function flagsHelp(specs: FlagSpec[]): string {
  const rows = specs.map((s) => {
    const left = `  --${s.name}${s.type === 'bool' ? '' : `=${s.type === 'int' ? 'N' : 'VALUE'}`}`;
    const extras = [s.required ? 'required' : undefined, s.default !== undefined ? `default ${JSON.stringify(s.default)}` : undefined, s.env ? `env ${s.env}` : undefined].filter(Boolean);
    return `${left.padEnd(44)} ${s.description}${extras.length ? ` (${extras.join(', ')})` : ''}`;
  });
  return rows.join('\n');
}
