/** The one home for the type guards every layer needs when walking parsed YAML or JSON. */

/** A JSON object (not null, not an array). */
export function isObj<T = unknown>(v: unknown): v is Record<string, T> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The value when it is a string, else undefined. */
export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
