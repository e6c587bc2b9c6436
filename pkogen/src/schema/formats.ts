import type { Ajv, Format } from 'ajv';
// The format definitions alone (not ajv-formats' plugin, which loads ajv's code generator): the
// precompiled validators need them without an Ajv instance.
import * as ajvFormats from 'ajv-formats/dist/formats.js';

// ajv-formats is CommonJS; under NodeNext its exports may arrive wrapped in `default`.
const fullFormats = ((ajvFormats as unknown as { fullFormats?: Record<string, Format> }).fullFormats ??
  (ajvFormats as unknown as { default: { fullFormats: Record<string, Format> } }).default.fullFormats);

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
// Go time.ParseDuration syntax ("1h30m", "-1.5s", "0"), which Kubernetes CRDs mean by format: duration.
const GO_DURATION = /^[-+]?(0|(\d+(\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h))+$/;
const ISO_DURATION = /^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$/;
// apimachinery resource.Quantity.
const QUANTITY = /^[+-]?(\d+|\d+\.\d+|\d+\.|\.\d+)([KMGTPE]i|[numkMGTPE]|[eE][+-]?(\d+|\d+\.\d+|\d+\.|\.\d+))?$/;

export function isDns1123Label(s: string): boolean {
  return s.length <= 63 && DNS1123_LABEL.test(s);
}
export function isDns1123Subdomain(s: string): boolean {
  return s.length <= 253 && DNS1123_SUBDOMAIN.test(s);
}
/** Label and annotation keys: [prefix/]name, prefix a DNS subdomain, name ≤ 63 chars. */
export function isQualifiedName(s: string): boolean {
  const parts = s.split('/');
  if (parts.length > 2) return false;
  const name = parts[parts.length - 1]!;
  if (name.length > 63 || !QUALIFIED_NAME_PART.test(name)) return false;
  return parts.length === 1 || (parts[0]!.length > 0 && isDns1123Subdomain(parts[0]!));
}
export function isLabelValue(s: string): boolean {
  return s.length <= 63 && LABEL_VALUE.test(s);
}
/** Path segment names (RBAC objects): anything but "", ".", "..", or containing "/" or "%". */
export function isPathSegmentName(s: string): boolean {
  return s !== '' && s !== '.' && s !== '..' && !/[/%]/.test(s);
}

/** Human text for our formats, used when rendering ajv errors. */
export const FORMAT_MESSAGES: Record<string, string> = {
  'k8s-dns1123-label':
    "must be a lowercase RFC 1123 label: at most 63 characters, a-z, 0-9 and '-', starting and ending with an alphanumeric character",
  'k8s-dns1123-subdomain':
    "must be a lowercase RFC 1123 subdomain: at most 253 characters, a-z, 0-9, '-' and '.', each part starting and ending with an alphanumeric character",
  'k8s-path-segment': "must not be empty, '.', '..' or contain '/' or '%'",
  'k8s-qualified-name':
    "must be a qualified name: an optional DNS subdomain prefix and '/', then at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric character",
  'k8s-label-value':
    "must be a valid label value: at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric character (or empty)",
  int32: 'must be a 32-bit integer',
  int64: 'must be a 64-bit integer',
  duration: 'must be a duration such as "30s", "1h30m" (Go syntax) or "PT30S" (ISO 8601)',
  quantity: 'must be a quantity such as "100m", "1.5", "512Mi"',
  'date-time': 'must be an RFC 3339 date-time such as "2024-01-02T15:04:05Z"',
  byte: 'must be base64-encoded data',
};

const STANDARD = ['date', 'date-time', 'email', 'hostname', 'ipv4', 'ipv6', 'uri', 'uuid', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary'];

/**
 * Every format our ajv knows, as ajv takes them: the standard ones from ajv-formats ("full" mode,
 * what its plugin adds) and Kubernetes' own. One table for the runtime Ajv and for the validators
 * precompiled at build time (src/schema/precompiled.ts), so both check the same.
 */
export const FORMAT_DEFINITIONS: Readonly<Record<string, Format>> = {
  ...Object.fromEntries(STANDARD.map((f) => [f, fullFormats[f]!])),
  duration: { type: 'string', validate: (s: string) => GO_DURATION.test(s) || ISO_DURATION.test(s) },
  quantity: { type: 'string', validate: QUANTITY },
  cidr: { type: 'string', validate: (s: string) => /^(\d{1,3}(\.\d{1,3}){3}\/\d{1,2}|[0-9a-fA-F:.]+\/\d{1,3})$/.test(s) },
  mac: { type: 'string', validate: /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/ },
  'k8s-dns1123-label': { type: 'string', validate: isDns1123Label },
  'k8s-dns1123-subdomain': { type: 'string', validate: isDns1123Subdomain },
  'k8s-path-segment': { type: 'string', validate: isPathSegmentName },
  'k8s-qualified-name': { type: 'string', validate: isQualifiedName },
  'k8s-label-value': { type: 'string', validate: isLabelValue },
};

/** Formats our ajv knows; any other format in a CRD is dropped before compiling (Kubernetes ignores unknown formats too). */
export const KNOWN_FORMATS: ReadonlySet<string> = new Set(Object.keys(FORMAT_DEFINITIONS));

export function addKubernetesFormats(ajv: Ajv): void {
  for (const [name, def] of Object.entries(FORMAT_DEFINITIONS)) ajv.addFormat(name, def);
}
