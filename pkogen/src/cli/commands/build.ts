import * as path from 'node:path';
import { UsageError, UserError, type Finding } from '../../core/errors.js';
import { readDirToFileMap } from '../../core/fs.js';
import { writeDockerArchive } from '../../oci/docker-archive.js';
import { writeOciLayout } from '../../oci/layout.js';
import { buildPackageImage } from '../../oci/package-image.js';
import { formatReference, parseReference, Reference, ReferenceError } from '../../oci/reference.js';
import { RegistryClient } from '../../oci/registry-client.js';
import { readFixtureTree } from '../../pko/fixtures-dir.js';
import { hasErrors, validatePackage, type ValidateOptions } from '../../pko/validate.js';
import { templateTestRunner } from '../../pko/validate-template-tests.js';
import { parseCommandArgs } from '../args.js';
import type { Command } from '../io.js';
import { findingLines, outputFormat, renderReport, type Report } from '../output.js';
import { REGISTRY_TIMEOUT_FLAGS, registryOptions, registryTimeoutHelp, registryTimeouts } from '../registry-options.js';

const HELP = `Usage: pkogen build DIR [-t REF]... [--push] [--output-file FILE.tar] [--oci-layout DIR] [-l KEY=VALUE]...
                    [-o text|json|digest] [--insecure] [--skip-if-exists]
                    [--connect-timeout D] [--stall-timeout D] [--timeout D]

Validates the package folder DIR with PKO's rules (as kubectl package build does), then builds a reproducible package image from its files
(dot-files and symlinks excluded) under /package/: one layer, linux/amd64, OCI media types.
The same files always give the same digest, on any machine.

Options:
  -t, --tag REF          image reference to write or push (repeatable)
      --push             push to every tag's registry (credentials: REGISTRY_AUTH_FILE,
                         $XDG_RUNTIME_DIR/containers/auth.json, ~/.docker/config.json)
      --output-file FILE write a docker-archive tar (docker load, skopeo docker-archive:)
      --oci-layout DIR   write an OCI image layout directory (replaced atomically)
  -l, --label KEY=VALUE  image config label (repeatable)
  -o, --output FORMAT    text (default: "Package built successfully!"), json (findings, digest,
                         tags, what was written) or digest (the manifest digest alone)
      --insecure         allow plain HTTP and unverified TLS for any registry
                         (loopback registries may use HTTP without it)
      --skip-if-exists   with --push: when the first tag already exists in its registry,
                         build and push nothing (its digest is printed as with -o digest)
${registryTimeoutHelp(6, 25)}

Example: pkogen build package -t quay.io/org/pkg:abc1234 --push -o digest
`;

function parseLabels(items: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const it of items ?? []) {
    const i = it.indexOf('=');
    if (i <= 0) throw new UsageError(`build: parsing label ${JSON.stringify(it)}: expected KEY=VALUE`);
    const k = it.slice(0, i);
    const v = it.slice(i + 1);
    if (v === '') throw new UsageError(`build: parsing label "${k}", value is empty`);
    out[k] = v;
  }
  return out;
}

