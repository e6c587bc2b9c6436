/**
 * Hostile images, registries and credential helpers, through the built CLI (bin/pkogen.js →
 * dist/, compiled into a private copy): each must end within seconds with exit 1, a located
 * message and no stack trace or `internal error`, and never print a credential.
 * Network faults come from servers on 127.0.0.1 that this file starts and stops; the clocks are
 * made small with the CLI's own flags.
 */
import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, truncateSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { fileMap, toText } from '../../src/core/filemap.js';
import { writeDockerArchive } from '../../src/oci/docker-archive.js';
import { writeOciLayout } from '../../src/oci/layout.js';
import { buildPackageImage } from '../../src/oci/package-image.js';
import { writeTar } from '../../src/oci/tar.js';
import { NODE_MODULES } from '../helpers.js';

const SOURCE_ROOT = process.cwd();
let ROOT: string;
let tmp: string;

beforeAll(() => {
  tmp = mkdtempSync(path.join(tmpdir(), 'pkogen-hostile-'));
  ROOT = path.join(tmp, 'install');
  mkdirSync(ROOT);
  for (const f of ['bin', 'package.json']) cpSync(path.join(SOURCE_ROOT, f), path.join(ROOT, f), { recursive: true });
  symlinkSync(NODE_MODULES, path.join(ROOT, 'node_modules'));
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', path.join(ROOT, 'dist')], { cwd: SOURCE_ROOT, stdio: 'pipe' });
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs the CLI without blocking this process (the fault servers live here). A run that hangs is
 * killed after 30 s and fails its test by exit code (null), never by a timed assertion.
 */
function cli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['bin/pkogen.js', ...args], { cwd: ROOT, env: { PATH: process.env.PATH!, HOME: tmp, ...env }, timeout: 30_000, killSignal: 'SIGKILL', maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: number }).code ?? null) : 0;
      resolve({ code: typeof code === 'number' ? code : null, stdout, stderr });
    });
  });
}

/** Exit 1, one `error:` line matching `re`, no stack trace, no internal error. */
function expectCleanFailure(r: Result, re: RegExp): void {
  expect(r.stderr).toMatch(re);
  expect(r.code).toBe(1);
  expect(r.stderr + r.stdout).not.toMatch(/internal error|\n\s+at |Error: |EPIPE/);
  expect(r.stderr.split('\n').filter((l) => l.startsWith('error: '))).toHaveLength(1);
}

const image = buildPackageImage(fileMap({ 'manifest.yaml': 'apiVersion: manifests.package-operator.run/v1alpha1\nkind: PackageManifest\n' }));
const manifestJson = JSON.parse(toText(image.manifest));
const hex = (d: string) => d.slice('sha256:'.length);

async function layout(name: string): Promise<string> {
  const dir = path.join(tmp, name);
  await writeOciLayout(dir, image, ['v1']);
  return dir;
}

