/**
 * Release payload lookup against Debian's docker-registry with basic auth: synthetic release
 * images built with src/oci, credentials from a .dockerconfigjson, requests counted through a
 * 127.0.0.1 proxy, one image checked independently with skopeo.
 */
import * as http from 'node:http';
import { UserError } from '../../pkogen/src/core/errors.js';
import type { Image } from '../../pkogen/src/oci/image.js';
import { MediaType } from '../../pkogen/src/oci/media-types.js';
import { parseReference } from '../../pkogen/src/oci/reference.js';
import { RegistryClient } from '../../pkogen/src/oci/registry-client.js';
import { sha256Digest } from '../../pkogen/src/oci/digest.js';
import { credentialFor, dockerConfigCredentials, parseDockerConfigJson } from '../../builder/registry/dockerconfig.js';
import { ReleaseResolver } from '../../builder/registry/release.js';
import { cleanupRegistry, run, startProxy, startRegistry, TestProxy, TestRegistry } from '../../pkogen/test/oci/registry-harness.js';
import { file, imageReferences, layer, releaseImage } from './fixtures.js';

const D = (c: string) => `sha256:${c.repeat(64)}`;

const standardTags = (n: string) => ({
  'machine-config-operator': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(n === '1' ? 'c' : 'd')}`,
  'rhel-coreos': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(n === '1' ? 'e' : 'f')}`,
  'rhel-coreos-extensions': `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D(n === '1' ? '1' : '2')}`,
  pod: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('3')}`,
});

let reg: TestRegistry;
let proxy: TestProxy;
let pullSecret: string;
const digests: Record<string, string> = {};

function basicAuth(): string {
  return `Basic ${Buffer.from(`${reg.user}:${reg.password}`).toString('base64')}`;
}

/** PUTs an OCI index by tag (our client pushes single images only). */
function putIndex(repo: string, tag: string, manifests: { image: Image; arch: string }[]): Promise<string> {
  const body = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaType.OciIndex,
      manifests: manifests.map(({ image, arch }) => ({ mediaType: MediaType.OciManifest, digest: image.digest, size: image.manifest.length, platform: { architecture: arch, os: 'linux' } })),
    }),
  );
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port: reg.port, method: 'PUT', path: `/v2/${repo}/manifests/${tag}`, headers: { 'Content-Type': MediaType.OciIndex, Authorization: basicAuth() } },
      (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 201 ? resolve(sha256Digest(body)) : reject(new Error(`index PUT: HTTP ${res.statusCode}`))));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

beforeAll(async () => {
  reg = await startRegistry('basic');
  proxy = await startProxy(reg.port, () => 'pass');
  // The proxy is the registry the resolver talks to; the pull secret names it.
  pullSecret = JSON.stringify({
    auths: {
      'quay.io': { auth: Buffer.from('someone:else').toString('base64') },
      [proxy.host]: { auth: Buffer.from(`${reg.user}:${reg.password}`).toString('base64'), email: 'x@example.com' },
    },
  });
  const push = new RegistryClient({ credentials: async () => ({ username: reg.user, password: reg.password }) });
  try {
    const put = async (name: string, img: Image, ref: string) => {
      await push.push(img, [parseReference(`${reg.host}/${ref}`)]);
      digests[name] = img.digest;
    };
    await put('r1', releaseImage({ refs: imageReferences('4.20.1', standardTags('1')) }), 'ocp/release:4.20.1');
    await put('r2', releaseImage({ refs: imageReferences('4.20.2', standardTags('2')), version: '4.20.2' }), 'ocp/release:4.20.2');
    const amd = releaseImage({ refs: imageReferences('4.21.0', { ...standardTags('1'), 'rhel-coreos': `quay.io/x/amd@${D('a')}` }) });
    const arm = releaseImage({ refs: imageReferences('4.21.0', { ...standardTags('1'), 'rhel-coreos': `quay.io/x/arm@${D('b')}` }), arch: 'arm64' });
    await put('amd', amd, 'ocp/release:multi-amd64');
    await put('arm', arm, 'ocp/release:multi-arm64');
    digests.multi = await putIndex('ocp/release', 'multi', [
      { image: amd, arch: 'amd64' },
      { image: arm, arch: 'arm64' },
    ]);
    // 4.21-like: both streams, one image per architecture, each naming its own images.
    const perArch: { image: Image; arch: string }[] = [];
    for (const [i, arch] of ['amd64', 'arm64', 'ppc64le', 's390x'].entries()) {
      const tags = {
        'machine-config-operator': `quay.io/x/mco-${arch}@${D(String(i + 1))}`,
        'rhel-coreos': `quay.io/x/rhcos9-${arch}@${D(String(i + 1))}`,
        'rhel-coreos-extensions': `quay.io/x/rhcos9ext-${arch}@${D(String(i + 1))}`,
        'rhel-coreos-10': `quay.io/x/rhcos10-${arch}@${D(String(i + 1))}`,
        'rhel-coreos-10-extensions': `quay.io/x/rhcos10ext-${arch}@${D(String(i + 1))}`,
      };
      const image = releaseImage({ refs: imageReferences('4.21.3', tags), arch, version: '4.21.3' });
      await put(`streams-${arch}`, image, `ocp/release:streams-${arch}`);
      perArch.push({ image, arch });
    }
    digests.streams = await putIndex('ocp/release', 'streams', perArch);
    await put('nofile', releaseImage(), 'ocp/release:nofile');
    await put('notag', releaseImage({ refs: imageReferences('4.20.3', { 'machine-config-operator': `quay.io/x/mco@${D('c')}` }) }), 'ocp/release:notag');
    await put('badjson', releaseImage({ refs: '{"kind": "ImageStream", "spec": {"tags": [' }), 'ocp/release:badjson');
    await put('badshape', releaseImage({ refs: JSON.stringify({ kind: 'ImageStream', apiVersion: 'image.openshift.io/v1', spec: { tags: [{ name: 'rhel-coreos', from: { kind: 'DockerImage' } }] } }) }), 'ocp/release:badshape');
    await put(
      'whiteout',
      releaseImage({ refs: imageReferences('4.20.1', standardTags('1')), extra: [layer([{ name: 'release-manifests', type: 'dir' }, file('release-manifests/.wh.image-references', '')], false)] }),
      'ocp/release:whiteout',
    );
    await put('notis', releaseImage({ refs: JSON.stringify({ kind: 'ImageStream', apiVersion: 'v1', spec: { tags: [] } }) }), 'ocp/release:notis');
    await put('legacy', releaseImage({ refs: imageReferences('4.12.9', { 'machine-config-operator': `quay.io/x/mco@${D('c')}`, 'rhel-coreos-8': `quay.io/x/rhcos8@${D('8')}`, 'rhel-coreos-8-extensions': `quay.io/x/rhcos8ext@${D('9')}` }) }), 'ocp/release:legacy');
    await put('moving', releaseImage({ refs: imageReferences('4.20.1', standardTags('1')) }), 'ocp/release:moving');
  } finally {
    push.close();
  }
});

afterAll(async () => {
  await proxy?.close();
  await cleanupRegistry(reg);
});

const spec = (tagOrDigest: string) => (tagOrDigest.startsWith('sha256:') ? `${proxy.host}/ocp/release@${tagOrDigest}` : `${proxy.host}/ocp/release:${tagOrDigest}`);

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (e instanceof UserError) return e.message;
    throw e;
  }
  throw new Error('expected an error');
}

describe('ReleaseResolver against a registry with basic auth', () => {
  it('two releases give their own base OS, extensions and MCO images, by digest', async () => {
    const r = new ReleaseResolver();
    const one = await r.resolve(spec('4.20.1'), pullSecret);
    const two = await r.resolve(spec('4.20.2'), pullSecret);
    expect(one).toEqual({
      release: `${proxy.host}/ocp/release@${digests.r1}`,
      releaseDigest: digests.r1,
      arch: 'amd64',
      baseOSTag: 'rhel-coreos',
      baseOSImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('e')}`,
      baseOSExtensionsImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('1')}`,
      machineConfigOperatorImage: `quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('c')}`,
      version: '4.20.1',
    });
    expect(two.releaseDigest).toBe(digests.r2);
    expect(two.baseOSImage).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('f')}`);
    expect(two.version).toBe('4.20.2');
  });

  it('skopeo sees the pushed release image with the same digest', () => {
    const info = JSON.parse(run('skopeo', ['inspect', '--tls-verify=false', '--creds', `${reg.user}:${reg.password}`, `docker://${reg.host}/ocp/release:4.20.1`]));
    expect(info.Digest).toBe(digests.r1);
    expect(info.Labels).toEqual({ 'io.openshift.release': '4.20.1' });
    expect(info.Layers).toHaveLength(2);
  });

  it('a second resolve by digest makes no registry request; by tag only a HEAD for the digest', async () => {
    const r = new ReleaseResolver();
    const first = await r.resolve(spec(digests.r1), pullSecret);
    const before = proxy.log.length;
    const again = await r.resolve(spec(digests.r1), pullSecret);
    expect(proxy.log.length).toBe(before);
    expect(again).toEqual(first);
    await r.resolve(spec('4.20.1'), pullSecret);
    const byTag = proxy.log.slice(before);
    // The API ping, then the HEAD (once more after the 401 that asks for credentials): no manifest or blob GET.
    expect(byTag.length).toBeGreaterThan(0);
    expect(byTag.filter((l) => l !== 'GET /v2/' && l !== 'HEAD /v2/ocp/release/manifests/4.20.1')).toEqual([]);
  });

  it('a tag is re-resolved every time: moving it to another release gives that release', async () => {
    const r = new ReleaseResolver();
    expect((await r.resolve(spec('moving'), pullSecret)).version).toBe('4.20.1');
    const push = new RegistryClient({ credentials: async () => ({ username: reg.user, password: reg.password }) });
    try {
      await push.push(releaseImage({ refs: imageReferences('4.20.2', standardTags('2')), version: '4.20.2' }), [parseReference(`${reg.host}/ocp/release:moving`)]);
    } finally {
      push.close();
    }
    const moved = await r.resolve(spec('moving'), pullSecret);
    expect(moved.version).toBe('4.20.2');
    expect(moved.baseOSImage).toBe(`quay.io/openshift-release-dev/ocp-v4.0-art-dev@${D('f')}`);
  });

  it('the cache is bounded: the least recently used release is read again', async () => {
    const r = new ReleaseResolver({ cacheSize: 1 });
    await r.resolve(spec(digests.r1), pullSecret);
    await r.resolve(spec(digests.r2), pullSecret);
    const before = proxy.log.length;
    await r.resolve(spec(digests.r1), pullSecret);
    expect(proxy.log.slice(before).some((l) => l.includes(`/manifests/${digests.r1}`))).toBe(true);
  });

  it('a multi-arch index gives the requested platform, and the index digest as the release digest', async () => {
    const r = new ReleaseResolver();
    const amd = await r.resolve(spec('multi'), pullSecret);
    const arm = await r.resolve(spec('multi'), pullSecret, 'arm64');
    expect(amd.releaseDigest).toBe(digests.multi);
    expect(arm.releaseDigest).toBe(digests.multi);
    expect(amd.baseOSImage).toBe(`quay.io/x/amd@${D('a')}`);
    expect(arm.baseOSImage).toBe(`quay.io/x/arm@${D('b')}`);
    expect(await errorOf(r.resolve(spec('multi'), pullSecret, 's390x'))).toBe(
      `release ${proxy.host}/ocp/release@${digests.multi}: it has no linux/s390x image (the NodePool's architecture); a multi-arch release payload is needed`,
    );
  });

  it.each(['amd64', 'arm64', 'ppc64le', 's390x'])('%s: each OS stream gives its tag, and the MCO image of that architecture', async (arch) => {
    const r = new ReleaseResolver();
    const i = ['amd64', 'arm64', 'ppc64le', 's390x'].indexOf(arch) + 1;
    const nine = await r.resolve(spec('streams'), pullSecret, { arch });
    const ten = await r.resolve(spec('streams'), pullSecret, { arch, osStream: 'rhel-10' });
    expect(await r.resolve(spec('streams'), pullSecret, { arch, osStream: 'rhel-9' })).toEqual(nine);
    expect(nine).toMatchObject({ arch, baseOSTag: 'rhel-coreos', baseOSImage: `quay.io/x/rhcos9-${arch}@${D(String(i))}`, baseOSExtensionsImage: `quay.io/x/rhcos9ext-${arch}@${D(String(i))}`, machineConfigOperatorImage: `quay.io/x/mco-${arch}@${D(String(i))}`, releaseDigest: digests.streams });
    expect(ten).toMatchObject({ arch, baseOSTag: 'rhel-coreos-10', baseOSImage: `quay.io/x/rhcos10-${arch}@${D(String(i))}`, baseOSExtensionsImage: `quay.io/x/rhcos10ext-${arch}@${D(String(i))}`, machineConfigOperatorImage: `quay.io/x/mco-${arch}@${D(String(i))}` });
  });

  it('a stream whose tag the release lacks, a single-arch release for another architecture, unknown values: clear errors', async () => {
    const r = new ReleaseResolver();
    const rel = `release ${proxy.host}/ocp/release@${digests.r1}`;
    expect(await errorOf(r.resolve(spec('4.20.1'), pullSecret, { osStream: 'rhel-10' }))).toBe(`${rel}: image-references has no tag "rhel-coreos-10" for OS stream rhel-10 (linux/amd64)`);
    expect(await errorOf(r.resolve(spec('4.20.1'), pullSecret, { arch: 'arm64' }))).toBe(`${rel}: it is a linux/amd64 release, the NodePool's architecture is arm64; a multi-arch release payload is needed`);
    expect(await errorOf(r.resolve(spec('4.20.1'), pullSecret, { arch: 'x86_64' }))).toBe(`release ${spec('4.20.1')}: architecture "x86_64" is not one of amd64, arm64, ppc64le, s390x`);
    expect(await errorOf(r.resolve(spec('4.20.1'), pullSecret, { osStream: 'rhel-11' }))).toBe(`release ${spec('4.20.1')}: OS stream "rhel-11" is not one of rhel-9, rhel-10`);
  });

  it('a release before 4.13 uses rhel-coreos-8', async () => {
    const r = await new ReleaseResolver().resolve(spec('legacy'), pullSecret);
    expect(r.baseOSImage).toBe(`quay.io/x/rhcos8@${D('8')}`);
    expect(r.baseOSExtensionsImage).toBe(`quay.io/x/rhcos8ext@${D('9')}`);
  });

  it('another base OS tag can be asked for, and its absence is named', async () => {
    const r = new ReleaseResolver({ baseOSTag: 'rhel-coreos-10' });
    expect(await errorOf(r.resolve(spec('4.20.1'), pullSecret))).toBe(`release ${proxy.host}/ocp/release@${digests.r1}: image-references has no tag "rhel-coreos-10"`);
  });

  it.each([
    ['nofile', 'the image has no file release-manifests/image-references; is it a release payload?'],
    ['whiteout', 'the image has no file release-manifests/image-references; is it a release payload?'],
    ['notag', 'image-references has no tag "rhel-coreos"'],
    ['badjson', 'image-references is not valid JSON'],
    ['badshape', 'tag "rhel-coreos" has no from.name'],
    ['notis', 'image-references apiVersion is "v1", expected "image.openshift.io/v1"'],
  ])('%s: a clear error naming the release', async (tag, message) => {
    const msg = await errorOf(new ReleaseResolver().resolve(spec(tag), pullSecret));
    expect(msg.startsWith(`release ${proxy.host}/ocp/release@${digests[tag]}: ${message}`)).toBe(true);
  });

  it('a located error for bad shapes names the file and field', async () => {
    try {
      await new ReleaseResolver().resolve(spec('badshape'), pullSecret);
      throw new Error('expected an error');
    } catch (e) {
      expect((e as UserError).describe()).toBe(`release-manifests/image-references spec.tags[0].from.name: release ${proxy.host}/ocp/release@${digests.badshape}: tag "rhel-coreos" has no from.name`);
    }
  });

  it('wrong or missing credentials: an error naming the release, never the password', async () => {
    const wrong = JSON.stringify({ auths: { [proxy.host]: { username: reg.user, password: 'wrong-password-xyz' } } });
    const msg = await errorOf(new ReleaseResolver().resolve(spec('4.20.1'), wrong));
    expect(msg).toMatch(new RegExp(`^release ${proxy.host}/ocp/release:4.20.1: .*unauthorized \\(HTTP 401\\)`));
    expect(msg).not.toContain('wrong-password-xyz');
    expect(await errorOf(new ReleaseResolver().resolve(spec('4.20.1')))).toMatch(/^release .*: .*authentication required/);
  });

  it('a layer budget too small for the release is refused cleanly', async () => {
    const msg = await errorOf(new ReleaseResolver({ maxBytes: 200 }).resolve(spec(digests.r1), pullSecret));
    expect(msg).toBe(`release ${proxy.host}/ocp/release@${digests.r1}: reading its layers needs more than 200 bytes`);
  });

  it('a pullspec that is not a reference, or a bad pull secret, fails before any request', async () => {
    const before = proxy.log.length;
    expect(await errorOf(new ReleaseResolver().resolve('Not A Reference', pullSecret))).toMatch(/^release "Not A Reference" is not an image reference/);
    expect(await errorOf(new ReleaseResolver().resolve(spec('4.20.1'), '{"auths": '))).toBe('docker config is not valid JSON');
    expect(proxy.log.length).toBe(before);
  });
});

