import * as path from 'node:path';
import { UsageError, type Finding } from '../../core/errors.js';
import type { FileMap } from '../../core/filemap.js';
import { readDirToFileMap, writeFileMapAtomic } from '../../core/fs.js';
import { createSchemaRegistry } from '../../schema/registry.js';
import { readFixtureTree } from '../../pko/fixtures-dir.js';
import type { Image } from '../../oci/image.js';
import { Violation } from '../../pko/types.js';
import { violationFinding } from '../../pko/validate.js';
import { REGISTRY_TIMEOUT_FLAGS, registryOptions, registryTimeoutHelp, registryTimeouts } from '../registry-options.js';
import { hasErrors, validatePackage, type ValidateOptions } from '../../pko/validate.js';
import { renderUntestedTemplates, runPackageTemplateTests } from '../../pko/validate-template-tests.js';
import { FIXTURES_DIR } from '../../pko/template-tests.js';
import { readConfigFile } from '../yaml-file.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { colorFor, progress } from '../terminal.js';
import { FINDING_FORMATS, findingLines, outputFormat, renderReport, SKIP_OPTION, skipRules } from '../output.js';

const HELP = `Usage: pkogen validate DIR|--pull REF|--oci-layout DIR|--archive FILE [--strict] [--crd PATH]... [--config FILE] [--skip RULE]... [-o text|json|github|junit|tap] [--insecure]
                       [--connect-timeout D] [--stall-timeout D] [--timeout D]

Validates a Package Operator package with PKO's own rules and messages (structure, manifest,
lock file, objects, template tests) and with checks PKO leaves to install time: scope rules,
annotation values, misspelt manifest keys, hosted-cluster webhook gating, Pod Security
"restricted", RBAC wildcards and escalation verbs, image digests, literal secrets.

Options:
  --pull REF          validate a package image from a registry (kubectl-package's
                      \`validate REF --pull\` form works too)
  --oci-layout DIR    validate a package image stored as an OCI image layout
  --archive FILE      validate a package image stored as a docker archive (docker save)
  --crd PATH          CustomResourceDefinition file or directory for kinds of the package (repeatable;
                      CRDs the package ships are used without it)
  --config FILE       config for templates no test.template case renders (default: schema defaults)
  --strict            warnings fail too (exit 1), except "no schema for this kind"
  --skip RULE         drop the findings of this rule (the id in [brackets]; repeatable);
                      PKO's own rules (pko/...) cannot be skipped
  -o, --output FORMAT text (default; human is the same), json, github (GitHub Actions
                      annotations), junit (JUnit XML) or tap (TAP 13): see README "Output formats"
  --insecure          allow plain-HTTP registries for --pull
${registryTimeoutHelp(2, 22)}

Exit codes: 0 clean (warnings allowed unless --strict), 1 findings, 2 usage error.
`;

