/**
 * Whole-process benchmark: what a user or CI waits for, Node start-up included. In every round
 * each command runs once, in an order rotated per round, so machine load drifting during the run
 * affects all commands alike; medians over the rounds, ratios against `node -e 0` from the same
 * rounds. pkogen runs as users run it (bin/pkogen.js, the bundle when `make build` wrote one);
 * the unbundled rows load dist/src directly, to show what the bundle saves.
 * buildah and skopeo rows appear only when the tools are installed.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createCipheriv } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { OUR_PACKAGE, REPO } from './repo.js';
import { cleanupRegistry, startRegistry } from '../oci/registry-harness.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '..', '..', '..');
const ROUNDS = 7;
const BIG = 50 * 2 ** 20;

interface Cmd {
  label: string;
  cmd: string;
  args: (round: number) => string[];
  /** Extra environment (PKOGEN_CODE_CACHE=0: the ES bundle, for comparison with the code cache). */
  env?: Record<string, string>;
  /** Environment variables removed for this command (see WITHOUT_CA). */
  unset?: string[];
  /** Working directory (default: pkogen/). */
  cwd?: string;
  /** Untimed set-up before each run. */
  prepare?: (round: number) => Promise<void>;
}

/**
 * NODE_EXTRA_CA_CERTS makes every Node process read and parse that bundle before running a line
 * (~55 ms of `node -e 0`'s 88 ms on the machine these numbers come from, which sets it globally);
 * Go tools (skopeo, buildah) do not read it. When it is set, the pkogen rows are also measured
 * without it, against a `node -e 0` without it, so that the ratios are shown both ways.
 */
const CA = 'NODE_EXTRA_CA_CERTS';
const caSet = process.env[CA] !== undefined;
const withoutCa = (c: Cmd): Cmd => ({ ...c, label: `${c.label}, without ${CA}`, unset: [CA] });

const has = (tool: string) => spawnSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' }).status === 0;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function runOnce(c: Cmd, round: number): Promise<number> {
  await c.prepare?.(round);
  const t = performance.now();
  const env = c.env || c.unset ? { ...process.env, ...c.env } : undefined;
  for (const k of c.unset ?? []) delete env![k];
  execFileSync(c.cmd, c.args(round), { cwd: c.cwd ?? root, stdio: 'pipe', maxBuffer: 64 << 20, env });
  return performance.now() - t;
}

/**
 * Each command once per round, the order rotated per round, ROUNDS rounds after one warm-up round
 * (round -1: warms the page cache, not counted); the median per command.
 */
async function medianOfRounds(cmds: Cmd[]): Promise<number[]> {
  const times = cmds.map(() => [] as number[]);
  for (let round = -1; round < ROUNDS; round++) {
    for (let k = 0; k < cmds.length; k++) {
      const j = (k + Math.max(round, 0)) % cmds.length;
      const ms = await runOnce(cmds[j], round);
      if (round >= 0) times[j].push(ms);
    }
  }
  return times.map(median);
}

/** Incompressible but reproducible bytes (AES-CTR keystream), so the layer really is ~50 MB. */
function bigFile(file: string): void {
  const c = createCipheriv('aes-128-ctr', Buffer.alloc(16, 7), Buffer.alloc(16, 0));
  writeFileSync(file, Buffer.concat([c.update(Buffer.alloc(BIG)), c.final()]));
}

/** Peak RSS of one run, from GNU time when installed (not part of the timed rounds). */
function peakRss(args: string[]): number | undefined {
  if (!existsSync('/usr/bin/time')) return undefined;
  const r = spawnSync('/usr/bin/time', ['-f', '%M', 'node', ...args], { cwd: root, encoding: 'utf8' });
  const kb = Number(r.stderr.trim().split('\n').pop());
  return Number.isFinite(kb) ? kb / 1024 : undefined;
}

