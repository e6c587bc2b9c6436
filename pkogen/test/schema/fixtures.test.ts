import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseAllYaml11 } from '../../src/yaml/parse.js';
import { createSchemaRegistry } from '../../src/schema/registry.js';

const SHARED = join(process.cwd(), '..', '..', 'shared', 'reference');
const registry = createSchemaRegistry();

// Template parameters filled the way app-interface fills them (docs/rollout-reference.md §2).
const PARAMS: Record<string, string> = {
  REGISTRY_IMG: 'quay.io/app-sre/demo-hs-package',
  IMAGE_DIGEST: 'sha256:' + 'c'.repeat(64),
  IMAGE_TAG: 'abcdef1',
  OPERATOR_IMAGE: 'quay.io/app-sre/demo-operator',
  PACKAGE_IMAGE: 'quay.io/app-sre/demo-package',
  PACKAGE_TAG: 'abcdef1',
  PROBE_API_URL: 'https://api.example.com',
  REPO_NAME: 'demo',
  TELEMETER_SERVER_URL: 'https://infogw.api.openshift.com',
};

function files(dir: string, re: RegExp): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...files(p, re));
    else if (re.test(p)) out.push(p);
  }
  return out;
}

/** Every Kubernetes object in a document, including ones embedded in others (SSS resources, policy templates). */
function objects(v: unknown, path: string, out: { path: string; obj: Record<string, unknown> }[]): void {
  if (Array.isArray(v)) v.forEach((x, i) => objects(x, `${path}[${i}]`, out));
  else if (v !== null && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    if (typeof o.apiVersion === 'string' && typeof o.kind === 'string' && o.metadata !== undefined) out.push({ path, obj: o });
    for (const [k, x] of Object.entries(o)) objects(x, `${path}.${k}`, out);
  }
}

function validateFile(file: string, text: string): { known: string[]; problems: string[] } {
  const found: { path: string; obj: Record<string, unknown> }[] = [];
  parseAllYaml11(text, file).forEach((doc, i) => objects(doc, `doc${i}`, found));
  const known: string[] = [];
  const problems: string[] = [];
  for (const { path, obj } of found) {
    const r = registry.validate(obj);
    if (r.known) known.push(`${obj.apiVersion}/${obj.kind}`);
    for (const i of r.issues) problems.push(`${relative(SHARED, file)} ${path} ${obj.kind}: ${i.path}: ${i.message}`);
  }
  return { known, problems };
}

describe('real rollout templates validate without issues', () => {
  const templates = files(join(SHARED, 'rollout-templates'), /\.ya?ml(\.tmpl)?$/);
  test.each(templates.map((f) => [relative(SHARED, f), f]))('%s', (_name, file) => {
    const text = readFileSync(file, 'utf8').replace(/\$\{([A-Z_]+)\}/g, (_m, k: string) => PARAMS[k] ?? 'x');
    const { known, problems } = validateFile(file, text);
    expect(problems).toEqual([]);
    // Each template carries at least an SSS or Policy plus its embedded ConfigurationPolicy/Package.
    expect(known.length).toBeGreaterThanOrEqual(2);
  });

  test('the kinds a rollout uses are all known', () => {
    const all = new Set<string>();
    for (const f of templates) {
      const text = readFileSync(f, 'utf8').replace(/\$\{([A-Z_]+)\}/g, (_m, k: string) => PARAMS[k] ?? 'x');
      validateFile(f, text).known.forEach((k) => all.add(k));
    }
    expect([...all].sort()).toEqual(expect.arrayContaining([
      'apps.open-cluster-management.io/v1/PlacementRule',
      'hive.openshift.io/v1/SelectorSyncSet',
      'package-operator.run/v1alpha1/Package',
      'policy.open-cluster-management.io/v1/ConfigurationPolicy',
      'policy.open-cluster-management.io/v1/PlacementBinding',
      'policy.open-cluster-management.io/v1/Policy',
    ]));
  });
});

describe('PKO fixture packages: rendered fixtures validate without issues', () => {
  const fixtures = files(join(SHARED, 'pko-packages'), /\/\.test-fixtures\/.*\.ya?ml$/);
  test.each(fixtures.map((f) => [relative(SHARED, f), f]))('%s', (_name, file) => {
    const { known, problems } = validateFile(file, readFileSync(file, 'utf8'));
    expect(problems).toEqual([]);
    expect(known.length).toBeGreaterThan(0);
  });
});

describe('PKO fixture packages: static YAML', () => {
  test('remote-phase-component rbac.yaml is valid', () => {
    const f = join(SHARED, 'pko-packages', 'remote-phase-component', 'rbac.yaml');
    expect(validateFile(f, readFileSync(f, 'utf8')).problems).toEqual([]);
  });

  test('invalid/missing_resource_gvk: the object without a kind is reported, not validated', () => {
    const f = join(SHARED, 'pko-packages', 'invalid', 'missing_resource_gvk', 'deployment.yaml');
    const [doc] = parseAllYaml11(readFileSync(f, 'utf8'), f);
    expect(registry.validate(doc)).toMatchObject({ known: false, issues: [{ path: 'kind', message: 'missing required field "kind"' }] });
  });
});
