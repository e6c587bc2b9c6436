/**
 * Where an image can come from, for `validate --oci-layout/--archive/--pull` and tests: each
 * returns an Image (manifest, config and layer blobs, digests verified) for linux/amd64.
 */
import { UserError } from '../core/errors.js';
import type { Credential } from './credentials.js';
import { Image } from './image.js';
import { RegistryClient, RegistryClientOptions } from './registry-client.js';
import { parseReference, ReferenceError } from './reference.js';

export { openOciLayout } from './layout.js';
export { openDockerArchive } from './docker-archive.js';

export interface PullOptions extends Omit<RegistryClientOptions, 'credentials'> {
  credentials?: (registry: string, repository: string) => Promise<Credential | undefined>;
}

export async function pullImage(ref: string, opts: PullOptions = {}): Promise<Image> {
  let parsed;
  try {
    parsed = parseReference(ref);
  } catch (e) {
    if (e instanceof ReferenceError) throw new UserError(`invalid image reference ${JSON.stringify(ref)}: ${e.message}`);
    throw e;
  }
  const client = new RegistryClient(opts);
  try {
    return await client.pull(parsed);
  } finally {
    client.close();
  }
}
