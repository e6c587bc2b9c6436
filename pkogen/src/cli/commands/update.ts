import * as path from 'node:path';
import { UsageError, UserError } from '../../core/errors.js';
import { writeFileAtomic } from '../../core/fs.js';
import { readDirToFileMap } from '../../core/fs.js';
import { parseReference, ReferenceError } from '../../oci/reference.js';
import { RegistryClient } from '../../oci/registry-client.js';
import { LOCK_FILES, loadPackage, MANIFEST_FILES } from '../../pko/loader.js';
import { Violation } from '../../pko/types.js';
import { emitLock, LockImage, lockImages, manifestImages, rfc3339, sameLockImages } from '../../pko/lockfile.js';
import { parseCommandArgs } from '../args.js';
import type { CliIO, Command } from '../io.js';
import { REGISTRY_TIMEOUT_FLAGS, registryOptions, registryTimeoutHelp, registryTimeouts } from '../registry-options.js';

const HELP = `Usage: pkogen update DIR [--insecure] [--connect-timeout D] [--stall-timeout D] [--timeout D]

Resolves every spec.images[].image of DIR/manifest.yaml to its digest and writes
DIR/manifest.lock.yaml (kubectl package update's format). When the digests are unchanged the
file is left alone and "Package is already up-to-date" is printed.

Environment:
  PKO_REPOSITORY_HOST  registry host to resolve images at instead of the one in the reference
  SOURCE_DATE_EPOCH    seconds since 1970 to write as metadata.creationTimestamp (default: now),
                       for byte-reproducible lock files
Options:
  --insecure           allow plain HTTP and unverified TLS for any registry
${registryTimeoutHelp(2, 23)}

Example: pkogen update package
`;

function timestamp(io: CliIO): string {
  const sde = io.env.SOURCE_DATE_EPOCH;
  if (sde !== undefined && sde !== '') {
    if (!/^\d+$/.test(sde)) throw new UsageError(`update: SOURCE_DATE_EPOCH must be whole seconds, got ${JSON.stringify(sde)}`);
    return rfc3339(new Date(Number(sde) * 1000));
  }
  return rfc3339(new Date());
}

export const command: Command = {
  name: 'update',
  summary: 'Resolve spec.images to digests and write manifest.lock.yaml',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('update', args, { insecure: { type: 'boolean' }, ...REGISTRY_TIMEOUT_FLAGS }, { min: 1, max: 1, names: 'DIR' });
    const timeouts = registryTimeouts('update', values);
    const dir = path.resolve(io.cwd, positionals[0]);
    const files = await readDirToFileMap(dir, { skipDotFiles: true });
    const rel = (f: string) => path.join(positionals[0], f);
    let pkg;
    try {
      pkg = loadPackage(files);
    } catch (e) {
      if (e instanceof Violation) throw new UserError(e.message, e.path ? { file: rel(e.path), line: e.line } : {});
      throw e;
    }
    const manifestFile = MANIFEST_FILES.find((f) => files.has(f))!;
    const lockFile = LOCK_FILES.find((f) => files.has(f));
    const wanted = manifestImages(pkg.manifest, rel(manifestFile));
    const hostOverride = io.env.PKO_REPOSITORY_HOST || undefined;

    const client = new RegistryClient(registryOptions(io, values.insecure === true, timeouts));
    const resolved: LockImage[] = [];
    try {
      for (const [i, im] of wanted.entries()) {
        let ref;
        try {
          ref = parseReference(im.image);
        } catch (e) {
          if (e instanceof ReferenceError) throw new UserError(e.message, { file: rel(manifestFile), path: `spec.images[${i}].image` });
          throw e;
        }
        if (hostOverride) ref = { ...ref, registry: hostOverride };
        resolved.push({ name: im.name, image: im.image, digest: await client.resolveDigest(ref) });
      }
    } finally {
      client.close();
    }

    const old = lockImages(pkg.manifestLock);
    if (old && !old.hasDependencies && sameLockImages(old.images, resolved)) {
      io.stdout('Package is already up-to-date\n');
      return 0;
    }
    // Keep the file name the package already uses, so there are never two lock files.
    const target = path.join(dir, lockFile ?? 'manifest.lock.yaml');
    writeFileAtomic(target, emitLock(resolved, timestamp(io)));
    io.stdout('Package updated successfully!\n');
    return 0;
  },
};
