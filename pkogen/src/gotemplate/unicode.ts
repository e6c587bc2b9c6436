/**
 * The character classes of Go's unicode package the template engine needs (IsLetter, IsDigit,
 * strconv.IsPrint's graphic classes), ASCII answered by code, the rest by a Unicode property
 * regular expression built on the first character beyond ASCII. Such an expression costs up to a
 * millisecond to build and as much to compile, paid at every start when it is a module constant,
 * while template text is mostly ASCII.
 */
let letterRe: RegExp | undefined;
let digitRe: RegExp | undefined;
let printRe: RegExp | undefined;

/** unicode.IsLetter of the first code point of `c`. */
export function isLetter(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80) return (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return (letterRe ??= /^\p{L}/u).test(c);
}

/** unicode.IsDigit (decimal digits, Nd) of the first code point of `c`. */
export function isDigit(c: string): boolean {
  const code = c.charCodeAt(0);
  if (code < 0x80) return code >= 48 && code <= 57;
  return (digitRe ??= /^\p{Nd}/u).test(c);
}

/** strconv.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isPrint(cp: number): boolean {
  if (cp < 0x80) return cp >= 0x20 && cp < 0x7f;
  return (printRe ??= /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u).test(String.fromCodePoint(cp));
}
