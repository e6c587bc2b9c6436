/**
 * Admission decisions for NodePoolOSConfig and NodePoolOSBuild (AdmissionReview v1), as pure
 * functions. The webhook repeats everything the CRDs say (a hosted cluster whose API server does
 * not run the CRDs' CEL rules still refuses bad input) and adds what a CRD cannot express: who may
 * write builds, and comparisons with the old object.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import { crdFromObject, crdVersionToJsonSchema } from 'pkogen/schema';
import { addCelKeyword, addListMapKeyword } from 'pkogen/schema';
import { renderAjvErrors } from 'pkogen/schema';
import { addKubernetesFormats, isDns1123Subdomain } from 'pkogen/schema';
import { objectMetaSchema } from 'pkogen/schema';
import { nodePoolOSBuildCRD, nodePoolOSConfigCRD } from '../api/crds.js';
import {
  API_VERSION, BUILD_KIND, BUILD_NAME_HASH_LENGTH, BUILD_PLURAL, CONFIG_KIND, CONFIG_PLURAL, DEFAULT_CONTAINERFILE_ARCH,
  FINAL_STAGE, FINAL_STAGE_RE, GROUP, LIMITS, PUSH_SPEC_RE, VERSION,
} from '../api/types.js';

export const ADMISSION_API_VERSION = 'admission.k8s.io/v1';

export interface GroupVersionKind {
  group: string;
  version: string;
  kind: string;
}

export interface AdmissionRequest {
  uid: string;
  kind: GroupVersionKind;
  resource?: { group: string; version: string; resource: string };
  subResource?: string;
  name?: string;
  operation: 'CREATE' | 'UPDATE' | 'DELETE' | 'CONNECT';
  userInfo?: { username?: string; uid?: string; groups?: string[] };
  object?: unknown;
  oldObject?: unknown;
  dryRun?: boolean;
}

export interface AdmissionResponse {
  uid: string;
  allowed: boolean;
  status?: { code: number; reason?: string; message: string };
  warnings?: string[];
}

export interface AdmissionReview {
  apiVersion: typeof ADMISSION_API_VERSION;
  kind: 'AdmissionReview';
  request?: AdmissionRequest;
  response?: AdmissionResponse;
}

export interface ValidateOptions {
  /** The only user allowed to create or update NodePoolOSBuilds (the controller's ServiceAccount). */
  controllerUsername: string;
}

/** The kinds this webhook serves, by plural (the last segment of its URL path). */
export type ServedKind = typeof CONFIG_KIND | typeof BUILD_KIND;
export const KIND_BY_PLURAL: Record<string, ServedKind> = { [CONFIG_PLURAL]: CONFIG_KIND, [BUILD_PLURAL]: BUILD_KIND };

/** A request body the webhook cannot answer with an AdmissionReview (HTTP 400). */
export class BadReviewError extends Error {}

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Checks that a parsed body is an AdmissionReview v1 request for `expected` and returns it;
 * throws BadReviewError naming what is wrong otherwise.
 */
export function readAdmissionReview(body: unknown, expected: ServedKind): AdmissionReview & { request: AdmissionRequest } {
  if (!isObj(body)) throw new BadReviewError('body must be a JSON object (an AdmissionReview)');
  if (body.apiVersion !== ADMISSION_API_VERSION || body.kind !== 'AdmissionReview') {
    throw new BadReviewError(`body must be an ${ADMISSION_API_VERSION} AdmissionReview; got apiVersion ${JSON.stringify(body.apiVersion)}, kind ${JSON.stringify(body.kind)}`);
  }
  const req = body.request;
  if (!isObj(req)) throw new BadReviewError('request: missing; an AdmissionReview sent to a webhook carries a request');
  if (typeof req.uid !== 'string' || req.uid === '') throw new BadReviewError('request.uid: missing');
  const k = req.kind;
  if (!isObj(k) || k.group !== GROUP || k.version !== VERSION || k.kind !== expected) {
    const got = isObj(k) ? `${String(k.group)}/${String(k.version)}, Kind=${String(k.kind)}` : JSON.stringify(k);
    throw new BadReviewError(`request.kind: this endpoint validates ${API_VERSION}, Kind=${expected}; got ${got}`);
  }
  if (!['CREATE', 'UPDATE', 'DELETE', 'CONNECT'].includes(req.operation as string)) {
    throw new BadReviewError(`request.operation: must be CREATE, UPDATE, DELETE or CONNECT; got ${JSON.stringify(req.operation)}`);
  }
  return body as unknown as AdmissionReview & { request: AdmissionRequest };
}

