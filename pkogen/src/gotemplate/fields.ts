/**
 * Static analysis: which field chains of the root data a template set reads, e.g.
 * `{{.config.image}}` → ['config', 'image']. Used to check that every `.config.X` a package
 * reads is declared in its schema.
 *
 * Followed: `.a.b` on a known dot; `$` and `$x.a` for variables bound to known chains
 * (`$x := .config`); `with` (dot becomes the pipeline's chain); `range` (dot becomes the
 * element, written as the chain plus '*', e.g. ['config', 'items', '*', 'name']); parenthesised
 * chains `(.a).b`; `index X "k" …`, sprig's `get X "k"`, `hasKey X "k"` and `dig "k1" "k2" d X`
 * with string literal keys; `{{template "n" X}}`/`{{block}}`
 * and the configured include-like functions (`include "n" X`) into the named template with the
 * chain of X as its dot and `$`.
 * Not followed (limits): chains through other function results (e.g. `default`, `merge`,
 * `fromYaml`), keys computed at run time, dynamic template names; a variable reassigned
 * (`$x = …`) inside if/with/range keeps its earlier chain after the block; a {{define}} is only
 * analysed through calls that reach it from a top-level template.
 */
import { N, type ArgNode, type CommandNode, type ListNode, type Node, type PipeNode } from './nodes.js';
import type { Tree } from './parse.js';
import type { TemplateSet } from './template.js';

type Path = string[] | null;

export interface ReferencedFieldsOptions {
  /** Templates to start from, with the root data as dot (default: every top-level file template). */
  entries?: string[];
  /** Functions that execute a named template like `template` does: `include "name" data` (default ['include']). */
  includeFuncs?: string[];
}

class Analyzer {
  readonly found = new Map<string, string[]>();
  /** Chains looked up by `hasKey`/`dig`, which never fail on a missing key. */
  readonly guarded = new Map<string, string[]>();
  private readonly visited = new Set<string>();
  private readonly calls = new Map<string, number>();
  private budget = 1_000_000;

  constructor(
    private readonly lookup: (name: string) => Tree | undefined,
    private readonly includeFuncs: Set<string>,
  ) {}

  private record(p: Path): void {
    if (p && p.length > 0) this.found.set(p.join('\u0000'), p);
  }

  runTemplate(name: string, dot: Path): void {
    const tree = this.lookup(name);
    if (!tree) return;
    const key = name + '\u0001' + (dot === null ? '?' : dot.join('\u0000'));
    if (this.visited.has(key)) return;
    this.visited.add(key);
    // Recursive templates that descend (r → r .child → …) would never revisit the same chain.
    const n = (this.calls.get(name) ?? 0) + 1;
    this.calls.set(name, n);
    if (n > 32) return;
    this.walk(tree.root, dot, new Map([['$', dot]]));
  }

  private walk(node: Node | ListNode, dot: Path, vars: Map<string, Path>): void {
    if (--this.budget < 0) return;
    switch (node.t) {
      case N.List:
        for (const n of node.nodes) this.walk(n, dot, vars);
        return;
      case N.Action:
        this.pipe(node.pipe, dot, vars);
        return;
      case N.If: {
        const inner = new Map(vars);
        this.pipe(node.pipe, dot, inner);
        this.walk(node.list, dot, inner);
        if (node.elseList) this.walk(node.elseList, dot, inner);
        return;
      }
      case N.With: {
        const inner = new Map(vars);
        const p = this.pipe(node.pipe, dot, inner);
        this.walk(node.list, p, inner);
        if (node.elseList) this.walk(node.elseList, dot, inner);
        return;
      }
      case N.Range: {
        const inner = new Map(vars);
        const p = this.pipe(node.pipe, dot, inner);
        const elem = p ? [...p, '*'] : null;
        const decl = node.pipe.decl;
        if (decl.length === 1) inner.set(decl[0]!.ident[0]!, elem);
        if (decl.length === 2) {
          inner.set(decl[0]!.ident[0]!, null);
          inner.set(decl[1]!.ident[0]!, elem);
        }
        this.walk(node.list, elem, inner);
        if (node.elseList) this.walk(node.elseList, dot, inner);
        return;
      }
      case N.Template: {
        const p = node.pipe ? this.pipe(node.pipe, dot, vars) : null;
        this.runTemplate(node.name, p);
        return;
      }
      default:
        return;
    }
  }

  private pipe(pipe: PipeNode, dot: Path, vars: Map<string, Path>): Path {
    let result: Path = null;
    let first = true;
    for (const cmd of pipe.cmds) {
      result = this.command(cmd, dot, vars, first ? undefined : result);
      first = false;
    }
    for (const d of pipe.decl) vars.set(d.ident[0]!, result);
    return result;
  }

