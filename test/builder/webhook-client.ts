/**
 * A webhook client for tests: a throwaway CA and a serving certificate for 127.0.0.1, and one
 * HTTPS request to the server (the hosted kube-apiserver's side of an admission call).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as https from 'node:https';
import * as path from 'node:path';

function run(cmd: string, args: string[]): void {
  execFileSync(cmd, args, { stdio: 'ignore' });
}

/** A throwaway CA and a server certificate for 127.0.0.1 signed by it (files in dir). */
export function makeCert(dir: string, caName: string): { ca: string; cert: string; key: string } {
  const caKey = path.join(dir, `${caName}.key`);
  const ca = path.join(dir, `${caName}.crt`);
  run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', caKey, '-out', ca, '-days', '2', '-subj', `/CN=${caName}`]);
  const key = path.join(dir, `${caName}-server.key`);
  const csr = path.join(dir, `${caName}-server.csr`);
  const cert = path.join(dir, `${caName}-server.crt`);
  run('openssl', ['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', csr, '-subj', '/CN=127.0.0.1']);
  const ext = path.join(dir, 'ext.cnf');
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  run('openssl', ['x509', '-req', '-in', csr, '-CA', ca, '-CAkey', caKey, '-CAcreateserial', '-out', cert, '-days', '2', '-extfile', ext]);
  return { ca: readFileSync(ca, 'utf8'), cert, key };
}

export interface Reply {
  status: number;
  body: string;
}

export function post(port: number, ca: string, urlPath: string, body: string | Buffer, method = 'POST'): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = https.request({ host: '127.0.0.1', port, path: urlPath, method, ca, agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let data = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (data += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: data }));
    });
    req.on('error', reject);
    req.end(body);
  });
}
