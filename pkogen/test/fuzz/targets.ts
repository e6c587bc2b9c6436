/**
 * The fuzz targets: each takes one input (bytes) and feeds it to one reader the way a command
 * does. A target returns normally (input accepted) or throws; the worker classifies the throw.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { toText, type FileMap } from '../../src/core/filemap.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { jsonRoundTrip } from '../../src/core/json.js';
import { parseYamlSafe } from '../../src/pko/safe-yaml.js';
import { parseYaml11 } from '../../src/yaml/parse.js';
import { renderPackage } from '../../src/pko/render.js';
import { toUserError } from '../../src/pko/render-errors.js';
import type { PackageManifest } from '../../src/pko/types.js';
import { gunzipBounded, gzipDeterministic, isGzip } from '../../src/oci/gzip.js';
import { readTar, writeTar } from '../../src/oci/tar.js';
import { buildPackageImage, packageFilesFromImage } from '../../src/pko/package-image.js';
import { ociLayoutFiles, openOciLayout } from '../../src/oci/layout.js';
import { dockerArchiveBytes, openDockerArchive } from '../../src/oci/docker-archive.js';
import { pullImage } from '../../src/oci/sources.js';
import { lintRolloutTemplate } from '../../src/rollout/lint.js';
import { renderObjectTemplateText } from '../../src/rollout/pko-render.js';

export interface Target {
  name: string;
  /** Valid inputs to mutate from (and run as they are first). */
  seeds: Uint8Array[];
  /** Tokens of the input's own syntax, inserted by the mutator. */
  dict: string[];
  run(input: Uint8Array): Promise<void> | void;
  close?(): Promise<void> | void;
}

const enc = new TextEncoder();
const sha256 = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

/** The project root: the harness runs from dist/test/fuzz or (jest) from test/fuzz. */
export function projectRoot(): string {
  let d = path.dirname(new URL(import.meta.url).pathname);
  while (!existsSync(path.join(d, 'package.json'))) d = path.dirname(d);
  return d;
}

async function ourPackage(): Promise<FileMap> {
  return readDirToFileMap(path.join(projectRoot(), '..', 'package'), { skipDotFiles: true });
}

const YAML_DICT = ['&a ', '*a', '<<: *a\n', 'a: &a [*a]\n', '- ', ': ', '? ', '!!binary ', '!!str ', '!!int ', '!!merge ', '|\n', '>-\n', '---\n', '...\n', '%YAML 1.1\n', '{', '}', '[', ']', ',', '"', "'", '#', '0x1F', '0o17', '1_000', '.inf', 'yes', 'on', '~', '  ', '\t'];

function yamlSeeds(pkg: FileMap): Uint8Array[] {
  return [...pkg.entries()].filter(([p]) => /\.ya?ml$/.test(p)).map(([, b]) => b).slice(0, 12);
}

/** Package files and `--config` both (the package path through the bounded reader). */
function yamlTarget(pkg: FileMap): Target {
  return { name: 'yaml', seeds: yamlSeeds(pkg), dict: YAML_DICT, run: (b) => void parseYamlSafe(toText(b)) };
}

/** What `render --config` / `tree --config` / `--environment` read with. */
function yamlConfigTarget(): Target {
  const seeds = ['machineOSBuilderImage: quay.io/x@sha256:' + 'a'.repeat(64) + '\nserviceCA: |\n  -----BEGIN CERTIFICATE-----\n  abc\n  -----END CERTIFICATE-----\ncustomContainerfiles:\n  worker: "FROM x"\n', 'kubernetes:\n  version: v1.30.0\nopenShift:\n  version: 4.17.0\nproxy:\n  httpProxy: http://p:3128\n  noProxy: a,b\nhyperShift:\n  hostedCluster:\n    metadata: {name: c, namespace: ns}\n'];
  // The command copies what it read (config admission clones it): aliases are expanded there.
  return { name: 'yaml-config', seeds: seeds.map((s) => enc.encode(s)), dict: YAML_DICT, run: (b) => void jsonRoundTrip(parseYaml11(toText(b), 'config.yaml')) };
}

const TEMPLATE_MANIFEST: PackageManifest = {
  apiVersion: 'manifests.package-operator.run/v1alpha1',
  kind: 'PackageManifest',
  metadata: { name: 'fuzz' },
  spec: { scopes: ['Namespaced'], phases: [{ name: 'deploy' }], config: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } },
} as PackageManifest;

