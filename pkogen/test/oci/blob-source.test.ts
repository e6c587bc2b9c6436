/**
 * Layers left on disk (imageFileSource, Blob.chunks): the bytes stream in order, the file is
 * checked again at every read (it may have changed since the layout was opened), and an unverified
 * blob's last slice only comes after its digest matched.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { imageFileSource } from '../../src/oci/image-file.js';
import { Blob } from '../../src/oci/image.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'pkogen-blob-source-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const bytesOf = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + (i >> 8)) & 0xff);
const sha = (b: Uint8Array) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
async function collect(it: AsyncIterable<Uint8Array>): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const c of it) out.push(c);
  return out;
}

test('streams exactly the file, in slices of the given size, every time it is read', async () => {
  const data = bytesOf(10_000);
  const file = path.join(dir, 'layer');
  writeFileSync(file, data);
  const src = (await imageFileSource(file, { max: 1 << 20, expectSize: data.length }, 4096))!;
  expect(src.size).toBe(10_000);
  for (let i = 0; i < 2; i++) {
    const parts = await collect(src.read());
    expect(parts.map((p) => p.length)).toEqual([4096, 4096, 1808]);
    expect(Buffer.concat(parts).equals(Buffer.from(data))).toBe(true);
  }
  expect(Buffer.from(src.readAllSync()).equals(Buffer.from(data))).toBe(true);
});

test('checks on open: missing (undefined), wrong size, too large, a symlink, a directory', async () => {
  const file = path.join(dir, 'layer');
  expect(await imageFileSource(file, { max: 100, expectSize: 10 })).toBeUndefined();
  writeFileSync(file, bytesOf(10));
  await expect(imageFileSource(file, { max: 100, expectSize: 11, field: 'layers[0].size', fieldFile: 'manifest' })).rejects.toThrow('invalid image: manifest: layers[0].size: ' + `${file} has 10 bytes, the descriptor says 11`);
  await expect(imageFileSource(file, { max: 5, expectSize: 10 })).rejects.toThrow(/more than the 5 allowed/);
  symlinkSync(file, path.join(dir, 'link'));
  await expect(imageFileSource(path.join(dir, 'link'), { max: 100, expectSize: 10 })).rejects.toThrow(/is a symbolic link/);
  await expect(imageFileSource(dir, { max: 100, expectSize: 10 })).rejects.toThrow(/is a directory/);
});

test('checks again at every read: a file that shrank, grew, was replaced by a symlink or removed', async () => {
  const file = path.join(dir, 'layer');
  const data = bytesOf(10_000);
  writeFileSync(file, data);
  const src = (await imageFileSource(file, { max: 1 << 20, expectSize: data.length }, 4096))!;
  // Shrinks between two slices: the read in progress fails (at the slice read ahead, or the next).
  const it = src.read()[Symbol.asyncIterator]();
  expect((await it.next()).value).toHaveLength(4096);
  truncateSync(file, 5000);
  // Waiting at `yield` while the read ahead fails is no unhandled rejection.
  await new Promise((r) => setTimeout(r, 50));
  const rest = async () => {
    while (!(await it.next()).done);
  };
  await expect(rest()).rejects.toThrow(/shrank while being read \((5000|8192) of 10000 bytes\)/);
  // Another size when the next read starts.
  await expect(collect(src.read())).rejects.toThrow(/has 5000 bytes, the descriptor says 10000/);
  expect(() => src.readAllSync()).toThrow(/has 5000 bytes, the descriptor says 10000/);
  unlinkSync(file);
  symlinkSync(path.join(dir, 'elsewhere'), file);
  writeFileSync(path.join(dir, 'elsewhere'), data);
  await expect(collect(src.read())).rejects.toThrow(/is a symbolic link/);
  expect(() => src.readAllSync()).toThrow(/is a symbolic link/);
  unlinkSync(file);
  await expect(collect(src.read())).rejects.toThrow(/was removed while the image was in use/);
  expect(() => src.readAllSync()).toThrow(/was removed while the image was in use/);
});

test('an unverified blob holds back its last slice until the digest matched; a match verifies it', async () => {
  const data = bytesOf(10_000);
  const file = path.join(dir, 'layer');
  writeFileSync(file, data);
  const src = (await imageFileSource(file, { max: 1 << 20, expectSize: data.length }, 4096))!;

  const wrong = Blob.unverified('application/x', src, sha(bytesOf(9_999)), 'invalid image: layer');
  const seen: number[] = [];
  await expect(
    (async () => {
      for await (const c of wrong.chunks()) seen.push(c.length);
    })(),
  ).rejects.toThrow(`invalid image: layer: digest mismatch: expected ${sha(bytesOf(9_999))}, got ${sha(data)}`);
  expect(seen).toEqual([4096, 4096]); // never the last one
  expect(wrong.verified).toBe(false);

  const right = Blob.unverified('application/x', src, sha(data), 'invalid image: layer');
  expect(right.size).toBe(10_000);
  expect(Buffer.concat(await collect(right.chunks())).equals(Buffer.from(data))).toBe(true);
  expect(right.verified).toBe(true);
  expect(right.digest).toBe(sha(data));
  // The whole bytes, read on first use.
  expect(Buffer.from(right.bytes).equals(Buffer.from(data))).toBe(true);
});

test('an in-memory blob gives the same chunks interface; verify() agrees with chunks()', async () => {
  const data = bytesOf(9 << 20);
  const ok = Blob.unverified('application/x', data, sha(data), 'blob');
  await ok.verify();
  expect(ok.verified).toBe(true);
  expect(Buffer.concat(await collect(ok.chunks())).equals(Buffer.from(data))).toBe(true);
  const bad = Blob.unverified('application/x', data, sha(new Uint8Array(1)), 'blob');
  await expect(bad.verify()).rejects.toThrow(/^blob: digest mismatch/);
  const empty = new Blob('application/x', new Uint8Array(0));
  expect(await collect(empty.chunks())).toEqual([]);
});
