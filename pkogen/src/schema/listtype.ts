import type { ErrorObject } from 'ajv';
import type { KeywordValidator } from './types.js';

/**
 * The validator of one `x-kubernetes-list-map-keys` value: two items with the same key values are
 * an error (x-kubernetes-list-map-keys: kube-keywords.ts). Also what precompiled CRD validators
 * call (precompile.ts imports it by this name). No ajv here: the registry loads it only to compile.
 */
export function listMapKeysValidator(keys: unknown): KeywordValidator {
  const names = Array.isArray(keys) ? keys.map(String) : [];
  const validate = (data: unknown[]): boolean => {
    const seen = new Map<string, number>();
    const errors: Partial<ErrorObject>[] = [];
    data.forEach((item, i) => {
      if (item === null || typeof item !== 'object') return;
      const rec = item as Record<string, unknown>;
      const id = JSON.stringify(names.map((k) => rec[k] ?? null));
      const first = seen.get(id);
      if (first === undefined) seen.set(id, i);
      else {
        const shown = names.map((k) => `${k}=${JSON.stringify(rec[k] ?? null)}`).join(', ');
        errors.push({
          keyword: 'x-kubernetes-list-map-keys',
          message: `duplicate entry: items ${first} and ${i} both have ${shown}`,
          params: { keys: names },
        });
      }
    });
    (validate as unknown as { errors: unknown }).errors = errors.length ? errors : null;
    return errors.length === 0;
  };
  return validate as KeywordValidator;
}
