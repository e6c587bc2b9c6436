import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import fc from 'fast-check';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { fileMap } from '../../src/core/filemap.js';
import { writeDockerArchive } from '../../src/oci/docker-archive.js';
import { writeOciLayout } from '../../src/oci/layout.js';
import { buildPackageImage } from '../../src/oci/package-image.js';
import { parseReference } from '../../src/oci/reference.js';
import { RegistryClient } from '../../src/oci/registry-client.js';
import { cleanupRegistry, startRegistry, type TestRegistry } from '../oci/registry-harness.js';

const REF = path.resolve('../../shared/reference/pko-packages');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: { HOME: tmpdir() }, cwd: process.cwd() };
  const code = await main(['validate', ...args], io);
  return { code, out, err };
}

describe('validate an image: OCI layout, docker archive, registry', () => {
  let tmp: string;
  let reg: TestRegistry | undefined;
  beforeAll(async () => {
    tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-validate-img-'));
  });
  afterAll(async () => {
    await cleanupRegistry(reg);
    rmSync(tmp, { recursive: true, force: true });
  });

  test('OCI layout of a broken package: PKO violation from the image files', async () => {
    const image = buildPackageImage(await readDirToFileMap(`${REF}/invalid/missing_phase_annotation`));
    await writeOciLayout(path.join(tmp, 'layout'), image, ['v1']);
    const r = await run(['--oci-layout', path.join(tmp, 'layout')]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('error: deployment.yaml:1 doc 0: Missing package-operator.run/phase Annotation in deployment.yaml idx 0 [pko/missing-phase-annotation]\nwarning: deployment.yaml:19 doc 0 spec.template.spec.containers[0].image: container \"test\" image test is not pinned by digest (@sha256:…) [image/not-pinned]\nvalidation failed: 1 error(s), 1 warning(s)\n');
  });

  test('docker archive of a valid package: no template tests for images (like --pull)', async () => {
    const image = buildPackageImage(await readDirToFileMap(`${REF}/test-stub`));
    await writeDockerArchive(path.join(tmp, 'ok.tar'), image, ['quay.io/x/y:v1']);
    const r = await run(['--archive', path.join(tmp, 'ok.tar')]);
    expect(r).toMatchObject({ code: 0, out: 'Package validated successfully!\n' });
  });

  test('an image without package/ files is PKO\'s empty-package violation', async () => {
    const image = buildPackageImage(new Map());
    await writeDockerArchive(path.join(tmp, 'empty.tar'), image, ['x:1']);
    const r = await run(['--archive', path.join(tmp, 'empty.tar')]);
    expect(r.code).toBe(1);
    expect(r.out).toBe('error: Package image contains no files. Might be corrupted. [pko/empty-package]\nvalidation failed: 1 error(s), 0 warning(s)\n');
  });

  test('truncated or random archives are a one-line error, exit 1, no crash', async () => {
    const image = buildPackageImage(fileMap({ 'manifest.yaml': 'x' }));
    await writeDockerArchive(path.join(tmp, 'full.tar'), image, ['x:1']);
    const full = readFileSync(path.join(tmp, 'full.tar'));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: full.length - 1 }), fc.uint8Array({ maxLength: 2048 }), async (cut, junk) => {
        const f = path.join(tmp, 'bad.tar');
        writeFileSync(f, Buffer.concat([full.subarray(0, cut), Buffer.from(junk)]));
        const r = await run(['--archive', f]);
        expect(r.code).toBe(1);
        expect(r.err + r.out).not.toMatch(/internal error|\n\s+at /);
      }),
      { seed: 2024, numRuns: 60 },
    );
  });

  test('--pull from a real registry (docker-registry on 127.0.0.1)', async () => {
    reg = await startRegistry('http');
    const image = buildPackageImage(await readDirToFileMap(`${REF}/invalid/missing_resource_gvk`));
    const client = new RegistryClient({});
    try {
      await client.push(image, [parseReference(`${reg.host}/pkg/bad:v1`)]);
    } finally {
      client.close();
    }
    const r = await run(['--pull', `${reg.host}/pkg/bad:v1`, '--output', 'json']);
    expect(r.code).toBe(1);
    expect(JSON.parse(r.out).findings[0]).toMatchObject({ rule: 'pko/invalid-yaml', file: 'deployment.yaml', doc: 0 });
  });
});

describe('broken layers inside an image', () => {
  test('truncated gzip, random bytes, gzip bomb: UserError, never a crash', async () => {
    const { packageFilesFromImage } = await import('../../src/pko/package-image.js');
    const { Blob, Image } = await import('../../src/oci/image.js');
    const { UserError } = await import('../../src/core/errors.js');
    const { gzipSync } = await import('node:zlib');
    const good = buildPackageImage(fileMap({ 'manifest.yaml': 'x: 1\n' }));
    const layer = good.layers[0];
    const withLayer = (bytes: Uint8Array) => Image.fromBlobs(good.config, [new Blob(layer.mediaType, bytes)]);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: layer.bytes.length - 1 }), (cut) => {
        // a cut inside the gzip magic reads as an (empty) raw tar: PKO's empty-package violation
        let err: unknown;
        try {
          packageFilesFromImage(withLayer(layer.bytes.subarray(0, cut)));
        } catch (e) {
          err = e;
        }
        expect(err instanceof UserError || (err as Error)?.name === 'Violation').toBe(true);
        if (cut >= 10) expect(err).toBeInstanceOf(UserError);
      }),
      { seed: 5, numRuns: 50 },
    );
    // random non-gzip bytes are read as a raw tar: malformed → UserError, or no package files → Violation
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 4096 }), (junk) => {
        try {
          packageFilesFromImage(withLayer(junk));
        } catch (e) {
          expect((e as Error).name === 'UserError' || (e as Error).name === 'Violation').toBe(true);
        }
      }),
      { seed: 6, numRuns: 100 },
    );
    const bomb = new Uint8Array(gzipSync(new Uint8Array(64 * 1024 * 1024)));
    expect(() => packageFilesFromImage(withLayer(bomb), { maxLayerBytes: 1024 * 1024 })).toThrow(/uncompresses to more than 1048576 bytes/);
  });
});
