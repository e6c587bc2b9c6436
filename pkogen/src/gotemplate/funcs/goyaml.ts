/**
 * PKO's `toYAML` is sigs.k8s.io/yaml.Marshal: encoding/json first, then go-yaml v2 (libyaml
 * emitter) on the JSON-decoded data. This reproduces that output: keys in go-yaml's "natural"
 * order, sequences not indented under mappings, `{}`/`[]` for empty collections, go-yaml's
 * scalar style choice (plain → single-quoted → double-quoted; literal `|` for multi-line) and
 * its 80-column folding of long scalars (sigs.k8s.io/yaml does not call FutureLineWrap).
 */
import { chargeDeep } from '../budget.js';
import { GoTyped, type GoMap, type GoValue } from '../types.js';
import { isDigit, isLetter } from '../unicode.js';
import { jsonFloat } from './json.js';
import { parseGoIntLiteral } from './value.js';

const BEST_WIDTH = 80;

/** go-yaml v2 keyList.Less for string keys. */
export function goYamlKeyLess(a: string, b: string): boolean {
  const ar = [...a];
  const br = [...b];
  for (let i = 0; i < ar.length && i < br.length; i++) {
    if (ar[i] === br[i]) continue;
    const al = isLetter(ar[i]);
    const bl = isLetter(br[i]);
    if (al && bl) return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
    if (al || bl) return bl;
    let an = 0n;
    let bn = 0n;
    if (ar[i] === '0' || br[i] === '0') {
      for (let j = i - 1; j >= 0 && isDigit(ar[j]); j--) {
        if (ar[j] !== '0') {
          an = 1n;
          bn = 1n;
          break;
        }
      }
    }
    let ai = i;
    let bi = i;
    for (; ai < ar.length && isDigit(ar[ai]); ai++) an = an * 10n + BigInt(ar[ai].charCodeAt(0) - 48);
    for (; bi < br.length && isDigit(br[bi]); bi++) bn = bn * 10n + BigInt(br[bi].charCodeAt(0) - 48);
    if (an !== bn) return an < bn;
    if (ai !== bi) return ai < bi;
    return ar[i].codePointAt(0)! < br[i].codePointAt(0)!;
  }
  return ar.length < br.length;
}

const NULLS = new Set(['', '~', 'null', 'Null', 'NULL']);
const BOOLS = new Set(['y', 'Y', 'yes', 'Yes', 'YES', 'n', 'N', 'no', 'No', 'NO', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'on', 'On', 'ON', 'off', 'Off', 'OFF']);
const FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const SPECIAL_FLOAT = /^([-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN))$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ].*)?$/;
const BASE60 = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;

/** True when go-yaml v2 would resolve the plain scalar to something other than a string. */
function resolvesNonString(s: string): boolean {
  if (NULLS.has(s) || BOOLS.has(s) || s === '<<') return true;
  if (SPECIAL_FLOAT.test(s)) return true;
  const c = s[0];
  if (!(c === '-' || c === '+' || c === '.' || (c >= '0' && c <= '9'))) return false;
  const plain = s.replace(/_/g, '');
  if (parseGoIntLiteral(plain) !== null) return true;
  if (/^[-+]?0b[01]+$/.test(plain)) return true;
  if (/^[0-9]+$/.test(plain)) return true; // out-of-range ints resolve to float
  if (FLOAT.test(plain)) return true;
  if (TIMESTAMP.test(s)) return true;
  return false;
}

function isPrintable(c: number): boolean {
  return c === 0x0a || (c >= 0x20 && c <= 0x7e) || c === 0x85 || (c >= 0xa0 && c <= 0xd7ff) || (c >= 0xe000 && c <= 0xfffd && c !== 0xfeff) || c >= 0x10000;
}
const isBreak = (c: string | undefined) => c === '\n' || c === '\r' || c === '\u0085' || c === '\u2028' || c === '\u2029';
const isSpaceC = (c: string | undefined) => c === ' ';
const isBlankZ = (c: string | undefined) => c === undefined || c === ' ' || c === '\t' || isBreak(c);

