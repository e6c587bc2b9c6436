/**
 * Parser for Go's text/template (parse/parse.go): builds trees for the named template and its
 * {{define}}/{{block}} templates, with Go's scoping of variables, break/continue checks,
 * function existence checks and error messages (`template: NAME:LINE: …`).
 */
import { quoteString } from './fmt.js';
import { itemString, lex, T, type Item } from './lex.js';
import {
  N,
  isEmptyTree,
  nodeString,
  type ArgNode,
  type CommandNode,
  type ElseNode,
  type EndNode,
  type IfNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type RangeNode,
  type TemplateNode,
  type TreeSource,
  type VariableNode,
} from './nodes.js';
import { parseCharConstant, parseNumberLiteral, unquoteGoString } from './literals.js';

export interface Tree {
  name: string;
  src: TreeSource;
  root: ListNode;
}

export class ParseError extends Error {
  constructor(readonly template: string, readonly line: number, readonly detail: string) {
    super(`template: ${template}:${line}: ${detail}`);
  }
}

class Parser {
  private items: Item[];
  private idx = 0; // next item to read
  private maxFetched = 0; // Go's token[0]: the most recently lexed item, for error lines
  vars: string[] = ['$'];
  rangeDepth = 0;
  actionLine = 0;
  name: string;
  root: ListNode | null = null;

  constructor(
    readonly src: TreeSource,
    items: Item[],
    readonly hasFunc: (name: string) => boolean,
    readonly treeSet: Map<string, Tree>,
    name: string,
  ) {
    this.items = items;
    this.name = name;
  }

  // Parsers for define/block share the item stream.
  child(name: string): Parser {
    const p = new Parser(this.src, this.items, this.hasFunc, this.treeSet, name);
    p.idx = this.idx;
    p.maxFetched = this.maxFetched;
    return p;
  }
  private sync(from: Parser): void {
    this.idx = from.idx;
    this.maxFetched = Math.max(this.maxFetched, from.maxFetched);
  }

  private fetch(i: number): Item {
    const it = this.items[Math.min(i, this.items.length - 1)]!;
    if (i > this.maxFetched) this.maxFetched = Math.min(i, this.items.length - 1);
    return it;
  }
  next(): Item {
    return this.fetch(this.idx++);
  }
  backup(n = 1): void {
    this.idx -= n;
  }
  peek(): Item {
    return this.fetch(this.idx);
  }
  nextNonSpace(): Item {
    let it: Item;
    do it = this.next();
    while (it.typ === T.Space);
    return it;
  }
  peekNonSpace(): Item {
    const save = this.idx;
    const it = this.nextNonSpace();
    // Go backs up only one token here, which leaves the spaces consumed.
    this.idx = save;
    while (this.items[this.idx]?.typ === T.Space) this.idx++;
    return it;
  }

  errorf(msg: string): never {
    const line = this.items[this.maxFetched]!.line;
    throw new ParseError(this.src.parseName, line, msg);
  }
  unexpected(it: Item, context: string): never {
    if (it.typ === T.Error) {
      let extra = '';
      if (this.actionLine !== 0 && this.actionLine !== it.line) {
        extra = ` in action started at ${this.src.parseName}:${this.actionLine}`;
        if (it.val.endsWith(' action')) extra = extra.slice(' in action'.length);
      }
      this.errorf(it.val + extra);
    }
    this.errorf(`unexpected ${itemString(it)} in ${context}`);
  }
  expect(typ: T, context: string): Item {
    const it = this.nextNonSpace();
    if (it.typ !== typ) this.unexpected(it, context);
    return it;
  }

  list(pos: number): ListNode {
    return { t: N.List, src: this.src, pos, nodes: [] };
  }

  add(): void {
    const existing = this.treeSet.get(this.name);
    if (!existing || isEmptyTree(existing.root)) {
      this.treeSet.set(this.name, { name: this.name, src: this.src, root: this.root! });
      return;
    }
    if (!isEmptyTree(this.root)) this.errorf(`template: multiple definition of template ${quote(this.name)}`);
  }

