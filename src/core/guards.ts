/** The one home for the type guards every layer needs when walking parsed YAML or JSON. */

/** A JSON object (not null, not an array). */
export function isObj<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/**
 * A RangeError from any realm. V8 creates a stack-overflow RangeError in the realm of the function
 * that ran out of stack, which under a vm context (jest's test sandbox, say) may be Node's own, so
 * `instanceof RangeError` alone can miss it and an overflow would escape as a raw error.
 */
export function isRangeError(e: unknown): e is RangeError {
  return e instanceof RangeError || (e instanceof Error ? e.name : (e as { name?: unknown } | null)?.name) === 'RangeError';
}
