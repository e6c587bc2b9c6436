/**
 * Runs a Job's pod the way OpenShift and a kubelet with CRI-O would, on this machine, so a test can
 * show that the build pod builds (and that it stops building when one privilege goes):
 *
 * 1. admission: the SCC's strategies (apiserver-library-go `pkg/securitycontextconstraints`:
 *    user, fsGroup, supplemental groups, capabilities Generate/Validate, privilege escalation,
 *    read-only root, seccomp, volume types) turn the pod's security context into the one it runs
 *    with, or refuse the pod as SCC admission would;
 * 2. runtime: capabilities as CRI-O sets them (`SpecSetupCapabilities`: the default list plus
 *    `add` minus `drop`, `ALL` on either side; no ambient, no inheritable), no_new_privs from
 *    allowPrivilegeEscalation, the process's uid, gid and groups;
 * 3. kubelet + runc: a private mount and PID namespace; the container's root is an overlay of
 *    this machine's root (the "image"; the test says which files its image adds, e.g. the build
 *    user and newuidmap's file capabilities), mounted read-only when readOnlyRootFilesystem;
 *    /proc, /sys, a tmpfs /dev with the usual devices, the termination-message file, and the pod's
 *    volumes at their mountPaths (emptyDir: a directory, 0777; configMap and secret: files (their `items` only, when given) with
 *    their modes, read-only), mount targets resolved inside the root as runc does; then
 *    pivot_root (unshare(CLONE_NEWUSER) refuses a chrooted caller), and `setpriv` drops to the
 *    user with the bounding set, no inheritable or ambient capabilities and, when asked, no_new_privs;
 *    Init containers run first, one after the other, each in its own namespaces and overlay root
 *    over the same volumes; a failing one ends the pod (restartPolicy Never);
 * 4. afterwards, per container, the termination message as the kubelet reads it (at most 4096 bytes; with
 *    FallbackToLogsOnError and an empty file after a failure, the last 80 lines / 2048 bytes of the
 *    log); for the pod, an emptyDir over its sizeLimit or all emptyDirs over the pod's ephemeral-storage
 *    limit (the kubelet evicts the pod).
 *
 * Not emulated: SELinux, seccomp profiles (anyuid sets none), cgroup limits, the pod network (the
 * container shares this machine's, so a registry on 127.0.0.1 is reachable).
 *
 * Needs root (mounts, overlayfs), user namespaces for unprivileged users, newuidmap/newgidmap,
 * setcap, setpriv and unshare: `requireKubeletEmulation()` throws naming what is missing.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';

// ---------------------------------------------------------------------------------------------
// Inputs

export interface Scc {
  metadata: { name: string };
  allowPrivilegeEscalation?: boolean | null;
  defaultAllowPrivilegeEscalation?: boolean | null;
  allowPrivilegedContainer: boolean;
  allowedCapabilities: string[] | null;
  defaultAddCapabilities: string[] | null;
  requiredDropCapabilities: string[] | null;
  readOnlyRootFilesystem: boolean;
  runAsUser?: { type: 'RunAsAny' | 'MustRunAs' | 'MustRunAsRange' | 'MustRunAsNonRoot'; uid?: number; uidRangeMin?: number; uidRangeMax?: number } | null;
  fsGroup?: { type: 'RunAsAny' | 'MustRunAs'; ranges?: { min: number; max: number }[] } | null;
  supplementalGroups?: { type: 'RunAsAny' | 'MustRunAs'; ranges?: { min: number; max: number }[] } | null;
  seccompProfiles?: string[] | null;
  volumes: string[] | null;
}

export function loadScc(file: string): Scc {
  const scc = parseYaml(readFileSync(file, 'utf8')) as Scc & { kind?: string };
  if (scc?.kind !== 'SecurityContextConstraints') throw new Error(`${file}: not a SecurityContextConstraints`);
  return scc;
}

/** The namespace's `openshift.io/sa.scc.*` allocations, for the MustRunAs(Range) strategies. */
export interface NamespaceRanges {
  uid: { min: number; size: number };
  supplementalGroups: { min: number; size: number };
}
export const TYPICAL_NAMESPACE_RANGES: NamespaceRanges = { uid: { min: 1000680000, size: 10000 }, supplementalGroups: { min: 1000680000, size: 10000 } };

