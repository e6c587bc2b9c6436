/**
 * The value model shared by the Go template engine and every template function.
 *
 * Go distinguishes integers from floats, and the difference shows in output (`1e+06` vs
 * `1000000`) and in errors (`eq 1 1.0` fails). So:
 *   - Go int / int64 / uint…  → JS `bigint`
 *   - Go float64              → JS `number` (all numbers decoded from JSON/YAML data are float64, as in Go's encoding/json)
 *   - Go string / bool        → JS `string` / `boolean`
 *   - Go nil                  → JS `null` (and `undefined` is never a value)
 *   - Go []interface{} etc.   → JS arrays
 *   - Go map[string]interface{} → plain JS objects (own enumerable string keys; printed and ranged in sorted key order)
 *   - a Go func value (for `call`) → JS function
 *   - `GoTyped` marks a value whose Go type is not the default for its JS shape (e.g. `[]string` from `splitList`, `map[string]string`),
 *     for `typeOf`, `kindOf` and printing.
 */
export type GoValue = null | boolean | bigint | number | string | GoValue[] | GoMap | GoFunc | GoTyped;
export interface GoMap {
  [key: string]: GoValue;
}
export type GoFunc = (...args: GoValue[]) => GoValue;

/** A value with an explicit Go type name, e.g. `new GoTyped('[]string', ['a'])`, `new GoTyped('int', 3n)`. */
export class GoTyped {
  constructor(readonly goType: string, readonly value: GoValue) {}
}

/**
 * A template function. Throwing is how a function fails (Go: returning a non-nil error, or
 * panicking): the engine reports `error calling <name>: <message>` at the call's position.
 */
export type TemplateFunc = (...args: GoValue[]) => GoValue;

export interface FuncMap {
  [name: string]: TemplateFunc;
}
