/**
 * For the /metrics tests: a CA with a serving certificate for 127.0.0.1 (pkogen's makeCa), client
 * certificates by subject from that CA or from another one (openssl), a scrape over HTTPS with a
 * client certificate, and reading one sample out of the exposition text.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';
import { makeCa } from '../../pkogen/test/oci/registry-harness.js';

const openssl = (args: string[]) => execFileSync('openssl', args, { stdio: ['ignore', 'pipe', 'pipe'] });

export interface MetricsPki {
  /** Serving certificate directory (tls.crt, tls.key) and the CA that signed it. */
  certDir: string;
  serverCa: string;
  /** The client CA file the server trusts. */
  clientCa: string;
  /** A client certificate and key with this subject, from the trusted CA (or from an untrusted one). */
  client(cn: string, trusted?: boolean): { cert: string; key: string };
}

export function metricsPki(dir: string): MetricsPki {
  const served = makeCa(dir);
  writeFileSync(path.join(dir, 'tls.crt'), readFileSync(served.cert));
  writeFileSync(path.join(dir, 'tls.key'), readFileSync(served.key));
  const ca = (name: string) => {
    const key = path.join(dir, `${name}.key`);
    const crt = path.join(dir, `${name}.crt`);
    openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${name}`]);
    return { key, crt };
  };
  const trusted = ca('metrics-client-ca');
  const other = ca('other-ca');
  let n = 0;
  return {
    certDir: dir,
    serverCa: served.caFile,
    clientCa: trusted.crt,
    client(cn, isTrusted = true) {
      const signer = isTrusted ? trusted : other;
      const base = path.join(dir, `client-${++n}`);
      openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.key`, '-out', `${base}.csr`, '-subj', `/CN=${cn}`]);
      writeFileSync(`${base}.ext`, 'basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n');
      openssl(['x509', '-req', '-in', `${base}.csr`, '-CA', signer.crt, '-CAkey', signer.key, '-CAcreateserial', '-out', `${base}.crt`, '-days', '2', '-extfile', `${base}.ext`]);
      return { cert: readFileSync(`${base}.crt`, 'utf8'), key: readFileSync(`${base}.key`, 'utf8') };
    },
  };
}

/** GET /metrics (or `p`) on 127.0.0.1:port; a failed handshake is `{ status: 0, body: <error code> }`. */
export function scrape(port: number, ca: string, client?: { cert: string; key: string }, p = '/metrics'): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = https.get({ host: '127.0.0.1', port, path: p, ca: readFileSync(ca), ...(client ?? {}), timeout: 10_000, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('timeout', () => req.destroy(new Error('ETIMEDOUT')));
    req.on('error', (e: NodeJS.ErrnoException) => resolve({ status: 0, body: e.code ?? e.message }));
  });
}

/** The value of one sample (`name{labels}`), 0 when absent. Labels must match exactly those given (others ignored). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total = (total ?? 0) + Number(m[3]);
  }
  return total ?? 0;
}

/** Every sample of the exposition text whose name starts with `prefix`, as promtool series names. */
export function samples(text: string, prefix: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(prefix)) continue;
    const i = line.lastIndexOf(' ');
    out.set(line.slice(0, i), Number(line.slice(i + 1)));
  }
  return out;
}
