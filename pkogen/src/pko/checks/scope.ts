/**
 * Scope rules PKO enforces only at install (ObjectSet preflight) for a namespaced Package:
 * objects outside a classed phase must be namespaced and stay in the Package's namespace.
 */
import type { Finding } from '../../core/errors.js';
import { gvkOf } from '../object-validators.js';
import { scopeOfGroupKind } from '../../schema/scope.js';
import { CheckContext, objectFinding, phaseClass, phaseOf, ScopeLookup } from './context.js';


/** The scope table (src/schema/scope.ts), used when no schema registry is at hand. */
export const builtinScopeOf: ScopeLookup = (group, _version, kind) => scopeOfGroupKind(group, kind);

export function checkScope(ctx: CheckContext): Finding[] {
  const scopes = ctx.manifest.spec.scopes ?? [];
  if (!(scopes.includes('Namespaced') && !scopes.includes('Cluster'))) return [];
  const out: Finding[] = [];
  const lookup = (g: string, v: string, k: string) => ctx.scopeOf?.(g, v, k) ?? builtinScopeOf(g, v, k);
  for (const ref of ctx.objects) {
    const phase = phaseOf(ref);
    if (phaseClass(ctx.manifest, phase)) continue; // classed phases are applied elsewhere (e.g. the hosted cluster)
    const g = gvkOf(ref.object);
    const gk = g.group ? `${g.kind}.${g.group}` : g.kind;
    if (lookup(g.group, g.version, g.kind) === 'Cluster') {
      out.push(objectFinding(ctx, ref, 'error', 'scope/cluster-scoped-in-namespaced-package',
        `${gk} is cluster-scoped but the package is Namespaced-only and phase "${phase}" has no class; PKO rejects it at install: Must be namespaced scoped when part of an non-cluster-scoped API.`, 'kind'));
      continue;
    }
    const ns = ref.object.metadata?.namespace;
    if (typeof ns === 'string' && ns !== '') {
      if (ctx.packageNamespace !== undefined && ns !== ctx.packageNamespace) {
        out.push(objectFinding(ctx, ref, 'error', 'scope/foreign-namespace',
          `${gk} is in namespace "${ns}" but the package is installed in "${ctx.packageNamespace}"; PKO rejects it at install: Must stay within the same namespace.`, 'metadata.namespace'));
      } else if (ctx.packageNamespace === undefined) {
        out.push(objectFinding(ctx, ref, 'warning', 'scope/fixed-namespace',
          `${gk} has a fixed namespace "${ns}" in a Namespaced package: it installs only into that namespace (PKO: Must stay within the same namespace.)`, 'metadata.namespace'));
      }
    }
  }
  return out;
}