interface Analysis {
  multiline: boolean;
  flowPlain: boolean;
  blockPlain: boolean;
  single: boolean;
  block: boolean;
}

/** libyaml's yaml_emitter_analyze_scalar. */
function analyze(value: string): Analysis {
  if (value === '') return { multiline: false, flowPlain: false, blockPlain: true, single: true, block: false };
  let blockInd = false;
  let flowInd = false;
  let lineBreaks = false;
  let special = false;
  let leadingSpace = false;
  let leadingBreak = false;
  let trailingSpace = false;
  let trailingBreak = false;
  let breakSpace = false;
  let spaceBreak = false;
  let precededByWs = true;
  let prevSpace = false;
  let prevBreak = false;
  if (value.startsWith('---') || value.startsWith('...')) {
    blockInd = true;
    flowInd = true;
  }
  const chars = [...value];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const next = chars[i + 1];
    const followedByWs = isBlankZ(next);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) {
        flowInd = true;
        blockInd = true;
      } else if (ch === '?' || ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '-' && followedByWs) {
        flowInd = true;
        blockInd = true;
      }
    } else {
      if (',?[]{}'.includes(ch)) flowInd = true;
      else if (ch === ':') {
        flowInd = true;
        if (followedByWs) blockInd = true;
      } else if (ch === '#' && precededByWs) {
        flowInd = true;
        blockInd = true;
      }
    }
    const cp = ch.codePointAt(0)!;
    if (!isPrintable(cp) || cp === 0xfeff) special = true;
    if (isBreak(ch)) lineBreaks = true;
    if (isSpaceC(ch)) {
      if (i === 0) leadingSpace = true;
      if (i === chars.length - 1) trailingSpace = true;
      if (prevBreak) breakSpace = true;
      prevSpace = true;
      prevBreak = false;
    } else if (isBreak(ch)) {
      if (i === 0) leadingBreak = true;
      if (i === chars.length - 1) trailingBreak = true;
      if (prevSpace) spaceBreak = true;
      prevSpace = false;
      prevBreak = true;
    } else {
      prevSpace = false;
      prevBreak = false;
    }
    precededByWs = isBlankZ(ch);
  }
  const a: Analysis = { multiline: lineBreaks, flowPlain: true, blockPlain: true, single: true, block: true };
  if (leadingSpace || leadingBreak || trailingSpace || trailingBreak) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (trailingSpace) a.block = false;
  if (breakSpace) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.single = false;
  }
  if (spaceBreak || special) {
    a.flowPlain = false;
    a.blockPlain = false;
    a.single = false;
    a.block = false;
  }
  if (lineBreaks) {
    a.flowPlain = false;
    a.blockPlain = false;
  }
  if (flowInd) a.flowPlain = false;
  if (blockInd) a.blockPlain = false;
  return a;
}

class Out {
  buf = '';
  column = 0;
  write(s: string): void {
    this.buf += s;
    const nl = s.lastIndexOf('\n');
    this.column = nl >= 0 ? [...s.slice(nl + 1)].length : this.column + [...s].length;
  }
  /** libyaml's write_indent: a line break unless we are already at the start of a fresh line. */
  indent(n: number): void {
    if (!(this.buf.endsWith('\n') && this.column <= n)) {
      this.buf += '\n';
      this.column = 0;
    }
    this.write(' '.repeat(n - this.column));
  }
}

const DQ_ESC: Record<string, string> = {
  '\0': '0', '\x07': 'a', '\b': 'b', '\t': 't', '\n': 'n', '\x0b': 'v', '\f': 'f', '\r': 'r', '\x1b': 'e', '"': '"', '\\': '\\',
  '\u0085': 'N', '\u00a0': '_', '\u2028': 'L', '\u2029': 'P',
};

