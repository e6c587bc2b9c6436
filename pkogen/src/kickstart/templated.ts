/**
 * A `.yaml.gotmpl` file → objects with the template expressions in place, as far as the template
 * allows. A Go template is text, not YAML: it is only YAML after PKO renders it. So each document
 * is read with every `{{ … }}` action stood in for by a placeholder, and the placeholders are put
 * back into the values they sit in:
 *   - a quoted scalar, or a plain one inside other text, keeps its action inside a string
 *     (`image: '{{ .config.image }}'` stays that string);
 *   - a plain scalar holding an action (`replicas: {{ .config.replicas }}`) becomes a template
 *     value written unquoted, as it was, so PKO renders a number, a boolean or a map there
 *     (`templateNumber`/`templateBoolean` when the config schema types it, else the text as is);
 *   - a block scalar holding actions stays a block with the actions inside.
 * What cannot be placed in one value is not converted, and the result says where: a document with
 * control actions (`if`, `range`, `with`, variables, comments) stays template text for that document
 * only; a file whose control actions span documents, or that defines templates, stays whole.
 */
import type { KubeObject } from '../model/package.js';
import type { JSONSchemaProps } from '../pko/types.js';
import { emitDocument, RawValue, type YamlValue } from '../yaml/emit.js';
import { parseYaml11, splitPkoDocuments, YamlParseError } from '../yaml/parse.js';

/** A template value as kickstart writes it in TypeScript: `code` is the expression that makes it. */
export class KickstartTemplateValue extends RawValue {
  constructor(
    readonly code: { helper: 'templateNumber' | 'templateBoolean' | 'templateObject' | 'templateText'; arg: string },
    render: (indent: number) => string,
  ) {
    super(render);
  }
}

export type TemplatedDoc =
  | { kind: 'object'; value: unknown; line: number }
  | { kind: 'template'; text: string; line: number; reason: string }
  | { kind: 'empty'; line: number };

export interface TemplatedFile {
  /** Set when the file stays one template: why, and the line. */
  whole?: { reason: string; line: number };
  docs: TemplatedDoc[];
}

const ACTION = /\{\{[\s\S]*?\}\}/g;
const OPENERS = /^(if|range|with|define|block)\b/;
const CONTROL = /^(if|else|end|range|with|define|block|template|break|continue)\b/;

/** The action's body without `{{`, `}}` and trim markers. */
const body = (a: string) => a.slice(2, -2).replace(/^-\s/, '').replace(/\s-$/, '').trim();

