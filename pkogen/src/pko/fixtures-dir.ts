/**
 * Reads a package directory's fixture trees (`.test-fixtures/`, also per component): dot-dirs the
 * package FileMap skips.
 *
 * Symbolic links inside a fixture tree are followed, as PKO's template test does: it looks a
 * rendered path up with `os.Stat` and `diff`, which follow links (PKO's own package holds
 * `.test-fixtures/<case>/crds -> ../../crds`). Unlike PKO, a link is followed only when its target
 * resolves inside the package directory, and never into a directory the walk is already in (a
 * loop): anything else is left out and named in `skipped`. PKO's listing of fixture files
 * (`packageimport.Index`, fs.WalkDir) does not descend into links, so files reached through one
 * are in `linked`: they count as fixtures but are never "should not exist".
 */
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { FileMap } from '../core/filemap.js';
import { FIXTURES_DIR } from './template-tests.js';

export interface FixtureTree {
  /** Fixture files, paths relative to the package root: `[components/<n>/].test-fixtures/<case>/<path>`. */
  files: FileMap;
  /** Paths of `files` read through a symbolic link. */
  linked: Set<string>;
  /** Links not followed (relative path and why: outside the package, a loop, dangling). */
  skipped: { path: string; reason: string }[];
  /** Test case directories present (`[components/<n>/].test-fixtures/<case>`), empty ones too. */
  caseDirs: Set<string>;
}

function isDir(p: string): boolean {
  try {
    return lstatSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isDirFollowing(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

const inside = (root: string, p: string) => p === root || p.startsWith(root + path.sep);

/** One fixture tree, following in-package links; `chain` holds the real directories being walked. */
function walkFixtures(pkgRoot: string, abs: string, rel: string, viaLink: boolean, chain: string[], out: FixtureTree): void {
  const entries = readdirSync(abs, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.')) continue; // PKO's walk skips dot entries here too
    const a = path.join(abs, e.name);
    const r = `${rel}/${e.name}`;
    if (e.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync(a);
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        out.skipped.push({ path: r, reason: code === 'ELOOP' ? 'a symbolic link loop' : 'its target does not exist' });
        continue;
      }
      if (!inside(pkgRoot, real)) {
        out.skipped.push({ path: r, reason: 'its target is outside the package directory' });
        continue;
      }
      const st = statSync(real);
      if (st.isDirectory()) {
        if (chain.some((c) => inside(real, c))) {
          out.skipped.push({ path: r, reason: 'it leads back into a directory it is in (a loop)' });
          continue;
        }
        walkFixtures(pkgRoot, real, r, true, [...chain, real], out);
      } else if (st.isFile()) {
        out.files.set(r, new Uint8Array(readFileSync(real)));
        out.linked.add(r);
      }
      continue;
    }
    if (e.isDirectory()) walkFixtures(pkgRoot, a, r, viaLink, [...chain, realpathSync(a)], out);
    else if (e.isFile()) {
      out.files.set(r, new Uint8Array(readFileSync(a)));
      if (viaLink) out.linked.add(r);
    }
  }
}

export async function readFixtureTree(root: string): Promise<FixtureTree> {
  const out: FixtureTree = { files: new Map(), linked: new Set(), skipped: [], caseDirs: new Set() };
  let pkgRoot: string;
  try {
    pkgRoot = realpathSync(root);
  } catch {
    return out;
  }
  // Synchronous reads, as in readDirToFileMap: a few small files, no event-loop turn for each.
  const add = (rel: string) => {
    const abs = path.join(root, rel, FIXTURES_DIR);
    if (!isDir(abs)) return;
    // PKO stats `<fixtures>/<case>` (following a link): a case directory, even empty, is not generated.
    for (const e of readdirSync(abs, { withFileTypes: true })) {
      if (!e.name.startsWith('.') && (e.isDirectory() || (e.isSymbolicLink() && isDirFollowing(path.join(abs, e.name))))) out.caseDirs.add(`${rel ? rel + '/' : ''}${FIXTURES_DIR}/${e.name}`);
    }
    walkFixtures(pkgRoot, abs, `${rel ? rel + '/' : ''}${FIXTURES_DIR}`, false, [realpathSync(abs)], out);
  };
  add('');
  const comps = path.join(root, 'components');
  if (isDir(comps)) {
    for (const e of readdirSync(comps, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && !e.name.startsWith('.')) add(`components/${e.name}`);
    }
  }
  return out;
}

/** The fixture files alone (see readFixtureTree). */
export async function readFixtureDirs(root: string): Promise<FileMap> {
  return (await readFixtureTree(root)).files;
}