/** Go template parse + execute with PKO's functions, as `render` runs a `.gotmpl` file. */
function templateTarget(pkg: FileMap): Target {
  const seeds = [...pkg.entries()].filter(([p]) => p.endsWith('.gotmpl')).map(([, b]) => b);
  seeds.push(enc.encode('{{ range $i, $e := .config.list }}{{ $i }}={{ $e | toJson | b64enc }}{{ end }}{{ define "t" }}{{ . }}{{ end }}{{ template "t" .config.name }}{{ include "t" 1 | indent 2 }}\n'));
  seeds.push(enc.encode('{{ $d := dict "a" 1 }}{{ $d = merge $d (dict "b" (list 1 2 3)) }}{{ toYaml $d }}{{ regexMatch "^a+$" "aaa" }}{{ printf "%v %q %x" 1 "s" 255 }}{{ if and (eq 1 1) (ne "a" "b") }}x{{ else }}y{{ end }}\n'));
  const dict = ['{{', '}}', '{{-', '-}}', ' | ', '$x := ', '.config', '.config.name', '.environment', 'range ', 'end', 'if ', 'else', 'with ', 'define "t"', 'template "t"', 'include "t" .', 'toJson', 'fromYaml', 'toYaml', 'b64dec', 'b64enc', 'dict "a" ', 'list ', 'until 5', 'repeat 3 ', 'regexMatch ', 'printf "%v" ', 'index ', 'len ', 'trunc 3 ', 'indent 2 ', 'nindent 4 ', 'default ', 'required "r" ', 'fail "x"', 'cel ', '(', ')'];
  const config = { name: 'n', list: ['a', 'b', 'c'], nested: { k: [1, 2] }, machineOSBuilderImage: 'quay.io/x@sha256:' + 'a'.repeat(64), webhookImage: 'quay.io/w@sha256:' + 'b'.repeat(64), serviceCA: 'ca', finalImagePushSecretName: 's', finalImagePullspec: 'quay.io/f', customContainerfiles: { worker: 'FROM x' } };
  return {
    name: 'gotemplate',
    seeds,
    dict,
    run: (b) => {
      try {
        renderPackage({ manifest: TEMPLATE_MANIFEST, files: new Map([['cm.yaml.gotmpl', b]]), package: { metadata: { name: 'fuzz', namespace: 'ns' } }, config });
      } catch (e) {
        // The CLI's conversion: a render failure it does not know is rethrown (a crash).
        throw toUserError(e);
      }
    },
  };
}

/** Layer reading: gzip (bounded) then tar, as a package image's layer is read. */
function tarTarget(pkg: FileMap): Target {
  const tar = writeTar([...pkg.entries()].slice(0, 6).map(([p, data]) => ({ name: `package/${p}`, type: 'file' as const, data, mode: 0o644 })));
  const seeds = [tar, gzipDeterministic(tar)];
  return {
    name: 'tar-gzip',
    seeds,
    dict: ['ustar\u000000', 'ustar  \u0000', '././@LongLink', 'PaxHeader', 'path=', '../', '/etc/passwd', '\u0000'.repeat(512)],
    run: (b) => {
      const raw = isGzip(b) ? gunzipBounded(b, 16 * 1024 * 1024) : b;
      readTar(raw);
    },
  };
}

/**
 * An image's files as a list of (name, bytes): input byte 0 picks the file the rest of the input
 * replaces; byte 1 bit 0 asks for a consistent replacement (the blob stored under its new digest
 * and every reference to the old digest and size rewritten), so mutations get past the digest
 * check into the JSON shape checks.
 */
function imageFilesWith(files: FileMap, input: Uint8Array): FileMap {
  const names = [...files.keys()].sort();
  if (input.length < 2) return files;
  const name = names[input[0]! % names.length]!;
  const content = input.subarray(2);
  const out: FileMap = new Map(files);
  const consistent = (input[1]! & 1) === 1;
  const oldDigest = /^blobs\/sha256\/([0-9a-f]{64})$/.exec(name);
  const nd = sha256(content);
  if (consistent && oldDigest && nd.slice(7) !== oldDigest[1]) {
    const oldBytes = files.get(name)!;
    out.delete(name);
    out.set(`blobs/sha256/${nd.slice(7)}`, content);
    // One pass over a snapshot: the rewritten files are added to `out` as we go.
    for (const [p, b] of [...out]) {
      const t = toText(b);
      if (t.includes(oldDigest[1]!)) {
        const fixed = t.split(`sha256:${oldDigest[1]}`).join(nd).split(`"size":${oldBytes.length}`).join(`"size":${content.length}`);
        out.delete(p);
        const np = p.startsWith('blobs/sha256/') ? `blobs/sha256/${sha256(enc.encode(fixed)).slice(7)}` : p;
        out.set(np, enc.encode(fixed));
      }
    }
  } else out.set(name, content);
  return out;
}

