/**
 * Node built-ins a command loads only when it uses them. Loading node:crypto costs ~5 ms of a
 * process start (measured: `node -e "require('node:crypto')"` against `node -e 0`), which
 * `validate` never needs unless a template hashes a string or an image is read. node:http loads
 * with the first registry transport, https and tls with its first https request, child_process
 * with the first credential helper.
 */
import { createRequire } from 'node:module';

const builtin = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import('node:crypto') => builtin('node:crypto') as typeof import('node:crypto');
export const nodeHttp = (): typeof import('node:http') => builtin('node:http') as typeof import('node:http');
export const nodeHttps = (): typeof import('node:https') => builtin('node:https') as typeof import('node:https');
export const nodeTls = (): typeof import('node:tls') => builtin('node:tls') as typeof import('node:tls');
export const nodeChildProcess = (): typeof import('node:child_process') => builtin('node:child_process') as typeof import('node:child_process');
