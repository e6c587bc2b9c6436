/**
 * Admission decisions for NodePoolOSConfig and NodePoolOSBuild (AdmissionReview v1), as pure
 * functions. The webhook repeats everything the CRDs say (a hosted cluster whose API server does
 * not run the CRDs' CEL rules still refuses bad input) and adds what a CRD cannot express: who may
 * write builds, and comparisons with the old object.
 */
import { isDns1123Subdomain, renderAjvErrors } from 'pkogen/schema/runtime';
import {
  API_VERSION, BUILD_KIND, BUILD_NAME_HASH_LENGTH, BUILD_PLURAL, CONFIG_KIND, CONFIG_PLURAL, DEFAULT_CONTAINERFILE_ARCH,
  FINAL_STAGE, FINAL_STAGE_RE, GROUP, LIMITS, PUSH_SPEC_RE, VERSION,
} from '../api/types.js';
import { containerfileIssues } from './containerfile.js';
import { TENANT_LAYER_DISABLED_MESSAGE } from '../policy/layers.js';
import { sizeIssues, WORK } from './bounds.js';
import { schemaValidator } from './schemas.js';

export { workCounters, resetWorkCounters, MAX_OBJECT_NODES } from './bounds.js';

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
  /**
   * The only user allowed to create or update NodePoolOSBuilds, and to write the status
   * subresource of either kind (the controller's ServiceAccount in the hosted cluster).
   */
  controllerUsername: string;
  /** Extra rules for a push target (renderedImagePushSpec); see RuleOptions. */
  pushTarget?: RuleOptions['pushTarget'];
  /** The provider turned the tenant layer off (`--tenant-layer=Disabled`): configs are refused (builder/policy/layers.ts). */
  tenantLayerDisabled?: boolean;
  /**
   * Why nodes could not pull from a push target at first boot (builder/registry/push-target.ts
   * `pushTargetCoveredByKeys` over the published pull keys), or undefined when they can or it is
   * not known. Asked only when a config's push target is new (CREATE) or changed (UPDATE), so a
   * later pull-secret change never blocks the controller's status writes or unrelated edits.
   */
  pushTargetPullable?: (spec: string) => string | undefined;
}

/** Options of the object rules shared by the webhook and the controller (configProblems). */
export interface RuleOptions {
  /**
   * Why a push target (renderedImagePushSpec) may not be used, or undefined when it may: the
   * webhook (server.ts) and the controller (wiring.ts configProblems) both pass
   * builder/registry/push-target.ts's pushTargetProblem with the provider's allow-list through
   * this one seam; without it only the syntax is checked.
   */
  pushTarget?: (spec: string) => string | undefined;
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
/** Kept per object (the controller's problem list, the log's field list come from these). */
const MAX_ISSUES_KEPT = 20;

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
    fields: [...new Set(issues.slice(0, MAX_ISSUES_KEPT).map((i) => i.path))],
  };
}

// ---- the CRDs' own rules ------------------------------------------------------------------------

/** ajv errors rendered at most (allErrors: the object is within its size bounds, so they are few). */
const MAX_SCHEMA_ERRORS = 100;

/**
 * The object as the CRD schema sees it. metadata is reduced to the name: the API server has
 * already validated ObjectMeta, and a field it adds in a later version must not be refused here.
 */
