/**
 * The template context is PKO's, type for type (packagetypes/types.go PackageRenderContext,
 * packagerender/template.go templateContext + workaroundnovalue at e03279db):
 * - `.dependencies` is always there (no omitempty; PKO #2548): `{}` when none are declared;
 * - labels/annotations become `map[string]string{}` only when nil; given ones are JSON maps.
 * Differential: what a template prints on that JSON context in Go's own text/template (the
 * WebAssembly oracle, missingkey=error) is what pkogen renders.
 */
import { toBytes, toText, type FileMap } from '../../src/core/filemap.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage, RenderError } from '../../src/pko/render.js';
import { testCaseRequest } from '../../src/pko/template-tests.js';
import { packageTree } from '../../src/pko/tree.js';
import { goRender, initOracle } from '../gotemplate/oracle.js';

beforeAll(() => initOracle());

function pkg(template: string, opts: { labels?: string; deps?: boolean } = {}) {
  const files: FileMap = new Map([
    ['manifest.yaml', toBytes(`apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata:
  name: ctx
spec:
  scopes: [Namespaced]
  phases:
  - name: deploy
${opts.deps ? '  dependencies:\n  - image: {name: dep, package: dep.repo, range: ">=1"}\n' : ''}test:
  template:
  - name: t
    context:
      package:
        metadata:
          name: test
          namespace: test-ns
${opts.labels ? `          labels: ${opts.labels}\n` : ''}`)],
    ['out.txt.gotmpl', toBytes(template)],
  ]);
  return loadPackage(files);
}

function render(template: string, opts: { labels?: string; deps?: boolean } = {}) {
  const p = pkg(template, opts);
  const r = renderPackage(testCaseRequest(p, p.manifest.test!.template![0]!));
  return { out: toText(r.files.get('out.txt')!), context: r.context };
}

const DEPS = '{{ range $k, $v := .dependencies }}{{ $k }}={{ $v }};{{ end }}|{{ .dependencies }}|{{ len .dependencies }}|{{ index .dependencies "x" }}';

test('.dependencies without any declared: an empty map, as Go renders it', () => {
  const r = render(DEPS);
  expect(r.context.dependencies).toEqual({});
  expect(goRender(DEPS, r.context)).toEqual({ ok: true, out: r.out });
  expect(r.out).toBe('|map[]|0|<no value>');
});

test('.dependencies with one declared: the static image, as Go renders it', () => {
  const r = render(DEPS, { deps: true });
  expect(goRender(DEPS, r.context)).toEqual({ ok: true, out: r.out });
  expect(r.out).toBe('dep=registry.package-operator.run/static-image;|map[dep:registry.package-operator.run/static-image]|1|<no value>');
});

test('.dependencies.x of a missing key is the missingkey error, as in Go', () => {
  const t = '{{ .dependencies.x }}';
  const p = pkg(t);
  const go = goRender(t, render('').context);
  expect(go).toMatchObject({ ok: false, err: expect.stringContaining('map has no entry for key "x"') });
  expect(() => renderPackage(testCaseRequest(p, p.manifest.test!.template![0]!))).toThrow(/map has no entry for key "x"/);
});

const LABELS = '[{{ index .package.metadata.labels "x" }}][{{ index .package.metadata.labels "a" }}][{{ .package.metadata.labels }}]';

test('labels given: a JSON map, so index of a missing key prints <no value>, as Go renders it', () => {
  const r = render(LABELS, { labels: '{a: b}' });
  expect(goRender(LABELS, r.context)).toEqual({ ok: true, out: r.out });
  expect(r.out).toBe('[<no value>][b][map[a:b]]');
});

test('labels nil: map[string]string{} (workaroundnovalue), so index of a missing key is ""', () => {
  expect(render(LABELS).out).toBe('[][][map[]]');
  expect(render('[{{ index .package.metadata.annotations "x" }}]', { labels: '{a: b}' }).out).toBe('[]');
});

test('tree leaves .dependencies nil, as PKO\'s tree does (range over nil: nothing)', () => {
  const p = pkg('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: "c{{ range .dependencies }}x{{ end }}{{ .dependencies }}"\n  annotations:\n    package-operator.run/phase: deploy\n');
  p.files.set('cm.yaml.gotmpl', p.files.get('out.txt.gotmpl')!);
  p.files.delete('out.txt.gotmpl');
  expect(packageTree(p)).toContain('/v1, Kind=ConfigMap /c<no value>\n');
  expect(goRender('c{{ range .dependencies }}x{{ end }}{{ .dependencies }}', { dependencies: null })).toEqual({ ok: true, out: 'c<no value>' });
});

test('a RenderError, not a crash, when the template fails', () => {
  expect(() => render('{{ .nope }}')).toThrow(RenderError);
});
