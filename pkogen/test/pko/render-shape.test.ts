/**
 * Rendered objects built from a cached shape of the template's literal text (render-shape.ts)
 * must be exactly what parsing the rendered text gives: same objects, documents, lines, texts,
 * violations and errors, for any printed value. Each case renders with a long-lived file map
 * (shapes warmed up) and with a fresh copy (no shapes: the full parse), and compares.
 */
import * as fc from 'fast-check';
import { readDirToFileMap } from '../../src/core/fs.js';
import { fileMap, type FileMap } from '../../src/core/filemap.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage, type RenderRequest, type RenderResult } from '../../src/pko/render.js';
import { shapeStats } from '../../src/pko/render-shape.js';
import { testCaseRequest } from '../../src/pko/template-tests.js';
import type { PackageManifest } from '../../src/pko/types.js';

const manifest: PackageManifest = {
  apiVersion: 'manifests.package-operator.run/v1alpha1',
  kind: 'PackageManifest',
  metadata: { name: 'pkg' },
  spec: {
    scopes: ['Namespaced'],
    phases: [{ name: 'deploy' }],
    config: { openAPIV3Schema: { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } } },
  },
};

type Outcome = { ok: true; all: unknown; kept: unknown } | { ok: false; error: string };

function outcome(req: RenderRequest): Outcome {
  let r: RenderResult;
  try {
    r = renderPackage(req);
  } catch (e) {
    return { ok: false, error: `${(e as Error).name}: ${(e as Error).message}` };
  }
  return { ok: true, all: r.allObjects, kept: r.objects };
}

/** Renders with the warmed file map and with a fresh copy of it; both must agree. */
function same(files: FileMap, config: Record<string, string>, base: Omit<RenderRequest, 'files' | 'config'> = { manifest, package: { metadata: { name: 'p', namespace: 'ns' } } }): void {
  const warm = outcome({ ...base, files, config });
  const cold = outcome({ ...base, files: new Map(files), config });
  expect(warm).toEqual(cold);
  // sharing unchanged parts between renders gives the same objects too
  expect(outcome({ ...base, files, config, sharedObjects: true })).toEqual(cold);
  // objects with their metadata only (simulate): the same heads, the same documents and errors
  expect(heads(outcome({ ...base, files, config, sharedObjects: true, metadataOnly: true }))).toEqual(heads(cold));
}

/** An outcome with each object cut to apiVersion, kind and metadata (what metadataOnly keeps). */
function heads(o: Outcome): Outcome {
  if (!o.ok) return o;
  const cut = (rs: unknown) =>
    (rs as { object: unknown }[]).map((r) => {
      const obj = r.object;
      if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) return r;
      return { ...r, object: Object.fromEntries(['apiVersion', 'kind', 'metadata'].filter((k) => k in obj).map((k) => [k, (obj as Record<string, unknown>)[k]])) };
    });
  return { ok: true, all: cut(o.all), kept: cut(o.kept) };
}

const head = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  annotations:\n    package-operator.run/phase: deploy\n';

const templates: Record<string, string> = {
  scalars:
    head +
    `    note: '{{ .config.b }}'\n` +
    'data:\n' +
    '  plain: {{ .config.a }}\n' +
    '  mixed: x-{{ .config.b }}-y {{ .config.c }}  # trailing comment\n' +
    '  dq: "{{ .config.c }}"\n' +
    "  sq: 'pre {{ .config.a }} post'\n" +
    '  lit: |\n    line {{ .config.b }}\n    more\n' +
    '  list:\n    - {{ .config.a }}\n    - --{{ .config.c }}\n    - "{{ .config.b }}"\n    - k: {{ .config.a }}{{ .config.b }}\n',
  keyHole: head + 'data:\n  {{ .config.a }}: v\n  x{{ .config.b }}: w\n',
  comment: head + '# {{ .config.a }}\ndata:\n  k: v # {{ .config.b }}\n',
  lineStart: head + 'data:\n  lit: |\n    {{ .config.a }}\n  seq:\n  - x\n--{{ .config.b }}\n',
  docs: head + 'data:\n  a: {{ .config.a }}\n---\n' + head.replace('cm', 'cm2') + 'data:\n  b: x{{ .config.b }}\n---\n',
  tail: head + 'data:\n  t: {{ .config.a }}',
  tailDash: head + 'data:\n  t: a{{ .config.a }}\n--\n',
  kindHole: 'apiVersion: v1\nkind: {{ .config.a }}\nmetadata:\n  name: x\n',
  duplicate: head + 'data:\n  k: {{ .config.a }}\n  k: fixed\n',
  flow: head + 'data:\n  f: [{{ .config.a }}]\n',
  quoted: head + 'data:\n  q: {{ .config.a | quote }}\n  j: {{ .config.b | toJson }} # c\n  list:\n  - {{ .config.c | squote }}\n  - k: {{ .config.c }}\n',
  quotedInside: head + 'data:\n  in: x{{ .config.a | quote }}\n  dq: "{{ .config.c | quote }}"\n  sq: \'{{ .config.b | squote }}\'\n  dq2: "x{{ .config.c | quote }}"\n  sq2: \'x {{ .config.a | squote }}\'\n  lit: |\n    x {{ .config.b | quote }}\n',
  quotedContexts: head + 'data:\n  sq: \'pre {{ .config.a }} post\'\n  dq: "pre {{ .config.b }} post"\n  lit: |\n    pre {{ .config.c }}\n',
  control: head + 'data:\n{{- if eq .config.c "on" }}\n  on: {{ .config.a }}\n{{- else }}\n  off: {{ .config.b }}\n{{- end }}\n  seq:\n{{- range $i, $e := list 1 2 }}\n  - "{{ $.config.a }}-{{ $e }}"\n  - {{ $i }}\n{{- end }}\n  inc: {{ include "h" . }}\n',
};