interface Issue {
  path: string;
  message: string;
}

/** Shown in one status message; the rest are counted (a message the user reads, not a dump). */
const MAX_ISSUES_SHOWN = 10;

/** An admission decision with the issues behind it (the server logs their paths, never values). */
export interface Decision {
  review: AdmissionReview;
  allowed: boolean;
  /** Status reason of a denial: Forbidden (who) or Invalid (what). */
  reason?: 'Forbidden' | 'Invalid';
  /** Field paths of the issues ('' for the object as a whole). */
  fields: string[];
}

function respond(uid: string, issues: Issue[], reason: 'Forbidden' | 'Invalid'): Decision {
  if (issues.length === 0) return { review: { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid, allowed: true } }, allowed: true, fields: [] };
  const lines = issues.slice(0, MAX_ISSUES_SHOWN).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
  if (issues.length > MAX_ISSUES_SHOWN) lines.push(`and ${issues.length - MAX_ISSUES_SHOWN} more`);
  // Kubernetes turns a denial's code below 400 into 400; give the right one: 403 for who, 422 for what.
  const code = reason === 'Forbidden' ? 403 : 422;
  return {
    review: { apiVersion: ADMISSION_API_VERSION, kind: 'AdmissionReview', response: { uid, allowed: false, status: { code, reason, message: lines.join('; ') } } },
    allowed: false,
    reason,
    fields: [...new Set(issues.map((i) => i.path))],
  };
}

// ---- the CRDs' own rules ------------------------------------------------------------------------

let schemaValidators: Map<ServedKind, ValidateFunction> | undefined;

/** One ajv per process, compiled from the CRD objects this repository ships (one source of truth). */
function schemaValidator(kind: ServedKind): ValidateFunction {
  if (!schemaValidators) {
    const ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, logger: false, verbose: true });
    addKubernetesFormats(ajv);
    addListMapKeyword(ajv);
    addCelKeyword(ajv);
    ajv.addSchema(objectMetaSchema('any'));
    schemaValidators = new Map();
    for (const obj of [nodePoolOSConfigCRD(), nodePoolOSBuildCRD()]) {
      const crd = crdFromObject(obj, 'builder/api/crds.ts')!;
      const v = crd.versions.find((x) => x.name === VERSION)!;
      const { schema } = crdVersionToJsonSchema(crd, VERSION, v.schema, `webhook:${crd.kind}`, 'any');
      schemaValidators.set(crd.kind as ServedKind, ajv.compile(schema));
    }
  }
  return schemaValidators.get(kind)!;
}

/**
 * The object as the CRD schema sees it. metadata is reduced to the name: the API server has
 * already validated ObjectMeta, and a field it adds in a later version must not be refused here.
 */
function schemaIssues(kind: ServedKind, obj: Record<string, unknown>): Issue[] {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const view = { ...obj, metadata: typeof meta.name === 'string' ? { name: meta.name } : {} };
  const validate = schemaValidator(kind);
  if (validate(view)) return [];
  return renderAjvErrors(validate.errors ?? [], view).map(({ path, message }) => ({ path, message }));
}

// ---- rules a CRD cannot express (or cannot explain well) -----------------------------------------

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function secretNameIssues(spec: Record<string, unknown>, field: string, out: Issue[]): void {
  const ref = spec[field];
  if (!isObj(ref)) return;
  const name = str(ref.name);
  if (name !== undefined && name !== '' && !(name.length <= LIMITS.name && isDns1123Subdomain(name))) {
    out.push({
      path: `spec.${field}.name`,
      message: `must be a Secret name: a DNS-1123 subdomain (lowercase letters, digits, "-" and ".", starting and ending with a letter or digit, at most ${LIMITS.name} characters); got ${JSON.stringify(clip(name))}`,
    });
  }
}

