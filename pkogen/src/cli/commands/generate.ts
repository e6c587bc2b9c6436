import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { UserError } from '../../core/errors.js';
import { withDirLock, writeFileAtomic, writeFileMapAtomic } from '../../core/fs.js';
import type { BundleModule, GeneratedOutput } from '../../model/bundle.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { FINDING_FORMATS, findingLines, outputFormat, renderReport } from '../output.js';

const HELP = `Usage: pkogen generate MODULE [--root DIR] [-o text|json|github|junit]

Runs a bundle module (a compiled JavaScript module whose default export returns every generated
artifact), runs the generation checks, and writes the outputs under --root (default: the current
directory). Each generated directory is replaced atomically; if any check fails, nothing is written.
A package directory's manifest.lock.yaml (written by pkogen update) is kept when the bundle
does not generate one. Concurrent generate/verify runs on the same --root take turns through the
lock file ROOT/.pkogen.lock (a lock left by a process that no longer runs is taken over).

Options:
  --root DIR           where the outputs go (default: the current directory)
  -o, --output FORMAT  how the generation checks' findings are reported: text (default, on
                       stderr), json, github (GitHub Actions annotations) or junit, on stdout

Example:
  pkogen generate dist/resources/resources.js
`;

export async function loadBundle(modulePath: string, cwd: string): Promise<GeneratedOutput> {
  const abs = path.resolve(cwd, modulePath);
  let mod: BundleModule;
  try {
    mod = (await import(pathToFileURL(abs).href)) as BundleModule;
  } catch (e) {
    throw new UserError(`cannot load bundle module: ${(e as Error).message.split('\n')[0]}`, { file: modulePath });
  }
  if (typeof mod.default !== 'function') throw new UserError('bundle module has no default export function', { file: modulePath });
  try {
    return await mod.default();
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`bundle failed: ${(e as Error).message}`, { file: modulePath });
  }
}

/**
 * manifest.lock.yaml is written by `pkogen update` (a registry lookup), not by the bundle: in a
 * generated package directory (one with a manifest.yaml) that the bundle gives no lock file,
 * the one on disk is kept by generate and not reported by verify.
 */
export const KEPT_LOCK = 'manifest.lock.yaml';
export function keepsLock(fm: ReadonlyMap<string, Uint8Array>): boolean {
  return fm.has('manifest.yaml') && !fm.has(KEPT_LOCK);
}

/** The generation checks failed: an error among the bundle's findings. */
export function failedChecks(out: GeneratedOutput): boolean {
  return out.findings.some((f) => f.severity === 'error');
}

/** Every file the bundle writes, relative to the root: directories with a trailing slash. */
export function outputNames(out: GeneratedOutput): string[] {
  return [...Object.keys(out.directories).map((d) => d + '/'), ...Object.keys(out.files)];
}

export const command: Command = {
  name: 'generate',
  summary: 'Generate a package (and other artifacts) from a bundle module',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('generate', args, { root: { type: 'string' }, output: { type: 'string', short: 'o' } }, { min: 1, max: 1, names: 'MODULE' });
    const format = outputFormat({ command: 'generate', formats: FINDING_FORMATS }, values.output);
    const root = path.resolve(io.cwd, (values.root as string | undefined) ?? '.');
    const out = await loadBundle(positionals[0], io.cwd);
    const failed = failedChecks(out);
    // Text: findings on stderr, the summary on stdout (as ever); other formats: the report on stdout.
    const report = { command: 'generate', subject: positionals[0], findings: out.findings, ok: !failed, result: { written: failed ? [] : outputNames(out) } };
    if (format === 'text') io.stderr(findingLines(out.findings));
    if (failed) {
      if (format !== 'text') io.stdout(renderReport(format, report));
      io.stderr('generation checks failed: nothing was written\n');
      return 1;
    }
    // Concurrent generate/verify runs on one tree take turns (see withDirLock), so none of them
    // races another's directory swap or reads a generated directory mid-swap.
    await withDirLock(
      root,
      async () => {
        for (const [dir, fm] of Object.entries(out.directories)) {
          let files = fm;
          if (keepsLock(fm)) {
            try {
              files = new Map([...fm, [KEPT_LOCK, new Uint8Array(await fsp.readFile(path.join(root, dir, KEPT_LOCK)))]]);
            } catch {
              // no lock file yet
            }
          }
          await writeFileMapAtomic(path.join(root, dir), files);
        }
        for (const [file, bytes] of Object.entries(out.files)) await writeFileAtomic(path.join(root, file), bytes);
      },
      { purpose: 'generate or verify' },
    );
    const n = Object.values(out.directories).reduce((a, fm) => a + fm.size, 0) + Object.keys(out.files).length;
    io.stdout(renderReport(format, { ...report, text: () => `generated ${n} files in ${outputNames(out).join(', ')}\n` }));
    return 0;
  },
};
