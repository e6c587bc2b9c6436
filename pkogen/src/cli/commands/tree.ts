import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { UsageError, UserError } from '../../core/errors.js';
import { readDirToFileMap } from '../../core/fs.js';
import { loadComponent } from '../../pko/loader.js';
import { toUserError } from '../../pko/render-errors.js';
import { packageTree, TREE_FORMATS, type TreeFormat } from '../../pko/tree.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { readConfigFile } from '../yaml-file.js';

const HELP = `Usage: pkogen tree DIR [--test-case NAME | --config FILE] [--component NAME] [--cluster] [--format pko|pkogen]

Prints the package's phases and objects as kubectl-package's tree does, byte for byte. Package
name and namespace come from the first test case (or --test-case), else "name"/"namespace"; config
from --config, else that test case; the test case's environment is ignored (as PKO's tree does).
A --test-case no test case has renders with "name"/"namespace" and an empty config, as PKO does
(pkogen says so on stderr).

Options:
  --test-case NAME   take package metadata and config from this test.template case
                     (kubectl-package spelling: --config-testcase)
  --config FILE      YAML config (admitted against spec.config.openAPIV3Schema)
                     (kubectl-package spelling: --config-path)
  --component NAME   the tree of one component of a multi-component package
  --cluster          render as a ClusterPackage (the default for a package whose only
                     scope is Cluster; kubectl-package refuses one without --cluster)
  --format F         pko (default): kubectl-package's layout (gotree v1.0.0: every phase
                     marked └──, the objects of all but the last phase ├──);
                     pkogen: the same tree with the usual markers (pkogen before 0.2)
`;

/** The config file, its absence worded as kubectl-package's Go error (`open F: no such file or directory`). */
async function readTreeConfig(cwd: string, file: string): Promise<Record<string, unknown>> {
  if (!existsSync(path.resolve(cwd, file))) throw new UserError(`read config from file: open ${file}: no such file or directory`);
  return readConfigFile(cwd, file);
}

/** One value from our flag or kubectl-package's spelling of it; both at once is ambiguous. */
function either(values: Record<string, unknown>, ours: string, theirs: string): string | undefined {
  const a = values[ours] as string | undefined;
  const b = values[theirs] as string | undefined;
  if (a !== undefined && b !== undefined) throw new UsageError(`tree: give --${ours} or --${theirs}, not both`);
  return a ?? b;
}

export const command: Command = {
  name: 'tree',
  summary: "Print a package's phases and objects in PKO's tree format",
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'tree',
      args,
      {
        'test-case': { type: 'string' },
        'config-testcase': { type: 'string' },
        config: { type: 'string' },
        'config-path': { type: 'string' },
        component: { type: 'string' },
        cluster: { type: 'boolean' },
        format: { type: 'string' },
      },
      { min: 1, max: 1, names: 'DIR' },
    );
    const testCase = either(values, 'test-case', 'config-testcase');
    const configFile = either(values, 'config', 'config-path');
    // kubectl-package marks the two flags mutually exclusive (cobra's text).
    if (testCase !== undefined && configFile !== undefined) {
      throw new UsageError('tree: if any flags in the group [config-path config-testcase] are set none of the others can be; [config-path config-testcase] were all set');
    }
    const format = (values.format ?? 'pko') as TreeFormat;
    if (!TREE_FORMATS.includes(format)) throw new UsageError(`tree: --format must be one of ${TREE_FORMATS.join(', ')}`);
    const component = values.component ?? '';
    const fm = await readDirToFileMap(path.resolve(io.cwd, positionals[0]));
    const config = configFile === undefined ? undefined : await readTreeConfig(io.cwd, configFile);
    let out: string;
    try {
      out = packageTree(loadComponent(fm, component), {
        testCase,
        config,
        cluster: values.cluster === true,
        format,
        onClusterOnly: () => io.stderr('pkogen tree: the package\'s only scope is Cluster: printed as a ClusterPackage (kubectl package tree needs --cluster)\n'),
        onUnknownTestCase: (name) => io.stderr(`pkogen tree: no test case named ${JSON.stringify(name)}: rendering with name "name", namespace "namespace" and an empty config, as kubectl package does\n`),
      });
    } catch (e) {
      throw toUserError(e, component);
    }
    io.stdout(out);
    return 0;
  },
};
