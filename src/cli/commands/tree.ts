import * as path from 'node:path';
import { UserError } from '../../core/errors.js';
import { readDirToFileMap } from '../../core/fs.js';
import { parseYaml11, readYamlFileText, YamlParseError } from '../../yaml/parse.js';
import { loadComponent } from '../../pko/loader.js';
import { toUserError } from '../../pko/render-errors.js';
import { packageTree } from '../../pko/tree.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';

const HELP = `Usage: pkogen tree DIR [--test-case NAME] [--config FILE] [--cluster]

Prints the package's phases and objects in kubectl-package's tree format. Package name and
namespace come from the first test case (or --test-case), else "name"/"namespace"; config from
--config, else that test case; the test case's environment is ignored (as PKO's tree does).

Options:
  --test-case NAME   take package metadata and config from this test.template case
  --config FILE      YAML config (admitted against spec.config.openAPIV3Schema)
  --cluster          render as a ClusterPackage
`;

export const command: Command = {
  name: 'tree',
  summary: "Print a package's phases and objects in PKO's tree format",
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'tree',
      args,
      { 'test-case': { type: 'string' }, config: { type: 'string' }, cluster: { type: 'boolean' } },
      { min: 1, max: 1, names: 'DIR' },
    );
    const fm = await readDirToFileMap(path.resolve(io.cwd, positionals[0]));
    let config: Record<string, unknown> | undefined;
    if (values.config !== undefined) {
      let text: string;
      try {
        text = readYamlFileText(path.resolve(io.cwd, values.config));
      } catch (e) {
        throw new UserError((e as Error).message, { file: values.config });
      }
      let v: unknown;
      try {
        v = parseYaml11(text, values.config);
      } catch (e) {
        const pe = e as YamlParseError;
        throw new UserError(`invalid YAML: ${pe.message}`, { file: values.config, line: pe.line, column: pe.column });
      }
      if (v !== null && v !== undefined && (typeof v !== 'object' || Array.isArray(v))) throw new UserError('must be a YAML mapping', { file: values.config });
      config = (v ?? {}) as Record<string, unknown>;
    }
    let out: string;
    try {
      out = packageTree(loadComponent(fm, ''), { testCase: values['test-case'], config, cluster: values.cluster === true });
    } catch (e) {
      throw toUserError(e);
    }
    io.stdout(out);
    return 0;
  },
};
