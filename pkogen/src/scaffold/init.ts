/**
 * `pkogen init`: a new package repository from the handlebars templates under templates/init/.
 * Pure: templates come in as a FileMap, the scaffold goes out as one. A template's path is its
 * output path with `.hbs` dropped and a leading `dot-` turned into `.` (npm would drop a
 * `.gitignore` from the published package, so none is stored under its real name).
 */
import { createRequire } from 'node:module';
import { type FileMap, toBytes, toText } from '../core/filemap.js';
import { emitLock } from '../pko/lockfile.js';

export interface InitOptions {
  /** Package name: a DNS label. */
  name: string;
  scope: 'Namespaced' | 'Cluster';
  /** HyperShift: HCP-namespace package with a hosted-cluster phase and a rollout Template. */
  hypershift: boolean;
  /** Where the workload image goes: the package config (`config`) or `spec.images` (`images`). */
  imageIn: 'config' | 'images';
  image: string;
  /** What the scaffold's package.json depends on for pkogen (a semver range, or file:… for a tarball). */
  pkogenSpec: string;
  /** metadata.creationTimestamp of the manifest.lock.yaml written for a digest-pinned image in spec.images. */
  lockTimestamp?: string;
}

export { placeholderImage } from '../model/package.js';

/** Where the scaffold's lock file goes (generate keeps it; pkogen update rewrites it). */
export const LOCK_PATH = 'package/manifest.lock.yaml';

export const NAME_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const NAME_RULE = "a DNS label: lowercase letters, digits and '-', starting and ending with a letter or digit, at most 53 characters";

export class InitOptionError extends Error {}

export function checkInitOptions(o: InitOptions): void {
  if (!NAME_RE.test(o.name) || o.name.length > 53) throw new InitOptionError(`name must be ${NAME_RULE}, got ${JSON.stringify(o.name)}`);
  if (o.hypershift && o.scope !== 'Namespaced') throw new InitOptionError('a HyperShift package lives in the HCP namespace: its scope must be Namespaced');
  if (!/^[^\s'"\\{}]+$/.test(o.image)) throw new InitOptionError(`image must be an image reference without quotes, braces or spaces, got ${JSON.stringify(o.image)}`);
}

type Handlebars = typeof import('handlebars');
let hbs: Handlebars | undefined;
const handlebars = (): Handlebars => (hbs ??= createRequire(import.meta.url)('handlebars') as Handlebars);

const EXECUTABLE = new Set(['scripts/build_deploy.sh', '.ci/run']);

export function outputPath(templatePath: string): string {
  return templatePath
    .replace(/\.hbs$/, '')
    .split('/')
    .map((s) => (s.startsWith('dot-') ? '.' + s.slice(4) : s))
    .join('/');
}

export function isExecutable(p: string): boolean {
  return EXECUTABLE.has(p);
}

/** Renders every `.hbs` template; returns output path → bytes, sorted. */
export function renderScaffold(templates: FileMap, o: InitOptions): FileMap {
  checkInitOptions(o);
  const hb = handlebars().create();
  const data = {
    ...o,
    clusterScope: o.scope === 'Cluster',
    imageInConfig: o.imageIn === 'config',
    // A Package's namespace in the test case: an HCP namespace for HyperShift, none for a ClusterPackage.
    testNamespace: o.hypershift ? 'clusters-example' : o.scope === 'Cluster' ? '' : o.name,
  };
  const out: FileMap = new Map();
  for (const p of [...templates.keys()].sort()) {
    if (!p.endsWith('.hbs')) continue;
    // noEscape: the output is code and YAML, not HTML; strict: a misspelt variable is an error, not "".
    const render = hb.compile(toText(templates.get(p)!), { noEscape: true, strict: true });
    out.set(outputPath(p), toBytes(render(data)));
  }
  // spec.images needs manifest.lock.yaml. A digest-pinned image locks to itself without a registry
  // lookup; a tag needs `pkogen update package`.
  const digest = /@(sha256:[0-9a-f]{64})$/.exec(o.image)?.[1];
  if (o.imageIn === 'images' && digest) out.set(LOCK_PATH, toBytes(emitLock([{ name: 'main', image: o.image, digest }], o.lockTimestamp ?? '1970-01-01T00:00:00Z')));
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