/** What the container image brings that the runtime reads: its user database and files it adds to this machine's root. */
export interface ContainerImage {
  /** The image's USER (uid), used when neither the pod nor the SCC sets one. */
  user: number;
  /** /etc/passwd lines `name:uid:gid:home:shell` → written as the image's /etc/passwd (with root). */
  users: { name: string; uid: number; gid: number; home: string }[];
  groups: { name: string; gid: number }[];
  /** /etc/subuid and /etc/subgid entries `name:start:count`. */
  subordinateIds: { name: string; start: number; count: number }[];
  /** Files copied from this machine into the image, with a mode and file capabilities (`setcap` text, e.g. `cap_setuid=ep`). */
  files: { path: string; from: string; mode: number; capabilities?: string }[];
  /** The image config's Env. */
  env: { name: string; value: string }[];
}

export class SccRefusal extends Error {
  constructor(
    readonly scc: string,
    readonly reasons: string[],
  ) {
    super(`unable to validate against security context constraint ${scc}: ${reasons.join('; ')}`);
  }
}

// ---------------------------------------------------------------------------------------------
// 1 + 2: admission and the runtime's view of the security context

/** Every capability this kernel knows, upper-case without CAP_ (what CRI-O's `ALL` expands to). */
export function kernelCapabilities(): string[] {
  const last = Number(readFileSync('/proc/sys/kernel/cap_last_cap', 'utf8').trim());
  const names = [
    'CHOWN', 'DAC_OVERRIDE', 'DAC_READ_SEARCH', 'FOWNER', 'FSETID', 'KILL', 'SETGID', 'SETUID', 'SETPCAP', 'LINUX_IMMUTABLE',
    'NET_BIND_SERVICE', 'NET_BROADCAST', 'NET_ADMIN', 'NET_RAW', 'IPC_LOCK', 'IPC_OWNER', 'SYS_MODULE', 'SYS_RAWIO', 'SYS_CHROOT',
    'SYS_PTRACE', 'SYS_PACCT', 'SYS_ADMIN', 'SYS_BOOT', 'SYS_NICE', 'SYS_RESOURCE', 'SYS_TIME', 'SYS_TTY_CONFIG', 'MKNOD', 'LEASE',
    'AUDIT_WRITE', 'AUDIT_CONTROL', 'SETFCAP', 'MAC_OVERRIDE', 'MAC_ADMIN', 'SYSLOG', 'WAKE_ALARM', 'BLOCK_SUSPEND', 'AUDIT_READ',
    'PERFMON', 'BPF', 'CHECKPOINT_RESTORE',
  ];
  return names.slice(0, last + 1);
}

const capName = (c: string) => c.toUpperCase().replace(/^CAP_/, '');

export interface EffectiveContext {
  scc: string;
  uid: number;
  gid: number;
  /** Supplementary groups of the process. */
  groups: number[];
  /** The bounding set (what a non-root process can ever gain through setuid-root or file-capability binaries), sorted. */
  bounding: string[];
  noNewPrivs: boolean;
  readOnlyRoot: boolean;
  fsGroup?: number;
}

/* eslint-disable @typescript-eslint/no-explicit-any */
type Obj = any;

/**
 * The security context the container runs with when `scc` admits the pod (throws SccRefusal
 * otherwise): SCC admission's defaults and checks, then CRI-O's capability rule.
 */
