import type { Ajv, ErrorObject } from 'ajv';

/**
 * `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`: the API server rejects two items
 * with the same key values (a "Duplicate value"). The converter keeps the keys under this keyword
 * only for map lists; `set` lists become `uniqueItems`.
 */
export function addListMapKeyword(ajv: Ajv): void {
  ajv.addKeyword({
    keyword: 'x-kubernetes-list-map-keys',
    type: 'array',
    errors: true,
    compile(keys: unknown) {
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
      return validate;
    },
  });
}
