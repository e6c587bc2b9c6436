/**
 * The CEL rules of our two CRDs (builder/api/crds.ts), each as JavaScript, for the webhook's
 * precompiled validators (precompile.ts). Evaluating them with @bufbuild/cel cost ~600 µs and
 * ~20 MiB per process: its `matches()` compiles the RE2 pattern again on every call (re2js DFA
 * construction). The rules are few and fixed, so each has a JavaScript twin here; the patterns
 * are the ones builder/api/types.ts shares between CRD and webhook (written so RE2 and JavaScript
 * read them alike). Generation fails on a rule without a twin (webhookSchemasSource calls
 * assertJsRules), and test/builder/webhook-precompiled.test.ts checks that both give the same
 * errors as the run-time validators, which evaluate the rules with CEL.
 *
 * Semantics kept from src/schema/cel.ts (celRulesValidator): a rule on `oldSelf` (a transition
 * rule) is skipped, since the webhook checks transitions itself (validate.ts); a rule whose CEL
 * evaluation would fail (a missing field: "no such key") is skipped, not reported.
 */
import { DIGESTED_PULL_SPEC_RE, DNS1123_SUBDOMAIN_RE, FINAL_STAGE_RE, IMAGE_REF_RE, PUSH_SPEC_RE } from '../api/types.js';

type Verdict = boolean | undefined;
type Rule = { rule?: unknown; message?: unknown; fieldPath?: unknown };

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Patterns a `self.matches("…")` rule may name: the shared ones, by their source text. */
const PATTERNS = new Map([PUSH_SPEC_RE, DIGESTED_PULL_SPEC_RE, FINAL_STAGE_RE, IMAGE_REF_RE, DNS1123_SUBDOMAIN_RE].map((re) => [re.source, re]));

/** Rules that are not `self.matches(…)`, by their exact text. */
const OTHER: Record<string, (self: unknown) => Verdict> = {
  'self.metadata.name == self.spec.nodePool.name': (s) => {
    if (!isObj(s) || !isObj(s.metadata) || !isObj(s.spec) || !isObj(s.spec.nodePool)) return undefined;
    if (!('name' in s.metadata) || !('name' in s.spec.nodePool)) return undefined;
    return s.metadata.name === s.spec.nodePool.name;
  },
  "self.imageBuilderType == 'Job' ? has(self.job) : !has(self.job)": (s) => {
    if (!isObj(s) || !('imageBuilderType' in s)) return undefined;
    return s.imageBuilderType === 'Job' ? 'job' in s : !('job' in s);
  },
};

const MATCHES_RE = /^self\.matches\(("(?:[^"\\]|\\.)*")\)$/;

/** The JavaScript twin of one rule; undefined when there is none. Transition rules: always skipped. */
export function jsRule(text: string): ((self: unknown) => Verdict) | undefined {
  if (/\boldSelf\b/.test(text)) return () => undefined;
  const m = MATCHES_RE.exec(text);
  if (m) {
    const re = PATTERNS.get(JSON.parse(m[1]!) as string);
    return re ? (s) => (typeof s === 'string' ? re.test(s) : undefined) : undefined;
  }
  return OTHER[text];
}

/** Throws naming the first rule in `schema` (walked whole) without a JavaScript twin. */
export function assertJsRules(schema: unknown, where: string): void {
  const walk = (v: unknown, p: string): void => {
    if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${p}[${i}]`));
    if (!isObj(v)) return;
    const rules = v['x-kubernetes-validations'];
    if (Array.isArray(rules)) {
      for (const r of rules as Rule[]) {
        if (typeof r.rule !== 'string' || !jsRule(r.rule)) throw new Error(`${where}${p}: CEL rule ${JSON.stringify(r.rule)} has no JavaScript twin in builder/webhook/cel-rules.ts`);
      }
    }
    for (const [k, x] of Object.entries(v)) if (k !== 'x-kubernetes-validations') walk(x, `${p}.${k}`);
  };
  walk(schema, '');
}

interface KeywordValidator {
  (data: unknown): boolean;
  errors?: unknown;
}

/** The same shape as cel.ts celRulesValidator (the precompiled code calls it by that name). */
export function celRulesValidator(schema: unknown): KeywordValidator {
  const given = (Array.isArray(schema) ? schema : []).map((r) => (r ?? {}) as Rule);
  const planned = given.map((rule) => ({ rule, fn: typeof rule.rule === 'string' ? jsRule(rule.rule) : undefined }));
  const validate: KeywordValidator = (data: unknown): boolean => {
    const errors: Record<string, unknown>[] = [];
    for (const { rule, fn } of planned) {
      if (!fn || fn(data) !== false) continue;
      const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
      const msg = typeof rule.message === 'string' && rule.message !== '' ? rule.message : `failed rule: ${String(rule.rule)}`;
      errors.push({ keyword: 'x-kubernetes-validations', message: fieldPath ? `${fieldPath.replace(/^\./, '')}: ${msg}` : msg, params: { rule: rule.rule } });
    }
    validate.errors = errors.length ? errors : null;
    return errors.length === 0;
  };
  return validate;
}
