/** The streaming tar scanner: any chunking, the header forms src/oci/tar.ts writes and reads, whiteouts, caps. */
import { UserError } from '../../pkogen/src/core/errors.js';
import { writeTar } from '../../pkogen/src/oci/tar.js';
import { TarFind } from '../../builder/registry/tar-find.js';

const enc = new TextEncoder();
const NAME = 'release-manifests/image-references';
const opts = { name: NAME, maxFileBytes: 1 << 20, what: 'layer L' };

function feed(t: TarFind, bytes: Uint8Array, step: number): void {
  for (let i = 0; i < bytes.length && !t.finished; i += step) t.write(bytes.subarray(i, i + step));
}

describe('TarFind', () => {
  const doc = enc.encode('{"kind":"ImageStream"}');
  const tar = writeTar([
    { name: 'usr', type: 'dir' },
    { name: 'usr/bin/x', type: 'file', data: new Uint8Array(1500).fill(1) },
    { name: './release-manifests/other', type: 'file', data: enc.encode('o') },
    { name: NAME, type: 'file', data: doc },
    { name: 'after', type: 'file', data: new Uint8Array(4000) },
  ]);

  it.each([1, 7, 511, 512, 513, 100_000])('finds the file fed in chunks of %i bytes, and stops there', (step) => {
    const t = new TarFind(opts);
    feed(t, tar, step);
    expect(t.finished).toBe(true);
    expect(new TextDecoder().decode(t.found)).toBe('{"kind":"ImageStream"}');
    expect(t.ended).toBe(false);
  });

  it('a name too long for ustar (a PAX path record) is found', () => {
    const long = `${'d'.repeat(120)}/${'e'.repeat(60)}/image-references`;
    const t = new TarFind({ ...opts, name: long });
    feed(t, writeTar([{ name: long, type: 'file', data: doc }]), 3);
    expect(t.found?.length).toBe(doc.length);
  });

  it('reports the end of an archive without the file, and whiteouts of it or of its directory', () => {
    for (const wh of ['release-manifests/.wh.image-references', 'release-manifests/.wh..wh..opq', '.wh.release-manifests']) {
      const t = new TarFind(opts);
      feed(t, writeTar([{ name: wh, type: 'file', data: new Uint8Array(0) }]), 64);
      expect([t.found, t.hidden, t.ended]).toEqual([undefined, true, true]);
    }
    const t = new TarFind(opts);
    feed(t, writeTar([{ name: 'x', type: 'file', data: doc }]), 64);
    expect([t.found, t.hidden, t.ended]).toEqual([undefined, false, true]);
  });

  it('a directory or link with the name is not the file', () => {
    const t = new TarFind(opts);
    feed(t, writeTar([{ name: NAME, type: 'dir' }]), 512);
    expect(t.found).toBeUndefined();
  });

  it('refuses an oversized file from its header, a bad checksum, an oversized PAX header', () => {
    const big = writeTar([{ name: NAME, type: 'file', data: new Uint8Array(5000) }]);
    expect(() => feed(new TarFind({ ...opts, maxFileBytes: 4096 }), big, 512)).toThrow(new UserError(`layer L: ${NAME} is 5000 bytes, more than the 4096 allowed`));
    const bad = tar.slice();
    bad[0] ^= 1;
    expect(() => feed(new TarFind(opts), bad, 512)).toThrow('layer L: bad tar header checksum');
    const long = 'p/'.repeat(600) + 'image-references';
    expect(() => feed(new TarFind({ ...opts, maxMetaBytes: 256 }), writeTar([{ name: long, type: 'file', data: doc }]), 512)).toThrow('layer L: tar extended header larger than 256 bytes');
  });
});
