import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { promises as fsp } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { UsageError, UserError } from '../../core/errors.js';
import type { FileMap } from '../../core/filemap.js';
import { readDirToFileMap } from '../../core/fs.js';
import { parseYaml11, YamlParseError } from '../../yaml/parse.js';
import { loadPackage } from '../../pko/loader.js';
import { renderPackage, type RenderRequest, type RenderResult } from '../../pko/render.js';
import { toUserError } from '../../pko/render-errors.js';
import { testCaseRequest } from '../../pko/template-tests.js';
import { configValuesOf, redactValues } from '../../pko/redact.js';
import type { LoadedPackage } from '../../pko/types.js';
import { type DiffResult, diffRenders, formatDiffText } from '../../status/diff.js';
import { parseCommandArgs } from '../args.js';
import type { CliIO, Command } from '../io.js';
import { registryOptions } from '../registry-options.js';
import { outputFormat, renderReport } from '../output.js';

const HELP = `Usage: pkogen diff OLD NEW [--test-case NAME | --config FILE] [--namespace NS] [--text] [-o text|json] [--kubeconfig FILE] [--context C] [--insecure]

Renders two versions of a package like PKO and shows what a rollout from OLD to NEW changes:
per object (matched by group, kind, namespace and name) the fields that change, compared as
objects like dyff does (key order, scalar style, indentation and null values such as a defaulted
creationTimestamp: null are no change; lists of named items are matched by name), and a verdict
per change:
  removed          the object is gone from NEW: PKO deletes it
  added            a new object
  phase-changed    the object (or the manifest's phase list) moved: ordering changes
  immutable-field  a field the API server refuses to update (Deployment/StatefulSet/Job selector,
                   Job template, Service clusterIP, PVC spec, RoleBinding roleRef…): the rollout fails
  required-config  a config key is newly required without default: existing Packages become Invalid
  images-changed   container images or spec.images differ
  changed          any other update, applied in place

Each side is one of:
  DIR               a package directory
  git:REF[:PATH]    a commit of the repository in the current directory (PATH defaults to "package")
  live:NS/NAME      what a cluster runs: the Package's image and admitted config (kubeconfig as in 'status')
  REF               a package image reference (pulled)

Options:
  --test-case NAME  render both sides with only this test.template case (default: every case
                    of NEW, or of OLD when NEW has none); each case's context (config, package,
                    environment) is NEW's, the same on both sides
  --config FILE     render both sides with this config (YAML) instead
  --namespace NS    Package namespace with --config (default: hcp-example)
  --text            compare the rendered text and show a unified diff per object (the old output)
  -o, --output F    text (default) or json (the common report; README "Output formats")

Exit codes: 0 no difference, 1 differences or bad input, 2 usage error.
`;

interface Side {
  label: string;
  pkg: LoadedPackage;
  /** The config a live Package runs with (replaces --config/test case for that side). */
  liveConfig?: Record<string, unknown>;
  liveNamespace?: string;
}

const MAX_GIT_BYTES = 256 << 20;

