/**
 * Executor for parsed templates, following text/template's exec.go: the same evaluation order,
 * the same "current node" for error contexts, Go's distinction between a nil interface (`null`)
 * and no value at all (`undefined`, Go's invalid reflect.Value), and whether a receiver was
 * statically `interface {}` (elements of JSON-like maps and slices) for error messages.
 */
import { formatValue, goTypeName, quoteString, sortedKeys } from './fmt.js';
import { BuiltinError, builtins, elemType, isPlainMap, truth, utf8Length, zeroValue, type FuncSignature, type V } from './builtins.js';
import {
  N,
  nodeString,
  type ArgNode,
  type ChainNode,
  type CommandNode,
  type FieldNode,
  type IdentifierNode,
  type IfNode,
  type ListNode,
  type Node,
  type NumberNode,
  type PipeNode,
  type RangeNode,
  type TemplateNode,
  type VariableNode,
} from './nodes.js';
import type { Tree } from './parse.js';
import { GoTyped, type GoValue, type TemplateFunc } from './types.js';
import { chargeResult, WorkLimitError } from './budget.js';

/** Thrown for parse and execution errors; `message` is exactly Go's error text. */
export class GoTemplateError extends Error {
  constructor(
    message: string,
    readonly kind: 'parse' | 'exec',
    /** The file (parse name) the line and column refer to. */
    readonly template: string,
    readonly line: number,
    readonly column?: number,
    /** For exec errors: the template being executed (a {{define}} name or the file name). */
    readonly executing?: string,
  ) {
    super(message);
    this.name = 'GoTemplateError';
  }
}

/** Internal: a resource limit was hit; propagates through function calls unwrapped. */
export class LimitError extends GoTemplateError {}

const MISSING: unique symbol = Symbol('missing');
type Final = V | typeof MISSING;

export interface ExecEnv {
  lookup(name: string): Tree | undefined;
  funcs: Record<string, TemplateFunc>;
  missingKey: 'default' | 'zero' | 'error';
  maxSteps: number;
  maxOutput: number;
  maxDepth: number;
  /** Work budget for functions (budget.ts). */
  maxWork: number;
}

const STATUS_NORMAL = 0;
const STATUS_BREAK = 1;
const STATUS_CONTINUE = 2;

const utf8Column = utf8Length;

/** Go's ErrorContext location: NAME:LINE:COL (column = byte offset within the line). */
export function nodeLocation(n: Node): { name: string; line: number; column: number } {
  const text = n.src.text;
  const pos = Math.min(n.pos, text.length);
  const lastNl = text.lastIndexOf('\n', pos - 1);
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) line++;
  const column = lastNl < 0 ? utf8Column(text, 0, pos) : utf8Column(text, lastNl + 1, pos);
  return { name: n.src.parseName, line, column };
}

/** A function's signature: builtins carry theirs; a FuncMap function may carry `goSignature`. */
function signatureOf(fn: unknown): FuncSignature | undefined {
  return (fn as { goSignature?: FuncSignature }).goSignature;
}

export class Exec {
  out = '';
  /**
   * When set, every printed action's [start, end) offsets in `out`, flattened: the text between
   * them is the template's literal text (callers use this to reuse a parse of that text).
   */
  holes: number[] | null = null;
  private node: Node | null = null;
  private varNames: string[] = [];
  private varVals: V[] = [];
  private varIface: boolean[] = [];
  private lastIface = false;
  steps = 0;

  constructor(
    private readonly env: ExecEnv,
    private tmplName: string,
    public depth: number,
  ) {}

  // ---- errors

  errorf(msg: string): never {
    const name = this.tmplName;
    const n = this.node;
    if (n === null) throw new GoTemplateError(`template: ${name}: ${msg}`, 'exec', name, 0, undefined, name);
    const loc = nodeLocation(n);
    throw new GoTemplateError(
      `template: ${loc.name}:${loc.line}:${loc.column}: executing ${quoteString(name)} at <${nodeString(n)}>: ${msg}`,
      'exec',
      loc.name,
      loc.line,
      loc.column,
      name,
    );
  }