function imageSeeds(files: FileMap): Uint8Array[] {
  return [...files.keys()].sort().flatMap((n, i) => [Uint8Array.from([i, 1, ...files.get(n)!]), Uint8Array.from([i, 0, ...files.get(n)!])]);
}

const JSON_DICT = ['null', '{}', '[]', 'true', '-1', '1e400', '"layers":null', '"manifests":{}', '"mediaType":"application/vnd.oci.image.index.v1+json"', '"size":99999999999', '"digest":"sha256:00"', '"../"', '"/dev/zero"', '\\u0000', '"Layers":[]', '"Config":"x"'];

/** `validate --oci-layout DIR`: the layout written to a temp dir, then opened and unpacked. */
function layoutTarget(pkg: FileMap, scratch: string): Target {
  const image = buildPackageImage(pkg);
  const files = ociLayoutFiles(image, ['latest']);
  let n = 0;
  return {
    name: 'oci-layout',
    seeds: imageSeeds(files),
    dict: JSON_DICT,
    run: async (input) => {
      const dir = path.join(scratch, `layout-${n++}`);
      try {
        for (const [p, b] of imageFilesWith(files, input)) {
          mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
          writeFileSync(path.join(dir, p), b);
        }
        packageFilesFromImage(await openOciLayout(dir));
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

/** `validate --archive FILE`: a docker archive rebuilt from (mutated) members, opened and unpacked. */
function archiveTarget(pkg: FileMap, scratch: string): Target {
  const image = buildPackageImage(pkg);
  const members: FileMap = new Map(readTar(dockerArchiveBytes(image, ['fuzz:latest'])).filter((e) => e.type === 'file').map((e) => [e.name, e.data]));
  let n = 0;
  return {
    name: 'docker-archive',
    seeds: imageSeeds(members),
    dict: JSON_DICT,
    run: async (input) => {
      const file = path.join(scratch, `archive-${n++}.tar`);
      try {
        const m = imageFilesWith(members, input);
        writeFileSync(file, writeTar([...m].map(([name, data]) => ({ name, type: 'file' as const, data, mode: 0o644 }))));
        packageFilesFromImage(await openDockerArchive(file));
      } finally {
        rmSync(file, { force: true });
      }
    },
  };
}

const CONTENT_TYPES = ['application/vnd.oci.image.manifest.v1+json', 'application/vnd.docker.distribution.manifest.v2+json', 'application/vnd.oci.image.index.v1+json', 'application/vnd.docker.distribution.manifest.list.v2+json', 'text/html', '', 'application/json; charset=utf-8'];

/**
 * `validate --pull`: a 127.0.0.1 registry serving the image with one file (manifest, config or
 * layer) replaced by the input; byte 1 also picks the manifest's Content-Type and whether the
 * Docker-Content-Digest header matches.
 */
async function registryTarget(pkg: FileMap): Promise<Target> {
  const image = buildPackageImage(pkg);
  const files = ociLayoutFiles(image, ['latest']);
  let current: FileMap = files;
  let flags = 0;
  const manifestName = `blobs/sha256/${image.digest.slice(7)}`;
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/v2/' || url === '/v2') return void res.writeHead(200).end('{}');
    const m = /^\/v2\/fuzz\/(manifests|blobs)\/([^/?]+)$/.exec(url);
    if (!m) return void res.writeHead(404).end();
    let name: string | undefined;
    if (m[1] === 'manifests' && m[2] === 'latest') {
      // The manifest the (possibly rewritten) index points at.
      const idx = current.get('index.json');
      const d = idx ? /"digest":"sha256:([0-9a-f]{64})"/.exec(toText(idx))?.[1] : undefined;
      name = d ? `blobs/sha256/${d}` : manifestName;
    } else if (m[2]!.startsWith('sha256:')) name = `blobs/sha256/${m[2]!.slice(7)}`;
    const body = name ? current.get(name) : undefined;
    if (!body) return void res.writeHead(404).end('{"errors":[{"code":"BLOB_UNKNOWN"}]}');
    const headers: Record<string, string | number> = { 'content-length': body.length };
    if (m[1] === 'manifests') {
      headers['content-type'] = CONTENT_TYPES[(flags >> 1) % CONTENT_TYPES.length]!;
      headers['docker-content-digest'] = (flags & 0x80) !== 0 ? 'sha256:' + '0'.repeat(64) : sha256(body);
    }
    res.writeHead(200, headers).end(req.method === 'HEAD' ? undefined : body);
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    name: 'registry',
    seeds: imageSeeds(files).filter((s) => s[0] !== [...files.keys()].sort().indexOf('oci-layout') && s[0] !== [...files.keys()].sort().indexOf('index.json')),
    dict: JSON_DICT,
    run: async (input) => {
      current = imageFilesWith(files, input);
      flags = input[1] ?? 0;
      packageFilesFromImage(await pullImage(`127.0.0.1:${port}/fuzz:latest`, { attempts: 1, backoffMs: 0 }));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** `lint-rollout`: an OpenShift Template read, processed (parameters, generate expressions) and linted. */
function rolloutTarget(): Target {
  const root = projectRoot();
  const seeds: Uint8Array[] = [readFileSync(path.join(root, '..', 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl'))];
  const refDir = path.join(root, '..', '..', 'shared', 'reference', 'rollout-templates');
  if (existsSync(refDir)) for (const f of readdirSync(refDir).filter((f) => /\.ya?ml(\.tmpl)?$/.test(f)).sort()) seeds.push(readFileSync(path.join(refDir, f)));
  seeds.push(enc.encode('apiVersion: v1\nkind: Template\nmetadata: {name: t}\nparameters:\n- name: A\n  generate: expression\n  from: "[a-z0-9]{8}"\n- name: B\n  value: b\nobjects:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: "${A}"}\n  data: {b: "${{B}}"}\n'));
  return {
    name: 'rollout',
    seeds,
    dict: ['${', '}', '${{', '${IMAGE_TAG}', 'generate: expression\n', 'from: ', '"[a-z]{8}"', '[\\w]{3}', '\\d', 'required: true\n', 'value: ', 'objects:\n', 'parameters:\n', '- name: X\n', 'kind: SelectorSyncSet\n', 'object-templates-raw: |\n', '{{hub', 'hub}}', ...YAML_DICT],
    run: (b) => {
      lintRolloutTemplate('t.yaml', toText(b), { parameters: { REGISTRY_IMG: 'quay.io/x/y', IMAGE_DIGEST: 'sha256:' + 'a'.repeat(64), IMAGE_TAG: 'abc1234' }, renderTemplate: renderObjectTemplateText });
    },
  };
}

/** Scratch directories are `<tmp>/<prefix><pid>-<random>`. */
export const SCRATCH_PREFIX = 'pkogen-fuzz-';

export const TARGET_NAMES = ['yaml', 'yaml-config', 'gotemplate', 'tar-gzip', 'oci-layout', 'docker-archive', 'registry', 'rollout'] as const;

/** Builds one target (its seeds from our own package; a scratch dir for file-based readers). */
export async function makeTarget(name: string): Promise<Target & { cleanup(): Promise<void> }> {
  const pkg = await ourPackage();
  // Named by pid: the parent removes what a killed child could not.
  const scratch = mkdtempSync(path.join(tmpdir(), `${SCRATCH_PREFIX}${process.pid}-`));
  let t: Target;
  switch (name) {
    case 'yaml': t = yamlTarget(pkg); break;
    case 'yaml-config': t = yamlConfigTarget(); break;
    case 'gotemplate': t = templateTarget(pkg); break;
    case 'tar-gzip': t = tarTarget(pkg); break;
    case 'oci-layout': t = layoutTarget(pkg, scratch); break;
    case 'docker-archive': t = archiveTarget(pkg, scratch); break;
    case 'registry': t = await registryTarget(pkg); break;
    case 'rollout': t = rolloutTarget(); break;
    default:
      rmSync(scratch, { recursive: true, force: true });
      throw new Error(`unknown fuzz target ${JSON.stringify(name)} (one of ${TARGET_NAMES.join(', ')})`);
  }
  return { ...t, cleanup: async () => { await t.close?.(); rmSync(scratch, { recursive: true, force: true }); } };
}