/** Rewrites the layout's manifest blob (and index.json's descriptor of it) with `m`. */
function setManifest(dir: string, m: unknown): string {
  const bytes = Buffer.from(JSON.stringify(m));
  const digest = `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
  writeFileSync(path.join(dir, 'blobs/sha256', hex(digest)), bytes);
  const index = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8'));
  index.manifests[0] = { ...index.manifests[0], digest, size: bytes.length };
  writeFileSync(path.join(dir, 'index.json'), JSON.stringify(index));
  return path.join(dir, 'blobs/sha256', hex(digest));
}

describe('--oci-layout and --archive files that are not regular files', () => {
  it('a layer blob linked to /dev/zero is refused, not read', async () => {
    const dir = await layout('zero-link');
    const blob = path.join(dir, 'blobs/sha256', hex(manifestJson.layers[0].digest));
    unlinkSync(blob);
    symlinkSync('/dev/zero', blob);
    const r = await cli(['validate', '--oci-layout', dir]);
    expectCleanFailure(r, new RegExp(`^error: invalid image: ${blob}: is a symbolic link; only regular files are read from an image$`, 'm'));
  });

  it('a FIFO as a blob or as index.json does not hang', async () => {
    const dir = await layout('fifo');
    const blob = path.join(dir, 'blobs/sha256', hex(manifestJson.config.digest));
    unlinkSync(blob);
    execFileSync('mkfifo', [blob]);
    const r = await cli(['validate', '--oci-layout', dir]);
    expectCleanFailure(r, new RegExp(`^error: invalid image: ${blob}: is a FIFO; only regular files are read from an image$`, 'm'));
    unlinkSync(path.join(dir, 'index.json'));
    execFileSync('mkfifo', [path.join(dir, 'index.json')]);
    expectCleanFailure(await cli(['validate', '--oci-layout', dir]), /^error: invalid image: .*\/index\.json: is a FIFO/m);
  });

  it('--archive /dev/zero and --archive FIFO are refused at once', async () => {
    expectCleanFailure(await cli(['validate', '--archive', '/dev/zero']), /^error: invalid image: \/dev\/zero: is a character device; only regular files are read from an image$/m);
    const fifo = path.join(tmp, 'archive.fifo');
    execFileSync('mkfifo', [fifo]);
    expectCleanFailure(await cli(['validate', '--archive', fifo]), /^error: invalid image: .*archive\.fifo: is a FIFO/m);
  });

  it('blobs/ linked elsewhere is refused', async () => {
    const dir = await layout('blobs-link');
    const real = path.join(tmp, 'elsewhere');
    cpSync(path.join(dir, 'blobs'), real, { recursive: true });
    rmSync(path.join(dir, 'blobs'), { recursive: true });
    symlinkSync(real, path.join(dir, 'blobs'));
    expectCleanFailure(await cli(['validate', '--oci-layout', dir]), /^error: invalid image: .*blobs-link\/blobs: is a symbolic link/m);
  });
});

describe('sizes are checked before reading', () => {
  it('6 layers of 500 MiB: refused by the per-image total without reading a byte', async () => {
    const dir = await layout('six-layers');
    const big = 500 * 1024 * 1024;
    // Sparse files: the sizes are real, the disk and memory cost is not; nothing may read them.
    const layers = Array.from({ length: 6 }, (_, i) => {
      const digest = `sha256:${String(i).repeat(64)}`;
      const f = path.join(dir, 'blobs/sha256', hex(digest));
      writeFileSync(f, '');
      truncateSync(f, big);
      return { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest, size: big };
    });
    const m = setManifest(dir, { ...manifestJson, layers });
    const r = await cli(['validate', '--oci-layout', dir]);
    expectCleanFailure(r, new RegExp(`^error: invalid image: ${m}: layers\\[1\\]\\.size: the image's blobs \\(config and 6 layers\\) add up to more than the 536870912 bytes allowed per image$`, 'm'));
  });

  it('a blob whose file size differs from its descriptor is refused before it is read', async () => {
    const dir = await layout('size-lie');
    const claimed = { ...manifestJson.layers[0], size: 3 };
    const m = setManifest(dir, { ...manifestJson, layers: [claimed] });
    const blob = path.join(dir, 'blobs/sha256', hex(claimed.digest));
    expectCleanFailure(await cli(['validate', '--oci-layout', dir]), new RegExp(`^error: invalid image: ${m}: layers\\[0\\]\\.size: ${blob} has \\d+ bytes, the descriptor says 3$`, 'm'));
  });
});

