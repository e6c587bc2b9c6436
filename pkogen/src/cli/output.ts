/**
 * The one output layer. A command that reports findings or results builds a `Report` and prints
 * it with the strategy `-o/--output FORMAT` names: `text` (people), `json` (one shape for every
 * command), `github` (GitHub Actions annotations) or `junit` (JUnit XML), plus the few a command
 * adds for itself (status `wide`, build `digest`). Every strategy is a pure function of the report:
 * same report, same bytes.
 */
import { colorSeverities } from './terminal.js';
import { countBySeverity, formatFinding, UsageError, type Finding, type Severity } from '../core/errors.js';

export interface Report {
  /** The command's name: `validate`, `lint-rollout`, … */
  command: string;
  /** What was checked, as the user named it (directory, file, image reference). */
  subject: string;
  findings: readonly Finding[];
  /** The run succeeded (exit 0). */
  ok: boolean;
  /** Whether a finding fails the run (JUnit reports it as a failure). Default: an error does. */
  fails?: (f: Finding) => boolean;
  /** Command-specific fields of the JSON form; never one of the common keys (JSON_KEYS). */
  result?: Record<string, unknown>;
  /** The command's human form; default: one line per finding. */
  text?: () => string;
  /**
   * Directory the findings' file paths are relative to, as the user named it. GitHub and JUnit
   * prefix it, so that an annotation lands on the repository's file.
   */
  root?: string;
  /** Files (or other units) checked, relative to `root`: JUnit test cases even when they have no finding. */
  checked?: readonly string[];
  /** The JUnit test case of a finding when it is not its file (simulate: the HCP namespace). */
  caseOf?: (f: Finding) => string | undefined;
}

/** The common top-level keys of the JSON form. */
export const JSON_KEYS = ['command', 'findings', 'ok', 'subject', 'summary'] as const;

export type Strategy = (r: Report) => string;

/** The strategies every finding-reporting command offers. */
export const FINDING_FORMATS = ['text', 'json', 'github', 'junit', 'tap'] as const;

/** `--skip RULE` (repeatable): the one way to ignore a rule by id in validate, lint-rollout and simulate. */
export const SKIP_OPTION = { skip: { type: 'string', multiple: true } } as const;

/**
 * The findings filter `--skip` asks for, or a usage error: a rule id as findings print it
 * (`image-digest`, `schema/additionalProperties`, `T3`), never one of PKO's (`pko/…`: PKO refuses
 * the package whatever pkogen reports).
 */
export function skipRules(command: string, ids: readonly string[] | undefined): <F extends Finding>(findings: readonly F[]) => F[] {
  const skip = new Set(ids ?? []);
  for (const id of skip) {
    if (!/^[A-Za-z0-9][\w./-]*$/.test(id)) throw new UsageError(`${command}: --skip takes a rule id as findings print it in [brackets], got ${JSON.stringify(id)}`);
    if (id.startsWith('pko/')) throw new UsageError(`${command}: --skip ${id}: PKO's own rules cannot be skipped (PKO refuses the package whatever pkogen reports)`);
  }
  return (findings) => (skip.size ? findings.filter((f) => !skip.has(f.rule)) : [...findings]);
}

/** Spellings kept so that existing Makefiles keep working (`validate --output human`). */
const ALIASES: Record<string, string> = { human: 'text' };

export interface OutputSpec {
  command: string;
  /** Accepted formats; the first is the default. */
  formats: readonly string[];
  /** The flag that takes a path instead, and what it writes, for the hint when `-o` gets a path. */
  pathFlag?: { flag: string; writes: string };
}

/**
 * The format `-o` names, or a usage error. A value that looks like a path (the flag's meaning
 * before pkogen had one vocabulary) gets a hint naming the flag that takes it now.
 */
export function outputFormat(spec: OutputSpec, value: string | undefined): string {
  if (value === undefined) return spec.formats[0];
  const f = ALIASES[value] ?? value;
  if (spec.formats.includes(f)) return f;
  const takes = `-o takes a format (${spec.formats.join(', ')})`;
  if (spec.pathFlag && (/[/.]/.test(value) || spec.formats.length === 1)) {
    throw new UsageError(`${spec.command}: ${takes}; to write ${spec.pathFlag.writes} use ${spec.pathFlag.flag} ${value}`);
  }
  throw new UsageError(`${spec.command}: ${takes}, got ${JSON.stringify(value)}`);
}

