/**
 * Typed template expressions: a Go template expression placed where the TypeScript type wants a
 * number, a boolean or an object (`replicas`, `automountServiceAccountToken`, `resources`), so
 * that typed objects (imported CRD types, `KubeObject` builders) accept it and the YAML gets the
 * expression unquoted, as PKO needs it to render a number, not the string "3".
 *
 *   replicas: templateNumber('.config.replicas'),                       // replicas: {{ .config.replicas }}
 *   paused: templateBoolean('.config.paused'),                          // paused: {{ .config.paused }}
 *   resources: templateObject<Resources>('.config.resources'),          // resources: {{ toJson .config.resources }}
 *
 * A string field needs none of this: write the expression in the string ('{{ .config.image }}').
 * At run time the value is a RawValue (the emitter writes it verbatim after `key:` or `-`); the
 * return type says what PKO's rendered YAML holds there. Only the emitter may read such a value:
 * arithmetic or comparisons on it in TypeScript are meaningless (it is not a number yet).
 */
import { RawValue } from '../yaml/emit.js';

export class TemplateExpressionError extends Error {}

/** `.config.x | default 1` or a whole `{{ … }}` action; one line, no `}}` inside. */
function action(expr: string): string {
  const e = expr.trim();
  if (e === '') throw new TemplateExpressionError('a template expression must not be empty');
  if (/[\r\n]/.test(e)) throw new TemplateExpressionError(`a template expression must be one line: ${JSON.stringify(expr)}`);
  const inner = e.startsWith('{{') && e.endsWith('}}') ? e.slice(2, -2).replace(/^-?\s*|\s*-?$/g, '') : e;
  if (inner.includes('{{') || inner.includes('}}')) throw new TemplateExpressionError(`one template action expected: ${JSON.stringify(expr)}`);
  return `{{ ${inner} }}`;
}

/** A value PKO's template renders to a YAML number. */
export function templateNumber(expr: string): number {
  const a = action(expr);
  return new RawValue(() => ` ${a}`) as unknown as number;
}

/** A value PKO's template renders to a YAML boolean. */
export function templateBoolean(expr: string): boolean {
  const a = action(expr);
  return new RawValue(() => ` ${a}`) as unknown as boolean;
}

/** A map or list: rendered as one line of JSON (`toJson`), which YAML reads as a flow collection. */
export function templateObject<T extends object>(expr: string): T {
  const a = action(expr);
  const inner = a.slice(3, -3);
  const json = /^toJson\b|\|\s*toJson\s*$/.test(inner) ? a : `{{ toJson ${/\s/.test(inner) ? `(${inner})` : inner} }}`;
  return new RawValue(() => ` ${json}`) as unknown as T;
}
