import path from 'node:path';
import { countBySeverity, UserError, type Finding } from '../../core/errors.js';
import { lintRolloutTemplate } from '../../rollout/lint.js';
import { prepareRolloutSchemas, rolloutSchemaValidator } from '../../rollout/schema.js';
import { packageObjectChecker } from '../../rollout/package-check.js';
import { readDirToFileMap } from '../../core/fs.js';
import { Violation } from '../../pko/types.js';
import { renderObjectTemplateText } from '../../rollout/pko-render.js';
import { readYamlFileText, type YamlFileError } from '../../yaml/parse.js';
import { parseCommandArgs, parseKeyValues } from '../args.js';
import type { Command } from '../io.js';
import { colorFor, progress } from '../terminal.js';
import { FINDING_FORMATS, findingLines, outputFormat, renderReport, SKIP_OPTION, skipRules } from '../output.js';

const HELP = `Usage: pkogen lint-rollout FILE [-p NAME=VALUE]... [--package DIR] [--skip RULE]... [-o text|json|github|junit|tap]

Lint an OpenShift Template that ships a PKO Package through Hive SelectorSyncSet → ACM Policy →
ConfigurationPolicy, or a ClusterPackage/Package carried by the SelectorSyncSet itself (the classic
rollout) (rules T1–K2 of docs/rollout.md). Parameters are filled the way app-interface
fills them: IMAGE_TAG from the commit, IMAGE_DIGEST/REPO_DIGEST computed from REGISTRY_IMG, and
parameters the SaaS file must supply replaced by placeholders (reported as info) unless given.

Options:
  -p, --param NAME=VALUE   a parameter as the SaaS file sets it (repeatable)
  --skip RULE              drop the findings of this rule (the id in [brackets]; repeatable)
  --package DIR            the package the (Cluster)Packages install: their scope and literal config
                           are checked against its manifest (rule K2)
  -o, --output FORMAT      text (default), json, github (GitHub Actions annotations), junit or tap
Exit: 0 no errors (warnings allowed), 1 errors or unreadable file, 2 usage error.`;

export const command: Command = {
  name: 'lint-rollout',
  summary: 'Lint an OpenShift rollout Template (SelectorSyncSet → Policy → Package)',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs('lint-rollout', args, {
      param: { type: 'string', short: 'p', multiple: true },
      output: { type: 'string', short: 'o' },
      package: { type: 'string' },
      ...SKIP_OPTION,
    }, { min: 1, max: 1, names: 'FILE' });
    const skip = skipRules('lint-rollout', values.skip as string[] | undefined);
    const output = outputFormat({ command: 'lint-rollout', formats: FINDING_FORMATS }, values.output as string | undefined);
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
    const busy = progress(io, `linting ${file}`, { enabled: output === 'text' });
    let res;
    try {
      await prepareRolloutSchemas(file, text);
      res = lintRolloutTemplate(file, text, { parameters: params, schema: rolloutSchemaValidator(), renderTemplate: renderObjectTemplateText, checkPackage });
    } finally {
      busy.stop();
    }
    // A RolloutFinding is a Finding (file, line, column, path, object chain).
    const findings: Finding[] = skip(res.findings);
    const counts = countBySeverity(findings);
    io.stdout(renderReport(output, {
      command: 'lint-rollout',
      subject: file,
      findings,
      ok: counts.error === 0,
      checked: [file],
      text: () => findingLines(findings) + `${file}: ${counts.error} error(s), ${counts.warning} warning(s), ${counts.info} info\n`,
    }, {}, { color: colorFor(io, 1) }));
    return counts.error > 0 ? 1 : 0;
  },
};
