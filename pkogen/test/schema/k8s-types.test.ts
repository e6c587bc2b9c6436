/**
 * pkogen/k8s: the generated types of the kinds pkogen validates. A typo in a Deployment field is a
 * compile error on that line; the committed declarations are exactly what the generators make.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';
import { openshiftTypeModules } from '../../src/codegen/crd-types.js';
import { OPENSHIFT_CRDS } from '../../src/schema/generated/openshift-crds.js';
import { BUILTIN_KINDS } from '../../src/schema/generated/builtin-shapes.js';
import { ROOT, tempDir } from '../helpers.js';

let tmp: ReturnType<typeof tempDir>;
beforeAll(() => (tmp = tempDir('pkogen-k8s-types-')));
afterAll(() => tmp.cleanup());

/** tsc --strict --noEmit of several files in one program (one compile); diagnostics per file as `line: message`. */
function typeErrors(sources: Record<string, string>): Record<string, string[]> {
  const files = Object.entries(sources).map(([name, text]) => {
    const file = path.join(tmp.dir, `${name}.ts`);
    writeFileSync(file, text);
    return file;
  });
  const program = ts.createProgram(files, { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, types: [], skipLibCheck: true });
  const out: Record<string, string[]> = Object.fromEntries(Object.keys(sources).map((n) => [n, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const name = d.file ? path.basename(d.file.fileName, '.ts') : '';
    const pos = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start) : undefined;
    (out[name] ??= []).push(`${pos ? pos.line + 1 : 0}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
  }
  return out;
}

const K8S = path.join(ROOT, 'src', 'public', 'k8s.js');
const MODEL = path.join(ROOT, 'src', 'public', 'model.js');
const GOOD = `import type { Deployment, Service, routeV1 } from '${K8S}';
import { templateNumber, type KubeObject } from '${MODEL}';
export const d: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', labels: { app: 'web' } },
  spec: {
    replicas: templateNumber('.config.replicas'),
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: {
        containers: [{ name: 'web', image: '{{ .config.image }}', ports: [{ containerPort: 8080 }] }],
      },
    },
  },
};
export const s: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80, targetPort: 'http' }] } };
export const r: routeV1.Route = { apiVersion: 'route.openshift.io/v1', kind: 'Route', metadata: { name: 'web' }, spec: { to: { kind: 'Service', name: 'web' } } };
export const objects: KubeObject[] = [d, s, r];
`;

describe('pkogen/k8s', () => {
  it('a correct Deployment, Service and Route compile strict and are KubeObjects; typos and wrong types fail tsc on their line', () => {
    const e = typeErrors({
      good: GOOD,
      typo: GOOD.replace('        containers: [', '        containres: ['),
      stringReplicas: GOOD.replace("replicas: templateNumber('.config.replicas')", "replicas: '{{ .config.replicas }}'"),
      apiVersion: GOOD.replace("apiVersion: 'apps/v1'", "apiVersion: 'apps/v1beta1'"),
      noName: GOOD.replace("metadata: { name: 'web', labels: { app: 'web' } },", "metadata: { labels: { app: 'web' } },"),
      route: GOOD.replace("spec: { to: { kind: 'Service'", "spec: { too: { kind: 'Service'"),
    });
    expect(e.good).toEqual([]);
    expect(e.typo).toEqual([expect.stringMatching(/^13: .*'containres' does not exist in type 'PodSpec'/)]);
    expect(e.stringReplicas.join('\n')).toMatch(/^8: .*'string' is not assignable to type 'number'/);
    expect(e.apiVersion.join('\n')).toMatch(/^4: /);
    expect(e.noName.join('\n')).toMatch(/^6: .*'name' is missing/);
    expect(e.route.join('\n')).toMatch(/^19: .*'too' does not exist/);
  });

  it('types every served built-in kind pkogen validates', () => {
    const text = readFileSync(path.join(ROOT, 'src', 'schema', 'generated', 'k8s-types.ts'), 'utf8');
    const typed = [...text.matchAll(/^ {2}"([^"]+)": \w+;$/gm)].map((m) => m[1]);
    const served = Object.keys(BUILTIN_KINDS).filter((k) => !/^extensions\/|\/v\d+(alpha|beta)\d+\//.test(k));
    expect(typed).toEqual(served.sort());
    expect(typed.length).toBeGreaterThan(60);
  });

  it('the committed core declarations are what hack/gen-k8s-types.mjs makes today', () => {
    const r = spawnSync(process.execPath, ['hack/gen-k8s-types.mjs', '--check'], { cwd: ROOT, encoding: 'utf8' });
    expect({ code: r.status, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
  });

  it('the committed OpenShift declarations are what the generator makes from the bundled CRDs today', () => {
    const dir = path.join(ROOT, 'src', 'schema', 'generated', 'openshift-types');
    const modules = openshiftTypeModules(OPENSHIFT_CRDS);
    expect(readdirSync(dir).sort()).toEqual([...modules.keys()].sort());
    for (const [name, text] of modules) expect({ name, text: readFileSync(path.join(dir, name), 'utf8') }).toEqual({ name, text });
  });
});
