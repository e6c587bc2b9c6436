/**
 * Package Operator's own packages, vendored unchanged under test/pko/upstream/ (NOTICE, vendor.sh),
 * and the two packages PKO's build generates from `manifest.yaml.tpl`.
 *
 * The generated two are made here the way PKO's `cmd/build/generate.go` (at e03279db) makes them,
 * into a temporary copy: `manifest.yaml` from the `.tpl` (`##image-registry##`/`##tag##` replaced,
 * or `spec.images` set by `manifestFileFromTemplate`), `manifest.lock.yaml` as `UpdateLockData`
 * writes it (the digest is a placeholder: PKO resolves it on the network, validate only compares the
 * image strings), and the CRDs and ClusterRoles of `config/static-deployment` with their phase
 * annotation, written with sigs.k8s.io/yaml's encoding (`includeInPackage`). Only package inputs are
 * made: every fixture compared is PKO's own.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { marshalGoYaml } from '../../src/gotemplate/funcs/goyaml.js';
import { fromJs } from '../../src/gotemplate/funcs/json.js';
import { parseAllYaml11, parseYaml11 } from '../../src/yaml/parse.js';
import { ROOT } from '../helpers.js';

export const UPSTREAM = path.join(ROOT, 'test', 'pko', 'upstream');
export const PKO_COMMIT = 'e03279db54c3fb57b195f76b8d0bf79f2bc024c8';

/** Every vendored directory holding a manifest.yaml|yml outside a components/ folder (34 at e03279db). */
export function vendoredPackageDirs(): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    const abs = path.join(UPSTREAM, rel);
    const entries = readdirSync(abs, { withFileTypes: true });
    if (entries.some((e) => e.isFile() && (e.name === 'manifest.yaml' || e.name === 'manifest.yml')) && !rel.split('/').includes('components')) out.push(rel);
    for (const e of entries) if (e.isDirectory() && !e.name.startsWith('.')) walk(rel ? `${rel}/${e.name}` : e.name);
  };
  for (const top of ['cmd', 'config', 'integration', 'internal']) walk(top);
  return out.sort();
}

const REGISTRY = 'dev.package-operator.run/package-operator'; // cmd/build/definitions.go defaultImageRegistry
const VERSION = 'v1.19.0-205-ge03279db'; // what `git describe` gives at that commit (any tag does)
const DIGEST = 'sha256:' + '0'.repeat(64);

/** sigs.k8s.io/yaml.Marshal: JSON, then go-yaml v2 (our toYAML, which also trims the final newline PKO's toYAML trims). */
function sigsYaml(v: unknown): string {
  return marshalGoYaml(fromJs(JSON.parse(JSON.stringify(v)))) + '\n';
}

function writeLock(dir: string, images: { name: string; image: string }[]): void {
  const lock = {
    apiVersion: 'manifests.package-operator.run/v1alpha1',
    kind: 'PackageManifestLock',
    metadata: { creationTimestamp: '2026-08-21T00:00:00Z' },
    spec: { images: images.map((i) => ({ digest: DIGEST, image: i.image, name: i.name })) },
  };
  writeFileSync(path.join(dir, 'manifest.lock.yaml'), sigsYaml(lock));
}

/** manifestFileFromTemplate: the .tpl decoded, spec.images replaced, encoded again; then the lock. */
function manifestFromTemplate(dir: string, images: Record<string, string>): void {
  const m = parseYaml11(readFileSync(path.join(dir, 'manifest.yaml.tpl'), 'utf8')) as { spec: Record<string, unknown> };
  const list = Object.entries(images).map(([name, image]) => ({ name, image }));
  m.spec.images = list;
  writeFileSync(path.join(dir, 'manifest.yaml'), sigsYaml(m));
  writeLock(dir, list);
}

/** includeInPackage over config/static-deployment: the kinds `want` maps to a subfolder and phase. */
function includeStatic(dir: string, want: Record<string, { subfolder: string; phase: string }>): void {
  const src = path.join(UPSTREAM, 'config', 'static-deployment');
  for (const f of readdirSync(src).sort()) {
    for (const obj of parseAllYaml11(readFileSync(path.join(src, f), 'utf8')) as Record<string, unknown>[]) {
      if (!obj || Object.keys(obj).length === 0) continue;
      const w = want[String(obj.kind)];
      if (!w) continue;
      const md = obj.metadata as { name: string; annotations?: Record<string, string> };
      md.annotations = { ...md.annotations, 'package-operator.run/phase': w.phase };
      const out = path.join(dir, w.subfolder);
      mkdirSync(out, { recursive: true });
      writeFileSync(path.join(out, `${md.name}.${String(obj.kind)}.yaml`), sigsYaml(obj));
    }
  }
}

/** The two packages PKO's build generates, made in `tmp`; returns their directories by upstream path. */
export function buildGeneratedPackages(tmp: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of ['config/packages/package-operator', 'config/packages/test-stub-image-prefix-override']) {
    const dest = path.join(tmp, rel);
    cpSync(path.join(UPSTREAM, rel), dest, { recursive: true, verbatimSymlinks: true });
    out[rel] = dest;
  }
  const po = out['config/packages/package-operator'];
  const crd = { subfolder: 'crds', phase: 'crds' };
  manifestFromTemplate(path.join(po, 'components', 'remote-phase'), { 'remote-phase-manager': `${REGISTRY}/remote-phase-manager:${VERSION}` });
  includeStatic(path.join(po, 'components', 'hosted-cluster'), { CustomResourceDefinition: crd });
  manifestFromTemplate(path.join(po, 'components', 'hosted-cluster'), { 'package-operator-manager': `${REGISTRY}/package-operator-manager:${VERSION}` });
  includeStatic(po, { CustomResourceDefinition: crd, ClusterRole: { subfolder: 'rbac', phase: 'rbac' } });
  manifestFromTemplate(po, { 'package-operator-manager': `${REGISTRY}/package-operator-manager:${VERSION}` });
  // templateManifestFiles: plain placeholder replacement, then the lock.
  const ts = out['config/packages/test-stub-image-prefix-override'];
  const text = readFileSync(path.join(ts, 'manifest.yaml.tpl'), 'utf8').replaceAll('##image-registry##', REGISTRY).replaceAll('##tag##', VERSION);
  writeFileSync(path.join(ts, 'manifest.yaml'), text);
  const m = parseYaml11(text) as { spec: { images?: { name: string; image: string }[] } };
  writeLock(ts, m.spec.images ?? []);
  if (!existsSync(path.join(po, 'crds'))) throw new Error('static-deployment CRDs missing from the vendored set');
  return out;
}
