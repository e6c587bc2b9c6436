/**
 * Kubernetes' field.Error and ErrorList.ToAggregate text, which PKO prints for manifest and lock
 * validation: `spec.scopes: Required value`, `spec.images[0].name: Invalid value: "": must be non empty`,
 * several → `[a, b]`.
 */
import { looksSecretPath } from './redact.js';

export type FieldErrorType = 'Required' | 'Invalid' | 'Forbidden' | 'NotSupported' | 'Duplicate' | 'TooLong' | 'TooMany' | 'TypeInvalid';

export interface FieldError {
  type: FieldErrorType;
  field: string;
  value?: unknown;
  detail?: string;
  /** The value is a package's config value: never printed, whatever the key (as `status` never prints config). */
  hideValue?: boolean;
}

const TYPE_TEXT: Record<FieldErrorType, string> = {
  Required: 'Required value',
  Invalid: 'Invalid value',
  Forbidden: 'Forbidden',
  NotSupported: 'Unsupported value',
  Duplicate: 'Duplicate value',
  TooLong: 'Too long',
  TooMany: 'Too many',
  TypeInvalid: 'Invalid value',
};

/** Go's %#v-ish rendering k8s uses for values: strings quoted, numbers plain, others JSON. */
function valueText(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v === null || v === undefined) return 'null';
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

export function fieldErrorBody(e: FieldError): string {
  let s: string;
  if (e.type === 'Required' || e.type === 'Forbidden' || e.type === 'TooLong') s = TYPE_TEXT[e.type];
  // A field named like a credential (spec.config.dbPassword) never has its value printed.
  else s = `${TYPE_TEXT[e.type]}: ${e.hideValue || (looksSecretPath(e.field) && !e.field.includes('openAPIV3Schema')) ? '(value not shown)' : valueText(e.value)}`;
  if (e.detail) s += `: ${e.detail}`;
  return s;
}

export function fieldErrorText(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** ErrorList.ToAggregate().Error(): one → its text; several → `[a, b]` (duplicates dropped). */
export function aggregateText(errs: FieldError[]): string {
  const seen = new Set<string>();
  const msgs: string[] = [];
  for (const e of errs) {
    const t = fieldErrorText(e);
    if (!seen.has(t)) {
      seen.add(t);
      msgs.push(t);
    }
  }
  if (msgs.length === 1) return msgs[0];
  return `[${msgs.join(', ')}]`;
}

export const required = (field: string, detail = ''): FieldError => ({ type: 'Required', field, detail });
export const invalid = (field: string, value: unknown, detail: string): FieldError => ({ type: 'Invalid', field, value, detail });
export const forbidden = (field: string, detail: string): FieldError => ({ type: 'Forbidden', field, detail });
export const notSupported = (field: string, value: unknown, valid: string[]): FieldError => ({
  type: 'NotSupported', field, value, detail: `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}`,
});
