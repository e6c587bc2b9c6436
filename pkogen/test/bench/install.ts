/**
 * `npm run bench -- install` (issue 24): what installing pkogen costs a team. Packs pkogen as npm
 * would publish it (a staged copy, as the consumer test does), installs the tarball alone in an
 * empty project, then again with its optional peers (ts-morph, @kubernetes/client-node), and
 * reports node_modules' size on disk and package count for each. Dependencies come from npm's
 * cache when it has them (--prefer-offline).
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO } from './repo.js';

const PKOGEN = path.join(REPO, 'pkogen');
const run = (cmd: string, args: string[], cwd: string) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 600_000, env: { ...process.env, npm_config_update_notifier: 'false' } });
const du = (dir: string) => Number(run('du', ['-sk', dir], dir).split('\t')[0]) * 1024;
const count = (nm: string) => readdirSync(nm).flatMap((d) => (d.startsWith('@') ? readdirSync(path.join(nm, d)) : d.startsWith('.') ? [] : [d])).length;
const MB = (b: number) => `${(b / 1e6).toFixed(0)} MB`;

export async function bench(): Promise<string> {
  const tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-bench-install-'));
  try {
    const stage = path.join(tmp, 'stage');
    mkdirSync(stage);
    for (const f of ['package.json', 'README.md', 'bin', 'src', 'hack', 'templates', 'tsconfig.json', 'tsconfig.lib.json', 'tsconfig.cli.json']) cpSync(path.join(PKOGEN, f), path.join(stage, f), { recursive: true });
    symlinkSync(path.join(REPO, 'node_modules'), path.join(stage, 'node_modules'));
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], stage).replace(/^[^[]*/, '')) as { filename: string; size: number; unpackedSize: number }[];
    const tarball = path.join(tmp, packed[0]!.filename);
    const rows: string[] = [];
    for (const [label, extra] of [['pkogen alone (validate, build, render, tree, lint-rollout, simulate, generate, verify, diff, init)', []], ['with its optional peers ts-morph and @kubernetes/client-node (kickstart, import, status)', ['ts-morph@27', '@kubernetes/client-node@2']]] as const) {
      const dir = path.join(tmp, `p${rows.length}`);
      mkdirSync(dir);
      writeFileSync(path.join(dir, 'package.json'), '{"name":"bench","private":true}\n');
      run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball, ...extra], dir);
      const nm = path.join(dir, 'node_modules');
      rows.push(`| ${label} | ${MB(du(nm))} | ${count(nm)} |`);
    }
    return [
      '## Install size (issue 24)',
      '',
      `Command: \`make build && npm run bench -- install\` (test/bench/install.ts). The tarball: ${MB(packed[0]!.size)} packed, ${MB(packed[0]!.unpackedSize)} unpacked.`,
      '',
      '| install | node_modules on disk | packages |',
      '|---|---|---|',
      ...rows,
    ].join('\n');
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(`${await bench()}\n`);