function clip(s: string): string {
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function pushSpecIssue(path: string, v: unknown, out: Issue[]): void {
  const spec = str(v);
  if (spec === undefined || spec === '' || spec.length > LIMITS.imageSpec) return; // the schema reports these
  if (PUSH_SPEC_RE.test(spec)) return;
  const why = spec.includes('@')
    ? 'must name a tag, not a digest (the tag is replaced by the build name)'
    : !/:[^/]*$/.test(spec)
      ? 'must end with :tag (the tag is replaced by the build name)'
      : 'must be host[:port][/namespace]/name:tag, the host with a dot (e.g. quay.example.com/org/os-images:latest)';
  out.push({ path, message: `${why}; got ${JSON.stringify(clip(spec))}` });
}

function configIssues(obj: Record<string, unknown>): Issue[] {
  const out: Issue[] = [];
  const spec = obj.spec;
  if (!isObj(spec)) return out;
  // The CRD's name rule cannot run without a name; the webhook says what the name must be.
  const name = isObj(obj.metadata) ? str(obj.metadata.name) : undefined;
  if (!name && isObj(spec.nodePool) && typeof spec.nodePool.name === 'string') {
    out.push({ path: 'metadata.name', message: `must be set to spec.nodePool.name (${JSON.stringify(clip(spec.nodePool.name))}): one ${CONFIG_KIND} per NodePool` });
  }
  secretNameIssues(spec, 'baseImagePullSecret', out);
  secretNameIssues(spec, 'renderedImagePushSecret', out);
  pushSpecIssue('spec.renderedImagePushSpec', spec.renderedImagePushSpec, out);
  const files = spec.containerFile;
  if (Array.isArray(files)) {
    const firstIndexByArch = new Map<string, number>();
    files.forEach((f, i) => {
      if (!isObj(f)) return;
      // The API server defaults a missing arch to NoArch before the webhook runs; older clients may not.
      const arch = str(f.containerfileArch) ?? DEFAULT_CONTAINERFILE_ARCH;
      const first = firstIndexByArch.get(arch);
      if (first !== undefined) {
        out.push({ path: `spec.containerFile[${i}].containerfileArch`, message: `duplicate architecture ${JSON.stringify(arch)}: spec.containerFile[${first}] already has it; give one Containerfile per architecture` });
      } else firstIndexByArch.set(arch, i);
      const content = str(f.content);
      if (content !== undefined && content !== '' && content.length <= LIMITS.containerFileContent && !FINAL_STAGE_RE.test(content)) {
        out.push({ path: `spec.containerFile[${i}].content`, message: `must contain the line "${FINAL_STAGE}" (the stage the build ships, on top of the rendered configs)` });
      }
    });
  }
  return out;
}

function buildIssues(req: AdmissionRequest, obj: Record<string, unknown>): Issue[] {
  const out: Issue[] = [];
  const spec = obj.spec;
  if (!isObj(spec)) return out;
  pushSpecIssue('spec.renderedImagePushSpec', spec.renderedImagePushSpec, out);
  if (req.operation === 'CREATE') {
    const config = isObj(spec.nodePoolOSConfig) ? str(spec.nodePoolOSConfig.name) : undefined;
    const name = isObj(obj.metadata) ? str(obj.metadata.name) : undefined;
    const hash = `[0-9a-f]{${BUILD_NAME_HASH_LENGTH}}`;
    if (config && !(name !== undefined && name.length === config.length + 1 + BUILD_NAME_HASH_LENGTH && name.startsWith(`${config}-`) && new RegExp(`^${hash}$`).test(name.slice(config.length + 1)))) {
      out.push({ path: 'metadata.name', message: `must be "${config}-" followed by ${BUILD_NAME_HASH_LENGTH} lowercase hex digits (the inputs hash); got ${JSON.stringify(clip(name ?? ''))}` });
    }
  }
  return out;
}

/** Paths whose values differ between two JSON values (first few), for "what changed" messages. */
function changedPaths(a: unknown, b: unknown, path: string, out: string[], limit = 5): void {
  if (out.length >= limit) return;
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) changedPaths(a[k], b[k], `${path}.${k}`, out, limit);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length) {
    a.forEach((x, i) => changedPaths(x, b[i], `${path}[${i}]`, out, limit));
    return;
  }
  if (JSON.stringify(a) !== JSON.stringify(b)) out.push(path);
}

