import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../core/errors.js';
import { parseAllYaml11, readYamlFileText, YamlFileError, YamlParseError } from '../yaml/parse.js';
import { crdFromObject, type BundledCrd } from './crd.js';
import { isObj } from '../core/guards.js';


function listYamlFiles(p: string): string[] {
  let st;
  try {
    st = statSync(p);
  } catch {
    throw new UserError(`CRD file or directory not found: ${p}`, { file: p });
  }
  if (!st.isDirectory()) return [p];
  const out: string[] = [];
  for (const name of readdirSync(p).sort()) {
    if (name.startsWith('.')) continue;
    const child = join(p, name);
    if (statSync(child).isDirectory()) out.push(...listYamlFiles(child));
    else if (/\.ya?ml$/.test(name)) out.push(child);
  }
  return out;
}

/** Reads CRDs from YAML files (multi-document; `kind: List` of CRDs accepted). */
export function loadCrdFiles(paths: readonly string[]): BundledCrd[] {
  const out: BundledCrd[] = [];
  for (const p of paths) {
    const before = out.length;
    for (const file of listYamlFiles(p)) out.push(...readCrdFile(file));
    // A path named on purpose that holds no CRD is almost certainly the wrong path.
    if (out.length === before) throw new UserError('no CustomResourceDefinition found', { file: p });
  }
  return out;
}

function readCrdFile(file: string): BundledCrd[] {
  let docs: unknown[];
  try {
    docs = parseAllYaml11(readYamlFileText(file), file);
  } catch (e) {
    if (e instanceof YamlParseError) {
      throw new UserError(`invalid YAML in CRD file: ${e.message}`, { file, line: e.line, column: e.column });
    }
    throw new UserError(`cannot read CRD file: ${e instanceof YamlFileError ? e.detail : (e as Error).message}`, { file });
  }
  const out: BundledCrd[] = [];
  docs.forEach((doc, i) => {
    const items = isObj(doc) && doc.kind === 'List' && Array.isArray(doc.items) ? doc.items : [doc];
    for (const item of items) {
      try {
        const crd = crdFromObject(item, file);
        if (crd) out.push(crd);
      } catch (e) {
        throw new UserError((e as Error).message, { file, doc: i });
      }
    }
  });
  return out;
}
