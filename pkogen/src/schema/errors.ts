import type { ErrorObject } from 'ajv';
import { FORMAT_MESSAGES } from './formats.js';
import { childPath as joinPath } from '../core/field-path.js';
import { pointerToPath, unknownFieldMessage } from './paths.js';
import type { SchemaIssue } from './types.js';

const LEAF = new Set(['type', 'format', 'pattern', 'enum', 'minimum', 'maximum', 'minLength', 'maxLength']);

/** "null" is allowed on optional fields as "unset"; it only confuses a type message. */
function typeList(types: string[]): string {
  const shown = types.filter((t) => t !== 'null');
  return (shown.length ? shown : types).join(' or ');
}

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
  // A branch error nests under its fold's schemaPath; kubernetes-models' compiled validators
  // restart schemaPath per sub-validator, so there leaf errors at the fold's own value that come
  // before it count as its branches too.
  const inFold = (e: ErrorObject): ErrorObject | undefined =>
    folds.find(
      (f) =>
        f !== e &&
        e.instancePath.startsWith(f.instancePath) &&
        (e.schemaPath.startsWith(f.schemaPath + '/') ||
          (e.instancePath === f.instancePath && errors.indexOf(e) < errors.indexOf(f) && LEAF.has(e.keyword))),
    );
  // A value of the wrong type also fails its format/pattern: report the type only.
  const typeFailed = new Set(errors.filter((e) => e.keyword === 'type').map((e) => e.instancePath));
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
    if (e.keyword === 'if') continue; // "must match then": the then-branch error says what is wrong
    if ((e.keyword === 'format' || e.keyword === 'pattern') && typeFailed.has(e.instancePath)) continue;
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
        message = unknownFieldMessage(String(p.additionalProperty), Object.keys((e.parentSchema?.properties as object | undefined) ?? {}));
        break;
      case 'type':
        message = `must be ${typeList(String(p.type).split(','))}, got ${describe(value)}`;
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
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum':
        message = `must be ${String(p.comparison)} ${String(p.limit)}; got ${describe(value)}`;
        break;
      case 'minLength':
        message = `must be at least ${String(p.limit)} characters long`;
        break;
      case 'maxLength':
        message = `must be at most ${String(p.limit)} characters long`;
        break;
      case 'minItems':
        message = `must have at least ${String(p.limit)} item${p.limit === 1 ? '' : 's'}`;
        break;
      case 'maxItems':
        message = p.limit === 0 ? 'must be empty' : `must have at most ${String(p.limit)} items`;
        break;
      case 'minProperties':
        message = `must have at least ${String(p.limit)} field${p.limit === 1 ? '' : 's'}`;
        break;
      case 'maxProperties':
        message = `must have at most ${String(p.limit)} fields`;
        break;
      case 'multipleOf':
        message = `must be a multiple of ${String(p.multipleOf)}; got ${describe(value)}`;
        break;
      case 'uniqueItems':
        message = `duplicate entry: items ${Math.min(Number(p.i), Number(p.j))} and ${Math.max(Number(p.i), Number(p.j))} are identical (the list is a set)`;
        break;
      case 'pattern':
        message = `must match the regular expression ${String(p.pattern)}; got ${describe(value)}`;
        break;
      case 'anyOf':
      case 'oneOf': {
        // A more specific error inside the same value already explains the failure.
        if (errors.some((o) => !folds.includes(o) && !inFold(o) && o.instancePath.startsWith(e.instancePath))) continue;
        let branches = errors.filter((b) => b !== e && inFold(b) === e);
        // A branch whose type the value has explains the failure better than the branches it
        // does not match at all (quantity: "must be number" vs the string branch's format).
        const specific = branches.filter((b) => b.keyword !== 'type' && b.instancePath === e.instancePath);
        if (specific.length > 0) branches = specific;
        const inner = renderAjvErrors(branches, data).map((i) => (i.path === base ? i.message : `${i.path}: ${i.message}`));
        const uniq = [...new Set(inner)];
        if (specific.length > 0 && uniq.length === 1) {
          push({ path: prefixed(prefix, path), message: uniq[0]!, keyword: specific[0]!.keyword });
          continue;
        }
        // int-or-string and friends: every branch failed on type alone.
        if (branches.length > 0 && branches.every((b) => b.keyword === 'type' && b.instancePath === e.instancePath)) {
          const types = [...new Set(branches.flatMap((b) => String((b.params as { type: unknown }).type).split(',')))];
          message = `must be ${typeList(types)}, got ${describe(value)}`;
          push({ path: prefixed(prefix, path), message, keyword: 'type' });
          continue;
        }
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
