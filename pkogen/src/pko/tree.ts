/**
 * `kubectl package tree`: render the root package for a test case or config and print its
 * phases and objects with gotree's layout:
 *
 *   test-stub
 *   Package test-ns/test
 *   └── Phase deploy
 *       └── apps/v1, Kind=Deployment /test-stub-test
 */
import { validateObjects } from './object-validators.js';
import { renderPackage, type RenderRequest, type RenderedObject } from './render.js';
import { RenderError } from './render.js';
import { type LoadedPackage, type PackageManifestScope, Violation, ViolationReason } from './types.js';

export interface TreeOptions {
  testCase?: string;
  /** Config from a file; overrides the test case's config. */
  config?: Record<string, unknown>;
  cluster?: boolean;
}

function gvkString(o: Record<string, unknown>): string {
  const av = typeof o.apiVersion === 'string' ? o.apiVersion : '';
  const i = av.indexOf('/');
  const group = i >= 0 ? av.slice(0, i) : '';
  const version = i >= 0 ? av.slice(i + 1) : av;
  return `${group}/${version}, Kind=${String(o.kind ?? '')}`;
}

/** gotree's Print: children with ├──/└──, nested lines prefixed with │ or spaces. */
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
  if (opts.testCase !== undefined) {
    const tc = tests.find((t) => t.name === opts.testCase);
    if (!tc) throw new RenderError(`invalid arguments: test template with name ${opts.testCase} not found`);
    metadata = { ...tc.context?.package?.metadata, name: tc.context?.package?.metadata?.name ?? '', namespace: tc.context?.package?.metadata?.namespace ?? '' };
    config = tc.context?.config as Record<string, unknown> | undefined;
  } else if (tests.length > 0) {
    const tc = tests[0];
    metadata = { ...tc.context?.package?.metadata, name: tc.context?.package?.metadata?.name ?? '', namespace: tc.context?.package?.metadata?.namespace ?? '' };
    config = tc.context?.config as Record<string, unknown> | undefined;
  }
  if (opts.config) config = opts.config;
  let prefix = 'Package';
  let scope: PackageManifestScope = 'Namespaced';
  if (opts.cluster || !metadata.namespace) {
    scope = 'Cluster';
    metadata = { ...metadata, namespace: '' };
    prefix = 'ClusterPackage';
  }
  const req: RenderRequest = { manifest: pkg.manifest, lock: pkg.manifestLock, files: pkg.files, package: { metadata }, config: config ?? {}, environment: null, rejectInvalidConfig: true };
  // tree admits the config and fails on its errors before rendering
  const result = renderPackage(req);
  if (!(pkg.manifest.spec.scopes ?? []).includes(scope)) {
    throw new Violation({ reason: ViolationReason.UnsupportedScope, path: 'manifest.yaml', details: `Package does not support ${scope} scope, supported scopes: ${(pkg.manifest.spec.scopes ?? []).join(', ')}` });
  }
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
  return printTree(`${pkg.manifest.metadata.name}\n${prefix} ${metadata.namespace ?? ''}/${metadata.name}`, phases);
}
