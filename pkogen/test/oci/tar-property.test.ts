import fc from 'fast-check';
import { UserError } from '../../src/core/errors.js';
import { readTar, writeTar } from '../../src/oci/tar.js';

const segment = fc.stringMatching(/^[A-Za-z0-9_.\-äß€]{1,40}$/).filter((s) => s !== '.' && s !== '..');
const name = fc.array(segment, { minLength: 1, maxLength: 8 }).map((a) => a.join('/'));

describe('tar properties (fixed seed)', () => {
  it('readTar(writeTar(x)) gives back every name and byte, for long and non-ASCII names', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(name, fc.uint8Array({ maxLength: 1500 })), { selector: (t) => t[0], maxLength: 12 }), (entries) => {
        // A file cannot also be a directory prefix of another entry in a real tree; tar does not care.
        const back = readTar(writeTar(entries.map(([n, d]) => ({ name: n, type: 'file' as const, data: d }))));
        expect(back.map((e) => e.name)).toEqual(entries.map(([n]) => n));
        back.forEach((e, i) => expect(Buffer.from(e.data).equals(Buffer.from(entries[i][1]))).toBe(true));
      }),
      { seed: 20261122, numRuns: 300 },
    );
  });

  it('arbitrary or damaged bytes give entries or a UserError, never another exception', () => {
    const valid = writeTar([
      { name: 'package/manifest.yaml', type: 'file', data: new TextEncoder().encode('x'.repeat(700)) },
      { name: `package/${'l'.repeat(200)}`, type: 'file', data: new Uint8Array(3) },
    ]);
    fc.assert(
      fc.property(fc.oneof(fc.uint8Array({ maxLength: 3000 }), fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
        const b = valid.slice();
        b[i] ^= x;
        return b;
      })), (bytes) => {
        try {
          const entries = readTar(bytes);
          for (const e of entries) expect(e.name.split('/')).not.toContain('..');
        } catch (e) {
          expect(e).toBeInstanceOf(UserError);
        }
      }),
      { seed: 20261122, numRuns: 400 },
    );
  });
});
