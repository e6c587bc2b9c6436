/**
 * A hosted-cluster phase that installs webhooks calls back to a backend (usually in the HCP
 * namespace). If no earlier phase has a workload gated by an availability probe, the webhooks
 * go live before their backend answers and fail closed in the hosted cluster.
 */
import type { Finding } from '../../core/errors.js';
import { gvkOf, objectLabels } from '../object-validators.js';
import type { ObjectRef } from '../objects.js';
import type { ObjectSetProbe } from '../types.js';
import { CheckContext, objectFinding, phaseClass, phaseOf } from './context.js';

const WEBHOOK_KINDS = new Set(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']);
const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet', 'Service', 'Pod', 'ReplicaSet']);

function probeSelects(p: ObjectSetProbe, ref: ObjectRef): boolean {
  if (!p.probes || p.probes.length === 0) return false;
  const g = gvkOf(ref.object);
  const k = p.selector?.kind;
  if (k && (k.kind !== g.kind || (k.group ?? '') !== g.group)) return false;
  const labels = objectLabels(ref.object);
  const ml = p.selector?.selector?.matchLabels ?? {};
  for (const [key, v] of Object.entries(ml)) if (labels[key] !== v) return false;
  for (const e of p.selector?.selector?.matchExpressions ?? []) {
    const has = e.key in labels;
    const val = labels[e.key];
    if (e.operator === 'In' && !(has && (e.values ?? []).includes(val))) return false;
    if (e.operator === 'NotIn' && has && (e.values ?? []).includes(val)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

export function checkWebhookGating(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  const phases = (ctx.manifest.spec.phases ?? []).map((p) => p.name);
  const probes = ctx.manifest.spec.availabilityProbes ?? [];
  for (const ref of ctx.objects) {
    const g = gvkOf(ref.object);
    if (!WEBHOOK_KINDS.has(g.kind)) continue;
    const phase = phaseOf(ref);
    if (phaseClass(ctx.manifest, phase) !== 'hosted-cluster') continue;
    const idx = phases.indexOf(phase);
    const earlier = new Set(phases.slice(0, Math.max(0, idx)));
    const gated = ctx.objects.some((o) => earlier.has(phaseOf(o)) && WORKLOAD_KINDS.has(gvkOf(o.object).kind) && probes.some((p) => probeSelects(p, o)));
    if (!gated) {
      out.push(objectFinding(ctx, ref, 'warning', 'hosted-cluster/webhook-ungated',
        `${g.kind} in hosted-cluster phase "${phase}" points at a backend, but no earlier phase has a workload gated by an availability probe; the webhook may go live before its backend answers`, 'webhooks'));
    }
  }
  return out;
}
