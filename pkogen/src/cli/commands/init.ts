import { promises as fsp } from 'node:fs';
import * as path from 'node:path';
import { UsageError, UserError } from '../../core/errors.js';
import { readDirToFileMap, writeFileAtomic, writeFileMapAtomic } from '../../core/fs.js';
import { rfc3339 } from '../../pko/lockfile.js';
import { pkogenOrigin } from '../../scaffold/dependency.js';
import { checkInitOptions, InitOptionError, type InitOptions, isExecutable, LOCK_PATH, NAME_RE, NAME_RULE, placeholderImage, renderScaffold } from '../../scaffold/init.js';
import { parseCommandArgs } from '../args.js';
import { type CliIO, type Command, PromptEnded } from '../io.js';
import { pkogenRoot, pkogenVersion } from '../package-root.js';
import { checkOutputDir } from '../sources.js';

const HELP = `Usage: pkogen init [DIR] [--name NAME] [--scope Namespaced|Cluster] [--hypershift | --classic]
                  [--image-in config|images] [--image REF] [--pkogen SPEC] [--force]

Scaffolds a package repository in DIR (default: the current directory): package.json depending
on pkogen, resources/resources.ts with one example object per phase, Makefile (package, verify,
test, build-package-image, push-package-image), Containerfile, scripts/build_deploy.sh, .ci/run
and a README. Then: npm install && make package && make test.

Values not given as flags are asked for when a terminal is attached; otherwise defaults apply.

Options:
  --name NAME          package name, a DNS label (default: DIR's name; without a terminal, init
                       refuses a DIR whose name is not one instead of renaming it)
  --hypershift         a package in each hosted control plane namespace, with a hosted-cluster
                       phase and the rollout Template (default)
  --classic            an ordinary package (no HyperShift)
  --scope SCOPE        Namespaced (default; required for HyperShift) or Cluster
  --image-in WHERE     config: the image is a config value (default); images: spec.images
  --image REF          the example workload's image (default: a digest-pinned placeholder,
                       quay.io/example/NAME@sha256:0…0); with --image-in images and a digest,
                       package/manifest.lock.yaml is written too, else run pkogen update package
  --pkogen SPEC        package.json's dependency on pkogen (default: the pkogen running this:
                       ^VERSION when installed from a registry, file:TARBALL when installed from
                       a tarball, file:DIR when run from a checkout)
  --force              write into a non-empty DIR (replacing files of the same name)
`;

async function ask(io: CliIO, question: string, fallback: string, accept: (v: string) => boolean): Promise<string> {
  if (!io.prompt) return fallback;
  for (let i = 0; i < 3; i++) {
    let answer: string;
    try {
      answer = await io.prompt(`${question} [${fallback}]: `);
    } catch (e) {
      if (e instanceof PromptEnded) throw new UsageError(`init: input ended before an answer to "${question}" (nothing was written)`);
      throw e;
    }
    const v = answer || fallback;
    if (accept(v)) return v;
    io.stderr(`  not valid: ${JSON.stringify(v)}\n`);
  }
  throw new UsageError(`init: no valid answer to "${question}"`);
}

