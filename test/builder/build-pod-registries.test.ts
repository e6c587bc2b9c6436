/**
 * A build whose base and push target are two different registries, end to end: the base OS image
 * (two layers) in one Debian docker-registry on 127.0.0.1, the build Job `buildJob()` makes run
 * as a kubelet with CRI-O would run it (test/builder/kubelet.ts, the SCC the package binds, Debian's
 * buildah), pushing to a second docker-registry. buildah holds the base's layers uncompressed in
 * its storage and gzips them again for a registry that lacks them, so the pushed image's first
 * layers have other digests than the base's: the image check the controller runs before any
 * hand-off (`wiring().verifyImage`, builder/registry/image-check.ts) finds the base by the
 * config's `rootfs.diff_ids` and verifies it; comparing compressed digests alone refuses it.
 * A base mirrored into the push registry keeps its blobs, and the cheap path takes it; a real
 * `buildah bud --squash` image is refused with the reason.
 */
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { BUILD_NAMESPACE, buildConfigMap, buildJob, BuildJobInput, buildSecret, CRIO_DEFAULT_CAPABILITIES } from '../../builder/controller/build-job.js';
import { verifyBuiltImage } from '../../builder/registry/image-check.js';
import { NetGuard } from '../../builder/registry/net-guard.js';
import { dockerConfigCredentials } from '../../builder/registry/dockerconfig.js';
import { wiring } from '../../builder/wiring.js';
import { cleanupRegistry, run, startRegistry, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { removeWorkDir, requireKubeletEmulation, runPod, Scc } from './kubelet.js';
import { builderImage, sccBoundInPackage } from './build-pod-fixtures.js';

const DIGEST_RE = /^sha256:[0-9a-f]{64}$/;

const auth = (reg: TestRegistry) => Buffer.from(`${reg.user}:${reg.password}`).toString('base64');
/** A `.dockerconfigjson` whose only key is one repository namespace of one registry. */
const authFile = (reg: TestRegistry, namespace: string) => JSON.stringify({ auths: { [`${reg.host}/${namespace}`]: { auth: auth(reg) } } });
const creds = (reg: TestRegistry) => ['--creds', `${reg.user}:${reg.password}`, '--tls-verify=false'];
const sha256 = (b: string | Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

interface Pushed {
  manifest: { layers: { digest: string }[] };
  config: { rootfs: { diff_ids: string[] } };
}

function inspect(reg: TestRegistry, ref: string): Pushed {
  return {
    manifest: JSON.parse(run('skopeo', ['inspect', '--raw', ...creds(reg), `docker://${ref}`])),
    config: JSON.parse(run('skopeo', ['inspect', '--config', ...creds(reg), `docker://${ref}`])),
  };
}

describe('a build pushed to another registry than its base', () => {
  let baseReg: TestRegistry;
  let pushReg: TestRegistry;
  let work: string;
  let scc: Scc;
  let baseRef: string;
  let seq = 0;

  /** A two-layer base OS with a static busybox for RUN, pushed to `reg` by skopeo (gzip layers). */
  function pushBase(reg: TestRegistry, version = '4.99'): string {
    const dir = mkdtempSync(path.join(work, 'base-'));
    const lower = path.join(dir, 'lower');
    for (const d of ['bin', 'etc', 'usr/lib', 'tmp']) mkdirSync(path.join(lower, d), { recursive: true });
    chmodSync(path.join(lower, 'tmp'), 0o1777);
    copyFileSync('/bin/busybox', path.join(lower, 'bin/busybox'));
    chmodSync(path.join(lower, 'bin/busybox'), 0o755);
    for (const a of ['sh', 'echo', 'cat']) symlinkSync('busybox', path.join(lower, 'bin', a));
    writeFileSync(path.join(lower, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    const upper = path.join(dir, 'upper');
    mkdirSync(path.join(upper, 'usr/lib'), { recursive: true });
    writeFileSync(path.join(upper, 'usr/lib/os-release'), `ID=rhcos\nVERSION_ID=${version}\n`);
    const layout = path.join(dir, 'oci');
    run('umoci', ['init', '--layout', layout]);
    run('umoci', ['new', '--image', `${layout}:img`]);
    for (const [n, root] of [['lower', lower], ['upper', upper]]) {
      run('tar', ['--numeric-owner', '--owner=0', '--group=0', '--sort=name', '--mtime=@0', '-C', root, '-cf', path.join(dir, `${n}.tar`), '.']);
      run('umoci', ['raw', 'add-layer', '--image', `${layout}:img`, path.join(dir, `${n}.tar`)]);
    }
    run('umoci', ['config', '--image', `${layout}:img`, '--config.env', 'PATH=/usr/bin:/bin']);
    const repo = `${reg.host}/ocp/rhcos-${version}`;
    run('skopeo', ['copy', '--quiet', '--dest-creds', `${reg.user}:${reg.password}`, '--dest-tls-verify=false', `oci:${layout}:img`, `docker://${repo}:base`]);
    return `${repo}@${sha256(Buffer.from(run('skopeo', ['inspect', '--raw', ...creds(reg), `docker://${repo}:base`])))}`;
  }

  beforeAll(async () => {
    // Fails (never skips) where this machine cannot run rootless buildah the way the pod does.
    requireKubeletEmulation();
    work = mkdtempSync(path.join(tmpdir(), 'build-registries-'));
    scc = sccBoundInPackage();
    baseReg = await startRegistry('basic');
    pushReg = await startRegistry('basic');
    expect(pushReg.host).not.toBe(baseReg.host);
    baseRef = pushBase(baseReg);
  });

  afterAll(async () => {
    await cleanupRegistry(baseReg);
    await cleanupRegistry(pushReg);
    if (work) removeWorkDir(work);
  });

  /** The Job, ConfigMap and Secret as the controller makes them: pull auth for the base's registry, push auth for the push registry. */
  async function build(base: string, baseAuth: string): Promise<{ input: BuildJobInput; digest: string }> {
    const n = String(++seq).padStart(2, '0');
    const input: BuildJobInput = {
      namespace: BUILD_NAMESPACE,
      jobName: `build-workers-00000000${n}`,
      buildName: `workers-00000000${n}`,
      configName: 'workers',
      nodePool: 'workers',
      releaseImage: `${baseReg.host}/ocp/release@sha256:${'a'.repeat(64)}`,
      baseOSImage: base,
      builderImage: `${baseReg.host}/ocp/machine-config-operator@sha256:${'c'.repeat(64)}`,
      pushTag: `${pushReg.host}/layered/workers:workers-00000000${n}`,
      containerfile: 'FROM configs AS final\nRUN echo agent > /etc/agent.conf\nLABEL built-by=two-registries\n',
      activeDeadlineSeconds: 3600,
      backoffLimit: 0,
      arch: 'amd64',
      tolerations: [],
      registriesConf: `[[registry]]\nlocation = "${baseReg.host}"\ninsecure = true\n\n[[registry]]\nlocation = "${pushReg.host}"\ninsecure = true\n`,
    };
    const job = buildJob(input) as any;
    job.metadata.uid = `uid-${input.jobName}`;
    const cm = buildConfigMap(input, job) as any;
    const secret = buildSecret(input, job, baseAuth, authFile(pushReg, 'layered')) as any;
    const r = await runPod({
      job,
      configMaps: { [cm.metadata.name]: cm.data },
      secrets: { [secret.metadata.name]: secret.data },
      scc,
      runtimeDefaultCapabilities: CRIO_DEFAULT_CAPABILITIES,
      image: builderImage(),
      workDir: mkdtempSync(path.join(work, 'pod-')),
    });
    expect({ exitCode: r.exitCode, evicted: r.evicted, tail: r.exitCode ? r.terminationMessage : '' }).toEqual({ exitCode: 0, evicted: undefined, tail: '' });
    expect(r.terminationMessage).toMatch(DIGEST_RE);
    return { input, digest: r.terminationMessage };
  }

  /** What the controller calls before a hand-off, with the Secrets it holds: the push Secret and the pull secret. */
  function controllerCheck(pushRef: string, base: string, baseAuth: string) {
    return wiring({ cacheSize: 1, registryAllow: [baseReg.host, pushReg.host] }).verifyImage({
      pushRef,
      arch: 'amd64',
      baseImageRef: base,
      credentials: authFile(pushReg, 'layered'),
      baseCredentials: baseAuth,
    });
  }

  it('is verified by the controller before hand-off: the base found by diff_ids in recompressed layers; by blob digests alone it would be refused', async () => {
    const baseAuth = authFile(baseReg, 'ocp');
    const { digest } = await build(baseRef, baseAuth);
    const pushRef = `${pushReg.host}/layered/workers@${digest}`;

    const built = inspect(pushReg, pushRef);
    const base = inspect(baseReg, baseRef);
    expect(base.manifest.layers).toHaveLength(2);
    // The build's own layers on top (the `configs` stage's and the RUN's).
    expect(built.manifest.layers.length).toBeGreaterThan(2);
    expect(built.config.rootfs.diff_ids).toHaveLength(built.manifest.layers.length);
    // The real push recompressed the base's layers with buildah's gzip: the large one (busybox,
    // compressed by umoci for the base) comes out as other bytes, so the compressed-digest rule
    // alone (the check before this one, every base layer's blob digest) refuses the image. (The
    // tiny one may come out byte-identical: the same gzip settings on 2 KiB agree.)
    expect(built.manifest.layers[0].digest).not.toBe(base.manifest.layers[0].digest);
    expect(base.manifest.layers.every((l, k) => l.digest === built.manifest.layers[k].digest)).toBe(false);
    // ... while the content the config claims for them is the base's.
    expect(built.config.rootfs.diff_ids.slice(0, 2)).toEqual(base.config.rootfs.diff_ids);

    expect(await controllerCheck(pushRef, baseRef, baseAuth)).toEqual({ ok: true });
    const r = await verifyBuiltImage({
      pushRef,
      arch: 'amd64',
      baseImageRef: baseRef,
      credentials: dockerConfigCredentials(authFile(pushReg, 'layered'), { file: 'push secret', path: '.dockerconfigjson' }),
      baseCredentials: dockerConfigCredentials(baseAuth, { file: 'pull secret', path: '.dockerconfigjson' }),
      connectPolicy: new NetGuard({ allow: [baseReg.host, pushReg.host] }),
    });
    expect(r).toMatchObject({ ok: true, reason: 'Verified', layers: built.manifest.layers.length, baseLayers: 2, baseMatch: 'diffIds' });

    // Checked against another base (same registry, other content), the same image is refused.
    const otherBase = pushBase(pushReg, '4.98');
    const wrong = await controllerCheck(pushRef, otherBase, authFile(pushReg, 'ocp'));
    expect(wrong.ok).toBe(false);
    expect((wrong as { reason: string }).reason).toMatch(/^NotFromBase: /);
  });

  it('a --squash build of the same Containerfile (real buildah, base and build in one layer) is refused, saying why', async () => {
    // The build pod never squashes; this is what a hand-built image made with --squash looks like.
    const dir = mkdtempSync(path.join(work, 'squash-'));
    mkdirSync(path.join(dir, 'ctx'));
    writeFileSync(path.join(dir, 'Containerfile'), `FROM ${baseRef}\nRUN echo agent > /etc/agent.conf\n`);
    const store = ['--root', path.join(dir, 'root'), '--runroot', path.join(dir, 'run'), '--storage-driver', 'vfs'];
    const tag = `${pushReg.host}/layered/workers:squashed`;
    run('buildah', [...store, 'bud', '--quiet', '--isolation', 'chroot', '--squash', '--tls-verify=false', '--creds', `${baseReg.user}:${baseReg.password}`, '--file', path.join(dir, 'Containerfile'), '--tag', tag, path.join(dir, 'ctx')]);
    run('buildah', [...store, 'push', '--quiet', '--tls-verify=false', '--creds', `${pushReg.user}:${pushReg.password}`, '--digestfile', path.join(dir, 'digest'), tag, `docker://${tag}`]);
    const pushRef = `${pushReg.host}/layered/workers@${readFileSync(path.join(dir, 'digest'), 'utf8').trim()}`;
    expect(inspect(pushReg, pushRef).manifest.layers).toHaveLength(1);
    const r = await controllerCheck(pushRef, baseRef, authFile(baseReg, 'ocp'));
    expect(r).toEqual({
      ok: false,
      reason: `NotFromBase: ${pushRef}: it has 1 layer, fewer than the 2 of its base image ${baseRef}: an image built FROM another base, or with --squash (which merges the base's layers into its own: refused, since nothing would show the base any more)`,
    });
  });

  it('a base mirrored into the push registry keeps its blobs: the same build is verified on the cheap path', async () => {
    // A release mirrored into the push registry (skopeo copy keeps the compressed blobs and the digest).
    const mirror = `${pushReg.host}/ocp/rhcos-mirror@${baseRef.split('@')[1]}`;
    run('skopeo', ['copy', '--quiet', '--src-creds', `${baseReg.user}:${baseReg.password}`, '--src-tls-verify=false', '--dest-creds', `${pushReg.user}:${pushReg.password}`, '--dest-tls-verify=false', `docker://${baseRef}`, `docker://${pushReg.host}/ocp/rhcos-mirror:base`]);
    const baseAuth = JSON.stringify({ auths: { [`${pushReg.host}/ocp`]: { auth: auth(pushReg) } } });
    const { digest } = await build(mirror, baseAuth);
    const pushRef = `${pushReg.host}/layered/workers@${digest}`;
    const built = inspect(pushReg, pushRef);
    const base = inspect(pushReg, mirror);
    expect(built.manifest.layers.slice(0, 2).map((l) => l.digest)).toEqual(base.manifest.layers.map((l) => l.digest));
    expect(await controllerCheck(pushRef, mirror, baseAuth)).toEqual({ ok: true });
    const r = await verifyBuiltImage({
      pushRef,
      arch: 'amd64',
      baseImageRef: mirror,
      credentials: dockerConfigCredentials(authFile(pushReg, 'layered'), { file: 'push secret', path: '.dockerconfigjson' }),
      baseCredentials: dockerConfigCredentials(baseAuth, { file: 'pull secret', path: '.dockerconfigjson' }),
      connectPolicy: new NetGuard({ allow: [pushReg.host] }),
    });
    expect(r).toMatchObject({ ok: true, baseMatch: 'blobs' });
  });
});