export function admit(podSpec: Obj, container: Obj, scc: Scc, runtimeDefaultCapabilities: readonly string[], image: ContainerImage, ns: NamespaceRanges = TYPICAL_NAMESPACE_RANGES): EffectiveContext {
  const reasons: string[] = [];
  const psc = podSpec.securityContext ?? {};
  const csc = container.securityContext ?? {};
  const inRange = (v: number, min: number, max: number) => v >= min && v <= max;

  // runAsUser (user/*.go)
  let uid: number | undefined = csc.runAsUser ?? psc.runAsUser;
  const ru = scc.runAsUser ?? { type: 'RunAsAny' };
  if (ru.type === 'MustRunAs') {
    uid ??= ru.uid;
    if (uid !== ru.uid) reasons.push(`runAsUser: Invalid value: ${uid}: must be: ${ru.uid}`);
  } else if (ru.type === 'MustRunAsRange') {
    const min = ru.uidRangeMin ?? ns.uid.min;
    const max = ru.uidRangeMax ?? ns.uid.min + ns.uid.size - 1;
    uid ??= min;
    if (!inRange(uid, min, max)) reasons.push(`runAsUser: Invalid value: ${uid}: must be in the ranges: [${min}, ${max}]`);
  } else if (ru.type === 'MustRunAsNonRoot') {
    if (uid === 0) reasons.push('runAsUser: Invalid value: 0: running with the root UID is forbidden');
  }
  uid ??= image.user;
  if ((csc.runAsNonRoot ?? psc.runAsNonRoot) && uid === 0) reasons.push('runAsNonRoot: the container would run as root (the kubelet refuses to start it)');

  // fsGroup / supplementalGroups (group/*.go): MustRunAs defaults to the first range's min.
  const groupStrategy = (s: Scc['fsGroup'], value: number | number[] | undefined, field: string, nsRange: { min: number; size: number }): number[] => {
    const vals = value === undefined ? [] : Array.isArray(value) ? value : [value];
    if (!s || s.type === 'RunAsAny') return vals;
    const ranges = s.ranges?.length ? s.ranges : [{ min: nsRange.min, max: nsRange.min + nsRange.size - 1 }];
    const out = vals.length ? vals : [ranges[0].min];
    for (const g of out) if (!ranges.some((r) => inRange(g, r.min, r.max))) reasons.push(`${field}: Invalid value: ${g}: must be in the ranges: ${JSON.stringify(ranges)}`);
    return out;
  };
  const fsGroups = groupStrategy(scc.fsGroup, psc.fsGroup, 'fsGroup', ns.supplementalGroups);
  const supplemental = groupStrategy(scc.supplementalGroups, psc.supplementalGroups, 'supplementalGroups', ns.supplementalGroups);

  // capabilities (capabilities/mustrunas.go): Generate adds the default adds and the required drops; Validate checks the adds.
  const add = new Set<string>((csc.capabilities?.add ?? []).map(capName));
  const drop = new Set<string>((csc.capabilities?.drop ?? []).map(capName));
  for (const c of scc.defaultAddCapabilities ?? []) if (!drop.has(capName(c))) add.add(capName(c));
  for (const c of scc.requiredDropCapabilities ?? []) drop.add(capName(c));
  const allowed = new Set((scc.allowedCapabilities ?? []).map(capName));
  const defaultAdd = new Set((scc.defaultAddCapabilities ?? []).map(capName));
  if (!allowed.has('*')) for (const c of add) if (!defaultAdd.has(c) && !allowed.has(c)) reasons.push(`capabilities.add: Invalid value: "${c}": capability may not be added`);

  // privileged, privilege escalation, read-only root, seccomp, volumes
  if (csc.privileged && !scc.allowPrivilegedContainer) reasons.push('privileged: Invalid value: true: Privileged containers are not allowed');
  let ape: boolean | undefined = csc.allowPrivilegeEscalation;
  if (ape === undefined && scc.defaultAllowPrivilegeEscalation != null) ape = scc.defaultAllowPrivilegeEscalation;
  if (ape === undefined && scc.allowPrivilegeEscalation === false) ape = false;
  if (ape === true && scc.allowPrivilegeEscalation === false) reasons.push('allowPrivilegeEscalation: Invalid value: true: Allowing privilege escalation for containers is not allowed');
  const seccomp = csc.seccompProfile?.type ?? psc.seccompProfile?.type;
  if (seccomp && !(scc.seccompProfiles ?? []).length) reasons.push('seccomp: Forbidden: seccomp may not be set');
  const volumeTypes = new Set(scc.volumes ?? []);
  for (const v of podSpec.volumes ?? []) {
    const type = Object.keys(v).find((k) => k !== 'name')!;
    if (!volumeTypes.has('*') && !volumeTypes.has(type)) reasons.push(`volumes[${v.name}]: ${type} volumes are not allowed to be used`);
  }
  if (reasons.length) throw new SccRefusal(scc.metadata.name, reasons);

  // CRI-O: defaults + add − drop, with ALL on either side.
  const all = kernelCapabilities();
  let caps: Set<string>;
  if (add.has('ALL')) caps = new Set(all);
  else if (drop.has('ALL')) caps = new Set();
  else caps = new Set([...runtimeDefaultCapabilities.map(capName), ...add]);
  for (const c of add) if (c !== 'ALL') caps.add(c);
  for (const c of drop) caps.delete(c);

  const user = image.users.find((u) => u.uid === uid);
  const gid = csc.runAsGroup ?? psc.runAsGroup ?? user?.gid ?? 0;
  const groups = [...new Set([...supplemental, ...fsGroups])].sort((a, b) => a - b);
  return {
    scc: scc.metadata.name,
    uid,
    gid,
    groups,
    bounding: [...caps].sort(),
    noNewPrivs: csc.privileged ? false : ape === false,
    readOnlyRoot: scc.readOnlyRootFilesystem || csc.readOnlyRootFilesystem === true,
    ...(fsGroups.length ? { fsGroup: fsGroups[0] } : {}),
  };
}

