/**
 * `pkogen status -A` over 5,000 HCP namespaces (a Package, ObjectDeployment and ObjectSet each)
 * served by the project's API test server: paged lists (500 per page), rows, summary.
 * Run alone with `node dist/test/bench/run.js status` after `make build`.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { main } from '../../src/cli/main.js';
import { startApiServer } from '../kube/api-server.js';
import { registerPkoCrds, seedNamespace } from '../status/fleet.js';

const NAMESPACES = 5000;
const RUNS = 3;

export async function bench(): Promise<string> {
  const server = await startApiServer({ identities: [{ name: 'admin', token: 'bench-token' }] });
  const dir = mkdtempSync(path.join(tmpdir(), 'pkogen-bench-status-'));
  try {
    registerPkoCrds(server);
    for (let i = 0; i < NAMESPACES; i++) seedNamespace(server, `hcp-${String(i).padStart(4, '0')}`, i % 100 === 3 ? 'progressing' : 'available', i);
    const kubeconfig = path.join(dir, 'kubeconfig');
    writeFileSync(kubeconfig, server.kubeconfig('admin', {}));
    const times: number[] = [];
    let rows = 0;
    let pages = 0;
    for (let r = 0; r < RUNS; r++) {
      server.clearAudit();
      let out = '';
      const t = performance.now();
      const code = await main(['status', '-A', '--kubeconfig', kubeconfig, '-o', 'json'], { stdout: (s) => void (out += s), stderr: () => {}, env: {}, cwd: dir });
      times.push(performance.now() - t);
      if (code !== 1) throw new Error(`status exited ${code}, expected 1 (some Packages progress)`);
      rows = JSON.parse(out).packages.length;
      pages = server.audit.filter((e) => e.resource === 'packages' && e.verb === 'list').length;
    }
    times.sort((a, b) => a - b);
    return [
      '## pkogen status: 5,000 namespaces',
      '',
      `\`pkogen status -A -o json\` against the API test server holding ${NAMESPACES} namespaces × (Package, ObjectDeployment, ObjectSet); one paged list per kind, 500 per page (${pages} Package pages). Command: \`make build && node dist/test/bench/run.js status\`.`,
      '',
      '| runs | min | median | max | rows |',
      '|---|---|---|---|---|',
      `| ${RUNS} | ${times[0].toFixed(0)} ms | ${times[Math.floor(RUNS / 2)].toFixed(0)} ms | ${times[RUNS - 1].toFixed(0)} ms | ${rows} |`,
      '',
      'Includes TLS, JSON encoding and decoding on both ends (server and client share the process).',
    ].join('\n');
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
