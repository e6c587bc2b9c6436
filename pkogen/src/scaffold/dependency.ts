/**
 * What a scaffold's package.json should depend on for pkogen so that `npm install` gets the same
 * pkogen that ran `pkogen init`, wherever that came from:
 *
 * - installed from a registry (npm install, npx pkogen): `^VERSION`;
 * - installed from a tarball (npm install ./pkogen-X.tgz, npx ./pkogen-X.tgz): `file:` and the
 *   tarball's absolute path, read from npm's lock file of the install;
 * - run from a checkout (not under node_modules, or a workspace link to it): `file:` and the
 *   checkout's absolute path (npm links it; the checkout must be built).
 *
 * When npm left no lock file to tell (a global install, an old npm), `^VERSION`.
 */
import { readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';

export interface PkogenOrigin {
  /** The dependency spec for package.json. */
  spec: string;
  /** How it was found, for the user: registry, tarball, checkout or unknown. */
  from: 'registry' | 'tarball' | 'checkout' | 'unknown';
}

interface LockEntry {
  resolved?: string;
  link?: boolean;
  version?: string;
}

function readLockEntry(file: string, key: string): LockEntry | undefined {
  try {
    const lock = JSON.parse(readFileSync(file, 'utf8')) as { packages?: Record<string, LockEntry> };
    return lock.packages?.[key];
  } catch {
    return undefined;
  }
}

/**
 * `root` is the directory of the running pkogen's package.json, `version` its version. Pure but
 * for reading npm's lock files next to `root`.
 */
export function pkogenOrigin(root: string, version: string): PkogenOrigin {
  let real = root;
  try {
    real = realpathSync(root);
  } catch {
    // keep the path as given
  }
  const marker = `${path.sep}node_modules${path.sep}`;
  if (!real.includes(marker)) return { spec: `file:${real}`, from: 'checkout' };
  // The project npm installed into: the directory holding that node_modules; the lock key is the
  // path below it (node_modules/pkogen, or node_modules/a/node_modules/pkogen when nested).
  const first = real.indexOf(marker);
  const project = real.slice(0, first);
  const key = real.slice(first + 1).split(path.sep).join('/');
  const entry = readLockEntry(path.join(project, 'node_modules', '.package-lock.json'), key) ?? readLockEntry(path.join(project, 'package-lock.json'), key);
  const resolved = entry?.resolved;
  if (resolved?.startsWith('file:')) {
    const target = path.resolve(project, resolved.slice('file:'.length));
    return { spec: `file:${target}`, from: /\.(tgz|tar\.gz|tar)$/.test(target) ? 'tarball' : 'checkout' };
  }
  if (resolved && /^https?:\/\//.test(resolved)) return { spec: `^${version}`, from: 'registry' };
  return { spec: `^${version}`, from: 'unknown' };
}
