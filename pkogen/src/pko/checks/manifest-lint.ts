/** Manifest mistakes PKO silently accepts: ignored keys, case-only key matches, scope/class values. */
import type { Finding } from '../../core/errors.js';
import type { DecodeNotes } from '../loader.js';
import type { PackageManifest } from '../types.js';
import { lineOfField } from '../../yaml/positions.js';

const KNOWN_CLASSES = ['hosted-cluster', 'default'];

export function checkManifestKeys(notes: DecodeNotes[], texts: Map<string, string>): Finding[] {
  const out: Finding[] = [];
  for (const n of notes) {
    const text = texts.get(n.file);
    const at = (path: string) => (text === undefined ? undefined : lineOfField({ text, firstLine: 1 }, path));
    for (const k of n.unknownKeys) {
      out.push(withLine({ severity: 'warning', rule: 'manifest/unknown-key', message: `unknown key ${k} is ignored by PKO (misspelt?)`, file: n.file, path: k }, at(k)));
    }
    for (const c of n.caseMismatches) {
      out.push(withLine({ severity: 'warning', rule: 'manifest/key-case', message: `key ${c.path} only matches ${c.canonical} case-insensitively; write ${c.canonical}`, file: n.file, path: c.path }, at(c.path)));
    }
  }
  return out;
}

export function checkManifestValues(manifest: PackageManifest, file: string, text: string | undefined): Finding[] {
  const out: Finding[] = [];
  const at = (path: string) => (text === undefined ? undefined : lineOfField({ text, firstLine: 1 }, path));
  (manifest.spec.scopes ?? []).forEach((s, i) => {
    if (s !== 'Cluster' && s !== 'Namespaced') {
      const path = `spec.scopes[${i}]`;
      out.push(withLine({ severity: 'warning', rule: 'manifest/scope-value', message: `scope ${JSON.stringify(s)} is neither Cluster nor Namespaced; the package can never be installed in it`, file, path }, at(path)));
    }
  });
  (manifest.spec.phases ?? []).forEach((p, i) => {
    if (p.class && !KNOWN_CLASSES.includes(p.class)) {
      const path = `spec.phases[${i}].class`;
      out.push(withLine({ severity: 'warning', rule: 'manifest/phase-class', message: `phase class ${JSON.stringify(p.class)} is not one PKO runs (${KNOWN_CLASSES.join(', ')}); its objects wait for a controller of that class`, file, path }, at(path)));
    }
  });
  return out;
}

function withLine(f: Finding, line: number | undefined): Finding {
  if (line !== undefined) f.line = line;
  return f;
}