/** `git archive REF PATH` extracted into a temp dir; the repository is the one around `cwd`. */
async function gitSide(spec: string, cwd: string): Promise<FileMap> {
  const rest = spec.slice('git:'.length);
  const i = rest.indexOf(':');
  const ref = i < 0 ? rest : rest.slice(0, i);
  const sub = i < 0 ? 'package' : rest.slice(i + 1).replace(/\/+$/, '') || '.';
  if (!ref || ref.startsWith('-')) throw new UsageError(`diff: bad git reference in ${JSON.stringify(spec)}`);
  const ar = spawnSync('git', ['archive', '--format=tar', ref, '--', sub], { cwd, maxBuffer: MAX_GIT_BYTES, encoding: 'buffer' });
  if (ar.error) throw new UserError(`git:${ref}: cannot run git: ${ar.error.message}`);
  if (ar.status !== 0) throw new UserError(`git:${ref}:${sub}: ${ar.stderr.toString('utf8').trim().split('\n')[0] || 'git archive failed'}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'pkogen-diff-'));
  try {
    const tr = spawnSync('tar', ['-x', '-C', tmp], { input: ar.stdout, maxBuffer: 1 << 20 });
    if (tr.status !== 0) throw new UserError(`git:${ref}:${sub}: cannot extract: ${tr.stderr?.toString('utf8').trim().split('\n')[0]}`);
    return await readDirToFileMap(path.join(tmp, sub));
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function load(fm: FileMap, label: string): LoadedPackage {
  try {
    return loadPackage(fm);
  } catch (e) {
    const ue = toUserError(e);
    throw new UserError(`${label}: ${ue.describe()}`);
  }
}

async function openSide(spec: string, io: CliIO, kube: { kubeconfig?: string; context?: string; insecure: boolean }): Promise<Side> {
  if (spec.startsWith('git:')) return { label: spec, pkg: load(await gitSide(spec, io.cwd), spec) };
  if (spec.startsWith('live:')) {
    const m = /^live:([a-z0-9][a-z0-9.-]*)\/([a-z0-9][a-z0-9.-]*)$/.exec(spec);
    if (!m) throw new UsageError(`diff: ${JSON.stringify(spec)} must be live:NS/NAME`);
    const { connect, PKO } = await import('../../kube/client.js');
    const { ANN_CONFIG, ANN_SOURCE_IMAGE } = await import('../../status/model.js');
    const k = await connect({ kubeconfig: kube.kubeconfig, context: kube.context, env: io.env });
    const pkg = await k.get(PKO.packages, m[2], m[1]);
    if (!pkg) throw new UserError(`${spec}: Package ${m[1]}/${m[2]} not found at ${k.server}`);
    const od = await k.get(PKO.objectDeployments, m[2], m[1]);
    const image = od?.metadata.annotations?.[ANN_SOURCE_IMAGE] ?? String((pkg.spec as { image?: unknown }).image ?? '');
    let config = ((pkg.spec as { config?: unknown }).config as Record<string, unknown> | undefined) ?? {};
    try {
      const v = JSON.parse(od?.metadata.annotations?.[ANN_CONFIG] ?? 'null');
      if (v && typeof v === 'object' && !Array.isArray(v)) config = v;
    } catch {
      // Not JSON: spec.config stays.
    }
    return { label: spec, pkg: load(await imageFiles(image, io, kube.insecure), spec), liveConfig: config, liveNamespace: m[1] };
  }
  const dir = path.resolve(io.cwd, spec);
  if (existsSync(dir)) return { label: spec, pkg: load(await readDirToFileMap(dir), spec) };
  if (/^[a-z0-9.-]+(:[0-9]+)?\/[^\s]+$/.test(spec)) return { label: spec, pkg: load(await imageFiles(spec, io, kube.insecure), spec) };
  throw new UserError(`${spec}: no such directory, and not an image reference, git:REF[:PATH] or live:NS/NAME`);
}

async function imageFiles(ref: string, io: CliIO, insecure: boolean): Promise<FileMap> {
  const { pullImage } = await import('../../oci/sources.js');
  const { packageFilesFromImage } = await import('../../pko/package-image.js');
  const img = await pullImage(ref, registryOptions(io, insecure));
  try {
    return packageFilesFromImage(img).files;
  } catch (e) {
    throw toUserError(e);
  }
}

/** The test case a diff renders both sides with: NEW's (or OLD's when NEW has none by that name). */
function findCase(sides: LoadedPackage[], name: string) {
  for (const p of sides) {
    const tc = (p.manifest.test?.template ?? []).find((t) => t.name === name);
    if (tc) return tc;
  }
  return undefined;
}

function renderSide(side: Side, how: { config?: Record<string, unknown>; namespace: string }, caseName: string | undefined, contextFrom: LoadedPackage[], configs: unknown[]): RenderResult {
  const pkg = side.pkg;
  let req: RenderRequest;
  if (caseName !== undefined && !side.liveConfig && !how.config) {
    // The same context on both sides: a diff shows what the package changes, not what the test
    // case's config changes.
    const tc = findCase([...contextFrom, pkg], caseName);
    if (!tc) throw new UserError(`${side.label}: no test case ${JSON.stringify(caseName)} in test.template`, { file: 'manifest.yaml' });
    req = testCaseRequest(pkg, tc);
  } else {
    const ns = side.liveNamespace ?? how.namespace;
    req = { manifest: pkg.manifest, lock: pkg.manifestLock, files: pkg.files, package: { metadata: { name: pkg.manifest.metadata.name ?? '', namespace: ns } }, config: side.liveConfig ?? how.config ?? {}, environment: null, rejectInvalidConfig: true };
  }
  // Every config a side renders with: its values never reach the output (as in validate's findings).
  configs.push(req.config);
  try {
    return renderPackage(req);
  } catch (e) {
    // Without a test case or --config the package renders with {}: say what would give it a config.
    const hint = caseName === undefined && !how.config && !side.liveConfig ? ' (the package has no test case to render with: give its config with --config FILE)' : '';
    throw new UserError(`${side.label}${caseName !== undefined ? ` (test case ${JSON.stringify(caseName)})` : ''}: ${toUserError(e).describe()}${hint}`);
  }
}

/** Test cases to compare: the one asked for, or every case of NEW (of OLD when NEW has none). */
function caseNames(oldSide: Side, newSide: Side, asked: string | undefined, config: unknown): (string | undefined)[] {
  if (config !== undefined || oldSide.liveConfig || newSide.liveConfig) return [undefined];
  if (asked !== undefined) return [asked];
  for (const s of [newSide, oldSide]) {
    const names = (s.pkg.manifest.test?.template ?? []).map((t) => t.name);
    if (names.length) return names;
  }
  return [undefined];
}

/** Per-case results merged: package verdicts once, objects tagged with their case when there are several. */
function mergeCases(results: { testCase?: string; d: DiffResult }[]): DiffResult & { testCases: string[] } {
  const several = results.length > 1;
  const seen = new Set<string>();
  const pkg = results.flatMap((r) => r.d.package).filter((v) => {
    const k = `${v.class}\n${v.message}`;
    return seen.has(k) ? false : (seen.add(k), true);
  });
  return {
    testCases: results.flatMap((r) => (r.testCase !== undefined ? [r.testCase] : [])),
    package: pkg,
    objects: results.flatMap((r) => r.d.objects.map((o) => (several && r.testCase !== undefined ? { ...o, testCase: r.testCase } : o))),
  };
}

/**
 * The changes with the config's values (as validate's findings) replaced by the marker: in each
 * change line only what follows `path: ` (keys and paths stay readable), in object verdicts the
 * whole message. Package verdicts come from the manifests, not the config.
 */
function redactChanges(d: DiffResult, values: readonly string[]): DiffResult {
  if (!values.length) return d;
  const line = (l: string) => {
    const m = /^(\s*[~+-]\s*[^:\s][^:]*: )(.*)$/.exec(l);
    return m ? m[1] + redactValues(m[2], values) : redactValues(l, values);
  };
  return {
    package: d.package,
    objects: d.objects.map((o) => ({ ...o, verdicts: o.verdicts.map((v) => ({ ...v, message: redactValues(v.message, values) })), diff: o.diff.split('\n').map(line).join('\n') })),
  };
}

/** Text per test case (a heading each when there are several), then one summary line. Package verdicts (from the manifests) once, on top. */
function formatCases(results: { testCase?: string; d: DiffResult }[]): string {
  if (results.length === 1) return formatDiffText(results[0].d);
  const seen = new Set<string>();
  const pkg = results.flatMap((r) => r.d.package).filter((v) => (seen.has(v.message) ? false : (seen.add(v.message), true)));
  let out = pkg.map((v) => `package: ${v.class}: ${v.message}\n`).join('') + (pkg.length ? '\n' : '');
  const all: DiffResult['objects'] = [];
  let changed = 0;
  for (const r of results) {
    if (r.d.objects.length === 0) {
      out += `test case ${JSON.stringify(r.testCase)}: no difference\n`;
      continue;
    }
    changed++;
    all.push(...r.d.objects);
    // formatDiffText's own last line is its summary: one summary for all cases follows.
    const body = formatDiffText({ package: [], objects: r.d.objects }).trimEnd().split('\n').slice(0, -1).join('\n').trimEnd() + '\n';
    out += `test case ${JSON.stringify(r.testCase)}:\n${body}\n`;
  }
  if (changed === 0 && pkg.length === 0) return `no difference in rendered objects (${results.length} test cases)\n`;
  const n = (c: string) => all.filter((o) => o.change === c).length;
  return out + `${all.length} object(s) differ: ${n('added')} added, ${n('removed')} removed, ${n('changed')} changed, in ${changed} of ${results.length} test cases${pkg.length ? `; ${pkg.length} package change(s)` : ''}\n`;
}

export const command: Command = {
  name: 'diff',
  summary: 'Render two versions of a package and show what a rollout changes, with a verdict per change',
  help: HELP,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(
      'diff',
      args,
      {
        'test-case': { type: 'string' },
        config: { type: 'string' },
        namespace: { type: 'string' },
        output: { type: 'string', short: 'o' },
        kubeconfig: { type: 'string' },
        context: { type: 'string' },
        insecure: { type: 'boolean' },
        text: { type: 'boolean' },
      },
      { min: 2, max: 2, names: 'OLD and NEW' },
    );
    const output = outputFormat({ command: 'diff', formats: ['text', 'json'] }, values.output);
    if (values['test-case'] !== undefined && values.config !== undefined) throw new UsageError('diff: give --test-case or --config, not both');
    let config: Record<string, unknown> | undefined;
    if (values.config !== undefined) {
      let text: string;
      try {
        text = await fsp.readFile(path.resolve(io.cwd, values.config), 'utf8');
      } catch {
        throw new UserError('cannot read file', { file: values.config });
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
    const kube = { kubeconfig: values.kubeconfig, context: values.context, insecure: values.insecure === true };
    const oldSide = await openSide(positionals[0], io, kube);
    const newSide = await openSide(positionals[1], io, kube);
    const how = { config, namespace: values.namespace ?? 'hcp-example' };
    const mode = values.text ? 'text' : 'semantic';
    const configs: unknown[] = [];
    const results = caseNames(oldSide, newSide, values['test-case'], config).map((testCase) => {
      const oldR = renderSide(oldSide, how, testCase, [newSide.pkg], configs);
      const newR = renderSide(newSide, how, testCase, [newSide.pkg, oldSide.pkg], configs);
      return { testCase, d: diffRenders(oldR, newR, oldSide.pkg.manifest, newSide.pkg.manifest, { old: 'OLD', new: 'NEW' }, mode) };
    });
    // Compared as rendered (a change between two config values is still a change), shown without them.
    const configValues = configs.flatMap((c) => configValuesOf(c));
    for (const r of results) r.d = redactChanges(r.d, configValues);
    const d = mergeCases(results);
    const same = d.objects.length === 0 && d.package.length === 0;
    // A change is not a finding: the verdicts are the result (findings stay empty).
    io.stdout(renderReport(output, {
      command: 'diff',
      subject: `${oldSide.label} → ${newSide.label}`,
      findings: [],
      ok: same,
      result: { old: oldSide.label, new: newSide.label, ...d },
      text: () => formatCases(results),
    }));
    return same ? 0 : 1;
  },
};
