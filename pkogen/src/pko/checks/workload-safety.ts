/**
 * Safety rules for the workloads a package installs: Pod Security (the level of the namespace
 * each pod runs in, as kubernetes/pod-security-admission decides it) and digest-pinned images;
 * for packages that run in a hosted control plane namespace, also RBAC without wildcards or
 * escalation verbs.
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

/** Pod Security Standards levels (pod-security-admission api/constants.go). */
type Level = 'privileged' | 'baseline' | 'restricted';
const ENFORCE_LABEL = 'pod-security.kubernetes.io/enforce';
/** Capabilities baseline lets a container add (policy/check_capabilities_baseline.go). */
const BASELINE_CAPABILITIES = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);

/**
 * A package meant for a hosted control plane namespace: it has a hosted-cluster phase or a test
 * case with a HyperShift environment.
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

/**
 * The enforce level of each Namespace the package ships, as PSA reads the label: a value that is
 * no level counts as restricted (api/helpers.go ParseLevel).
 */
function shippedNamespaceLevels(ctx: CheckContext): Map<string, Level> {
  const out = new Map<string, Level>();
  for (const ref of ctx.objects) {
    if (gvkOf(ref.object).kind !== 'Namespace' || gvkOf(ref.object).group !== '') continue;
    const name = ref.object.metadata?.name;
    const labels = ref.object.metadata?.labels;
    const v = isObj(labels) ? labels[ENFORCE_LABEL] : undefined;
    if (typeof name !== 'string' || v === undefined) continue;
    out.set(name, v === 'privileged' || v === 'baseline' ? v : 'restricted');
  }
  return out;
}

/**
 * The level a workload is held to. In a hosted control plane package: restricted for objects of
 * phases without a class (they run next to the control plane), none for the hosted cluster's.
 * Otherwise (a classic package, a ClusterPackage on a cluster) the level of the pod's namespace:
 * the enforce label of the Namespace the package ships, or, without one, restricted, the level
 * OpenShift aims at by default (docs/validate.md cites where).
 */
function levelOf(ctx: CheckContext, ref: ObjectRef, hcp: boolean, shipped: Map<string, Level>): Level | undefined {
  if (hcp) return inHcpNamespace(ctx, ref) ? 'restricted' : undefined;
  const ns = ref.object.metadata?.namespace ?? ctx.packageNamespace;
  return (typeof ns === 'string' ? shipped.get(ns) : undefined) ?? 'restricted';
}

/**
 * OpenShift's in-cluster registry: its tags are image streams the cluster's release keeps current
 * (`openshift/cli:latest` is the running release's `oc`); no digest a package pins holds on every
 * cluster version.
 */
const CLUSTER_REGISTRY = 'image-registry.openshift-image-registry.svc:5000/';

/** Every string value of a test case's config: an image given there is the installer's to pin. */
function configStrings(v: unknown, out = new Set<string>()): Set<string> {
  if (typeof v === 'string') out.add(v);
  else if (Array.isArray(v)) for (const x of v) configStrings(x, out);
  else if (isObj(v)) for (const x of Object.values(v)) configStrings(x, out);
  return out;
}

/** The string defaults of a config schema (a render without a test case uses them). */
function schemaDefaults(schema: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(schema)) for (const x of schema) schemaDefaults(x, out);
  else if (isObj(schema)) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === 'default') configStrings(v, out);
      else schemaDefaults(v, out);
    }
  }
  return out;
}