  private limitf(msg: string): never {
    try {
      this.errorf(msg);
    } catch (e) {
      // errorf itself can run out of stack (formatting the location when the limit is the
      // stack): that RangeError goes on up, where a frame with stack left reports it. Wrapped
      // as a LimitError it would have become the message ("Maximum call stack size exceeded").
      if (!(e instanceof GoTemplateError)) throw e;
      throw new LimitError(e.message, 'exec', e.template, e.line, e.column, e.executing);
    }
  }

  private step(): void {
    if (++this.steps > this.env.maxSteps) this.limitf(`execution stopped after ${this.env.maxSteps} steps (limit)`);
  }

  private write(s: string): void {
    this.out += s;
    if (this.out.length > this.env.maxOutput) this.limitf(`output exceeds the limit of ${this.env.maxOutput} characters`);
  }

  // ---- variables

  push(name: string, value: V, iface: boolean): void {
    this.varNames.push(name);
    this.varVals.push(value);
    this.varIface.push(iface);
  }
  private pop(mark: number): void {
    // Setting an array's length is slow in V8; most scopes declare nothing.
    while (this.varNames.length > mark) {
      this.varNames.pop();
      this.varVals.pop();
      this.varIface.pop();
    }
  }
  private setVar(name: string, value: V, iface: boolean): void {
    for (let i = this.varNames.length - 1; i >= 0; i--) {
      if (this.varNames[i] === name) {
        this.varVals[i] = value;
        this.varIface[i] = iface;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }
  private setTopVar(n: number, value: V, iface: boolean): void {
    const i = this.varNames.length - n;
    this.varVals[i] = value;
    this.varIface[i] = iface;
  }
  private varIndex(name: string): number {
    for (let i = this.varNames.length - 1; i >= 0; i--) if (this.varNames[i] === name) return i;
    this.errorf(`undefined variable: ${name}`);
  }

  // ---- walking

  run(tree: Tree, data: V): void {
    this.push('$', data, false);
    try {
      this.walk(data, false, tree.root);
    } catch (e) {
      // printing a value ({{ $big }}) charges the budget outside any function call
      if (e instanceof WorkLimitError) this.limitf(e.message);
      throw e;
    }
  }

  private walk(dot: V, dotIface: boolean, node: Node): number {
    this.node = node;
    switch (node.t) {
      case N.Text:
        this.write(node.text);
        return STATUS_NORMAL;
      case N.List: {
        const nodes = node.nodes;
        for (let i = 0; i < nodes.length; i++) {
          const r = this.walk(dot, dotIface, nodes[i]!);
          if (r !== STATUS_NORMAL) return r;
        }
        return STATUS_NORMAL;
      }
      case N.Action: {
        this.step();
        const val = this.evalPipeline(dot, dotIface, node.pipe);
        if (node.pipe.decl.length === 0) {
          const start = this.out.length;
          this.printValue(node, val);
          if (this.holes !== null) this.holes.push(start, this.out.length);
        }
        return STATUS_NORMAL;
      }
      case N.If:
      case N.With:
        return this.walkIfOrWith(dot, dotIface, node);
      case N.Range:
        return this.walkRange(dot, dotIface, node);
      case N.Template:
        this.walkTemplate(dot, dotIface, node);
        return STATUS_NORMAL;
      case N.Break:
        return STATUS_BREAK;
      case N.Continue:
        return STATUS_CONTINUE;
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  // An error abandons the whole execution, so scopes are popped on normal exits only
  // (no try/finally: smaller stack frames, deeper recursion before JavaScript runs out).
  private walkIfOrWith(dot: V, dotIface: boolean, node: IfNode): number {
    this.step();
    const mark = this.varNames.length;
    const val = this.evalPipeline(dot, dotIface, node.pipe);
    let st = STATUS_NORMAL;
    if (truth(val)) st = node.t === N.With ? this.walk(val, false, node.list) : this.walk(dot, dotIface, node.list);
    else if (node.elseList) st = this.walk(dot, dotIface, node.elseList);
    this.pop(mark);
    return st;
  }

  private walkRange(dot: V, dotIface: boolean, r: RangeNode): number {
    this.node = r;
    this.step();
    const mark = this.varNames.length;
    const val0 = this.evalPipeline(dot, dotIface, r.pipe);
    const val = val0 instanceof GoTyped ? unwrapAll(val0) : val0;
    const bodyMark = this.varNames.length;
    let ran = false;
    if (Array.isArray(val)) {
      if (val.length > 0) {
        ran = true;
        const iface = !(val0 instanceof GoTyped);
        const zero = iface ? null : zeroValue(elemType(val0));
        for (let i = 0; i < val.length; i++) {
          let e: V = val[i];
          if (e === null && !iface) e = zero;
          if (this.rangeIteration(r, bodyMark, BigInt(i), e, iface) === STATUS_BREAK) break;
        }
      }
    } else if (typeof val === 'bigint') {
      if (r.pipe.decl.length > 1) this.errorf(`can't use ${formatValue(val)} to iterate over more than one variable`);
      if (val > 0n) {
        ran = true;
        // The elements have the ranged value's type (uint8 from `index "str" 0` stays uint8).
        const typ = val0 instanceof GoTyped ? val0.goType : null;
        for (let i = 0n; i < val; i++) {
          if (this.rangeIteration(r, bodyMark, undefined, typ ? new GoTyped(typ, i) : i, false) === STATUS_BREAK) break;
        }
      }
    } else if (isPlainMap(val)) {
      const keys = sortedKeys(val);
      if (keys.length > 0) {
        ran = true;
        const iface = !(val0 instanceof GoTyped);
        for (const k of keys) {
          if (this.rangeIteration(r, bodyMark, k, val[k]!, iface) === STATUS_BREAK) break;
        }
      }
    } else if (val !== undefined && val !== null) {
      this.errorf(`range can't iterate over ${formatValue(val0 as GoValue)}`);
    }
    if (!ran && r.elseList) {
      const st = this.walk(dot, dotIface, r.elseList);
      this.pop(mark);
      return st;
    }
    this.pop(mark);
    return STATUS_NORMAL;
  }

  private rangeIteration(r: RangeNode, bodyMark: number, index: V, elem: V, elemIface: boolean): number {
    this.step();
    const decl = r.pipe.decl;
    if (decl.length > 0) {
      if (r.pipe.isAssign) {
        if (decl.length > 1) this.setVar(decl[0]!.ident[0]!, index, false);
        else this.setVar(decl[0]!.ident[0]!, elem, elemIface);
      } else this.setTopVar(1, elem, elemIface);
    }
    if (decl.length > 1) {
      if (r.pipe.isAssign) this.setVar(decl[1]!.ident[0]!, elem, elemIface);
      else this.setTopVar(2, index, false);
    }
    const st = this.walk(elem, elemIface, r.list);
    this.pop(bodyMark);
    return st;
  }

  private walkTemplate(dot: V, dotIface: boolean, t: TemplateNode): void {
    this.node = t;
    this.step();
    const tree = this.env.lookup(t.name);
    if (!tree) this.errorf(`template ${quoteString(t.name)} not defined`);
    if (this.depth >= this.env.maxDepth) this.limitf(`exceeded maximum template depth (${this.env.maxDepth})`);
    const newDot = t.pipe ? this.evalPipeline(dot, dotIface, t.pipe) : undefined;
    const savedNames = this.varNames;
    const savedVals = this.varVals;
    const savedIface = this.varIface;
    const savedName = this.tmplName;
    this.varNames = ['$'];
    this.varVals = [newDot];
    this.varIface = [false];
    this.tmplName = t.name;
    this.depth++;
    try {
      this.walk(newDot, false, tree.root);
    } catch (e) {
      if (e instanceof RangeError) this.stackExhausted(t);
      throw e;
    }
    this.depth--;
    this.varNames = savedNames;
    this.varVals = savedVals;
    this.varIface = savedIface;
    this.tmplName = savedName;
  }

  /**
   * JavaScript ran out of stack before maxDepth was reached (deep recursion through heavy
   * bodies or re-entrant calls). Reported at the innermost template call that has stack left.
   */
  private stackExhausted(at: Node): never {
    const name = this.tmplName;
    this.node = at;
    this.limitf(`templates nest too deeply: the JavaScript stack ran out at depth ${this.depth} (the depth limit is ${this.env.maxDepth}) in ${quoteString(name)}`);
  }

  private printValue(node: Node, v: V): void {
    this.node = node;
    if (v === undefined) {
      this.write('<no value>');
      return;
    }
    if (typeof v === 'string') {
      this.write(v);
      return;
    }
    if (typeof v === 'function') this.errorf(`can't print ${nodeString(node)} of type ${goTypeName(v)}`);
    this.write(formatValue(v));
  }

  // ---- evaluation

  evalPipeline(dot: V, dotIface: boolean, pipe: PipeNode): V {
    this.node = pipe;
    let value: Final = MISSING;
    const cmds = pipe.cmds;
    for (let i = 0; i < cmds.length; i++) {
      value = this.evalCommand(dot, dotIface, cmds[i]!, value);
      // A nil interface{} result becomes "no value", like Go's reflect.Value.Elem.
      if (value === null) value = undefined;
    }
    const v = value as V;
    const decl = pipe.decl;
    for (let i = 0; i < decl.length; i++) {
      if (pipe.isAssign) this.setVar(decl[i]!.ident[0]!, v, false);
      else this.push(decl[i]!.ident[0]!, v, false);
    }
    return v;
  }

  private notAFunction(args: ArgNode[], final: Final): void {
    if (args.length > 1 || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args[0]!)}`);
  }

  private evalCommand(dot: V, dotIface: boolean, cmd: CommandNode, final: Final): V {
    const first = cmd.args[0]!;
    switch (first.t) {
      case N.Field:
        return this.evalFieldNode(dot, dotIface, first, cmd.args, final);
      case N.Chain:
        return this.evalChainNode(dot, dotIface, first, cmd.args, final);
      case N.Identifier:
        return this.evalFunction(dot, dotIface, first, cmd, cmd.args, final);
      case N.Pipe:
        this.notAFunction(cmd.args, final);
        return this.evalPipeline(dot, dotIface, first);
      case N.Variable:
        return this.evalVariableNode(dot, dotIface, first, cmd.args, final);
    }
    this.node = first;
    this.notAFunction(cmd.args, final);
    switch (first.t) {
      case N.Bool:
        return first.val;
      case N.Dot:
        return dot;
      case N.Nil:
        this.errorf('nil is not a command');
      case N.Number:
        return this.idealConstant(first);
      case N.String:
        return first.text;
    }
  }

  private idealConstant(n: NumberNode): V {
    this.node = n;
    if (n.overflow) this.errorf(`${n.text} overflows int`);
    return n.value;
  }

  private evalFieldNode(dot: V, dotIface: boolean, field: FieldNode, args: ArgNode[] | null, final: Final): V {
    this.node = field;
    return this.evalFieldChain(dot, dotIface, dot, dotIface, field, field.ident, args, final);
  }

  private evalChainNode(dot: V, dotIface: boolean, chain: ChainNode, args: ArgNode[] | null, final: Final): V {
    this.node = chain;
    if (chain.node.t === N.Nil) this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, dotIface, 'reflect', chain.node);
    return this.evalFieldChain(dot, dotIface, pipe, false, chain, chain.field, args, final);
  }

  private evalVariableNode(dot: V, dotIface: boolean, v: VariableNode, args: ArgNode[] | null, final: Final): V {
    this.node = v;
    const i = this.varIndex(v.ident[0]!);
    const value = this.varVals[i];
    if (v.ident.length === 1) {
      if (args) this.notAFunction(args, final);
      else if (final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(v)}`);
      return value;
    }
    return this.evalFieldChain(dot, dotIface, value, this.varIface[i]!, v, v.ident.slice(1), args, final);
  }

  private evalFieldChain(
    dot: V,
    dotIface: boolean,
    receiver: V,
    recvIface: boolean,
    node: Node,
    ident: string[],
    args: ArgNode[] | null,
    final: Final,
  ): V {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) {
      receiver = this.evalField(ident[i]!, node, null, MISSING, receiver, recvIface);
      recvIface = this.lastIface;
    }
    return this.evalField(ident[n - 1]!, node, args, final, receiver, recvIface);
  }