  parse(): void {
    this.root = this.list(this.peek().pos);
    while (this.peek().typ !== T.EOF) {
      if (this.peek().typ === T.LeftDelim) {
        const save = this.idx;
        this.next();
        if (this.nextNonSpace().typ === T.Define) {
          const d = this.child('definition');
          d.parseDefinition();
          this.sync(d);
          continue;
        }
        this.idx = save;
      }
      const n = this.textOrAction();
      if (n.t === N.End || n.t === N.Else) this.errorf(`unexpected ${nodeString(n)}`);
      this.root.nodes.push(n);
    }
  }

  parseDefinition(): void {
    const context = 'define clause';
    const nameTok = this.nextNonSpace();
    if (nameTok.typ !== T.String && nameTok.typ !== T.RawString) this.unexpected(nameTok, context);
    this.name = this.unquote(nameTok.val);
    this.expect(T.RightDelim, context);
    const [list, end] = this.itemList();
    this.root = list;
    if (end.t !== N.End) this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add();
  }

  itemList(): [ListNode, ElseNode | EndNode] {
    const list = this.list(this.peekNonSpace().pos);
    while (this.peekNonSpace().typ !== T.EOF) {
      const n = this.textOrAction();
      if (n.t === N.End || n.t === N.Else) return [list, n];
      list.nodes.push(n);
    }
    this.errorf('unexpected EOF');
  }

  textOrAction(): Node {
    const it = this.nextNonSpace();
    switch (it.typ) {
      case T.Text:
        return { t: N.Text, src: this.src, pos: it.pos, text: it.val };
      case T.LeftDelim: {
        // Go's actionLine: lets lexing errors say where a multi-line action started.
        this.actionLine = it.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      default:
        this.unexpected(it, 'input');
    }
  }

  action(): Node {
    const it = this.nextNonSpace();
    switch (it.typ) {
      case T.Block: return this.blockControl();
      case T.Break: return this.breakControl(it, 'break');
      case T.Continue: return this.breakControl(it, 'continue');
      case T.Else: return this.elseControl();
      case T.End: return { t: N.End, src: this.src, pos: this.expect(T.RightDelim, 'end').pos };
      case T.If: return this.ifControl(N.If, 'if');
      case T.Range: return this.rangeControl();
      case T.Template: return this.templateControl();
      case T.With: return this.ifControl(N.With, 'with');
    }
    this.backup();
    const tok = this.peek();
    return { t: N.Action, src: this.src, pos: tok.pos, line: tok.line, pipe: this.pipeline('command', T.RightDelim) };
  }

  breakControl(tok: Item, word: 'break' | 'continue'): Node {
    const next = this.nextNonSpace();
    if (next.typ !== T.RightDelim) this.unexpected(next, `{{${word}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${word}}} outside {{range}}`);
    return { t: word === 'break' ? N.Break : N.Continue, src: this.src, pos: tok.pos, line: tok.line };
  }

  elseControl(): ElseNode {
    const peek = this.peekNonSpace();
    if (peek.typ === T.If || peek.typ === T.With) return { t: N.Else, src: this.src, pos: peek.pos, line: peek.line };
    const tok = this.expect(T.RightDelim, 'else');
    return { t: N.Else, src: this.src, pos: tok.pos, line: tok.line };
  }

  pipeline(context: string, end: T): PipeNode {
    const tok = this.peekNonSpace();
    const pipe: PipeNode = { t: N.Pipe, src: this.src, pos: tok.pos, line: tok.line, isAssign: false, decl: [], cmds: [] };
    decls: for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== T.Variable) break;
      this.next();
      const tokenAfterVariable = this.peek();
      const save = this.idx;
      const next = this.peekNonSpace();
      if (next.typ === T.Assign || next.typ === T.Declare) {
        pipe.isAssign = next.typ === T.Assign;
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
      } else if (next.typ === T.Char && next.val === ',') {
        this.nextNonSpace();
        pipe.decl.push(this.variable(v.pos, v.val));
        this.vars.push(v.val);
        if (context === 'range' && pipe.decl.length < 2) {
          const p = this.peekNonSpace().typ;
          if (p === T.Variable || p === T.RightDelim || p === T.RightParen) continue decls;
          this.errorf('range can only initialize variables');
        }
        this.errorf(`too many declarations in ${context}`);
      } else if (tokenAfterVariable.typ === T.Space) {
        this.idx = save - 1; // push back the variable and the space
      } else {
        this.idx = save - 1;
      }
      break;
    }
    for (;;) {
      const it = this.nextNonSpace();
      if (it.typ === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      switch (it.typ) {
        case T.Bool: case T.CharConstant: case T.Complex: case T.Dot: case T.Field: case T.Identifier:
        case T.Number: case T.Nil: case T.RawString: case T.String: case T.Variable: case T.LeftParen:
          this.backup();
          pipe.cmds.push(this.command());
          break;
        default:
          this.unexpected(it, context);
      }
    }
  }

  checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    for (let i = 1; i < pipe.cmds.length; i++) {
      const a = pipe.cmds[i]!.args[0]!;
      switch (a.t) {
        case N.Bool: case N.Dot: case N.Nil: case N.Number: case N.String:
          this.errorf(`non executable command in pipeline stage ${i + 1}`);
      }
    }
  }

  parseControl(context: 'if' | 'with' | 'range'): [PipeNode, ListNode, ListNode | null] {
    const mark = this.vars.length;
    try {
      const pipe = this.pipeline(context, T.RightDelim);
      if (context === 'range') this.rangeDepth++;
      const [list, next] = this.itemList();
      if (context === 'range') this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.t === N.Else) {
        const pk = this.peek().typ;
        if ((context === 'if' && pk === T.If) || (context === 'with' && pk === T.With)) {
          this.next();
          elseList = this.list(next.pos);
          elseList.nodes.push(this.ifControl(context === 'if' ? N.If : N.With, context));
        } else {
          const [el, end] = this.itemList();
          elseList = el;
          if (end.t !== N.End) this.errorf(`expected end; found ${nodeString(end)}`);
        }
      }
      return [pipe, list, elseList];
    } finally {
      this.vars.length = mark;
    }
  }

  ifControl(t: N.If | N.With, context: 'if' | 'with'): IfNode {
    const [pipe, list, elseList] = this.parseControl(context);
    return { t, src: this.src, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
  }

  rangeControl(): RangeNode {
    const [pipe, list, elseList] = this.parseControl('range');
    return { t: N.Range, src: this.src, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
  }

  templateName(tok: Item, context: string): string {
    if (tok.typ === T.String || tok.typ === T.RawString) return this.unquote(tok.val);
    this.unexpected(tok, context);
  }

  blockControl(): TemplateNode {
    const context = 'block clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    const pipe = this.pipeline(context, T.RightDelim);
    const b = this.child(name);
    const [list, end] = b.itemList();
    b.root = list;
    if (end.t !== N.End) {
      this.sync(b);
      this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    }
    b.add();
    this.sync(b);
    return { t: N.Template, src: this.src, pos: tok.pos, line: tok.line, name, pipe };
  }

  templateControl(): TemplateNode {
    const context = 'template clause';
    const tok = this.nextNonSpace();
    const name = this.templateName(tok, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== T.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, T.RightDelim);
    }
    return { t: N.Template, src: this.src, pos: tok.pos, line: tok.line, name, pipe };
  }

  command(): CommandNode {
    const cmd: CommandNode = { t: N.Command, src: this.src, pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const it = this.next();
      if (it.typ === T.Space) continue;
      if (it.typ === T.RightDelim || it.typ === T.RightParen) this.backup();
      else if (it.typ !== T.Pipe) this.unexpected(it, 'operand');
      break;
    }
    if (cmd.args.length === 0) this.errorf('empty command');
    return cmd;
  }

  operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().typ === T.Field) {
      const pos = this.peek().pos;
      const fields: string[] = [];
      while (this.peek().typ === T.Field) fields.push(this.next().val.slice(1));
      switch (node.t) {
        case N.Field:
          return { t: N.Field, src: this.src, pos, ident: [...node.ident, ...fields] };
        case N.Variable:
          return { t: N.Variable, src: this.src, pos, ident: [...node.ident, ...fields] };
        case N.Bool: case N.String: case N.Number: case N.Nil: case N.Dot:
          this.errorf(`unexpected . after term ${quote(nodeString(node))}`);
        default:
          return { t: N.Chain, src: this.src, pos, node, field: fields };
      }
    }
    return node;
  }

  term(): ArgNode | null {
    const it = this.nextNonSpace();
    switch (it.typ) {
      case T.Identifier:
        if (!this.hasFunc(it.val)) this.errorf(`function ${quote(it.val)} not defined`);
        return { t: N.Identifier, src: this.src, pos: it.pos, ident: it.val };
      case T.Dot:
        return { t: N.Dot, src: this.src, pos: it.pos };
      case T.Nil:
        return { t: N.Nil, src: this.src, pos: it.pos };
      case T.Variable:
        return this.useVar(it.pos, it.val);
      case T.Field:
        return { t: N.Field, src: this.src, pos: it.pos, ident: [it.val.slice(1)] };
      case T.Bool:
        return { t: N.Bool, src: this.src, pos: it.pos, val: it.val === 'true' };
      case T.CharConstant:
      case T.Complex:
      case T.Number:
        return this.number(it);
      case T.LeftParen: {
        const pipe = this.pipeline('parenthesized pipeline', T.RightParen);
        return pipe;
      }
      case T.String:
      case T.RawString:
        return { t: N.String, src: this.src, pos: it.pos, quoted: it.val, text: this.unquote(it.val) };
    }
    this.backup();
    return null;
  }

  number(it: Item): NumberNode {
    if (it.typ === T.Complex) this.errorf(`complex numbers are not supported: ${quote(it.val)}`);
    const r = it.typ === T.CharConstant ? parseCharConstant(it.val) : parseNumberLiteral(it.val);
    if (typeof r === 'string') this.errorf(r);
    return { t: N.Number, src: this.src, pos: it.pos, text: it.val, ...r };
  }

  unquote(s: string): string {
    const r = unquoteGoString(s);
    if (r === null) this.errorf('invalid syntax');
    return r;
  }

  variable(pos: number, name: string): VariableNode {
    return { t: N.Variable, src: this.src, pos, ident: name.split('.') };
  }

  useVar(pos: number, name: string): VariableNode {
    const v = this.variable(pos, name);
    if (!this.vars.includes(v.ident[0]!)) this.errorf(`undefined variable ${quote(v.ident[0]!)}`);
    return v;
  }
}

function quote(s: string): string {
  return quoteString(s);
}

/**
 * Parses `text` as template `name`; returns every tree it defines (the named one plus its
 * {{define}}/{{block}}s). Throws ParseError.
 */
export function parseTemplate(name: string, text: string, hasFunc: (name: string) => boolean): Map<string, Tree> {
  const treeSet = new Map<string, Tree>();
  const src: TreeSource = { parseName: name, text };
  const items = lex(text, !hasFunc('break'), !hasFunc('continue'));
  const p = new Parser(src, items, hasFunc, treeSet, name);
  try {
    p.parse();
  } catch (e) {
    if (e instanceof RangeError) throw new ParseError(name, 1, 'template nesting too deep');
    throw e;
  }
  p.add();
  return treeSet;
}
