/**
 * Lexer for Go's text/template syntax (default delimiters), following parse/lex.go: the same
 * item kinds, trim markers (`{{- ` / ` -}}`), comments, and the same error texts.
 * The whole input is lexed up front into an array; a lexing error ends the array with an
 * Error item, which the parser reaches exactly where Go's concurrent lexer would report it.
 */

export const enum T {
  Error,
  Bool,
  Char, // printable ASCII character not otherwise handled: `,` and friends
  CharConstant,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  // Keywords come after all the rest.
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Range,
  Nil,
  Template,
  With,
}

export interface Item {
  typ: T;
  pos: number; // index into the input
  val: string;
  line: number;
}

const keywords: Record<string, T> = {
  '.': T.Dot,
  block: T.Block,
  break: T.Break,
  continue: T.Continue,
  define: T.Define,
  else: T.Else,
  end: T.End,
  if: T.If,
  range: T.Range,
  nil: T.Nil,
  template: T.Template,
  with: T.With,
};

/** Go's item.String(), used in "unexpected X in Y" messages. */
export function itemString(it: Item): string {
  if (it.typ === T.EOF) return 'EOF';
  if (it.typ === T.Error) return it.val;
  if (it.typ > T.Keyword) return `<${it.val}>`;
  if (it.val.length > 10) return goQuote(truncateUtf8Runes(it.val, 10)) + '...';
  return goQuote(it.val);
}

function truncateUtf8Runes(s: string, n: number): string {
  return Array.from(s).slice(0, n).join('');
}

// Minimal strconv.Quote, enough for lexer values (which come from template text).
import { quoteString as goQuote } from './fmt.js';
import { isDigit, isLetter } from './unicode.js';

const LEFT = '{{';
const RIGHT = '}}';
const LEFT_COMMENT = '/*';
const RIGHT_COMMENT = '*/';

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isAlphaNumeric(c: string | undefined): boolean {
  if (c === undefined) return false;
  return c === '_' || isLetter(c) || isDigit(c);
}

function hasLeftTrimMarker(s: string, i: number): boolean {
  return s[i] === '-' && isSpace(s[i + 1]);
}

function hasRightTrimMarker(s: string, i: number): boolean {
  return isSpace(s[i]) && s[i + 1] === '-';
}