describe('malformed-but-valid JSON in image metadata: invalid image: <file>: <field>: …', () => {
  const cases: [string, (dir: string) => string, RegExp][] = [
    ['index.json = null', (dir) => (writeFileSync(path.join(dir, 'index.json'), 'null'), path.join(dir, 'index.json')), /: expected an object, got null$/],
    ['"manifests": {}', (dir) => (writeFileSync(path.join(dir, 'index.json'), '{"schemaVersion":2,"manifests":{}}'), path.join(dir, 'index.json')), /: manifests: expected an array, got an object$/],
    [
      'an index entry with size "12"',
      (dir) => {
        const f = path.join(dir, 'index.json');
        const j = JSON.parse(readFileSync(f, 'utf8'));
        j.manifests[0].size = '12';
        writeFileSync(f, JSON.stringify(j));
        return f;
      },
      /: manifests\[0\]\.size: expected a byte count, got a string$/,
    ],
    ['layers: true', (dir) => setManifest(dir, { ...manifestJson, layers: true }), /: layers: expected an array, got a boolean$/],
    ['layers: [null]', (dir) => setManifest(dir, { ...manifestJson, layers: [null] }), /: layers\[0\]: expected an object, got null$/],
    ['config missing', (dir) => setManifest(dir, { ...manifestJson, config: undefined }), /: config: missing$/],
    ['a layer digest that is not sha256', (dir) => setManifest(dir, { ...manifestJson, layers: [{ ...manifestJson.layers[0], digest: 'md5:abc' }] }), /: layers\[0\]\.digest: unsupported digest "md5:abc"/],
  ];
  it.each(cases)('%s', async (name, mutate, re) => {
    const dir = await layout(`json-${name.replace(/\W+/g, '_')}`);
    const file = mutate(dir);
    const r = await cli(['validate', '--oci-layout', dir]);
    expectCleanFailure(r, new RegExp(`^error: invalid image: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${re.source}`, 'm'));
  });

  it('docker manifest.json: Layers: null, RepoTags: "x", a config whose Labels is a list', async () => {
    const arch = (name: string, manifest: unknown, config = image.config.bytes) => {
      const f = path.join(tmp, `${name}.tar`);
      writeFileSync(f, writeTar([
        { name: 'config.json', type: 'file', data: config },
        { name: 'layer.tar.gz', type: 'file', data: image.layers[0].bytes },
        { name: 'manifest.json', type: 'file', data: Buffer.from(JSON.stringify(manifest)) },
      ]));
      return f;
    };
    const ok = { Config: 'config.json', RepoTags: ['x:1'], Layers: ['layer.tar.gz'] };
    let f = arch('layers-null', [{ ...ok, Layers: null }]);
    expectCleanFailure(await cli(['validate', '--archive', f]), new RegExp(`^error: invalid image: ${f}\\(manifest\\.json\\): \\[0\\]\\.Layers: expected an array, got null$`, 'm'));
    f = arch('tags-string', [{ ...ok, RepoTags: 'x' }]);
    expectCleanFailure(await cli(['validate', '--archive', f]), /: \[0\]\.RepoTags: expected an array, got a string$/m);
    f = arch('manifest-object', { ...ok });
    expectCleanFailure(await cli(['validate', '--archive', f]), /\(manifest\.json\): expected an array, got an object$/m);
    f = arch('labels-list', [ok], Buffer.from('{"config":{"Labels":["a"]}}'));
    expectCleanFailure(await cli(['validate', '--archive', f]), new RegExp(`^error: invalid image: ${f}\\(config\\.json\\): config\\.Labels: expected an object, got an array$`, 'm'));
    // A member that links outside the archive is never followed on disk.
    f = path.join(tmp, 'link-out.tar');
    writeFileSync(f, Buffer.concat([Buffer.from(writeTar([{ name: 'manifest.json', type: 'file', data: Buffer.from(JSON.stringify([{ ...ok, Config: 'etc/passwd' }])) }]))]));
    expectCleanFailure(await cli(['validate', '--archive', f]), /\(manifest\.json\): \[0\]\.Config: archive member "etc\/passwd" is missing$/m);
  });

  it('a well-formed archive still validates', async () => {
    const f = path.join(tmp, 'good.tar');
    await writeDockerArchive(f, image, ['x:1']);
    const r = await cli(['validate', '--archive', f, '--output', 'json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout).findings.every((x: { rule: string }) => !/invalid image/.test(x.rule))).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------
// Registries that never answer, trickle, or cannot be connected to.

interface Fault {
  host: string;
  requests: number;
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 whose every request gets `behave`; closes every socket on close. */
async function faultServer(behave: (req: http.IncomingMessage, res: http.ServerResponse) => void): Promise<Fault> {
  const sockets = new Set<net.Socket>();
  const f: Fault = { host: '', requests: 0, close: async () => {} };
  const server = http.createServer((req, res) => {
    f.requests++;
    behave(req, res);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  f.host = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  f.close = () =>
    new Promise<void>((r) => {
      for (const t of intervals) clearInterval(t);
      intervals.clear();
      for (const s of sockets) s.destroy();
      server.close(() => r());
    });
  return f;
}
/** The trickling servers' timers, cleared when a server closes. */
const intervals = new Set<NodeJS.Timeout>();

/** Sends headers, then one byte every `everyMs` forever. */
const trickle = (everyMs: number) => (_req: http.IncomingMessage, res: http.ServerResponse) => {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  res.write('{');
  const t = setInterval(() => res.write(' '), everyMs);
  intervals.add(t);
  res.on('close', () => clearInterval(t));
};

describe('registry I/O is bounded by a connect timeout, a stall timeout and the command deadline', () => {
  let fault: Fault | undefined;
  afterEach(async () => {
    await fault?.close();
    fault = undefined;
  });

  it('a registry that accepts and never answers: stall timeout per attempt, all attempts counted', async () => {
    fault = await faultServer(() => {});
    const r = await cli(['validate', '--pull', `${fault.host}/p/q:v1`, '--stall-timeout', '200ms']);
    expectCleanFailure(r, new RegExp(`^error: fetching manifest ${fault.host}/p/q:v1: cannot reach registry ${fault.host}: no data from ${fault.host} for 200ms \\(stall timeout\\) \\(gave up after 5 attempts\\)$`, 'm'));
    expect(r.stderr.match(/^warning: .*retrying in \d+ ms \(attempt \d of 5\)$/gm)).toHaveLength(4);
    expect(fault.requests).toBe(5);
  });

  it('a registry that trickles a byte every 20 s: the stall timeout ends each attempt', async () => {
    fault = await faultServer(trickle(20_000));
    const r = await cli(['validate', '--pull', `${fault.host}/p/q:v1`, '--stall-timeout', '300ms', '--timeout', '2s']);
    expectCleanFailure(r, /: no data from 127\.0\.0\.1:\d+ for 300ms \(stall timeout\) \(gave up after \d attempts(: the 2s timeout for this command passes before the next one)?\)$/m);
  });

  it('a registry that trickles faster than the stall timeout: the overall --timeout ends it', async () => {
    fault = await faultServer(trickle(50));
    const r = await cli(['validate', '--pull', `${fault.host}/p/q:v1`, '--stall-timeout', '5s', '--timeout', '1500ms']);
    expectCleanFailure(r, /^error: fetching manifest 127\.0\.0\.1:\d+\/p\/q:v1: cannot reach registry 127\.0\.0\.1:\d+: the 1\.5s timeout for this command has passed \(gave up after 1 attempt\)$/m);
    expect(fault.requests).toBe(1);
  });

  it('a host whose accept queue is full: the connect timeout ends each attempt', async () => {
    // A listener in a process whose event loop is blocked never accepts: once its backlog is
    // full, the kernel drops further SYNs and connect() waits, as with a black-holed host.
    const child: ChildProcess = spawn(
      process.execPath,
      ['-e', "const s=require('net').createServer();s.listen({port:0,host:'127.0.0.1',backlog:1},()=>{console.log(s.address().port);Atomics.wait(new Int32Array(new SharedArrayBuffer(4)),0,0,20000)})"],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const fill: net.Socket[] = [];
    try {
      const port = await new Promise<number>((res) => child.stdout!.once('data', (d) => res(Number(String(d).trim()))));
      for (let i = 0; i < 4; i++) {
        const s = net.connect(port, '127.0.0.1');
        s.on('error', () => {});
        fill.push(s);
      }
      await new Promise((r) => setTimeout(r, 200));
      const r = await cli(['validate', '--pull', `127.0.0.1:${port}/p/q:v1`, '--connect-timeout', '250ms', '--timeout', '10s']);
      expectCleanFailure(r, new RegExp(`: no connection to 127\\.0\\.0\\.1:${port} within 250ms \\(connect timeout\\) \\(gave up after 5 attempts\\)$`, 'm'));
    } finally {
      for (const s of fill) s.destroy();
      child.kill('SIGKILL');
    }
  });

  it('bad timeout flags are usage errors (exit 2)', async () => {
    const r = await cli(['validate', '--pull', 'x/y:z', '--timeout', '5']);
    expect(r).toMatchObject({ code: 2, stderr: 'pkogen: validate: --timeout: invalid duration "5" (expected e.g. 500ms, 30s, 2m, 1m30s)\n' });
    expect((await cli(['build', '.', '--stall-timeout', '0s'])).code).toBe(2);
  });
});

// ------------------------------------------------------------------------------------------
// Credential helpers.

describe('credential helpers that exit early, hang or print garbage', () => {
  let fault: Fault;
  let bin: string;
  beforeAll(async () => {
    // Asks for Basic credentials on every request, so every pull consults the helper.
    fault = await faultServer((_req, res) => {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="hostile"', 'Content-Type': 'application/json' });
      res.end('{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}');
    });
    bin = path.join(tmp, 'helpers');
    mkdirSync(bin);
  });
  afterAll(() => fault.close());

  async function withHelper(name: string, script: string, extra: string[] = []): Promise<Result> {
    const exe = path.join(bin, `docker-credential-${name}`);
    writeFileSync(exe, `#!/bin/sh\n${script}\n`);
    chmodSync(exe, 0o755);
    const cfg = path.join(tmp, `docker-${name}`);
    mkdirSync(cfg, { recursive: true });
    writeFileSync(path.join(cfg, 'config.json'), JSON.stringify({ credHelpers: { [fault.host]: name } }));
    return cli(['validate', '--pull', `${fault.host}/p/q:v1`, ...extra], { DOCKER_CONFIG: cfg, PATH: `${bin}:${process.env.PATH}` });
  }
  const SECRET = 'hunter2-do-not-print';

  it('exits at once without reading stdin (EPIPE on our write)', async () => {
    // Closing stdin first makes our write fail with EPIPE whenever it comes after.
    const r = await withHelper('early', 'exec 0<&-\nexit 0');
    expectCleanFailure(r, /^error: credential helper docker-credential-early printed something that is not JSON for 127\.0\.0\.1:\d+$/m);
    const r2 = await withHelper('early-fail', 'exec 0<&-\nexit 3');
    expectCleanFailure(r2, /^error: credential helper docker-credential-early-fail failed for 127\.0\.0\.1:\d+ \(exit status 3\)$/m);
  });

  it('hangs: killed when the command deadline comes', async () => {
    const r = await withHelper('hang', 'exec sleep 20', ['--timeout', '1s']);
    expectCleanFailure(r, /^error: credential helper docker-credential-hang did not answer within \d+ ms for 127\.0\.0\.1:\d+; killed it$/m);
  });

  it('prints garbage, a secret in it, or megabytes: a clean error that never repeats the output', async () => {
    let r = await withHelper('garbage', `echo "password=${SECRET}"; echo "${SECRET}" >&2`);
    expectCleanFailure(r, /^error: credential helper docker-credential-garbage printed something that is not JSON for /m);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    r = await withHelper('badshape', `echo '{"Username": 7, "Secret": "${SECRET}"}'`);
    expectCleanFailure(r, /^error: credential helper docker-credential-badshape printed JSON without string Username and Secret for /m);
    expect(r.stdout + r.stderr).not.toContain(SECRET);
    r = await withHelper('flood', 'head -c 3000000 /dev/zero');
    expectCleanFailure(r, /^error: credential helper docker-credential-flood printed more than 1048576 bytes for /m);
  });

  it('a good answer while a child of the helper keeps stdout open: used, without waiting for the child', async () => {
    // The child outlives the command's 3 s deadline: waiting for it would end in the helper's
    // timeout error instead of the registry's 401.
    const pidFile = path.join(tmp, 'lingering.pid');
    try {
      const r = await withHelper('lingering', `sleep 60 &\necho $! > ${pidFile}\nprintf '{"Username":"u","Secret":"${SECRET}"}'`, ['--timeout', '3s']);
      expectCleanFailure(r, /^error: fetching manifest 127\.0\.0\.1:\d+\/p\/q:v1: unauthorized \(HTTP 401\): UNAUTHORIZED: authentication required; check your registry credentials$/m);
      expect(r.stdout + r.stderr).not.toContain(SECRET);
    } finally {
      try {
        process.kill(Number(readFileSync(pidFile, 'utf8')), 'SIGKILL');
      } catch {
        /* already gone */
      }
    }
  });

  it('"credentials not found" is no credential, not an error', async () => {
    const r = await withHelper('none', 'echo "credentials not found in native keychain"; exit 1');
    expectCleanFailure(r, /^error: registry 127\.0\.0\.1:\d+: authentication required; log in/m);
  });
});
