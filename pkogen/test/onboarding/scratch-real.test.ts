import * as path from 'node:path';
import { mkdtempSync } from 'node:fs';
import { readDirToFileMap } from '../../src/core/fs.js';
import { ROOT } from '../helpers.js';
import { kickstartAndGenerate, renderedObjects } from './roundtrip.js';

it.each([['mcvw', '/tmp/ks-src/mcvw/config/package'], ['rmo', '/tmp/ks-src/rmo/deploy_pko']])('%s', async (name, dir) => {
  const files = await readDirToFileMap(dir);
  const tmp = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'));
  const rt = await kickstartAndGenerate([{ name, files, isDirectory: true }], path.join(tmp, name));
  console.log(rt.result.warnings.join('\n'), rt.result.relaxRules, rt.output.findings.map((f) => `${f.severity} ${f.rule} ${f.message}`).join('\n'));
  console.log([...rt.sources.keys()].join(' '), Object.keys(rt.result.definition.files ?? {}));
  console.log(rt.sources.get('phase-deploy.ts')?.slice(0, 3000));
});
it.each([['mcvw', '/tmp/ks-src/mcvw/config/package'], ['rmo', '/tmp/ks-src/rmo/deploy_pko']])('same render %s', async (name, dir) => {
  const files = await readDirToFileMap(dir);
  const tmp = mkdtempSync(path.join(ROOT, 'test', 'onboarding', '.work-'));
  const rt = await kickstartAndGenerate([{ name, files, isDirectory: true }], path.join(tmp, name));
  expect(renderedObjects(rt.pkg)).toEqual(renderedObjects(files));
});
