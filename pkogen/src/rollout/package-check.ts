/**
 * What simulate checks for each Package against the package it points at (loaded once): the
 * package can be installed as a namespaced Package (scope), and the Package's config satisfies
 * the manifest's config schema. Rendering the package's templates per namespace is delegated to
 * an optional renderer (render branch).
 */
import type { FileMap } from '../core/filemap.js';
import { admitConfig, formatFieldError } from '../pko/config-admission.js';
import { loadPackage } from '../pko/loader.js';
import type { LoadedPackage } from '../pko/types.js';
import type { PackageObjectCheck } from './lint.js';
import type { PackageRenderer, PackageRenderRequest } from './simulate.js';
import type { Finding } from '../core/errors.js';
import { K1 } from './rules/package.js';

export type FullRenderer = (pkg: LoadedPackage, req: PackageRenderRequest) => { objects: number; findings: Finding[] };

export function packageChecker(files: FileMap, render?: FullRenderer): PackageRenderer {
  const pkg = loadPackage(files);
  const schema = pkg.manifest.spec.config?.openAPIV3Schema;
  const scopes = pkg.manifest.spec.scopes ?? [];
  return (req) => {
    const findings: Finding[] = [];
    const scope = req.namespace === '' ? 'Cluster' : 'Namespaced';
    if (!scopes.includes(scope)) findings.push({ severity: 'error', rule: K1.id, message: `${scopeProblem(scope)}${req.namespace ? ` in ${req.namespace}` : ''} Invalid` });
    if (!render) {
      // PKO's admission: prune unknown fields, apply defaults, validate (the renderer does it otherwise).
      if (schema) for (const e of admitConfig(req.config, schema).errors) findings.push({ severity: 'error', rule: K1.id, message: `config: ${formatFieldError(e)}` });
      return { objects: -1, findings };
    }
    const r = render(pkg, req);
    return { objects: r.objects, findings: [...findings, ...r.findings] };
  };
}

function scopeProblem(scope: 'Cluster' | 'Namespaced'): string {
  const kind = scope === 'Cluster' ? 'ClusterPackage' : 'Package';
  return `${kind} unsupported scope: the package manifest does not list scope ${scope}, so PKO marks the ${kind}`;
}

/**
 * lint-rollout's check of a Package/ClusterPackage written in the Template against the package:
 * the scope its kind needs, and its literal config through PKO's admission (prune, default, validate).
 */
export function packageObjectChecker(files: FileMap): PackageObjectCheck {
  const pkg = loadPackage(files);
  const schema = pkg.manifest.spec.config?.openAPIV3Schema;
  const scopes = pkg.manifest.spec.scopes ?? [];
  return (obj) => {
    const problems: ReturnType<PackageObjectCheck> = [];
    const scope = obj.kind === 'ClusterPackage' ? 'Cluster' : 'Namespaced';
    if (!scopes.includes(scope)) problems.push({ path: ['kind'], message: scopeProblem(scope) + ' Invalid' });
    const spec = obj.spec !== null && typeof obj.spec === 'object' ? (obj.spec as Record<string, unknown>) : {};
    if (schema) for (const e of admitConfig(spec.config ?? {}, schema).errors) problems.push({ path: ['spec', 'config'], message: `config: ${formatFieldError(e)}` });
    return problems;
  };
}
