/** Registry client settings from the environment and flags: credential files, extra CAs, clocks, retry notes. */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { UsageError, UserError } from '../core/errors.js';
import { authFiles, execHelper, lookupCredential } from '../oci/credentials.js';
import { Deadline } from '../oci/http.js';
import type { RegistryClientOptions } from '../oci/registry-client.js';
import type { OptionSpec } from './args.js';
import type { CliIO } from './io.js';

/** The network clocks a command's flags set (milliseconds). */
export interface RegistryTimeouts {
  connectMs?: number;
  stallMs?: number;
  /** The whole command's registry work, retries and credential helpers included. */
  totalMs?: number;
}

/** CLI defaults: a dead host is given up on in seconds, a live but slow one gets minutes. */
export const DEFAULT_TIMEOUTS: Required<RegistryTimeouts> = { connectMs: 10_000, stallMs: 30_000, totalMs: 5 * 60_000 };

/** A credential helper may take this long at most (and never past the command's deadline). */
const HELPER_TIMEOUT_MS = 30_000;

/** The flags every command that talks to a registry accepts; spread into parseCommandArgs. */
export const REGISTRY_TIMEOUT_FLAGS = {
  'connect-timeout': { type: 'string' },
  'stall-timeout': { type: 'string' },
  timeout: { type: 'string' },
} as const satisfies OptionSpec;

/** Help lines for REGISTRY_TIMEOUT_FLAGS: flags at column `indent`, text at column `col`, like the caller's. */
export function registryTimeoutHelp(indent: number, col: number): string {
  const line = (flag: string, text: string) => `${' '.repeat(indent)}${flag.length < col - indent ? flag.padEnd(col - indent) : `${flag} `}${text}`;
  return [
    line('--connect-timeout D', 'give up a connection attempt after D (default 10s)'),
    line('--stall-timeout D', 'give up a request when the registry sends nothing for D (default 30s)'),
    line('--timeout D', 'give up all registry work of the command after D (default 5m);'),
    line('', 'timeouts count as failed attempts (5 per request); D is like 500ms, 30s, 2m, 1m30s'),
  ].join('\n');
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A positive Go-style duration ("500ms", "30s", "1m30s", "1.5h") in milliseconds. */
export function parseDuration(command: string, flag: string, value: string): number {
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let ms = 0;
  let m: RegExpExecArray | null;
  let end = 0;
  while ((m = re.exec(value))) {
    ms += parseFloat(m[1]) * UNIT_MS[m[2]];
    end = re.lastIndex;
  }
  if (value === '' || end !== value.length || !Number.isFinite(ms))
    throw new UsageError(`${command}: --${flag}: invalid duration ${JSON.stringify(value.slice(0, 40))} (expected e.g. 500ms, 30s, 2m, 1m30s)`);
  ms = Math.round(ms);
  if (ms <= 0 || ms > 24 * 3_600_000) throw new UsageError(`${command}: --${flag}: must be more than 0 and at most 24h, got ${JSON.stringify(value)}`);
  return ms;
}

/** Reads REGISTRY_TIMEOUT_FLAGS from parsed values; absent flags keep the defaults. */
export function registryTimeouts(command: string, values: Partial<Record<keyof typeof REGISTRY_TIMEOUT_FLAGS, string | boolean | (string | boolean)[] | undefined>>): RegistryTimeouts {
  const get = (flag: keyof typeof REGISTRY_TIMEOUT_FLAGS) => {
    const v = values[flag];
    return typeof v === 'string' ? parseDuration(command, flag, v) : undefined;
  };
  return { connectMs: get('connect-timeout'), stallMs: get('stall-timeout'), totalMs: get('timeout') };
}

export function registryOptions(io: CliIO, insecure: boolean, timeouts: RegistryTimeouts = {}): RegistryClientOptions {
  const files = authFiles({ env: io.env, home: io.env.HOME || homedir() });
  // One clock for the command's registry work, from its first request: pings, tokens, helpers
  // and retries all share it (local work before, like build's validation, does not count).
  const deadline = new Deadline(timeouts.totalMs ?? DEFAULT_TIMEOUTS.totalMs);
  const helper = execHelper(io.env, { timeoutMs: () => Math.min(HELPER_TIMEOUT_MS, Math.max(1, deadline.remaining())) });
  let ca: string | undefined;
  // Node reads NODE_EXTRA_CA_CERTS only at start-up; reading it here as well makes it apply to
  // our own agents (which set `ca`) and to in-process callers.
  const caFile = io.env.NODE_EXTRA_CA_CERTS;
  if (caFile) {
    try {
      ca = readFileSync(caFile, 'utf8');
    } catch {
      throw new UserError('cannot read NODE_EXTRA_CA_CERTS', { file: caFile });
    }
  }
  return {
    insecure,
    ca,
    credentials: (registry, repository) => lookupCredential(registry, repository, files, helper),
    onRetry: (m) => io.stderr(`warning: ${m}\n`),
    connectTimeoutMs: timeouts.connectMs ?? DEFAULT_TIMEOUTS.connectMs,
    stallTimeoutMs: timeouts.stallMs ?? DEFAULT_TIMEOUTS.stallMs,
    deadline,
  };
}
