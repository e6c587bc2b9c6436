/**
 * simulate's findings without repetition. A finding about what the Template wrote (the same text
 * about the same placed object on several rows: an image not pinned, a config the package
 * refuses, an unknown field) is one finding, told once with the number of rows it affects; a
 * Template finding (lint-rollout's) about an object that placed rows says how many. What differs
 * from row to row (a namespace, a source, a cluster) stays on its row.
 */
import type { Finding } from '../core/errors.js';
import type { SimulatedPackage } from './simulate.js';

export interface FoldedFindings {
  /** The Template's findings, each about a placed object with the number of rows it affects. */
  shared: Finding[];
  /** Findings repeated on several rows, once each, with the number of rows they affect. */
  repeated: Finding[];
  /** Each row's own findings, in row order (the repeated ones left out). */
  own: Finding[][];
  /** Each row's errors and warnings told above it (in `shared` or `repeated`). */
  above: { errors: number; warnings: number }[];
}

function rowsNote(n: number, of: number): string {
  return ` (on ${n} of ${of} row${of === 1 ? '' : 's'})`;
}

export function foldRepeatedFindings(shared: readonly Finding[], rows: readonly SimulatedPackage[]): FoldedFindings {
  const total = rows.length;
  const above = rows.map(() => ({ errors: 0, warnings: 0 }));
  const count = (i: number, f: Finding) => {
    if (f.severity === 'error') above[i].errors++;
    else if (f.severity === 'warning') above[i].warnings++;
  };
  // The Template's findings on an object that placed rows: each of those rows carries it.
  const sharedOut = shared.map((f) => {
    if (!f.object) return f;
    const hit = rows.flatMap((p, i) => (p.object === f.object ? [i] : []));
    if (hit.length === 0) return f;
    for (const i of hit) count(i, f);
    return { ...f, message: f.message + rowsNote(hit.length, total) };
  });
  // Identical findings about the same placed object on several rows.
  const key = (p: SimulatedPackage, f: Finding) => JSON.stringify([p.object, f.severity, f.rule, f.object ?? '', f.message]);
  const seen = new Map<string, number[]>();
  rows.forEach((p, i) => {
    for (const f of p.findings) {
      const k = key(p, f);
      const at = seen.get(k) ?? [];
      if (!at.includes(i)) at.push(i);
      seen.set(k, at);
    }
  });
  const repeated: Finding[] = [];
  const told = new Set<string>();
  const own = rows.map((p, i) =>
    p.findings.filter((f) => {
      const k = key(p, f);
      const at = seen.get(k)!;
      if (at.length < 2) return true;
      count(i, f);
      if (!told.has(k)) {
        told.add(k);
        repeated.push({ ...f, object: f.object ?? p.object, message: f.message + rowsNote(at.length, total) });
      }
      return false;
    }),
  );
  return { shared: sharedOut, repeated, own, above };
}