/** Prints the report with the named strategy (built-in, or one of the command's `extra`). */
export function renderReport(format: string, r: Report, extra: Record<string, Strategy> = {}, opts: { color?: boolean } = {}): string {
  const s = extra[format] ?? STRATEGIES[format];
  if (!s) throw new Error(`no output strategy ${JSON.stringify(format)}`);
  // Colour (terminal.ts: a terminal, NO_COLOR, FORCE_COLOR) only ever marks the text form's severities.
  return opts.color && format === 'text' ? colorSeverities(s(r)) : s(r);
}

const STRATEGIES: Record<string, Strategy> = { text: textReport, json: jsonReport, github: githubReport, junit: junitReport, tap: tapReport };

// ---- text ---------------------------------------------------------------------------------

export function textReport(r: Report): string {
  if (r.text) return r.text();
  return findingLines(r.findings);
}

export function findingLines(findings: readonly Finding[]): string {
  return findings.map((f) => formatFinding(f) + '\n').join('');
}

// ---- json ---------------------------------------------------------------------------------

/**
 * `{command, findings, ok, subject, summary: {error, info, warning}, …result}`, keys sorted at
 * every level, two-space indent: stable for diffs and for `jq`.
 */
export function jsonReport(r: Report): string {
  const result = r.result ?? {};
  for (const k of JSON_KEYS) if (k in result) throw new Error(`${r.command}: result field ${k} would hide a common key`);
  const doc = { ...result, command: r.command, subject: r.subject, ok: r.ok, summary: countBySeverity(r.findings), findings: r.findings.map(findingFields) };
  return sortedJson(doc) + '\n';
}

const FINDING_KEYS = ['severity', 'rule', 'message', 'file', 'doc', 'line', 'column', 'path', 'object'] as const;

/** Only the Finding fields: a check's own extra properties never reach the output. */
function findingFields(f: Finding): Partial<Finding> {
  const o: Record<string, unknown> = {};
  for (const k of FINDING_KEYS) if (f[k] !== undefined) o[k] = f[k];
  return o as Partial<Finding>;
}

/** JSON.stringify with object keys sorted (arrays keep their order), 2-space indent. */
export function sortedJson(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) => {
    if (x === null || typeof x !== 'object' || Array.isArray(x)) return x;
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(x).sort()) o[k] = (x as Record<string, unknown>)[k];
    return o;
  }, 2);
}

// ---- github -------------------------------------------------------------------------------

const GITHUB_COMMAND: Record<Severity, string> = { error: 'error', warning: 'warning', info: 'notice' };

/**
 * Workflow-command escaping as the Actions runner parses it (actions/toolkit
 * packages/core/src/command.ts, escapeData/escapeProperty): the message escapes `%`, CR and LF;
 * a property value also `:` and `,`, its delimiters.
 */
