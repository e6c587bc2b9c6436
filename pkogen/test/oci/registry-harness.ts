/**
 * Real components for the OCI tests: Debian's docker-registry on 127.0.0.1 (plain HTTP,
 * htpasswd basic auth, or TLS from a throwaway CA), a fault-injecting proxy, and a helper that
 * runs a tool or fails naming the Debian package to install. Nothing here is skipped silently.
 */
import { ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as http from 'node:http';
import * as net from 'node:net';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const TOOLS: Record<string, string> = {
  'docker-registry': 'docker-registry',
  skopeo: 'skopeo',
  umoci: 'umoci',
  buildah: 'buildah',
  openssl: 'openssl',
  perl: 'perl-base',
};

/** Throws (fails the test) when a tool is missing, naming the Debian package. */
export function requireTool(tool: string): string {
  const r = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' });
  const p = r.stdout.trim();
  if (r.status !== 0 || !p) throw new Error(`${tool} is not installed: apt-get install -y ${TOOLS[tool] ?? tool}`);
  return p;
}

export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string; input?: string } = {}): string {
  requireTool(cmd);
  try {
    return execFileSync(cmd, args, { encoding: 'utf8', env: { ...process.env, ...opts.env }, cwd: opts.cwd, input: opts.input, stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
  } catch (e) {
    const err = e as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${cmd} ${args.join(' ')} failed: ${err.stderr || err.stdout || err.message}`);
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export type RegistryMode = 'http' | 'basic' | 'tls';

export interface TestRegistry {
  host: string; // 127.0.0.1:PORT
  port: number;
  mode: RegistryMode;
  dir: string;
  /** PEM of the CA (tls mode). */
  caFile?: string;
  /** A directory with ca.crt for skopeo --*-cert-dir (tls mode). */
  certDir?: string;
  user?: string;
  password?: string;
  /** An auth.json with the credentials (basic mode). */
  authFile?: string;
  stop(): Promise<void>;
  /** Starts it again on the same port and storage (after stop). */
  start(): Promise<void>;
}

export function makeCa(dir: string): { caFile: string; cert: string; key: string; certDir: string } {
  const caKey = path.join(dir, 'ca.key');
  const caFile = path.join(dir, 'ca.crt');
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', caFile, '-days', '2', '-subj', '/CN=pkogen test CA']);
  const key = path.join(dir, 'server.key');
  const csr = path.join(dir, 'server.csr');
  const cert = path.join(dir, 'server.crt');
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=127.0.0.1']);
  const ext = path.join(dir, 'ext.cnf');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  run('openssl', ['x509', '-req', '-in', csr, '-CA', caFile, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', ext]);
  const certDir = path.join(dir, 'certs.d');
  run('mkdir', ['-p', certDir]);
  writeFileSync(path.join(certDir, 'ca.crt'), run('cat', [caFile]));
  return { caFile, cert, key, certDir };
}

/** bcrypt via libcrypt (perl's crypt): docker-registry's htpasswd accepts only bcrypt. */
function bcrypt(password: string): string {
  const salt = '$2b$05$' + 'pkogentestsaltpkogenteu'.slice(0, 22);
  const h = run('perl', ['-e', 'print crypt($ARGV[0], $ARGV[1])', password, salt]);
  if (!h.startsWith('$2b$')) throw new Error('libcrypt has no bcrypt support; cannot make an htpasswd file');
  return h;
}

async function waitReady(url: string, child: ChildProcess, ca?: string): Promise<void> {
  const https = await import('node:https');
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited with ${child.exitCode}`);
    const ok = await new Promise<boolean>((resolve) => {
      const mod = url.startsWith('https') ? https : http;
      const r = mod.get(url, ca ? { ca } : {}, (res) => {
        res.resume();
        resolve(true);
      });
      r.on('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('docker-registry did not become ready in 10 s');
}

export async function startRegistry(mode: RegistryMode): Promise<TestRegistry> {
  requireTool('docker-registry');
  const dir = mkdtempSync(path.join(tmpdir(), `pkogen-registry-${mode}-`));
  const port = await freePort();
  const lines = ['version: 0.1', 'log:', '  level: error', '  accesslog:', '    disabled: true', 'storage:', '  filesystem:', `    rootdirectory: ${dir}/data`, '  delete:', '    enabled: true', 'http:', `  addr: 127.0.0.1:${port}`];
  const reg: TestRegistry = { host: `127.0.0.1:${port}`, port, mode, dir, stop: async () => {}, start: async () => {} };
  if (mode === 'tls') {
    const ca = makeCa(dir);
    reg.caFile = ca.caFile;
    reg.certDir = ca.certDir;
    lines.push('  tls:', `    certificate: ${ca.cert}`, `    key: ${ca.key}`);
  }
  if (mode === 'basic') {
    reg.user = 'pkogen';
    reg.password = 's3cret-pw';
    writeFileSync(path.join(dir, 'htpasswd'), `${reg.user}:${bcrypt(reg.password)}\n`);
    lines.push('auth:', '  htpasswd:', '    realm: basic-realm', `    path: ${dir}/htpasswd`);
    reg.authFile = path.join(dir, 'auth.json');
    writeFileSync(reg.authFile, JSON.stringify({ auths: { [reg.host]: { auth: Buffer.from(`${reg.user}:${reg.password}`).toString('base64') } } }));
  }
  const cfg = path.join(dir, 'config.yml');
  writeFileSync(cfg, lines.join('\n') + '\n');
  let child: ChildProcess | undefined;
  reg.start = async () => {
    child = spawn('docker-registry', ['serve', cfg], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err = (err + d).slice(-4000)));
    try {
      await waitReady(`${mode === 'tls' ? 'https' : 'http'}://127.0.0.1:${port}/v2/`, child, reg.caFile ? run('cat', [reg.caFile]) : undefined);
    } catch (e) {
      child.kill('SIGKILL');
      throw new Error(`${(e as Error).message}: ${err}`);
    }
  };
  reg.stop = async () => {
    if (!child || child.exitCode !== null) return;
    const c = child;
    await new Promise<void>((resolve) => {
      c.once('exit', () => resolve());
      c.kill('SIGKILL');
    });
  };
  await reg.start();
  const stop = reg.stop;
  reg.stop = async () => {
    await stop();
  };
  return reg;
}

export function cleanupRegistry(reg: TestRegistry | undefined): Promise<void> {
  if (!reg) return Promise.resolve();
  return reg.stop().then(() => {
    if (existsSync(reg.dir)) rmSync(reg.dir, { recursive: true, force: true });
  });
}

/**
 * A tiny forwarding proxy on 127.0.0.1 whose `hook` may answer a request itself (fault
 * injection) or let it through, optionally rewriting the upstream response.
 */
export interface ProxyHook {
  (req: http.IncomingMessage, body: Buffer): { status: number; headers?: Record<string, string>; body?: string } | 'pass' | 'drop';
}

export interface TestProxy {
  host: string;
  log: string[];
  close(): Promise<void>;
}

export async function startProxy(upstreamPort: number, hook: ProxyHook, rewrite?: (req: http.IncomingMessage, res: { status: number; headers: http.IncomingHttpHeaders; body: Buffer }) => void): Promise<TestProxy> {
  const log: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      log.push(`${req.method} ${req.url}`);
      const h = hook(req, body);
      if (h === 'drop') {
        req.socket.destroy();
        return;
      }
      if (h !== 'pass') {
        res.writeHead(h.status, { 'Content-Type': 'application/json', ...(h.headers ?? {}) });
        res.end(h.body ?? '');
        return;
      }
      const up = http.request({ host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: { ...req.headers, host: `127.0.0.1:${upstreamPort}` } }, (ur) => {
        const uc: Buffer[] = [];
        ur.on('data', (c) => uc.push(c));
        ur.on('end', () => {
          const r = { status: ur.statusCode ?? 502, headers: { ...ur.headers }, body: Buffer.concat(uc) };
          rewrite?.(req, r);
          // Locations point at the upstream: make them point back at us.
          if (typeof r.headers.location === 'string') r.headers.location = r.headers.location.replace(`127.0.0.1:${upstreamPort}`, addr);
          if (req.method !== 'HEAD') r.headers['content-length'] = String(r.body.length);
          res.writeHead(r.status, r.headers);
          res.end(req.method === 'HEAD' ? undefined : r.body);
        });
      });
      up.on('error', () => req.socket.destroy());
      up.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const addr = `127.0.0.1:${(server.address() as net.AddressInfo).port}`;
  return {
    host: addr,
    log,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