export async function bench(): Promise<string> {
  if (!existsSync(path.join(OUR_PACKAGE, 'manifest.yaml'))) throw new Error('process bench: run `make package` first (needs package/)');
  const bundled = existsSync(path.join(root, 'dist', 'bundle', 'pkogen.mjs'));
  const tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-bench-process-'));
  const pkogen = (...a: string[]) => ['bin/pkogen.js', ...a];
  const mainUrl = pathToFileURL(path.join(root, 'dist', 'src', 'cli', 'main.js')).href;
  const unbundled = (...a: string[]) => ['--input-type=module', '-e', `const { main } = await import(${JSON.stringify(mainUrl)}); process.exitCode = await main(process.argv.slice(1));`, '--', ...a];
  const cmds: Cmd[] = [
    { label: '`node -e 0`', cmd: 'node', args: () => ['-e', '0'] },
    { label: '`pkogen --help`', cmd: 'node', args: () => pkogen('--help') },
    { label: '`pkogen validate package`', cmd: 'node', args: () => pkogen('validate', OUR_PACKAGE) },
    { label: '`pkogen build package -t T --output-file x.tar`', cmd: 'node', args: () => pkogen('build', OUR_PACKAGE, '-t', 'localhost/bench:1', '--output-file', path.join(tmp, 'x.tar')) },
    { label: '`pkogen validate package`, ES bundle without the code cache', cmd: 'node', args: () => pkogen('validate', OUR_PACKAGE), env: { PKOGEN_CODE_CACHE: '0' } },
    { label: '`pkogen build …`, ES bundle without the code cache', cmd: 'node', args: () => pkogen('build', OUR_PACKAGE, '-t', 'localhost/bench:1', '--output-file', path.join(tmp, 'z.tar')), env: { PKOGEN_CODE_CACHE: '0' } },
    { label: '`pkogen validate package`, unbundled (dist/src)', cmd: 'node', args: () => unbundled('validate', OUR_PACKAGE) },
    { label: '`pkogen build …`, unbundled (dist/src)', cmd: 'node', args: () => unbundled('build', OUR_PACKAGE, '-t', 'localhost/bench:1', '--output-file', path.join(tmp, 'y.tar')) },
    // What `make package` and `make verify` run first: our bundle module, the library (dist/src) it
    // imports, and the rollout lint inside it; then the rollout lint alone, as a CLI command.
    { label: '`pkogen verify dist/resources/resources.js`', cmd: 'node', args: () => [path.join(root, 'bin', 'pkogen.js'), 'verify', path.join('dist', 'resources', 'resources.js')], cwd: REPO },
    { label: '`pkogen lint-rollout` of our Template', cmd: 'node', args: () => pkogen('lint-rollout', path.join(REPO, 'hack', 'on-cluster-build.SelectorSyncSet.yaml.tmpl')) },
  ];
  if (caSet) cmds.push(...cmds.slice(0, 4).map(withoutCa));
  const notes: string[] = [];
  if (has('buildah')) {
    const ctx = path.join(tmp, 'ctx');
    cpSync(OUR_PACKAGE, path.join(ctx, 'package'), { recursive: true });
    cpSync(path.join(REPO, 'Containerfile'), path.join(ctx, 'Containerfile'));
    if (existsSync(path.join(REPO, '.containerignore'))) cpSync(path.join(REPO, '.containerignore'), path.join(ctx, '.containerignore'));
    const store = ['--root', path.join(tmp, 'bh-root'), '--runroot', path.join(tmp, 'bh-run'), '--storage-driver', 'vfs'];
    cmds.push({ label: '`buildah bud` of the same package (Containerfile, vfs, chroot)', cmd: 'buildah', args: (i) => [...store, 'bud', '--isolation', 'chroot', '--layers=false', '-q', '-f', path.join(ctx, 'Containerfile'), '-t', `localhost/bench:${i + 2}`, ctx] });
  } else notes.push('buildah is not installed: its row is left out.');
  try {
    const med = await medianOfRounds(cmds);
    const floor = med[0];
    const rss = peakRss(pkogen('validate', OUR_PACKAGE));
    const rows = cmds.map((c, i) => `| ${c.label} | ${med[i].toFixed(0)} ms | ${(med[i] / floor).toFixed(2)}× |`);
    const ratio = (label: string) => {
      const i = cmds.findIndex((c) => c.label === label);
      return i < 0 ? undefined : med[i] / floor;
    };
    // The same ratio with NODE_EXTRA_CA_CERTS unset for both the command and the floor.
    const cleanRatio = (label: string) => {
      const i = cmds.findIndex((c) => c.label === `${label}, without ${CA}`);
      const f = cmds.findIndex((c) => c.label === `\`node -e 0\`, without ${CA}`);
      return i < 0 || f < 0 ? undefined : med[i] / med[f];
    };
    const target = (name: string, got: number | undefined, limit: number, unit = '×', clean?: number) =>
      got === undefined
        ? `- ${name}: not measured`
        : `- ${name} ≤ ${limit}${unit}: ${got.toFixed(2)}${unit}, ${got <= limit ? 'met' : 'NOT met'}${clean === undefined ? '' : ` (without ${CA}: ${clean.toFixed(2)}${unit}, ${clean <= limit ? 'met' : 'NOT met'})`}`;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / ');
    const second = await shipAndSimulate();
    // The four start-up ratios together (each against `node -e 0` of its own section's rounds),
    // also on stderr: what a rerun on a quiet machine is for.
    const four = [
      `The four start-up targets (Node ${process.version}, × \`node -e 0\` of the same rounds; load average at the end of the first section ${load}):`,
      '',
      ...(
        [
          ['`pkogen validate package`', ratio('`pkogen validate package`'), 2.5],
          ['`pkogen build package -t T --output-file x.tar`', ratio('`pkogen build package -t T --output-file x.tar`'), 2],
          ['`pkogen --help`', ratio('`pkogen --help`'), 1.2],
          ['`pkogen simulate` of 2,000 HCP namespaces', second.simulate, 15],
        ] as const
      ).map(([name, got, limit]) => `- ${name}: ${got === undefined ? 'not measured' : `${got.toFixed(2)}× (≤ ${limit}×: ${got <= limit ? 'met' : 'NOT met'})`}`),
    ];
    process.stderr.write(four.join('\n') + '\n');
    return [
      '## Whole processes (start-up included)',
      '',
      `\`npm run bench -- process\` (after \`make build\`${bundled ? '' : '; NO bundle was built, so pkogen rows are unbundled too'}). ${ROUNDS} rounds after one warm-up round; in each round every command runs once, the order rotated per round; medians, and ratios against \`node -e 0\` from the same rounds. Load average at the end: ${load} (2 cores shared with other work).`,
      '',
      '| command | median | × `node -e 0` |',
      '| --- | ---: | ---: |',
      ...rows,
      '',
      'Targets:',
      target('`pkogen build`', ratio('`pkogen build package -t T --output-file x.tar`'), 2, '×', cleanRatio('`pkogen build package -t T --output-file x.tar`')),
      target('`pkogen validate package`', ratio('`pkogen validate package`'), 2.5, '×', cleanRatio('`pkogen validate package`')),
      target('`pkogen --help`', ratio('`pkogen --help`'), 1.2, '×', cleanRatio('`pkogen --help`')),
      target('peak RSS of `validate package` (one run, GNU time)', rss, 120, ' MiB'),
      ...(caSet ? [`- ${CA} is set here: every Node process, \`node -e 0\` included, reads that CA bundle at start; the rows "without ${CA}" unset it for the command and for its floor.`] : []),
      ...notes.map((n) => `- ${n}`),
      '',
      second.text,
      '',
      ...four,
    ].join('\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * The push and simulate targets, a section of its own: `pkogen push` of an already built
 * 50 MB image against `skopeo copy` of the same OCI layout (each run to a fresh registry, so every
 * blob is uploaded), and `pkogen simulate` of our rollout over 2,000 HCP namespaces with our
 * package; rounds alternate with `node -e 0` like the section above.
 */
async function shipAndSimulate(): Promise<{ text: string; simulate: number }> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-bench-ship-'));
  const regs: Awaited<ReturnType<typeof startRegistry>>[] = [];
  const fresh = async (i: number) => {
    if (regs[i]) await cleanupRegistry(regs[i]);
    regs[i] = await startRegistry('http');
  };
  try {
    const { emitRolloutTemplate } = await import('../../src/rollout/generate.js');
    const { ourRolloutOptions } = await import('./repo.js');
    const rollout = path.join(tmp, 'rollout.yaml');
    writeFileSync(rollout, emitRolloutTemplate(await ourRolloutOptions()));
    const digest = 'a'.repeat(64);
    const params = [`REGISTRY_IMG=quay.io/app-sre/on-cluster-build-hs-package`, `IMAGE_DIGEST=sha256:${digest}`, 'IMAGE_TAG=abc1234', `ON_CLUSTER_BUILD_IMAGE=quay.io/app-sre/on-cluster-build@sha256:${digest}`];
    const cmds: Cmd[] = [
      { label: '`node -e 0`', cmd: 'node', args: () => ['-e', '0'] },
      { label: '`pkogen simulate` of our rollout, 2,000 HCP namespaces, `--package package`', cmd: 'node', args: () => ['bin/pkogen.js', 'simulate', rollout, ...params.flatMap((p) => ['-p', p]), '--hcp-namespaces', '2000', '--package', OUR_PACKAGE] },
    ];
    const notes: string[] = [];
    if (has('skopeo') && has('docker-registry')) {
      const big = path.join(tmp, 'big');
      cpSync(OUR_PACKAGE, big, { recursive: true });
      bigFile(path.join(big, 'blob.bin'));
      const layout = path.join(tmp, 'big-layout');
      execFileSync('node', ['bin/pkogen.js', 'build', big, '-t', 'localhost/big:src', '--oci-layout', layout], { cwd: root, stdio: 'pipe' });
      cmds.push(
        { label: '`skopeo copy` of a 50 MB package (OCI layout → fresh local registry)', cmd: 'skopeo', args: () => ['copy', '-q', '--dest-tls-verify=false', `oci:${layout}:src`, `docker://${regs[0]!.host}/bench/skopeo:v1`], prepare: () => fresh(0) },
        { label: '`pkogen push --oci-layout` of the same layout (→ fresh local registry)', cmd: 'node', args: () => ['bin/pkogen.js', 'push', '--oci-layout', layout, `${regs[1]!.host}/bench/pkogen:v1`], prepare: () => fresh(1) },
      );
      // skopeo never reads NODE_EXTRA_CA_CERTS; pkogen pays for it at every start.
      if (caSet) cmds.push({ ...withoutCa(cmds[cmds.length - 1]), args: () => ['bin/pkogen.js', 'push', '--oci-layout', layout, `${regs[2]!.host}/bench/pkogen:v1`], prepare: () => fresh(2) });
    } else notes.push('skopeo or docker-registry is not installed: the push rows are left out.');
    const med = await medianOfRounds(cmds);
    const at = (prefix: string) => cmds.findIndex((c) => c.label.startsWith(prefix));
    const sim = med[at('`pkogen simulate`')] / med[0];
    const push = at('`pkogen push') >= 0 ? med[at('`pkogen push')] / med[at('`skopeo copy`')] : undefined;
    const pushClean = cmds.findIndex((c) => c.label.startsWith('`pkogen push') && c.unset) >= 0 ? med[cmds.findIndex((c) => c.label.startsWith('`pkogen push') && c.unset)] / med[at('`skopeo copy`')] : undefined;
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' / ');
    const text = [
      '## Whole processes: push and simulate',
      '',
      `\`npm run bench -- process\` (second section). ${ROUNDS} rounds after one warm-up round, order rotated per round; medians. Each push (skopeo and pkogen alike) goes to a registry started fresh for that run. Load average at the end: ${load}.`,
      '',
      '| command | median | × `node -e 0` |',
      '| --- | ---: | ---: |',
      ...cmds.map((c, i) => `| ${c.label} | ${med[i].toFixed(0)} ms | ${(med[i] / med[0]).toFixed(2)}× |`),
      '',
      'Targets:',
      `- \`simulate\` of 2,000 HCP namespaces ≤ 15× \`node -e 0\`: ${sim.toFixed(2)}×, ${sim <= 15 ? 'met' : 'NOT met'}`,
      push === undefined
        ? '- push vs `skopeo copy`: not measured'
        : `- \`pkogen push\` of 50 MB ≤ 1.2× \`skopeo copy\` of the same image: ${push.toFixed(2)}×, ${push <= 1.2 ? 'met' : 'NOT met'}${pushClean === undefined ? '' : ` (without ${CA}, which skopeo never reads: ${pushClean.toFixed(2)}×, ${pushClean <= 1.2 ? 'met' : 'NOT met'})`}`,
      ...notes.map((n) => `- ${n}`),
    ].join('\n');
    return { text, simulate: sim };
  } finally {
    for (const r of regs) if (r) await cleanupRegistry(r);
    rmSync(tmp, { recursive: true, force: true });
  }
}