function lineAt(text: string, index: number): number {
  let n = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

/** Why an action cannot sit in a value, or undefined when it can. */
function controlReason(a: string): string | undefined {
  const b = body(a);
  if (b.startsWith('/*')) return 'a template comment';
  const word = /^[a-z]+/.exec(b)?.[0];
  if (word && CONTROL.test(b)) return `{{ ${word} }}`;
  if (/\$[A-Za-z_]\w*\s*:?=/.test(b)) return 'a template variable';
  if (/(^|[\s(])\$[A-Za-z_]/.test(b)) return 'a template variable';
  if (a.includes('\n')) return 'an action spanning lines';
  return undefined;
}

/** Depth change of if/range/with/define/block … end in a text. */
function depth(text: string): number {
  let d = 0;
  for (const m of text.matchAll(ACTION)) {
    const b = body(m[0]);
    if (OPENERS.test(b)) d++;
    else if (/^end\b/.test(b)) d--;
  }
  return d;
}

export function splitTemplateFile(text: string, schema?: JSONSchemaProps): TemplatedFile {
  const firstControl = [...text.matchAll(ACTION)].find((m) => /^(define|block)\b/.test(body(m[0])) || /^\$[A-Za-z_]\w*\s*:=/.test(body(m[0])));
  if (firstControl) return { whole: { reason: `the file ${/:=/.test(firstControl[0]) ? 'sets a template variable' : 'defines a template'} its documents may use`, line: lineAt(text, firstControl.index!) }, docs: [] };
  const pieces = splitPkoDocuments(text);
  for (const p of pieces) {
    if (depth(p.text) !== 0) return { whole: { reason: 'a control action ({{ if }}, {{ range }}, {{ with }}) spans documents', line: p.line }, docs: [] };
  }
  return { docs: pieces.map((p) => convertDocument(p.text, p.line, schema)) };
}

/** The JSON-schema of `.config.a.b` when the action is that path (with a pipeline on it). */
function configProp(expr: string, schema?: JSONSchemaProps): JSONSchemaProps | undefined {
  const m = /^\.config((?:\.[A-Za-z_]\w*)+)\s*$/.exec(expr);
  if (!m || !schema) return undefined;
  let s: JSONSchemaProps | undefined = schema;
  for (const k of m[1].slice(1).split('.')) s = (s?.properties as Record<string, JSONSchemaProps> | undefined)?.[k];
  return s;
}

/**
 * The JSON-schema type of the value the action renders, as the YAML around it will read it. A
 * string config value written unquoted is read again as YAML once rendered (`"true"` becomes a
 * boolean, `"300"` a number): it is a string only when the schema's enum holds no such value.
 */
function configType(expr: string, schema?: JSONSchemaProps): string | undefined {
  const s = configProp(expr, schema);
  const t = typeof s?.type === 'string' ? s.type : undefined;
  if (t !== 'string') return t;
  const values = Array.isArray(s?.enum) ? s.enum : undefined;
  return values?.length && values.every((v) => typeof v === 'string' && readsAsItself(v)) ? 'string' : undefined;
}

function readsAsItself(v: string): boolean {
  if (v === '' || /[{}\n#:]/.test(v) || v !== v.trim()) return false;
  try {
    return parseYaml11(v, 'enum') === v;
  } catch {
    return false;
  }
}

/**
 * True when a plain scalar reads as a string whatever its actions render to: its own text has a
 * character that no YAML 1.1 number, boolean, null or timestamp holds (`olm-cleanup-{{ … }}`).
 */
function surelyString(plain: string): boolean {
  const own = plain.replace(ACTION, '');
  return /[^0-9a-fA-FxXoObB.+\-_:\sTtRrUuEeSsYyNnLlAaFf~iI]/.test(own);
}

function templateValue(plain: string, schema?: JSONSchemaProps, nameField = false): KickstartTemplateValue | string {
  const only = [...plain.matchAll(ACTION)];
  const single = only.length === 1 && only[0][0] === plain;
  // metadata.name and .namespace are strings to every API: a value that read as anything else is refused there anyway.
  const t = single ? (nameField && configProp(body(plain), schema)?.type === 'string' ? 'string' : configType(body(plain), schema)) : undefined;
  // A string either way: written as a string, quoted, with the actions inside.
  if ((t === 'string' || (!single && surelyString(plain))) && !plain.includes("'")) return plain;
  if (t === 'integer' || t === 'number') return new KickstartTemplateValue({ helper: 'templateNumber', arg: body(plain) }, () => ` {{ ${body(plain)} }}`);
  if (t === 'boolean') return new KickstartTemplateValue({ helper: 'templateBoolean', arg: body(plain) }, () => ` {{ ${body(plain)} }}`);
  return new KickstartTemplateValue({ helper: 'templateText', arg: plain }, () => ` ${plain}`);
}

/** A multi-line string with actions, as a literal block (the template renders inside it). */
function templateBlock(s: string): KickstartTemplateValue | undefined {
  if (/^[ \t]/.test(s) || /[ \t]\n|[ \t]$/.test(s) || /[\r\u0000-\u0008\u000b-\u001f]/.test(s)) return undefined;
  const trailing = /\n+$/.exec(s)?.[0].length ?? 0;
  const chomp = trailing === 0 ? '-' : trailing === 1 ? '' : '+';
  const content = trailing === 0 ? s : chomp === '+' ? s.slice(0, -1) : s.slice(0, -1);
  const lines = content.split('\n');
  return new KickstartTemplateValue({ helper: 'templateText', arg: `|${chomp}\n${content}` }, (indent) => ` |${chomp}\n${lines.map((l) => (l === '' ? '' : ' '.repeat(indent + 2) + l)).join('\n')}`);
}

const KEY_LINE = /^(\s*(?:-\s+)*)((?:[A-Za-z0-9_./-][^:#'"{]*?)|"[^"\n]*"|'[^'\n]*')(:\s+)(\S.*?)\s*$/;
const ITEM_LINE = /^(\s*(?:-\s+)*-\s+)(\S.*?)\s*$/;

function convertDocument(text: string, line: number, schema?: JSONSchemaProps): TemplatedDoc {
  if (text === '') return { kind: 'empty', line };
  const keep = (reason: string, at: number): TemplatedDoc => ({ kind: 'template', text, line, reason: `${reason} at line ${line + at - 1}` });
  const actions = [...text.matchAll(ACTION)];
  for (const m of actions) {
    const r = controlReason(m[0]);
    if (r) return keep(r, lineAt(text, m.index!));
  }
  // Placeholders: letters and digits only, so that they read as plain scalars wherever they stand.
  const values = new Map<string, { original: string; raw: boolean }>();
  let n = 0;
  const mark = (original: string, raw: boolean) => {
    const p = `pkogenTemplatePlaceholder${n++}x`;
    values.set(p, { original, raw });
    return p;
  };
  const strings = (s: string) => s.replace(ACTION, (a) => mark(a, false));
  const lines = text.split('\n');
  let block = -1; // indent of the key that opened a block scalar; -1 outside one
  const out: string[] = [];
  for (const [i, l] of lines.entries()) {
    const indent = /^ */.exec(l)![0].length;
    if (block >= 0 && (l.trim() === '' || indent > block)) {
      out.push(strings(l));
      continue;
    }
    block = -1;
    if (!l.includes('{{')) {
      if (/^(\s*(?:-\s+)*)[^#]*:\s*[|>][-+0-9]*\s*$/.test(l) || /^\s*(?:-\s+)+[|>][-+0-9]*\s*$/.test(l)) block = indent;
      out.push(l);
      continue;
    }
    const km = KEY_LINE.exec(l) ?? undefined;
    const im = km ? undefined : ITEM_LINE.exec(l) ?? undefined;
    const [head, value] = km ? [km[1] + km[2] + km[3], km[4]] : im ? [im[1], im[2]] : [undefined, undefined];
    if (head === undefined || value === undefined) {
      if (/^\s*#/.test(l)) return keep('an action in a comment', i + 1);
      return keep('an action outside a value', i + 1);
    }
    if (head.includes('{{')) return keep('an action in a mapping key', i + 1);
    if (/^['"]/.test(value) || (value.startsWith('{') && !value.startsWith('{{')) || value.startsWith('[')) out.push(head + strings(value));
    else if (/\s#/.test(value.replace(ACTION, ''))) return keep('an action beside a comment', i + 1);
    else out.push(head + mark(value, true));
  }
  let v: unknown;
  try {
    v = parseYaml11(out.join('\n'), 'template');
  } catch (e) {
    if (!(e instanceof YamlParseError)) throw e;
    return keep('not YAML with its actions stood in for', (e.line ?? 1));
  }
  const seen = new Set<string>();
  let problem: string | undefined;
  const restore = (s: string) =>
    s.replace(/pkogenTemplatePlaceholder\d+x/g, (p) => {
      seen.add(p);
      return values.get(p)?.original ?? p;
    });
  const walk = (x: unknown, path: string[] = []): unknown => {
    if (typeof x === 'string') {
      const exact = values.get(x);
      if (exact?.raw) {
        seen.add(x);
        return templateValue(exact.original, schema, path.length === 2 && path[0] === 'metadata' && (path[1] === 'name' || path[1] === 'namespace'));
      }
      if (!x.includes('pkogenTemplatePlaceholder')) return x;
      const s = restore(x);
      if (!s.includes('{{')) return s;
      if (s.includes('\n')) {
        const b = templateBlock(s);
        if (!b) problem ??= 'a multi-line string with actions that a literal block cannot hold';
        return b ?? s;
      }
      if (s.includes("'")) problem ??= "an action in a string with a ' (it cannot be quoted safely)";
      return s;
    }
    if (Array.isArray(x)) return x.map((y) => walk(y, [...path, '[]']));
    if (x && typeof x === 'object') {
      const o: Record<string, unknown> = {};
      for (const [k, y] of Object.entries(x)) {
        if (k.includes('pkogenTemplatePlaceholder')) problem ??= 'an action in a mapping key';
        o[k] = walk(y, [...path, k]);
      }
      return o;
    }
    return x;
  };
  const value = walk(v);
  if (problem) return keep(problem, 1);
  if (seen.size !== values.size) return keep('an action that is not in a value', 1);
  try {
    emitDocument(value as YamlValue);
  } catch {
    return keep('a value the YAML writer cannot place', 1);
  }
  return { kind: 'object', value, line };
}

export type { KubeObject };
