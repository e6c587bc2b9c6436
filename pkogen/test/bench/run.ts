/**
 * `npm run bench`: runs every benchmark module in this folder (each exports `bench()` returning a
 * markdown section) and writes docs/benchmarks.md with the command and machine that produced it.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');

async function runAll(): Promise<void> {
  const only = process.argv.slice(2);
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
  if (only.length === 0) writeFileSync(path.join(root, 'docs', 'benchmarks.md'), doc);
  process.stdout.write(doc);
}

await runAll();