function countNewlines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = s.indexOf('\n', from); i >= 0 && i < to; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/** Lexes the whole input. */
export function lex(input: string, breakOK = true, continueOK = true): Item[] {
  const items: Item[] = [];
  let pos = 0;
  let start = 0;
  let line = 1; // line of `pos`
  let startLine = 1; // line of `start`
  let parenDepth = 0;

  const emit = (typ: T): void => {
    items.push({ typ, pos: start, val: input.slice(start, pos), line: startLine });
    start = pos;
    startLine = line;
  };
  const ignore = (): void => {
    start = pos;
    startLine = line;
  };
  // Advance pos by n characters, counting newlines.
  const advance = (to: number): void => {
    line += countNewlines(input, pos, to);
    pos = to;
  };
  const errorf = (msg: string): false => {
    items.push({ typ: T.Error, pos: start, val: msg, line: startLine });
    return false;
  };
  const nextChar = (): string | undefined => {
    if (pos >= input.length) {
      pos = input.length + 1; // so that backup() works after EOF
      return undefined;
    }
    const c = input.charCodeAt(pos);
    if (c < 0xd800 || c > 0xdbff) {
      pos++;
      if (c === 10) line++;
      return input[pos - 1];
    }
    const ch = String.fromCodePoint(input.codePointAt(pos)!);
    pos += ch.length;
    return ch;
  };  /** Consumes a "…" or '…' literal after its opening quote; false (error recorded) if unterminated. */
  const scanQuoted = (quote: string, msg: string): boolean => {
    for (;;) {
      const c = nextChar();
      if (c === '\\') {
        const d = nextChar();
        if (d !== undefined && d !== '\n') continue;
        return errorf(msg);
      }
      if (c === undefined || c === '\n') return errorf(msg);
      if (c === quote) return true;
    }
  };

  const backup = (ch: string | undefined): void => {
    if (ch === undefined) pos = input.length;
    else {
      pos -= ch.length;
      if (ch === '\n') line--;
    }
  };
  const peek = (): string | undefined => {
    if (pos >= input.length) return undefined;
    const c = input.charCodeAt(pos);
    if (c < 0xd800 || c > 0xdbff) return input[pos];
    return String.fromCodePoint(input.codePointAt(pos)!);
  };
  // 0: not at the right delimiter, 1: at "}}", 2: at " -}}".
  const atRightDelim = (): 0 | 1 | 2 => {
    const c = input.charCodeAt(pos);
    if (c === 125) return input.charCodeAt(pos + 1) === 125 ? 1 : 0;
    if (hasRightTrimMarker(input, pos) && input.startsWith(RIGHT, pos + 2)) return 2;
    return 0;
  };
  const atTerminator = (): boolean => {
    const r = peek();
    if (isSpace(r)) return true;
    switch (r) {
      case undefined: case '.': case ',': case '|': case ':': case ')': case '(':
        return true;
    }
    return input.startsWith(RIGHT, pos);
  };
  const accept = (valid: string): boolean => {
    const c = peek();
    if (c !== undefined && valid.includes(c)) {
      pos += c.length;
      return true;
    }
    return false;
  };
  const acceptRun = (valid: string): void => {
    for (;;) {
      const c = peek();
      if (c === undefined || !valid.includes(c)) return;
      pos += c.length;
    }
  };
  const leftTrimLength = (i: number): number => {
    let j = i;
    while (j < input.length && isSpace(input[j])) j++;
    return j - i;
  };

  // Returns false when lexing ended (EOF or error).
  const lexText = (): 'action' | false => {
    const x = input.indexOf(LEFT, pos);
    if (x >= 0) {
      if (x > pos) {
        let end = x;
        if (hasLeftTrimMarker(input, x + LEFT.length)) {
          while (end > start && isSpace(input[end - 1])) end--;
        }
        advance(end);
        if (pos > start) emit(T.Text);
        advance(x);
        ignore();
      }
      return 'action';
    }
    advance(input.length);
    if (pos > start) emit(T.Text);
    emit(T.EOF);
    return false;
  };

  // After the left delimiter: comment or action. Returns 'text', 'inside' or false.
  const lexLeftDelim = (): 'text' | 'inside' | false => {
    pos += LEFT.length;
    const trim = hasLeftTrimMarker(input, pos);
    const after = trim ? 2 : 0;
    if (input.startsWith(LEFT_COMMENT, pos + after)) {
      advance(pos + after);
      ignore();
      // lexComment
      pos += LEFT_COMMENT.length;
      const x = input.indexOf(RIGHT_COMMENT, pos);
      if (x < 0) return errorf('unclosed comment');
      advance(x + RIGHT_COMMENT.length);
      const at = atRightDelim();
      if (at === 0) return errorf('comment ends before closing delimiter');
      const trimSpace = at === 2;
      if (trimSpace) advance(pos + 2);
      pos += RIGHT.length;
      if (trimSpace) advance(pos + leftTrimLength(pos));
      ignore();
      return 'text';
    }
    const it: Item = { typ: T.LeftDelim, pos: start, val: input.slice(start, pos), line: startLine };
    advance(pos + after);
    ignore();
    parenDepth = 0;
    items.push(it);
    return 'inside';
  };

  const lexRightDelim = (trimSpace: boolean): void => {
    if (trimSpace) {
      advance(pos + 2);
      ignore();
    }
    pos += RIGHT.length;
    emit(T.RightDelim);
    if (trimSpace) {
      advance(pos + leftTrimLength(pos));
      ignore();
    }
  };

  const lexNumberScan = (): boolean => {
    accept('+-');
    let digits = '0123456789_';
    if (accept('0')) {
      if (accept('xX')) digits = '0123456789abcdefABCDEF_';
      else if (accept('oO')) digits = '01234567_';
      else if (accept('bB')) digits = '01_';
    }
    acceptRun(digits);
    if (accept('.')) acceptRun(digits);
    if (digits.length === 11 && accept('eE')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    if (digits.length === 23 && accept('pP')) {
      accept('+-');
      acceptRun('0123456789_');
    }
    accept('i');
    if (isAlphaNumeric(peek())) {
      nextChar();
      return false;
    }
    return true;
  };

  // Lexes inside an action until the right delimiter. Returns false on error/EOF.
  const lexInsideAction = (): boolean => {
    for (;;) {
      const at = atRightDelim();
      if (at !== 0) {
        if (parenDepth === 0) {
          lexRightDelim(at === 2);
          return true;
        }
        return errorf('unclosed left paren');
      }
      const r = nextChar();
      if (r === undefined) return errorf('unclosed action');
      if (isSpace(r)) {
        backup(r);
        // lexSpace
        let numSpaces = 0;
        while (isSpace(peek())) {
          nextChar();
          numSpaces++;
        }
        if (hasRightTrimMarker(input, pos - 1) && input.startsWith(RIGHT, pos - 1 + 2)) {
          backup(input[pos - 1]);
          if (numSpaces === 1) continue;
        }
        emit(T.Space);
        continue;
      }
      switch (r) {
        case '=': emit(T.Assign); continue;
        case ':':
          if (nextChar() !== '=') return errorf('expected :=');
          emit(T.Declare);
          continue;
        case '|': emit(T.Pipe); continue;
        case '"':
          if (!scanQuoted('"', 'unterminated quoted string')) return false;
          emit(T.String);
          continue;
        case '`': {
          const x = input.indexOf('`', pos);
          if (x < 0) return errorf('unterminated raw quoted string');
          advance(x + 1);
          emit(T.RawString);
          continue;
        }
        case '$':
        case '.': {
          if (r === '.') {
            // Like Go, a '.' at the very end of the input is lexed as a (bad) number.
            const c = input[pos];
            if (c !== undefined && (c < '0' || c > '9')) {
              if (!lexFieldOrVariable(T.Field)) return false;
              continue;
            }
            backup(r);
            if (!lexNumberScan()) return errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
            emit(T.Number);
            continue;
          }
          if (atTerminator()) {
            emit(T.Variable);
            continue;
          }
          if (!lexFieldOrVariable(T.Variable)) return false;
          continue;
        }
        case "'":
          if (!scanQuoted("'", 'unterminated character constant')) return false;
          emit(T.CharConstant);
          continue;
        case '(':
          emit(T.LeftParen);
          parenDepth++;
          continue;
        case ')':
          // Go's lexer replaces the paren item by the error when the parens do not balance.
          parenDepth--;
          if (parenDepth < 0) return errorf('unexpected right paren');
          emit(T.RightParen);
          continue;
      }
      if (r === '+' || r === '-' || (r >= '0' && r <= '9')) {
        backup(r);
        if (!lexNumberScan()) return errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
        const sign = peek();
        if (sign === '+' || sign === '-') {
          if (!lexNumberScan() || input[pos - 1] !== 'i') return errorf(`bad number syntax: ${goQuote(input.slice(start, pos))}`);
          emit(T.Complex);
          continue;
        }
        emit(T.Number);
        continue;
      }
      if (isAlphaNumeric(r)) {
        backup(r);
        // lexIdentifier
        let c: string | undefined;
        for (;;) {
          c = nextChar();
          if (!isAlphaNumeric(c)) {
            backup(c);
            break;
          }
        }
        const word = input.slice(start, pos);
        if (!atTerminator()) return errorf(`bad character ${runeHash(c)}`);
        const kw = keywords[word];
        if (kw !== undefined && Object.prototype.hasOwnProperty.call(keywords, word)) {
          if ((kw === T.Break && !breakOK) || (kw === T.Continue && !continueOK)) emit(T.Identifier);
          else emit(kw);
        } else if (word === 'true' || word === 'false') emit(T.Bool);
        else emit(T.Identifier);
        continue;
      }
      const code = r.codePointAt(0)!;
      if (code < 0x80 && code >= 0x20 && code < 0x7f) {
        emit(T.Char);
        continue;
      }
      return errorf(`unrecognized character in action: ${runeHash(r)}`);
    }
  };

  const lexFieldOrVariable = (typ: T): boolean => {
    if (atTerminator()) {
      emit(typ === T.Variable ? T.Variable : T.Dot);
      return true;
    }
    let c: string | undefined;
    for (;;) {
      c = nextChar();
      if (!isAlphaNumeric(c)) {
        backup(c);
        break;
      }
    }
    if (!atTerminator()) return errorf(`bad character ${runeHash(c)}`);
    emit(typ);
    return true;
  };

  for (;;) {
    const r = lexText();
    if (r === false) break;
    const d = lexLeftDelim();
    if (d === false) break;
    if (d === 'text') continue;
    if (!lexInsideAction()) {
      if (items[items.length - 1]!.typ !== T.Error) items.push({ typ: T.EOF, pos, val: '', line });
      break;
    }
  }
  return items;
}

/** Go's %#U: U+0041 'A'. */
export function runeHash(c: string | undefined): string {
  if (c === undefined) return 'U+FFFFFFFFFFFFFFFF'; // Go's eof rune is -1
  const cp = c.codePointAt(0)!;
  const s = 'U+' + cp.toString(16).toUpperCase().padStart(4, '0');
  const printable = cp >= 0x20 && cp !== 0x7f && !(cp >= 0x80 && cp < 0xa0) && /[\p{L}\p{M}\p{N}\p{P}\p{S}\p{Zs}]/u.test(c) && (cp < 0x80 || cp !== 0xa0);
  return printable ? `${s} '${c}'` : s;
}
