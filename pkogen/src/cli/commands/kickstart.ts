import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { pkogenRoot } from '../package-root.js';
import { UsageError } from '../../core/errors.js';
import { toBytes } from '../../core/filemap.js';
import { writeFileMapAtomic } from '../../core/fs.js';
import { mkdtemp, rm } from 'node:fs/promises';
import * as os from 'node:os';
import { type Finding, UserError } from '../../core/errors.js';
import { BASELINE_FILE, type Baseline, baselineMakefile, baselineOf, baselineWhere } from '../../kickstart/baseline.js';
import { formatNotConverted, kickstart } from '../../kickstart/convert.js';
import { packageOutput } from '../../model/package-output.js';
import type { PackageDefinition } from '../../model/package.js';
import { PARAMETRIZE_SUPPORTED, PARAMETRIZE_UPSTREAM, type ParametrizeOption } from '../../kickstart/parametrize.js';
import type { PackageManifestScope } from '../../pko/types.js';
import { parseCommandArgs } from '../args.js';
import type { CliIO, Command } from '../io.js';
import { outputFormat } from '../output.js';
import { checkOutputDir, readSourceArgs } from '../sources.js';

const HELP = `Usage: pkogen kickstart SOURCE... [--output-dir DIR] [--name NAME] [--scope Cluster|Namespaced]... [-p WHAT]... [--force]

Writes TypeScript (resources/*.ts) that generates the package you have today, so you can keep
going with pkogen. SOURCE is either
  - one PKO package directory (manifest.yaml and its files): phases, probes, config schema, test
    cases, filters, components and kubeconform settings are kept; .yaml.gotmpl documents become
    objects with their template expressions in place (a document that cannot, for example one
    with {{ if }} over lines, stays template text, with a note naming file and line); a package
    without test cases gets one from the config schema's required keys; or
  - YAML files or directories of manifests (multi-document, Lists, OpenShift Templates):
    objects are put into phases like 'kubectl package kickstart' does (namespaces, policies,
    rbac, crds, storage, deploy, publish, other).
Every object is converted or listed with the reason it was not (for example a Secret with data,
which is never copied). Exit 1 when anything was left out.

Kickstart then validates the package it generated as the scaffold's 'make test' does
('pkogen validate package --strict'). A warning the original already has is kept (the objects
stay as they were) and baselined: its rule goes into DIR/validate-baseline.mk, which the
scaffold's Makefile includes and passes on as 'validate --skip RULE', with a comment naming each
finding's file and object; a note per finding goes to stderr. Fix them and remove the file.
Errors are never baselined.

Options:
  --output-dir DIR   where to write the TypeScript (default: resources); replaced atomically
  --name NAME        package name for plain manifests (default: my-package)
  --scope SCOPE      package scope for plain manifests; repeat for both
  -p, --parametrize WHAT
                     plain manifests: turn WHAT into config, as 'kubectl package kickstart
                     --parametrize' does (repeat or comma-separate): namespaces, replicas,
                     nodeselectors, tolerations, resources, env (images, all: not yet)
  --force            replace a non-empty output directory

Example:
  pkogen kickstart deploy/ --output-dir resources --name my-operator
`;

