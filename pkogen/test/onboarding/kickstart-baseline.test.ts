import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { baselineMakefile, baselineOf } from '../../src/kickstart/baseline.js';
import { ROOT, runCli } from '../helpers.js';

// The scaffold's resources.ts runs through jest's TypeScript transform, which only treats files
// inside the project as ES modules: so the scratch directory lives in test/onboarding/.
const tmp = { dir: '' };
beforeAll(() => (tmp.dir = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'))));
afterAll(() => rmSync(tmp.dir, { recursive: true, force: true }));

/** A PKO package whose only flaw under --strict is a Job without activeDeadlineSeconds. */
function writeSource(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    path.join(dir, 'manifest.yaml'),
    `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: jobby
spec:
  scopes: [Namespaced]
  phases:
    - name: cleanup
`,
  );
  writeFileSync(
    path.join(dir, 'job.yaml.gotmpl'),
    `apiVersion: batch/v1
kind: Job
metadata:
  name: cleanup-{{ .package.metadata.name }}
  annotations:
    package-operator.run/phase: cleanup
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: quay.io/example/c@sha256:${'a'.repeat(64)}
`,
  );
}

/** The validate command line `make test` runs, as make expands it (dry run). */
function makeTestCommand(dir: string): string[] {
  const r = spawnSync('make', ['-n', 'test', 'PKOGEN=pkogen'], { cwd: dir, encoding: 'utf8' });
  expect(r.status).toBe(0);
  const line = r.stdout.split('\n').find((l) => l.startsWith('pkogen validate '));
  expect(line).toBeDefined();
  return line!.split(/\s+/).slice(1);
}

describe('kickstart baselines the findings the original already has', () => {
  it('records the rule, notes it, and make test passes; without the baseline it fails', async () => {
    const src = path.join(tmp.dir, 'src');
    writeSource(src);
    const orig = await runCli(['validate', src, '--strict']);
    expect(orig.stdout).toContain('[revision/job-no-deadline]');

    const dir = path.join(tmp.dir, 'scaffold');
    const init = await runCli(['init', dir, '--name', 'jobby', '--classic', '--pkogen', '^0.1.0']);
    expect(init.code).toBe(0);
    const ks = await runCli(['kickstart', src, '--output-dir', 'resources', '--force'], { cwd: dir });
    expect(ks.code).toBe(0);
    const notes = ks.stderr.split('\n').filter((l) => l.startsWith('note: baselined '));
    expect(notes).toEqual([expect.stringMatching(/^note: baselined \[revision\/job-no-deadline\] package\/job\.yaml.*spec: .*resources\/validate-baseline\.mk.*fix and remove$/)]);
    const mk = readFileSync(path.join(dir, 'resources', 'validate-baseline.mk'), 'utf8');
    expect(mk).toMatch(/^# {3}\[revision\/job-no-deadline\] package\/job\.yaml/m);
    expect(mk).toMatch(/Fix and remove/);
    expect(mk).toMatch(/^VALIDATE_SKIP \+= revision\/job-no-deadline$/m);

    // make package (in-process), then the exact validate command make test runs.
    const gen = await runCli(['generate', 'resources/resources.ts'], { cwd: dir });
    expect(gen.code).toBe(0);
    // The objects are unchanged: still no activeDeadlineSeconds.
    expect(readFileSync(path.join(dir, 'package', 'job.yaml.gotmpl'), 'utf8')).not.toContain('activeDeadlineSeconds');
    const cmd = makeTestCommand(dir);
    expect(cmd).toEqual(['validate', 'package', '--strict', '--skip', 'revision/job-no-deadline']);
    const withBaseline = await runCli(cmd, { cwd: dir });
    expect(withBaseline.stdout).toContain('Package validated successfully!');
    expect(withBaseline.code).toBe(0);

    // Remove the baseline: make test runs plain --strict and fails on the finding.
    rmSync(path.join(dir, 'resources', 'validate-baseline.mk'));
    const plain = makeTestCommand(dir);
    expect(plain).toEqual(['validate', 'package', '--strict']);
    const without = await runCli(plain, { cwd: dir });
    expect(without.stdout).toContain('[revision/job-no-deadline]');
    expect(without.code).toBe(1);
  });

  it('writes no baseline for a package without findings', async () => {
    const src = path.join(tmp.dir, 'clean');
    writeSource(src);
    const job = path.join(src, 'job.yaml.gotmpl');
    writeFileSync(job, readFileSync(job, 'utf8').replace('spec:\n  template:', 'spec:\n  activeDeadlineSeconds: 600\n  template:'));
    const out = path.join(tmp.dir, 'clean-out');
    const ks = await runCli(['kickstart', src, '--output-dir', out]);
    expect(ks.code).toBe(0);
    expect(ks.stderr).not.toContain('baselined');
    expect(existsSync(path.join(out, 'validate-baseline.mk'))).toBe(false);
  });

  it('never baselines errors or PKO rules, nor warnings --strict does not fail on', () => {
    const b = baselineOf([
      { severity: 'error', rule: 'image-digest', message: 'm', file: 'a.yaml' },
      { severity: 'warning', rule: 'pko/x', message: 'm' },
      { severity: 'info', rule: 'i', message: 'm' },
      { severity: 'warning', rule: 'revision/job-no-deadline', message: 'secret-ish', file: 'j.yaml', object: 'Job/x' },
    ]);
    expect(b.rules).toEqual(['revision/job-no-deadline']);
    const mk = baselineMakefile(b, 'src');
    expect(mk).toContain('#   [revision/job-no-deadline] package/j.yaml: Job/x');
    expect(mk).not.toContain('secret-ish');
    expect(mk).not.toContain('image-digest');
  });
});
