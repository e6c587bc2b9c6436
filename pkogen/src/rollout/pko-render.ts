/**
 * simulate's link to the PKO renderer (src/pko/render.ts) and Go template engine: an
 * ObjectTemplate is rendered the way PKO's ObjectTemplate controller does (one Go template,
 * PKO's function set, data {config, environment}); a Package is rendered with its environment.
 */
import type { FileMap } from '../core/filemap.js';
import { pkoFuncMap } from '../gotemplate/funcs/index.js';
import { fromJs } from '../gotemplate/funcs/json.js';
import { RenderError, renderPackage } from '../pko/render.js';
import { formatFieldError } from '../pko/config-admission.js';
import { buildTemplateSet, type TemplateRunner } from '../pko/template-runner.js';
import { Violation, type LoadedPackage } from '../pko/types.js';
import type { FullRenderer } from './package-check.js';
import type { GoTemplateRenderer } from './simulate.js';
import type { Finding } from '../core/errors.js';
import { K1 } from './rules/package.js';

const NO_FILES: FileMap = new Map();

// One ObjectTemplate text is rendered once per HCP namespace: parse it once.
const runners = new Map<string, TemplateRunner>();
const MAX_CACHED = 64;

export const renderObjectTemplateText: GoTemplateRenderer = (name, text, data) => {
  const key = `${name}\u0000${text}`;
  let runner = runners.get(key);
  if (!runner) {
    const r = buildTemplateSet([{ name, text }], (self) => pkoFuncMap({ executeTemplate: (n, d) => self.execute(n, d), files: NO_FILES }));
    if (runners.size >= MAX_CACHED) runners.delete(runners.keys().next().value as string);
    runners.set(key, r);
    runner = r;
  }
  return runner.execute(name, fromJs(data));
};

export const renderWithPko: FullRenderer = (pkg: LoadedPackage, req) => {
  const findings: Finding[] = [];
  try {
    const r = renderPackage({
      manifest: pkg.manifest,
      lock: pkg.manifestLock,
      files: pkg.files,
      package: { metadata: { name: req.name, namespace: req.namespace }, image: req.image },
      config: req.config,
      environment: req.environment,
      // only counted here: unchanged objects are shared between namespaces, not copied, and
      // made from a template's shape with their metadata only
      sharedObjects: true,
      metadataOnly: true,
    });
    for (const e of r.configErrors) findings.push({ severity: 'error', rule: K1.id, message: `config: ${formatFieldError(e)}` });
    return { objects: r.objects.length, findings };
  } catch (e) {
    if (e instanceof RenderError || e instanceof Violation) {
      findings.push({ severity: 'error', rule: K1.id, message: `PKO render: ${e.message}` });
      return { objects: 0, findings };
    }
    throw e;
  }
};
