import * as path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { readDirToFileMap } from '../../core/fs.js';
import { loadComponent } from '../../pko/loader.js';
import { toUserError } from '../../pko/render-errors.js';
import { packageTree } from '../../pko/tree.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { readConfigFile } from '../yaml-file.js';

const HELP = `Usage: pkogen tree DIR [--test-case NAME] [--config FILE] [--component NAME] [--cluster]

Prints the package's phases and objects in kubectl-package's tree format. Package name and
namespace come from the first test case (or --test-case), else "name"/"namespace"; config from
--config, else that test case; the test case's environment is ignored (as PKO's tree does).

Options:
  --test-case NAME   take package metadata and config from this test.template case
                     (kubectl-package spelling: --config-testcase)
  --config FILE      YAML config (admitted against spec.config.openAPIV3Schema)
                     (kubectl-package spelling: --config-path)
  --component NAME   the tree of one component of a multi-component package
  --cluster          render as a ClusterPackage
`;

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
      },
      { min: 1, max: 1, names: 'DIR' },
    );
    const testCase = either(values, 'test-case', 'config-testcase');
    const configFile = either(values, 'config', 'config-path');
    const component = values.component ?? '';
    const fm = await readDirToFileMap(path.resolve(io.cwd, positionals[0]));
    const config = configFile === undefined ? undefined : await readConfigFile(io.cwd, configFile);
    let out: string;
    try {
      out = packageTree(loadComponent(fm, component), { testCase, config, cluster: values.cluster === true });
    } catch (e) {
      throw toUserError(e, component);
    }
    io.stdout(out);
    return 0;
  },
};