// Characters and words that mean something to YAML (or to its line structure) somewhere.
const tokens = ['a', 'Z', '0', '1', '7', '-', '--', '.', ':', ': ', ' ', '#', "'", '"', '\\', '\n', '\n  ', '|', '>', '&', '*', '!', '[', ']', '{', '}', '~', 'y', 'n', 'on', 'null', 'true', '0x1F', '0755', '1e3', '.inf', '1_0', '%', '@', '`', ',', '?', '\t', '_', '+', '/', '=', '\u00a0', '\u2028', 'é', '😀', '---', '...', 'x: y', '\ue000', '\ufeff'];
// Mostly values that can be holes (so the shape path and its scalar resolution are exercised),
// sometimes anything (literal text, refused shapes, errors).
const holeTokens = ['"q"', "'s'", "'it''s'", '""', "''", 'a', 'Z', '0', '1', '7', '-', '--', '.', ':', '~', 'y', 'n', 'on', 'null', 'true', '0x1F', '0755', '1e3', '.inf', '1_0', '%', '@', '`', ',', '?', '|', '>', '&', '*', '!', '[', ']', '{', '}', '---', '...', 'é', '/', '=', '+'];
const value = fc.oneof(
  { weight: 3, arbitrary: fc.array(fc.constantFrom(...holeTokens), { minLength: 1, maxLength: 4 }).map((t) => t.join('')) },
  { weight: 1, arbitrary: fc.array(fc.constantFrom(...tokens), { maxLength: 5 }).map((t) => t.join('')) },
);
const hitsBy: Record<string, number> = {};

