/**
 * The seam between the renderer and the Go text/template engine: one template set holding every
 * `.gotmpl` file (named by its path, so `define`s are shared across files), PKO's functions,
 * `missingkey=error`.
 */
import type { FuncMap, GoValue } from '../gotemplate/types.js';

export interface TemplateSource {
  name: string;
  text: string;
}

export interface TemplateRunner {
  execute(name: string, data: GoValue): string;
}

/** A parse error already formatted like Go's (`template: <name>:<line>:<col>: …`), with its place. */
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
 * same set.
 */
export function buildTemplateSet(sources: TemplateSource[], funcs: (runner: TemplateRunner) => FuncMap): TemplateRunner {
  void sources;
  void funcs;
  throw new TemplateExecError('the Go template engine (src/gotemplate) is not merged yet');
}
