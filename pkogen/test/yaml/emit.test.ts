import { emitDocument, needsQuotes, RawEntry, RawValue, scalarString } from '../../src/yaml/emit.js';
import { parseYaml11, splitPkoDocuments } from '../../src/yaml/parse.js';

describe('needsQuotes', () => {
  it.each(['yes', 'on', 'Off', 'y', 'N', 'true', '1.0', '0755', '1_000', '1:20', '.5', '~', 'null', '', ' x', 'x ', 'a: b', '-x', '2001-12-14', '0x1F', '<<', '@x', '*x', '&x', '!x', '%x', '{{ x }}', 'a #b', '*'])(
    'quotes %j',
    (s) => expect(needsQuotes(s)).toBe(true),
  );
  it.each(['500m', '50Mi', '1.2.3', 'apps', 'Deployment', 'v1', 'quay.io/x/y@sha256:abc', 'https://a.b/c', 'machine-os-builder', 'a b', 'x:y', '/etc/x'])('leaves %j plain', (s) =>
    expect(needsQuotes(s)).toBe(false),
  );
  it('every quoted or plain string reads back as itself in YAML 1.1', () => {
    for (const s of ['yes', 'on', '1.0', '0755', '1_000', '1:20', 'plain', 'with "quotes"', "it's", 'tab\there', 'ünï', '\u0007']) {
      expect(parseYaml11(`k: ${scalarString(s)}`)).toEqual({ k: s });
    }
  });
});

describe('emitDocument', () => {
  it('orders apiVersion, kind, metadata first and name first', () => {
    const out = emitDocument({ spec: { b: 1, a: [{ z: 1, name: 'item' }] }, metadata: { namespace: 'x', name: 'obj' }, kind: 'K', apiVersion: 'v1' });
    expect(out).toBe('apiVersion: v1\nkind: K\nmetadata:\n  name: obj\n  namespace: x\nspec:\n  a:\n    - name: item\n      z: 1\n  b: 1\n');
  });
  it('drops undefined, keeps empty collections', () => {
    expect(emitDocument({ a: undefined, b: {}, c: [] })).toBe('b: {}\nc: []\n');
  });
  it('writes multi-line strings as literal blocks that read back exactly', () => {
    for (const s of ['FROM x\nRUN y\n', 'a\nb', 'a\n\n', '  lead\nx\n']) {
      const out = emitDocument({ data: { k: s } });
      expect(parseYaml11(out)).toEqual({ data: { k: s } });
    }
  });
  it('keeps template expressions intact', () => {
    const out = emitDocument({ url: 'https://svc.{{.package.metadata.namespace}}.svc/x', v: new RawValue((i) => ` {{ toYAML . | nindent ${i + 2} }}`) });
    expect(out).toBe("url: 'https://svc.{{.package.metadata.namespace}}.svc/x'\nv: {{ toYAML . | nindent 2 }}\n");
  });
  it('places raw entries at the mapping indent', () => {
    const out = emitDocument({ spec: { a: 1, nodeSelector: new RawEntry(() => ['{{- with .x }}', 'nodeSelector: {{ . }}', '{{- end }}']) } });
    expect(out).toBe('spec:\n  a: 1\n  {{- with .x }}\n  nodeSelector: {{ . }}\n  {{- end }}\n');
  });
});

describe('YAML 1.1 parsing', () => {
  it('reads YAML 1.1 scalars like go-yaml v2', () => {
    expect(parseYaml11('a: yes\nb: off\nc: 0755\nd: 1_000\ne: 2001-12-14\nf: ~\ng: 0x10\nh: 1.5\ni: 1:20\n')).toEqual({
      a: true, b: false, c: 493, d: 1000, e: '2001-12-14', f: null, g: 16, h: 1.5, i: '1:20',
    });
  });
  it('tolerates duplicate keys (last wins)', () => {
    expect(parseYaml11('a: 1\na: 2\n')).toEqual({ a: 2 });
  });
});

describe('splitPkoDocuments', () => {
  it('cuts the -/newline cutset and splits on exact --- lines', () => {
    const docs = splitPkoDocuments('---\na: 1\n---\nb: 2\n--- # no\nc: 3\n---\n');
    expect(docs.map((d) => d.text)).toEqual(['a: 1', 'b: 2\n--- # no\nc: 3']);
    expect(docs.map((d) => d.line)).toEqual([2, 4]);
  });
});
