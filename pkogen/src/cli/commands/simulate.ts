import { stat } from 'node:fs/promises';
import path from 'node:path';
import { countBySeverity, formatFinding, UsageError, UserError, type Finding } from '../../core/errors.js';
import { readDirToFileMap } from '../../core/fs.js';
import type { FileMap } from '../../core/filemap.js';
import { REGISTRY_TIMEOUT_FLAGS, registryOptions, registryTimeoutHelp, registryTimeouts } from '../registry-options.js';
import type { PackageEnvironment } from '../../pko/types.js';
import { Violation } from '../../pko/types.js';
import { defaultFleet, Fleet, hcpNamespaceNames } from '../../rollout/fleet.js';
import { packageChecker } from '../../rollout/package-check.js';
import { renderObjectTemplateText, renderWithPko } from '../../rollout/pko-render.js';
import { validatePackage } from '../../pko/validate.js';
import { prepareRolloutSchemas, rolloutSchemaValidator } from '../../rollout/schema.js';
import { foldRepeatedFindings, type FoldedFindings } from '../../rollout/repeated.js';
import { redactConfig, simulateRollout, type SimulatedPackage, SimulationResult } from '../../rollout/simulate.js';
import { parseYaml11, readYamlFileText, type YamlFileError, YamlParseError } from '../../yaml/parse.js';
import { parseCommandArgs, parseKeyValues } from '../args.js';
import type { Command } from '../io.js';
import { colorFor, progress } from '../terminal.js';
import { FINDING_FORMATS, outputFormat, renderReport, SKIP_OPTION, skipRules } from '../output.js';
import { isObj } from '../../core/guards.js';

const HELP = `Usage: pkogen simulate FILE -p NAME=VALUE... [--hcp-namespaces N|name,...] [--package DIR|REF] [--environment FILE] [--skip RULE]... [-o text|json|github|junit|tap]

Process a rollout Template like app-interface (oc process with saasherder's parameters), follow
hive (SelectorSyncSet → service clusters) and ACM (PlacementRule/Placement → management clusters,
namespaceSelector → HCP namespaces), render each ObjectTemplate with its sources into a Package,
check each Package (and, with --package, its config against the package), and print one line per
HCP namespace.

Options:
  -p, --param NAME=VALUE    a parameter as the SaaS file sets it (repeatable); required ones must be given
  --skip RULE               drop the findings of this rule (the id in [brackets]; repeatable)
  --hcp-namespaces N|LIST   N generated OSD-style HCP namespaces, or a comma-separated list of names
                            (needed when ACM policies place Packages; not for a classic SelectorSyncSet
                            or a top-level (Cluster)Package, which count clusters)
  --package DIR|REF         the package: a directory, or the package image (pulled from its registry)
  --insecure                allow plain-HTTP registries for --package REF
${registryTimeoutHelp(2, 28)}
  --environment FILE        YAML: {environment: <PKO environment>, fleet: <clusters>} (both optional;
                            a fleet replaces --hcp-namespaces, see docs/rollout.md)
  -o, --output FORMAT       text (default), json, github (GitHub Actions annotations), junit or tap
Exit: 0 every namespace or cluster got a valid Package, 1 errors (also: no Package placed at all), 2 usage error.`;

async function readEnvironment(file: string, cwd: string): Promise<{ environment?: PackageEnvironment; fleet?: Fleet }> {
  let text: string;
  try {
    text = readYamlFileText(path.resolve(cwd, file));
  } catch (e) {
    throw new UserError(`cannot read the environment file: ${(e as YamlFileError).detail}`, { file });
  }
  let v: unknown;
  try {
    v = parseYaml11(text, file);
  } catch (e) {
    if (e instanceof YamlParseError) throw new UserError(`invalid YAML: ${e.message}`, { file, line: e.line, column: e.column });
    throw e;
  }
  if (v === null || v === undefined) return {};
  if (!isObj(v)) throw new UserError('the environment file must be a mapping with optional keys environment and fleet', { file });
  for (const k of Object.keys(v)) if (k !== 'environment' && k !== 'fleet') throw new UserError(`unknown key ${JSON.stringify(k)} (expected environment, fleet)`, { file, path: k });
  if (v.environment !== undefined && !isObj(v.environment)) throw new UserError('environment must be a mapping (a PKO environment: kubernetes, openShift, proxy)', { file, path: 'environment' });
  if (v.fleet !== undefined && !(isObj(v.fleet) && Array.isArray(v.fleet.clusterDeployments))) throw new UserError('fleet must be a mapping with a clusterDeployments list', { file, path: 'fleet' });
  return { environment: v.environment as PackageEnvironment | undefined, fleet: v.fleet as Fleet | undefined };
}

