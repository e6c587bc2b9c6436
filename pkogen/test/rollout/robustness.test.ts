/** Line-level damage to real templates (what editing slips do) never crashes lint or simulate. */
import fc from 'fast-check';
import { readdirSync, readFileSync } from 'node:fs';
import { defaultFleet, hcpNamespaceNames } from '../../src/rollout/fleet.js';
import { lintRolloutTemplate } from '../../src/rollout/lint.js';
import { renderObjectTemplateText } from '../../src/rollout/pko-render.js';
import { rolloutSchemaValidator } from '../../src/rollout/schema.js';
import { simulateRollout } from '../../src/rollout/simulate.js';
import { REF_DIR } from './helpers.js';

const TEMPLATES = readdirSync(REF_DIR).filter((f) => /\.(ya?ml|tmpl)$/.test(f)).sort().map((f) => readFileSync(`${REF_DIR}/${f}`, 'utf8'));

function damage(text: string, ops: { line: number; op: number }[]): string {
  const lines = text.split('\n');
  for (const { line, op } of ops) {
    const i = line % lines.length;
    if (op === 0) lines.splice(i, 1);
    else if (op === 1) lines[i] = '  ' + lines[i];
    else if (op === 2) lines[i] = lines[i].replace(/^ {2}/, '');
    else if (op === 3) lines.splice(i, 0, lines[i]);
    else lines[i] = lines[i].replace(/[}{:\-"]/, '');
  }
  return lines.join('\n');
}

test('damaged templates give findings, never exceptions', () => {
  const schema = rolloutSchemaValidator();
  const fleet = defaultFleet(hcpNamespaceNames(2));
  fc.assert(
    fc.property(fc.nat(TEMPLATES.length - 1), fc.array(fc.record({ line: fc.nat(1000), op: fc.nat(4) }), { minLength: 1, maxLength: 3 }), (t, ops) => {
      const text = damage(TEMPLATES[t], ops);
      const r = lintRolloutTemplate('d.yaml', text, { schema, renderTemplate: renderObjectTemplateText });
      for (const f of r.findings) expect(typeof f.message).toBe('string');
      simulateRollout('d.yaml', text, { parameters: { REGISTRY_IMG: 'quay.io/x', OPERATOR_IMAGE: 'quay.io/y', TELEMETER_SERVER_URL: 'https://t', PACKAGE_IMAGE: 'quay.io/p', PACKAGE_TAG: 'v1' }, fleet, schema, renderTemplate: renderObjectTemplateText });
    }),
    { seed: 20261122, numRuns: 150 },
  );
});
