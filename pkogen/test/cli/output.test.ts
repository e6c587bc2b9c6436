/**
 * The output layer's strategies, byte for byte: what a person, a script (jq), GitHub Actions and a
 * JUnit reader see for the same report.
 */
import { UsageError, type Finding } from '../../src/core/errors.js';
import { githubData, githubProperty, outputFormat, renderReport, sortedJson, type Report } from '../../src/cli/output.js';

const FINDINGS: Finding[] = [
  { severity: 'error', rule: 'pko/manifest-invalid', message: 'spec.scopes: Required value', file: 'manifest.yaml', path: 'spec.scopes', line: 5, column: 3 },
  { severity: 'warning', rule: 'image-digest', message: 'image "nginx:1" is not pinned by digest', file: 'deploy/d.yaml', doc: 1, path: 'spec.template.spec.containers[0].image', line: 20 },
  { severity: 'info', rule: 'T2', message: 'parameter IMAGE_TAG is a placeholder', object: 'Template/t' },
];

const REPORT: Report = {
  command: 'validate',
  subject: 'pkg',
  root: 'pkg',
  findings: FINDINGS,
  ok: false,
  checked: ['manifest.yaml', 'deploy/d.yaml', 'deploy/svc.yaml'],
};

describe('text', () => {
  it("is one formatFinding line per finding unless the command brings its own", () => {
    expect(renderReport('text', REPORT)).toBe(
      'error: manifest.yaml:5:3 spec.scopes: spec.scopes: Required value [pko/manifest-invalid]\n' +
        'warning: deploy/d.yaml:20 doc 1 spec.template.spec.containers[0].image: image "nginx:1" is not pinned by digest [image-digest]\n' +
        'info: Template/t: parameter IMAGE_TAG is a placeholder [T2]\n',
    );
    expect(renderReport('text', { ...REPORT, text: () => 'table\n' })).toBe('table\n');
  });
});

describe('json', () => {
  it('has the common keys, sorted at every level, and the command\'s result fields', () => {
    const out = renderReport('json', { ...REPORT, findings: FINDINGS.slice(0, 1), result: { zeta: { b: 1, a: [{ y: 1, x: 2 }] } } });
    expect(out).toBe(`{
  "command": "validate",
  "findings": [
    {
      "column": 3,
      "file": "manifest.yaml",
      "line": 5,
      "message": "spec.scopes: Required value",
      "path": "spec.scopes",
      "rule": "pko/manifest-invalid",
      "severity": "error"
    }
  ],
  "ok": false,
  "subject": "pkg",
  "summary": {
    "error": 1,
    "info": 0,
    "warning": 0
  },
  "zeta": {
    "a": [
      {
        "x": 2,
        "y": 1
      }
    ],
    "b": 1
  }
}
`);
  });

  it('counts every severity and carries only Finding fields (a check\'s extras never leak)', () => {
    const leaky = { ...FINDINGS[2], value: 'hunter2' } as Finding;
    const j = JSON.parse(renderReport('json', { ...REPORT, findings: [...FINDINGS.slice(0, 2), leaky] }));
    expect(j.summary).toEqual({ error: 1, warning: 1, info: 1 });
    expect(j.findings[2]).toEqual({ severity: 'info', rule: 'T2', message: 'parameter IMAGE_TAG is a placeholder', object: 'Template/t' });
    expect(JSON.stringify(j)).not.toContain('hunter2');
  });

  it('refuses a result field that would hide a common key', () => {
    expect(() => renderReport('json', { ...REPORT, result: { summary: 1 } })).toThrow(/result field summary would hide a common key/);
  });

  it('sortedJson keeps array order and sorts keys', () => {
    expect(sortedJson({ b: [3, 1, 2], a: null })).toBe('{\n  "a": null,\n  "b": [\n    3,\n    1,\n    2\n  ]\n}');
  });
});

describe('github', () => {
  it('gives one annotation per finding: file under the root, line, col, rule as title', () => {
    expect(renderReport('github', REPORT)).toBe(
      '::error file=pkg/manifest.yaml,line=5,col=3,title=pko/manifest-invalid::spec.scopes: spec.scopes: Required value\n' +
        '::warning file=pkg/deploy/d.yaml,line=20,title=image-digest::doc 1 spec.template.spec.containers[0].image: image "nginx:1" is not pinned by digest\n' +
        '::notice title=T2::Template/t: parameter IMAGE_TAG is a placeholder\n',
    );
  });

  it('escapes % CR LF in the message, and : , as well in properties (so a value cannot end the command)', () => {
    expect(githubData('50% done\r\nnext: a,b')).toBe('50%25 done%0D%0Anext: a,b');
    expect(githubProperty('C:\\a,b%\n')).toBe('C%3A\\a%2Cb%25%0A');
    const f: Finding = { severity: 'error', rule: 'x,y:z', message: 'line one\nline two: 100%', file: 'dir,1/a:b.yaml', line: 1 };
    expect(renderReport('github', { ...REPORT, root: undefined, findings: [f] })).toBe('::error file=dir%2C1/a%3Ab.yaml,line=1,title=x%2Cy%3Az::line one%0Aline two: 100%25\n');
  });

  it('prints nothing for a clean run', () => {
    expect(renderReport('github', { ...REPORT, findings: [], ok: true })).toBe('');
  });
});