export function checkPodSecurity(ctx: CheckContext): Finding[] {
  const out: Finding[] = [];
  const hcp = targetsHostedControlPlane(ctx);
  const shipped = hcp ? new Map<string, Level>() : shippedNamespaceLevels(ctx);
  const fromConfig = schemaDefaults(ctx.manifest.spec.config?.openAPIV3Schema, configStrings(ctx.config));
  for (const ref of ctx.objects) {
    const kind = gvkOf(ref.object).kind;
    const sp = POD_SPEC_PATH[kind];
    if (!sp) continue;
    const level = levelOf(ctx, ref, hcp, shipped);
    if (level === undefined) continue;
    const spec = get(ref.object, sp);
    if (!isObj(spec)) continue;
    const base = sp.join('.');
    const f = (rule: string, msg: string, path: string) => out.push(objectFinding(ctx, ref, 'warning', rule, msg, path));
    const baseline = level !== 'privileged';
    const restricted = level === 'restricted';
    const at = `Pod Security "${level}"`;
    if (baseline) {
      for (const h of ['hostNetwork', 'hostPID', 'hostIPC'] as const) {
        if (spec[h] === true) f('pod-security/host-namespaces', `${h} is not allowed by ${at}`, `${base}.${h}`);
      }
      (Array.isArray(spec.volumes) ? spec.volumes : []).forEach((v, i) => {
        if (isObj(v) && v.hostPath !== undefined) f('pod-security/host-path', `hostPath volumes are not allowed by ${at}`, `${base}.volumes[${i}].hostPath`);
      });
    }
    const podSc = isObj(spec.securityContext) ? spec.securityContext : {};
    for (const list of ['initContainers', 'containers', 'ephemeralContainers'] as const) {
      const cs = spec[list];
      if (!Array.isArray(cs)) continue;
      cs.forEach((c, i) => {
        if (!isObj(c)) return;
        const cp = `${base}.${list}[${i}]`;
        const name = typeof c.name === 'string' ? c.name : String(i);
        const sc = isObj(c.securityContext) ? c.securityContext : {};
        const scPath = isObj(c.securityContext) ? `${cp}.securityContext` : cp;
        const what = `container "${name}"`;
        const seccomp = (isObj(sc.seccompProfile) ? sc.seccompProfile.type : undefined) ?? (isObj(podSc.seccompProfile) ? podSc.seccompProfile.type : undefined);
        const caps = isObj(sc.capabilities) ? sc.capabilities : {};
        const add = Array.isArray(caps.add) ? caps.add.map(String) : [];
        if (baseline) {
          if (sc.privileged === true) f('pod-security/privileged', `${what} is privileged`, `${cp}.securityContext.privileged`);
          if (seccomp === 'Unconfined') f('pod-security/seccomp', `${what} sets seccompProfile.type Unconfined, not allowed by ${at}`, scPath);
          (Array.isArray(c.ports) ? c.ports : []).forEach((p, j) => {
            if (isObj(p) && typeof p.hostPort === 'number' && p.hostPort !== 0) f('pod-security/host-ports', `${what} uses hostPort ${p.hostPort}`, `${cp}.ports[${j}].hostPort`);
          });
          for (const a of add) {
            if (restricted ? a !== 'NET_BIND_SERVICE' : !BASELINE_CAPABILITIES.has(a)) f('pod-security/capabilities', `${what} adds capability ${a}; ${restricted ? 'only NET_BIND_SERVICE is' : 'only the default set is'} allowed by ${at}`, `${cp}.securityContext.capabilities.add`);
          }
        }
        if (restricted) {
          const runAsNonRoot = sc.runAsNonRoot ?? podSc.runAsNonRoot;
          if (sc.runAsUser === 0 || (sc.runAsUser === undefined && podSc.runAsUser === 0)) f('pod-security/run-as-user', `${what} must not run as UID 0`, `${cp}.securityContext.runAsUser`);
          if (hcp) {
            if (sc.allowPrivilegeEscalation !== false) f('pod-security/privilege-escalation', `${what} must set securityContext.allowPrivilegeEscalation: false`, scPath);
            if (runAsNonRoot !== true) f('pod-security/run-as-non-root', `${what} must run with runAsNonRoot: true (container or pod securityContext)`, scPath);
            if (seccomp !== 'RuntimeDefault' && seccomp !== 'Localhost' && seccomp !== 'Unconfined') f('pod-security/seccomp', `${what} must use seccompProfile.type RuntimeDefault or Localhost`, scPath);
            const drop = Array.isArray(caps.drop) ? caps.drop.map(String) : [];
            if (!drop.includes('ALL')) f('pod-security/capabilities', `${what} must drop ALL capabilities`, scPath);
          } else {
            // On a cluster, OpenShift's restricted-v2 SCC fills in what is left unset; only a value
            // set against the level is refused.
            if (sc.allowPrivilegeEscalation === true) f('pod-security/privilege-escalation', `${what} sets allowPrivilegeEscalation: true, not allowed by ${at}`, `${cp}.securityContext.allowPrivilegeEscalation`);
            if (runAsNonRoot === false) f('pod-security/run-as-non-root', `${what} sets runAsNonRoot: false, not allowed by ${at}`, scPath);
          }
        }
        // PKO's static image is what a spec.images entry renders to in tests; the real image is
        // pinned by manifest.lock.yaml (pkogen/lockfile rules), not here. An image the test case's
        // config gives is the Package's config, which its installer pins (lint-rollout), not the package.
        if (typeof c.image === 'string' && !/@sha256:[0-9a-f]{64}$/.test(c.image) && c.image !== '' && c.image !== STATIC_IMAGE && !fromConfig.has(c.image) && !c.image.startsWith(CLUSTER_REGISTRY)) {
          f('image/not-pinned', `${what} image ${c.image} is not pinned by digest (@sha256:…)`, `${cp}.image`);
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
