/** A scope lookup from CustomResourceDefinition documents (`--crd`): group/kind → Namespaced|Cluster. */
import type { FileMap } from '../core/filemap.js';
import type { ScopeLookup } from './checks/context.js';
import { parseObjects } from './objects.js';

export function crdScopeLookup(files: FileMap): { lookup: ScopeLookup; count: number } {
  const scopes = new Map<string, 'Namespaced' | 'Cluster'>();
  const { objects } = parseObjects(files);
  for (const r of objects) {
    const o = r.object as Record<string, unknown>;
    if (o.kind !== 'CustomResourceDefinition') continue;
    const spec = o.spec as { group?: string; scope?: string; names?: { kind?: string } } | undefined;
    if (!spec?.group || !spec.names?.kind) continue;
    if (spec.scope === 'Namespaced' || spec.scope === 'Cluster') scopes.set(`${spec.group}/${spec.names.kind}`, spec.scope);
  }
  return { lookup: (g, _v, k) => scopes.get(`${g}/${k}`), count: scopes.size };
}