function writeDouble(o: Out, value: string, indent: number, allowBreaks: boolean): void {
  o.write('"');
  const chars = [...value];
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    const cp = ch.codePointAt(0)!;
    if (!isPrintable(cp) || cp === 0xfeff || isBreak(ch) || ch === '"' || ch === '\\') {
      const e = DQ_ESC[ch];
      if (e) o.write('\\' + e);
      else if (cp <= 0xff) o.write('\\x' + cp.toString(16).toUpperCase().padStart(2, '0'));
      else if (cp <= 0xffff) o.write('\\u' + cp.toString(16).toUpperCase().padStart(4, '0'));
      else o.write('\\U' + cp.toString(16).toUpperCase().padStart(8, '0'));
      spaces = false;
    } else if (ch === ' ') {
      if (allowBreaks && !spaces && o.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1) {
        o.indent(indent);
        if (chars[i + 1] === ' ') o.write('\\');
      } else o.write(ch);
      spaces = true;
    } else {
      o.write(ch);
      spaces = false;
    }
  }
  o.write('"');
}

function writeSingle(o: Out, value: string, indent: number, allowBreaks: boolean): void {
  o.write("'");
  const chars = [...value];
  let spaces = false;
  let breaks = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === ' ') {
      if (allowBreaks && !spaces && o.column > BEST_WIDTH && i !== 0 && i !== chars.length - 1 && chars[i + 1] !== ' ') o.indent(indent);
      else o.write(ch);
      spaces = true;
    } else if (isBreak(ch)) {
      if (!breaks && ch === '\n') o.write('\n');
      o.write('\n');
      o.column = 0;
      breaks = true;
    } else {
      if (breaks) o.indent(indent);
      o.write(ch === "'" ? "''" : ch);
      spaces = false;
      breaks = false;
    }
  }
  o.write("'");
}

function writePlain(o: Out, value: string, indent: number, allowBreaks: boolean): void {
  const chars = [...value];
  let spaces = false;
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i];
    if (ch === ' ') {
      if (allowBreaks && !spaces && o.column > BEST_WIDTH && chars[i + 1] !== ' ') o.indent(indent);
      else o.write(ch);
      spaces = true;
    } else {
      o.write(ch);
      spaces = false;
    }
  }
}

function writeLiteral(o: Out, value: string, indent: number): void {
  let hints = '';
  if (value.startsWith(' ') || isBreak(value[0])) hints += '2';
  const chars = [...value];
  const last = chars[chars.length - 1];
  if (!isBreak(last)) hints += '-';
  else if (chars.length === 1 || isBreak(chars[chars.length - 2])) hints += '+';
  o.write('|' + hints);
  o.write('\n');
  o.column = 0;
  let breaks = true;
  for (const ch of chars) {
    if (isBreak(ch)) {
      o.write('\n');
      o.column = 0;
      breaks = true;
    } else {
      if (breaks) o.write(' '.repeat(indent));
      o.write(ch);
      breaks = false;
    }
  }
}

function writeString(o: Out, s: string, indent: number, isKey: boolean): void {
  let style: 'plain' | 'single' | 'double' | 'literal';
  if (s.includes('\n')) style = 'literal';
  else if (!resolvesNonString(s) && !BASE60.test(s)) style = 'plain';
  else style = 'double';
  const a = analyze(s);
  if (style === 'literal' && (!a.block || isKey)) style = 'double';
  if (style === 'plain') {
    if (!a.blockPlain || (s === '' && isKey)) style = 'single';
  }
  if (style === 'single' && !a.single) style = 'double';
  const allowBreaks = !isKey;
  if (style === 'plain') writePlain(o, s, indent, allowBreaks);
  else if (style === 'single') writeSingle(o, s, indent, allowBreaks);
  else if (style === 'double') writeDouble(o, s, indent, allowBreaks);
  else writeLiteral(o, s, indent);
}