describe('junit', () => {
  it('is one suite, one test case per checked file, failures for failing findings, the rest as system-out', () => {
    expect(renderReport('junit', REPORT)).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pkogen" tests="4" failures="1" errors="0">
  <testsuite name="pkogen validate pkg" tests="4" failures="1" errors="0" skipped="0">
    <testcase classname="pkogen.validate" name="pkg">
      <system-out>info: Template/t: parameter IMAGE_TAG is a placeholder [T2]
</system-out>
    </testcase>
    <testcase classname="pkogen.validate" name="pkg/deploy/d.yaml">
      <system-out>warning: deploy/d.yaml:20 doc 1 spec.template.spec.containers[0].image: image "nginx:1" is not pinned by digest [image-digest]
</system-out>
    </testcase>
    <testcase classname="pkogen.validate" name="pkg/deploy/svc.yaml"/>
    <testcase classname="pkogen.validate" name="pkg/manifest.yaml">
      <failure message="spec.scopes: Required value" type="pko/manifest-invalid">error: manifest.yaml:5:3 spec.scopes: spec.scopes: Required value [pko/manifest-invalid]
</failure>
    </testcase>
  </testsuite>
</testsuites>
`);
  });

  it('a command may make warnings fail too (validate --strict)', () => {
    const out = renderReport('junit', { ...REPORT, fails: (f) => f.severity !== 'info' });
    expect(out).toContain('<testsuites name="pkogen" tests="4" failures="2" errors="0">');
    expect(out).toContain('<failure message="image &quot;nginx:1&quot; is not pinned by digest" type="image-digest">');
  });

  it('escapes markup, keeps newlines in attributes and makes characters XML cannot carry visible', () => {
    const f: Finding = { severity: 'error', rule: 'r<&>', message: `a "b" 'c' <d> & e\nf\u0001g`, file: 'x.yaml' };
    const out = renderReport('junit', { command: 'lint-rollout', subject: 't.yaml', findings: [f, { ...f, message: 'second' }], ok: false });
    expect(out).toContain(`<failure message="2 findings; first: a &quot;b&quot; &apos;c&apos; &lt;d&gt; &amp; e&#10;f\\u0001g" type="r&lt;&amp;&gt;">error: x.yaml: a "b" 'c' &lt;d&gt; &amp; e\nf\\u0001g [r&lt;&amp;&gt;]\nerror: x.yaml: second [r&lt;&amp;&gt;]\n</failure>`);
    expect(out).not.toMatch(/[\u0000-\u0008]/);
  });

  it('a clean run is passing test cases only', () => {
    expect(renderReport('junit', { command: 'lint-rollout', subject: 't.yaml', findings: [], ok: true, checked: ['t.yaml'] })).toBe(`<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="pkogen" tests="1" failures="0" errors="0">
  <testsuite name="pkogen lint-rollout t.yaml" tests="1" failures="0" errors="0" skipped="0">
    <testcase classname="pkogen.lint-rollout" name="t.yaml"/>
  </testsuite>
</testsuites>
`);
  });
});

describe('a command\'s own strategies', () => {
  it('are chosen by name next to the built-in ones', () => {
    expect(renderReport('digest', { ...REPORT, ok: true }, { digest: () => 'sha256:abc\n' })).toBe('sha256:abc\n');
  });
});

describe('outputFormat: -o means a format', () => {
  const build = { command: 'build', formats: ['text', 'json', 'digest'], pathFlag: { flag: '--output-file', writes: 'the archive' } };
  it('defaults to the first format and accepts human as text', () => {
    expect(outputFormat(build, undefined)).toBe('text');
    expect(outputFormat(build, 'human')).toBe('text');
    expect(outputFormat(build, 'digest')).toBe('digest');
  });

  it('names the path flag when given a path, and the formats otherwise', () => {
    expect(() => outputFormat(build, 'x.tar')).toThrow(new UsageError('build: -o takes a format (text, json, digest); to write the archive use --output-file x.tar'));
    expect(() => outputFormat(build, 'yaml')).toThrow(new UsageError('build: -o takes a format (text, json, digest), got "yaml"'));
    const imp = { command: 'import', formats: ['text'], pathFlag: { flag: '--output-dir', writes: 'the modules' } };
    expect(() => outputFormat(imp, 'imports')).toThrow(new UsageError('import: -o takes a format (text); to write the modules use --output-dir imports'));
  });
});

describe('tap', () => {
  it('is TAP 13: the plan, one point per file checked, failing files `not ok` with their findings as YAML', () => {
    expect(renderReport('tap', REPORT)).toBe(`TAP version 13
1..4
ok 1 - pkg
  ---
  findings:
    - message: "info: Template/t: parameter IMAGE_TAG is a placeholder [T2]"
      severity: info
      rule: "T2"
  ...
ok 2 - pkg/deploy/d.yaml
  ---
  findings:
    - message: "warning: deploy/d.yaml:20 doc 1 spec.template.spec.containers[0].image: image \\"nginx:1\\" is not pinned by digest [image-digest]"
      severity: warning
      rule: "image-digest"
      line: 20
  ...
ok 3 - pkg/deploy/svc.yaml
not ok 4 - pkg/manifest.yaml
  ---
  findings:
    - message: "error: manifest.yaml:5:3 spec.scopes: spec.scopes: Required value [pko/manifest-invalid]"
      severity: error
      rule: "pko/manifest-invalid"
      line: 5
  ...
`);
  });

  it('a run with no file and no finding is one passing point; -o tap is accepted where findings are', () => {
    expect(renderReport('tap', { command: 'lint-rollout', subject: 't.yaml', findings: [], ok: true })).toBe('TAP version 13\n1..1\nok 1 - t.yaml\n');
    expect(outputFormat({ command: 'validate', formats: ['text', 'json', 'github', 'junit', 'tap'] }, 'tap')).toBe('tap');
  });
});
