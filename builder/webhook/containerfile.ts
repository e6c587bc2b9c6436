/**
 * What a tenant's Containerfile may do, checked at admission (docs/design/api-and-admission.md "Webhook hardening").
 *
 * The build prepends `FROM <release OS image> AS configs` and runs `buildah bud --target final`
 * (build-script.ts), so buildah builds and pushes the stage `final`, and every image the file names is
 * pulled with the build's credentials (the HCP's pull secret unless the config names another). So:
 * - no stage may be named `configs` (it would replace the base the build supplies), compared
 *   case-insensitively, and no stage name may hold a variable (`$`), which buildah expands;
 * - `final` must be defined once and be the last stage, `FROM configs AS final`;
 * - every image a stage starts from (`FROM x`) and every `--from=x` (COPY, ADD, RUN --mount) must
 *   be `configs` or an earlier stage: an image reference would be pulled with the build's
 *   credentials, and allowing `FROM <image> AS tools` would make the COPY rule a two-line bypass.
 *   Stage numbers (`--from=0`) are refused too: the build's own stage shifts them by one;
 * - `ADD` from a remote source (`scheme://…`, `git@…`) is refused, and so is a variable in an ADD
 *   source, which could expand to one;
 * - `ONBUILD <instruction>` is checked as that instruction (it runs when a later stage starts
 *   from this one).
 *
 * Lines are read as imagebuilder's (Docker's classic) parser reads them: parser directives at the
 * top (`# escape=`), comment lines dropped (also inside a continued instruction), a line ending in
 * the escape character (trailing blanks allowed) continued on the next. Heredoc bodies are *not*
 * skipped: a body line that looks like an instruction is checked as one, which can only refuse more
 * (never hide an instruction buildah runs). Pure, linear in the content length.
 */

export interface ContainerfileIssue {
  /** 1-based line where the instruction starts. */
  line: number;
  message: string;
}

interface Instruction {
  line: number;
  keyword: string;
  args: string;
}

const DIRECTIVE_RE = /^#[ \t]*([A-Za-z][A-Za-z0-9]*)[ \t]*=[ \t]*(.*?)[ \t]*$/;

