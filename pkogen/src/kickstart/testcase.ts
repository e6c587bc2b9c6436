/**
 * A test case for a package that has none: the config schema's required keys, each with a value
 * the schema accepts (its default, the first enum value, a sample for its format, a value within
 * its bounds), so that `pkogen generate` writes fixtures and `make test` can render the package.
 * Keys that are not required are left out: PKO fills their defaults (a key whose default is a
 * bare null has none, and gets a value like a required one).
 */
import type { JSONSchemaProps, PackageManifestTestCaseTemplate } from '../pko/types.js';
import { placeholderImage } from '../model/package.js';

const FORMAT_SAMPLES: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  duration: '1m',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  email: 'user@example.com',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  cidr: '192.0.2.0/24',
  uuid: '00000000-0000-4000-8000-000000000000',
  byte: 'ZXhhbXBsZQ==',
  password: 'example',
  'int-or-string': '1',
  quantity: '1',
};

/** Candidates tried, in order, against a `pattern` and the length bounds. */
const STRING_CANDIDATES = ['example', 'example-1', 'a', '0', '1', 'v1', 'A', 'example.com', '1.0.0', 'x'];

export interface SampleResult {
  value: unknown;
  /** Property paths for which no value was found that surely satisfies the schema. */
  unsure: string[];
}

function sampleString(s: JSONSchemaProps, first?: string): string | undefined {
  const fits = (v: string) => {
    if (typeof s.minLength === 'number' && v.length < s.minLength) return false;
    if (typeof s.maxLength === 'number' && v.length > s.maxLength) return false;
    if (typeof s.pattern === 'string') {
      try {
        return new RegExp(s.pattern, 'u').test(v);
      } catch {
        return false;
      }
    }
    return true;
  };
  const byFormat = typeof s.format === 'string' ? FORMAT_SAMPLES[s.format] : undefined;
  const pad = (v: string) => (typeof s.minLength === 'number' && v.length < s.minLength ? v + 'x'.repeat(s.minLength - v.length) : v);
  for (const c of [first, byFormat, ...STRING_CANDIDATES].filter((x): x is string => x !== undefined).map(pad)) if (fits(c)) return c;
  return undefined;
}

function sampleNumber(s: JSONSchemaProps, integer: boolean): number {
  const min = typeof s.minimum === 'number' ? (s.exclusiveMinimum === true ? s.minimum + 1 : s.minimum) : undefined;
  const max = typeof s.maximum === 'number' ? (s.exclusiveMaximum === true ? s.maximum - 1 : s.maximum) : undefined;
  let v = min ?? (max !== undefined && max < 1 ? max : 1);
  if (integer) v = Math.ceil(v);
  return v;
}

/** `default: null` on a key that is not nullable: PKO's defaulting leaves the key out, so it is no default. */
function noDefault(x: JSONSchemaProps | undefined): boolean {
  return !!x && typeof x === 'object' && x.default === null && x.nullable !== true;
}

/**
 * `image`: what a key whose name says it holds a container image gets first (the init scaffold's
 * digest-pinned placeholder, so that `validate --strict` accepts the rendered Deployment).
 */
export function sampleValue(s: JSONSchemaProps | undefined, hints: { image?: string } = {}): SampleResult {
  const unsure: string[] = [];
  const go = (x: JSONSchemaProps | undefined, p: string): unknown => {
    if (!x || typeof x !== 'object') return (unsure.push(p || '.'), '');
    if (x.default !== undefined && !noDefault(x)) return x.default;
    if (Array.isArray(x.enum) && x.enum.length) return x.enum[0];
    if (x.type === 'object' || x.properties) {
      const out: Record<string, unknown> = {};
      const props = (x.properties ?? {}) as Record<string, JSONSchemaProps>;
      // Required keys, and keys whose default is a bare null (the config then lacks them, as if required).
      const keys = [...new Set([...((x.required ?? []) as string[]), ...Object.keys(props).filter((k) => noDefault(props[k]))])];
      for (const k of keys) out[k] = go(props[k], p ? `${p}.${k}` : k);
      const min = typeof x.minProperties === 'number' ? x.minProperties : 0;
      if (Object.keys(out).length < min) unsure.push(p || '.');
      return out;
    }
    if (x.type === 'array') {
      const n = typeof x.minItems === 'number' ? x.minItems : 0;
      return Array.from({ length: n }, (_, i) => go(x.items as JSONSchemaProps | undefined, `${p}[${i}]`));
    }
    if (x.type === 'integer' || x.type === 'number') return sampleNumber(x, x.type === 'integer');
    if (x.type === 'boolean') return false;
    if (x.type === 'string' || x['x-kubernetes-int-or-string'] === true || x.type === undefined) {
      const key = p.split('.').pop() ?? '';
      const v = sampleString(x, /image$/i.test(key) ? hints.image : undefined);
      if (v === undefined) unsure.push(p || '.');
      return v ?? 'example';
    }
    unsure.push(p || '.');
    return '';
  };
  return { value: go(s, ''), unsure };
}

/** The test case kickstart writes when a package has none. */
export function testCaseFromSchema(name: string, namespace: string, schema: JSONSchemaProps | undefined, used: readonly string[] = []): { testCase: PackageManifestTestCaseTemplate; unsure: string[] } {
  const props = (schema?.properties ?? {}) as Record<string, JSONSchemaProps>;
  const needed = used.filter((k) => props[k] && typeof props[k] === 'object' && props[k].default === undefined);
  const withUsed = schema && needed.length ? { ...schema, required: [...new Set([...((schema.required ?? []) as string[]), ...needed])] } : schema;
  const { value, unsure } = withUsed ? sampleValue(withUsed, { image: placeholderImage(name || 'package') }) : { value: {}, unsure: [] };
  const config = value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  return {
    testCase: {
      name: 'kickstart',
      context: { package: { metadata: { name, namespace } }, ...(Object.keys(config).length ? { config } : {}), environment: { kubernetes: { version: 'v1.31.4' } } },
    },
    unsure,
  };
}

/** The top-level config keys a template names (`.config.KEY`), sorted. */
export function configKeysUsed(templates: readonly string[]): string[] {
  const out = new Set<string>();
  for (const t of templates) for (const m of t.matchAll(/\.config\.([A-Za-z_][A-Za-z0-9_]*)/g)) out.add(m[1]);
  return [...out].sort();
}