export const command: Command = {
  name: 'kickstart',
  summary: 'Turn manifests, a PKO package or an OpenShift Template into resources/*.ts',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'kickstart',
      args,
      { output: { type: 'string', short: 'o' }, 'output-dir': { type: 'string' }, name: { type: 'string' }, scope: { type: 'string', multiple: true }, parametrize: { type: 'string', short: 'p', multiple: true }, force: { type: 'boolean' } },
      { min: 1, max: Infinity, names: 'SOURCE' },
    );
    // kickstart has one form of output; -o is kept for the hint to --output-dir.
    outputFormat({ command: 'kickstart', formats: ['text'], pathFlag: { flag: '--output-dir', writes: 'the TypeScript' } }, values.output as string | undefined);
    const scopes = values.scope as string[] | undefined;
    for (const s of scopes ?? []) if (s !== 'Cluster' && s !== 'Namespaced') throw new UsageError(`kickstart: --scope must be Cluster or Namespaced, got ${JSON.stringify(s)}`);
    const name = values.name as string | undefined;
    if (name !== undefined && !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(name)) throw new UsageError(`kickstart: --name must be a DNS label, got ${JSON.stringify(name)}`);
    const param = ((values.parametrize as string[] | undefined) ?? []).flatMap((v) => v.split(',')).map((v) => v.trim().toLowerCase()).filter(Boolean);
    for (const v of param) {
      if (!(PARAMETRIZE_UPSTREAM as readonly string[]).includes(v)) throw new UsageError(`kickstart: --parametrize takes ${PARAMETRIZE_UPSTREAM.join(', ')}; got ${JSON.stringify(v)}`);
      if (!(PARAMETRIZE_SUPPORTED as readonly string[]).includes(v)) throw new UsageError(`kickstart: --parametrize ${v} is not supported yet (supported: ${PARAMETRIZE_SUPPORTED.join(', ')})`);
    }
    const outShown = (values['output-dir'] as string | undefined) ?? 'resources';
    const outDir = path.resolve(io.cwd, outShown);
    const sources = await readSourceArgs(positionals, io.cwd);
    await checkOutputDir(outDir, outShown, values.force === true);
    const result = await kickstart(sources, { name, scopes: scopes as PackageManifestScope[] | undefined, parametrize: param as ParametrizeOption[] });
    const { files, untypedWarnings } = (await import('../../kickstart/typecheck.js')).emitTypedResources(result.definition, { origin: positionals.join(', '), relaxRules: result.relaxRules }, pkogenTypes());
    const baseline = await validateGenerated(result.definition, result.relaxRules, io);
    const mk = baselineMakefile(baseline, positionals.join(', '));
    if (mk) files.set(BASELINE_FILE, mk);
    await writeFileMapAtomic(outDir, new Map([...files].map(([p, t]) => [p, toBytes(t)])));
    for (const w of result.warnings) io.stderr(`warning: ${w}\n`);
    for (const w of untypedWarnings) io.stderr(`warning: ${path.join(outShown, w)}\n`);
    for (const n of result.notConverted) io.stderr(`not converted: ${formatNotConverted(n)}\n`);
    if (result.relaxRules.length) io.stderr(`note: the package breaks pkogen's generation checks ${result.relaxRules.join(', ')}; resources.ts reports them as warnings (relaxRules)\n`);
    for (const f of baseline.findings) io.stderr(`note: baselined [${f.rule}] ${baselineWhere(f)}: the original has it too; make test skips it (${path.join(outShown, BASELINE_FILE)}): fix and remove\n`);
    for (const n of result.notes ?? []) io.stdout(`note: ${n}\n`);
    io.stdout(`kickstarted ${result.from === 'pko-package' ? 'a PKO package' : 'manifests'}: ${result.converted} converted, ${result.notConverted.length} not converted; wrote ${[...files.keys()].map((f) => path.join(outShown, f)).join(', ')}\n`);
    return result.notConverted.length ? 1 : 0;
  },
};

/** pkogen's own declarations, for kickstart's type check: the built ones, or the sources in a checkout that was not built. */
function pkogenTypes(): { index: string; publicDir: string } {
  const root = pkogenRoot();
  const built = path.join(root, 'dist', 'src');
  if (existsSync(path.join(built, 'public', 'k8s.d.ts'))) return { index: path.join(built, 'index.d.ts'), publicDir: path.join(built, 'public') };
  return { index: path.join(root, 'src', 'index.ts'), publicDir: path.join(root, 'src', 'public') };
}

/**
 * Generates the package as `make package` would and runs `pkogen validate DIR --strict` on it, as
 * `make test` does: the warnings that fail it are the baseline. When generation itself fails,
 * `make package` reports that, and there is nothing to baseline.
 */
async function validateGenerated(def: PackageDefinition, relaxRules: string[], io: CliIO): Promise<Baseline> {
  let out;
  try {
    out = await packageOutput(def, { relaxRules });
  } catch (e) {
    if (e instanceof UserError) return { rules: [], findings: [] };
    throw e;
  }
  if (out.findings.some((f) => f.severity === 'error')) return { rules: [], findings: [] };
  const dir = await mkdtemp(path.join(os.tmpdir(), 'pkogen-kickstart-'));
  try {
    const pkgDir = path.join(dir, 'package');
    await writeFileMapAtomic(pkgDir, out.directories.package);
    let json = '';
    const { command: validate } = await import('./validate.js');
    await validate.run([pkgDir, '--strict', '-o', 'json'], { ...io, stdout: (t) => void (json += t), stderr: () => {}, isTTY: { stdout: false, stderr: false } });
    const findings = (JSON.parse(json) as { findings: Finding[] }).findings;
    return baselineOf(findings);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
