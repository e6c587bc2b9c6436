/**
 * Peak memory of one release resolve against a gzip bomb: a 127.0.0.1 registry serves
 * a release whose only layer is about 1 MiB of gzip that decompresses to 1 GiB (one tar entry of
 * zeros, no image-references). Prints the outcome and the process's peak RSS.
 *
 *   make build && node dist/test/bench/release-bomb.js [module]
 *
 * `npm run bench -- release-bomb` runs it in a child process (peak RSS is per process) and
 * reports it as a section of docs/benchmarks.md.
 *
 * `module` (default ../../builder/registry/release.js) is the release module to measure: any module
 * exporting a ReleaseResolver with `resolve(pullspec)`; run each in its own process.
 */
import { execFileSync } from 'node:child_process';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createGzip } from 'node:zlib';
import { Blob, Image } from 'pkogen/oci';
import { MediaType } from 'pkogen/oci';
import { writeTar } from 'pkogen/oci';

const enc = new TextEncoder();

function tarHeader(name: string, size: number): Uint8Array {
  const t = writeTar([{ name, type: 'file', data: new Uint8Array(0) }]).slice(0, 512);
  t.set(enc.encode(size.toString(8).padStart(11, '0') + '\0'), 124);
  t.fill(0x20, 148, 156);
  let sum = 0;
  for (const b of t) sum += b;
  t.set(enc.encode(sum.toString(8).padStart(6, '0') + '\0 '), 148);
  return t;
}

/** gzip(tar header + `size` zeros), streamed so the bench itself never holds 1 GiB. */
async function bomb(size: number): Promise<Uint8Array> {
  const gz = createGzip({ level: 9 });
  const out: Buffer[] = [];
  gz.on('data', (c: Buffer) => out.push(c));
  const done = new Promise((r) => gz.on('end', r));
  gz.write(tarHeader('payload', size));
  const zero = Buffer.alloc(1 << 20);
  for (let left = size; left > 0; left -= zero.length) {
    if (!gz.write(left >= zero.length ? zero : zero.subarray(0, left))) await new Promise((r) => gz.once('drain', r));
  }
  gz.end(Buffer.alloc(1024));
  await done;
  return new Uint8Array(Buffer.concat(out));
}

async function main(): Promise<void> {
  const mod = process.argv[2] ?? '../../builder/registry/release.js';
  const layerBytes = await bomb(1 << 30);
  const config = new Blob(MediaType.OciConfig, enc.encode(JSON.stringify({ architecture: 'amd64', os: 'linux' })));
  const img = Image.fromBlobs(config, [new Blob(MediaType.OciLayerGzip, layerBytes)]);
  const blobs = new Map(img.blobs().map((b) => [b.digest, b.bytes]));
  const server = http.createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/v2/') return void res.end('{}');
    if (url.endsWith(`/manifests/${img.digest}`)) {
      res.writeHead(200, { 'Content-Type': img.manifestMediaType });
      return void res.end(Buffer.from(img.manifest));
    }
    const b = blobs.get(url.slice(url.lastIndexOf('/') + 1));
    if (!b) return void res.writeHead(404).end('{}');
    res.end(Buffer.from(b));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  const { ReleaseResolver } = (await import(mod)) as { ReleaseResolver: new () => { resolve(s: string): Promise<unknown> } };
  const rssBefore = process.memoryUsage().rss;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  const t0 = process.hrtime.bigint();
  let outcome: string;
  try {
    await new ReleaseResolver().resolve(`127.0.0.1:${port}/ocp/release@${img.digest}`);
    outcome = 'resolved (unexpected)';
  } catch (e) {
    outcome = (e as Error).message;
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  clearInterval(sampler);
  server.close();
  const MiB = (n: number) => `${(n / (1 << 20)).toFixed(0)} MiB`;
  console.log(JSON.stringify({ module: mod, layerBytes: layerBytes.length, outcome, ms: Math.round(ms), rssBefore: MiB(rssBefore), rssPeakSampled: MiB(peak), maxRSS: MiB(process.resourceUsage().maxRSS * 1024) }, null, 1));
}

/** The section for docs/benchmarks.md: this file run in its own process against builder/registry/release.js. */
export async function bench(): Promise<string> {
  const out = execFileSync(process.execPath, [fileURLToPath(import.meta.url)], { encoding: 'utf8', timeout: 300_000 });
  const r = JSON.parse(out) as Record<string, unknown>;
  return [
    '## Release resolution against a gzip bomb',
    '',
    'Command: `make build && npm run bench -- release-bomb` (test/bench/release-bomb.ts: a 127.0.0.1 registry serves a release whose one layer is ~1 MiB of gzip that inflates to 1 GiB).',
    '',
    '| layer bytes | outcome | time | RSS before | peak RSS (sampled) | max RSS |',
    '|---|---|---|---|---|---|',
    `| ${r.layerBytes} | ${String(r.outcome).replace(/\|/g, '\\|')} | ${r.ms} ms | ${r.rssBefore} | ${r.rssPeakSampled} | ${r.maxRSS} |`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) void main();