  private evalField(name: string, node: Node, args: ArgNode[] | null, final: Final, receiver: V, recvIface: boolean): V {
    this.lastIface = false;
    if (receiver === undefined) {
      if (this.env.missingKey === 'error') this.errorf(`nil data; no entry for key ${quoteString(name)}`);
      return undefined;
    }
    const typ = recvIface ? 'interface {}' : goTypeName(receiver);
    if (receiver === null) this.errorf(`nil pointer evaluating ${typ}.${name}`);
    const map = receiver instanceof GoTyped ? receiver.value : receiver;
    if (isPlainMap(map)) {
      if ((args !== null && args.length > 1) || final !== MISSING) this.errorf(`${name} is not a method but has arguments`);
      const et = receiver instanceof GoTyped ? elemType(receiver) : 'interface {}';
      if (Object.prototype.hasOwnProperty.call(map, name)) {
        this.lastIface = et === 'interface {}';
        const v = map[name]!;
        return v === null && et !== 'interface {}' ? zeroValue(et) : v;
      }
      switch (this.env.missingKey) {
        case 'default':
          return undefined;
        case 'zero':
          this.lastIface = et === 'interface {}';
          return zeroValue(et);
        case 'error':
          this.errorf(`map has no entry for key ${quoteString(name)}`);
      }
    }
    this.errorf(`can't evaluate field ${name} in type ${typ}`);
  }