/**
 * Pod Security Standards checks the build pod could trip (k8s.io/pod-security-admission policy
 * checks, the subset relevant to a pod without host access): the names of the failed checks.
 */
export function podSecurityViolations(podSpec: Obj, level: 'baseline' | 'restricted'): string[] {
  const out: string[] = [];
  const containers: Obj[] = [...(podSpec.initContainers ?? []), ...(podSpec.containers ?? [])];
  const psc = podSpec.securityContext ?? {};
  const baselineCaps = new Set(['AUDIT_WRITE', 'CHOWN', 'DAC_OVERRIDE', 'FOWNER', 'FSETID', 'KILL', 'MKNOD', 'NET_BIND_SERVICE', 'SETFCAP', 'SETGID', 'SETPCAP', 'SETUID', 'SYS_CHROOT']);
  if (podSpec.hostNetwork || podSpec.hostPID || podSpec.hostIPC) out.push('hostNamespaces');
  if ((podSpec.volumes ?? []).some((v: Obj) => v.hostPath)) out.push('hostPathVolumes');
  for (const c of containers) {
    const sc = c.securityContext ?? {};
    if (sc.privileged) out.push('privileged');
    if ((sc.capabilities?.add ?? []).some((x: string) => !baselineCaps.has(capName(x)))) out.push('capabilities_baseline');
    if ((sc.seccompProfile?.type ?? psc.seccompProfile?.type) === 'Unconfined') out.push('seccompProfile_baseline');
    if ((c.ports ?? []).some((p: Obj) => p.hostPort)) out.push('hostPorts');
    if (level === 'restricted') {
      if (sc.allowPrivilegeEscalation !== false) out.push('allowPrivilegeEscalation');
      if (!(sc.runAsNonRoot ?? psc.runAsNonRoot)) out.push('runAsNonRoot');
      const sp = sc.seccompProfile?.type ?? psc.seccompProfile?.type;
      if (sp !== 'RuntimeDefault' && sp !== 'Localhost') out.push('seccompProfile_restricted');
      const dropsAll = (sc.capabilities?.drop ?? []).some((x: string) => capName(x) === 'ALL');
      const addsOnly = (sc.capabilities?.add ?? []).every((x: string) => capName(x) === 'NET_BIND_SERVICE');
      if (!dropsAll || !addsOnly) out.push('capabilities_restricted');
    }
  }
  return [...new Set(out)].sort();
}

// ---------------------------------------------------------------------------------------------
// 3 + 4: running the container

