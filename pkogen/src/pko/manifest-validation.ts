/**
 * PackageManifest and PackageManifestLock field validation (packagemanifestvalidation), with
 * Kubernetes field paths and messages. The caller aggregates: `[a, b]`.
 */
import { validateConfigSchema, validateConfigValue } from './config-schema.js';
import { FieldError, invalid, required } from './field-errors.js';
import type { PackageManifest, PackageManifestLock } from './types.js';

/** k8s validation.IsConfigMapKey. */
export function isConfigMapKey(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 253) errs.push('must be no more than 253 characters');
  if (!/^[-._a-zA-Z0-9]+$/.test(value)) {
    errs.push("a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')");
  }
  if (value === '.') errs.push("must not be '.'");
  else if (value === '..') errs.push("must not be '..'");
  else if (value.startsWith('..')) errs.push("must not start with '..'");
  return errs;
}

const VERSION = String.raw`v?(?:0|[1-9]\d*|[xX*])(?:\.(?:0|[1-9]\d*|[xX*]))?(?:\.(?:0|[1-9]\d*|[xX*]))?(?:-[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?`;
const OP = String.raw`(?:=|!=|>=|=>|<=|=<|>|<|~>|~|\^)?`;
const SINGLE = new RegExp(String.raw`^\s*${OP}\s*${VERSION}\s*$`);
const HYPHEN = new RegExp(String.raw`^\s*${VERSION}\s+-\s+${VERSION}\s*$`);

/** Whether a Masterminds-style semver constraint string parses ("improper constraint" otherwise). */
export function isValidSemverConstraint(range: string): boolean {
  if (range.trim() === '') return false;
  for (const alt of range.split('||')) {
    if (HYPHEN.test(alt)) continue;
    const parts = alt.trim().split(/\s*,\s*|\s+(?=[=!<>~^v\d*xX])/).filter((x) => x !== '');
    if (parts.length === 0) return false;
    for (const p of parts) if (!SINGLE.test(p)) return false;
  }
  return true;
}

export function validatePackageManifest(m: PackageManifest): FieldError[] {
  const errs: FieldError[] = [];
  const spec = m.spec ?? ({} as PackageManifest['spec']);
  if (!m.metadata?.name) errs.push(required('metadata.name'));
  if (!spec.scopes || spec.scopes.length === 0) errs.push(required('spec.scopes'));
  if (!spec.phases || spec.phases.length === 0) errs.push(required('spec.phases'));
  const phaseNames = new Set<string>();
  (spec.phases ?? []).forEach((ph, i) => {
    const name = ph?.name ?? '';
    if (phaseNames.has(name)) errs.push(invalid(`spec.phases[${i}].name`, name, 'must be unique'));
    phaseNames.add(name);
  });
  (spec.availabilityProbes ?? []).forEach((p, i) => {
    if (!p?.probes || p.probes.length === 0) errs.push(required(`spec.availabilityProbes[${i}].probes`));
  });
  const imageNames = new Set<string>();
  (spec.images ?? []).forEach((img, i) => {
    const name = img?.name ?? '';
    if (name === '') errs.push(invalid(`spec.images[${i}].name`, '', 'must be non empty'));
    else if (imageNames.has(name)) errs.push(invalid(`spec.images[${i}].name`, name, 'must be unique'));
    imageNames.add(name);
    if (!img?.image) errs.push(invalid(`spec.images[${i}].image`, '', 'must be non empty'));
  });
  (spec.constraints ?? []).forEach((c, i) => {
    const pv = c?.platformVersion;
    if (!pv) return;
    const base = `spec.constraints[${i}].platformVersion`;
    if (!pv.name) errs.push(required(`${base}.name`));
    if (!pv.range) errs.push(required(`${base}.range`));
    else if (!isValidSemverConstraint(pv.range)) errs.push(invalid(`${base}.range`, pv.range, 'improper constraint'));
  });
  const schema = spec.config?.openAPIV3Schema;
  (m.test?.template ?? []).forEach((tc, i) => {
    const name = tc?.name ?? '';
    const el = isConfigMapKey(name);
    if (el.length > 0) errs.push(invalid(`test.template[${i}].name`, name, el.join(', ')));
  });
  errs.push(...validateConfigSchema(schema));
  if (schema !== undefined && schema !== null) {
    (m.test?.template ?? []).forEach((tc, i) => {
      const cfg = tc?.context?.config ?? {};
      errs.push(...validateConfigValue(schema, cfg, `test.template[${i}].context.config`, { hideValues: true }));
    });
  }
  if (m.test?.kubeconform && !m.test.kubeconform.kubernetesVersion) errs.push(required('test.kubeconform.kubernetesVersion'));
  return errs;
}

export function validatePackageManifestLock(l: PackageManifestLock): FieldError[] {
  const errs: FieldError[] = [];
  const names = new Set<string>();
  (l.spec?.images ?? []).forEach((img, i) => {
    const name = img?.name ?? '';
    if (name === '') errs.push(invalid(`spec.images[${i}].name`, '', 'must be non empty'));
    else if (names.has(name)) errs.push(invalid(`spec.images[${i}].name`, name, 'must be unique'));
    names.add(name);
    if (!img?.image) errs.push(invalid(`spec.images[${i}].image`, '', 'must be non empty'));
    if (!img?.digest) errs.push(invalid(`spec.images[${i}].digest`, '', 'must be non empty'));
  });
  return errs;
}