describe('.dockerconfigjson credentials', () => {
  const where = { file: 'Secret clusters-hc1/pull-secret', path: 'data[.dockerconfigjson]' };
  const basic = (u: string, p: string) => ({ auth: Buffer.from(`${u}:${p}`).toString('base64') });

  it('matches the repository, then its namespaces, then the host; URL keys and Docker Hub aliases are hosts', () => {
    const cfg = parseDockerConfigJson(
      JSON.stringify({
        auths: {
          'quay.io': basic('host', 'h'),
          'quay.io/openshift-release-dev': basic('ns', 'n'),
          'quay.io/openshift-release-dev/ocp-release': basic('repo', 'r'),
          'https://registry.example.com/v1/': basic('url', 'u'),
          'docker.io': { username: 'hub', password: 'd' },
        },
      }),
      where,
    );
    expect(credentialFor(cfg, 'quay.io', 'openshift-release-dev/ocp-release')?.username).toBe('repo');
    expect(credentialFor(cfg, 'quay.io', 'openshift-release-dev/ocp-v4.0-art-dev')?.username).toBe('ns');
    expect(credentialFor(cfg, 'quay.io', 'other/image')?.username).toBe('host');
    expect(credentialFor(cfg, 'registry.example.com', 'a/b')?.username).toBe('url');
    expect(credentialFor(cfg, 'index.docker.io', 'library/busybox')).toEqual({ username: 'hub', password: 'd' });
    // No substring matching: credentials for one host never go to another.
    expect(credentialFor(cfg, 'quay.io.evil.example', 'x/y')).toBeUndefined();
    expect(credentialFor(cfg, 'registry.redhat.io', 'rhel9/x')).toBeUndefined();
  });

  it('errors name the Secret and the entry, never a value', async () => {
    const secret = 'c2VjcmV0LW5vLWNvbG9u'; // base64 of "secret-no-colon"
    const look = dockerConfigCredentials(JSON.stringify({ auths: { 'quay.io': { auth: secret } } }), where);
    let msg = '';
    try {
      await look('quay.io', 'a/b');
    } catch (e) {
      msg = (e as UserError).describe();
    }
    expect(msg).toBe('Secret clusters-hc1/pull-secret data[.dockerconfigjson].auths["quay.io"]: credentials entry "auth" is not base64 of user:password');
    expect(msg).not.toContain(secret);
    const bad = (text: string) => {
      try {
        parseDockerConfigJson(text, where);
      } catch (e) {
        return (e as UserError).describe();
      }
      return '';
    };
    expect(bad('{"auths": {"quay.io": {"auth": "hunter2"')).toBe('Secret clusters-hc1/pull-secret data[.dockerconfigjson]: docker config is not valid JSON');
    expect(bad('{"auths": []}')).toBe('Secret clusters-hc1/pull-secret data[.dockerconfigjson].auths: docker config "auths" is not an object');
    expect(bad('{"auths": {"quay.io": {"password": 5}}}')).toBe('Secret clusters-hc1/pull-secret data[.dockerconfigjson].auths["quay.io"]: docker config entry field "password" is not a string');
  });
});