export function requireKubeletEmulation(): void {
  const missing: string[] = [];
  if (process.getuid?.() !== 0) throw new Error('the kubelet emulation must run as root (it mounts an overlay root, binds volumes, and creates mount and PID namespaces)');
  for (const [tool, pkg] of [['unshare', 'util-linux'], ['setpriv', 'util-linux'], ['newuidmap', 'uidmap'], ['newgidmap', 'uidmap'], ['setcap', 'libcap2-bin'], ['buildah', 'buildah'], ['busybox', 'busybox-static']]) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0) missing.push(`${tool} (apt-get install -y ${pkg})`);
  }
  if (missing.length) throw new Error(`the kubelet emulation needs: ${missing.join(', ')}`);
  const max = Number(readFileSync('/proc/sys/user/max_user_namespaces', 'utf8').trim());
  if (!(max > 0)) throw new Error(`this machine allows no user namespaces (user.max_user_namespaces = ${max}): rootless buildah cannot build here`);
  // An unprivileged user must be able to create one (Debian's kernel.unprivileged_userns_clone, AppArmor's restriction, …).
  const probe = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', '--', 'unshare', '--user', '--', 'true'], { encoding: 'utf8' });
  if (probe.status !== 0) throw new Error(`an unprivileged user cannot create a user namespace on this machine (${(probe.stderr || probe.error?.message || '').trim()}): rootless buildah cannot build here`);
}

export interface PodResult {
  exitCode: number;
  /** As the kubelet reports it in the container's terminated state. */
  terminationMessage: string;
  logs: string;
  /** Set when the kubelet would have evicted the pod (an emptyDir over its sizeLimit, or all of them over the pod's limit). */
  evicted?: string;
  effective: EffectiveContext;
  /** Each container that ran, in order (init containers first); the pod-level fields are the failing one's, else the last one's. */
  containers: ContainerResult[];
}

export interface RunPodOptions {
  job: Obj;
  configMaps: Record<string, Record<string, string>>;
  /** Secret data, base64 as in the API. */
  secrets: Record<string, Record<string, string>>;
  scc: Scc;
  runtimeDefaultCapabilities: readonly string[];
  image: ContainerImage;
  /** A scratch directory this call owns (volumes, overlay upper layer, termination file). */
  workDir: string;
  timeoutMs?: number;
}

const MAX_TERMINATION_MESSAGE = 4096;
const FALLBACK_LOG_LINES = 80;
const FALLBACK_LOG_BYTES = 2048;

const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Resolves `p` inside the image root (this machine's root) as runc's securejoin does: symlinks never leave the root. */
export function resolveInRoot(p: string): string {
  const parts = p.split('/').filter(Boolean);
  let resolved = '/';
  let hops = 0;
  while (parts.length) {
    const part = parts.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      resolved = path.posix.dirname(resolved);
      continue;
    }
    const next = path.posix.join(resolved, part);
    let st;
    try {
      st = lstatSync(next);
    } catch {
      resolved = next;
      continue;
    }
    if (st.isSymbolicLink()) {
      if (++hops > 40) throw new Error(`too many symlinks resolving ${p}`);
      const target = readlinkSync(next);
      parts.unshift(...target.split('/').filter(Boolean));
      if (target.startsWith('/')) resolved = '/';
      continue;
    }
    resolved = next;
  }
  return resolved;
}

function parseQuantity(q: string): number {
  const m = /^(\d+)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q);
  if (!m) throw new Error(`quantity ${q} not understood by the emulation`);
  const mult: Record<string, number> = { '': 1, Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Number(m[1]) * mult[m[2] ?? ''];
}

/** Bytes under a directory as the kubelet's du-style walk counts them (file sizes; symlinks not followed). */
export function directoryUsage(dir: string): number {
  let total = 0;
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = lstatSync(p);
      if (e.isSymbolicLink()) continue;
      total += st.size;
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return total;
}

/** The pod's ephemeral-storage limit as the kubelet's pod-level eviction sums it: the larger of any init container's limit and the sum of the app containers' (undefined when a container has none). */
export function podStorageLimit(pod: Obj): number | undefined {
  const lim = (c: Obj) => c.resources?.limits?.['ephemeral-storage'];
  const all = [...(pod.initContainers ?? []), ...pod.containers];
  if (all.some((c: Obj) => lim(c) === undefined)) return undefined;
  const init = Math.max(0, ...(pod.initContainers ?? []).map((c: Obj) => parseQuantity(lim(c))));
  const app = pod.containers.reduce((n: number, c: Obj) => n + parseQuantity(lim(c)), 0);
  return Math.max(init, app);
}

