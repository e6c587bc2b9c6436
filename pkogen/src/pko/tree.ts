/**
 * `kubectl package tree`: render the root package for a test case or config and print its
 * phases and objects. The default layout is kubectl-package's, printed by gotree v1.0.0
 * (github.com/disiqueira/gotree, PKO's go.mod at e03279db), whose marker depends on whether the
 * *parent* is the last item, so every phase gets `└──` and the objects of a phase that is not the
 * last get `├──` (PKO's tests assert exactly this, cmd/kubectl-package/treecmd/tree_test.go):
 *
 *   test-stub
 *   ClusterPackage /test
 *   └── Phase namespace
 *   │   ├── /v1, Kind=Namespace /test
 *   └── Phase deploy
 *       └── apps/v1, Kind=Deployment test/test-stub-test
 *
 * `format: 'pkogen'` prints the same tree with the usual markers (├── for all but the last).
 */
import { validateObjects } from './object-validators.js';
import { renderPackage, type RenderRequest, type RenderedObject } from './render.js';
import { RenderError } from './render.js';
import { type LoadedPackage, type PackageManifestScope, Violation, ViolationReason } from './types.js';
import { admitConfig } from './config-admission.js';
import { aggregateText } from './field-errors.js';
import { validateLockConsistency } from './lock-consistency.js';
import { pkoManifestErrorText } from './validate.js';

export interface TreeOptions {
  testCase?: string;
  /** Config from a file; overrides the test case's config. */
  config?: Record<string, unknown>;
  cluster?: boolean;
  /** `pko` (default): kubectl-package's bytes; `pkogen`: the same tree with the usual markers. */
  format?: TreeFormat;
  /** Told when `testCase` names no test case (PKO then renders with placeholders, silently). */
  onUnknownTestCase?: (name: string) => void;
  /** Told when the package is Cluster-only and `cluster` was not given: it is rendered as a ClusterPackage (PKO refuses). */
  onClusterOnly?: () => void;
}

export type TreeFormat = 'pko' | 'pkogen';
export const TREE_FORMATS: readonly TreeFormat[] = ['pko', 'pkogen'];

function gvkString(o: Record<string, unknown>): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const i = av.indexOf('/');
  const group = i >= 0 ? av.slice(0, i) : '';
  const version = i >= 0 ? av.slice(i + 1) : av;
  return `${group}/${version}, Kind=${String(o.kind ?? '')}`;
}

/**
 * gotree v1.0.0's Print: an item's marker and indentation come from its ancestors' "last"
 * flags (`└── ` when its parent is last or it is top-level, else `├── `; `    ` or `│   ` per
 * ancestor), never from its own position.
 */
export function printGoTreeV1(header: string, children: { text: string; children: string[] }[]): string {
  let out = header + '\n';
  children.forEach((c, i) => {
    const last = i === children.length - 1;
    out += '└── ' + c.text + '\n';
    for (const g of c.children) out += (last ? '    └── ' : '│   ├── ') + g + '\n';
  });
  return out;
}

/** The usual tree layout: children with ├──/└── by their own position, nested lines prefixed with │ or spaces. */
export function printTree(header: string, children: { text: string; children: string[] }[]): string {
  let out = header + '\n';
  children.forEach((c, i) => {
    const last = i === children.length - 1;
    out += (last ? '└── ' : '├── ') + c.text + '\n';
    c.children.forEach((g, j) => {
      out += (last ? '    ' : '│   ') + (j === c.children.length - 1 ? '└── ' : '├── ') + g + '\n';
    });
  });
  return out;
}

export function packageTree(pkg: LoadedPackage, opts: TreeOptions = {}): string {
  const tests = pkg.manifest.test?.template ?? [];
  let metadata: RenderRequest['package']['metadata'] = { name: 'name', namespace: 'namespace' };
  let config: Record<string, unknown> | undefined;
  const fromCase = (tc: (typeof tests)[number]) => {
    metadata = { ...tc.context?.package?.metadata, name: tc.context?.package?.metadata?.name ?? '', namespace: tc.context?.package?.metadata?.namespace ?? '' };
    config = tc.context?.config as Record<string, unknown> | undefined;
  };
  if (opts.testCase !== undefined && opts.testCase !== '') {
    // PKO (internal/cmd/tree.go): a name no test case has leaves the placeholders and `{}` as config.
    const tc = tests.find((t) => t.name === opts.testCase);
    if (tc) fromCase(tc);
    else opts.onUnknownTestCase?.(opts.testCase);
  } else if (tests.length > 0) fromCase(tests[0]);
  if (opts.config) config = opts.config;
  let prefix = 'Package';
  let scope: PackageManifestScope = 'Namespaced';
  const scopes = pkg.manifest.spec?.scopes ?? [];
  // A Cluster-only package has one way to be installed: show it that way instead of PKO's "unsupported scope".
  const clusterOnly = !opts.cluster && scopes.includes('Cluster') && !scopes.includes('Namespaced');
  if (clusterOnly) opts.onClusterOnly?.();
  if (opts.cluster || clusterOnly || !metadata.namespace) {
    scope = 'Cluster';
    metadata = { ...metadata, namespace: '' };
    prefix = 'ClusterPackage';
  }
  // PKO's order (internal/cmd/tree.go, packagerender/instance.go): config admission, then the
  // package validators (manifest, lock file, scope), then the render and the object validators.
  const admitted = admitConfig(config ?? {}, pkg.manifest.spec?.config?.openAPIV3Schema);
  if (admitted.errors.length) throw new RenderError(aggregateText(admitted.errors));
  // DefaultPackageValidators + PackageScopeValidator: every one runs, errors joined by newlines.
  const errs: string[] = [];
  const manifestErrors = pkoManifestErrorText(pkg);
  if (manifestErrors !== undefined) errs.push(manifestErrors);
  const lockErrors = validateLockConsistency(pkg);
  if (lockErrors.length) errs.push(lockErrors[0].message);
  if (!(pkg.manifest.spec.scopes ?? []).includes(scope)) errs.push(new Violation({ reason: ViolationReason.UnsupportedScope, path: 'manifest.yaml' }).message);
  if (errs.length) throw new RenderError(errs.join('\n'), 'manifest.yaml');
  const req: RenderRequest = { manifest: pkg.manifest, lock: pkg.manifestLock, files: pkg.files, package: { metadata }, config: config ?? {}, environment: null, dependencies: null, rejectInvalidConfig: true };
  const result = renderPackage(req);
  const violations = validateObjects(result.allObjects, pkg.manifest);
  if (violations.length) throw violations[0];
  const phases = (pkg.manifest.spec.phases ?? [])
    .map((ph) => ({
      text: `Phase ${ph.name}`,
      children: result.objects.filter((o: RenderedObject) => o.phase === ph.name).map((o) => {
        const md = (o.object.metadata ?? {}) as { name?: string; namespace?: string };
        return `${gvkString(o.object)} ${md.namespace ?? ''}/${md.name ?? ''}`;
      }),
    }))
    .filter((p) => p.children.length > 0);
  const print = opts.format === 'pkogen' ? printTree : printGoTreeV1;
  return print(`${pkg.manifest.metadata.name}\n${prefix} ${metadata.namespace ?? ''}/${metadata.name}`, phases);
}
