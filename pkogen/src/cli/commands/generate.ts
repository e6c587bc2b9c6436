import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { UserError } from '../../core/errors.js';
import { withDirLock, writeFileAtomic, writeFileMapAtomic } from '../../core/fs.js';
import type { BundleModule, GeneratedOutput } from '../../model/bundle.js';
import { parseCommandArgs } from '../args.js';
import { pkogenRoot } from '../package-root.js';
import { recordModule, staleGenerated, writeGeneratedRecord } from '../generated-record.js';
import type { Command } from '../io.js';
import { FINDING_FORMATS, findingLines, outputFormat, renderReport } from '../output.js';

const HELP = `Usage: pkogen generate MODULE [--root DIR] [-o text|json|github|junit|tap]

Runs a bundle module (a compiled JavaScript module whose default export returns every generated
artifact), runs the generation checks, and writes the outputs under --root (default: the current
directory). Each generated directory is replaced atomically; if any check fails, nothing is written.
generate owns what it writes: ROOT/.pkogen-generated records it, and a file or directory an
earlier generate wrote that the bundle no longer produces is removed.
A package directory's manifest.lock.yaml (written by pkogen update) is kept when the bundle
does not generate one. Concurrent generate/verify runs on the same --root take turns through the
lock file ROOT/.pkogen.lock (a lock left by a process that no longer runs is taken over).

Options:
  --root DIR           where the outputs go (default: the current directory)
  -o, --output FORMAT  how the generation checks' findings are reported: text (default, on
                       stderr), json, github (GitHub Actions annotations), junit or tap, on stdout

Example:
  pkogen generate dist/resources/resources.js
`;

export async function loadBundle(modulePath: string, cwd: string): Promise<GeneratedOutput> {
  const abs = path.resolve(cwd, modulePath);
  // A compiled bundle with source maps (tsc --sourceMap) has its errors placed in the TypeScript.
  process.setSourceMapsEnabled?.(true);
  let mod: BundleModule;
  try {
    mod = (await import(pathToFileURL(abs).href)) as BundleModule;
  } catch (e) {
    if (e instanceof UserError) throw e;
    const where = userFrame(e, cwd);
    throw new UserError(`cannot load bundle module: ${firstLine(e)}`, where ?? { file: modulePath });
  }
  if (typeof mod.default !== 'function') throw new UserError('bundle module has no default export function', { file: modulePath });
  let out: unknown;
  try {
    out = await mod.default();
  } catch (e) {
    if (e instanceof UserError) throw e;
    const where = userFrame(e, cwd);
    throw new UserError(`bundle failed: ${firstLine(e)}${where ? ` (in ${modulePath}'s default export)` : ''}`, where ?? { file: modulePath });
  }
  return checkGeneratedOutput(out, modulePath);
}

function firstLine(e: unknown): string {
  const m = e instanceof Error ? e.message : String(e);
  return m.split('\n')[0];
}

/**
 * Where a bundle's error was thrown in the user's code: the first stack frame that is not Node's
 * and not pkogen's own (its package directory), as a path relative to `cwd` (the TypeScript file
 * and line when the bundle has source maps).
 */
export function userFrame(e: unknown, cwd: string): { file: string; line: number; column: number } | undefined {
  const stack = e instanceof Error && typeof e.stack === 'string' ? e.stack : '';
  const own = pkogenRoot() + path.sep;
  for (const line of stack.split('\n').slice(1)) {
    const m = /\(?((?:file:\/\/)?\/[^()]*?):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!m) continue;
    const file = m[1].startsWith('file://') ? fileURLToPath(m[1]) : m[1];
    if (file.startsWith(own) || file.includes(`${path.sep}node_modules${path.sep}`)) continue;
    const rel = path.relative(cwd, file);
    return { file: rel.startsWith('..') ? file : rel, line: Number(m[2]), column: Number(m[3]) };
  }
  return undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A generated path: relative, inside the root, no empty or `.`/`..` segments. */
function badPath(p: string): boolean {
  return p === '' || path.isAbsolute(p) || p.includes('\\') || p.split('/').some((s) => s === '' || s === '.' || s === '..');
}

/** The default export's result, checked: a malformed one is the bundle's mistake (exit 1), not pkogen's. */
export function checkGeneratedOutput(out: unknown, file: string): GeneratedOutput {
  const bad = (where: string, what: string) => new UserError(`the default export returned ${where}: ${what} (expected { directories, files, findings }, as packageOutput() returns)`, { file });
  if (!isObject(out)) throw bad('no object', out === undefined ? 'undefined' : Array.isArray(out) ? 'an array' : typeof out);
  for (const k of ['directories', 'files', 'findings']) if (!(k in out)) throw bad(`an object without ${k}`, 'missing');
  if (!isObject(out.directories)) throw bad('directories', 'not an object of directory → Map(path → bytes)');
  for (const [d, fm] of Object.entries(out.directories)) {
    if (badPath(d)) throw bad(`directories[${JSON.stringify(d)}]`, 'not a relative path inside the project');
    if (!(fm instanceof Map)) throw bad(`directories[${JSON.stringify(d)}]`, 'not a Map of path → bytes');
    for (const [p, b] of fm) {
      if (typeof p !== 'string' || badPath(p)) throw bad(`directories[${JSON.stringify(d)}] key ${JSON.stringify(p)}`, 'not a relative path');
      if (!(b instanceof Uint8Array)) throw bad(`directories[${JSON.stringify(d)}].get(${JSON.stringify(p)})`, 'not bytes (Uint8Array)');
    }
  }
  if (!isObject(out.files)) throw bad('files', 'not an object of path → bytes');
  for (const [p, b] of Object.entries(out.files)) {
    if (badPath(p)) throw bad(`files[${JSON.stringify(p)}]`, 'not a relative path inside the project');
    if (!(b instanceof Uint8Array)) throw bad(`files[${JSON.stringify(p)}]`, 'not bytes (Uint8Array)');
  }
  if (!Array.isArray(out.findings)) throw bad('findings', 'not an array');
  out.findings.forEach((f, i) => {
    if (!isObject(f) || !['error', 'warning', 'info'].includes(f.severity as string) || typeof f.message !== 'string' || typeof f.rule !== 'string') {
      throw bad(`findings[${i}]`, 'not a finding ({ severity: error|warning|info, rule, message })');
    }
  });
  return out as unknown as GeneratedOutput;
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
    let stale: string[] = [];
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
        for (const [file, bytes] of Object.entries(out.files)) writeFileAtomic(path.join(root, file), bytes);
        // generate owns what it wrote: what the bundle no longer produces goes.
        const module = recordModule(root, path.resolve(io.cwd, positionals[0]));
        stale = await staleGenerated(root, module, outputNames(out));
        for (const p of stale) await fsp.rm(path.join(root, p), { recursive: p.endsWith('/'), force: true });
        await writeGeneratedRecord(root, module, outputNames(out));
      },
      { purpose: 'generate or verify' },
    );
    const n = Object.values(out.directories).reduce((a, fm) => a + fm.size, 0) + Object.keys(out.files).length;
    io.stdout(renderReport(format, { ...report, result: { ...report.result, removed: stale }, text: () => `generated ${n} files in ${outputNames(out).join(', ')}\n${stale.length ? `removed ${stale.join(', ')}: generated before, no longer produced\n` : ''}` }));
    return 0;
  },
};