export const command: Command = {
  name: 'validate',
  summary: "Validate a package with PKO's rules and stricter checks",
  help: HELP,
  async run(args, io) {
    // kubectl-package's --pull is a switch (\`validate REF --pull\`); ours takes the REF. Accept both.
    let pullSwitch = false;
    const i = args.indexOf('--pull');
    if (i >= 0 && (i === args.length - 1 || args[i + 1].startsWith('-'))) {
      pullSwitch = true;
      args = [...args.slice(0, i), ...args.slice(i + 1)];
    }
    const parsed = parseCommandArgs('validate', args, {
      pull: { type: 'string' },
      'oci-layout': { type: 'string' },
      archive: { type: 'string' },
      crd: { type: 'string', multiple: true },
      config: { type: 'string' },
      strict: { type: 'boolean' },
      output: { type: 'string', short: 'o' },
      insecure: { type: 'boolean' },
      ...SKIP_OPTION,
      ...REGISTRY_TIMEOUT_FLAGS,
    }, { min: 0, max: 1, names: 'DIR' });
    const values = parsed.values;
    let positionals = parsed.positionals;
    if (pullSwitch) {
      if (values.pull !== undefined || positionals.length === 0) throw new UsageError('validate: --pull needs an image reference');
      values.pull = positionals[0];
      positionals = [];
    }
    const sources = [positionals[0], values.pull, values['oci-layout'], values.archive].filter((x) => x !== undefined);
    if (sources.length === 0) throw new UsageError('validate: missing DIR (or --pull REF, --oci-layout DIR, --archive FILE)');
    if (sources.length > 1) throw new UsageError('validate: give exactly one of DIR, --pull, --oci-layout, --archive');
    const timeouts = registryTimeouts('validate', values);
    const output = outputFormat({ command: 'validate', formats: FINDING_FORMATS }, values.output);
    const skip = skipRules('validate', values.skip);

    const busy = progress(io, `validating ${positionals[0] ?? values.pull ?? values['oci-layout'] ?? values.archive}`, { enabled: output === 'text' });
    try {
      let fm: FileMap | undefined;
      const opts: ValidateOptions = {};
      const pre: Finding[] = [];
      if (positionals[0] !== undefined) {
        const root = path.resolve(io.cwd, positionals[0]);
        const skippedSymlinks: string[] = [];
        fm = await readDirToFileMap(root, { skippedSymlinks });
        opts.skippedSymlinks = skippedSymlinks;
        // Like `kubectl package validate <dir>`: template tests against .test-fixtures; a test case
        // without its fixture directory gets one written, as PKO's TemplateTestValidator does.
        const source = { ...(await readFixtureTree(root)), root };
        opts.templateTests = async (pkg, component) => {
          const r = runPackageTemplateTests(pkg, component, source);
          const findings: Finding[] = [];
          for (const f of r.findings) {
            const name = f.rule === 'pko/fixtures-missing' ? [...r.generatedFixtures.keys()].find((n) => f.file?.endsWith(`${FIXTURES_DIR}/${n}`)) : undefined;
            if (name === undefined || !f.file) {
              findings.push(f);
              continue;
            }
            try {
              await writeFileMapAtomic(path.join(root, f.file), r.generatedFixtures.get(name)!);
              findings.push({ ...f, severity: 'info', message: `${component ? `component "${component}": ` : ''}test case "${name}" had no ${f.file}/ directory: generated it, as kubectl package validate does (review and commit it)` });
            } catch (e) {
              findings.push({ ...f, message: `${f.message} (writing it failed: ${(e as Error).message})` });
            }
          }
          return { findings, rendered: r.rendered };
        };
      } else {
        // Like `kubectl package validate --pull`: an image gets PKO's default validators, no template tests.
        // Image sources (zlib, crypto, the registry client) load only here: a folder never needs them.
        const [{ openDockerArchive, openOciLayout, pullImage }, { packageFilesFromImage }] = await Promise.all([import('../../oci/sources.js'), import('../../pko/package-image.js')]);
        let image: Image;
        if (values['oci-layout'] !== undefined) image = await openOciLayout(path.resolve(io.cwd, values['oci-layout']));
        else if (values.archive !== undefined) image = await openDockerArchive(path.resolve(io.cwd, values.archive));
        else image = await pullImage(values.pull!, registryOptions(io, values.insecure === true, timeouts));
        try {
          fm = packageFilesFromImage(image).files;
        } catch (e) {
          if (!(e instanceof Violation)) throw e;
          pre.push(violationFinding(e));
        }
      }
      const config = values.config === undefined ? undefined : await readConfigFile(io.cwd, values.config);
      opts.untestedTemplates = async (pkg, component) => renderUntestedTemplates(pkg, component, { config });
      opts.schema = createSchemaRegistry({ crdFiles: (values.crd ?? []).map((c) => path.resolve(io.cwd, c)) });
      const findings = skip([...pre, ...(fm ? await validatePackage(fm, opts) : [])]);
      const strict = values.strict === true;
      const ok = !hasErrors(findings, strict);
      const dir = positionals[0];
      const subject = dir ?? values.pull ?? values['oci-layout'] ?? values.archive!;
      io.stdout(renderReport(output, {
        command: 'validate',
        subject,
        findings,
        ok,
        fails: (f) => hasErrors([f], strict),
        root: dir,
        checked: fm ? [...fm.keys()].sort() : [],
        // PKO prints its success line whenever it accepts the package; our warnings come before it.
        // A failed run says why in one line: with --strict, warnings alone fail it.
        text: () => findingLines(findings) + (ok ? 'Package validated successfully!\n' : failedSummary(findings, strict)),
      }, {}, { color: colorFor(io, 1) }));
      return ok ? 0 : 1;
    } finally {
      busy.stop();
    }
  },
};

function failedSummary(findings: Finding[], strict: boolean): string {
  const n = (sev: Finding['severity']) => findings.filter((f) => f.severity === sev).length;
  const [errors, warnings] = [n('error'), n('warning')];
  return `validation failed: ${errors} error(s), ${warnings} warning(s)${strict && errors === 0 ? ' (--strict: warnings fail)' : ''}\n`;
}
