/**
 * The validation baseline of a kickstarted package: warnings that `pkogen validate --strict` (the
 * scaffold's `make test`) fails on and that the original package already has. Kickstart keeps the
 * objects as they were, so it records each such rule for `validate --skip RULE` in a make fragment
 * the scaffold's Makefile includes, with a comment naming each finding. Errors are never baselined.
 */
import { type Finding, formatLocation } from '../core/errors.js';
import { hasErrors } from '../pko/validate.js';

/** The fragment's name in the output directory; the scaffold's Makefile includes `resources/` + this. */
export const BASELINE_FILE = 'validate-baseline.mk';

export interface Baseline {
  /** Rule ids to skip, sorted, unique. */
  rules: string[];
  /** The findings behind them. */
  findings: Finding[];
}

/** Warnings that only `--strict` turns into failures; never errors, never PKO's own rules (`--skip` refuses those). */
export function baselineOf(findings: readonly Finding[]): Baseline {
  const kept = findings.filter((f) => f.severity === 'warning' && hasErrors([f], true) && !f.rule.startsWith('pko/'));
  return { rules: [...new Set(kept.map((f) => f.rule))].sort(), findings: kept };
}

/** Where a finding is, for a person: `package/FILE[:doc]` and the object, never the message (it may carry rendered values). */
export function baselineWhere(f: Finding, packageDir = 'package'): string {
  const loc = formatLocation(f);
  return [loc ? `${packageDir}/${loc}` : packageDir, f.object].filter(Boolean).join(': ');
}

/** The make fragment: one comment line per finding, then `VALIDATE_SKIP += RULE` per rule. */
export function baselineMakefile(b: Baseline, origin: string): string {
  if (b.rules.length === 0) return '';
  return [
    `# Written by \`pkogen kickstart\` from ${origin}: findings of \`pkogen validate --strict\` that the`,
    '# original package already had. The objects were kept as they were; `make test` skips these rules',
    '# (validate --skip RULE, which drops every finding of the rule). Fix and remove: fix each finding',
    '# below in resources/, delete its rule line, and delete this file when it is empty.',
    ...b.findings.map((f) => `#   [${f.rule}] ${baselineWhere(f)}`),
    ...b.rules.map((r) => `VALIDATE_SKIP += ${r}`),
    '',
  ].join('\n');
}
