import { fillLikeSaasherder, generateFromExpression, processTemplate, readParameters, substitute } from '../../src/rollout/process.js';
import { getJsonPath, setJsonPath } from '../../src/rollout/jsonpath.js';
import { globMatch, isEmptySelector, matchesSelector, selectNamespaces } from '../../src/rollout/selectors.js';
import { balance } from '../../src/rollout/lint.js';

describe('oc process', () => {
  const tmpl = {
    kind: 'Template',
    parameters: [
      { name: 'A', value: 'a' },
      { name: 'N', value: '3' },
      { name: 'REQ', required: true },
      { name: 'GEN', generate: 'expression', from: '[a-z0-9]{8}' },
    ],
    labels: { app: '${A}' },
    objects: [{ kind: 'X', metadata: { name: 'x-${A}' }, spec: { n: '${{N}}', keep: '${UNKNOWN} ${MEMORY:-512Mi}', s: 'pre-${A}-${{N}}', g: '${GEN}' } }],
  };
  test('${X}, ${{X}}, unknown names left alone, template labels, generate', () => {
    const r = processTemplate(tmpl, { REQ: 'r', IGNORED: 'z' });
    expect(r.problems).toEqual([]);
    const o = r.objects[0] as { metadata: { name: string; labels: Record<string, string> }; spec: Record<string, unknown> };
    expect(o.metadata).toEqual({ name: 'x-a', labels: { app: 'a' } });
    expect(o.spec.n).toBe(3);
    expect(o.spec.keep).toBe('${UNKNOWN} ${MEMORY:-512Mi}');
    expect(o.spec.s).toBe('pre-a-3');
    expect(o.spec.g).toMatch(/^[a-z0-9]{8}$/);
    expect(processTemplate(tmpl, { REQ: 'r' }).objects).toEqual(r.objects); // deterministic
  });
  test('a required parameter without value is a problem located on the parameter', () => {
    expect(processTemplate(tmpl, {}).problems).toEqual([{ path: ['parameters', 2], message: 'parameter REQ is required and must be specified' }]);
  });
  test('substitute keeps non-JSON ${{X}} as a string', () => {
    expect(substitute('${{A}}', { A: 'not json' })).toBe('not json');
    expect(substitute('${{A}}', { A: '{"k": [1]}' })).toEqual({ k: [1] });
  });
  test('generate expressions: classes, ranges, counts', () => {
    expect(generateFromExpression('[A-Z]{3}\\d{2}x', 's')).toMatch(/^[A-Z]{3}[0-9]{2}x$/);
    expect(() => generateFromExpression('[a-z', 's')).toThrow(/unbalanced/);
  });
});

describe('saasherder parameter filling', () => {
  const declared = readParameters({ parameters: [{ name: 'REGISTRY_IMG', required: true }, { name: 'IMAGE_DIGEST', required: true }, { name: 'REPO_DIGEST' }, { name: 'OTHER', required: true }] });
  test('IMAGE_TAG from the commit, digests computed from REGISTRY_IMG:IMAGE_TAG, ${X} in values', () => {
    const f = fillLikeSaasherder({ given: { REGISTRY_IMG: 'quay.io/a/b', OTHER: '${REGISTRY_IMG}-x', COMMIT_SHA: 'f'.repeat(40) }, declared, placeholders: false });
    expect(f.values.IMAGE_TAG).toBe('fffffff');
    expect(f.values.IMAGE_DIGEST).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(f.values.REPO_DIGEST).toBe(`quay.io/a/b@${f.values.IMAGE_DIGEST}`);
    expect(f.values.OTHER).toBe('quay.io/a/b-x');
  });
  test('no REGISTRY_IMG: saasherder error; placeholders for lint', () => {
    expect(fillLikeSaasherder({ given: {}, declared, placeholders: false }).problems[0].message).toMatch(/Is REGISTRY_IMG missing/);
    const p = fillLikeSaasherder({ given: {}, declared, placeholders: true });
    expect(p.problems).toEqual([]);
    expect(p.origin).toMatchObject({ REGISTRY_IMG: 'placeholder', OTHER: 'placeholder', IMAGE_DIGEST: 'saasherder' });
  });
});

describe('selectors, globs, JSONPath, delimiters', () => {
  test('empty selectors select everything', () => {
    expect(isEmptySelector(null)).toBe(true);
    expect(isEmptySelector({ matchLabels: {}, matchExpressions: [] })).toBe(true);
    expect(matchesSelector(undefined, { a: 'b' })).toBe(true);
    expect(matchesSelector({ matchExpressions: [{ key: 'f', operator: 'NotIn', values: ['true'] }] }, {})).toBe(true);
    expect(() => matchesSelector({ matchExpressions: [{ key: 'f', operator: 'in', values: ['x'] }] }, {})).toThrow(/invalid label selector operator/);
  });
  test('namespaceSelector: include default *, exclude, labels, empty ⇒ null', () => {
    const nss: { name: string; labels: Record<string, string> }[] = [{ name: 'ocm-a', labels: { h: 'true' } }, { name: 'kube-system', labels: { h: 'true' } }, { name: 'ocm-b', labels: {} }];
    expect(selectNamespaces({ matchLabels: { h: 'true' }, exclude: ['kube-*'] }, nss)).toEqual(['ocm-a']);
    expect(selectNamespaces({}, nss)).toBeNull();
    expect(globMatch('ocm-*-[ab]', 'ocm-x-a')).toBe(true);
    expect(globMatch('clusters-*', 'ocm-x-a')).toBe(false);
  });
  test('PKO source JSONPath with escaped dots', () => {
    const cm = { data: { 'service-ca.crt': 'PEM' } };
    expect(getJsonPath(cm, ".data['service-ca\\.crt']")).toBe('PEM');
    expect(getJsonPath(cm, '{.data.missing}')).toBeUndefined();
    const c: Record<string, unknown> = {};
    setJsonPath(c, '.a.b', 1);
    expect(c).toEqual({ a: { b: 1 } });
    expect(() => getJsonPath(cm, 'data')).toThrow(/must start with "."/);
  });
  test('delimiter balance understands escaped PKO text', () => {
    expect(balance('{{ `{{ toJson .config }}` }}')).toBe('');
    expect(balance('a {{ "}}" }} b')).toBe('');
    expect(balance('{{ .a }\n')).toMatch(/line 1 is never closed/);
    expect(balance('x }}')).toMatch(/closes nothing/);
    expect(balance('{{ {{ }}')).toMatch(/opens inside/);
  });
});