function schemaIssues(kind: ServedKind, obj: Record<string, unknown>): Issue[] {
  const meta = isObj(obj.metadata) ? obj.metadata : {};
  const view = { ...obj, metadata: typeof meta.name === 'string' ? { name: meta.name } : {} };
  const validate = schemaValidator(kind);
  WORK.schemaRuns++;
  if (validate(view)) return [];
  return renderAjvErrors((validate.errors ?? []).slice(0, MAX_SCHEMA_ERRORS), view).map(({ path, message }) => ({ path, message }));
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

function configIssues(obj: Record<string, unknown>, opts: RuleOptions = {}): Issue[] {
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
  const target = str(spec.renderedImagePushSpec);
  if (opts.pushTarget && target && PUSH_SPEC_RE.test(target)) {
    const why = opts.pushTarget(target);
    // pushTargetProblem names the field itself; the issue's path already does.
    if (why) out.push({ path: 'spec.renderedImagePushSpec', message: why.replace(/^spec\.renderedImagePushSpec: /, '') });
  }
  const files = spec.containerFile;
  // The size check ran first: at most LIMITS.containerFileItems items reach this loop.
  if (Array.isArray(files)) {
    const firstIndexByArch = new Map<string, number>();
    for (let i = 0; i < files.length && i < LIMITS.containerFileItems; i++) {
      const f = files[i];
      WORK.containerFileItems++;
      if (!isObj(f)) continue;
      // The API server defaults a missing arch to NoArch before the webhook runs; older clients may not.
      const arch = str(f.containerfileArch) ?? DEFAULT_CONTAINERFILE_ARCH;
      const first = firstIndexByArch.get(arch);
      if (first !== undefined) {
        out.push({ path: `spec.containerFile[${i}].containerfileArch`, message: `duplicate architecture ${JSON.stringify(arch)}: spec.containerFile[${first}] already has it; give one Containerfile per architecture` });
      } else firstIndexByArch.set(arch, i);
      const content = str(f.content);
      if (content === undefined || content === '' || content.length > LIMITS.containerFileContent) continue;
      if (!FINAL_STAGE_RE.test(content)) {
        out.push({ path: `spec.containerFile[${i}].content`, message: `must contain the line "${FINAL_STAGE}" (the stage the build ships, on top of the rendered configs)` });
        continue;
      }
      for (const p of containerfileIssues(content)) {
        out.push({ path: `spec.containerFile[${i}].content`, message: p.line ? `line ${p.line}: ${p.message}` : p.message });
      }
    }
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

/** The path and each of its ancestors (`a.b[0].c` → a, a.b, a.b[0], a.b[0].c): O(length). */
function selfAndAncestors(path: string): string[] {
  const out: string[] = [];
  for (let i = 1; i < path.length; i++) if (path[i] === '.' || path[i] === '[') out.push(path.slice(0, i));
  out.push(path);
  return out;
}

/**
 * Issues from our own checks first; a schema issue on a path already explained (or under one) is
 * dropped. Linear: one set of explained paths, each schema issue checked against its own
 * ancestors (the path's depth), not against every explained path.
 */
function merge(own: Issue[], schema: Issue[]): Issue[] {
  const explained = new Set(own.map((i) => i.path));
  return [...own, ...schema.filter((i) => !selfAndAncestors(i.path).some((p) => explained.has(p)))];
}

/**
 * The CREATE rules for a NodePoolOSConfig as `path: message` lines. The controller applies them
 * too, so an object admitted while the webhook was not registered yet is still refused.
 */
export function configProblems(obj: unknown, opts: RuleOptions = {}): string[] {
  if (!isObj(obj)) return [`must be a ${CONFIG_KIND} object`];
  return limitIssues(objectIssues(CONFIG_KIND, undefined, obj, opts)).map((i) => (i.path ? `${i.path}: ${i.message}` : i.message));
}

/** At most MAX_ISSUES_KEPT issues, the rest counted in a last one (a message, not a dump). */
function limitIssues(issues: Issue[]): Issue[] {
  if (issues.length <= MAX_ISSUES_KEPT) return issues;
  return [...issues.slice(0, MAX_ISSUES_KEPT), { path: '', message: `and ${issues.length - MAX_ISSUES_KEPT} more` }];
}

/**
 * Every rule for one object, bounded: the size check first; an object over its bounds is refused
 * with the size issues alone (no rule, no schema validation runs on it).
 */
function objectIssues(kind: ServedKind, req: AdmissionRequest | undefined, obj: Record<string, unknown>, opts: RuleOptions): Issue[] {
  const size = sizeIssues(kind, obj);
  if (size.length) return size;
  const own = kind === CONFIG_KIND ? configIssues(obj, opts) : buildIssues(req!, obj);
  if (req?.operation === 'UPDATE' && isObj(req.oldObject)) {
    // The old object is bounded too before it is compared (a stored object may predate the bounds).
    if (sizeIssues(kind, req.oldObject).length === 0) own.push(...transitionIssues(kind, obj, req.oldObject));
  }
  return merge(own, schemaIssues(kind, obj));
}

/** Subresources whose writes are the controller's only (docs/design/api-and-admission.md: status is the controller's). */
export const CONTROLLER_ONLY_SUBRESOURCES: readonly string[] = ['status'];

/** Decides one AdmissionReview (already checked by readAdmissionReview). */
export function decideAdmission(review: AdmissionReview & { request: AdmissionRequest }, opts: ValidateOptions): Decision {
  const req = review.request;
  const kind = req.kind.kind as ServedKind;
  // Deleting is not validated: removing a config stops its builds; removing a build lets it be redone.
  if (req.operation === 'DELETE' || req.operation === 'CONNECT') return respond(req.uid, [], 'Invalid');
  const sub = typeof req.subResource === 'string' ? req.subResource : '';
  const isController = req.userInfo?.username === opts.controllerUsername;
  if (kind === BUILD_KIND && !isController) {
    return respond(req.uid, [{ path: sub ? sub : '', message: `${BUILD_KIND} objects are written by the on-cluster-build controller only (${opts.controllerUsername}); create or edit a ${CONFIG_KIND} instead` }], 'Forbidden');
  }
  if (sub !== '' && !isController) {
    const which = CONTROLLER_ONLY_SUBRESOURCES.includes(sub) ? sub : `${sub} (unknown subresource)`;
    return respond(req.uid, [{ path: sub, message: `the ${which} of a ${kind} is written by the on-cluster-build controller only (${opts.controllerUsername}); edit the spec instead` }], 'Forbidden');
  }
  const obj = req.object;
  if (!isObj(obj)) return respond(req.uid, [{ path: '', message: `request.object: must be a ${kind} object` }], 'Invalid');
  // Tenant layer off: no new config, no spec change. Metadata-only updates (finalizers, labels) pass, so a config can still be cleaned up.
  if (opts.tenantLayerDisabled && kind === CONFIG_KIND && (req.operation === 'CREATE' || (req.operation === 'UPDATE' && (!isObj(req.oldObject) || JSON.stringify(req.oldObject.spec) !== JSON.stringify(obj.spec))))) {
    return respond(req.uid, [{ path: '', message: TENANT_LAYER_DISABLED_MESSAGE }], 'Forbidden');
  }
  const issues = objectIssues(kind, req, obj, { pushTarget: opts.pushTarget });
  if (opts.pushTargetPullable && kind === CONFIG_KIND && sub === '' && !issues.some((i) => i.path === 'spec.renderedImagePushSpec')) {
    const target = isObj(obj.spec) ? str(obj.spec.renderedImagePushSpec) : undefined;
    const before = req.operation === 'UPDATE' && isObj(req.oldObject) && isObj(req.oldObject.spec) ? str(req.oldObject.spec.renderedImagePushSpec) : undefined;
    if (target && PUSH_SPEC_RE.test(target) && target !== before) {
      const why = opts.pushTargetPullable(target);
      if (why) issues.push({ path: 'spec.renderedImagePushSpec', message: why });
    }
  }
  return respond(req.uid, issues, 'Invalid');
}

/**
 * The AdmissionReview v1 response for one request: uid echoed; a denial carries an HTTP-style
 * code (403 for who, 422 for what) and a message naming each field.
 */
export function validateAdmission(review: AdmissionReview & { request: AdmissionRequest }, opts: ValidateOptions): AdmissionReview {
  return decideAdmission(review, opts).review;
}
