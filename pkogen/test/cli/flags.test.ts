/**
 * One flag vocabulary: -o/--output is a format in every command, a path has its own flag, and the
 * finding-reporting commands print every format through the one output layer.
 */
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, SHARED, tempDir } from '../helpers.js';

const tmp = tempDir('pkogen-flags-');
afterAll(() => tmp.cleanup());
const run = (args: string[]) => runCli(args, { cwd: tmp.dir, env: {} });

beforeAll(() => {
  cpSync(path.join(SHARED, 'reference/pko-packages/invalid/missing_phase_annotation'), path.join(tmp.dir, 'pkg'), { recursive: true });
  // One finding per format: the copy's image pinned by digest (PKO's own is a bare tag, image/not-pinned).
  const dep = path.join(tmp.dir, 'pkg', 'deployment.yaml');
  writeFileSync(dep, readFileSync(dep, 'utf8').replace('image: test\n', `image: test@sha256:${'0'.repeat(64)}\n`));
  cpSync(path.join(SHARED, 'reference/rollout-templates/mcvw-hs.SelectorSyncSet.yaml.tmpl'), path.join(tmp.dir, 'rollout.tmpl'));
  cpSync(path.join(SHARED, 'reference/rollout-templates/addon-operator-hs.yaml'), path.join(tmp.dir, 'addon.yaml'));
});

const MESSAGE = 'Missing package-operator.run/phase Annotation in deployment.yaml idx 0';

describe('validate -o', () => {
  it('text (and its old name human) is one located line per finding, then the summary', async () => {
    const line = `error: deployment.yaml:1 doc 0: ${MESSAGE} [pko/missing-phase-annotation]\nvalidation failed: 1 error(s), 0 warning(s)\n`;
    expect(await run(['validate', 'pkg'])).toEqual({ code: 1, stdout: line, stderr: '' });
    expect(await run(['validate', 'pkg', '--output', 'human'])).toEqual({ code: 1, stdout: line, stderr: '' });
  });

  it('github annotates the file under the package directory', async () => {
    expect(await run(['validate', 'pkg', '-o', 'github'])).toEqual({
      code: 1,
      stdout: `::error file=pkg/deployment.yaml,line=1,title=pko/missing-phase-annotation::doc 0: ${MESSAGE}\n`,
      stderr: '',
    });
  });

  it('junit has a test case per package file, the finding a failure of its file', async () => {
    expect(await run(['validate', 'pkg', '-o', 'junit'])).toEqual({
      code: 1,
      stderr: '',
      stdout: `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pkogen" tests="3" failures="1" errors="0">
  <testsuite name="pkogen validate pkg" tests="3" failures="1" errors="0" skipped="0">
    <testcase classname="pkogen.validate" name="pkg/README.md"/>
    <testcase classname="pkogen.validate" name="pkg/deployment.yaml">
      <failure message="${MESSAGE}" type="pko/missing-phase-annotation">error: deployment.yaml:1 doc 0: ${MESSAGE} [pko/missing-phase-annotation]
</failure>
    </testcase>
    <testcase classname="pkogen.validate" name="pkg/manifest.yaml"/>
  </testsuite>
</testsuites>
`,
    });
  });

  it('json is the common report shape', async () => {
    const r = await run(['validate', 'pkg', '-o', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.stdout)).toEqual({
      command: 'validate',
      subject: 'pkg',
      ok: false,
      summary: { error: 1, warning: 0, info: 0 },
      findings: [{ severity: 'error', rule: 'pko/missing-phase-annotation', message: MESSAGE, file: 'deployment.yaml', doc: 0, line: 1 }],
    });
  });
});

describe('lint-rollout -o', () => {
  it('github: info findings are notices on the Template file, exit 0', async () => {
    const r = await run(['lint-rollout', 'rollout.tmpl', '-o', 'github']);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')[0]).toBe(
      '::notice file=rollout.tmpl,line=8,title=T3::parameters[1]: IMAGE_DIGEST is computed by saasherder from REGISTRY_IMG:IMAGE_TAG: the SaaS resourceTemplate must set REGISTRY_IMG and its imagePatterns must cover it',
    );
    expect(r.stdout).toContain('title=S3::objects[0].spec.clusterDeploymentSelector: SelectorSyncSet/managed-cluster-validating-webhooks-hs-policy: consider');
  });

  it('json and text count the same findings', async () => {
    const j = JSON.parse((await run(['lint-rollout', 'rollout.tmpl', '-o', 'json'])).stdout);
    const text = (await run(['lint-rollout', 'rollout.tmpl'])).stdout;
    expect(text.endsWith(`rollout.tmpl: ${j.summary.error} error(s), ${j.summary.warning} warning(s), ${j.summary.info} info\n`)).toBe(true);
    expect(j.findings).toHaveLength(text.trimEnd().split('\n').length - 1);
  });
});