/** Go's FormatFloat(f, 'g', -1, 64): exponent when exp < -4 || exp >= 21. */
function yamlFloat(f: number): string {
  if (Number.isNaN(f)) return '.nan';
  if (f === Infinity) return '.inf';
  if (f === -Infinity) return '-.inf';
  const [m, e] = f.toExponential().split('e');
  const exp = Number(e);
  if (exp < -4 || exp >= 21) return `${m}e${exp < 0 ? '-' : '+'}${Math.abs(exp) < 10 ? '0' : ''}${Math.abs(exp)}`;
  return String(f);
}

type Node = null | boolean | { int: string } | { float: number } | string | Node[] | Map<string, Node>;

/** JSON round trip semantics: the data go-yaml sees after json.Marshal → yaml.Unmarshal. */
function toNode(v: GoValue): Node {
  if (v instanceof GoTyped) return toNode(v.value);
  if (v === null || typeof v === 'function') return null;
  if (typeof v === 'boolean' || typeof v === 'string') return v;
  if (typeof v === 'bigint') return { int: v.toString() };
  if (typeof v === 'number') {
    const j = jsonFloat(v);
    return /[.eE]/.test(j) ? { float: Number(j) } : { int: j };
  }
  if (Array.isArray(v)) return v.map(toNode);
  const m = new Map<string, Node>();
  const keys = Object.keys(v as GoMap).sort((a, b) => (goYamlKeyLess(a, b) ? -1 : goYamlKeyLess(b, a) ? 1 : 0));
  for (const k of keys) m.set(k, toNode((v as GoMap)[k]));
  return m;
}

function isCollection(n: Node): n is Node[] | Map<string, Node> {
  return Array.isArray(n) || n instanceof Map;
}
function isEmptyColl(n: Node): boolean {
  return (Array.isArray(n) && n.length === 0) || (n instanceof Map && n.size === 0);
}

function writeScalar(o: Out, n: Node, indent: number): void {
  if (n === null) o.write('null');
  else if (typeof n === 'boolean') o.write(n ? 'true' : 'false');
  else if (typeof n === 'string') writeString(o, n, indent, false);
  else if (Array.isArray(n)) o.write('[]');
  else if (n instanceof Map) o.write('{}');
  else if ('int' in n) o.write(n.int);
  else o.write(yamlFloat(n.float));
}

/** Writes a block collection whose first entry starts at the current position; `indent` = its column. */
function writeBlock(o: Out, n: Node[] | Map<string, Node>, indent: number): void {
  let first = true;
  if (Array.isArray(n)) {
    for (const item of n) {
      if (!first) o.indent(indent);
      first = false;
      o.write('- ');
      if (isCollection(item) && !isEmptyColl(item)) writeBlock(o, item, indent + 2);
      else writeScalar(o, item, indent + 2);
    }
    return;
  }
  for (const [k, v] of n) {
    if (!first) o.indent(indent);
    first = false;
    writeString(o, k, indent + 2, true);
    o.write(':');
    if (isCollection(v) && !isEmptyColl(v)) {
      // sequences under a mapping key are not indented (indentless)
      const childIndent = Array.isArray(v) ? indent : indent + 2;
      o.indent(childIndent);
      writeBlock(o, v, childIndent);
    } else {
      o.write(' ');
      writeScalar(o, v, indent + 2);
    }
  }
}

/** sigs.k8s.io/yaml.Marshal(v) without the trailing newline (PKO trims it). */
export function marshalGoYaml(v: GoValue): string {
  // Shared values are written out in full each time: count the expanded size first.
  if (v !== null && typeof v === 'object') chargeDeep(v);
  const n = toNode(v);
  const o = new Out();
  if (isCollection(n) && !isEmptyColl(n)) writeBlock(o, n, 0);
  else writeScalar(o, n, 2);
  return o.buf.replace(/\n$/, '');
}
