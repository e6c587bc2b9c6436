/**
 * PKO's CEL context (packagerender/celctx): every top-level key of the JSON render context is a
 * `map(string, dyn)` variable; named conditions are evaluated once, in order, without `cond`;
 * `cond` (map(string,bool)) is then available to path rules, the condition annotation and the
 * `cel` template function. Evaluated with @bufbuild/cel (a CEL-spec conformant evaluator: no
 * Go toolchain, no native code). Programs are cached per expression.
 */
import { createRequire } from 'node:module';
import type { CelInput } from '@bufbuild/cel';
import type { PackageManifestNamedCondition } from './types.js';

// Most packages use no CEL at all: load the library (and protobuf under it, ~0.2 s) on first use,
// synchronously, because rendering is synchronous.
type CelLib = typeof import('@bufbuild/cel');
let celLib: CelLib | undefined;
let env: ReturnType<CelLib['celEnv']> | undefined;
function lib(): CelLib {
  if (!celLib) {
    celLib = createRequire(import.meta.url)('@bufbuild/cel') as CelLib;
    env = celLib.celEnv();
  }
  return celLib;
}

export class CelEvalError extends Error {}

const CONDITION_NAME = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

/** Plain JSON data → CEL input (objects become Maps, integers stay double like Go's JSON decode). */
function toCel(v: unknown): CelInput {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return v.map(toCel) as CelInput;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'object') {
    const m = new Map<string, CelInput>();
    for (const k of Object.keys(v as object)) m.set(k, toCel((v as Record<string, unknown>)[k]));
    return m as unknown as CelInput;
  }
  return v as CelInput;
}

type Program = (ctx: Record<string, CelInput>) => unknown;
const programCache = new Map<string, Program | CelEvalError>();

/** Variable name standing in for the root-scoped `.package` (see rewriteRootPackage). */
const PACKAGE_ALIAS = '__pko_package';

/**
 * `package` is a reserved word in CEL: cel-go rejects `package.x` but accepts the root-scoped
 * `.package.x` (the reserved-word check sees `.package`). @bufbuild/cel rejects both, so the
 * root-scoped form is rewritten to an alias variable outside string literals.
 */
export function rewriteRootPackage(expr: string): string {
  let out = '';
  let i = 0;
  let prev = '';
  while (i < expr.length) {
    const c = expr[i];
    if (c === '"' || c === "'") {
      const triple = expr.startsWith(c.repeat(3), i);
      const q = triple ? c.repeat(3) : c;
      let j = i + q.length;
      while (j < expr.length && !expr.startsWith(q, j)) j += expr[j] === '\\' ? 2 : 1;
      out += expr.slice(i, j + q.length);
      i = j + q.length;
      prev = c;
      continue;
    }
    if (c === '.' && /^\.package(?![A-Za-z0-9_])/.test(expr.slice(i)) && !/[A-Za-z0-9_)\]]/.test(prev)) {
      out += PACKAGE_ALIAS;
      i += '.package'.length;
      prev = 'e';
      continue;
    }
    out += c;
    if (!/\s/.test(c)) prev = c;
    i++;
  }
  return out;
}

function compile(expr: string): Program {
  const hit = programCache.get(expr);
  if (hit instanceof CelEvalError) throw hit;
  if (hit) return hit;
  let p: Program;
  try {
    const { plan, parse } = lib();
    p = plan(env!, parse(rewriteRootPackage(expr))) as unknown as Program;
  } catch (e) {
    const err = new CelEvalError(`compile error: ERROR: <input>: ${celMessage(e)}`);
    programCache.set(expr, err);
    throw err;
  }
  if (programCache.size > 10_000) programCache.clear();
  programCache.set(expr, p);
  return p;
}

function celMessage(e: unknown): string {
  const msg = (e as Error).message ?? String(e);
  return msg
    .replace(/^<input>:/, '')
    .replace(/^field not found: (.*)$/, 'no such key: $1');
}

function typeName(v: unknown): string {
  if (v === null) return 'null_type';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'double';
  if (typeof v === 'string') return 'string';
  if (v instanceof Uint8Array) return 'bytes';
  if (Array.isArray(v) || (v && typeof (v as { [Symbol.iterator]?: unknown })[Symbol.iterator] === 'function' && !(v instanceof Map))) return 'list(dyn)';
  return 'map(dyn, dyn)';
}

export class CelContext {
  private varsCache?: Record<string, CelInput>;
  readonly conditions: Record<string, boolean> = {};

  /** `ctx` is the JSON render context (package, config, images, dependencies, environment). */
  constructor(private readonly ctx: Record<string, unknown>, conditions: PackageManifestNamedCondition[] = []) {
    for (const c of conditions) {
      if (!CONDITION_NAME.test(c.name)) throw new CelEvalError(`invalid CEL condition name: '${c.name}'`);
      if (Object.prototype.hasOwnProperty.call(this.conditions, c.name)) throw new CelEvalError(`duplicate CEL condition name: '${c.name}'`);
      try {
        this.conditions[c.name] = this.evaluate(c.expression, false);
      } catch (e) {
        throw new CelEvalError(`CEL condition evaluation failed: '${c.name}': ${(e as Error).message}`);
      }
    }
  }

  /** The CEL variables, converted on first evaluation: renders without CEL never pay for it. */
  private get vars(): Record<string, CelInput> {
    if (!this.varsCache) {
      const vars: Record<string, CelInput> = {};
      for (const k of Object.keys(this.ctx)) vars[k] = toCel(this.ctx[k] ?? {});
      if ('package' in vars) vars[PACKAGE_ALIAS] = vars.package;
      this.varsCache = vars;
    }
    return this.varsCache;
  }

  /** Evaluates a boolean expression; errors carry cel-go's prefixes (compile/evaluation/return type). */
  evaluate(expr: string, withCond = true): boolean {
    const p = compile(expr);
    const vars = withCond ? { ...this.vars, cond: toCel(this.conditions) } : this.vars;
    const out = p(vars);
    if (lib().isCelError(out)) throw new CelEvalError(`evaluation error: ${celMessage(out)}`);
    if (typeof out !== 'boolean') throw new CelEvalError(`invalid return type: ${typeName(out)}, expected bool`);
    return out;
  }
}