describe('objects from a cached shape equal the parsed rendered text', () => {
  for (const [name, text] of Object.entries(templates)) {
    test(`${name}: any printed values`, () => {
      const files = fileMap({ [`${name}.yaml.gotmpl`]: text, '_helpers.gotmpl': '{{ define "h" }}inc-{{ .config.c }}{{ end }}' });
      // warm up: the same literal text twice builds its shape
      const before = shapeStats().hits;
      for (let i = 0; i < 3; i++) same(files, { a: `v${i}`, b: `w${i}`, c: 'on' });
      fc.assert(
        fc.property(value, value, value, (a, b, c) => {
          same(files, { a, b, c });
        }),
        { numRuns: 300 },
      );
      hitsBy[name] = shapeStats().hits - before;
    });
  }

  test('the fuzzed cases did take the shape path where it applies', () => {
    for (const name of ['scalars', 'docs', 'tail', 'tailDash', 'control', 'quoted', 'quotedContexts']) expect(hitsBy[name]).toBeGreaterThan(50);
  });

  test('our package, many hosted control planes: objects equal, and the shapes are used', async () => {
    const pkg = loadPackage(await readDirToFileMap('../package'));
    const tc = pkg.manifest.test!.template![0]!;
    const base = testCaseRequest(pkg, tc);
    const before = shapeStats().hits;
    for (let i = 0; i < 40; i++) {
      const ns = `clusters-hc-${i}`;
      const req: RenderRequest = {
        ...base,
        package: { metadata: { name: 'on-cluster-build', namespace: ns } },
        environment: { ...(base.environment ?? {}), hyperShift: { hostedCluster: { metadata: { name: `hc-${i}`, namespace: 'clusters' }, hostedClusterNamespace: ns, nodeSelector: { zone: `z${i % 3}` } } } },
      };
      const warm = outcome(req);
      const cold = outcome({ ...req, files: new Map(req.files) });
      expect(warm.ok).toBe(true);
      expect(warm).toEqual(cold);
    }
    // every templated file of the package takes the shape path after the first renders
    expect(shapeStats().hits - before).toBeGreaterThan(30 * 4);
  });

  test('sharedObjects: the same values; unchanged parts are frozen and shared, printed values are fresh', () => {
    const files = fileMap({ 'cm.yaml.gotmpl': head + 'data:\n  plain: {{ .config.a }}\n  fixed:\n    k: v\n', 'static.yaml': head.replace('cm', 'st') });
    const req = (a: string): RenderRequest => ({ manifest, files, package: { metadata: { name: 'p', namespace: 'ns' } }, config: { a, b: 'w', c: 'x' }, sharedObjects: true });
    const [r1, r2, r3] = ['v1', 'v2', 'v3'].map((a) => renderPackage(req(a)));
    const cm = (r: RenderResult) => r.objects.find((o) => o.path === 'cm.yaml')!.object as { data: Record<string, unknown>; metadata: unknown };
    expect(cm(r3).data.plain).toBe('v3');
    expect(cm(r2).data.plain).toBe('v2');
    // metadata and data.fixed hold no printed value: one frozen object for every render
    expect(cm(r3).metadata).toBe(cm(r2).metadata);
    expect(cm(r3).data.fixed).toBe(cm(r2).data.fixed);
    expect(Object.isFrozen(cm(r3).data.fixed)).toBe(true);
    expect(() => {
      (cm(r3).metadata as { name: string }).name = 'changed';
    }).toThrow(TypeError);
    const st = (r: RenderResult) => r.objects.find((o) => o.path === 'static.yaml')!.object;
    expect(st(r1)).toBe(st(r3));
    // without sharedObjects every render gets its own, mutable objects
    const own = renderPackage({ ...req('v4'), sharedObjects: false });
    expect(Object.isFrozen(st(own))).toBe(false);
    expect(st(own)).toEqual(st(r1));
  });

  test('without sharedObjects, a render that changes its objects changes no later render (the first gets the parsed objects themselves)', () => {
    const files = fileMap({ 'cm.yaml.gotmpl': head + 'data:\n  plain: {{ .config.a }}\n  fixed:\n    k: v\n', 'static.yaml': head.replace('cm', 'st') + 'data:\n  k: [a, b]\n' });
    const req = (a: string): RenderRequest => ({ manifest, files, package: { metadata: { name: 'p', namespace: 'ns' } }, config: { a, b: 'w', c: 'x' } });
    const objectsOf = (r: RenderResult) => r.objects.map((o) => o.object as { metadata: { name: string }; data: Record<string, unknown> });
    const first = objectsOf(renderPackage(req('v1')));
    const pristine = structuredClone(first);
    for (const o of first) {
      o.metadata.name = 'changed';
      o.data.added = true;
      if (Array.isArray(o.data.k)) o.data.k.push('c');
      if (o.data.fixed) (o.data.fixed as Record<string, string>).k = 'changed';
    }
    const [second, third] = ['v1', 'v1'].map((a) => objectsOf(renderPackage(req(a))));
    expect(second).toEqual(pristine);
    expect(third).toEqual(pristine);
    expect(second[0]).not.toBe(third[0]);
    expect(Object.isFrozen(second[1])).toBe(false);
  });

  test('the rendered files themselves are untouched (fixtures compare raw text)', () => {
    const files = fileMap({ 'cm.yaml.gotmpl': templates.scalars });
    const texts = [0, 1, 2].map((i) => {
      const r = renderPackage({ manifest, files, package: { metadata: { name: 'p', namespace: 'ns' } }, config: { a: `v${i}`, b: 'w', c: 'x' } });
      return Buffer.from(r.files.get('cm.yaml')!).toString();
    });
    expect(texts[2]).toContain('plain: v2');
    expect(texts[2]).toBe(templates.scalars.replace(/\{\{ \.config\.a \}\}/g, 'v2').replace(/\{\{ \.config\.b \}\}/g, 'w').replace(/\{\{ \.config\.c \}\}/g, 'x'));
  });
});
