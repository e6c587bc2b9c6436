/** Registry client settings from the environment: credential files, extra CAs, retry notes. */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { UserError } from '../core/errors.js';
import { authFiles, execHelper, lookupCredential } from '../oci/credentials.js';
import type { RegistryClientOptions } from '../oci/registry-client.js';
import type { CliIO } from './io.js';

export function registryOptions(io: CliIO, insecure: boolean): RegistryClientOptions {
  const files = authFiles({ env: io.env, home: io.env.HOME || homedir() });
  const helper = execHelper(io.env);
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
  };
}
