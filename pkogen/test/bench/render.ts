/**
 * Render throughput: the package rendered for 1,000 distinct hosted control planes (package
 * name/namespace, HostedCluster metadata and node selector, per-HCP config values), each through
 * the whole pipeline (config admission, CEL context, one template set over every .gotmpl,
 * object parsing, CEL filters, fixture layout). Target (issue 16): ≥ 3,000 renders per CPU-second.
 */
import { existsSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readDirToFileMap } from '../../src/core/fs.js';
import { loadPackage } from '../../src/pko/loader.js';
import { renderPackage, type RenderRequest } from '../../src/pko/render.js';
import { fixtureFiles, testCaseRequest } from '../../src/pko/template-tests.js';
import { OUR_PACKAGE, REPO } from './repo.js';
import type { LoadedPackage } from '../../src/pko/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));

function findRoot(): string {
  // from test/bench (ts-jest / tsx) or dist/test/bench (compiled)
  for (const up of ['..', '../..', '../../..']) {
    const r = path.resolve(here, up);
    if (existsSync(path.join(r, 'package.json')) && existsSync(path.join(r, 'src'))) return r;
  }
  return process.cwd();
}

async function loadBenchPackage(): Promise<{ pkg: LoadedPackage; source: string }> {
  const root = findRoot();
  const candidates = [OUR_PACKAGE, path.resolve(REPO, '../shared/reference/pko-packages/remote-phase-component')];
  for (const dir of candidates) {
    if (existsSync(path.join(dir, 'manifest.yaml'))) return { pkg: loadPackage(await readDirToFileMap(dir)), source: path.relative(root, dir) || dir };
  }
  throw new Error('no package to benchmark');
}

/** The first test case, made distinct per HCP. */
function hcpRequest(pkg: LoadedPackage, i: number): RenderRequest {
  const tc = pkg.manifest.test?.template?.[0];
  const base = tc ? testCaseRequest(pkg, tc) : { manifest: pkg.manifest, files: pkg.files, package: { metadata: { name: 'x', namespace: 'y' } }, config: {}, environment: null };
  const hc = `hc-${i.toString(36)}`;
  const ns = `clusters-${hc}`;
  const config = JSON.parse(JSON.stringify(base.config ?? {})) as Record<string, unknown>;
  for (const [k, v] of Object.entries(config)) if (typeof v === 'string' && /^[a-z]/.test(v) && !v.includes('@sha256') && !v.includes('\n')) config[k] = `${v}-${i}`.slice(0, 200);
  return {
    ...base,
    package: { metadata: { ...base.package.metadata, name: base.package.metadata.name || 'pkg', namespace: ns } },
    config,
    environment: {
      ...(base.environment ?? {}),
      kubernetes: { version: `v1.3${i % 3}.${i % 7}` },
      hyperShift: {
        hostedCluster: {
          metadata: { name: hc, namespace: 'clusters', labels: { 'api.openshift.com/id': `id-${i}` }, annotations: {} },
          hostedClusterNamespace: ns,
          nodeSelector: { 'node-role.kubernetes.io/infra': '', 'topology.kubernetes.io/zone': `zone-${i % 3}` },
        },
      },
    },
  };
}

export async function bench(): Promise<string> {
  const { pkg, source } = await loadBenchPackage();
  const N = 2000;
  const WARM = 500;
  const reqs = Array.from({ length: N }, (_, i) => hcpRequest(pkg, i));
  // Warm-up, not counted: caches fill and V8 finishes optimizing the hot code (its compiler
  // threads' CPU time would otherwise land in the measured process CPU time). Other HCPs than
  // the measured ones, so no measured render repeats a warm-up render's context.
  for (let i = 0; i < WARM; i++) fixtureFiles(renderPackage(hcpRequest(pkg, N + i)));
  if (global.gc) global.gc();
  const heapBefore = process.memoryUsage().heapUsed;
  let peakHeap = heapBefore;
  let objects = 0;
  let bytes = 0;
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) {
    const r = renderPackage(reqs[i]);
    objects += r.objects.length;
    for (const b of fixtureFiles(r).values()) bytes += b.length;
    if ((i & 63) === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  const secs = Number(process.hrtime.bigint() - t0) / 1e9;
  const cpu = process.cpuUsage(c0);
  const cpuSecs = (cpu.user + cpu.system) / 1e6;
  const cpuRate = N / cpuSecs;
  const load = os.loadavg()[0];
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  const rate = N / secs;
  const maxRss = process.resourceUsage().maxRSS / 1024;
  const templates = [...pkg.files.keys()].filter((p) => p.endsWith('.gotmpl')).length;
  return [
    '## Render (pkogen render / template tests)',
    '',
    `Package \`${source}\` (${pkg.files.size} files, ${templates} templates) rendered for ${N} distinct HCP contexts through the full pipeline (admission, CEL, templates, objects, filters, fixture layout), after ${WARM} warm-up renders of other HCPs (not counted).`,
    '',
    '| measure | value |',
    '|---|---|',
    `| renders/s (wall clock) | ${rate.toFixed(0)} |`,
    `| renders per CPU-second | ${cpuRate.toFixed(0)} |`,
    `| CPU time per render | ${((cpuSecs * 1000) / N).toFixed(3)} ms |`,
    `| load average during the run (${os.cpus().length} cores) | ${load.toFixed(1)} |`,
    `| objects per render | ${(objects / N).toFixed(1)} |`,
    `| output per render | ${(bytes / N / 1024).toFixed(1)} KiB |`,
    `| peak heap used | ${(peakHeap / 2 ** 20).toFixed(1)} MiB |`,
    `| max RSS (process) | ${maxRss.toFixed(1)} MiB |`,
    '',
    `Target ≥ 3,000 renders per CPU-second (issue 16): ${cpuRate >= 3000 ? 'met' : 'NOT met'} (${cpuRate.toFixed(0)}).`,
    'Wall-clock throughput depends on how many other processes share the cores; CPU time per render does not.',
  ].join('\n');
}