export const command: Command = {
  name: 'init',
  summary: 'Scaffold a new package repository (bundle module, Makefile, CI scripts)',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'init',
      args,
      {
        name: { type: 'string' },
        scope: { type: 'string' },
        hypershift: { type: 'boolean' },
        classic: { type: 'boolean' },
        'image-in': { type: 'string' },
        image: { type: 'string' },
        pkogen: { type: 'string' },
        force: { type: 'boolean' },
      },
      { min: 0, max: 1, names: 'DIR' },
    );
    if (values.hypershift && values.classic) throw new UsageError('init: --hypershift and --classic exclude each other');
    const dirShown = positionals[0] ?? '.';
    const dir = path.resolve(io.cwd, dirShown);
    await checkOutputDir(dir, dirShown, values.force === true);

    const flag = <T extends string>(v: unknown, allowed: readonly T[], name: string): T | undefined => {
      if (v === undefined) return undefined;
      if (!allowed.includes(v as T)) throw new UsageError(`init: ${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
      return v as T;
    };
    const base = path.basename(dir);
    const defaultName = base.toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 53).replace(/-+$/, '') || 'my-package';
    // Without a terminal the name is never made up: DIR's name is the package name, or init refuses.
    if (values.name === undefined && !io.prompt && !(NAME_RE.test(base) && base.length <= 53)) {
      throw new UsageError(`init: the package name would be DIR's name ${JSON.stringify(base)}, which is not ${NAME_RULE}; pass --name NAME (for example --name ${defaultName})`);
    }
    // On a terminal the suggested name is only the prompt's default, and said so: never a silent rename.
    if (values.name === undefined && io.prompt && !(NAME_RE.test(base) && base.length <= 53)) {
      io.stderr(`DIR's name ${JSON.stringify(base)} is not ${NAME_RULE}; suggested package name: ${defaultName}\n`);
    }
    const name = (values.name as string | undefined) ?? (await ask(io, 'Package name', defaultName, (v) => NAME_RE.test(v)));
    const hypershift = values.hypershift ? true : values.classic ? false : (await ask(io, 'HyperShift package (hcp namespace + hosted-cluster phase)? yes/no', 'yes', (v) => /^(y|yes|n|no)$/i.test(v))).toLowerCase().startsWith('y');
    const scope = flag(values.scope, ['Namespaced', 'Cluster'] as const, '--scope') ?? (hypershift ? 'Namespaced' : ((await ask(io, 'Scope: Namespaced or Cluster', 'Namespaced', (v) => v === 'Namespaced' || v === 'Cluster')) as 'Namespaced' | 'Cluster'));
    const imageIn = flag(values['image-in'], ['config', 'images'] as const, '--image-in') ?? ((await ask(io, 'Image in the package config or in spec.images? config/images', 'config', (v) => v === 'config' || v === 'images')) as 'config' | 'images');
    const image = (values.image as string | undefined) ?? (await ask(io, 'Image of the example workload', placeholderImage(name), (v) => v.length > 0));
    const pkogenSpec = (values.pkogen as string | undefined) ?? pkogenOrigin(pkogenRoot(), pkogenVersion()).spec;
    if (pkogenSpec === '') throw new UsageError('init: --pkogen must not be empty');
    const opts: InitOptions = { name, scope, hypershift, imageIn, image, pkogenSpec, lockTimestamp: rfc3339(new Date()) };
    try {
      checkInitOptions(opts);
    } catch (e) {
      if (e instanceof InitOptionError) throw new UsageError(`init: ${e.message}`);
      throw e;
    }

    const templates = await readDirToFileMap(path.join(pkogenRoot(), 'templates', 'init'), { skipDotFiles: false });
    if (templates.size === 0) throw new UserError('pkogen is installed without its templates', { file: path.join(pkogenRoot(), 'templates', 'init') });
    const files = renderScaffold(templates, opts);
    let exists = true;
    try {
      await fsp.stat(dir);
    } catch {
      exists = false;
    }
    // A new directory appears in one step (temp + rename). An existing one (empty, or with --force)
    // is never swapped out, because it may be the shell's working directory or hold a .git: each
    // file is written atomically instead.
    if (exists) for (const [p, b] of files) writeFileAtomic(path.join(dir, p), b, isExecutable(p) ? 0o755 : 0o644);
    else {
      await writeFileMapAtomic(dir, files);
      for (const p of files.keys()) if (isExecutable(p)) await fsp.chmod(path.join(dir, p), 0o755);
    }
    const lockNote = imageIn === 'images' && !files.has(LOCK_PATH) ? `; then pkogen update package (resolves ${image}'s digest into package/${'manifest.lock.yaml'})` : '';
    io.stdout(`created ${files.size} files in ${dirShown}/ for package ${name} (${hypershift ? 'HyperShift' : 'classic'}, ${scope}, image in ${imageIn === 'config' ? 'config' : 'spec.images'}; pkogen ${pkogenSpec})\nnext: cd ${dirShown} && npm install && make package && make test${lockNote}\n`);
    return 0;
  },
};
