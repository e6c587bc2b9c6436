import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { UsageError, UserError } from '../../core/errors.js';
import { type FileMap, sortedPaths, toText } from '../../core/filemap.js';
import { readDirToFileMap, writeFileMapAtomic } from '../../core/fs.js';
import { loadComponent } from '../../pko/loader.js';
import { renderPackage, type RenderRequest } from '../../pko/render.js';
import { toUserError } from '../../pko/render-errors.js';
import { fixtureFiles, testCaseRequest } from '../../pko/template-tests.js';
import type { PackageEnvironment } from '../../pko/types.js';
import { didYouMean } from '../suggest.js';
import { parseCommandArgs } from '../args.js';
import { asObject, readYamlFile } from '../yaml-file.js';
import type { Command } from '../io.js';
import { outputFormat } from '../output.js';

const HELP = `Usage: pkogen render DIR (--test-case NAME | --config FILE [--name NAME] [--namespace NS] [--environment FILE]) [--component NAME] [--output-dir OUTDIR]

Renders a package exactly like Package Operator: one Go template set for all .gotmpl files,
PKO's functions, config admitted against spec.config.openAPIV3Schema (pruned, defaulted,
validated), CEL filters (spec.filter, package-operator.run/condition). Output is what PKO
would write as .test-fixtures/<case>/ (raw rendered YAML, filtered documents removed).

Options:
  --test-case NAME     use a test.template case's package, config and environment
  --config FILE        YAML config for the Package (instead of a test case)
  --name NAME          Package name with --config (default: the manifest's name)
  --namespace NS       Package namespace with --config (omit for a ClusterPackage)
  --environment FILE   YAML for .environment with --config (kubernetes, openShift, proxy, hyperShift)
  --component NAME     render a component of a multi-component package
  --output-dir OUTDIR  write the rendered files into OUTDIR (replaced atomically) instead of stdout
  -o, --output FORMAT  yaml (default): the rendered files as YAML documents on stdout
`;

/** Fixture-layout files to stdout: one `# Source:` document per file. */
export function formatRenderedFiles(fm: FileMap): string {
  let out = '';
  for (const p of sortedPaths(fm)) {
    const text = toText(fm.get(p)!);
    out += `---\n# Source: ${p}\n${text}${text.endsWith('\n') ? '' : '\n'}`;
  }
  return out;
}

/**
 * --output-dir replaces the directory wholesale; refuse targets that hold something else than a
 * previous render (the package itself, a parent of it, a repository, a package manifest).
 */
async function refuseToReplace(outDir: string, pkgDir: string, shown: string): Promise<void> {
  const rel = path.relative(outDir, pkgDir);
  if (rel === '' || !rel.startsWith('..')) throw new UserError('refusing to replace a directory that contains the package', { file: shown });
  for (const marker of ['manifest.yaml', 'manifest.yml', '.git']) {
    try {
      await fsp.lstat(path.join(outDir, marker));
      throw new UserError(`refusing to replace a directory that contains ${marker}`, { file: shown });
    } catch (e) {
      if (e instanceof UserError) throw e;
    }
  }
}

export const command: Command = {
  name: 'render',
  summary: 'Render a package like PKO does, for a test case or a config',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'render',
      args,
      {
        'test-case': { type: 'string' },
        config: { type: 'string' },
        name: { type: 'string' },
        namespace: { type: 'string' },
        environment: { type: 'string' },
        component: { type: 'string' },
        output: { type: 'string', short: 'o' },
        'output-dir': { type: 'string' },
      },
      { min: 1, max: 1, names: 'DIR' },
    );
    outputFormat({ command: 'render', formats: ['yaml'], pathFlag: { flag: '--output-dir', writes: 'the files' } }, values.output);
    const outArg = values['output-dir'];
    const tcName = values['test-case'];
    if ((tcName === undefined) === (values.config === undefined)) throw new UsageError('render: give exactly one of --test-case NAME or --config FILE');
    if (tcName !== undefined && (values.namespace !== undefined || values.environment !== undefined || values.name !== undefined)) {
      throw new UsageError('render: --name, --namespace and --environment only go with --config');
    }
    const dir = path.resolve(io.cwd, positionals[0]);
    const fm = await readDirToFileMap(dir);
    const component = values.component ?? '';
    let result;
    try {
      const pkg = loadComponent(fm, component);
      let req: RenderRequest;
      if (tcName !== undefined) {
        const tc = (pkg.manifest.test?.template ?? []).find((t) => t.name === tcName);
        if (!tc) {
          const names = (pkg.manifest.test?.template ?? []).map((t) => t.name);
          // A usage error (exit 2), like an unknown flag value: the command line names what is not there.
          const hint = didYouMean(tcName, names);
          throw new UsageError(`render: no test case ${JSON.stringify(tcName)} in ${component ? `components/${component}/` : ''}manifest.yaml test.template${names.length ? ` (have: ${names.join(', ')})` : ''}${hint ? `; did you mean ${hint}?` : ''}`);
        }
        req = testCaseRequest(pkg, tc, component || undefined);
      } else {
        const config = asObject(await readYamlFile(io.cwd, values.config!), values.config!);
        const environment = values.environment ? (asObject(await readYamlFile(io.cwd, values.environment), values.environment) as PackageEnvironment) : null;
        req = {
          manifest: pkg.manifest,
          lock: pkg.manifestLock,
          files: pkg.files,
          package: { metadata: { name: values.name ?? pkg.manifest.metadata.name ?? '', namespace: values.namespace ?? '' } },
          config,
          environment,
          component: component || undefined,
          rejectInvalidConfig: true,
        };
      }
      result = renderPackage(req);
    } catch (e) {
      throw toUserError(e, component);
    }
    const files = fixtureFiles(result);
    if (outArg !== undefined) {
      const outDir = path.resolve(io.cwd, outArg);
      await refuseToReplace(outDir, dir, outArg);
      await writeFileMapAtomic(outDir, files);
      io.stderr(`rendered ${files.size} file(s) into ${outArg}\n`);
    } else {
      io.stdout(formatRenderedFiles(files));
    }
    return 0;
  },
};
