/** A Template parameter whose `generate: expression` asks for a gigabyte value is refused at once, located. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import { generateFromExpression, MAX_GENERATED_CHARS } from '../../src/rollout/process.js';

const TEMPLATE = (from: string) => `apiVersion: template.openshift.io/v1
kind: Template
metadata:
  name: t
parameters:
- name: SECRET
  generate: expression
  from: "${from}"
objects:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: x
  data:
    v: \${SECRET}
`;

describe('generate: expression', () => {
  it('keeps working for ordinary sizes, up to the limit', () => {
    expect(generateFromExpression('[a-z]{16}', 's')).toMatch(/^[a-z]{16}$/);
    expect(generateFromExpression(`x{${MAX_GENERATED_CHARS}}`, 's')).toHaveLength(MAX_GENERATED_CHARS);
  });

  it.each(['[a-z]{999999999}', `[a-z]{${MAX_GENERATED_CHARS}}[0-9]{1}`])('refuses %s before producing it', (from) => {
    expect(() => generateFromExpression(from, 's')).toThrow(`would produce more than ${MAX_GENERATED_CHARS} characters`);
  });

  it('lint-rollout names the parameter field and exits 1 (no crash, no gigabytes)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-genexpr-'));
    try {
      writeFileSync(path.join(dir, 't.yaml'), TEMPLATE('[a-z]{999999999}'));
      let out = '';
      let err = '';
      const code = await main(['lint-rollout', 't.yaml'], { stdout: (t) => (out += t), stderr: (t) => (err += t), env: { PATH: process.env.PATH }, cwd: dir });
      expect(code).toBe(1);
      expect(out + err).toMatch(/t\.yaml.*parameters\[0\]\.from.*would produce more than 65536 characters/);
      expect(out + err).not.toMatch(/internal error|\n\s+at /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