export interface ContainerResult {
  name: string;
  exitCode: number;
  terminationMessage: string;
  logs: string;
  effective: EffectiveContext;
}

/**
 * Runs the pod: its init containers one after the other, each to its end, then its containers
 * (one after the other here: the build pod has one), as the kubelet does with restartPolicy
 * Never: a failing init container fails the pod and nothing after it starts. Each container has
 * its own mount and PID namespace (shareProcessNamespace is refused), its own overlay root, and
 * the pod's volumes at its own mounts; volumes are shared between containers as on a node.
 */
export async function runPod(o: RunPodOptions): Promise<PodResult> {
  const pod = o.job.spec.template.spec;
  if (pod.shareProcessNamespace) throw new Error('the emulation gives each container its own PID namespace: shareProcessNamespace is not emulated');
  const all: Obj[] = [...(pod.initContainers ?? []), ...pod.containers];
  if (pod.containers.length !== 1) throw new Error('the emulation runs pods with exactly one app container');
  // Admission checks every container before the pod exists.
  const contexts = all.map((c) => admit(pod, c, o.scc, o.runtimeDefaultCapabilities, o.image));

  // Volumes, as the kubelet lays them out on the node.
  const volDir = path.join(o.workDir, 'volumes');
  mkdirSync(volDir, { recursive: true });
  const volumes = new Map<string, { dir: string; sizeLimit?: number; readOnly: boolean }>();
  const fsGroup = contexts[0]!.fsGroup;
  for (const v of pod.volumes ?? []) {
    const dir = path.join(volDir, v.name);
    mkdirSync(dir, { recursive: true });
    if (v.emptyDir) {
      chmodSync(dir, 0o777);
      volumes.set(v.name, { dir, readOnly: false, ...(v.emptyDir.sizeLimit ? { sizeLimit: parseQuantity(v.emptyDir.sizeLimit) } : {}) });
    } else if (v.configMap || v.secret) {
      const src = v.configMap ?? v.secret;
      const name = v.configMap ? src.name : src.secretName;
      const data = v.configMap ? o.configMaps[name] : o.secrets[name];
      if (!data) throw new Error(`pod waits: ${v.configMap ? 'ConfigMap' : 'Secret'} ${name} does not exist (volume ${v.name})`);
      // kubelet: with `items`, only those keys, each at its path (a missing key keeps the pod waiting).
      const items: { key: string; path: string; mode?: number }[] = src.items ?? Object.keys(data).map((k) => ({ key: k, path: k }));
      for (const it of items) {
        if (!(it.key in data)) throw new Error(`pod waits: ${v.configMap ? 'ConfigMap' : 'Secret'} ${name} has no key ${it.key} (volume ${v.name})`);
        const val = data[it.key];
        const f = path.join(dir, it.path);
        mkdirSync(path.dirname(f), { recursive: true });
        writeFileSync(f, v.secret ? Buffer.from(val, 'base64') : val);
        chmodSync(f, it.mode ?? src.defaultMode ?? 0o644);
        if (fsGroup !== undefined) spawnSync('chown', [`0:${fsGroup}`, f]);
      }
      chmodSync(dir, 0o755);
      volumes.set(v.name, { dir, readOnly: true });
    } else {
      throw new Error(`volume ${v.name}: type not emulated`);
    }
  }

  // The image's additions to this machine's root.
  const imgDir = path.join(o.workDir, 'image');
  mkdirSync(imgDir, { recursive: true });
  const passwd = ['root:x:0:0:root:/root:/bin/bash', ...o.image.users.map((u) => `${u.name}:x:${u.uid}:${u.gid}::${u.home}:/bin/bash`)].join('\n') + '\n';
  const group = ['root:x:0:', ...o.image.groups.map((g) => `${g.name}:x:${g.gid}:`)].join('\n') + '\n';
  const subids = o.image.subordinateIds.map((s) => `${s.name}:${s.start}:${s.count}`).join('\n') + '\n';
  for (const [n, text] of Object.entries({ passwd, group, subuid: subids, subgid: subids })) writeFileSync(path.join(imgDir, n), text);

  const results: ContainerResult[] = [];
  for (const [k, c] of all.entries()) {
    const r = await runContainer(o, c, contexts[k]!, volumes, imgDir, path.join(o.workDir, `c${k}-${c.name ?? 'container'}`));
    results.push(r);
    if (r.exitCode !== 0) break;
  }
  const failed = results.find((r) => r.exitCode !== 0);
  const last = failed ?? results[results.length - 1]!;

  let evicted: string | undefined;
  let total = 0;
  for (const [name, v] of volumes) {
    if (!existsSync(v.dir) || v.readOnly) continue;
    const used = directoryUsage(v.dir);
    total += used;
    if (!evicted && v.sizeLimit !== undefined && used > v.sizeLimit) evicted = `Usage of EmptyDir volume "${name}" exceeds the limit "${v.sizeLimit}".`;
  }
  const podLimit = podStorageLimit(pod);
  if (!evicted && podLimit !== undefined && total > podLimit) evicted = `Pod ephemeral local storage usage exceeds the total limit of containers ${podLimit}.`;
  return {
    exitCode: last.exitCode,
    terminationMessage: last.terminationMessage,
    logs: results.map((r) => r.logs).join(''),
    effective: last.effective,
    containers: results,
    ...(evicted ? { evicted } : {}),
  };
}