const TERMINAL = ['Succeeded', 'Failed', 'Interrupted'];

function transitionIssues(kind: ServedKind, obj: Record<string, unknown>, old: Record<string, unknown>): Issue[] {
  const out: Issue[] = [];
  const status = isObj(obj.status) ? obj.status : {};
  const oldStatus = isObj(old.status) ? old.status : {};
  if (kind === BUILD_KIND) {
    const changed: string[] = [];
    changedPaths(old.spec, obj.spec, 'spec', changed);
    if (changed.length) out.push({ path: 'spec', message: `is immutable; changed: ${changed.join(', ')}` });
    for (const f of ['buildStart', 'buildEnd']) {
      if (oldStatus[f] !== undefined && oldStatus[f] !== null && status[f] !== oldStatus[f]) out.push({ path: `status.${f}`, message: 'is immutable once set' });
    }
    const oldConds = Array.isArray(oldStatus.conditions) ? oldStatus.conditions : [];
    const done = oldConds.find((c) => isObj(c) && TERMINAL.includes(String(c.type)) && c.status === 'True');
    if (done && JSON.stringify(oldConds) !== JSON.stringify(status.conditions ?? [])) {
      out.push({ path: 'status.conditions', message: `are immutable once the build is ${String((done as Record<string, unknown>).type)}` });
    }
  } else {
    const before = oldStatus.observedGeneration;
    const after = status.observedGeneration;
    if (typeof before === 'number' && typeof after === 'number' && after < before) {
      out.push({ path: 'status.observedGeneration', message: `must not move backwards (${before} → ${after})` });
    }
  }
  return out;
}

/** Issues from our own checks first; schema issues on a path already explained are dropped. */
function merge(own: Issue[], schema: Issue[]): Issue[] {
  const explained = new Set(own.map((i) => i.path));
  return [...own, ...schema.filter((i) => !explained.has(i.path) && ![...explained].some((p) => i.path.startsWith(`${p}.`) || i.path.startsWith(`${p}[`)))];
}

/**
 * The CREATE rules for a NodePoolOSConfig as `path: message` lines. The controller applies them
 * too, so an object admitted while the webhook was not registered yet is still refused.
 */
export function configProblems(obj: unknown): string[] {
  if (!isObj(obj)) return [`must be a ${CONFIG_KIND} object`];
  return merge(configIssues(obj), schemaIssues(CONFIG_KIND, obj)).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
}

/** Decides one AdmissionReview (already checked by readAdmissionReview). */
export function decideAdmission(review: AdmissionReview & { request: AdmissionRequest }, opts: ValidateOptions): Decision {
  const req = review.request;
  const kind = req.kind.kind as ServedKind;
  // Deleting is not validated: removing a config stops its builds; removing a build lets it be redone.
  if (req.operation === 'DELETE' || req.operation === 'CONNECT') return respond(req.uid, [], 'Invalid');
  if (kind === BUILD_KIND && req.userInfo?.username !== opts.controllerUsername) {
    return respond(req.uid, [{ path: '', message: `${BUILD_KIND} objects are written by the on-cluster-build controller only (${opts.controllerUsername}); create or edit a ${CONFIG_KIND} instead` }], 'Forbidden');
  }
  const obj = req.object;
  if (!isObj(obj)) return respond(req.uid, [{ path: '', message: `request.object: must be a ${kind} object` }], 'Invalid');
  const own = kind === CONFIG_KIND ? configIssues(obj) : buildIssues(req, obj);
  if (req.operation === 'UPDATE' && isObj(req.oldObject)) own.push(...transitionIssues(kind, obj, req.oldObject));
  return respond(req.uid, merge(own, schemaIssues(kind, obj)), 'Invalid');
}

/**
 * The AdmissionReview v1 response for one request: uid echoed; a denial carries an HTTP-style
 * code (403 for who, 422 for what) and a message naming each field.
 */
export function validateAdmission(review: AdmissionReview & { request: AdmissionRequest }, opts: ValidateOptions): AdmissionReview {
  return decideAdmission(review, opts).review;
}
