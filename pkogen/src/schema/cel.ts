import type { ErrorObject } from 'ajv';
import type { KeywordValidator } from './types.js';
import type { CelInput } from '@bufbuild/cel';
import { createRequire } from 'node:module';
import { isDns1123Label, isDns1123Subdomain, isLabelValue, isQualifiedName } from './formats.js';

interface Rule {
  rule?: unknown;
  message?: unknown;
  fieldPath?: unknown;
  reason?: unknown;
}

/** Counters across all evaluations, for reporting what CEL coverage the registry had. */
export interface CelStats {
  evaluated: number;
  /** Transition rules (oldSelf), rules needing Kubernetes-only CEL libraries, or failing at runtime. */
  skipped: number;
}

/**
 * Kubernetes' CEL format library (`format.dns1123Subdomain().validate(x)`) returns an optional list
 * of errors, which standard CEL cannot express; its one idiom, `….validate(x).hasValue()`, is rewritten
 * into a call of this function (true when x is invalid) for the formats we can check.
 */
const K8S_FORMATS: Record<string, (s: string) => boolean> = {
  dns1123Label: isDns1123Label,
  dns1123Subdomain: isDns1123Subdomain,
  dns1035Label: (s) => s.length <= 63 && /^[a-z]([-a-z0-9]*[a-z0-9])?$/.test(s),
  qualifiedName: isQualifiedName,
  labelValue: isLabelValue,
  uuid: (s) => /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(s),
};
const FORMAT_IDIOM = /format\.(\w+)\(\)\.validate\(([^()]*)\)\.hasValue\(\)/g;

function rewriteFormatIdiom(rule: string): string {
  return rule.replace(FORMAT_IDIOM, (m, name: string, arg: string) =>
    Object.prototype.hasOwnProperty.call(K8S_FORMATS, name) ? `k8s_format_invalid(${JSON.stringify(name)}, ${arg})` : m,
  );
}

// @bufbuild/cel (~1 MB with protobuf) loads when the first CRD with CEL rules is compiled, not with
// the registry: most packages never need it. CommonJS through createRequire, the copy src/pko/cel.ts loads too.
type CelLib = typeof import('@bufbuild/cel');
let cel: { lib: CelLib; env: ReturnType<CelLib['celEnv']> } | undefined;
function celLib(): { lib: CelLib; env: ReturnType<CelLib['celEnv']> } {
  if (!cel) {
    const req = createRequire(import.meta.url);
    const lib = req('@bufbuild/cel') as CelLib;
    const { strings } = req('@bufbuild/cel/ext') as typeof import('@bufbuild/cel/ext');
    const formatInvalid = lib.celFunc('k8s_format_invalid', [lib.CelScalar.STRING, lib.CelScalar.STRING], lib.CelScalar.BOOL, (name, value) => !K8S_FORMATS[name]!(value));
    cel = { lib, env: lib.celEnv({ funcs: [...strings, formatInvalid] }) };
  }
  return cel;
}

/** JSON value → CEL input: objects become maps, integral numbers CEL ints (Kubernetes integer fields). */
function toCel(v: unknown): CelInput {
  if (Array.isArray(v)) return v.map(toCel);
  if (v !== null && typeof v === 'object') {
    const m = new Map<string, CelInput>();
    for (const [k, x] of Object.entries(v)) m.set(k, toCel(x));
    return m;
  }
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  return v as CelInput;
}

type Planned = { fn: (ctx: { self: CelInput }) => unknown; rule: Rule } | { fn: undefined; rule: Rule };

function planRule(rule: Rule): Planned {
  const text = typeof rule.rule === 'string' ? rule.rule : '';
  // Transition rules only run on update; there is no old object offline.
  if (text === '' || /\boldSelf\b/.test(text)) return { fn: undefined, rule };
  try {
    const { lib, env } = celLib();
    const run = lib.plan(env, lib.parse(rewriteFormatIdiom(text))) as unknown as (ctx: { self: CelInput }) => unknown;
    return { fn: run, rule };
  } catch {
    return { fn: undefined, rule };
  }
}

/** Every CEL rule run by any validator in this process; registries report their share (celCounts). */
const COUNTS: CelStats = { evaluated: 0, skipped: 0 };

/** A copy of the process-wide counters: a registry adds the difference across its own validate call. */
export function celCounts(): CelStats {
  return { ...COUNTS };
}

/**
 * The validator of one `x-kubernetes-validations` value. Rules are parsed the first time the
 * validator runs (then @bufbuild/cel loads), not when the schema is compiled or a precompiled
 * module loads. Also what precompiled CRD validators call (precompile.ts imports it by this name).
 * The keyword itself (x-kubernetes-validations) is registered with ajv in kube-keywords.ts.
 */
export function celRulesValidator(schema: unknown): KeywordValidator {
  const given = (Array.isArray(schema) ? schema : []).map((r) => (r ?? {}) as Rule);
  let rules: Planned[] | undefined;
  const validate = (data: unknown): boolean => {
    rules ??= given.map(planRule);
    const errors: Partial<ErrorObject>[] = [];
    let self: CelInput | undefined;
    for (const { fn, rule } of rules) {
      if (!fn) {
        COUNTS.skipped++;
        continue;
      }
      self ??= toCel(data);
      let result: unknown;
      try {
        result = fn({ self });
      } catch {
        result = undefined;
      }
      if (typeof result !== 'boolean' || celLib().lib.isCelError(result)) {
        COUNTS.skipped++;
        continue;
      }
      COUNTS.evaluated++;
      if (!result) {
        const fieldPath = typeof rule.fieldPath === 'string' ? rule.fieldPath : '';
        const msg = typeof rule.message === 'string' && rule.message !== '' ? rule.message : `failed rule: ${String(rule.rule)}`;
        errors.push({
          keyword: 'x-kubernetes-validations',
          message: fieldPath ? `${fieldPath.replace(/^\./, '')}: ${msg}` : msg,
          params: { rule: rule.rule },
        });
      }
    }
    (validate as unknown as { errors: unknown }).errors = errors.length ? errors : null;
    return errors.length === 0;
  };
  return validate as KeywordValidator;
}
