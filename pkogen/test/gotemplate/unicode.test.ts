/**
 * The engine's Unicode classes (src/gotemplate/unicode.ts) answer as the Unicode property
 * expressions they stand for, on every code point (ASCII answered by code, the rest by the
 * expression built on first use).
 */
import { isDigit, isLetter, isPrint } from '../../src/gotemplate/unicode.js';

test('isLetter, isDigit and isPrint agree with \\p{L}, \\p{Nd} and strconv.IsPrint on every code point', () => {
  const letter = /^\p{L}$/u;
  const digit = /^\p{Nd}$/u;
  const print = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u;
  const wrong: string[] = [];
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue; // no string holds a lone surrogate as one code point
    const c = String.fromCodePoint(cp);
    if (isLetter(c) !== letter.test(c)) wrong.push(`isLetter U+${cp.toString(16)}`);
    if (isDigit(c) !== digit.test(c)) wrong.push(`isDigit U+${cp.toString(16)}`);
    // strconv.IsPrint: the ASCII graphic characters and space; beyond ASCII, L, M, N, P and S
    if (isPrint(cp) !== (cp < 0x80 ? cp >= 0x20 && cp < 0x7f : print.test(c))) wrong.push(`isPrint U+${cp.toString(16)}`);
    if (wrong.length > 10) break;
  }
  expect(wrong).toEqual([]);
});

test('the first code point decides, as in the callers (one character each)', () => {
  expect(isLetter('é1')).toBe(true);
  expect(isDigit('٣x')).toBe(true);
  expect(isLetter('_')).toBe(false);
  expect(isDigit('a')).toBe(false);
});
