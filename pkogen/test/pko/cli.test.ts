import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main.js';
import type { CliIO } from '../../src/cli/io.js';

const REF = path.resolve('../../shared/reference/pko-packages');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const io: CliIO = { stdout: (t) => void (out += t), stderr: (t) => void (err += t), env: {}, cwd: process.cwd() };
  const code = await main(args, io);
  return { code, out, err };
}

function tmpdir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'pkogen-render-'));
}

describe('pkogen render', () => {
  test('--test-case --output-dir writes exactly the PKO fixture tree', async () => {
    const dir = tmpdir();
    try {
      const outDir = path.join(dir, 'out');
      const r = await run(['render', path.join(REF, 'test-stub-cel'), '--test-case', 'cluster-scope', '--output-dir', outDir]);
      expect(r.code).toBe(0);
      const want = path.join(REF, 'test-stub-cel/.test-fixtures/cluster-scope');
      const files = fs.readdirSync(outDir).sort();
      expect(files).toEqual(fs.readdirSync(want).sort());
      for (const f of files) expect(fs.readFileSync(path.join(outDir, f), 'utf8')).toBe(fs.readFileSync(path.join(want, f), 'utf8'));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('--config with namespace and environment prints to stdout', async () => {
    const dir = tmpdir();
    try {
      fs.writeFileSync(path.join(dir, 'config.yaml'), 'testStubImage: quay.io/x/y:1\nunknown: dropped\n');
      fs.writeFileSync(path.join(dir, 'env.yaml'), 'kubernetes:\n  version: v1.30.0\n');
      const r = await run(['render', path.join(REF, 'test-stub-cel'), '--config', path.join(dir, 'config.yaml'), '--namespace', 'ns1', '--name', 'inst', '--environment', path.join(dir, 'env.yaml')]);
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.out).toContain('---\n# Source: deployment.yaml\n');
      expect(r.out).toContain("image: 'quay.io/x/y:1'");
      expect(r.out).toContain('test-environment: "{\\"kubernetes\\":{\\"version\\":\\"v1.30.0\\"}}"');
      expect(r.out).not.toContain('namespace.template.yaml');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('config admission errors are reported like PKO and exit 1', async () => {
    const dir = tmpdir();
    try {
      fs.writeFileSync(path.join(dir, 'config.yaml'), 'other: 1\n');
      const r = await run(['render', path.join(REF, 'test-stub-cel'), '--config', path.join(dir, 'config.yaml')]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('spec.config.testStubImage: Required value');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors exit 2 with one line', async () => {
    const r = await run(['render', path.join(REF, 'test-stub')]);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    const r2 = await run(['render', path.join(REF, 'test-stub'), '--test-case', 'x', '--namespace', 'y']);
    expect(r2.code).toBe(2);
  });

  test('--output-dir never replaces the package or a directory holding a manifest', async () => {
    const dir = tmpdir();
    try {
      fs.cpSync(path.join(REF, 'test-stub'), path.join(dir, 'pkg'), { recursive: true });
      const r = await run(['render', path.join(dir, 'pkg'), '--test-case', 'namespace-scope', '--output-dir', dir]);
      expect(r.code).toBe(1);
      expect(r.err).toContain('refusing to replace a directory that contains the package');
      const r2 = await run(['render', path.join(REF, 'test-stub'), '--test-case', 'namespace-scope', '--output-dir', path.join(dir, 'pkg')]);
      expect(r2.code).toBe(1);
      expect(r2.err).toContain('refusing to replace a directory that contains manifest.yaml');
      expect(fs.existsSync(path.join(dir, 'pkg', 'manifest.yaml'))).toBe(true);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('unknown test case names the available ones', async () => {
    const r = await run(['render', path.join(REF, 'test-stub'), '--test-case', 'nope']);
    // A usage error (exit 2): the command line names a test case the package does not have.
    expect(r.code).toBe(2);
    expect(r.err).toContain('render: no test case "nope" in manifest.yaml test.template (have: namespace-scope, cluster-scope)\n');
    const typo = await run(['render', path.join(REF, 'test-stub'), '--test-case', 'cluster-scpoe']);
    expect(typo.code).toBe(2);
    expect(typo.err).toContain('no test case "cluster-scpoe" in manifest.yaml test.template (have: namespace-scope, cluster-scope); did you mean cluster-scope?\n');
  });

  test('a component of a multi-component package', async () => {
    const r = await run(['render', path.join(REF, 'test-stub-multi'), '--component', 'backend', '--test-case', 'namespace-scope']);
    expect(r.code).toBe(0);
    expect(r.out).toBe('---\n# Source: deployment.yaml\n' + fs.readFileSync(path.join(REF, 'test-stub-multi/components/backend/.test-fixtures/namespace-scope/deployment.yaml'), 'utf8'));
  });
});

describe('pkogen tree', () => {
  test('first test case by default (namespaced)', async () => {
    const r = await run(['tree', path.join(REF, 'test-stub')]);
    expect(r.code).toBe(0);
    expect(r.out).toBe('test-stub\nPackage test-ns/test\n└── Phase deploy\n    └── apps/v1, Kind=Deployment /test-stub-test\n');
  });
  // kubectl-package's layout (gotree v1.0.0): every phase └──, objects marked by their phase's position.
  test('--cluster renders a ClusterPackage with the namespace phase', async () => {
    const r = await run(['tree', path.join(REF, 'test-stub'), '--cluster']);
    expect(r.out).toBe('test-stub\nClusterPackage /test\n└── Phase namespace\n│   ├── /v1, Kind=Namespace /test\n└── Phase deploy\n    └── apps/v1, Kind=Deployment test/test-stub-test\n');
  });
  test('gotree v1.0.0 marks by the parent\'s position: all objects of a non-last phase ├──, of the last └──', async () => {
    const { printGoTreeV1 } = await import('../../src/pko/tree.js');
    expect(printGoTreeV1('h', [{ text: 'Phase a', children: ['1', '2'] }, { text: 'Phase b', children: ['3', '4'] }])).toBe(
      'h\n└── Phase a\n│   ├── 1\n│   ├── 2\n└── Phase b\n    └── 3\n    └── 4\n',
    );
  });
  test('--format pkogen keeps the usual tree markers', async () => {
    const r = await run(['tree', path.join(REF, 'test-stub'), '--cluster', '--format', 'pkogen']);
    expect(r.out).toBe('test-stub\nClusterPackage /test\n├── Phase namespace\n│   └── /v1, Kind=Namespace /test\n└── Phase deploy\n    └── apps/v1, Kind=Deployment test/test-stub-test\n');
    expect(await run(['tree', path.join(REF, 'test-stub'), '--format', 'wide'])).toMatchObject({ code: 2, err: expect.stringContaining('--format must be one of pko, pkogen') });
  });
  test('CEL-filtered objects are not in the tree', async () => {
    const r = await run(['tree', path.join(REF, 'test-stub-cel'), '--test-case', 'namespace-scope']);
    expect(r.out).toBe('test-stub\nPackage test-ns/test\n└── Phase deploy\n    └── /v1, Kind=ConfigMap /cel-template-cm\n    └── apps/v1, Kind=Deployment /test-deployment\n');
    const ours = await run(['tree', path.join(REF, 'test-stub-cel'), '--test-case', 'namespace-scope', '--format', 'pkogen']);
    expect(ours.out).toBe('test-stub\nPackage test-ns/test\n└── Phase deploy\n    ├── /v1, Kind=ConfigMap /cel-template-cm\n    └── apps/v1, Kind=Deployment /test-deployment\n');
  });
  test('a Cluster-only package is printed as a ClusterPackage without --cluster (said on stderr)', async () => {
    const dir = tmpdir();
    try {
      fs.writeFileSync(path.join(dir, 'manifest.yaml'), 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\nmetadata:\n  name: conly\nspec:\n  scopes: [Cluster]\n  phases: [{name: deploy}]\n');
      fs.writeFileSync(path.join(dir, 'ns.yaml'), 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n  annotations:\n    package-operator.run/phase: deploy\n');
      const r = await run(['tree', dir]);
      expect(r).toEqual({ code: 0, out: 'conly\nClusterPackage /name\n└── Phase deploy\n    └── /v1, Kind=Namespace /x\n', err: "pkogen tree: the package's only scope is Cluster: printed as a ClusterPackage (kubectl package tree needs --cluster)\n" });
      expect(await run(['tree', dir, '--cluster'])).toEqual({ ...r, err: '' });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  test('unsupported scope fails', async () => {
    const r = await run(['tree', path.join(REF, 'remote-phase-component'), '--cluster']);
    expect(r.code).toBe(1);
    expect(r.err).toContain('Package unsupported scope in manifest.yaml');
  });
});
