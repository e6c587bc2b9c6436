/**
 * A set of Go text/templates sharing one namespace, like a Go *template.Template with its
 * associated templates: parse files into it (each named by its path, {{define}}s shared),
 * then execute any of them by name. Parse once, execute many.
 */
import { builtins } from './builtins.js';
import { DEFAULT_MAX_WORK, withWorkBudget } from './budget.js';
import { Exec, GoTemplateError, LimitError, type ExecEnv } from './exec.js';
import { isEmptyTree } from './nodes.js';
import { ParseError, parseTemplate, type Tree } from './parse.js';
import type { FuncMap, GoValue } from './types.js';

export interface TemplateOptions {
  funcs?: FuncMap;
  /** Go's Option("missingkey=…"); PKO uses 'error'. */
  missingKey?: 'default' | 'zero' | 'error';
  limits?: {
    /** Output size limit, in UTF-16 code units (default 64 MiB). */
    maxOutputBytes?: number;
    /** Actions, control structures and range iterations per execution (default 10 million). */
    maxSteps?: number;
    /**
     * Nesting of {{template}} calls, including executions started re-entrantly through
     * executeTemplate (e.g. PKO's include). Default 1000, the value Go uses on wasm; keeps
     * JavaScript's stack safe.
     */
    maxDepth?: number;
    /**
     * Work done inside functions per execution: characters and list/dict elements they produce,
     * shared structure counted each time it is expanded (default 100 million; budget.ts).
     */
    maxWork?: number;
  };
  /** Name of the set itself, as Go prints it in "no template … associated with template …" (default ""). */
  name?: string;
}

export class TemplateSet {
  private readonly trees = new Map<string, Tree>();
  private readonly env: ExecEnv;
  private readonly setName: string;
  /** Executions in progress (re-entrant calls from template functions nest inside them). */
  private readonly active: Exec[] = [];

  constructor(opts: TemplateOptions = {}) {
    const funcs: FuncMap = Object.create(null);
    if (opts.funcs) for (const [k, f] of Object.entries(opts.funcs)) funcs[k] = f;
    this.env = {
      lookup: (name) => this.trees.get(name),
      funcs,
      missingKey: opts.missingKey ?? 'default',
      maxSteps: opts.limits?.maxSteps ?? 10_000_000,
      maxOutput: opts.limits?.maxOutputBytes ?? 64 * 1024 * 1024,
      maxDepth: opts.limits?.maxDepth ?? 1000,
      maxWork: opts.limits?.maxWork ?? DEFAULT_MAX_WORK,
    };
    this.setName = opts.name ?? '';
  }

  /** Adds functions (Go's Funcs); affects later parses and all executions. */
  addFuncs(funcs: FuncMap): void {
    for (const [k, f] of Object.entries(funcs)) this.env.funcs[k] = f;
  }

  private hasFunc = (name: string): boolean => name in this.env.funcs || Object.prototype.hasOwnProperty.call(builtins, name);

  /**
   * Parses `text` as the template `name` (Go: set.New(name).Parse(text)). Its {{define}}s join
   * the set; a later non-empty definition replaces an earlier one, an empty one never does.
   * On error nothing is added. Throws GoTemplateError (kind 'parse').
   */
  parse(name: string, text: string): void {
    let trees: Map<string, Tree>;
    try {
      trees = parseTemplate(name, text, this.hasFunc);
    } catch (e) {
      if (e instanceof ParseError) throw new GoTemplateError(e.message, 'parse', e.template, e.line);
      if (e instanceof RangeError) throw new GoTemplateError(`template: ${name}:1: template nesting too deep`, 'parse', name, 1);
      throw e;
    }
    for (const [n, tree] of trees) {
      const old = this.trees.get(n);
      if (old && isEmptyTree(tree.root)) continue;
      this.trees.set(n, tree);
    }
  }

  has(name: string): boolean {
    return this.trees.has(name);
  }

  names(): string[] {
    return [...this.trees.keys()].sort();
  }

  /** The parsed tree of a template (for static analysis such as referencedFields). */
  tree(name: string): Tree | undefined {
    return this.trees.get(name);
  }

  /** Runs the named template with `data` as dot and `$`. Throws GoTemplateError. */
  execute(name: string, data: GoValue): string {
    return this.executeTemplate(name, data);
  }

  /**
   * Same as execute, and safe to call from inside a template function while an execution is
   * running (PKO's `include`): the nested run counts towards the outer run's depth limit.
   */
  executeTemplate(name: string, data: GoValue): string {
    return this.executeTop(name, data, null).out;
  }

  /**
   * Same as execute, also returning where each printed action's output lies in the text
   * (flattened [start, end) pairs); everything else is the templates' literal text. Output of
   * {{template}} calls is split the same way; a re-entrant call's output is one action.
   */
  executeWithHoles(name: string, data: GoValue): { out: string; holes: number[] } {
    const holes: number[] = [];
    return { out: this.executeTop(name, data, holes).out, holes };
  }

  private executeTop(name: string, data: GoValue, holes: number[] | null): Exec {
    const tree = this.trees.get(name);
    if (!tree) {
      throw new GoTemplateError(
        `template: no template ${JSON.stringify(name)} associated with template ${JSON.stringify(this.setName)}`,
        'exec',
        name,
        0,
      );
    }
    const outer = this.active[this.active.length - 1];
    const depth = outer ? outer.depth + 1 : 0;
    const ex = new Exec(this.env, name, depth);
    ex.holes = holes;
    if (outer && depth >= this.env.maxDepth) {
      throw new LimitError(`template: ${name}: exceeded maximum template depth (${this.env.maxDepth})`, 'exec', name, 0, undefined, name);
    }
    this.active.push(ex);
    try {
      const dot = data === null ? undefined : data;
      // a nested run shares the outer budget; calling it directly keeps include recursion's
      // JavaScript stack as it was (the depth limit must be reached before the stack runs out)
      if (outer) ex.run(tree, dot);
      else withWorkBudget(this.env.maxWork, () => ex.run(tree, dot));
    } catch (e) {
      if (e instanceof RangeError && this.active.length === 1) {
        throw new GoTemplateError(
          `template: ${name}: execution stopped: templates nest too deeply (JavaScript stack exhausted; ${e.message})`,
          'exec',
          name,
          0,
          undefined,
          name,
        );
      }
      throw e;
    } finally {
      this.active.pop();
    }
    return ex;
  }
}
