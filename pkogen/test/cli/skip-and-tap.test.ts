/**
 * Issue 23 item 9: ignoring one rule by id (`--skip RULE`, the one mechanism) and `-o tap`, on
 * the commands that report findings.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { runCli, tempDir } from '../helpers.js';

const tmp = tempDir('pkogen-skip-');
afterAll(() => tmp.cleanup());
const pkg = path.join(tmp.dir, 'pkg');
beforeAll(() => {
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: skipme\nspec:\n  scopes: [Namespaced]\n  phases: [{name: deploy}]\n');
  writeFileSync(path.join(pkg, 'cm.yaml'), 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n  annotations:\n    package-operator.run/phase: deploy\n    package-operator.run/collision-protection: Nope\ndata: {a: b}\n');
});

describe('--skip RULE', () => {
  it('drops that rule\'s findings before the exit code is decided', async () => {
    const r = await runCli(['validate', pkg]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/\[collision-protection\]/);
    const skipped = await runCli(['validate', pkg, '--skip', 'collision-protection']);
    expect(skipped).toEqual({ code: 0, stdout: 'Package validated successfully!\n', stderr: '' });
    // Another rule's id leaves the finding.
    expect((await runCli(['validate', pkg, '--skip', 'image-digest'])).code).toBe(1);
  });

  it('refuses PKO\'s own rules and malformed ids (usage errors, exit 2)', async () => {
    const pko = await runCli(['validate', pkg, '--skip', 'pko/manifest-invalid']);
    expect(pko).toEqual({ code: 2, stdout: '', stderr: expect.stringContaining("validate: --skip pko/manifest-invalid: PKO's own rules cannot be skipped") });
    expect((await runCli(['validate', pkg, '--skip', '[collision-protection]'])).code).toBe(2);
    expect((await runCli(['lint-rollout', 'x.yaml', '--skip', 'pko/x'])).code).toBe(2);
    expect((await runCli(['simulate', 'x.yaml', '--hcp-namespaces', '1', '--skip', 'pko/x'])).code).toBe(2);
  });
});

describe('-o tap', () => {
  it('validate prints TAP 13: one point per file, the failing one `not ok` with its finding', async () => {
    const r = await runCli(['validate', pkg, '-o', 'tap']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^TAP version 13\n1\.\.2\n/);
    expect(r.stdout).toMatch(new RegExp(`^not ok \\d+ - ${pkg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/cm\\.yaml$`, 'm'));
    expect(r.stdout).toMatch(/^ {6}rule: "collision-protection"$/m);
    expect(r.stdout).toMatch(/^ok \d+ - .*manifest\.yaml$/m);
    const ok = await runCli(['validate', pkg, '-o', 'tap', '--skip', 'collision-protection']);
    expect(ok.code).toBe(0);
    expect(ok.stdout).not.toMatch(/not ok/);
  });
});
