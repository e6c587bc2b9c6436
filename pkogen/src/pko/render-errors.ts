/** Renderer/loader failures → UserError with PKO's message and the place (file, doc, line, column). */
import { UserError } from '../core/errors.js';
import { CelEvalError } from './cel.js';
import { RenderError } from './render.js';
import { Violation } from './types.js';

/** Converts a known render failure into a UserError; anything else is rethrown unchanged. */
export function toUserError(e: unknown, componentDir = ''): UserError {
  const pre = componentDir ? `components/${componentDir}/` : '';
  if (e instanceof UserError) return e;
  if (e instanceof Violation) {
    return new UserError(e.message, { file: e.path ? pre + e.path : undefined, doc: e.index, line: e.line });
  }
  if (e instanceof RenderError) {
    return new UserError(e.message, { file: e.file ? pre + e.file : undefined, line: e.line, column: e.line !== undefined ? e.column : undefined, doc: e.doc });
  }
  if (e instanceof CelEvalError) return new UserError(e.message);
  throw e;
}
