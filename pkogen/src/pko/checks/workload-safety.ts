/**
 * Safety rules for packages that run in a hosted control plane namespace: Pod Security
 * "restricted" and digest-pinned images for workloads of phases without a class (they run next
 * to the control plane), RBAC without wildcards or escalation verbs in every phase.
 */
import type { Finding } from '../../core/errors.js';
import { gvkOf } from '../object-validators.js';
import type { ObjectRef } from '../objects.js';
import { STATIC_IMAGE } from '../types.js';
import { CheckContext, isObj, objectFinding, phaseClass, phaseOf } from './context.js';

/** Where the pod spec lives per workload kind. */
const POD_SPEC_PATH: Record<string, string[]> = {
  Pod: ['spec'],
  Deployment: ['spec', 'template', 'spec'],
  StatefulSet: ['spec', 'template', 'spec'],
  DaemonSet: ['spec', 'template', 'spec'],
  ReplicaSet: ['spec', 'template', 'spec'],
  Job: ['spec', 'template', 'spec'],
  CronJob: ['spec', 'jobTemplate', 'spec', 'template', 'spec'],
};

const ESCALATION_VERBS = ['escalate', 'bind', 'impersonate'];

/**
 * A package meant for a hosted control plane namespace: it has a hosted-cluster phase or a test
 * case with a HyperShift environment. Only those get the workload rules.
 */
export function targetsHostedControlPlane(ctx: CheckContext): boolean {
  if ((ctx.manifest.spec.phases ?? []).some((p) => p.class === 'hosted-cluster')) return true;
  return (ctx.manifest.test?.template ?? []).some((t) => !!t?.context?.environment?.hyperShift?.hostedCluster);
}

/** Objects of phases without a class land in the package's own (HCP) namespace. */
export function inHcpNamespace(ctx: CheckContext, ref: ObjectRef): boolean {
  return !phaseClass(ctx.manifest, phaseOf(ref));
}

function get(o: unknown, path: string[]): unknown {
  let v = o;
  for (const p of path) {
    if (!isObj(v)) return undefined;
    v = v[p];
  }
  return v;
}

