import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO, rel, sources, specifiers } from '../source-imports.js';

/**
 * The rooms of builder/, checked on the real sources as pkogen's are (pkogen/test/architecture.test.ts):
 * each folder owns one concern and says so in its README.md; a module imports its own folder or a
 * lower layer, never a higher one nor a sibling on its own layer.
 */
const LAYERS: string[][] = [
  ['api', 'flags.ts'],
  ['registry', 'clusters', 'metrics'],
  ['hypershift'],
  ['policy'],
  ['webhook', 'controller'],
  ['fleet'],
  ['wiring.ts'],
  ['cli.ts'],
];
const FOLDERS = LAYERS.flat().filter((d) => !d.endsWith('.ts'));

/** `builder/<room>/…` or `builder/<file>.ts` → its room and layer. */
function roomOf(file: string): { room: string; layer: number } | undefined {
  const parts = file.split(path.sep);
  if (parts[0] !== 'builder') return undefined;
  const room = parts.length > 2 ? parts[1]! : parts[1]!.replace(/\.js$/, '.ts');
  const layer = LAYERS.findIndex((l) => l.includes(room));
  return layer < 0 ? undefined : { room, layer };
}

const files = sources(['builder/**/*.ts']);

describe('builder/ layers', () => {
  it('finds every room', () => {
    const rooms = new Set(files.map((f) => roomOf(rel(f.getFilePath()))?.room));
    expect([...LAYERS.flat()].filter((r) => !rooms.has(r))).toEqual([]);
  });

  it('every file of builder/ belongs to a room of the table', () => {
    expect(files.map((f) => rel(f.getFilePath())).filter((p) => !roomOf(p))).toEqual([]);
  });

  it('imports run down the layers: never up, never sideways', () => {
    const offenders: string[] = [];
    for (const f of files) {
      const from = rel(f.getFilePath());
      const a = roomOf(from)!;
      for (const spec of specifiers(f)) {
        if (!spec.startsWith('.')) continue;
        const target = rel(path.resolve(path.dirname(f.getFilePath()), spec));
        const b = roomOf(target);
        if (!b) continue;
        if (a.room === b.room) continue;
        if (b.layer >= a.layer) offenders.push(`${from} imports ${spec} (${b.room}, layer ${b.layer}, from ${a.room}, layer ${a.layer})`);
      }
    }
    expect(offenders).toEqual([]);
  });

  it('each folder has a README.md that names what it owns and what it may import', () => {
    const missing: string[] = [];
    for (const d of FOLDERS) {
      const p = path.join(REPO, 'builder', d, 'README.md');
      if (!existsSync(p)) {
        missing.push(`builder/${d}/README.md is missing`);
        continue;
      }
      const text = readFileSync(p, 'utf8');
      const layer = LAYERS.findIndex((l) => l.includes(d));
      const lower = LAYERS.slice(0, layer).flat().filter((r) => !r.endsWith('.ts'));
      // The README's "May import" line lists exactly the lower rooms the table allows.
      const line = /^May import: (.*)$/m.exec(text)?.[1];
      if (!line) missing.push(`builder/${d}/README.md has no "May import:" line`);
      else {
        const named = line === 'nothing of builder/' ? [] : line.split(/,\s*/).map((s) => s.replace(/[`/]/g, '').trim());
        const want = [...lower, ...LAYERS.slice(0, layer).flat().filter((r) => r.endsWith('.ts'))].sort();
        if (JSON.stringify(named.sort()) !== JSON.stringify(want)) missing.push(`builder/${d}/README.md may import ${JSON.stringify(named)}, the table says ${JSON.stringify(want)}`);
      }
    }
    expect(missing).toEqual([]);
  });
});
