import { execFileSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileMap, sortedPaths, toText } from '../../src/core/filemap.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { dockerArchiveBytes, openDockerArchive, writeDockerArchive } from '../../src/oci/docker-archive.js';
import { gzipDeterministic } from '../../src/oci/gzip.js';
import { Blob, Image } from '../../src/oci/image.js';
import { openOciLayout, writeOciLayout } from '../../src/oci/layout.js';
import { MediaType } from '../../src/oci/media-types.js';
import { buildPackageImage, packageFilesFromImage, packageLayerTar } from '../../src/pko/package-image.js';
import { readTar, writeTar } from '../../src/oci/tar.js';

const SHARED = path.resolve(process.cwd(), '../../shared/reference/pko-packages');
let tmp: string;
beforeAll(() => (tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-tar-'))));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const te = new TextEncoder();

describe('tar writer', () => {
  it('writes what GNU tar reads: sorted regular files and dirs, owner 0:0, mode 0644/0755, mtime epoch', () => {
    const files = fileMap({ 'manifest.yaml': 'a: 1\n', 'deploy/x.yaml': 'b: 2\n', 'a-b/c.yaml': 'c\n' });
    const file = path.join(tmp, 'layer.tar');
    writeFileSync(file, packageLayerTar(files));
    const listing = execFileSync('tar', ['--numeric-owner', '--full-time', '-tvf', file], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
    const rows = listing.trim().split('\n').map((l) => l.split(/\s+/));
    expect(rows.map((r) => r[5])).toEqual(['package/', 'package/a-b/', 'package/a-b/c.yaml', 'package/deploy/', 'package/deploy/x.yaml', 'package/manifest.yaml']);
    for (const r of rows) {
      expect(r[1]).toBe('0/0');
      expect(`${r[3]} ${r[4]}`).toBe('1970-01-01 00:00:00');
      expect(r[0]).toBe(r[5].endsWith('/') ? 'drwxr-xr-x' : '-rw-r--r--');
    }
  });

  it('round-trips long names (USTAR prefix and PAX) through GNU tar and our reader', () => {
    const long = `${'d'.repeat(120)}/${'f'.repeat(90)}.yaml`; // prefix split
    const veryLong = `${'x'.repeat(300)}.yaml`; // needs PAX
    const bytes = writeTar([
      { name: long, type: 'file', data: te.encode('one') },
      { name: veryLong, type: 'file', data: te.encode('two') },
    ]);
    const file = path.join(tmp, 'long.tar');
    writeFileSync(file, bytes);
    expect(execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n')).toEqual([long, veryLong]);
    const back = readTar(bytes);
    expect(back.map((e) => [e.name, toText(e.data)])).toEqual([
      [long, 'one'],
      [veryLong, 'two'],
    ]);
  });

  it('reads GNU long names, PAX and ustar archives made by GNU tar', () => {
    const src = path.join(tmp, 'src');
    const name = `${'n'.repeat(150)}.yaml`;
    mkdirSync(path.join(src, 'package/sub'), { recursive: true });
    writeFileSync(path.join(src, 'package/sub', name), 'long');
    writeFileSync(path.join(src, 'package/m.yaml'), 'm');
    symlinkSync('m.yaml', path.join(src, 'package/link.yaml'));
    for (const format of ['gnu', 'pax', 'ustar']) {
      const out = path.join(tmp, `${format}.tar`);
      const args = ['-C', src, `--format=${format}`, '-cf', out, 'package'];
      if (format === 'ustar') {
        // ustar cannot hold the 150-byte base name: archive the rest only.
        args.splice(args.length - 1, 1, 'package/m.yaml', 'package/link.yaml');
      }
      execFileSync('tar', args);
      const entries = readTar(new Uint8Array(readFileSync(out)));
      const files = entries.filter((e) => e.type === 'file').map((e) => [e.name, toText(e.data)]);
      expect(files).toEqual(expect.arrayContaining([['package/m.yaml', 'm']]));
      if (format !== 'ustar') expect(files).toEqual(expect.arrayContaining([[`package/sub/${name}`, 'long']]));
      expect(entries.find((e) => e.name === 'package/link.yaml')).toMatchObject({ type: 'symlink', linkname: 'm.yaml' });
    }
  });

  it('drops entries that escape the root and keeps cleaned names', () => {
    // Hand-made headers: our writer refuses such names, so build with GNU tar's --transform... or
    // simpler, patch a header we wrote.
    const bytes = writeTar([
      { name: 'AAAAAAAAAAAAAAAA', type: 'file', data: te.encode('evil') },
      { name: 'BBBBBBBBBBBBBBBB', type: 'file', data: te.encode('abs') },
      { name: 'CCCCCCCCCCCCCCCC', type: 'file', data: te.encode('climb') },
      { name: 'DDDDDDDDDDDDDDDD', type: 'file', data: te.encode('ok') },
    ]);
    const rename = (from: string, to: string) => {
      const i = Buffer.from(bytes).indexOf(from);
      const h = i - (i % 512);
      bytes.fill(0, h, h + 100);
      bytes.set(te.encode(to), h);
      bytes.fill(0x20, h + 148, h + 156);
      let sum = 0;
      for (let k = h; k < h + 512; k++) sum += bytes[k];
      bytes.set(te.encode(sum.toString(8).padStart(6, '0') + '\0 '), h + 148);
    };
    rename('AAAAAAAAAAAAAAAA', '../evil.yaml');
    rename('BBBBBBBBBBBBBBBB', '/package/abs.yaml');
    rename('CCCCCCCCCCCCCCCC', 'package/../../climb.yaml');
    rename('DDDDDDDDDDDDDDDD', './package/./x/../ok.yaml');
    expect(readTar(bytes).map((e) => e.name)).toEqual(['package/abs.yaml', 'package/ok.yaml']);
  });

  it('refuses corrupt and truncated archives with a clear error', () => {
    const bytes = writeTar([{ name: 'a', type: 'file', data: te.encode('x'.repeat(1000)) }]);
    const bad = bytes.slice();
    bad[10] ^= 0xff;
    expect(() => readTar(bad)).toThrow(/bad header checksum/);
    expect(() => readTar(bytes.slice(0, 700))).toThrow(/truncated/);
    expect(() => readTar(writeTar([{ name: 'a', type: 'file' }, { name: 'b', type: 'file' }]), { maxEntries: 1 })).toThrow(/more than 1 entries/);
  });
});

describe('gzip', () => {
  it('has mtime 0, OS byte 255, the default level\'s flags and is valid gzip', () => {
    const gz = gzipDeterministic(te.encode('hello\n'.repeat(100)));
    // XFL 0: neither fastest (4) nor best (2) compression, i.e. level 6
    expect([...gz.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
    const f = path.join(tmp, 'x.gz');
    writeFileSync(f, gz);
    expect(execFileSync('gzip', ['-dc', f], { encoding: 'utf8' })).toBe('hello\n'.repeat(100));
  });
});

function copyPackage(from: string, to: string, mtime: Date, fileMode: number): void {
  cpSync(from, to, { recursive: true });
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        chmodSync(p, 0o755);
        walk(p);
      } else if (e.isFile()) chmodSync(p, fileMode);
      if (!e.isSymbolicLink()) utimesSync(p, mtime, mtime);
    }
  };
  walk(to);
}

describe('package image', () => {
  it('ships every package file under package/ and no dot-files or symlinks', async () => {
    const dir = path.join(tmp, 'pkg-content');
    copyPackage(path.join(SHARED, 'integration-valid-with_config'), dir, new Date(), 0o644);
    symlinkSync('manifest.yaml', path.join(dir, 'link.yaml'));
    const files = await readDirToFileMap(dir);
    const image = buildPackageImage(files, { labels: { b: '2', a: '1' } });
    const back = packageFilesFromImage(image);
    expect(sortedPaths(back.files)).toEqual(['README.md', 'deployment.yaml.gotmpl', 'manifest.lock.yaml', 'manifest.yaml', 'namespace.template.yaml.gotmpl']);
    for (const p of sortedPaths(files)) expect(toText(back.files.get(p)!)).toBe(toText(files.get(p)!));
    expect(back.labels).toEqual({ a: '1', b: '2' });
    const cfg = image.configFile();
    expect(cfg).toMatchObject({ architecture: 'amd64', os: 'linux', rootfs: { type: 'layers' } });
    expect(JSON.parse(toText(image.manifest))).toMatchObject({ mediaType: MediaType.OciManifest, layers: [{ mediaType: MediaType.OciLayerGzip }] });
    // A FileMap with dot paths from elsewhere is filtered too.
    const withDots = buildPackageImage(fileMap({ 'manifest.yaml': 'x', '.test-fixtures/a.yaml': 'y', 'sub/.hidden': 'z' }));
    expect(sortedPaths(packageFilesFromImage(withDots).files)).toEqual(['manifest.yaml']);
  });

  it('gives the same digest for copies with different mtimes and modes', async () => {
    const a = path.join(tmp, 'copy-a');
    const b = path.join(tmp, 'copy-b');
    copyPackage(path.join(SHARED, 'test-stub'), a, new Date('2001-02-03T04:05:06Z'), 0o600);
    copyPackage(path.join(SHARED, 'test-stub'), b, new Date('2033-12-31T23:59:59Z'), 0o755);
    const da = buildPackageImage(await readDirToFileMap(a));
    const db = buildPackageImage(await readDirToFileMap(b));
    expect(da.digest).toBe(db.digest);
    expect(da.layers[0].digest).toBe(db.layers[0].digest);
  });

  it('reads layers like PKO: later layers override, only package/, dot segments skipped', () => {
    const layer = (entries: [string, string][]) =>
      new Blob(MediaType.OciLayerGzip, gzipDeterministic(writeTar(entries.map(([name, d]) => ({ name, type: 'file' as const, data: te.encode(d) })))));
    const l1 = layer([
      ['package/manifest.yaml', 'old'],
      ['package/a.yaml', 'a'],
      ['etc/passwd', 'x'],
    ]);
    const l2 = layer([
      ['package/manifest.yaml', 'new'],
      ['package/.test-fixtures/x.yaml', 'f'],
      ['package/sub/.wh.a.yaml', ''],
    ]);
    const config = new Blob(MediaType.OciConfig, te.encode(JSON.stringify({ architecture: 'amd64', os: 'linux', config: { Labels: { k: 'v' } }, rootfs: { type: 'layers', diff_ids: [] } })));
    const image = Image.fromBlobs(config, [l1, l2]);
    const { files, labels } = packageFilesFromImage(image);
    expect([...files.entries()].map(([k, v]) => [k, toText(v)])).toEqual([
      ['a.yaml', 'a'],
      ['manifest.yaml', 'new'],
    ]);
    expect(labels).toEqual({ k: 'v' });
  });
});

describe('sinks and sources', () => {
  const image = buildPackageImage(fileMap({ 'manifest.yaml': 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\n', 'x/y.yaml': 'y' }), { labels: { l: 'v' } });

  it('OCI layout: writes and reads back the same image and digest', async () => {
    const dir = path.join(tmp, 'layout');
    await writeOciLayout(dir, image, ['v1', 'latest']);
    const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
    expect(index.manifests.map((m: { annotations: Record<string, string> }) => m.annotations['org.opencontainers.image.ref.name'])).toEqual(['v1', 'latest']);
    const back = await openOciLayout(dir, 'v1');
    expect(back.digest).toBe(image.digest);
    expect(sortedPaths(packageFilesFromImage(back).files)).toEqual(['manifest.yaml', 'x/y.yaml']);
    await expect(openOciLayout(dir, 'nope')).rejects.toThrow(/no image named "nope"/);
    // A corrupted blob is caught by its size before it is read, or by its digest after.
    const layer0 = JSON.parse(toText(image.manifest)).layers[0];
    const blob = path.join(dir, 'blobs/sha256', layer0.digest.slice(7));
    writeFileSync(blob, Buffer.alloc(layer0.size, 'x'));
    await expect(openOciLayout(dir, 'v1')).rejects.toThrow(/digest mismatch/);
    writeFileSync(blob, 'garbage');
    await expect(openOciLayout(dir, 'v1')).rejects.toThrow(/: layers\[0\]\.size: .* has 7 bytes, the descriptor says \d+$/);
  });

  it('docker-archive: same bytes every time, readable back, GNU tar can list it', async () => {
    expect(Buffer.from(dockerArchiveBytes(image, ['localhost/p:1']))).toEqual(Buffer.from(dockerArchiveBytes(image, ['localhost/p:1'])));
    const file = path.join(tmp, 'img.tar');
    await writeDockerArchive(file, image, ['127.0.0.1:5000/p:1']);
    const names = execFileSync('tar', ['-tf', file], { encoding: 'utf8' }).trim().split('\n');
    expect(names).toContain('manifest.json');
    const back = await openDockerArchive(file);
    expect(back.config.digest).toBe(image.config.digest);
    expect(back.layers.map((l) => l.digest)).toEqual(image.layers.map((l) => l.digest));
    expect(packageFilesFromImage(back).labels).toEqual({ l: 'v' });
    await expect(openDockerArchive(file, 'other:1')).rejects.toThrow(/no image tagged other:1/);
  });
});

describe('safety of outputs', () => {
  it('refuses to replace a non-empty directory that is not an OCI layout', async () => {
    const dir = path.join(tmp, 'precious');
    mkdirSync(dir);
    writeFileSync(path.join(dir, 'keep.txt'), 'keep');
    const image = buildPackageImage(fileMap({ 'manifest.yaml': 'x' }));
    await expect(writeOciLayout(dir, image, [])).rejects.toThrow(/non-empty directory that is not an OCI layout/);
    expect(readFileSync(path.join(dir, 'keep.txt'), 'utf8')).toBe('keep');
    await writeOciLayout(path.join(tmp, 'fresh-layout'), image, []);
    await writeOciLayout(path.join(tmp, 'fresh-layout'), image, ['again']);
    expect((await openOciLayout(path.join(tmp, 'fresh-layout'), 'again')).digest).toBe(image.digest);
  });
});
