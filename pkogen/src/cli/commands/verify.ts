import * as path from 'node:path';
import { promises as fsp } from 'node:fs';
import { diffFileMaps, equalBytes, toText } from '../../core/filemap.js';
import { unifiedDiff } from '../../pko/unified-diff.js';
import { readDirToFileMap, withDirLock } from '../../core/fs.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import type { Finding } from '../../core/errors.js';
import { FINDING_FORMATS, findingLines, outputFormat, renderReport } from '../output.js';
import { failedChecks, KEPT_LOCK, keepsLock, loadBundle, outputNames } from './generate.js';
import { recordModule, staleGenerated } from '../generated-record.js';

const HELP = `Usage: pkogen verify MODULE [--root DIR] [-o text|json|github|junit|tap]

Regenerates everything the bundle module produces, in memory, and compares it with the files
under --root (default: the current directory). Exits 1 and names every file that was added,
removed or edited by hand, and the generate command that brings them up to date; exits 0 when
the committed output is exactly what the generator makes.

Options:
  --root DIR           where the committed outputs are (default: the current directory)
  -o, --output FORMAT  text (default: drift and diffs on stderr), json, github (GitHub Actions
                       annotations on the drifted files), junit or tap, on stdout

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
    const { values, positionals } = parseCommandArgs('verify', args, { root: { type: 'string' }, output: { type: 'string', short: 'o' } }, { min: 1, max: 1, names: 'MODULE' });
    const format = outputFormat({ command: 'verify', formats: FINDING_FORMATS }, values.output);
    const rootShown = values.root as string | undefined;
    const root = path.resolve(io.cwd, rootShown ?? '.');
    // What brings the files up to date: this bundle's generate, whoever calls it (our Makefile is one).
    const regenerate = ['pkogen', 'generate', positionals[0], ...(rootShown !== undefined ? ['--root', rootShown] : [])].map(shellWord).join(' ');
    const out = await loadBundle(positionals[0], io.cwd);
    const report = { command: 'verify', subject: positionals[0], root: rootShown, result: { regenerate } };
    if (failedChecks(out)) {
      if (format === 'text') io.stderr(findingLines(out.findings));
      else io.stdout(renderReport(format, { ...report, findings: out.findings, ok: false, result: { ...report.result, upToDate: false } }));
      return 1;
    }
    if (format === 'text') io.stderr(findingLines(out.findings));
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
        const drift: { file: string; message: string }[] = [];
        for (const [dir, expected] of Object.entries(out.directories)) {
          // Generated directories hold fixtures under dot-directories too: compare everything.
          let actual;
          try {
            actual = await readDirToFileMap(path.join(root, dir), { skipDotFiles: false });
          } catch {
            drift.push({ file: `${dir}/`, message: 'is missing' });
            continue;
          }
          const d = diffFileMaps(expected, actual);
          for (const p of d.changed) {
            drift.push({ file: `${dir}/${p}`, message: 'differs from the generated file' });
            showDiff(`${dir}/${p}`, expected.get(p)!, actual.get(p)!);
          }
          for (const p of d.added) if (!(p === KEPT_LOCK && keepsLock(expected))) drift.push({ file: `${dir}/${p}`, message: 'not generated (remove it or change the bundle)' });
          for (const p of d.removed) drift.push({ file: `${dir}/${p}`, message: 'missing' });
        }
        for (const [file, bytes] of Object.entries(out.files)) {
          let actual: Uint8Array;
          try {
            actual = new Uint8Array(await fsp.readFile(path.join(root, file)));
          } catch {
            drift.push({ file, message: 'missing' });
            continue;
          }
          if (!equalBytes(actual, bytes)) {
            drift.push({ file, message: 'differs from the generated file' });
            showDiff(file, bytes, actual);
          }
        }
        for (const p of await staleGenerated(root, recordModule(root, path.resolve(io.cwd, positionals[0])), outputNames(out))) drift.push({ file: p, message: 'generated before and no longer produced by the bundle (generate removes it)' });
        return drift;
      },
      { purpose: 'generate or verify', readOnlyOk: true },
    );
    const hint = `generated files are out of date: run '${regenerate}' and commit the result\n`;
    const driftFindings: Finding[] = drift.map((d) => ({ severity: 'error', rule: 'pkogen/drift', file: d.file, message: `${d.message}; run '${regenerate}'` }));
    const findings = [...out.findings, ...driftFindings];
    if (format !== 'text') {
      io.stdout(renderReport(format, { ...report, findings, ok: drift.length === 0, result: { ...report.result, upToDate: drift.length === 0 } }));
      if (drift.length) io.stderr(hint);
      return drift.length ? 1 : 0;
    }
    if (drift.length) {
      for (const d of drift) io.stderr(d.message === 'is missing' ? `drift: ${d.file} is missing\n` : `drift: ${d.file}: ${d.message}\n`);
      io.stderr(hint);
      if (diffs.length) io.stderr('\n' + diffs.join(''));
      return 1;
    }
    io.stdout('generated files are up to date\n');
    return 0;
  },
};

/** A word as a POSIX shell reads it back: bare when safe, else single-quoted. */
function shellWord(w: string): string {
  return /^[\w@%+=:,./-]+$/.test(w) ? w : `'${w.replace(/'/g, `'\\''`)}'`;
}