export const command: Command = {
  name: 'build',
  summary: 'Build a reproducible package image; write it or push it',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'build',
      args,
      {
        tag: { type: 'string', short: 't', multiple: true },
        push: { type: 'boolean' },
        output: { type: 'string', short: 'o' },
        'output-file': { type: 'string' },
        'oci-layout': { type: 'string' },
        label: { type: 'string', short: 'l', multiple: true },
        'output-format': { type: 'string' },
        insecure: { type: 'boolean' },
        'skip-if-exists': { type: 'boolean' },
        ...REGISTRY_TIMEOUT_FLAGS,
      },
      { min: 1, max: 1, names: 'DIR' },
    );
    // The old spelling, named with its replacement rather than refused as unknown.
    if (values['output-format'] !== undefined) throw new UsageError(`build: --output-format is now -o (text, json, digest): -o ${values['output-format'] === 'human' ? 'text' : values['output-format']}`);
    const format = outputFormat({ command: 'build', formats: ['text', 'json', 'digest'], pathFlag: { flag: '--output-file', writes: 'the archive' } }, values.output);
    const archive = values['output-file'];
    const tagArgs = values.tag ?? [];
    if ((values.push || archive) && tagArgs.length === 0) throw new UsageError('build: arguments invalid: output or push is requested but no tags are set');
    if (values['skip-if-exists'] && !values.push) throw new UsageError('build: --skip-if-exists needs --push');
    const refs: Reference[] = tagArgs.map((t) => {
      try {
        const r = parseReference(t);
        if (r.digest) throw new ReferenceError('a digest is not a tag');
        return r;
      } catch (e) {
        if (e instanceof ReferenceError) throw new UsageError(`build: invalid tag specified as parameter ${t}: ${e.message}`);
        throw e;
      }
    });
    const labels = parseLabels(values.label);
    const dir = path.resolve(io.cwd, positionals[0]);
    const insecure = values.insecure === true;
    const timeouts = registryTimeouts('build', values);
    const where = positionals[0];
    // Findings' files are relative to the package directory (root), as validate reports them.
    const report = (findings: Finding[], ok: boolean): Report => ({ command: 'build', subject: where, root: where, findings, ok });

    let client: RegistryClient | undefined;
    try {
      if (values.push) client = new RegistryClient(registryOptions(io, insecure, timeouts));
      if (client && values['skip-if-exists'] && (await client.exists(refs[0]))) {
        const digest = await client.resolveDigest(refs[0]);
        // stdout stays machine-readable in digest format; the note goes to stderr there.
        const note = `Image ${formatReference(refs[0])} already exists (${digest}); nothing built or pushed\n`;
        if (format === 'digest') io.stderr(note);
        io.stdout(renderReport(format, { ...report([], true), result: { digest, tags: refs.map(formatReference), skipped: true }, text: () => note }, { digest: () => `${digest}\n` }));
        return 0;
      }

      const files = await readDirToFileMap(dir, { skipDotFiles: true });
      // Like `kubectl package build`: PKO's validation first (structure, manifest, lock, objects,
      // template tests against .test-fixtures, which are read and never written).
      const opts: ValidateOptions = { pkoOnly: true, templateTests: templateTestRunner({ ...(await readFixtureTree(dir)), root: dir }) };
      const findings = await validatePackage(files, opts);
      // Warnings (e.g. missing fixtures PKO would generate) are shown but do not stop the build;
      // on stderr, so that stdout stays the result (text, digest).
      if (format !== 'json') io.stderr(findingLines(findings.map((f) => ({ ...f, file: f.file !== undefined ? path.join(where, f.file) : undefined }))));
      if (hasErrors(findings)) {
        if (format === 'json') io.stdout(renderReport(format, report(findings, false)));
        else io.stderr(`error: ${where}: not a valid package; no image built\n`);
        return 1;
      }
      const image = buildPackageImage(files, { labels });

      if (archive) {
        await writeDockerArchive(path.resolve(io.cwd, archive), image, refs.map(formatReference)).catch((e: NodeJS.ErrnoException) => {
          throw e.code ? new UserError(`cannot write the archive (${e.code})`, { file: archive }) : e;
        });
      }
      if (values['oci-layout']) await writeOciLayout(path.resolve(io.cwd, values['oci-layout']), image, refs.map((r) => r.tag ?? 'latest'));
      if (client) await client.push(image, refs);
      const result = { digest: image.digest, tags: refs.map(formatReference), pushed: client !== undefined, archive: archive ?? null, ociLayout: values['oci-layout'] ?? null };
      io.stdout(renderReport(format, { ...report(findings, true), result, text: () => `Package built successfully!\ndigest: ${image.digest}\n` }, { digest: () => `${image.digest}\n` }));
      return 0;
    } finally {
      client?.close();
    }
  },
};