describe('simulate -o junit', () => {
  it('has the Template as one test case and each HCP namespace as one', async () => {
    const r = await run(['simulate', 'addon.yaml', '-p', 'REGISTRY_IMG=quay.io/app-sre/addon-operator-package', '--hcp-namespaces', 'ocm-staging-abc-one,ocm-staging-abc-two', '-o', 'junit']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<testsuite name="pkogen simulate addon.yaml" tests="3" failures="0" errors="0" skipped="0">\n    <testcase classname="pkogen.simulate" name="addon.yaml">\n      <system-out>info: addon.yaml:16 ');
    expect(r.stdout).toContain('    <testcase classname="pkogen.simulate" name="namespace/ocm-staging-abc-one"/>\n    <testcase classname="pkogen.simulate" name="namespace/ocm-staging-abc-two"/>\n  </testsuite>\n');
  });
});

describe('a path given to -o is a usage error naming the flag that takes it', () => {
  it.each([
    [['build', 'pkg', '-t', 'example.com/x:1', '-o', 'x.tar'], 'pkogen: build: -o takes a format (text, json, digest); to write the archive use --output-file x.tar\n'],
    [['render', 'pkg', '--test-case', 't', '-o', '/tmp/out'], 'pkogen: render: -o takes a format (yaml); to write the files use --output-dir /tmp/out\n'],
    [['import', 'crds/', '-o', 'resources/imports'], 'pkogen: import: -o takes a format (text); to write the modules use --output-dir resources/imports\n'],
    [['kickstart', 'deploy/', '--output', 'resources'], 'pkogen: kickstart: -o takes a format (text); to write the TypeScript use --output-dir resources\n'],
    [['build', 'pkg', '--output-format', 'human'], 'pkogen: build: --output-format is now -o (text, json, digest): -o text\n'],
    [['lint-rollout', 'rollout.tmpl', '-o', 'sarif'], 'pkogen: lint-rollout: -o takes a format (text, json, github, junit, tap), got "sarif"\n'],
    [['diff', 'a', 'b', '-o', 'junit'], 'pkogen: diff: -o takes a format (text, json), got "junit"\n'],
  ])('%j', async (args, stderr) => {
    expect(await run(args)).toEqual({ code: 2, stdout: '', stderr });
  });
});

describe('build -o', () => {
  it('json reports the digest, tags and what was written; digest is the digest alone', async () => {
    const pkg = path.join(SHARED, 'reference/pko-packages/test-stub');
    const j = await run(['build', pkg, '-t', 'example.com/x:1', '--output-file', 'x.tar', '-o', 'json']);
    expect(j.code).toBe(0);
    const report = JSON.parse(j.stdout);
    expect(report).toMatchObject({ command: 'build', subject: pkg, ok: true, archive: 'x.tar', ociLayout: null, pushed: false, tags: ['example.com/x:1'], summary: { error: 0 } });
    const d = await run(['build', pkg, '-o', 'digest']);
    expect(d.stdout).toBe(`${report.digest}\n`);
  });
});

describe('generate and verify', () => {
  beforeAll(() => {
    mkdirSync(path.join(tmp.dir, 'r'));
    writeFileSync(path.join(tmp.dir, 'bundle.mjs'), "export default () => ({ directories: {}, files: { 'out.txt': new TextEncoder().encode('hello\\n') }, findings: [] });\n");
  });

  it('verify names the generate command that brings the files up to date, in every format', async () => {
    expect(await run(['generate', 'bundle.mjs', '--root', 'r', '-o', 'json'])).toMatchObject({ code: 0, stdout: expect.stringContaining('"written": [\n    "out.txt"\n  ]') });
    expect(await run(['verify', 'bundle.mjs', '--root', 'r'])).toEqual({ code: 0, stdout: 'generated files are up to date\n', stderr: '' });
    writeFileSync(path.join(tmp.dir, 'r', 'out.txt'), 'edited\n');
    const text = await run(['verify', 'bundle.mjs', '--root', 'r']);
    expect(text.code).toBe(1);
    expect(text.stderr).toMatch(/^drift: out.txt: differs from the generated file\ngenerated files are out of date: run 'pkogen generate bundle.mjs --root r' and commit the result\n/);
    expect(text.stderr).not.toContain('make package');
    const gh = await run(['verify', 'bundle.mjs', '--root', 'r', '-o', 'github']);
    expect(gh).toEqual({
      code: 1,
      stdout: "::error file=r/out.txt,title=pkogen/drift::differs from the generated file; run 'pkogen generate bundle.mjs --root r'\n",
      stderr: "generated files are out of date: run 'pkogen generate bundle.mjs --root r' and commit the result\n",
    });
  });
});
