/**
 * The two Kubernetes schema keywords the registry's ajv knows (x-kubernetes-list-map-keys,
 * x-kubernetes-validations), loaded with ajv itself (ajv-setup.ts): their validators, which
 * precompiled CRD modules call too, live in listtype.ts and cel.ts without ajv.
 *
 * Each is a user-defined ajv keyword backed by a function per schema value, which ajv's standalone code
 * (precompile.ts) can carry. ajv keeps a `compile`d keyword's function as a bare reference, so
 * standalone code generation refuses it ("CodeGen: name "keyword0" has no value"). Here the
 * function is first put in the generated code's scope with `code`, an expression that makes the
 * same function in a generated module (the module imports what it names). ajv's own code
 * generation for compiled keywords (funcKeywordCode) then finds it under the same name (scope
 * values are keyed by reference: ajv/lib/compile/codegen/scope.ts ValueScope.value) and emits
 * exactly what it emits for a `compile` keyword: the same validator, errors and error paths.
 */
import type { Ajv, CodeKeywordDefinition, KeywordCxt } from 'ajv';
import { _, stringify, type Code } from 'ajv/dist/compile/codegen/index.js';
import * as keywordCode from 'ajv/dist/compile/validate/keyword.js';
import { celRulesValidator } from './cel.js';
import { listMapKeysValidator } from './listtype.js';
import type { KeywordValidator } from './types.js';

// CommonJS: under NodeNext the functions may arrive on the namespace's default.
const ns = keywordCode as unknown as { funcKeywordCode?: typeof keywordCode.funcKeywordCode; default?: { funcKeywordCode: typeof keywordCode.funcKeywordCode } };
const funcKeywordCode = (ns.funcKeywordCode ?? ns.default!.funcKeywordCode) as typeof keywordCode.funcKeywordCode;

function standaloneFuncKeyword(def: {
  keyword: string;
  type?: CodeKeywordDefinition['type'];
  /** The validator for one schema value of the keyword. */
  make: (schema: unknown) => KeywordValidator;
  /** An expression that evaluates to make(schema) in a standalone module. */
  code: (schema: unknown) => Code;
}): CodeKeywordDefinition {
  return {
    keyword: def.keyword,
    ...(def.type ? { type: def.type } : {}),
    // As a compiled keyword's context has (KeywordCxt: errsCount), for ajv's extendErrors.
    trackErrors: true,
    code(cxt: KeywordCxt) {
      const fn = def.make(cxt.schema);
      cxt.gen.scopeValue('keyword', { ref: fn, code: def.code(cxt.schema) });
      funcKeywordCode(cxt, { keyword: def.keyword, errors: true, compile: () => fn as never });
    },
  };
}

/**
 * `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`: the API server rejects two items
 * with the same key values (a "Duplicate value"). The converter keeps the keys under this keyword
 * only for map lists; `set` lists become `uniqueItems`.
 */
export function addListMapKeyword(ajv: Ajv): void {
  ajv.addKeyword(
    standaloneFuncKeyword({
      keyword: 'x-kubernetes-list-map-keys',
      type: 'array',
      make: listMapKeysValidator,
      code: (keys) => _`listMapKeysValidator(${stringify(keys)})`,
    }),
  );
}

/**
 * Registers `x-kubernetes-validations` on ajv: each rule with standard CEL (plus the strings
 * extension) is evaluated with `self` bound to the value; a rule evaluating to false is an error.
 * Rules that cannot run offline (oldSelf, Kubernetes CEL libraries such as format.* or quantity(),
 * runtime errors) are skipped, never reported as failures (counted: cel.ts celCounts).
 */
export function addCelKeyword(ajv: Ajv): void {
  ajv.addKeyword(
    standaloneFuncKeyword({
      keyword: 'x-kubernetes-validations',
      make: celRulesValidator,
      code: (rules) => _`celRulesValidator(${stringify(rules)})`,
    }),
  );
}
