import type { ErrorObject } from 'ajv';
import { FORMAT_MESSAGES } from './formats.js';
import { joinPath, pointerToPath } from './paths.js';
import type { SchemaIssue } from './types.js';

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? `integer ${v}` : `number ${v}`;
  if (typeof v === 'string') return `string ${JSON.stringify(v.length > 60 ? v.slice(0, 57) + '...' : v)}`;
  return typeof v;
}

function valueAt(data: unknown, pointer: string): unknown {
  let cur = data;
  if (pointer === '') return cur;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[seg];
  }
  return cur;
}

function prefixed(prefix: string, path: string): string {
  if (prefix === '') return path;
  if (path === '') return prefix;
  return path.startsWith('[') ? prefix + path : `${prefix}.${path}`;
}

/**
 * ajv errors → SchemaIssues with kubectl-style paths and plain messages. Branch errors under a failed
 * anyOf/oneOf are folded into one issue (raw ajv reports every branch, which reads as noise).
 */
export function renderAjvErrors(errors: readonly ErrorObject[], data: unknown, prefix = ''): SchemaIssue[] {
  const folds = errors.filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf');
  const inFold = (e: ErrorObject): ErrorObject | undefined =>
    folds.find((f) => f !== e && e.schemaPath.startsWith(f.schemaPath + '/') && e.instancePath.startsWith(f.instancePath));
  const out: SchemaIssue[] = [];
  const seen = new Set<string>();
  const push = (i: SchemaIssue): void => {
    const key = `${i.path}\u0000${i.message}`;
    if (!seen.has(key)) {
      seen.add(key);
      out.push(i);
    }
  };
  for (const e of errors) {
    if (inFold(e)) continue;
    if (e.keyword === 'propertyNames') continue; // reported by the inner error, which names the key
    const base = pointerToPath(e.instancePath, data);
    const value = valueAt(data, e.instancePath);
    const p = e.params as Record<string, unknown>;
    let path = base;
    let message: string;
    const keyName = (e as ErrorObject & { propertyName?: string }).propertyName;
    switch (e.keyword) {
      case 'required':
        path = joinPath(base, String(p.missingProperty));
        message = `missing required field "${String(p.missingProperty)}"`;
        break;
      case 'additionalProperties':
        path = joinPath(base, String(p.additionalProperty));
        message = `unknown field "${String(p.additionalProperty)}"`;
        break;
      case 'type':
        message = `must be ${String(p.type).split(',').join(' or ')}, got ${describe(value)}`;
        break;
      case 'enum':
        message = `must be one of ${(p.allowedValues as unknown[]).filter((v) => v !== null).map((v) => JSON.stringify(v)).join(', ')}; got ${describe(value)}`;
        break;
      case 'const':
        message = `must be ${JSON.stringify(p.allowedValue)}; got ${describe(value)}`;
        break;
      case 'format': {
        const f = String(p.format);
        const shown = keyName !== undefined ? JSON.stringify(keyName) : describe(value);
        message = `${FORMAT_MESSAGES[f] ?? `must match format "${f}"`}; got ${shown}`;
        break;
      }
      case 'pattern':
        message = `must match the regular expression ${String(p.pattern)}; got ${describe(value)}`;
        break;
      case 'anyOf':
      case 'oneOf': {
        const branches = errors.filter((b) => b !== e && inFold(b) === e);
        const inner = renderAjvErrors(branches, data).map((i) => (i.path === base ? i.message : `${i.path}: ${i.message}`));
        const uniq = [...new Set(inner)];
        if (e.keyword === 'oneOf' && (p.passingSchemas as unknown) != null) message = 'must match exactly one of the allowed forms, but matches several';
        else message = `must match ${e.keyword === 'oneOf' ? 'exactly one' : 'at least one'} of the allowed forms${uniq.length ? ` (${uniq.join(' | ')})` : ''}`;
        break;
      }
      default:
        message = e.message ?? `failed ${e.keyword} ${JSON.stringify(p)}`;
    }
    if (keyName !== undefined && e.keyword !== 'required' && e.keyword !== 'additionalProperties') {
      path = joinPath(base, keyName);
      message = `invalid key: ${message}`;
    }
    push({ path: prefixed(prefix, path), message, keyword: e.keyword });
  }
  return out;
}
