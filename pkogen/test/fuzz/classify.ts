/**
 * What counts as a crash: an exception that is not one of the project's own error types (the
 * ones its CLI turns into a located message), or one of ours that only wraps a JavaScript
 * runtime failure (`Cannot read properties of null`, stack overflow).
 */
import { UsageError, UserError } from '../../src/core/errors.js';
import { YamlEmitError } from '../../src/yaml/emit.js';
import { YamlParseError } from '../../src/yaml/parse.js';
import { BuiltinError } from '../../src/gotemplate/builtins.js';
import { ParseError } from '../../src/gotemplate/parse.js';
import { FuncError } from '../../src/gotemplate/funcs/value.js';
import { GoTemplateError } from '../../src/gotemplate/exec.js';
import { ReferenceError as ImageReferenceError } from '../../src/oci/reference.js';
import { NetworkError } from '../../src/oci/http.js';
import { RolloutOptionsError } from '../../src/rollout/generate.js';
import { GoJsonDecodeError } from '../../src/pko/go-json-decode.js';
import { RenderError } from '../../src/pko/render.js';
import { TemplateExecError, TemplateParseError } from '../../src/pko/template-runner.js';
import { GlobSyntaxError } from '../../src/core/glob.js';
import { CelEvalError } from '../../src/pko/cel.js';
import { YamlLimitError } from '../../src/pko/safe-yaml.js';
import { Violation } from '../../src/pko/types.js';

const PROJECT_ERRORS: (abstract new (...a: never[]) => Error)[] = [
  UserError, UsageError, YamlEmitError, YamlParseError, BuiltinError, ParseError, FuncError, GoTemplateError, ImageReferenceError, NetworkError,
  RolloutOptionsError, GoJsonDecodeError, RenderError, TemplateExecError, TemplateParseError, GlobSyntaxError, CelEvalError, YamlLimitError, Violation,
];

/** A project error whose message is really a runtime failure is still a crash. */
const RUNTIME_FAILURE = /Cannot read propert|Cannot set propert|is not a function|is not iterable|is not an object|Maximum call stack|Invalid (?:string|array|typed array) length|Array buffer allocation failed|out of memory|undefined is not|null is not|internal error/i;

export type Outcome = { kind: 'ok' } | { kind: 'rejected'; error: string } | { kind: 'crash'; error: string };

export function classify(e: unknown): Outcome {
  const err = e instanceof Error ? e : new Error(String(e));
  const first = `${err.constructor?.name ?? 'Error'}: ${err.message.split('\n')[0]!.slice(0, 300)}`;
  const ours = PROJECT_ERRORS.some((c) => err instanceof c);
  if (ours && !RUNTIME_FAILURE.test(err.message)) return { kind: 'rejected', error: first };
  return { kind: 'crash', error: first };
}

/** The class of a crash, for grouping and for minimising to "the same crash". */
export function crashKey(error: string): string {
  return error
    .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, '…')
    .replace(/\d+/g, 'N')
    .slice(0, 120);
}
