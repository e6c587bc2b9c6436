import { fileMap } from '../../src/core/filemap.js';
import { renderPackage, RenderError, type RenderRequest } from '../../src/pko/render.js';
import { toUserError } from '../../src/pko/render-errors.js';
import { Violation, type PackageManifest } from '../../src/pko/types.js';

const manifest: PackageManifest = {
  apiVersion: 'manifests.package-operator.run/v1alpha1',
  kind: 'PackageManifest',
  metadata: { name: 'pkg' },
  spec: {
    scopes: ['Namespaced'],
    phases: [{ name: 'deploy' }],
    config: { openAPIV3Schema: { type: 'object', properties: { name: { type: 'string', default: 'x' } } } },
  },
};

function render(files: Record<string, string>, extra: Partial<RenderRequest> = {}) {
  return renderPackage({ manifest, files: fileMap(files), package: { metadata: { name: 'test', namespace: 'ns' } }, config: {}, ...extra });
}

function errorOf(files: Record<string, string>): { message: string; where: string } {
  try {
    render(files);
  } catch (e) {
    const u = toUserError(e);
    return { message: u.message, where: u.describe().slice(0, u.describe().length - u.message.length) };
  }
  throw new Error('expected an error');
}

const cm = (body: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    package-operator.run/phase: deploy\ndata:\n${body}\n`;

describe('bad templates give clear, located errors', () => {
  test('unclosed action', () => {
    const e = errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ .config.name ') });
    expect(e.message).toMatch(/^parsing template from cm\.yaml\.gotmpl: template: cm\.yaml\.gotmpl:9: unclosed action started at cm\.yaml\.gotmpl:8$/);
    expect(e.where).toMatch(/^cm\.yaml\.gotmpl:9/);
  });
  test('unknown (or not allow-listed) function is a parse error', () => {
    const e = errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ env "HOME" }}') });
    expect(e.message).toContain('parsing template from cm.yaml.gotmpl: template: cm.yaml.gotmpl:8: function "env" not defined');
    expect(errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ now }}') }).message).toContain('function "now" not defined');
  });
  test('wrong number / type of arguments', () => {
    expect(errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ trunc 5 }}') }).message).toMatch(/executing template from cm\.yaml\.gotmpl with context map\[.*\]: template: cm\.yaml\.gotmpl:8:\d+: executing "cm\.yaml\.gotmpl" at <trunc>: wrong number of args for trunc: want 2 got 1/);
    expect(errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ trunc "5" "x" }}') }).message).toContain('expected integer; found "5"');
  });
  test('missing keys (missingkey=error)', () => {
    const e = errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ .config.nope }}') });
    expect(e.message).toContain('map has no entry for key "nope"');
    expect(e.where).toMatch(/^cm\.yaml\.gotmpl:8:\d+/);
  });
  test('include recursion ends with PKO\'s error, nothing hangs', () => {
    const e = errorOf({ '_h.gotmpl': '{{ define "loop" }}{{ include "loop" . }}{{ end }}', 'cm.yaml.gotmpl': cm('  a: {{ include "loop" . }}') });
    expect(e.message).toMatch(/exceeded max include recursion depth|exceeded maximum template depth|templates nest too deeply/);
    expect(e.message.length).toBeLessThan(200_000);
  });
  test('a huge until is refused quickly', () => {
    const e = errorOf({ 'cm.yaml.gotmpl': cm('  a: "{{ range until 100000000000 }}x{{ end }}"') });
    expect(e.message).toContain('error calling until: would produce 100000000000 elements; pkogen limits lists to 1000000');
  });
  test('fail surfaces its message', () => {
    expect(errorOf({ 'cm.yaml.gotmpl': cm('  a: {{ fail "config.name is required" }}') }).message).toContain('error calling fail: config.name is required');
  });
  test('invalid YAML after rendering names file and document', () => {
    const e = errorOf({ 'cm.yaml.gotmpl': 'apiVersion: v1\n---\nkind: [' });
    expect(e.message).toMatch(/^Invalid YAML in cm\.yaml idx 0: Object 'Kind' is missing in '\{"apiVersion":"v1"\}'/);
  });
  test('bad CEL in a condition annotation', () => {
    try {
      render({ 'cm.yaml': cm('  a: b').replace('    package-operator.run/phase: deploy', '    package-operator.run/phase: deploy\n    package-operator.run/condition: "1 +"') });
      throw new Error('expected error');
    } catch (e) {
      expect(e).toBeInstanceOf(Violation);
      expect((e as Error).message).toMatch(/^The CEL expression in package-operator.run\/condition annotation is invalid.: compile error: .*\ncm$/s);
    }
  });
  test('bad named condition', () => {
    expect(() => renderPackage({ manifest: { ...manifest, spec: { ...manifest.spec, filter: { conditions: [{ name: 'x', expression: '"s"' }] } } }, files: fileMap({}), package: { metadata: { name: 't' } } })).toThrow(
      new RenderError("constructing CEL context: CEL condition evaluation failed: 'x': invalid return type: string, expected bool"),
    );
  });
});

describe('rendering rules', () => {
  test('templates share defines across files; outputs drop .gotmpl; static files stay', () => {
    const r = render({ '_helpers.gotmpl': '{{ define "n" }}{{ .package.metadata.name }}-x{{ end }}', 'a/cm.yaml.gotmpl': cm('  val: {{ include "n" . | upper }}'), 'README.md': '# hi' });
    expect([...r.files.keys()].sort()).toEqual(['README.md', '_helpers', 'a/cm.yaml']);
    expect(r.objects.map((o) => o.object.data)).toEqual([{ val: 'TEST-X' }]);
  });
  test('config is admitted: pruned and defaulted', () => {
    const r = render({ 'cm.yaml.gotmpl': cm('  val: {{ .config | toJson | squote }}') }, { config: { unknown: 1 } });
    expect(r.objects[0].object.data).toEqual({ val: '{"name":"x"}' });
  });
  test('labels/annotations default to empty string maps: index of a missing key is ""', () => {
    const r = render({ 'cm.yaml.gotmpl': cm('  val: "{{ index .package.metadata.labels "nope" }}"') });
    expect(r.objects[0].object.data).toEqual({ val: '' });
  });
  test('object order: paths sorted with / first, then document order', () => {
    const r = render({ 'b.yaml': cm('  i: b'), 'a/x.yaml': cm('  i: ax'), 'a.yaml': cm('  i: a1') + '---\n' + cm('  i: a2'), 'ab.yaml': cm('  i: ab') });
    expect(r.objects.map((o) => (o.object.data as { i: string }).i)).toEqual(['ax', 'a1', 'a2', 'ab', 'b']);
  });
});

describe('an execution error is worded as PKO words it (packagerender/template.go)', () => {
  test('"executing template from <path> with context <%+v>: <Go error>", the context printed as Go prints it, config values redacted', async () => {
    const { goRender, initOracle } = await import('../gotemplate/oracle.js');
    await initOracle();
    let message = '';
    try {
      render({ 'cm.yaml.gotmpl': cm('  a: {{ .config.nope }}') }, {
        manifest: { ...manifest, spec: { ...manifest.spec, images: [{ name: 'img', image: 'x:1' }] } },
        package: { metadata: { name: 'test', namespace: 'ns', labels: { a: 'b' } } },
        config: { name: 'visible?' },
        environment: { kubernetes: { version: 'v1.29.0' }, openShift: { version: '4.16.0' } },
      });
    } catch (e) {
      message = (e as Error).message;
    }
    // PKO's context after its JSON round trip, config values replaced: what Go's %+v prints of it
    const context = {
      config: { name: '<redacted>' },
      dependencies: {},
      environment: { kubernetes: { version: 'v1.29.0' }, openShift: { version: '4.16.0' } },
      images: { img: 'registry.package-operator.run/static-image' },
      package: { image: '', metadata: { annotations: {}, labels: { a: 'b' }, name: 'test', namespace: 'ns' } },
    };
    const printed = goRender('{{ printf "%+v" . }}', context);
    expect(printed.ok).toBe(true);
    // and the Go error itself (the oracle names its template "tpl")
    const failed = goRender(cm('  a: {{ .config.nope }}'), context);
    expect(failed.ok).toBe(false);
    const goError = (failed as { err: string }).err.replaceAll('tpl', 'cm.yaml.gotmpl');
    expect(message).toBe(`executing template from cm.yaml.gotmpl with context ${(printed as { out: string }).out}: ${goError}`);
    expect(message).not.toContain('goType');
    expect(message).not.toContain('visible?');
  });
});