  private evalFunction(dot: V, dotIface: boolean, node: IdentifierNode, cmd: Node, args: ArgNode[] | null, final: Final): V {
    this.node = node;
    const name = node.ident;
    const user = this.env.funcs[name];
    if (user !== undefined) return this.evalCall(dot, dotIface, user, signatureOf(user), false, cmd, name, args, final);
    const b = builtins[name];
    if (b === undefined) this.errorf(`${quoteString(name)} is not a defined function`);
    return this.evalCall(dot, dotIface, b.fn, b.sig, true, cmd, name, args, final);
  }

  private evalCall(
    dot: V,
    dotIface: boolean,
    fn: (...a: never[]) => unknown,
    sig: FuncSignature | undefined,
    isBuiltin: boolean,
    node: Node,
    name: string,
    argNodes: ArgNode[] | null,
    final: Final,
  ): V {
    const nArgs = argNodes ? argNodes.length - 1 : 0;
    const numIn = nArgs + (final !== MISSING ? 1 : 0);
    let numFixed = nArgs;
    if (sig) {
      if (sig.variadic) {
        numFixed = sig.params.length - 1;
        if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${numFixed} got ${nArgs}`);
      } else if (numIn !== sig.params.length) {
        this.errorf(`wrong number of args for ${name}: want ${sig.params.length} got ${numIn}`);
      }
    }

    if (isBuiltin && (name === 'and' || name === 'or')) {
      let v: V = undefined;
      for (let i = 1; i <= nArgs; i++) {
        v = this.evalArg(dot, dotIface, 'reflect', argNodes![i]!);
        if (truth(v) === (name === 'or')) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }

    const argv: V[] = new Array(numIn);
    for (let i = 0; i < nArgs; i++) argv[i] = this.evalArg(dot, dotIface, paramKind(sig, numFixed, i), argNodes![i + 1]!);
    if (final !== MISSING) argv[nArgs] = this.validateType(final, paramKind(sig, numFixed, nArgs));

    if (isBuiltin && name === 'call') return this.builtinCall(argv, argNodes, node);

    let result: unknown;
    try {
      if (isBuiltin) result = (fn as (a: V[]) => V)(argv);
      else {
        for (let i = 0; i < argv.length; i++) if (argv[i] === undefined) argv[i] = null;
        result = (fn as (...a: V[]) => unknown)(...argv);
      }
      chargeResult(result);
    } catch (e) {
      if (e instanceof LimitError) throw e;
      if (e instanceof WorkLimitError) {
        this.node = node;
        this.limitf(e.message);
      }
      if (e instanceof RangeError) this.stackExhausted(node);
      this.node = node;
      this.errorf(`error calling ${name}: ${errorMessage(e)}`);
    }
    return result === undefined && !isBuiltin ? null : (result as V);
  }

  private builtinCall(argv: V[], argNodes: ArgNode[] | null, node: Node): V {
    const f = argv[0];
    this.node = node;
    if (f === undefined || f === null) this.errorf('error calling call: call of nil');
    if (typeof f !== 'function') {
      this.errorf(`error calling call: non-function ${argNodes ? nodeString(argNodes[1]!) : '?'} of type ${goTypeName(f)}`);
    }
    try {
      const r = (f as (...a: GoValue[]) => GoValue)(...argv.slice(1).map((a) => (a === undefined ? null : a)));
      chargeResult(r);
      return r === undefined ? null : r;
    } catch (e) {
      if (e instanceof LimitError || e instanceof RangeError) throw e;
      if (e instanceof WorkLimitError) {
        this.node = node;
        this.limitf(e.message);
      }
      this.node = node;
      this.errorf(`error calling call: ${errorMessage(e)}`);
    }
  }

  private validateType(v: V, kind: string): V {
    if (v === undefined) {
      if (kind === 'reflect') return undefined;
      if (kind === 'any' || canBeNil(kind)) return null;
      this.errorf(`invalid value; expected ${kind}`);
    }
    if (kind === 'reflect' || kind === 'any') return v;
    const t = v === null ? 'interface {}' : goTypeName(v);
    if (t === kind) return v;
    if (kind === 'interface {}') return v;
    this.errorf(`wrong type for value; expected ${kind}; got ${t}`);
  }

  private evalArg(dot: V, dotIface: boolean, kind: string, n: ArgNode): V {
    this.node = n;
    switch (n.t) {
      case N.Dot:
        return this.validateType(dot, kind);
      case N.Nil:
        if (kind === 'reflect') return undefined;
        if (kind === 'any' || canBeNil(kind)) return null;
        this.errorf(`cannot assign nil to ${kind}`);
      case N.Field:
        return this.validateType(this.evalFieldNode(dot, dotIface, n, [n], MISSING), kind);
      case N.Variable:
        return this.validateType(this.evalVariableNode(dot, dotIface, n, null, MISSING), kind);
      case N.Pipe:
        return this.validateType(this.evalPipeline(dot, dotIface, n), kind);
      case N.Identifier:
        return this.validateType(this.evalFunction(dot, dotIface, n, n, null, MISSING), kind);
      case N.Chain:
        return this.validateType(this.evalChainNode(dot, dotIface, n, null, MISSING), kind);
    }
    switch (kind) {
      case 'reflect':
      case 'any':
      case 'interface {}':
        switch (n.t) {
          case N.Bool: return n.val;
          case N.Number: return this.idealConstant(n);
          case N.String: return n.text;
        }
        break;
      case 'bool':
        if (n.t === N.Bool) return n.val;
        this.errorf(`expected bool; found ${nodeString(n)}`);
      case 'string':
        if (n.t === N.String) return n.text;
        this.errorf(`expected string; found ${nodeString(n)}`);
      case 'int': case 'int64': case 'int32': case 'int16': case 'int8':
        if (n.t === N.Number && n.isInt) return kind === 'int' ? n.int! : new GoTyped(kind, n.int!);
        this.errorf(`expected integer; found ${nodeString(n)}`);
      case 'float64': case 'float32':
        if (n.t === N.Number && n.isFloat) return n.float!;
        this.errorf(`expected float; found ${nodeString(n)}`);
    }
    this.errorf(`can't handle ${nodeString(n)} for arg of type ${kind}`);
  }
}

function paramKind(sig: FuncSignature | undefined, numFixed: number, i: number): string {
  if (!sig) return 'any';
  if (sig.variadic && i >= numFixed) return sig.params[sig.params.length - 1]!;
  return sig.params[i] ?? 'any';
}

function canBeNil(kind: string): boolean {
  return kind.startsWith('[]') || kind.startsWith('map[') || kind.startsWith('*') || kind.startsWith('func') || kind === 'interface {}';
}

function unwrapAll(v: GoTyped): V {
  let x: V = v;
  while (x instanceof GoTyped) x = x.value;
  return x;
}

function errorMessage(e: unknown): string {
  if (e instanceof BuiltinError) return e.message;
  if (e instanceof Error) return e.message;
  return String(e);
}

export { MISSING };
export type { ListNode };
