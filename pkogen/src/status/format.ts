/** The text and wide tables of `pkogen status` (its JSON form is src/cli/output.ts's). Deterministic for a given `now`. */
import { age, type PackageRow, type Summary } from './model.js';

/** Long messages are cut in the table (the JSON form keeps them whole). */
const MAX_MESSAGE = 160;

function cut(s: string, n = MAX_MESSAGE): string {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

const shortDigest = (d: string | undefined) => (d ? d.slice(0, 19) : '-');

function table(rows: string[][]): string {
  const w = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(w[i]))).join('  ').trimEnd() + '\n').join('');
}

export function formatSummary(s: Summary, expectImage: string | undefined): string {
  let line = `${s.total} package(s): ${s.available} available, ${s.progressing} progressing, ${s.invalid} invalid`;
  if (s.other) line += `, ${s.other} other`;
  if (expectImage !== undefined) line += `, ${s.drift} with image drift from ${expectImage}`;
  return line + '\n';
}

export function formatText(rows: PackageRow[], summary: Summary, opts: { now: Date; wide: boolean; expectImage?: string }): string {
  if (rows.length === 0) return 'No packages found.\n' + formatSummary(summary, opts.expectImage);
  const header = ['NAMESPACE', 'NAME', 'REVISION', 'DIGEST', 'STATE', 'REASON', 'AGE'];
  if (opts.expectImage !== undefined) header.push('DRIFT');
  const body = rows.map((r) => {
    const cells = [r.namespace || '-', r.kind === 'Package' ? r.name : `${r.kind}/${r.name}`, r.revision === undefined ? '-' : String(r.revision), shortDigest(r.digest), r.state, r.reason || '-', age(r.since, opts.now)];
    if (opts.expectImage !== undefined) cells.push(r.drift ? 'yes' : 'no');
    return cells;
  });
  let out = table([header, ...body]);
  let details = '';
  for (const r of rows) {
    const lines = detailLines(r, opts.wide);
    if (lines.length) details += `${r.namespace ? r.namespace + '/' : ''}${r.name}:\n` + lines.map((l) => `  ${l}\n`).join('');
  }
  if (details) out += '\n' + details;
  out += '\n' + formatSummary(summary, opts.expectImage);
  return out;
}

function detailLines(r: PackageRow, wide: boolean): string[] {
  const out: string[] = [];
  if (r.drift) out.push(`image drift: running ${r.runningImage ?? r.image}`);
  if (r.state !== 'Available' && r.message && !r.blocking && !r.objectSetError) out.push(`${r.state}: ${cut(r.message)}`);
  if (r.blocking) {
    out.push(`blocked in phase "${r.blocking.phase}"`);
    for (const o of r.blocking.objects) out.push(`  ${o.group ? o.group + '/' : ''}${o.kind} ${o.namespace ? o.namespace + '/' : ''}${o.name}: ${cut(o.messages)}`);
  }
  if (r.objectSetError) out.push(`${r.objectSetError.reason}: ${r.objectSetError.message}`);
  for (const p of r.phases) if (p.available !== 'True' || wide) out.push(`phase ${p.name}${p.phaseClass ? ` (class ${p.phaseClass})` : ''}: Available=${p.available}${p.reason ? ` ${p.reason}` : ''}${p.message && p.available !== 'True' ? `: ${cut(p.message)}` : ''}`);
  if (wide) {
    out.push(`image: ${r.image}`);
    for (const h of r.history) {
      out.push(`revision ${h.revision} ${h.name}: ${h.lifecycleState}, Available=${h.available}${h.image ? `, image ${h.image}` : ''}${h.configSha256 ? `, config ${h.configSha256.slice(0, 19)} (keys: ${(h.configKeys ?? []).join(',') || '-'})` : ''}`);
    }
  }
  return out;
}
