/**
 * Parse-tree nodes (Go's text/template/parse node types) and their String() forms, which Go
 * prints in error contexts (`executing "x" at <.a.b>`).
 */
import { quoteString } from './fmt.js';
import type { GoValue } from './types.js';

/** Where a node was parsed: for `NAME:LINE:COL` in exec errors. */
export interface TreeSource {
  parseName: string;
  text: string;
}

export const enum N {
  Text,
  Action,
  Bool,
  Chain,
  Command,
  Dot,
  Field,
  Identifier,
  If,
  List,
  Nil,
  Number,
  Pipe,
  Range,
  String,
  Template,
  Variable,
  With,
  Break,
  Continue,
  // Only inside the parser: {{else}} and {{end}}.
  Else,
  End,
}

interface Base {
  src: TreeSource;
  pos: number;
}

export interface TextNode extends Base { t: N.Text; text: string }
export interface ListNode extends Base { t: N.List; nodes: Node[] }
export interface ActionNode extends Base { t: N.Action; line: number; pipe: PipeNode }
export interface PipeNode extends Base { t: N.Pipe; line: number; isAssign: boolean; decl: VariableNode[]; cmds: CommandNode[] }
export interface CommandNode extends Base { t: N.Command; args: ArgNode[] }
export interface FieldNode extends Base { t: N.Field; ident: string[] }
export interface VariableNode extends Base { t: N.Variable; ident: string[] }
export interface ChainNode extends Base { t: N.Chain; node: ArgNode; field: string[] }
export interface IdentifierNode extends Base { t: N.Identifier; ident: string }
export interface DotNode extends Base { t: N.Dot }
export interface NilNode extends Base { t: N.Nil }
export interface BoolNode extends Base { t: N.Bool; val: boolean }
export interface NumberNode extends Base {
  t: N.Number;
  text: string;
  /** The value idealConstant gives it: bigint for ints (and char constants), number for floats. */
  value: GoValue;
  /** Set when the literal does not fit Go's int ("… overflows int" at execution). */
  overflow: boolean;
  isInt: boolean;
  isFloat: boolean;
  int?: bigint;
  float?: number;
}
export interface StringNode extends Base { t: N.String; quoted: string; text: string }
export interface IfNode extends Base { t: N.If | N.With; line: number; pipe: PipeNode; list: ListNode; elseList: ListNode | null }
export interface RangeNode extends Base { t: N.Range; line: number; pipe: PipeNode; list: ListNode; elseList: ListNode | null }
export interface TemplateNode extends Base { t: N.Template; line: number; name: string; pipe: PipeNode | null }
export interface BreakNode extends Base { t: N.Break; line: number }
export interface ContinueNode extends Base { t: N.Continue; line: number }
export interface ElseNode extends Base { t: N.Else; line: number }
export interface EndNode extends Base { t: N.End }

export type ArgNode = FieldNode | VariableNode | ChainNode | IdentifierNode | DotNode | NilNode | BoolNode | NumberNode | StringNode | PipeNode;
export type Node = TextNode | ListNode | ActionNode | IfNode | RangeNode | TemplateNode | BreakNode | ContinueNode | ElseNode | EndNode | ArgNode | CommandNode;

export function nodeString(n: Node): string {
  switch (n.t) {
    case N.Text: return quoteString(n.text);
    case N.List: return n.nodes.map(nodeString).join('');
    case N.Action: return `{{${nodeString(n.pipe)}}}`;
    case N.Pipe: {
      let s = '';
      if (n.decl.length > 0) {
        s = n.decl.map(nodeString).join(', ') + (n.isAssign ? ' = ' : ' := ');
      }
      return s + n.cmds.map(nodeString).join(' | ');
    }
    case N.Command:
      return n.args.map((a) => (a.t === N.Pipe ? `(${nodeString(a)})` : nodeString(a))).join(' ');
    case N.Field: return '.' + n.ident.join('.');
    case N.Variable: return n.ident.join('.');
    case N.Chain: {
      const inner = n.node.t === N.Pipe ? `(${nodeString(n.node)})` : nodeString(n.node);
      return inner + '.' + n.field.join('.');
    }
    case N.Identifier: return n.ident;
    case N.Dot: return '.';
    case N.Nil: return 'nil';
    case N.Bool: return n.val ? 'true' : 'false';
    case N.Number: return n.text;
    case N.String: return n.quoted;
    case N.If:
    case N.With: {
      const kw = n.t === N.If ? 'if' : 'with';
      const els = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
      return `{{${kw} ${nodeString(n.pipe)}}}${nodeString(n.list)}${els}{{end}}`;
    }
    case N.Range: {
      const els = n.elseList ? `{{else}}${nodeString(n.elseList)}` : '';
      return `{{range ${nodeString(n.pipe)}}}${nodeString(n.list)}${els}{{end}}`;
    }
    case N.Template:
      return n.pipe ? `{{template ${quoteString(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${quoteString(n.name)}}}`;
    case N.Break: return '{{break}}';
    case N.Continue: return '{{continue}}';
    case N.Else: return '{{else}}';
    case N.End: return '{{end}}';
  }
}

/** Go's IsEmptyTree: only whitespace text. */
export function isEmptyTree(n: Node | null): boolean {
  if (n === null) return true;
  switch (n.t) {
    case N.List: return n.nodes.every(isEmptyTree);
    case N.Text: return /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/.test(n.text);
    default: return false;
  }
}