export function checkPodSecurity(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  if (!targetsHostedControlPlane(ctx)) return out;
  for (const ref of ctx.objects) {
    if (!inHcpNamespace(ctx, ref)) continue;
    const kind = gvkOf(ref.object).kind;
    const sp = POD_SPEC_PATH[kind];
    if (!sp) continue;
    const spec = get(ref.object, sp);
    if (!isObj(spec)) continue;
    const base = sp.join('.');
    const f = (sev: 'warning', rule: string, msg: string, path: string) => out.push(objectFinding(ctx, ref, sev, rule, msg, path));
    for (const h of ['hostNetwork', 'hostPID', 'hostIPC'] as const) {
      if (spec[h] === true) f('warning', 'pod-security/host-namespaces', `${h} is not allowed by Pod Security "restricted"`, `${base}.${h}`);
    }
    const podSc = isObj(spec.securityContext) ? spec.securityContext : {};
    (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, i) => {
      if (isObj(v) && v.hostPath !== undefined) f('warning', 'pod-security/host-path', 'hostPath volumes are not allowed by Pod Security "restricted"', `${base}.volumes[${i}].hostPath`);
    });
    for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
      const cs = spec[list];
      if (!Array.isArray(cs)) continue;
      cs.forEach((c, i) => {
        if (!isObj(c)) return;
        const cp = `${base}.${list}[${i}]`;
        const name = typeof c.name === 'string' ? c.name : String(i);
        const sc = isObj(c.securityContext) ? c.securityContext : {};
        const what = `container "${name}"`;
        if (sc.privileged === true) f('warning', 'pod-security/privileged', `${what} is privileged`, `${cp}.securityContext.privileged`);
        if (sc.allowPrivilegeEscalation !== false) f('warning', 'pod-security/privilege-escalation', `${what} must set securityContext.allowPrivilegeEscalation: false`, isObj(c.securityContext) ? `${cp}.securityContext` : cp);
        const runAsNonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
        if (runAsNonRoot !== true) f('warning', 'pod-security/run-as-non-root', `${what} must run with runAsNonRoot: true (container or pod securityContext)`, isObj(c.securityContext) ? `${cp}.securityContext` : cp);
        if (sc.runAsUser === 0 || (sc.runAsUser === undefined && podSc.runAsUser === 0)) f('warning', 'pod-security/run-as-user', `${what} must not run as UID 0`, `${cp}.securityContext.runAsUser`);
        const seccomp = (isObj(sc.seccompProfile) ? sc.seccompProfile.type : undefined) ?? (isObj(podSc.seccompProfile) ? podSc.seccompProfile.type : undefined);
        if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost') f('warning', 'pod-security/seccomp', `${what} must use seccompProfile.type RuntimeDefault or Localhost`, isObj(c.securityContext) ? `${cp}.securityContext` : cp);
        const caps = isObj(sc.capabilities) ? sc.capabilities : {};
        const drop = Array.isArray(caps.drop) ? caps.drop.map(String) : [];
        if (!drop.includes('ALL')) f('warning', 'pod-security/capabilities', `${what} must drop ALL capabilities`, isObj(c.securityContext) ? `${cp}.securityContext` : cp);
        const add = Array.isArray(caps.add) ? caps.add.map(String) : [];
        for (const a of add) if (a !== 'NET_BIND_SERVICE') f('warning', 'pod-security/capabilities', `${what} adds capability ${a}; only NET_BIND_SERVICE is allowed`, `${cp}.securityContext.capabilities.add`);
        (Array.isArray(c.ports) ? c.ports : []).forEach((p, j) => {
          if (isObj(p) && typeof p.hostPort === 'number' && p.hostPort !== 0) f('warning', 'pod-security/host-ports', `${what} uses hostPort ${p.hostPort}`, `${cp}.ports[${j}].hostPort`);
        });
        // PKO's static image is what a spec.images entry renders to in tests; the real image is
        // pinned by manifest.lock.yaml (pkogen/lockfile rules), not here.
        if (typeof c.image === 'string' && !/@sha256:[0-9a-f]{64}$/.test(c.image) && c.image !== '' && c.image !== STATIC_IMAGE) {
          f('warning', 'image/not-pinned', `${what} image ${c.image} is not pinned by digest (@sha256:…)`, `${cp}.image`);
        }
      });
    }
  }
  return out;
}

export function checkRbac(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  if (!targetsHostedControlPlane(ctx)) return out;
  for (const ref of ctx.objects) {
    const g = gvkOf(ref.object);
    if (g.group !== 'rbac.authorization.k8s.io' || (g.kind !== 'Role' && g.kind !== 'ClusterRole')) continue;
    const rules = (ref.object as Record<string, unknown>).rules;
    if (!Array.isArray(rules)) continue;
    rules.forEach((r, i) => {
      if (!isObj(r)) return;
      for (const field of ['verbs', 'resources', 'apiGroups', 'nonResourceURLs'] as const) {
        const vals = Array.isArray(r[field]) ? (r[field] as unknown[]).map(String) : [];
        if (vals.includes('*')) out.push(objectFinding(ctx, ref, 'warning', 'rbac/wildcard', `${g.kind} rule ${i} grants "*" in ${field}; list what is needed`, `rules[${i}].${field}`));
      }
      const verbs = Array.isArray(r.verbs) ? r.verbs.map(String) : [];
      for (const v of ESCALATION_VERBS) {
        if (verbs.includes(v)) out.push(objectFinding(ctx, ref, 'warning', 'rbac/escalation-verb', `${g.kind} rule ${i} grants the escalation verb "${v}"`, `rules[${i}].verbs`));
      }
    });
  }
  return out;
}
