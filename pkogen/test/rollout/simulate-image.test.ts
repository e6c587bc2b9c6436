/** simulate --package REF: the package image pulled from a real registry on 127.0.0.1. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main.js';
import { readDirToFileMap } from '../../src/core/fs.js';
import { buildPackageImage } from '../../src/oci/package-image.js';
import { parseReference } from '../../src/oci/reference.js';
import { RegistryClient } from '../../src/oci/registry-client.js';
import { emitRolloutTemplate } from '../../src/rollout/generate.js';
import { cleanupRegistry, startRegistry, TestRegistry } from '../oci/registry-harness.js';
import { ON_CLUSTER_BUILD } from './helpers.js';

let reg: TestRegistry | undefined;
let dir: string;
let pushedDigest: string;
beforeAll(async () => {
  reg = await startRegistry('http');
  dir = mkdtempSync(path.join(tmpdir(), 'pkogen-simimg-'));
  const pkg = path.join(dir, 'pkg');
  const { mkdirSync } = await import('node:fs');
  mkdirSync(pkg);
  writeFileSync(path.join(pkg, 'manifest.yaml'), `apiVersion: manifests.package-operator.run/v1alpha1
kind: PackageManifest
metadata: {name: on-cluster-build}
spec:
  scopes: [Namespaced]
  phases: [{name: deploy}]
  config:
    openAPIV3Schema:
      type: object
      required: [serviceCA]
      properties:
        image: {type: string}
        serviceCA: {type: string, minLength: 1}
`);
  writeFileSync(path.join(pkg, 'cm.yaml.gotmpl'), `apiVersion: v1
kind: ConfigMap
metadata:
  name: ocb-ca
  annotations:
    package-operator.run/phase: deploy
data:
  hostedCluster: {{ .environment.hyperShift.hostedCluster.metadata.name | quote }}
  ca: {{ .config.serviceCA | toJson }}
`);
  const image = buildPackageImage(await readDirToFileMap(pkg));
  const client = new RegistryClient({ insecure: true });
  try {
    pushedDigest = (await client.push(image, [parseReference(`${reg.host}/app-sre/on-cluster-build-hs-package:0123456`)])).digest;
  } finally {
    client.close();
  }
  writeFileSync(path.join(dir, 't.yaml'), emitRolloutTemplate(ON_CLUSTER_BUILD));
});
afterAll(async () => {
  await cleanupRegistry(reg);
  rmSync(dir, { recursive: true, force: true });
});

test('the ObjectTemplate-rendered Package of each namespace is admitted and rendered by the pulled package', async () => {
  const out: string[] = [];
  const err: string[] = [];
  const io = { stdout: (t: string) => void out.push(t), stderr: (t: string) => void err.push(t), env: { HOME: dir }, cwd: dir };
  const code = await main([
    'simulate', 't.yaml', '--hcp-namespaces', '3', '--package', `${reg!.host}/app-sre/on-cluster-build-hs-package:0123456`, '--insecure', '-o', 'json',
    '-p', `REGISTRY_IMG=${reg!.host}/app-sre/on-cluster-build-hs-package`,
    '-p', 'ON_CLUSTER_BUILD_IMAGE=quay.io/a/b@sha256:' + 'a'.repeat(64),
  ], io);
  expect(err.join('')).toBe('');
  const j = JSON.parse(out.join(''));
  expect(j.totals).toMatchObject({ namespaces: 3, validPackages: 3, errors: 0 });
  expect(j.summary).toEqual({ error: 0, warning: 0, info: expect.any(Number) });
  for (const p of j.packages) expect(p.rendered).toEqual({ objects: 1 });
  // IMAGE_DIGEST is the pulled image's digest, as saasherder would resolve it.
  expect(j.packages[0].package.image).toBe(`${reg!.host}/app-sre/on-cluster-build-hs-package@${pushedDigest}`);
  expect(code).toBe(0);
});

test('an unreachable package reference is one clear error', async () => {
  const err: string[] = [];
  const io = { stdout: () => undefined, stderr: (t: string) => void err.push(t), env: { HOME: dir }, cwd: dir };
  const code = await main(['simulate', 't.yaml', '--hcp-namespaces', '1', '--package', `${reg!.host}/app-sre/missing:nope`, '--insecure'], io);
  expect(code).toBe(1);
  expect(err.join('')).toMatch(/^error: .*missing/m);
  expect(err.join('')).not.toMatch(/internal error|\n\s+at /);
});
