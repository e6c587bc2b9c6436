/**
 * The seam between the renderer and the Go text/template engine: one template set holding every
 * `.gotmpl` file (named by its path, so `define`s are shared across files), PKO's functions,
 * `missingkey=error`.
 */
import { GoTemplateError } from '../gotemplate/exec.js';
import { TemplateSet } from '../gotemplate/template.js';
import type { FuncMap, GoValue } from '../gotemplate/types.js';

export interface TemplateSource {
  name: string;
  text: string;
}

export interface TemplateRunner {
  execute(name: string, data: GoValue): string;
  /** execute, plus where each printed action's output lies in the text (TemplateSet.executeWithHoles). */
  executeWithHoles(name: string, data: GoValue): { out: string; holes: number[] };
}

/** A parse error formatted like Go's (`template: <name>:<line>: …`), with its place. */
export class TemplateParseError extends Error {
  constructor(message: string, readonly file: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/** An execution error formatted like Go's, with its place when known. */
export class TemplateExecError extends Error {
  constructor(message: string, readonly file?: string, readonly line?: number, readonly column?: number) {
    super(message);
  }
}

/**
 * Builds the set. `funcs` receives the runner itself so `include` can execute templates of the
 * same set (re-entrantly, within the engine's depth limit).
 */
export function buildTemplateSet(sources: TemplateSource[], funcs: (runner: TemplateRunner) => FuncMap): TemplateRunner {
  const set = new TemplateSet({ missingKey: 'error' });
  const runner: TemplateRunner = {
    // Errors stay GoTemplateErrors (limit errors must cross `include` unwrapped); callers convert.
    execute: (name, data) => set.executeTemplate(name, data),
    executeWithHoles: (name, data) => set.executeWithHoles(name, data),
  };
  set.addFuncs(funcs(runner));
  for (const s of sources) {
    try {
      set.parse(s.name, s.text);
    } catch (e) {
      if (e instanceof GoTemplateError) throw new TemplateParseError(e.message, e.template || s.name, e.line || undefined, e.column);
      throw e;
    }
  }
  return runner;
}
