/**
 * Rules for what blocks a PKO revision in the field (warnings): a package's objects live on across
 * revisions, so a Job that cannot be updated, disappears by itself, or runs forever; an object
 * that existed before the package and cannot be adopted; a cleanup Job that deletes what the
 * package itself owns.
 */
import type { Finding } from '../../core/errors.js';
import { toText } from '../../core/filemap.js';
import { gvkOf } from '../object-validators.js';
import type { ObjectRef } from '../objects.js';
import { COLLISION_PROTECTION_ANNOTATION } from '../types.js';
import { CheckContext, isObj, objectFinding } from './context.js';

/** Namespaces the platform creates: objects in them (or the namespaces themselves) may already exist. */
const PLATFORM_NAMESPACE = /^(default|kube-[a-z0-9-]+|openshift(-[a-z0-9-]+)?)$/;

function isJob(ref: ObjectRef): boolean {
  const g = gvkOf(ref.object);
  return g.group === 'batch' && g.kind === 'Job';
}

/** The template or static file an object came from, to tell a templated name from a fixed one. */
function sourceText(ctx: CheckContext, ref: ObjectRef): { text: string; templated: boolean } | undefined {
  const files = ctx.files;
  if (!files) return undefined;
  const t = files.get(`${ref.path}.gotmpl`);
  if (t) return { text: toText(t), templated: true };
  const s = files.get(ref.path);
  return s ? { text: toText(s), templated: false } : undefined;
}

function jobFindings(ctx: CheckContext, ref: ObjectRef, out: Finding[]): void {
  const o = ref.object as Record<string, unknown>;
  const spec = isObj(o.spec) ? o.spec : {};
  const name = String(ref.object.metadata?.name ?? '');
  // A Job's pod template is immutable: a revision that changes it cannot update the Job in place.
  const src = sourceText(ctx, ref);
  const nameTemplated = src?.templated === true && /^\s*name:.*\{\{/m.test(src.text);
  if (!(ref.object.metadata as { generateName?: unknown } | undefined)?.generateName && !nameTemplated) {
    out.push(objectFinding(ctx, ref, 'warning', 'revision/job-fixed-name', `Job "${name}" has a fixed name: its pod template is immutable, so a later revision that changes it can neither update nor adopt the Job and the rollout stalls; put a revision-specific part in the name (e.g. from the image or config)`, 'metadata.name'));
  }
  if (spec.ttlSecondsAfterFinished !== undefined && spec.ttlSecondsAfterFinished !== null) {
    out.push(objectFinding(ctx, ref, 'warning', 'revision/job-ttl', `Job "${name}" sets ttlSecondsAfterFinished: the Job is deleted after it finishes and PKO recreates it (it runs again), or the ObjectSet never settles; drop it and let PKO own the Job's lifetime`, 'spec.ttlSecondsAfterFinished'));
  }
  if (spec.activeDeadlineSeconds === undefined || spec.activeDeadlineSeconds === null) {
    out.push(objectFinding(ctx, ref, 'warning', 'revision/job-no-deadline', `Job "${name}" has no activeDeadlineSeconds: a hung Job keeps its phase (and every later phase) from ever becoming available`, 'spec'));
  }
}

/** kubectl/oc flags that take a separate value (`-n NS`), so NS is not read as a name. */
const VALUE_FLAGS = new Set(['-n', '--namespace', '-l', '--selector', '-o', '--output', '-f', '--filename', '--timeout', '--grace-period', '--field-selector', '--context', '--kubeconfig', '--cascade']);

/** `deployment`, `deployments`, `deployment.apps`, `deployments.apps/v1`… name the kind Deployment. */
function resourceMatches(token: string, kind: string): boolean {
  const t = token.split('.')[0].toLowerCase();
  const k = kind.toLowerCase();
  const plural = k.endsWith('y') ? `${k.slice(0, -1)}ies` : k.endsWith('s') ? `${k}es` : `${k}s`;
  return t === k || t === plural;
}

/** The (resource, names) of every `kubectl|oc … delete RESOURCE NAME…` or `delete KIND/NAME` in a shell text. */
export function deleteTargets(cmd: string): { resource: string; name: string }[] {
  const out: { resource: string; name: string }[] = [];
  for (const segment of cmd.split(/\n|;|&&|\|\||\|/)) {
    const tokens = segment.trim().split(/\s+/).map((t) => t.replace(/^["']|["']$/g, ''));
    const cli = tokens.findIndex((t) => t === 'kubectl' || t === 'oc' || /\/(kubectl|oc)$/.test(t));
    const del = tokens.indexOf('delete', cli + 1);
    if (cli < 0 || del < 0) continue;
    let resource: string | undefined;
    for (let i = del + 1; i < tokens.length; i++) {
      const t = tokens[i];
      if (t === '' || t === '\\') continue;
      if (t.startsWith('-')) {
        if (VALUE_FLAGS.has(t)) i++;
        continue;
      }
      if (t.includes('/')) {
        const [r, n] = t.split('/', 2);
        for (const one of r.split(',')) out.push({ resource: one, name: n });
      } else if (resource === undefined) resource = t;
      else for (const one of resource.split(',')) out.push({ resource: one, name: t });
    }
  }
  return out;
}

/** Container command/args of a Job or CronJob, as one text. */
function commandText(o: Record<string, unknown>): string {
  const parts: string[] = [];
  const visit = (v: unknown, key: string): void => {
    if (Array.isArray(v)) {
      for (const x of v) visit(x, key);
    } else if (isObj(v)) {
      for (const [k, x] of Object.entries(v)) visit(x, k);
    } else if (typeof v === 'string' && (key === 'command' || key === 'args')) {
      parts.push(v);
    }
  };
  visit(o.spec, '');
  return parts.join(' ');
}

export function checkRevisionSafety(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  const owned = ctx.objects.map((r) => ({ kind: String(r.object.kind ?? ''), name: String(r.object.metadata?.name ?? '') }));
  for (const ref of ctx.objects) {
    const g = gvkOf(ref.object);
    if (isJob(ref)) jobFindings(ctx, ref, out);
    if (g.group === 'batch' && (g.kind === 'Job' || g.kind === 'CronJob')) {
      const targets = deleteTargets(commandText(ref.object as Record<string, unknown>));
      const hit = owned.find((x) => x.name !== '' && targets.some((t) => t.name === x.name && resourceMatches(t.resource, x.kind)));
      if (hit) {
        out.push(objectFinding(ctx, ref, 'warning', 'revision/cleanup-deletes-package-object', `${g.kind} "${String(ref.object.metadata?.name ?? '')}" deletes ${hit.kind} "${hit.name}", which this package owns: PKO recreates it and the two fight on every reconcile`, 'spec'));
      }
    }
    // The namespace is what an operator moving to PKO (from OLM or a SelectorSyncSet) finds already there.
    const meta = ref.object.metadata;
    const cp = isObj(meta?.annotations) ? (meta!.annotations as Record<string, unknown>)[COLLISION_PROTECTION_ANNOTATION] : undefined;
    if (g.group === '' && g.kind === 'Namespace' && typeof meta?.name === 'string' && PLATFORM_NAMESPACE.test(meta.name) && cp !== 'IfNoController' && cp !== 'None') {
      out.push(objectFinding(ctx, ref, 'warning', 'revision/adoption', `Namespace "${meta.name}" may exist before the package (created by the platform, OLM or an earlier SelectorSyncSet): with the default collision protection Prevent PKO refuses to adopt it and the phase fails; set ${COLLISION_PROTECTION_ANNOTATION}: IfNoController if adopting it is intended`, 'metadata.name'));
    }
  }
  return out;
}
