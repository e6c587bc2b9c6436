/**
 * Per-image ceilings in process: a registry's manifest is sized before any blob is fetched, the
 * uncompressed layers are capped together (not only one by one), and a registry's malformed
 * manifest gets the same located `invalid image:` error as a layout's.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { UserError } from '../../src/core/errors.js';
import { fileMap } from '../../src/core/filemap.js';
import type { ClosableTransport, HttpRequest, HttpResponse } from '../../src/oci/http.js';
import { Blob, Image, parseConfig, parseIndex, parseManifestOrIndex } from '../../src/oci/image.js';
import { MediaType } from '../../src/oci/media-types.js';
import { buildPackageImage, layerTars } from '../../src/oci/package-image.js';
import { parseReference } from '../../src/oci/reference.js';
import { RegistryClient } from '../../src/oci/registry-client.js';
import { writeTar } from '../../src/oci/tar.js';
import { parseDuration } from '../../src/cli/registry-options.js';

/** A registry in memory: `/v2/` is open, manifests come from `manifests`, every request is logged. */
function fakeRegistry(manifests: Record<string, unknown>): { transport: ClosableTransport; log: string[] } {
  const log: string[] = [];
  const send = async (req: HttpRequest): Promise<HttpResponse> => {
    log.push(`${req.method} ${req.url.pathname}`);
    if (req.url.pathname === '/v2/') return { status: 200, headers: {}, body: new Uint8Array() };
    const m = /\/manifests\/(.+)$/.exec(req.url.pathname);
    if (m && manifests[m[1]] !== undefined)
      return { status: 200, headers: { 'content-type': MediaType.OciManifest }, body: new TextEncoder().encode(JSON.stringify(manifests[m[1]])) };
    return { status: 404, headers: {}, body: new Uint8Array() };
  };
  return { transport: { send, close() {} }, log };
}

const good = buildPackageImage(fileMap({ 'manifest.yaml': 'x: 1\n' }));
const goodManifest = JSON.parse(new TextDecoder().decode(good.manifest));

describe('pull from a registry', () => {
  it('a manifest whose layers add up past the image limit is refused before any blob is fetched', async () => {
    const big = 500 * 1024 * 1024;
    const layers = Array.from({ length: 6 }, (_, i) => ({ mediaType: MediaType.OciLayerGzip, digest: `sha256:${String(i).repeat(64)}`, size: big }));
    const { transport, log } = fakeRegistry({ v1: { ...goodManifest, layers } });
    const client = new RegistryClient({ transport, sleep: async () => {} });
    await expect(client.pull(parseReference('127.0.0.1:1/p/q:v1'))).rejects.toThrow(
      "invalid image: 127.0.0.1:1/p/q:v1: layers[1].size: the image's blobs (config and 6 layers) add up to more than the 536870912 bytes allowed per image",
    );
    expect(log.filter((l) => l.includes('/blobs/'))).toEqual([]);
  });

  it.each([
    ['layers: null', { ...goodManifest, layers: null }, 'layers: expected an array, got null'],
    ['config: "x"', { ...goodManifest, config: 'x' }, 'config: expected an object, got a string'],
    ['size: -1', { ...goodManifest, config: { ...goodManifest.config, size: -1 } }, 'config.size: expected a byte count, got -1'],
    ['manifests: {} in an index', { schemaVersion: 2, mediaType: MediaType.OciIndex, manifests: {} }, 'manifests: expected an array, got an object'],
  ])('a registry manifest with %s: located error, no blob fetched', async (_name, manifest, message) => {
    const { transport, log } = fakeRegistry({ v1: manifest });
    const client = new RegistryClient({ transport, sleep: async () => {} });
    await expect(client.pull(parseReference('127.0.0.1:1/p/q:v1'))).rejects.toThrow(`invalid image: 127.0.0.1:1/p/q:v1: ${message}`);
    expect(log.filter((l) => l.includes('/blobs/'))).toEqual([]);
  });
});

describe('uncompressed layers are capped per image', () => {
  const layerOf = (n: number) => new Blob(MediaType.OciLayerGzip, new Uint8Array(gzipSync(writeTar([{ name: `package/f${n}`, type: 'file', data: new Uint8Array(400 * 1024) }]))));

  it('three layers under the per-layer limit but over the image limit together are refused', () => {
    const two = Image.fromBlobs(good.config, [layerOf(1), layerOf(2)]);
    expect(layerTars(two, 512 * 1024, 1024 * 1024)).toHaveLength(2);
    const three = Image.fromBlobs(good.config, [layerOf(1), layerOf(2), layerOf(3)]);
    expect(() => layerTars(three, 512 * 1024, 1024 * 1024)).toThrow('image layers (up to layers[2]) uncompress to more than 1048576 bytes together; refusing the image');
    // Uncompressed layers count too.
    const raw = new Blob(MediaType.OciLayer, writeTar([{ name: 'package/r', type: 'file', data: new Uint8Array(400 * 1024) }]));
    expect(() => layerTars(Image.fromBlobs(good.config, [raw, raw, raw]), 512 * 1024, 1024 * 1024)).toThrow('image layers (up to layers[2]) hold more than 1048576 bytes together');
  });
});

describe('--connect-timeout, --stall-timeout, --timeout values', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
  ])('%s is %d ms', (v, ms) => expect(parseDuration('x', 'timeout', v)).toBe(ms));
  it.each(['', '5', '-1s', '1d', '0s', '30 s', '25h'])('%j is a usage error', (v) => expect(() => parseDuration('x', 'timeout', v)).toThrow(/^x: --timeout: /));
});

describe('any JSON as image metadata: a result or a located invalid-image error, nothing else', () => {
  const shapes = fc.oneof(
    fc.jsonValue(),
    // Near-valid documents: a real manifest/index with one field replaced by any JSON value.
    fc.tuple(fc.constantFrom('schemaVersion', 'mediaType', 'config', 'layers', 'manifests'), fc.jsonValue()).map(([k, v]) => ({ ...goodManifest, [k]: v })),
    fc.tuple(fc.constantFrom('digest', 'size', 'mediaType', 'annotations', 'platform'), fc.jsonValue()).map(([k, v]) => ({ ...goodManifest, layers: [{ ...goodManifest.layers[0], [k]: v }] })),
    fc.jsonValue().map((v) => ({ schemaVersion: 2, manifests: [{ ...goodManifest.config, platform: v }] })),
    fc.jsonValue().map((v) => ({ config: { Labels: v } })),
  );
  it('parseManifestOrIndex, parseIndex and parseConfig', () => {
    fc.assert(
      fc.property(shapes, (doc) => {
        const bytes = new TextEncoder().encode(JSON.stringify(doc) ?? 'null');
        for (const parse of [() => parseManifestOrIndex(bytes, undefined, 'f.json'), () => parseIndex(bytes, 'f.json'), () => parseConfig(bytes, 'f.json')]) {
          try {
            parse();
          } catch (e) {
            expect(e).toBeInstanceOf(UserError);
            expect((e as Error).message).toMatch(/^invalid image: f\.json: /);
          }
        }
      }),
      { seed: 11, numRuns: 3000 },
    );
  });
});