export function githubData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function githubProperty(s: string): string {
  return githubData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One `::error file=…,line=…,col=…,title=RULE::message` line per finding (info: `::notice`). */
export function githubReport(r: Report): string {
  let out = '';
  for (const f of r.findings) {
    const props: string[] = [];
    const file = rooted(r.root, f.file);
    if (file !== undefined) {
      props.push(`file=${githubProperty(file)}`);
      if (f.line !== undefined) props.push(`line=${f.line}`);
      if (f.line !== undefined && f.column !== undefined) props.push(`col=${f.column}`);
    }
    props.push(`title=${githubProperty(f.rule)}`);
    out += `::${GITHUB_COMMAND[f.severity]} ${props.join(',')}::${githubData(innerMessage(f))}\n`;
  }
  return out;
}

/** The finding without what an annotation carries in its properties (file, line, rule). */
function innerMessage(f: Finding): string {
  const where = [f.doc !== undefined ? `doc ${f.doc}` : '', f.path ?? ''].filter(Boolean).join(' ');
  return `${where ? where + ': ' : ''}${f.object ? f.object + ': ' : ''}${f.message}`;
}

function rooted(root: string | undefined, file: string | undefined): string | undefined {
  if (file === undefined) return undefined;
  if (root === undefined || root === '' || root === '.') return file;
  return `${root.replace(/\/+$/, '')}/${file}`;
}

// ---- junit --------------------------------------------------------------------------------

/**
 * One testsuite for the run, one testcase per file checked (or per unit a command names with
 * caseOf; findings without either belong to the subject). A test case fails when it has a finding of a failing severity; its other findings
 * go to system-out. No timestamps or durations: the same run gives the same bytes.
 */
export function junitReport(r: Report): string {
  const fails = r.fails ?? ((f: Finding) => f.severity === 'error');
  const { groups, names } = testCases(r);
  let failures = 0;
  let cases = '';
  for (const name of names) {
    const g = groups.get(name)!;
    const failing = g.filter(fails);
    const other = g.filter((f) => !fails(f));
    cases += `    <testcase classname="${xmlAttr(`pkogen.${r.command}`)}" name="${xmlAttr(name)}"`;
    if (!g.length) {
      cases += '/>\n';
      continue;
    }
    cases += '>\n';
    if (failing.length) {
      failures++;
      const message = failing.length === 1 ? failing[0].message : `${failing.length} findings; first: ${failing[0].message}`;
      cases += `      <failure message="${xmlAttr(message)}" type="${xmlAttr(failing[0].rule)}">${xmlText(findingLines(failing))}</failure>\n`;
    }
    if (other.length) cases += `      <system-out>${xmlText(findingLines(other))}</system-out>\n`;
    cases += '    </testcase>\n';
  }
  const suite = xmlAttr(`pkogen ${r.command} ${r.subject}`);
  const counts = `tests="${names.length}" failures="${failures}" errors="0"`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="pkogen" ${counts}>\n` +
    `  <testsuite name="${suite}" ${counts} skipped="0">\n` +
    cases +
    '  </testsuite>\n' +
    '</testsuites>\n'
  );
}

/** The test cases of JUnit and TAP: one per file checked (or per unit `caseOf` names), sorted. */
function testCases(r: Report): { groups: Map<string, Finding[]>; names: string[] } {
  const groups = new Map<string, Finding[]>();
  for (const c of r.checked ?? []) groups.set(rooted(r.root, c)!, []);
  for (const f of r.findings) {
    const key = r.caseOf?.(f) ?? rooted(r.root, f.file) ?? r.subject;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = []));
    g.push(f);
  }
  const names = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return { groups, names };
}

// ---- tap ----------------------------------------------------------------------------------

/**
 * TAP version 13 (testanything.org; kubeconform's `-output tap` has one point per object and the
 * plan last, without the version line: docs/validate.md): the plan, then one test point per test case of
 * the JUnit form, `not ok` when it has a finding that fails the run; its findings follow as a YAML
 * block (`message`, `severity`, `rule`, and where known `line`). No timing: same run, same bytes.
 */
export function tapReport(r: Report): string {
  const fails = r.fails ?? ((f: Finding) => f.severity === 'error');
  const { groups, names: cases } = testCases(r);
  // A run with nothing to name still has one test point: the subject.
  const names = cases.length ? cases : [r.subject];
  if (!cases.length) groups.set(r.subject, []);
  const one = (s: string) => s.replace(/[\r\n]+/g, ' ');
  let out = `TAP version 13\n1..${names.length}\n`;
  names.forEach((name, i) => {
    const g = groups.get(name)!;
    out += `${g.some(fails) ? 'not ok' : 'ok'} ${i + 1} - ${one(name).replace(/#/g, '\\#')}\n`;
    if (!g.length) return;
    out += '  ---\n  findings:\n';
    for (const f of g) {
      out += `    - message: ${JSON.stringify(formatFinding(f))}\n      severity: ${f.severity}\n      rule: ${JSON.stringify(f.rule)}\n`;
      if (f.line !== undefined) out += `      line: ${f.line}\n`;
    }
    out += '  ...\n';
  });
  return out;
}

/** Characters XML 1.0 cannot carry at all (controls, lone surrogates) become a visible \uXXXX. */
function xmlSafe(s: string): string {
  return s.replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDFFF]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

export function xmlText(s: string): string {
  return xmlSafe(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Attribute values: quotes escaped, and whitespace kept (a parser would normalise raw CR/LF/TAB). */
export function xmlAttr(s: string): string {
  return xmlText(s).replace(/"/g, '&quot;').replace(/'/g, '&apos;').replace(/\n/g, '&#10;').replace(/\r/g, '&#13;').replace(/\t/g, '&#9;');
}
