/** validate's checks as listed data: PKO's validators in PKO's order, ours separate and skipped with pkoOnly. */
import { readFileSync } from 'node:fs';
import { readDirToFileMap } from '../../src/core/fs.js';
import { toBytes, toText } from '../../src/core/filemap.js';
import { BEYOND_PKO_VALIDATORS, PKO_VALIDATORS, validatePackage } from '../../src/pko/validate.js';
import { OBJECT_CHECKS } from '../../src/pko/checks/index.js';

const NGINX = '../../shared/reference/pko-packages/nginx';
const DOC = readFileSync('docs/validate.md', 'utf8');

async function nginxWithBeyondPkoProblems() {
  const fm = await readDirToFileMap(NGINX);
  // A misspelt manifest key (manifest/unknown-key) and a Job with a TTL (revision/job-ttl).
  fm.set('manifest.yaml', toBytes(toText(fm.get('manifest.yaml')!).replace('  phases:\n', '  phase: []\n  phases:\n')));
  fm.set('job.yaml', toBytes('apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: j\n  annotations:\n    package-operator.run/phase: deploy\nspec:\n  ttlSecondsAfterFinished: 60\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: c\n        image: quay.io/x/y@sha256:' + '0'.repeat(64) + '\n'));
  return fm;
}

describe('validator lists', () => {
  test("PKO's validators run in PKO's order (DefaultPackageValidators, then TemplateTestValidator)", () => {
    expect(PKO_VALIDATORS.map((v) => v.id)).toEqual(['PackageManifestValidator', 'LockfileConsistencyValidator', 'PackageStaticFilesWithoutTestCasesValidator', 'TemplateTestValidator']);
    for (const v of PKO_VALIDATORS) expect(v.docs).toMatch(/internal\/packages\/internal\/packagevalidation\/[a-z]+\.go/);
  });

  test('ids are unique and docs/validate.md names every validator and object check', () => {
    const ids = [...PKO_VALIDATORS, ...BEYOND_PKO_VALIDATORS, ...OBJECT_CHECKS].map((v) => v.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(DOC).toContain(`\`${id}\``);
  });

  test('pkoOnly skips every check beyond PKO; without it they report', async () => {
    const fm = await nginxWithBeyondPkoProblems();
    const pkoOnly = await validatePackage(fm, { pkoOnly: true, schema: false });
    expect(pkoOnly.filter((f) => !f.rule.startsWith('pko/'))).toEqual([]);
    const all = await validatePackage(fm, { schema: false });
    expect(all.map((f) => f.rule)).toEqual(expect.arrayContaining(['manifest/unknown-key', 'revision/job-ttl']));
  });

  test("each object check lists exactly the rules its module reports, and docs/validate.md's rule table has them", () => {
    const files: Record<string, string> = {};
    for (const c of OBJECT_CHECKS) {
      const mod = /import\('\.\/([a-z-]+)\.js'\)/.exec(c.load.toString())?.[1];
      expect(mod).toBeDefined();
      files[c.id] = readFileSync(`src/pko/checks/${mod}.ts`, 'utf8');
    }
    const reported = (src: string) => new Set([...src.matchAll(/'(?:warning|error)', '([a-z-]+(?:\/[a-z-]+)?)'/g)].map((m) => m[1]));
    // Modules holding two checks (workload-safety: pod-security and rbac) are compared as a union.
    const byModule = new Map<string, { listed: Set<string>; src: string }>();
    for (const c of OBJECT_CHECKS) {
      const e = byModule.get(files[c.id]) ?? { listed: new Set<string>(), src: files[c.id] };
      for (const r of c.rules) e.listed.add(r);
      byModule.set(files[c.id], e);
    }
    for (const { listed, src } of byModule.values()) {
      for (const r of reported(src)) expect([...listed].some((l) => l === r || (l.endsWith('/*') && r.startsWith(l.slice(0, -1))))).toBe(true);
    }
    for (const c of OBJECT_CHECKS) for (const r of c.rules) expect(DOC).toContain(`\`${r}\``);
  });
});