async function runContainer(o: RunPodOptions, c: Obj, effective: EffectiveContext, volumes: Map<string, { dir: string; readOnly: boolean }>, imgDir: string, dir: string): Promise<ContainerResult> {
  mkdirSync(dir, { recursive: true });
  const termFile = path.join(dir, 'termination-log');
  writeFileSync(termFile, '');
  chmodSync(termFile, 0o666);
  const R = path.join(dir, 'rootfs');
  const S = path.join(dir, 'layer');
  mkdirSync(R, { recursive: true });
  mkdirSync(S, { recursive: true });
  const sh: string[] = [
    'set -eu',
    `R=${q(R)}`,
    `mount -t tmpfs -o mode=0755 tmpfs ${q(S)}`,
    `mkdir -p ${q(S)}/upper ${q(S)}/work`,
    `mount -t overlay overlay -o lowerdir=/,upperdir=${q(S)}/upper,workdir=${q(S)}/work "$R"`,
  ];
  for (const n of ['passwd', 'group', 'subuid', 'subgid']) sh.push(`install -m 0644 ${q(path.join(imgDir, n))} "$R/etc/${n}"`);
  for (const f of o.image.files) {
    const target = resolveInRoot(f.path);
    sh.push(`rm -f "$R"${q(target)}`, `install -m ${f.mode.toString(8)} ${q(f.from)} "$R"${q(target)}`);
    if (f.capabilities) sh.push(`setcap ${q(f.capabilities)} "$R"${q(target)}`);
  }
  sh.push(
    'mount -t proc -o nosuid,nodev,noexec proc "$R/proc"',
    'mount --rbind /sys "$R/sys"',
    'mount -o remount,bind,ro,nosuid,nodev,noexec "$R/sys"',
    'mount -t tmpfs -o mode=0755,nosuid tmpfs "$R/dev"',
    'for d in null zero full random urandom tty; do touch "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done',
    'mkdir "$R/dev/pts" "$R/dev/shm"',
    'mount -t devpts -o newinstance,ptmxmode=0666,mode=0620 devpts "$R/dev/pts"',
    'ln -s pts/ptmx "$R/dev/ptmx"',
    'mount -t tmpfs -o mode=1777,nosuid,nodev shm "$R/dev/shm"',
    'ln -s /proc/self/fd "$R/dev/fd"; ln -s /proc/self/fd/0 "$R/dev/stdin"; ln -s /proc/self/fd/1 "$R/dev/stdout"; ln -s /proc/self/fd/2 "$R/dev/stderr"',
  );
  const mounts = [...(c.volumeMounts ?? [])].sort((a: Obj, b: Obj) => a.mountPath.split('/').length - b.mountPath.split('/').length);
  for (const m of mounts) {
    const v = volumes.get(m.name);
    if (!v) throw new Error(`volumeMount ${m.name}: no such volume (the API server refuses this pod)`);
    let src = v.dir;
    if (m.subPath) {
      src = path.join(v.dir, m.subPath);
      // kubelet: a missing subPath directory is created with the volume root's mode.
      mkdirSync(src, { recursive: true });
      chmodSync(src, lstatSync(v.dir).mode & 0o7777);
    }
    const target = resolveInRoot(m.mountPath);
    sh.push(`mkdir -p "$R"${q(target)}`, `mount --bind ${q(src)} "$R"${q(target)}`);
    if (m.readOnly || v.readOnly) sh.push(`mount -o remount,bind,ro "$R"${q(target)}`);
  }
  const tmPath = resolveInRoot(c.terminationMessagePath ?? '/dev/termination-log');
  sh.push(`mkdir -p "$(dirname "$R"${q(tmPath)})"`, `touch "$R"${q(tmPath)}`, `mount --bind ${q(termFile)} "$R"${q(tmPath)}`);
  if (effective.readOnlyRoot) sh.push('mount -o remount,ro "$R"');
  sh.push('cd "$R"', 'pivot_root . .', 'umount -l .', 'cd /');

  // The process: env (image, then container), user, groups, capabilities, no_new_privs.
  const env = new Map<string, string>();
  for (const e of o.image.env) env.set(e.name, e.value);
  env.set('HOSTNAME', o.job.metadata.name);
  for (const e of c.env ?? []) {
    if (e.valueFrom) throw new Error(`env ${e.name}: valueFrom not emulated`);
    env.set(e.name, e.value ?? '');
  }
  if (!env.has('HOME')) env.set('HOME', o.image.users.find((u) => u.uid === effective.uid)?.home ?? '/');
  const bounding = effective.bounding.length ? `-all,${effective.bounding.map((x) => `+${x.toLowerCase()}`).join(',')}` : '-all';
  const setpriv = [
    'setpriv',
    `--reuid=${effective.uid}`,
    `--regid=${effective.gid}`,
    effective.groups.length ? `--groups=${effective.groups.join(',')}` : '--clear-groups',
    `--bounding-set=${bounding}`,
    '--inh-caps=-all',
    '--ambient-caps=-all',
    ...(effective.noNewPrivs ? ['--no-new-privs'] : []),
    '--',
  ];
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  if (!argv.length) throw new Error('the emulation needs the container command');
  sh.push(`cd ${q(c.workingDir ?? '/')}`, `exec env -i ${[...env].map(([k, v]) => q(`${k}=${v}`)).join(' ')} ${setpriv.map(q).join(' ')} ${argv.map(q).join(' ')}`);
  const script = path.join(dir, 'container.sh');
  writeFileSync(script, sh.join('\n') + '\n');

  // The command is the new PID namespace's init (exec'd): when it ends, the kernel kills every
  // process left in the namespace, as when a container's first process exits under runc.
  const child = spawn('unshare', ['--mount', '--pid', '--fork', '--kill-child', '--propagation', 'private', 'bash', script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let logs = '';
  child.stdout.on('data', (d) => (logs += d));
  child.stderr.on('data', (d) => (logs += d));
  const timeout = o.timeoutMs ?? 600_000;
  const exitCode: number = await new Promise((resolve, reject) => {
    const t = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`container ${c.name} did not finish within ${timeout} ms; log tail:\n${logs.slice(-4000)}`));
    }, timeout);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(t);
      resolve(code ?? (signal ? 128 : 1));
    });
  });

  let terminationMessage = readFileSync(termFile).subarray(0, MAX_TERMINATION_MESSAGE).toString('utf8');
  if (!terminationMessage && exitCode !== 0 && c.terminationMessagePolicy === 'FallbackToLogsOnError') {
    const tail = logs.split('\n').slice(-FALLBACK_LOG_LINES).join('\n');
    terminationMessage = Buffer.from(tail).subarray(Math.max(0, Buffer.byteLength(tail) - FALLBACK_LOG_BYTES)).toString('utf8');
  }
  return { name: c.name, exitCode, terminationMessage, logs, effective };
}

/** Removes a runPod work directory (its volumes hold files owned by subordinate IDs). */
export function removeWorkDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
