/**
 * `diff -u --label=FIXTURE/<base> --label=ACTUAL/<base> <fixture> <actual>` output, as PKO's
 * template tests print it. Hunks come from jsdiff (Myers, 3 lines of context); the header and
 * hunk ranges are formatted the GNU way (`@@ -3 +3 @@` for one-line ranges, `-4,0` after line 4).
 */
import { createRequire } from 'node:module';

// jsdiff is needed only when a fixture differs: load it then (it is 19 modules).
type DiffLib = typeof import('diff');
let diffLib: DiffLib | undefined;
const jsdiff = (): DiffLib => (diffLib ??= createRequire(import.meta.url)('diff') as DiffLib);

function range(start: number, count: number): string {
  if (count === 0) return `${start - 1 < 0 ? 0 : start - 1},0`;
  if (count === 1) return `${start}`;
  return `${start},${count}`;
}

/** Empty string when equal. */
export function unifiedDiff(base: string, fixture: string, actual: string): string {
  if (fixture === actual) return '';
  const p = jsdiff().structuredPatch(`FIXTURE/${base}`, `ACTUAL/${base}`, fixture, actual, '', '', { context: 3 });
  let out = `--- FIXTURE/${base}\n+++ ACTUAL/${base}\n`;
  for (const h of p.hunks) {
    out += `@@ -${range(h.oldStart, h.oldLines)} +${range(h.newStart, h.newLines)} @@\n`;
    for (const l of h.lines) out += l + '\n';
  }
  return out;
}