/** The table: shared findings (Template, package, those repeated on several rows) above, each row's own below it. */
function text(res: SimulationResult, fold: FoldedFindings, file: string): string {
  const out: string[] = [];
  for (const f of [...fold.shared, ...fold.repeated]) if (f.severity !== 'info') out.push(formatFinding(f));
  for (const h of res.hops) {
    out.push(`SelectorSyncSet ${h.selectorSyncSet} → clusters: ${h.serviceClusters.join(', ') || '(none)'}`);
    for (const p of h.policies) out.push(`  Policy ${p.policy} on ${p.hub} → managed clusters: ${p.managedClusters.join(', ') || '(none)'}`);
  }
  out.push('');
  out.push(['NAMESPACE', 'CLUSTER', 'VIA', 'PACKAGE', 'IMAGE', 'CONFIG', 'RESULT'].join('\t'));
  // Errors above the rows that belong to no row (the Template, the package itself) hold for every row: none is ok then.
  const globalErrors = countBySeverity(fold.shared).error;
  res.packages.forEach((p, i) => {
    const own = fold.own[i];
    const errs = own.filter((f) => f.severity === 'error').length;
    const warns = own.filter((f) => f.severity === 'warning').length;
    const above = fold.above[i];
    const errsAbove = Math.max(above.errors, globalErrors);
    const result = errs
      ? `${errs} error(s)${errsAbove ? `, ${errsAbove} above` : ''}`
      : errsAbove
        ? `not ok: ${errsAbove} error(s) above`
        : warns || above.warnings
          ? `ok, ${[...(warns ? [`${warns} warning(s)`] : []), ...(above.warnings ? [`${above.warnings} warning(s) above`] : [])].join(', ')}`
          : p.rendered && p.rendered.objects >= 0 ? `ok (${p.rendered.objects} objects)` : 'ok';
    out.push([
      p.namespace || '(cluster)', p.managementCluster, p.via, p.package?.name ?? '-', p.package?.image ?? '-',
      p.package ? Object.keys(p.package.config).sort().join(',') || '-' : '-',
      result,
    ].join('\t'));
    for (const f of own) out.push(`  ${formatFinding(f)}`);
  });
  const s = totals(res, fold);
  const where = [...(s.namespaces > 0 || s.clusters === 0 ? [`${s.namespaces} namespace(s)`] : []), ...(s.clusters > 0 ? [`${s.clusters} cluster(s)`] : [])].join(', ');
  out.push(`${file}: ${where}, ${s.validPackages} valid Package(s), ${s.errors} error(s), ${s.warnings} warning(s)`);
  return out.join('\n') + '\n';
}

/** Every finding counted once, as the report prints it. */
function totals(res: SimulationResult, fold: FoldedFindings) {
  const c = countBySeverity([...fold.shared, ...fold.repeated, ...fold.own.flat()]);
  const globalErrors = countBySeverity(fold.shared).error;
  // A ClusterPackage, or a Package hive or the SaaS deployment applies to a cluster, counts that cluster; ACM's Packages count their HCP namespace.
  const perCluster = (p: SimulatedPackage) => p.namespace === '' || p.via === 'SelectorSyncSet' || p.via === 'Template';
  return {
    namespaces: res.packages.filter((p) => !perCluster(p)).length,
    clusters: res.packages.filter(perCluster).length,
    validPackages: globalErrors > 0 ? 0 : res.packages.filter((p, i) => p.package && fold.above[i].errors === 0 && !fold.own[i].some((f) => f.severity === 'error')).length,
    errors: c.error,
    warnings: c.warning,
  };
}

