/**
 * `npm run bench`: runs every benchmark module in this folder (each exports `bench()` returning a
 * markdown section) and writes docs/benchmarks.md with the command and machine that produced it.
 * `--dir DIR --out FILE` runs another folder's modules the same way (the repository's own
 * benches: `npm run bench` at its root); names after the options pick modules, and then nothing
 * is written.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const own = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(own, '..', '..', '..');

function options(argv: string[]): { dir: string; out: string; only: string[] } {
  let dir = own;
  let out = path.join(root, 'docs', 'benchmarks.md');
  const only: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if ((a === '--dir' || a === '--out') && argv[i + 1] !== undefined) {
      if (a === '--dir') dir = path.resolve(argv[++i]!);
      else out = path.resolve(argv[++i]!);
    } else if (a.startsWith('--')) {
      process.stderr.write(`bench: unknown option ${a}; usage: run.js [--dir DIR --out FILE] [NAME...]\n`);
      process.exit(2);
    } else only.push(a);
  }
  return { dir, out, only };
}

async function runAll(): Promise<void> {
  const { dir: here, out, only } = options(process.argv.slice(2));
  const modules = readdirSync(here)
    .filter((f) => f.endsWith('.js') && f !== 'run.js' && !f.startsWith('_'))
    .filter((f) => only.length === 0 || only.includes(f.replace(/\.js$/, '')))
    .sort();
  const sections: string[] = [];
  for (const f of modules) {
    process.stderr.write(`bench: ${f}\n`);
    const mod = (await import(pathToFileURL(path.join(here, f)).href)) as { bench?: () => Promise<string> };
    if (typeof mod.bench !== 'function') continue;
    sections.push((await mod.bench()).trim());
  }
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  const doc = [
    '# Benchmarks',
    '',
    `Produced by \`npm run bench\` (after \`make build\`) on ${os.cpus().length} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
    'Numbers are from one run on a shared 2-core machine; compare ratios rather than absolute times.',
    '',
    ...sections.flatMap((s) => [s, '']),
  ].join('\n');
  if (only.length === 0) writeFileSync(out, doc);
  process.stdout.write(doc);
}

await runAll();