/** Logical instructions of a Containerfile (continuations joined, comments and blank lines dropped). */
export function instructions(content: string): Instruction[] {
  const lines = content.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  let escape = '\\';
  let i = 0;
  // Parser directives: only at the very top, before any comment, blank line or instruction.
  for (; i < lines.length; i++) {
    const m = DIRECTIVE_RE.exec(lines[i]!);
    if (!m) break;
    if (m[1]!.toLowerCase() === 'escape' && (m[2] === '`' || m[2] === '\\')) escape = m[2];
  }
  const continued = new RegExp(`${escape === '\\' ? '\\\\' : '`'}[ \\t]*$`);
  const out: Instruction[] = [];
  let current: { line: number; text: string } | undefined;
  for (; i < lines.length; i++) {
    const raw = lines[i]!;
    const trimmed = raw.trimStart();
    if (trimmed.startsWith('#')) continue;
    if (trimmed === '') {
      if (!current) continue;
      continue; // a blank line inside a continued instruction is skipped, as Docker's parser does
    }
    const more = continued.test(raw);
    const piece = more ? raw.replace(continued, '') : raw;
    if (current) current.text += piece;
    else current = { line: i + 1, text: piece };
    if (!more) {
      out.push(split(current));
      current = undefined;
    }
  }
  if (current) out.push(split(current));
  return out;
}

function split(c: { line: number; text: string }): Instruction {
  const t = c.text.trim();
  const m = /^(\S+)\s*([\s\S]*)$/.exec(t);
  return { line: c.line, keyword: (m?.[1] ?? '').toUpperCase(), args: m?.[2] ?? '' };
}

/** Leading `--name=value` / `--name` flags of an instruction, and what follows them. */
function flags(args: string): { flags: { name: string; value: string | undefined }[]; rest: string } {
  const out: { name: string; value: string | undefined }[] = [];
  let rest = args;
  for (;;) {
    const m = /^--([A-Za-z0-9-]+)(?:=("[^"]*"|'[^']*'|\S*))?\s*/.exec(rest);
    if (!m) break;
    const v = m[2];
    out.push({ name: m[1]!.toLowerCase(), value: v === undefined ? undefined : v.replace(/^(["'])(.*)\1$/, '$2') });
    rest = rest.slice(m[0].length);
  }
  return { flags: out, rest };
}

/** The words of COPY/ADD arguments: the JSON array form, or whitespace-separated. */
function words(rest: string): string[] {
  const t = rest.trim();
  if (t.startsWith('[')) {
    try {
      const a = JSON.parse(t) as unknown;
      if (Array.isArray(a) && a.every((x) => typeof x === 'string')) return a as string[];
    } catch {
      /* not JSON: buildah reads it as words too */
    }
  }
  return t === '' ? [] : t.split(/\s+/);
}

const REMOTE_RE = /^([A-Za-z][A-Za-z0-9+.-]*:\/\/|git@)/;
const CONFIGS = 'configs';
const FINAL = 'final';

function q(s: string): string {
  return JSON.stringify(s.length > 60 ? `${s.slice(0, 57)}...` : s);
}

/** Problems with a tenant's Containerfile; empty when the build may run it. */
export function containerfileIssues(content: string): ContainerfileIssue[] {
  const out: ContainerfileIssue[] = [];
  const stages: { name: string | undefined; from: string; line: number }[] = [];
  const known = new Set<string>([CONFIGS]);

  const checkSource = (line: number, what: string, ref: string | undefined): void => {
    if (ref === undefined || ref === '') {
      out.push({ line, message: `${what} needs a stage name` });
      return;
    }
    if (ref.includes('$')) {
      out.push({ line, message: `${what}=${q(ref)}: variables are not allowed here; name "${CONFIGS}" or an earlier stage` });
      return;
    }
    if (/^[0-9]+$/.test(ref)) {
      out.push({ line, message: `${what}=${ref}: refer to stages by name ("${CONFIGS}" or an earlier stage), not by number` });
      return;
    }
    if (!known.has(ref.toLowerCase())) {
      out.push({
        line,
        message: `${what}=${q(ref)}: only "${CONFIGS}" or an earlier stage of this Containerfile; an image reference would be pulled with the build's credentials`,
      });
    }
  };

  const check = (ins: Instruction, nested: boolean): void => {
    const { line, keyword } = ins;
    switch (keyword) {
      case 'FROM': {
        if (nested) {
          out.push({ line, message: 'ONBUILD FROM is not allowed' });
          return;
        }
        const { rest } = flags(ins.args);
        const w = rest.trim().split(/\s+/).filter(Boolean);
        const ref = w[0] ?? '';
        let name: string | undefined;
        if (w.length >= 3 && w[1]!.toLowerCase() === 'as') name = w[2]!;
        else if (w.length > 1) out.push({ line, message: 'FROM takes an image and an optional "AS name"' });
        if (ref === '') out.push({ line, message: 'FROM needs a stage to start from' });
        else if (ref.includes('$')) out.push({ line, message: `FROM ${q(ref)}: variables are not allowed here; start from "${CONFIGS}" or an earlier stage` });
        else if (!known.has(ref.toLowerCase())) {
          out.push({ line, message: `FROM ${q(ref)}: a stage must start from "${CONFIGS}" or an earlier stage; an image reference would be pulled with the build's credentials` });
        }
        const lower = name?.toLowerCase();
        if (name !== undefined) {
          if (name.includes('$')) out.push({ line, message: `stage name ${q(name)}: variables are not allowed in stage names` });
          else if (lower === CONFIGS) out.push({ line, message: `stage name ${q(name)}: "${CONFIGS}" is the stage the build supplies (the NodePool's OS image); choose another name` });
          else if (stages.some((s) => s.name === lower)) out.push({ line, message: `stage name ${q(name)}: defined twice` });
        }
        stages.push({ name: lower, from: ref.toLowerCase(), line });
        if (lower !== undefined && lower !== CONFIGS && !lower.includes('$')) known.add(lower);
        return;
      }
      case 'COPY':
      case 'ADD': {
        const { flags: f, rest } = flags(ins.args);
        for (const fl of f) if (fl.name === 'from') checkSource(line, `${keyword} --from`, fl.value);
        if (keyword === 'ADD') {
          const w = words(rest).filter((x) => !x.startsWith('<<'));
          for (const src of w.slice(0, -1)) {
            if (REMOTE_RE.test(src)) out.push({ line, message: `ADD ${q(src)}: remote sources are not allowed; put the file in an image stage or fetch it in a RUN step you control` });
            else if (src.includes('$')) out.push({ line, message: `ADD ${q(src)}: variables are not allowed in ADD sources (they could expand to a remote URL)` });
          }
        }
        return;
      }
      case 'RUN': {
        const { flags: f } = flags(ins.args);
        for (const fl of f) {
          if (fl.name !== 'mount' || fl.value === undefined) continue;
          for (const kv of fl.value.split(',')) {
            const eq = kv.indexOf('=');
            if (eq > 0 && kv.slice(0, eq).trim().toLowerCase() === 'from') checkSource(line, 'RUN --mount from', kv.slice(eq + 1).trim());
          }
        }
        return;
      }
      case 'ONBUILD': {
        if (nested) {
          out.push({ line, message: 'ONBUILD ONBUILD is not allowed' });
          return;
        }
        check(split({ line, text: ins.args }), true);
        return;
      }
      default:
        return;
    }
  };

  for (const ins of instructions(content)) {
    if (stages.length === 0 && ins.keyword !== 'FROM' && ins.keyword !== 'ARG') {
      out.push({ line: ins.line, message: `${ins.keyword} before the first FROM` });
      continue;
    }
    check(ins, false);
  }
  const finals = stages.filter((s) => s.name === FINAL);
  const last = stages[stages.length - 1];
  if (finals.length === 0) out.push({ line: 0, message: `must define the stage "${FINAL}" (FROM ${CONFIGS} AS ${FINAL}), the stage the build ships` });
  else if (last && last.name !== FINAL) {
    out.push({ line: last.line, message: `"${FINAL}" must be the last stage: the build ships it (buildah bud --target final), and a stage after it would never be built` });
  } else if (last && last.from !== CONFIGS) {
    out.push({ line: last.line, message: `the "${FINAL}" stage must start FROM ${CONFIGS}` });
  }
  return out;
}
