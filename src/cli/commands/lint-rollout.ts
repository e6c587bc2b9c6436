import path from 'node:path';
import { UsageError, UserError } from '../../core/errors.js';
import { countBySeverity, formatFinding } from '../../core/errors.js';
import { lintRolloutTemplate } from '../../rollout/lint.js';
import { rolloutSchemaValidator } from '../../rollout/schema.js';
import { packageObjectChecker } from '../../rollout/package-check.js';
import { readDirToFileMap } from '../../core/fs.js';
import { Violation } from '../../pko/types.js';
import { renderObjectTemplateText } from '../../rollout/pko-render.js';
import { readYamlFileText, type YamlFileError } from '../../yaml/parse.js';
import { parseCommandArgs, parseKeyValues } from '../args.js';
import type { Command } from '../io.js';

const HELP = `Usage: pkogen lint-rollout FILE [-p NAME=VALUE]... [--package DIR] [--output text|json]

Lint an OpenShift Template that ships a PKO Package through Hive SelectorSyncSet → ACM Policy →
ConfigurationPolicy, or a ClusterPackage/Package carried by the SelectorSyncSet itself (the classic
rollout) (rules T1–K2 of docs/rollout.md). Parameters are filled the way app-interface
fills them: IMAGE_TAG from the commit, IMAGE_DIGEST/REPO_DIGEST computed from REGISTRY_IMG, and
parameters the SaaS file must supply replaced by placeholders (reported as info) unless given.

Options:
  -p, --param NAME=VALUE   a parameter as the SaaS file sets it (repeatable)
  --package DIR            the package the (Cluster)Packages install: their scope and literal config
                           are checked against its manifest (rule K2)
  -o, --output FORMAT      text (default) or json
Exit: 0 no errors (warnings allowed), 1 errors or unreadable file, 2 usage error.`;

export const command: Command = {
  name: 'lint-rollout',
  summary: 'Lint an OpenShift rollout Template (SelectorSyncSet → Policy → Package)',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('lint-rollout', args, {
      param: { type: 'string', short: 'p', multiple: true },
      output: { type: 'string', short: 'o', default: 'text' },
      package: { type: 'string' },
    }, { min: 1, max: 1, names: 'FILE' });
    const output = values.output as string;
    if (output !== 'text' && output !== 'json') throw new UsageError(`lint-rollout: --output must be text or json, not ${JSON.stringify(output)}`);
    const params = parseKeyValues('lint-rollout', '-p', values.param as string[] | undefined);
    const file = positionals[0];
    let text: string;
    try {
      text = readYamlFileText(path.resolve(io.cwd, file));
    } catch (e) {
      throw new UserError(`cannot read the template: ${(e as YamlFileError).detail}`, { file });
    }
    let checkPackage;
    if (values.package !== undefined) {
      const fm = await readDirToFileMap(path.resolve(io.cwd, values.package as string));
      try {
        checkPackage = packageObjectChecker(fm);
      } catch (e) {
        if (e instanceof Violation) throw new UserError(`the package does not load: ${e.message}`, { file: values.package as string });
        throw e;
      }
    }
    const res = lintRolloutTemplate(file, text, { parameters: params, schema: rolloutSchemaValidator(), renderTemplate: renderObjectTemplateText, checkPackage });
    const counts = countBySeverity(res.findings);
    if (output === 'json') {
      io.stdout(JSON.stringify({ file, findings: res.findings, summary: counts }, null, 2) + '\n');
    } else {
      for (const f of res.findings) io.stdout(formatFinding(f) + '\n');
      io.stdout(`${file}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info\n`);
    }
    return counts.error > 0 ? 1 : 0;
  },
};