export const command: Command = {
  name: 'simulate',
  summary: 'Process a rollout Template and render the Package for each HCP namespace',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('simulate', args, {
      param: { type: 'string', short: 'p', multiple: true },
      package: { type: 'string' },
      insecure: { type: 'boolean' },
      ...REGISTRY_TIMEOUT_FLAGS,
      'hcp-namespaces': { type: 'string' },
      environment: { type: 'string' },
      output: { type: 'string', short: 'o' },
      ...SKIP_OPTION,
    }, { min: 1, max: 1, names: 'FILE' });
    const skip = skipRules('simulate', values.skip as string[] | undefined);
    const timeouts = registryTimeouts('simulate', values);
    const output = outputFormat({ command: 'simulate', formats: FINDING_FORMATS }, values.output as string | undefined);
    const hcp = values['hcp-namespaces'] as string | undefined;
    const env = values.environment ? await readEnvironment(values.environment as string, io.cwd) : {};
    if (hcp && env.fleet) throw new UsageError('simulate: --hcp-namespaces and a fleet in --environment exclude each other');
    const names = hcp ? hcpNamespaceNames(hcp) : [];
    if (hcp && (names.length === 0 || (/^\d+$/.test(hcp) && (Number(hcp) < 1 || Number(hcp) > 100000)))) throw new UsageError('simulate: --hcp-namespaces must be 1..100000 or a list of names');
    const params = parseKeyValues('simulate', '-p', values.param as string[] | undefined);
    const file = positionals[0];
    let textIn: string;
    try {
      textIn = readYamlFileText(path.resolve(io.cwd, file));
    } catch (e) {
      throw new UserError(`cannot read the template: ${(e as YamlFileError).detail}`, { file });
    }
    let renderPackage;
    let packageFindings: Finding[] = [];
    if (values.package) {
      const spec = values.package as string;
      const dir = path.resolve(io.cwd, spec);
      const st = await stat(dir).catch(() => undefined);
      try {
        let fm: FileMap;
        if (st?.isDirectory()) fm = await readDirToFileMap(dir);
        else if (st) throw new UserError('--package must be a package directory or an image reference', { file: spec });
        else {
          // Not a path: an image reference, pulled like `validate --pull`.
          const { pullImage } = await import('../../oci/sources.js');
          const { packageFilesFromImage } = await import('../../pko/package-image.js');
          const image = await pullImage(spec, registryOptions(io, values.insecure === true, timeouts));
          fm = packageFilesFromImage(image).files;
          // saasherder resolves IMAGE_DIGEST from the registry: when REF is that image, use its real digest.
          const tagless = spec.replace(/@sha256:[0-9a-f]{64}$/, '').replace(/:[^:/]+$/, '');
          if (params.IMAGE_DIGEST === undefined && params.REGISTRY_IMG === tagless) params.IMAGE_DIGEST = image.digest;
        }
        // The package itself, once (PKO's rules); each Package's config and render per namespace below.
        packageFindings = await validatePackage(fm);
        renderPackage = packageChecker(fm, renderWithPko);
      } catch (e) {
        if (e instanceof Violation) throw new UserError(`the package does not load: ${e.message}`, { file: values.package as string });
        throw e;
      }
    }
    const busy = progress(io, `simulating ${file}`, { enabled: output === 'text' });
    let res;
    try {
      await prepareRolloutSchemas(file, textIn);
      res = simulateRollout(file, textIn, {
        parameters: params,
        fleet: env.fleet ?? defaultFleet(names),
        environment: env.environment,
        schema: rolloutSchemaValidator(),
        renderTemplate: renderObjectTemplateText,
        renderPackage,
      });
    } finally {
      busy.stop();
    }
    // HCP namespaces are needed only where ACM places Packages into them (a classic SelectorSyncSet
    // or a top-level (Cluster)Package counts clusters).
    const viaAcm = (res.lint.objects ?? []).some((o) => isObj(o) && o.kind === 'SelectorSyncSet' && isObj(o.spec) && Array.isArray(o.spec.resources) && o.spec.resources.some((r) => isObj(r) && r.kind === 'Policy'));
    if (!hcp && !env.fleet && viaAcm) {
      throw new UsageError('simulate: this Template places Packages through ACM policies: --hcp-namespaces N|name,... is required (or a fleet in --environment)');
    }
    // --skip drops a rule's findings everywhere before anything is counted.
    for (const p of res.packages) p.findings = skip(p.findings);
    // The Template's findings, the simulation's, then the package's own (its files under --package).
    const shared: Finding[] = skip([
      ...res.lint.findings,
      ...res.findings,
      ...packageFindings.map((f) => ({ ...f, file: `${String(values.package)}/${f.file ?? ''}` })),
    ]);
    const fold = foldRepeatedFindings(shared, res.packages);
    const s = totals(res, fold);
    // Each row's own findings once, at the top level, with the namespace at the end of the chain.
    const namespaceOf = new Map<Finding, string>();
    const perNamespace: Finding[] = res.packages.flatMap((p, i) =>
      fold.own[i].map((f) => {
        const ns = `namespace/${p.namespace || '(cluster)'}`;
        const g = { ...f, object: [f.object, ns].filter(Boolean).join(' > ') };
        namespaceOf.set(g, ns);
        return g;
      }),
    );
    io.stdout(renderReport(output, {
      command: 'simulate',
      subject: file,
      findings: [...fold.shared, ...fold.repeated, ...perNamespace],
      ok: s.errors === 0,
      // JUnit: the Template (and package, and what repeats on rows) as one test case, each namespace as one.
      checked: [file, ...res.packages.map((p) => `namespace/${p.namespace || '(cluster)'}`)],
      caseOf: (f) => namespaceOf.get(f),
      result: {
        totals: s,
        hops: res.hops,
        packages: res.packages.map(({ findings: _f, ...p }) => ({ ...p, package: p.package ? { ...p.package, config: redactConfig(p.package.config) } : undefined })),
      },
      text: () => text(res, fold, file),
    }, {}, { color: colorFor(io, 1) }));
    return s.errors > 0 ? 1 : 0;
  },
};
