/**
 * `{{`/`}}` balance of a text several template layers read (oc, hive, ACM, PKO): a layer that
 * meets an unbalanced text fails or, worse, swallows the rest. Deliberately not the Go template
 * lexer: to Go a stray `}}` is plain text, but here a later layer would pair it with a `{{`, and
 * the texts mix ACM's and PKO's function sets, which no single parse accepts.
 */

/** Describes the first `{{`/`}}` imbalance in a Go template text, or '' when balanced. */
export function balance(s: string): string {
  let depth = 0;
  let line = 1;
  let openLine = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === '\n') line++;
    else if (c === '{' && s[i + 1] === '{') {
      if (depth > 0) return `"{{" on line ${line} opens inside the action opened on line ${openLine}`;
      depth++;
      openLine = line;
      i++;
    } else if (c === '}' && s[i + 1] === '}') {
      if (depth === 0) return `"}}" on line ${line} closes nothing`;
      depth--;
      i++;
    } else if (depth > 0 && (c === '"' || c === '`')) {
      // skip string literals inside an action, where `{{` may legitimately appear (escaping)
      const end = c === '`' ? s.indexOf('`', i + 1) : findQuoteEnd(s, i + 1);
      if (end < 0) return `unterminated ${c === '`' ? 'raw string' : 'string'} in the action opened on line ${openLine}`;
      for (let k = i; k < end; k++) if (s[k] === '\n') line++;
      i = end;
    }
  }
  return depth > 0 ? `"{{" on line ${openLine} is never closed` : '';
}

function findQuoteEnd(s: string, from: number): number {
  for (let i = from; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '"') return i;
    else if (s[i] === '\n') return -1;
  }
  return -1;
}