  private command(cmd: CommandNode, dot: Path, vars: Map<string, Path>, final: Path | undefined): Path {
    const head = cmd.args[0]!;
    if (head.t === N.Identifier) {
      const args = cmd.args.slice(1).map((a) => this.arg(a, dot, vars));
      if (final !== undefined) args.push(final);
      const lits = cmd.args.slice(1).map((a) => (a.t === N.String ? a.text : null));
      if (head.ident === 'index' && args[0]) {
        const keys = lits.slice(1);
        if (keys.length > 0 && keys.every((k) => k !== null)) {
          const p = [...args[0], ...(keys as string[])];
          this.record(p);
          return p;
        }
        return null;
      }
      // sprig lookups with literal keys: get M "k", hasKey M "k", dig "k1" "k2" default M.
      if ((head.ident === 'get' || head.ident === 'hasKey') && args[0] && typeof lits[1] === 'string') {
        const p = [...args[0], lits[1]];
        this.record(p);
        if (head.ident === 'hasKey') this.guarded.set(p.join('\u0000'), p);
        return head.ident === 'get' ? p : null;
      }
      if (head.ident === 'dig' && args.length >= 3) {
        const m = args[args.length - 1];
        const keys = lits.slice(0, args.length - 2);
        if (m && keys.length > 0 && keys.every((k) => typeof k === 'string')) {
          const p = [...m, ...(keys as string[])];
          this.record(p);
          this.guarded.set(p.join('\u0000'), p);
          return p;
        }
        return null;
      }
      if (this.includeFuncs.has(head.ident) && lits[0] !== null && lits[0] !== undefined) {
        this.runTemplate(lits[0], args[1] ?? null);
      }
      return null;
    }
    for (const a of cmd.args.slice(1)) this.arg(a, dot, vars);
    return this.arg(head, dot, vars);
  }

  private arg(n: ArgNode, dot: Path, vars: Map<string, Path>): Path {
    switch (n.t) {
      case N.Dot:
        return dot;
      case N.Field: {
        if (!dot) return null;
        const p = [...dot, ...n.ident];
        this.record(p);
        return p;
      }
      case N.Variable: {
        const base = vars.get(n.ident[0]!) ?? null;
        if (!base) return null;
        const p = [...base, ...n.ident.slice(1)];
        this.record(p);
        return p;
      }
      case N.Chain: {
        const base = this.arg(n.node, dot, vars);
        if (!base) return null;
        const p = [...base, ...n.field];
        this.record(p);
        return p;
      }
      case N.Pipe:
        return this.pipe(n, dot, new Map(vars));
      case N.Identifier:
        return this.command({ t: N.Command, src: n.src, pos: n.pos, args: [n] }, dot, vars, undefined);
      default:
        return null;
    }
  }
}

/**
 * Field chains read from the root data by the templates of `set` (see the module comment for
 * what is followed). Sorted, without duplicates; a prefix is listed only when it is read itself
 * (`{{with .config}}` reads ['config']). A recursive template is followed at most 32 times.
 */
export function referencedFields(source: TemplateSet | Tree, opts: ReferencedFieldsOptions = {}): string[][] {
  return sorted(analyze(source, opts).found);
}

/**
 * As referencedFields, plus the chains read through `hasKey` or `dig`: reads that succeed when
 * the key is missing (so a template guarded by them works with missingkey=error).
 */
export function fieldReads(source: TemplateSet | Tree, opts: ReferencedFieldsOptions = {}): { read: string[][]; guarded: string[][] } {
  const a = analyze(source, opts);
  return { read: sorted(a.found), guarded: sorted(a.guarded) };
}

function analyze(source: TemplateSet | Tree, opts: ReferencedFieldsOptions): Analyzer {
  if (!('execute' in source)) {
    // A single tree: calls to other templates are not followed.
    const tree = source;
    const a = new Analyzer((name) => (name === tree.name ? tree : undefined), new Set(opts.includeFuncs ?? ['include']));
    a.runTemplate(tree.name, []);
    return a;
  }
  const set = source;
  const a = new Analyzer((name) => set.tree(name), new Set(opts.includeFuncs ?? ['include']));
  const entries = opts.entries ?? set.names().filter((n) => set.tree(n)!.src.parseName === n);
  for (const e of entries) a.runTemplate(e, []);
  return a;
}

function sorted(found: Map<string, string[]>): string[][] {
  return [...found.entries()].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)).map(([, p]) => p);
}
