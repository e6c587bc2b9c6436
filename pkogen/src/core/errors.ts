/**
 * Errors are values with a place. A UserError is a mistake in the user's input (exit 1),
 * a UsageError is a mistake in how a command was called (exit 2). Neither prints a stack.
 */

/** Where a finding or error points: any part may be unknown. */
export interface Location {
  /** File path, relative to the package root where possible. */
  file?: string;
  /** Zero-based index of the YAML document within the file. */
  doc?: number;
  /** Field path inside the document, e.g. `spec.template.spec.containers[0].image`. */
  path?: string;
  /** One-based line number in the file. */
  line?: number;
  /** One-based column number in the line. */
  column?: number;
}

export function formatLocation(loc: Location): string {
  const parts: string[] = [];
  if (loc.file !== undefined) {
    let f = loc.file;
    if (loc.line !== undefined) f += `:${loc.line}`;
    if (loc.line !== undefined && loc.column !== undefined) f += `:${loc.column}`;
    parts.push(f);
  }
  if (loc.doc !== undefined) parts.push(`doc ${loc.doc}`);
  if (loc.path) parts.push(loc.path);
  return parts.join(' ');
}

export class UserError extends Error {
  readonly location: Location;
  constructor(message: string, location: Location = {}) {
    super(message);
    this.name = 'UserError';
    this.location = location;
  }
  /** One line (or a few) a user can act on, prefixed with the place. */
  describe(): string {
    const where = formatLocation(this.location);
    return where ? `${where}: ${this.message}` : this.message;
  }
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** `info` is for facts a reader may want (never fails a run, even with --strict). */
export type Severity = 'error' | 'warning' | 'info';

/** One result of a check: data, not a thrown error, so that all of them can be reported. */
export interface Finding extends Location {
  severity: Severity;
  /** Stable rule identifier, e.g. `phase-annotation` or `pko/duplicate-object`. */
  rule: string;
  message: string;
  /** The object chain the finding is about, e.g. `SelectorSyncSet/x > Policy/y > Package/z`. */
  object?: string;
}

export function formatFinding(f: Finding): string {
  const where = formatLocation(f);
  return `${f.severity}: ${where ? where + ': ' : ''}${f.object ? f.object + ': ' : ''}${f.message} [${f.rule}]`;
}

export function countBySeverity(findings: readonly Finding[]): Record<Severity, number> {
  const out: Record<Severity, number> = { error: 0, warning: 0, info: 0 };
  for (const f of findings) out[f.severity]++;
  return out;
}
