import * as path from 'node:path';
import { promises as fsp } from 'node:fs';
import { diffFileMaps, equalBytes, toText } from '../../core/filemap.js';
import { unifiedDiff } from '../../pko/unified-diff.js';
import { readDirToFileMap, withDirLock } from '../../core/fs.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { loadBundle, reportFindings } from './generate.js';

const HELP = `Usage: pkogen verify MODULE [--root DIR]

Regenerates everything the bundle module produces, in memory, and compares it with the files
under --root (default: the current directory). Exits 1 and names every file that was added,
removed or edited by hand; exits 0 when the committed output is exactly what the generator makes.

Example:
  pkogen verify dist/resources/resources.js
`;

/** Enough to see what changed without flooding CI logs. */
const MAX_DIFF_LINES = 200;

export const command: Command = {
  name: 'verify',
  summary: 'Fail when generated files differ from what the bundle module produces',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('verify', args, { root: { type: 'string' } }, { min: 1, max: 1, names: 'MODULE' });
    const root = path.resolve(io.cwd, (values.root as string | undefined) ?? '.');
    const out = await loadBundle(positionals[0], io.cwd);
    if (reportFindings(out, io)) return 1;
    // What differs, shown below the drift list (generated → committed, as pkogen diff prints it).
    const diffs: string[] = [];
    const showDiff = (file: string, generated: Uint8Array, committed: Uint8Array) => {
      const d = unifiedDiff(file, toText(generated), toText(committed));
      const lines = d.split('\n');
      lines[0] = `--- generated/${file}`;
      lines[1] = `+++ committed/${file}`;
      diffs.push(lines.length > MAX_DIFF_LINES ? lines.slice(0, MAX_DIFF_LINES).join('\n') + `\n… ${lines.length - MAX_DIFF_LINES} more line(s)\n` : lines.join('\n'));
    };
    // Read under the same lock generate writes under: a concurrent generate never shows us a
    // generated directory mid-swap (absent or half-replaced).
    const drift = await withDirLock(
      root,
      async () => {
        const drift: string[] = [];
        for (const [dir, expected] of Object.entries(out.directories)) {
          // Generated directories hold fixtures under dot-directories too: compare everything.
          let actual;
          try {
            actual = await readDirToFileMap(path.join(root, dir), { skipDotFiles: false });
          } catch {
            drift.push(`${dir}/ is missing`);
            continue;
          }
          const d = diffFileMaps(expected, actual);
          for (const p of d.changed) {
            drift.push(`${dir}/${p}: differs from the generated file`);
            showDiff(`${dir}/${p}`, expected.get(p)!, actual.get(p)!);
          }
          for (const p of d.added) drift.push(`${dir}/${p}: not generated (remove it or change the bundle)`);
          for (const p of d.removed) drift.push(`${dir}/${p}: missing`);
        }
        for (const [file, bytes] of Object.entries(out.files)) {
          let actual: Uint8Array;
          try {
            actual = new Uint8Array(await fsp.readFile(path.join(root, file)));
          } catch {
            drift.push(`${file}: missing`);
            continue;
          }
          if (!equalBytes(actual, bytes)) {
            drift.push(`${file}: differs from the generated file`);
            showDiff(file, bytes, actual);
          }
        }
        return drift;
      },
      { purpose: 'generate or verify', readOnlyOk: true },
    );
    if (drift.length) {
      for (const d of drift) io.stderr(`drift: ${d}\n`);
      io.stderr(`generated files are out of date: run 'make package' and commit the result\n`);
      if (diffs.length) io.stderr('\n' + diffs.join(''));
      return 1;
    }
    io.stdout('generated files are up to date\n');
    return 0;
  },
};
