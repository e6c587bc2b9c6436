/**
 * The fleet component's mutating admission webhook: NodePool UPDATE at
 * `/mutate-nodepool`, answered with `admitNodePoolUpdate`'s JSONPatch so the hold lands in the
 * same write as the release change (builder/fleet/gate.ts). Served by builder/webhook/server.ts's
 * bounded HTTPS server (one home: body cap, in-flight budget, timeouts, certificate reload).
 *
 * Fail closed on what it cannot read: a malformed review is a 400 (the API server then applies
 * the configuration's failurePolicy, Fail as recommended), never an "allowed" guess. A
 * well-formed review of anything but a NodePool UPDATE is admitted unchanged (the
 * MutatingWebhookConfiguration never sends one; a mis-scoped configuration must not break it).
 * The webhook reads nothing and needs no RBAC; it logs names and the decision, never contents.
 * The hold it places is an RFC3339 time no later than now + maxHoldSeconds (its own clock, the
 * same bound as the gate's): it expires by itself if the fleet never comes back.
 */
import { ADMISSION_API_VERSION, BadReviewError } from '../webhook/validate.js';
import { startAdmissionServer, type WebhookServer, type WebhookServerOptions } from '../webhook/server.js';
import { admitNodePoolUpdate, NODEPOOLS } from './gate.js';

export const MUTATE_NODEPOOL_PATH = '/mutate-nodepool';

const isObj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const clip = (v: unknown, n: number): string => (typeof v === 'string' ? (v.length > n ? `${v.slice(0, n)}...` : v) : '');

/** The admission decision for one parsed body; throws BadReviewError for a malformed review. */
export function mutateNodePool(body: unknown, now: Date, maxHoldSeconds: number): { review: object; log: object } {
  if (!isObj(body)) throw new BadReviewError('body must be a JSON object (an AdmissionReview)');
  if (body.apiVersion !== ADMISSION_API_VERSION || body.kind !== 'AdmissionReview') {
    throw new BadReviewError(`body must be an ${ADMISSION_API_VERSION} AdmissionReview; got apiVersion ${JSON.stringify(clip(body.apiVersion, 64))}, kind ${JSON.stringify(clip(body.kind, 64))}`);
  }
  const req = body.request;
  if (!isObj(req)) throw new BadReviewError('request: missing; an AdmissionReview sent to a webhook carries a request');
  if (typeof req.uid !== 'string' || req.uid === '' || req.uid.length > 128) throw new BadReviewError('request.uid: missing or longer than 128 characters');
  const k = req.kind;
  if (!isObj(k) || k.group !== NODEPOOLS.group || k.version !== NODEPOOLS.version || k.kind !== NODEPOOLS.kind) {
    throw new BadReviewError(`request.kind: this endpoint mutates ${NODEPOOLS.group}/${NODEPOOLS.version}, Kind=${NODEPOOLS.kind}`);
  }
  const log = { msg: 'admission', uid: clip(req.uid, 128), kind: NODEPOOLS.kind, namespace: clip(req.namespace, 63), name: clip(req.name, 253), operation: clip(req.operation, 16) };
  const allow = (patch?: object[]) => ({
    review: {
      apiVersion: ADMISSION_API_VERSION,
      kind: 'AdmissionReview',
      response: { uid: req.uid, allowed: true, ...(patch?.length ? { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(patch)).toString('base64') } : {}) },
    },
    log: { ...log, allowed: true, held: !!patch?.length },
  });
  if (req.operation !== 'UPDATE') return allow();
  const obj = req.object;
  const old = req.oldObject;
  if (!isObj(obj) || !isObj(old) || !isObj(obj.metadata) || !isObj(old.metadata)) throw new BadReviewError('request.object and request.oldObject: an UPDATE carries both NodePools');
  for (const [where, o] of [['object', obj], ['oldObject', old]] as const) {
    if (o.spec !== undefined && !isObj(o.spec)) throw new BadReviewError(`request.${where}.spec: not an object`);
    const meta = o.metadata as Record<string, unknown>;
    for (const f of ['labels', 'annotations']) if (meta[f] !== undefined && meta[f] !== null && !isObj(meta[f])) throw new BadReviewError(`request.${where}.metadata.${f}: not an object`);
  }
  return allow(admitNodePoolUpdate(old as never, obj as never, now, maxHoldSeconds));
}

export interface FleetWebhookOptions extends Omit<WebhookServerOptions, 'controllerUsername' | 'pushTarget' | 'tenantLayerDisabled'> {
  now?: () => Date;
  /** The gate's bound (`--max-hold-seconds`): a hold placed here ends by itself at now + this. */
  maxHoldSeconds: number;
}

/** Serves `/mutate-nodepool` (and /healthz, /readyz) until closed. */
export function startFleetWebhook(o: FleetWebhookOptions): Promise<WebhookServer> {
  const now = o.now ?? (() => new Date());
  return startAdmissionServer({ ...o, handlers: { [MUTATE_NODEPOOL_PATH]: (parsed) => mutateNodePool(parsed, now(), o.maxHoldSeconds) } });
}
