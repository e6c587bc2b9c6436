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
import type { PackageRenderer, PackageRenderRequest, SimFinding } from './simulate.js';

export type FullRenderer = (pkg: LoadedPackage, req: PackageRenderRequest) => { objects: number; findings: SimFinding[] };

export function packageChecker(files: FileMap, render?: FullRenderer): PackageRenderer {
  const pkg = loadPackage(files);
  const schema = pkg.manifest.spec.config?.openAPIV3Schema;
  const namespaced = (pkg.manifest.spec.scopes ?? []).includes('Namespaced');
  return (req) => {
    const findings: SimFinding[] = [];
    if (!namespaced) findings.push({ severity: 'error', rule: 'K1', message: `Package unsupported scope: the package manifest does not list scope Namespaced, so PKO marks the Package in ${req.namespace} Invalid` });
    if (!render) {
      // PKO's admission: prune unknown fields, apply defaults, validate (the renderer does it otherwise).
      if (schema) for (const e of admitConfig(req.config, schema).errors) findings.push({ severity: 'error', rule: 'K1', message: `config: ${formatFieldError(e)}` });
      return { objects: -1, findings };
    }
    const r = render(pkg, req);
    return { objects: r.objects, findings: [...findings, ...r.findings] };
  };
}
